//! Pieces in hand, packed into one `u32` (YaneuraOu's layout) so that comparing two hands for
//! superiority is one subtraction.

use crate::PieceType;

/// The pieces one side holds in hand. Bit fields: pawn 0-4, lance 8-10, knight 12-14,
/// silver 16-18, bishop 20-21, rook 24-25, gold 28-30; the bit above each field is spare, so
/// `a - b` borrows into it exactly when some count of `a` is smaller than `b`'s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Hand(u32);

const SHIFT: [u32; 8] = [0, 0, 8, 12, 16, 20, 24, 28];
const MASK: [u32; 8] = [0, 0x1f, 7, 7, 7, 3, 3, 7];
const BORROW: u32 = (1 << 5) | (1 << 11) | (1 << 15) | (1 << 19) | (1 << 22) | (1 << 26) | (1 << 31);

impl Hand {
    /// An empty hand.
    pub const EMPTY: Hand = Hand(0);

    /// How many pieces of kind `pt` (a hand kind) are held.
    #[inline(always)]
    pub const fn count(self, pt: PieceType) -> u32 {
        (self.0 >> SHIFT[pt as usize]) & MASK[pt as usize]
    }

    /// Whether at least one piece of kind `pt` is held.
    #[inline(always)]
    pub const fn has(self, pt: PieceType) -> bool {
        self.0 & (MASK[pt as usize] << SHIFT[pt as usize]) != 0
    }

    /// Adds one piece of kind `pt`.
    #[inline(always)]
    pub fn add(&mut self, pt: PieceType) {
        self.0 += 1 << SHIFT[pt as usize];
    }

    /// Removes one piece of kind `pt`, which must be held.
    #[inline(always)]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.has(pt));
        self.0 -= 1 << SHIFT[pt as usize];
    }

    /// Whether no piece is held.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether this hand holds something other than pawns.
    #[inline(always)]
    pub const fn has_except_pawn(self) -> bool {
        self.0 & !MASK[1] != 0
    }

    /// Whether every count here is at least the count in `other` ("superior or equal").
    #[inline(always)]
    pub const fn is_superior_or_equal(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & BORROW == 0
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND.iter().map(|&pt| self.count(pt)).sum()
    }

    /// The raw packed value.
    pub const fn bits(self) -> u32 {
        self.0
    }
}
