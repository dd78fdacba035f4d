//! Move-ordering statistics learned during the search: killers, counter moves, and the
//! butterfly, capture and continuation histories. Board moves and drops are indexed apart
//! (a drop's "from" is 128 + its kind), as a drop and a board move to one square differ.

use engine::hugemem::ZeroedArray;
use engine::{Color, Move, PieceType, FROM_OR_DROP_NB, PIECE_NB, SQUARE_COUNT};

/// History values stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16384;
const FROM_NB: usize = FROM_OR_DROP_NB;

/// The "from" index of a move: its origin square, or 128 + dropped kind.
#[inline]
pub fn from_index(m: Move) -> usize {
    m.from_or_drop_index()
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
    /// Written only through `update_continuation`, which records the table in `touched`.
    /// On huge pages: its lookups are spread over all of it.
    continuation: ZeroedArray<[PieceToHistory; SQUARE_COUNT]>,
    /// The (previous piece, previous to) of every continuation table written since the last
    /// clear, each once: `clear` zeroes just these (a search touches a fraction of the 13 MB).
    touched: Vec<(u16, u16)>,
    /// Whether each continuation table is listed in `touched`.
    is_touched: Box<[[bool; SQUARE_COUNT]; PIECE_NB]>,
    /// The refutation of each [previous piece][previous to].
    pub counter: Box<[[Move; SQUARE_COUNT]; PIECE_NB]>,
    /// Correction history: [key kind][side to move][key index] -> what searches found the
    /// static evaluation to miss in positions sharing that key (see `search::correction_keys`).
    pub correction: Box<[[[i16; CORRECTION_SIZE]; 2]; CORRECTION_KINDS]>,
}

/// Entries per side in each correction table.
pub const CORRECTION_SIZE: usize = 1 << 14;
/// Kinds of correction key (pawn structure, the kings' defenders).
pub const CORRECTION_KINDS: usize = 2;
/// Correction entries stay within +-CORRECTION_LIMIT.
pub const CORRECTION_LIMIT: i32 = 1024;

/// A heap-allocated all-zero `T` (the tables are too large to build on the stack and move),
/// or `None` when the allocator refuses the memory.
///
/// # Safety
/// The all-zero bit pattern must be a valid `T` (arrays of integers, `bool` or `Move`, a
/// `u32` newtype), and `T` must not be zero-sized.
unsafe fn try_zeroed<T>() -> Option<Box<T>> {
    let layout = std::alloc::Layout::new::<T>();
    debug_assert!(layout.size() > 0);
    // SAFETY: the caller guarantees that zero bytes are a valid `T` and that `T` has a
    // non-zero size (required by `alloc_zeroed`); a null pointer is handled; the pointer
    // comes from the global allocator with `T`'s layout, as `Box::from_raw` needs.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            return None;
        }
        Some(Box::from_raw(p))
    }
}

impl Default for Histories {
    fn default() -> Self {
        Histories::try_new().expect("memory for a search thread's histories")
    }
}

impl Histories {
    /// Empty statistics, or `None` when the machine refuses their memory (about 14 MB, nearly
    /// all of it the continuation history): `Threads` larger than the machine can hold.
    pub fn try_new() -> Option<Histories> {
        // SAFETY (every `try_zeroed` and `try_new` here): the tables are arrays of i16, bool or
        // Move (a u32 newtype), for which all-zero is a valid value (empty history, no
        // refutation).
        unsafe {
            Some(Histories {
                main: try_zeroed()?,
                capture: try_zeroed()?,
                continuation: ZeroedArray::try_new(PIECE_NB)?,
                touched: Vec::new(),
                is_touched: try_zeroed()?,
                counter: try_zeroed()?,
                correction: try_zeroed()?,
            })
        }
    }

    /// Forgets everything. Zeroes in place, and of the continuation history only the tables
    /// written since the last clear: the rest are still zero.
    pub fn clear(&mut self) {
        for &(pc, to) in &self.touched {
            let (pc, to) = (pc as usize, to as usize);
            self.continuation[pc][to] = [[0; SQUARE_COUNT]; PIECE_NB];
            self.is_touched[pc][to] = false;
        }
        self.touched.clear();
        *self.main = [[[0; SQUARE_COUNT]; FROM_NB]; 2];
        *self.capture = [[[0; 16]; SQUARE_COUNT]; PIECE_NB];
        *self.counter = [[Move::NONE; SQUARE_COUNT]; PIECE_NB];
        *self.correction = [[[0; CORRECTION_SIZE]; 2]; CORRECTION_KINDS];
    }

    /// The correction of the static evaluation for the side to move `us` in a position with
    /// correction keys `keys`, in evaluation units (at most +-128).
    #[inline]
    pub fn correction(&self, us: usize, keys: [usize; CORRECTION_KINDS]) -> i32 {
        let sum: i32 = (0..CORRECTION_KINDS).map(|k| self.correction[k][us][keys[k]] as i32).sum();
        sum / 16
    }

    /// Moves the corrections of `keys` toward what a search found (`bonus`, scaled by depth;
    /// clamped here to a quarter of the limit), with the same gravity as the move histories.
    #[inline]
    pub fn update_correction(&mut self, us: usize, keys: [usize; CORRECTION_KINDS], bonus: i32) {
        let b = bonus.clamp(-CORRECTION_LIMIT / 4, CORRECTION_LIMIT / 4);
        for (k, &key) in keys.iter().enumerate() {
            let e = &mut self.correction[k][us][key];
            let v = *e as i32;
            *e = (v + b - v * b.abs() / CORRECTION_LIMIT) as i16;
        }
    }

    /// The continuation-history table that follows a move of `prev_piece` to `prev_to`
    /// (indexes as in `continuation`).
    #[inline]
    pub fn continuation(&self, prev_piece: usize, prev_to: usize) -> &PieceToHistory {
        &self.continuation[prev_piece][prev_to]
    }

    /// Applies `bonus` (see `update`) to the continuation history of a move of `piece` to `to`
    /// after a move of `prev_piece` to `prev_to`.
    #[inline]
    pub fn update_continuation(&mut self, prev_piece: usize, prev_to: usize, piece: usize, to: usize, bonus: i32) {
        if !self.is_touched[prev_piece][prev_to] {
            self.is_touched[prev_piece][prev_to] = true;
            self.touched.push((prev_piece as u16, prev_to as u16));
        }
        update(&mut self.continuation[prev_piece][prev_to][piece][to], bonus);
    }

    /// The continuation histories' verdict on quiet `m` after the moves `keys` names (the last
    /// two plies'; a missing one counts zero), as the move picker sums them.
    #[inline]
    pub fn continuation_of(&self, keys: [Option<(usize, usize)>; 2], m: Move) -> i32 {
        let (pc, to) = (m.piece_after().index(), m.to().index());
        keys.iter().flatten().map(|&(ppc, pto)| self.continuation[ppc][pto][pc][to] as i32).sum()
    }

    /// The capture history of `m` taking a `captured`: keyed by the piece as it lands, so a
    /// capture that promotes has its own entry.
    #[inline]
    pub fn capture_of(&self, m: Move, captured: PieceType) -> i32 {
        self.capture[m.piece_after().index()][m.to().index()][captured.index()] as i32
    }

    /// Gives capture `m` of a `captured` `bonus` (negative: a malus).
    #[inline]
    pub fn update_capture(&mut self, m: Move, captured: PieceType, bonus: i32) {
        update(&mut self.capture[m.piece_after().index()][m.to().index()][captured.index()], bonus);
    }

    /// The butterfly history of `m` for `c`.
    #[inline]
    pub fn main_of(&self, c: Color, m: Move) -> i32 {
        self.main[c.index()][from_index(m)][m.to().index()] as i32
    }
}

/// The history bonus for a move that caused a cutoff at `depth`.
#[inline]
pub fn stat_bonus(tune: &crate::tune::Tune, depth: i32) -> i32 {
    (tune.hist_bonus_mul * depth - tune.hist_bonus_sub).clamp(0, tune.hist_bonus_max)
}

/// The history malus for each move tried before a cutoff at `depth`: `hist_malus_pct` percent
/// of the bonus (YaneuraOu's malus is about twice its bonus; +33 +/- 28 Elo at byoyomi 100 over
/// 600 games, +54 +/- 49 at byoyomi 300 over 200: `scripts/results/2026-11-25-searchAC-malus-*`).
#[inline]
pub fn stat_malus(tune: &crate::tune::Tune, depth: i32) -> i32 {
    stat_bonus(tune, depth) * tune.hist_malus_pct / 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_verdict_sums_the_two_plies_tables_and_reads_a_missing_one_as_zero() {
        use engine::{generate, GenKind, MoveList, Position, START_SFEN};
        let pos = Position::from_sfen(START_SFEN).unwrap();
        let mut moves = MoveList::new();
        generate(&pos, GenKind::All, &mut moves);
        let (m, other) = (moves.as_slice()[0], moves.as_slice()[1]);
        let (pc, to) = (m.piece_after().index(), m.to().index());
        let mut h = Histories::default();
        let (k1, k2) = ((3, 40), (17, 8));
        h.update_continuation(k1.0, k1.1, pc, to, 1000);
        h.update_continuation(k2.0, k2.1, pc, to, -300);
        let (a, b) = (h.continuation[k1.0][k1.1][pc][to] as i32, h.continuation[k2.0][k2.1][pc][to] as i32);
        assert!(a > 0 && b < 0);
        assert_eq!(h.continuation_of([Some(k1), Some(k2)], m), a + b);
        assert_eq!(h.continuation_of([Some(k1), None], m), a);
        assert_eq!(h.continuation_of([None, None], m), 0);
        // Another move after the same two is untouched, unless it shares the piece and square.
        let same = other.piece_after() == m.piece_after() && other.to() == m.to();
        assert_eq!(h.continuation_of([Some(k1), Some(k2)], other) == 0, !same);
    }

    #[test]
    fn capture_history_keeps_a_promoting_capture_apart_and_reads_what_it_wrote() {
        use engine::{PieceType, Position};
        // After 7g7f 3c3d: the bishops face each other, 8h2b+ and 8h2b both take.
        let pos = Position::from_sfen("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3").unwrap();
        let promote = pos.parse_usi_move("8h2b+").unwrap();
        let plain = pos.parse_usi_move("8h2b").unwrap();
        let mut h = Histories::default();
        h.update_capture(promote, PieceType::Bishop, 1000);
        assert!(h.capture_of(promote, PieceType::Bishop) > 0);
        assert_eq!(h.capture_of(plain, PieceType::Bishop), 0, "the unpromoted capture has its own entry");
        assert_eq!(h.capture_of(promote, PieceType::Rook), 0, "so has another victim");
        h.update_capture(promote, PieceType::Bishop, -100_000);
        assert!(h.capture_of(promote, PieceType::Bishop) < 0, "a malus lowers it");
    }

    #[test]
    fn fresh_tables_are_empty() {
        let h = Histories::default();
        assert!(h.main.iter().flatten().flatten().all(|&v| v == 0));
        assert!(h.capture.iter().flatten().flatten().all(|&v| v == 0));
        assert!(h.counter.iter().flatten().all(|&m| m == Move::NONE));
        assert!(h.is_touched.iter().flatten().all(|&t| !t));
    }

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
    fn corrections_learn_the_sign_stay_bounded_and_keep_sides_apart() {
        let mut h = Histories::default();
        let keys = [5, 9000];
        assert_eq!(h.correction(0, keys), 0);
        for _ in 0..10_000 {
            h.update_correction(0, keys, 100_000);
        }
        let up = h.correction(0, keys);
        assert!(up > 0 && up <= 2 * CORRECTION_LIMIT / 16, "{up}");
        assert_eq!(h.correction(1, keys), 0, "the other side to move is untouched");
        assert_eq!(h.correction(0, [6, 9001]), 0, "other keys are untouched");
        for _ in 0..10_000 {
            h.update_correction(0, keys, -100_000);
        }
        let down = h.correction(0, keys);
        assert!((-2 * CORRECTION_LIMIT / 16..0).contains(&down), "{down}");
        h.clear();
        assert_eq!(h.correction(0, keys), 0);
    }

    #[test]
    fn tables_start_empty() {
        let h = Histories::default();
        assert_eq!(h.main[1][88][80], 0);
        assert_eq!(h.counter[31][80], Move::NONE);
        assert_eq!(h.continuation[31][80][31][80], 0);
    }

    #[test]
    fn clear_empties_every_table() {
        let mut h = Histories::default();
        let m = Move::from_raw(0x0001_0203);
        for round in 0..2 {
            h.main[1][88][80] = 7;
            h.capture[3][4][5] = 7;
            h.counter[31][80] = m;
            h.update_continuation(31, 80, 2, 3, 500);
            h.update_continuation(31, 80, 4, 5, 500);
            h.update_continuation(round, 0, 31, 80, -500);
            assert_ne!(h.continuation(31, 80)[2][3], 0);
            h.clear();
            let fresh = Histories::default();
            assert!(h.main == fresh.main && h.capture == fresh.capture && h.counter == fresh.counter);
            assert!(h.continuation[..] == fresh.continuation[..] && h.is_touched == fresh.is_touched);
            assert!(h.touched.is_empty());
        }
    }
}
