//! Squares, files and ranks of the 9x9 board, in USI notation (`7g`).

use crate::Color;
use std::fmt;
use std::str::FromStr;

/// Squares per file and per rank; the single place the board geometry is fixed.
pub const BOARD_SIZE: u8 = 9;
/// Number of squares on the board.
pub const SQUARE_COUNT: usize = 81;

/// A board square. Index = file_index * 9 + rank_index, file 1 and rank `a` being 0,
/// so a file is nine consecutive bits of a bitboard (see `bitboard.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Every square, in index order (1a, 1b, ..., 9i).
    pub const ALL: [Square; SQUARE_COUNT] = {
        let mut all = [Square(0); SQUARE_COUNT];
        let mut i = 0;
        while i < SQUARE_COUNT {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// No square: what `Position` stores for the king of a side that has none (a tsume's
    /// attacker). Its index is 81, one past the board, so that every table lookup with it
    /// panics instead of silently reading another square's entry: a rule that forgot the
    /// missing king fails loudly in the tests.
    pub(crate) const NONE: Square = Square(SQUARE_COUNT as u8);

    /// The square with this index (0..81); panics in debug builds when out of range.
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < SQUARE_COUNT as u8);
        Square(index)
    }

    /// The square at a 0-based file index (0 = file 1) and rank index (0 = rank a).
    #[inline(always)]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        Square(file * BOARD_SIZE + rank)
    }

    /// The square at 0-based coordinates, or `None` off the board.
    pub const fn try_from_coords(file: i32, rank: i32) -> Option<Square> {
        if file < 0 || rank < 0 || file >= BOARD_SIZE as i32 || rank >= BOARD_SIZE as i32 {
            None
        } else {
            Some(Square::from_coords(file as u8, rank as u8))
        }
    }

    /// The index 0..81.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file index: 0 is file 1, 8 is file 9.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 / BOARD_SIZE
    }

    /// 0-based rank index: 0 is rank a (White's back rank), 8 is rank i.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % BOARD_SIZE
    }

    /// The rank as seen by `c`: 0 is the far rank (where `c`'s pawns must promote).
    #[inline(always)]
    pub const fn relative_rank(self, c: Color) -> u8 {
        match c {
            Color::Black => self.rank(),
            Color::White => BOARD_SIZE - 1 - self.rank(),
        }
    }

    /// Whether the square is in the promotion zone (the far three ranks) of `c`.
    #[inline(always)]
    pub const fn in_zone(self, c: Color) -> bool {
        self.relative_rank(c) < 3
    }

    /// The square seen from the other side of the board (180 degree rotation).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(SQUARE_COUNT as u8 - 1 - self.0)
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::try_from_coords(self.file() as i32 + df, self.rank() as i32 + dr)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file() + 1, (b'a' + self.rank()) as char)
    }
}

/// A square text that is not a file digit 1-9 followed by a rank letter a-i.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad square '{}' (expected file 1-9 and rank a-i, like 7g)", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() == 2 && (b'1'..=b'9').contains(&b[0]) && (b'a'..=b'i').contains(&b[1]) {
            Ok(Square::from_coords(b[0] - b'1', b[1] - b'a'))
        } else {
            Err(ParseSquareError(s.to_string()))
        }
    }
}
