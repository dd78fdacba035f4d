//! Move-ordering statistics learned during the search: killers, counter moves, and the
//! butterfly, capture and continuation histories. Board moves and drops are indexed apart
//! (a drop's "from" is 81 + its kind), as a drop and a board move to one square differ.

use engine::{Color, Move, PIECE_NB, SQUARE_COUNT};

/// History values stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16384;
const FROM_NB: usize = SQUARE_COUNT + 8;

/// The "from" index of a move: its origin square, or 81 + dropped kind.
#[inline]
pub fn from_index(m: Move) -> usize {
    if m.is_drop() {
        SQUARE_COUNT + m.dropped().index()
    } else {
        m.from().index()
    }
}

/// One continuation-history table: indexed by the current piece and destination.
pub type PieceToHistory = [[i16; SQUARE_COUNT]; PIECE_NB];

/// Applies a bonus with gravity, so values saturate smoothly at +-HISTORY_MAX.
#[inline]
pub fn update(entry: &mut i16, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let v = *entry as i32;
    *entry = (v + b - v * b.abs() / HISTORY_MAX) as i16;
}

/// The per-thread ordering statistics.
pub struct Histories {
    /// Butterfly history: [colour][from or drop][to].
    pub main: Box<[[[i16; SQUARE_COUNT]; FROM_NB]; 2]>,
    /// Capture history: [moving piece][to][captured kind].
    pub capture: Box<[[[i16; 16]; SQUARE_COUNT]; PIECE_NB]>,
    /// Continuation history: [previous piece][previous to] -> table for the current move.
    pub continuation: Box<[[PieceToHistory; SQUARE_COUNT]; PIECE_NB]>,
    /// The refutation of each [previous piece][previous to].
    pub counter: Box<[[Move; SQUARE_COUNT]; PIECE_NB]>,
}

fn zeroed<T>() -> Box<T> {
    // Boxes of nested integer/Move arrays are built directly on the heap (too large for the
    // stack); all-zero is their valid empty state.
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: T is only instantiated with arrays of i16 or Move (a u32 newtype), for which
    // the all-zero bit pattern is a valid value; the layout is non-zero sized; a null pointer
    // is handled.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(p)
    }
}

impl Default for Histories {
    fn default() -> Self {
        Histories { main: zeroed(), capture: zeroed(), continuation: zeroed(), counter: zeroed() }
    }
}

impl Histories {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    /// The butterfly history of `m` for `c`.
    #[inline]
    pub fn main_of(&self, c: Color, m: Move) -> i32 {
        self.main[c.index()][from_index(m)][m.to().index()] as i32
    }
}

/// The history bonus for a move that caused a cutoff at `depth`.
#[inline]
pub fn stat_bonus(depth: i32) -> i32 {
    (130 * depth - 70).clamp(0, 1600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            update(&mut e, 5000);
        }
        assert!((e as i32) <= HISTORY_MAX && e > 15000);
        for _ in 0..1000 {
            update(&mut e, -5000);
        }
        assert!((e as i32) >= -HISTORY_MAX && e < -15000);
    }

    #[test]
    fn tables_start_empty() {
        let h = Histories::default();
        assert_eq!(h.main[1][88][80], 0);
        assert_eq!(h.counter[31][80], Move::NONE);
        assert_eq!(h.continuation[31][80][31][80], 0);
    }
}
