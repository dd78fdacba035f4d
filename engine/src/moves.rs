//! The compact move type and a fixed-capacity move list (no allocation while generating).

use crate::{Piece, PieceType, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// A move packed in 32 bits: `to` (bits 0-6), `from` or the dropped kind (7-13), drop flag (14),
/// promotion flag (15), and the piece standing on `to` after the move (16-20). The low 16 bits
/// (`Move16`) identify the move in a given position and are what the transposition table stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u32);

const DROP: u32 = 1 << 14;
const PROMOTE: u32 = 1 << 15;

/// The most legal moves any shogi position has is 593; the list holds a little more.
pub const MAX_MOVES: usize = 600;

impl Move {
    /// "No move"; never legal (from 1a to 1a).
    pub const NONE: Move = Move(0);
    /// The null move (a pass), used by null-move pruning and accepted from GUIs as `pass`/`0000`.
    pub const NULL: Move = Move(1 | (1 << 7));

    /// A board move of `piece` (the piece before moving) from `from` to `to`.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square, piece: Piece) -> Move {
        Move(to.index() as u32 | (from.index() as u32) << 7 | (piece.index() as u32) << 16)
    }

    /// A promoting board move of `piece` (unpromoted) from `from` to `to`.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, piece: Piece) -> Move {
        Move(to.index() as u32 | (from.index() as u32) << 7 | PROMOTE | (piece.promoted().index() as u32) << 16)
    }

    /// A drop of `piece` (a hand kind with the mover's colour) on `to`.
    #[inline(always)]
    pub const fn drop(piece: Piece, to: Square) -> Move {
        Move(to.index() as u32 | (piece.kind() as u32) << 7 | DROP | (piece.index() as u32) << 16)
    }

    /// The destination square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new((self.0 & 0x7f) as u8)
    }

    /// The origin square of a board move (meaningless for drops).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new(((self.0 >> 7) & 0x7f) as u8)
    }

    /// Where the move comes from, as one index for tables over board moves and drops alike
    /// (such as the search's histories): the origin square's index (below 81) for a board move,
    /// 128 + the dropped kind's index for a drop; always below `FROM_OR_DROP_NB`.
    #[inline(always)]
    pub const fn from_or_drop_index(self) -> usize {
        // Bits 7-13 hold the origin of a board move and the dropped kind of a drop; bit 14 is
        // the drop flag.
        ((self.0 >> 7) & 0xff) as usize
    }

    /// Whether this is a drop.
    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.0 & DROP != 0
    }

    /// Whether this board move promotes.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTE != 0
    }

    /// The dropped kind of a drop.
    #[inline(always)]
    pub const fn dropped(self) -> PieceType {
        PieceType::from_code(((self.0 >> 7) & 15) as u8)
    }

    /// The piece standing on `to` after the move (promoted if the move promotes).
    #[inline(always)]
    pub const fn piece_after(self) -> Piece {
        // Bits 16-20 hold the piece's index (kind + 16 for White) as they are.
        Piece::from_index(((self.0 >> 16) & 31) as u8)
    }

    /// The kind that moves, before any promotion.
    #[inline(always)]
    pub const fn moved_kind(self) -> PieceType {
        let k = self.piece_after().kind();
        if self.is_promotion() {
            k.demoted()
        } else {
            k
        }
    }

    /// Whether this is a real move (not `NONE` or `NULL`).
    #[inline(always)]
    pub const fn is_ok(self) -> bool {
        self.0 >> 7 != self.0 & 0x7f && self.0 >> 16 != 0
    }

    /// Whether every field decodes: squares on the board, a real piece code, a hand kind for a
    /// drop, a promoted kind for a promotion (a shogi promoted kind, or the king kind: Sho
    /// shogi's prince). Arbitrary bit patterns (a racy table entry) may fail this; every accessor
    /// is safe to call on a move that passes it.
    pub const fn is_well_formed(self) -> bool {
        let to = self.0 & 0x7f;
        let from = (self.0 >> 7) & 0x7f;
        let piece = (self.0 >> 16) & 0x1f;
        let kind = piece & 15;
        if self.0 >> 21 != 0 || to >= 81 || kind == 0 || !self.is_ok() {
            return false;
        }
        if self.is_drop() {
            from >= 1 && from <= 7 && from == kind && !self.is_promotion()
        } else {
            from < 81 && (!self.is_promotion() || (kind >= 8 && kind <= 14))
        }
    }

    /// The low 16 bits, enough to identify the move in its position.
    #[inline(always)]
    pub const fn to_u16(self) -> u16 {
        self.0 as u16
    }

    /// A move from raw bits; check it with `Position::is_legal` before playing it.
    #[inline(always)]
    pub const fn from_raw(raw: u32) -> Move {
        Move(raw)
    }

    /// The raw 32 bits.
    #[inline(always)]
    pub const fn raw(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Move {
    /// USI move text: `7g7f`, `8h2b+`, `P*5e`; `NULL` prints as `pass`, `NONE` as `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Move::NULL {
            return write!(f, "pass");
        }
        if *self == Move::NONE {
            return write!(f, "none");
        }
        if self.is_drop() {
            write!(f, "{}*{}", self.dropped().letter(), self.to())
        } else {
            write!(f, "{}{}{}", self.from(), self.to(), if self.is_promotion() { "+" } else { "" })
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The number of values `Move::from_or_drop_index` takes (some of the 136 go unused).
pub const FROM_OR_DROP_NB: usize = 128 + 8;

/// Where move generation appends its moves.
pub trait MoveSink {
    /// Appends a move.
    fn push(&mut self, m: Move);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        StackList::push(self, m);
    }
}

/// A list on the stack with room for `N` items: the move lists of the generator and the scored
/// lists of the search's move picker.
///
/// The buffer is left uninitialised: zeroing 2.4 KB at every node cost 5% of perft time.
/// Invariant: `items[..len]` are initialised; nothing reads beyond `len`.
pub struct StackList<T: Copy, const N: usize> {
    items: [MaybeUninit<T>; N],
    len: usize,
}

/// A list of moves on the stack, large enough for any position.
pub type MoveList = StackList<Move, MAX_MOVES>;

impl<T: Copy, const N: usize> Clone for StackList<T, N> {
    fn clone(&self) -> Self {
        let mut l = Self::new();
        for &x in self.iter() {
            l.push(x);
        }
        l
    }
}

impl<T: Copy, const N: usize> Default for StackList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy, const N: usize> StackList<T, N> {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> Self {
        StackList {
            // SAFETY: an array of `MaybeUninit` needs no initialisation. (Writing the array as a
            // constant expression instead made the compiler zero it with memset.)
            items: unsafe { MaybeUninit::<[MaybeUninit<T>; N]>::uninit().assume_init() },
            len: 0,
        }
    }

    /// Appends an item.
    #[inline(always)]
    pub fn push(&mut self, x: T) {
        // Bounds-checked write: a position never has more than 593 legal moves.
        self.items[self.len] = MaybeUninit::new(x);
        self.len += 1;
    }

    /// Number of items.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every item.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether `x` is in the list.
    pub fn contains(&self, x: T) -> bool
    where
        T: PartialEq,
    {
        self.as_slice().contains(&x)
    }

    /// The items as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `items[..len]` were all written by `push` (the type invariant), and
        // `MaybeUninit<T>` has the same layout as `T`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }

    /// The items as a mutable slice (for sorting).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes the slice unique.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }

    /// Keeps only the first `len` items.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Removes the item at `i`, replacing it with the last one (order not kept).
    #[inline(always)]
    pub fn swap_remove(&mut self, i: usize) -> T {
        let x = self.as_slice()[i];
        let last = self.as_slice()[self.len - 1];
        self.as_mut_slice()[i] = last;
        self.len -= 1;
        x
    }

    /// Iterates over the items.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a StackList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_or_drop_index_numbers_origins_then_dropped_kinds() {
        let pc = Piece::new(crate::Color::White, PieceType::Silver);
        assert_eq!(Move::normal(Square::new(80), Square::new(3), pc).from_or_drop_index(), 80);
        assert_eq!(Move::promotion(Square::new(7), Square::new(6), pc).from_or_drop_index(), 7);
        for pt in PieceType::HAND {
            let m = Move::drop(Piece::new(crate::Color::Black, pt), Square::new(40));
            assert_eq!(m.from_or_drop_index(), 128 + pt.index());
            assert!(m.from_or_drop_index() < FROM_OR_DROP_NB);
        }
    }

    #[test]
    fn move_list_reads_back_what_was_pushed() {
        let pc = Piece::new(crate::Color::Black, PieceType::Pawn);
        let mut l = MoveList::new();
        assert!(l.as_slice().is_empty());
        for i in 0..MAX_MOVES {
            l.push(Move::drop(pc, Square::new((i % 81) as u8)));
        }
        assert_eq!(l.len(), MAX_MOVES);
        assert_eq!(l.as_slice()[599].to(), Square::new((599 % 81) as u8));
        let c = l.clone();
        assert_eq!(c.as_slice(), l.as_slice());
        l.truncate(3);
        assert_eq!(l.swap_remove(0).to(), Square::new(0));
        assert_eq!(l.as_slice(), &[Move::drop(pc, Square::new(2)), Move::drop(pc, Square::new(1))]);
    }
}
