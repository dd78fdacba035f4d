//! The two sides.

use std::ops::Not;

/// A side: Black (sente) moves first and plays up the board, White (gote) plays down.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente, the side that moves first in an even game; SFEN upper case, `b`.
    Black = 0,
    /// Gote; SFEN lower case, `w`.
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The colour as an array index.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side, usable in `const` contexts.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The SFEN side-to-move letter.
    pub const fn sfen_char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}
