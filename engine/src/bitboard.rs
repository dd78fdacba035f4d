//! The 81-square bitboard.
//!
//! Layout (Apery/YaneuraOu "vertical" board): square index = file * 9 + rank, word 0 holds
//! files 1-7 (bits 0-62, bit 63 unused) and word 1 holds files 8-9 (bits 0-17). A file never
//! straddles the two words, so a file's occupancy, lance attacks and the nifu mask are
//! single-word shifts. We kept two `u64` rather than one `u128` because the hot loop of move
//! generation is "pop the lowest bit": on x86-64 a `u128` trailing-zeros/clear-lowest costs two
//! dependent word operations every time, whereas here the first word is usually the only one
//! touched (sugyan/shunsai measured `u128` at about twice the cost of `u64` for these two
//! operations; our perft figures in the README were measured with this layout).

use crate::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard {
    p: [u64; 2],
}

const WORD0_MASK: u64 = (1u64 << 63) - 1;
const WORD1_MASK: u64 = (1u64 << 18) - 1;

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard { p: [0, 0] };
    /// All 81 squares.
    pub const ALL: Bitboard = Bitboard { p: [WORD0_MASK, WORD1_MASK] };

    /// A bitboard from its two raw words.
    #[inline(always)]
    pub const fn from_words(w0: u64, w1: u64) -> Bitboard {
        Bitboard { p: [w0, w1] }
    }

    /// The raw words.
    #[inline(always)]
    pub const fn words(self) -> [u64; 2] {
        self.p
    }

    /// The set holding only `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        SQUARE_BB[sq.index()]
    }

    const fn from_square_slow(i: usize) -> Bitboard {
        if i < 63 {
            Bitboard { p: [1u64 << i, 0] }
        } else {
            Bitboard { p: [0, 1u64 << (i - 63)] }
        }
    }

    /// The nine squares of a file (0-based file index).
    pub const fn file_mask(file: u8) -> Bitboard {
        if file < 7 {
            Bitboard { p: [0x1ff << (file * 9), 0] }
        } else {
            Bitboard { p: [0, 0x1ff << ((file - 7) * 9)] }
        }
    }

    /// The nine squares of a rank (0-based rank index).
    pub const fn rank_mask(rank: u8) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        let mut f = 0;
        while f < 9 {
            b = b.or(Bitboard::from_square(Square::from_coords(f, rank)));
            f += 1;
        }
        b
    }

    /// The ranks whose relative rank for `c` is below `n` (e.g. n = 3: `c`'s promotion zone).
    pub const fn far_ranks(c: Color, n: u8) -> Bitboard {
        Bitboard::far_ranks_on(c, n, 9, 9)
    }

    /// `far_ranks` on a board of `files` x `ranks` in the corner of the 9x9 grid (files 1..,
    /// ranks a..; a variant's board, `variant.rs`).
    pub const fn far_ranks_on(c: Color, n: u8, files: u8, ranks: u8) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        let mut r = 0;
        while r < n && r < ranks {
            let rank = match c {
                Color::Black => r,
                Color::White => ranks - 1 - r,
            };
            let mut f = 0;
            while f < files {
                b = b.or(Bitboard::from_square(Square::from_coords(f, rank)));
                f += 1;
            }
            r += 1;
        }
        b
    }

    /// `c`'s promotion zone (its far three ranks).
    #[inline(always)]
    pub const fn zone(c: Color) -> Bitboard {
        FAR_RANKS[c as usize][3]
    }

    /// The far `n` ranks (n = 1..=3) of `c`, from a table.
    #[inline(always)]
    pub const fn far(c: Color, n: usize) -> Bitboard {
        FAR_RANKS[c as usize][n]
    }

    /// Union, usable in `const` contexts.
    #[inline(always)]
    pub const fn or(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] | o.p[0], self.p[1] | o.p[1]] }
    }

    /// Intersection, usable in `const` contexts.
    #[inline(always)]
    pub const fn and(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] & o.p[0], self.p[1] & o.p[1]] }
    }

    /// Squares of `self` not in `o`.
    #[inline(always)]
    pub const fn and_not(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] & !o.p[0], self.p[1] & !o.p[1]] }
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        (self.p[0] | self.p[1]) == 0
    }

    /// Whether the set has at least one square.
    #[inline(always)]
    pub const fn any(self) -> bool {
        !self.is_empty()
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        // Branch-free: squares 63.. live in word 1 at bit (index - 63).
        let i = sq.index();
        let w = (i >= 63) as usize;
        self.p[w] >> (i - 63 * w) & 1 != 0
    }

    /// Number of squares.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.p[0].count_ones() + self.p[1].count_ones()
    }

    /// Whether the set has two or more squares.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.p[0] & self.p[0].wrapping_sub(1) != 0
            || self.p[1] & self.p[1].wrapping_sub(1) != 0
            || (self.p[0] != 0 && self.p[1] != 0)
    }

    /// The lowest square; the set must not be empty.
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        if self.p[0] != 0 {
            Square::new(self.p[0].trailing_zeros() as u8)
        } else {
            Square::new(63 + self.p[1].trailing_zeros() as u8)
        }
    }

    /// Removes and returns the lowest square; the set must not be empty.
    #[inline(always)]
    pub fn pop(&mut self) -> Square {
        if self.p[0] != 0 {
            let s = self.p[0].trailing_zeros();
            self.p[0] &= self.p[0] - 1;
            Square::new(s as u8)
        } else {
            let s = self.p[1].trailing_zeros();
            self.p[1] &= self.p[1] - 1;
            Square::new(63 + s as u8)
        }
    }

    /// Both words OR-ed together. Applied to an occupancy already masked by a slider's relevant
    /// squares (which never share a bit position across the words once the board edges are
    /// left out), this is lossless: one 64-bit magic multiply then indexes the whole board.
    #[inline(always)]
    pub const fn merge(self) -> u64 {
        self.p[0] | self.p[1]
    }

    /// The set shifted one rank towards rank a (Black's forward direction); squares leaving the
    /// board or a file are the caller's concern (used for pawns, which never stand on rank a).
    #[inline(always)]
    pub const fn shift_north(self) -> Bitboard {
        Bitboard { p: [self.p[0] >> 1, self.p[1] >> 1] }
    }

    /// The set shifted one rank towards rank i (White's forward direction); see `shift_north`.
    #[inline(always)]
    pub const fn shift_south(self) -> Bitboard {
        Bitboard { p: [self.p[0] << 1 & WORD0_MASK, self.p[1] << 1 & WORD1_MASK] }
    }

    /// The 7-bit index of the inner squares (ranks b-h) of `sq`'s file: the key of the file
    /// attack tables.
    #[inline(always)]
    pub const fn file_index(self, sq: Square) -> usize {
        let f = sq.file();
        if f < 7 {
            ((self.p[0] >> (f as u32 * 9 + 1)) & 0x7f) as usize
        } else {
            ((self.p[1] >> ((f as u32 - 7) * 9 + 1)) & 0x7f) as usize
        }
    }

    /// Calls `f` for every square, lowest first: the fastest way to walk a bitboard (one test
    /// per square, the words visited one after the other).
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(Square)) {
        let mut w = self.p[0];
        while w != 0 {
            f(Square::new(w.trailing_zeros() as u8));
            w &= w - 1;
        }
        let mut w = self.p[1];
        while w != 0 {
            f(Square::new(63 + w.trailing_zeros() as u8));
            w &= w - 1;
        }
    }

    /// Iterates over the squares, lowest first.
    #[inline(always)]
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self)
    }
}

/// The one-square bitboards.
const SQUARE_BB: [Bitboard; 81] = {
    let mut t = [Bitboard::EMPTY; 81];
    let mut i = 0;
    while i < 81 {
        t[i] = Bitboard::from_square_slow(i);
        i += 1;
    }
    t
};

/// `FAR_RANKS[c][n]`: the far `n` ranks of colour `c`, n = 0..=3.
const FAR_RANKS: [[Bitboard; 4]; 2] = {
    let mut t = [[Bitboard::EMPTY; 4]; 2];
    let mut n = 0;
    while n < 4 {
        t[0][n] = Bitboard::far_ranks(Color::Black, n as u8);
        t[1][n] = Bitboard::far_ranks(Color::White, n as u8);
        n += 1;
    }
    t
};

/// Iterator over the squares of a bitboard.
pub struct BitboardIter(Bitboard);

impl Iterator for BitboardIter {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0.is_empty() {
            None
        } else {
            Some(self.0.pop())
        }
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    fn into_iter(self) -> BitboardIter {
        BitboardIter(self)
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn bitor(self, o: Bitboard) -> Bitboard {
        self.or(o)
    }
}
impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn bitand(self, o: Bitboard) -> Bitboard {
        self.and(o)
    }
}
impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn bitxor(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] ^ o.p[0], self.p[1] ^ o.p[1]] }
    }
}
impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard { p: [!self.p[0] & WORD0_MASK, !self.p[1] & WORD1_MASK] }
    }
}
impl BitOrAssign for Bitboard {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Bitboard) {
        *self = *self | o;
    }
}
impl BitAndAssign for Bitboard {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Bitboard) {
        *self = *self & o;
    }
}
impl BitXorAssign for Bitboard {
    #[inline(always)]
    fn bitxor_assign(&mut self, o: Bitboard) {
        *self = *self ^ o;
    }
}
impl BitOr<Square> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn bitor(self, sq: Square) -> Bitboard {
        self | Bitboard::from_square(sq)
    }
}
impl BitXor<Square> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn bitxor(self, sq: Square) -> Bitboard {
        self ^ Bitboard::from_square(sq)
    }
}
impl BitOrAssign<Square> for Bitboard {
    #[inline(always)]
    fn bitor_assign(&mut self, sq: Square) {
        *self = *self | sq;
    }
}
impl BitXorAssign<Square> for Bitboard {
    #[inline(always)]
    fn bitxor_assign(&mut self, sq: Square) {
        *self = *self ^ sq;
    }
}

impl std::fmt::Debug for Bitboard {
    /// A 9x9 diagram as Black sees the board (file 9 on the left, rank a at the top).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for r in 0..9 {
            for file in (0..9).rev() {
                let c = if self.contains(Square::from_coords(file, r)) { 'X' } else { '.' };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
