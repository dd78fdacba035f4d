//! The accumulator (the first layer's outputs for both perspectives), its refresh from a
//! position, and its incremental update from a move's feature changes (`Dirty`).

use super::features::{self, View, ACTIVE_FEATURES, KING_BUCKETS};
use super::network::Network;
use super::L1;
use engine::{Bitboard, Color, Hand, Move, Piece, PieceType, Position, Square};

/// The first layer's outputs, indexed by perspective colour (`Color::index`), aligned to a
/// cache line for the AVX2 loads.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Accumulator {
    /// `values[c]`: the outputs for `c`'s perspective.
    pub values: [[i16; L1]; 2],
    /// `psqt[c]`: the sum of the PSQT weights of `c`'s perspective's active features.
    pub psqt: [i32; 2],
}

impl Accumulator {
    /// All zeros.
    pub const ZERO: Accumulator = Accumulator { values: [[0; L1]; 2], psqt: [0; 2] };
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator::ZERO
    }
}

impl Accumulator {
    /// Recomputes `color`'s perspective from scratch: biases plus the rows of `pos`'s active
    /// features.
    pub fn refresh(&mut self, net: &Network, pos: &Position, color: Color) {
        // A position holds at most the game's 40 pieces, one feature each.
        let mut active = [0usize; ACTIVE_FEATURES];
        let mut n = 0;
        features::for_each_active(pos, color, |f| {
            active[n] = f;
            n += 1;
        });
        let active = &active[..n];
        add_sub(net, &mut self.values[color.index()], &net.l1_bias.0, &[], active);
        self.psqt[color.index()] = psqt_add_sub(net, 0, &[], active);
    }

    /// Recomputes `color`'s perspective for `pos` like `refresh`, from the accumulator
    /// `cache` last computed for the same perspective and view: only the rows of the pieces
    /// that differ from that position's (compared a colour and kind, one bitboard, at a time)
    /// are subtracted and added (see `RefreshCache`). The values are exactly `refresh`'s:
    /// both are the biases plus the active rows in wrapping i16 (and i32) arithmetic, whose
    /// sums do not depend on the order of the terms.
    pub(crate) fn refresh_cached(&mut self, net: &Network, cache: &mut RefreshCache, pos: &Position, color: Color) {
        let view = View::of(pos, color);
        let e = &mut cache.entries[color.index()][RefreshCache::slot(view)];
        // Removed rows are features of the cached position, added ones of `pos`: each has at
        // most the game's 40 pieces.
        let (mut removed, mut added) = ([0usize; ACTIVE_FEATURES], [0usize; ACTIVE_FEATURES]);
        let (mut nr, mut na) = (0, 0);
        for c in Color::ALL {
            for (i, pt) in PieceType::ALL.into_iter().enumerate() {
                let (old, new) = (e.pieces[c.index()][i], pos.pieces(c, pt));
                if old != new {
                    let pc = Piece::new(c, pt);
                    for sq in old.and_not(new) {
                        removed[nr] = view.board(pc, sq);
                        nr += 1;
                    }
                    for sq in new.and_not(old) {
                        added[na] = view.board(pc, sq);
                        na += 1;
                    }
                    e.pieces[c.index()][i] = new;
                }
            }
        }
        for owner in Color::ALL {
            let (old, new) = (e.hands[owner.index()], pos.hand(owner));
            if old == new {
                continue;
            }
            for pt in PieceType::HAND {
                // The k-th piece of a kind is one feature (a thermometer): going from a held
                // to b held removes the features b+1..=a or adds a+1..=b.
                let (a, b) = (old.count(pt), new.count(pt));
                for nth in b + 1..=a {
                    removed[nr] = view.hand(owner, pt, nth);
                    nr += 1;
                }
                for nth in a + 1..=b {
                    added[na] = view.hand(owner, pt, nth);
                    na += 1;
                }
            }
            e.hands[owner.index()] = new;
        }
        let (removed, added) = (&removed[..nr], &added[..na]);
        let c = color.index();
        add_sub(net, &mut self.values[c], &e.values, removed, added);
        e.values = self.values[c];
        e.psqt = psqt_add_sub(net, e.psqt, removed, added);
        self.psqt[c] = e.psqt;
    }

    /// Sets `color`'s perspective to `from`'s minus the rows of `removed` plus those of
    /// `added` (features of this perspective's view).
    #[inline]
    pub fn update(&mut self, net: &Network, from: &Accumulator, color: Color, removed: &[usize], added: &[usize]) {
        let c = color.index();
        add_sub(net, &mut self.values[c], &from.values[c], removed, added);
        self.psqt[c] = psqt_add_sub(net, from.psqt[c], removed, added);
    }
}

/// Views per perspective: king buckets, mirrored or not.
const VIEWS: usize = KING_BUCKETS * 2;

/// The last accumulator computed for each perspective and view, with the position it was
/// computed for (Stockfish's "Finny tables"): a refresh, needed when a king moves to another
/// view, starts from the cached accumulator of the new view and applies only the pieces
/// that differ, usually a few, instead of adding all 40 rows to the biases. Every entry
/// starts as the empty board (the biases, no pieces), so a view's first refresh adds all
/// the rows.
///
/// Belongs to one net (its biases are the starting values), like the `NetStack` that keeps
/// it: one per search thread, 2 perspectives x 18 views x 1 KiB = 36 KiB.
pub(crate) struct RefreshCache {
    entries: Box<[[CacheEntry; VIEWS]; 2]>,
}

/// One perspective's accumulator for one view, and the pieces it was computed for.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct CacheEntry {
    values: [i16; L1],
    /// `pieces[c][i]`: the squares of `c`'s pieces of kind `PieceType::ALL[i]`.
    pieces: [[Bitboard; 14]; 2],
    hands: [Hand; 2],
    psqt: i32,
}

impl RefreshCache {
    /// A cache for `net` with every entry the empty board.
    pub(crate) fn new(net: &Network) -> RefreshCache {
        let empty =
            CacheEntry { values: net.l1_bias.0, pieces: [[Bitboard::EMPTY; 14]; 2], hands: [Hand::EMPTY; 2], psqt: 0 };
        RefreshCache { entries: Box::new([[empty; VIEWS]; 2]) }
    }

    /// The entry of `view` within its perspective's.
    #[inline(always)]
    fn slot(view: View) -> usize {
        view.bucket() * 2 + view.mirrored as usize
    }
}

/// `dst = src - rows(removed) + rows(added)`, i16 lanes wrapping (a trained net keeps sums in
/// range; both paths wrap alike).
#[inline]
fn add_sub(net: &Network, dst: &mut [i16; L1], src: &[i16; L1], removed: &[usize], added: &[usize]) {
    #[cfg(target_arch = "x86_64")]
    if net.avx2 {
        // SAFETY: `net.avx2` is set only when the CPU reported AVX2 (`Network::from_quant`).
        unsafe { add_sub_avx2(net, dst, src, removed, added) };
        return;
    }
    add_sub_portable(net, dst, src, removed, added);
}

/// `sum - psqt(removed) + psqt(added)`, wrapping like the accumulator.
#[inline(always)]
fn psqt_add_sub(net: &Network, sum: i32, removed: &[usize], added: &[usize]) -> i32 {
    let sum = removed.iter().fold(sum, |s, &f| s.wrapping_sub(net.psqt[f]));
    added.iter().fold(sum, |s, &f| s.wrapping_add(net.psqt[f]))
}

/// `add_sub` in portable code.
fn add_sub_portable(net: &Network, dst: &mut [i16; L1], src: &[i16; L1], removed: &[usize], added: &[usize]) {
    *dst = *src;
    for &f in removed {
        for (d, &w) in dst.iter_mut().zip(net.row(f)) {
            *d = d.wrapping_sub(w);
        }
    }
    for &f in added {
        for (d, &w) in dst.iter_mut().zip(net.row(f)) {
            *d = d.wrapping_add(w);
        }
    }
}

/// Lanes of the accumulator `add_sub_avx2` keeps in registers at a time: eight registers of
/// 16 i16, half of AVX2's sixteen, so the compiler never spills them.
#[cfg(target_arch = "x86_64")]
const TILE: usize = 128;

/// `add_sub` with AVX2, one tile of `TILE` lanes at a time: the tile of `src` is loaded into
/// registers, every row's tile is added or subtracted there (each row looked up once per
/// tile, not once per register), and the tile is stored to `dst`.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2(net: &Network, dst: &mut [i16; L1], src: &[i16; L1], removed: &[usize], added: &[usize]) {
    use std::arch::x86_64::*;
    const _: () = assert!(L1.is_multiple_of(TILE));
    for t in (0..L1).step_by(TILE) {
        // SAFETY (all loads and stores here): t + TILE <= L1 and j < TILE / 16, so the 32
        // bytes at lane t + 16 * j lie inside an `[i16; L1]` (`src`, `dst`, or a row of the
        // net, whose index `row` checks); the unaligned forms need no alignment.
        let mut acc: [__m256i; TILE / 16] =
            std::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.as_ptr().add(t + 16 * j).cast()) });
        for &f in removed {
            let row = net.row(f).as_ptr();
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_sub_epi16(*a, unsafe { _mm256_loadu_si256(row.add(t + 16 * j).cast()) });
            }
        }
        for &f in added {
            let row = net.row(f).as_ptr();
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_epi16(*a, unsafe { _mm256_loadu_si256(row.add(t + 16 * j).cast()) });
            }
        }
        for (j, a) in acc.iter().enumerate() {
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(t + 16 * j).cast(), *a) };
        }
    }
}

/// One feature-level change, independent of the view it will be seen through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Change {
    /// A piece on a board square.
    Board(Piece, Square),
    /// The `nth` (1-based) piece of a kind in a side's hand.
    Hand(Color, PieceType, u32),
}

impl Change {
    /// The feature index of this change in `view`.
    #[inline(always)]
    fn feature(self, view: View) -> usize {
        match self {
            Change::Board(pc, sq) => view.board(pc, sq),
            Change::Hand(owner, pt, nth) => view.hand(owner, pt, nth),
        }
    }
}

/// What a move (or a null move) changes in the features, recorded before the move is made:
/// at most two removals and two additions (a capture), plus which perspectives must refresh
/// because their king moved to another view. Fixed size, so the per-ply stack never
/// allocates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Dirty {
    removed: [Change; 2],
    added: [Change; 2],
    n_removed: u8,
    n_added: u8,
    /// `refresh[c]`: `c`'s view differs from the parent's, so `c` cannot be updated.
    pub(crate) refresh: [bool; 2],
}

const FILLER: Change = Change::Board(Piece::EMPTY, Square::new(0));

impl Dirty {
    /// No change (a null move).
    pub(crate) const NONE: Dirty =
        Dirty { removed: [FILLER; 2], added: [FILLER; 2], n_removed: 0, n_added: 0, refresh: [false; 2] };

    /// The changes of `m`, about to be made in `pos`. `views` are the parent's views; when
    /// the mover's king moves, its entry is set to the child's view (and `refresh` marks a
    /// change).
    #[inline]
    pub(crate) fn of_move(pos: &Position, m: Move, views: &mut [View; 2]) -> Dirty {
        let us = pos.side_to_move();
        let to = m.to();
        let mut d = Dirty::NONE;
        if m.is_drop() {
            let pt = m.dropped();
            d.remove(Change::Hand(us, pt, pos.hand(us).count(pt)));
            d.add(Change::Board(Piece::new(us, pt), to));
            return d;
        }
        let from = m.from();
        let moved = pos.piece_on(from);
        d.remove(Change::Board(moved, from));
        d.add(Change::Board(m.piece_after(), to));
        let captured = pos.piece_on(to);
        if !captured.is_empty() {
            let pt = captured.kind().unpromoted();
            d.remove(Change::Board(captured, to));
            d.add(Change::Hand(us, pt, pos.hand(us).count(pt) + 1));
        }
        if moved.kind() == PieceType::King {
            let view = View::new(us, to);
            d.refresh[us.index()] = view != views[us.index()];
            views[us.index()] = view;
        }
        d
    }

    fn remove(&mut self, c: Change) {
        self.removed[self.n_removed as usize] = c;
        self.n_removed += 1;
    }

    fn add(&mut self, c: Change) {
        self.added[self.n_added as usize] = c;
        self.n_added += 1;
    }

    /// Sets `color`'s perspective of `acc` to `from`'s with these changes, seen through
    /// `view` (`color`'s view after the move, equal to the one before: see `refresh`).
    #[inline]
    pub(crate) fn apply(&self, net: &Network, acc: &mut Accumulator, from: &Accumulator, color: Color, view: View) {
        debug_assert!(!self.refresh[color.index()]);
        // Only the recorded changes: the unused slots hold a filler that names no piece.
        let (nr, na) = (self.n_removed as usize, self.n_added as usize);
        let removed: [usize; 2] = std::array::from_fn(|i| if i < nr { self.removed[i].feature(view) } else { 0 });
        let added: [usize; 2] = std::array::from_fn(|i| if i < na { self.added[i].feature(view) } else { 0 });
        acc.update(net, from, color, &removed[..nr], &added[..na]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::network::tests::fixture_positions;
    use crate::nnue::QuantNet;
    use crate::rng::Rng;

    /// Random feature sets within the net's features.
    fn random_features(rng: &mut Rng, n: usize) -> Vec<usize> {
        (0..n).map(|_| (rng.next_u64() % features::NUM_FEATURES as u64) as usize).collect()
    }

    /// AVX2 and portable add/sub agree, on random rows and on refreshes of real positions.
    #[test]
    fn simd_update_matches_portable() {
        let fast = Network::from_quant(&QuantNet::random(21));
        if !fast.uses_avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let slow = fast.clone().portable();
        let mut rng = Rng::new(77);
        let mut start = Accumulator::default();
        for v in start.values.iter_mut().flatten() {
            *v = rng.range(i16::MIN as i64, i16::MAX as i64) as i16;
        }
        for _ in 0..500 {
            let (nr, na) = ((rng.next_u64() % 3) as usize, (rng.next_u64() % 41) as usize);
            let (removed, added) = (random_features(&mut rng, nr), random_features(&mut rng, na));
            let (mut a, mut b) = (Accumulator::default(), Accumulator::default());
            a.update(&fast, &start, Color::White, &removed, &added);
            b.update(&slow, &start, Color::White, &removed, &added);
            assert_eq!(a, b);
        }
        for pos in fixture_positions(100) {
            let (mut a, mut b) = (Accumulator::default(), Accumulator::default());
            for c in Color::ALL {
                a.refresh(&fast, &pos, c);
                b.refresh(&slow, &pos, c);
            }
            assert_eq!(a, b);
        }
    }

    /// A cached refresh equals a plain one, along random playouts from fixture positions
    /// that move kings often (so views change back and forth and the cache mostly holds a
    /// position a few moves away), with one cache for all of them (so a view's entry is
    /// sometimes from another game entirely), for the AVX2 and the portable paths.
    #[test]
    fn cached_refresh_matches_refresh() {
        assert_eq!(std::mem::size_of::<CacheEntry>(), 1024, "RefreshCache's stated size");
        let fast = Network::from_quant(&QuantNet::random(24));
        let slow = fast.clone().portable();
        let mut rng = Rng::new(99);
        let (mut views_seen, mut diffs) = (std::collections::HashSet::new(), [0usize; 3]);
        for net in [&fast, &slow] {
            let mut cache = RefreshCache::new(net);
            let kingless = crate::nnue::network::tests::kingless_fixture_positions(30, 61);
            for start in fixture_positions(120).into_iter().chain(kingless) {
                let mut pos = start;
                for step in 0..40 {
                    // Every fourth position twice: the second time the entry is that position.
                    let repeats = if step % 4 == 0 { 2 } else { 1 };
                    for c in Color::ALL.into_iter().cycle().take(2 * repeats) {
                        let view = View::of(&pos, c);
                        views_seen.insert((c.index(), RefreshCache::slot(view)));
                        let entry = &cache.entries[c.index()][RefreshCache::slot(view)];
                        let changed: u32 = (0..28)
                            .map(|k| {
                                (entry.pieces[k / 14][k % 14] ^ pos.pieces(Color::ALL[k / 14], PieceType::ALL[k % 14]))
                                    .count()
                            })
                            .sum();
                        diffs[match changed {
                            0 => 0,
                            1..=4 => 1,
                            _ => 2,
                        }] += 1;
                        let (mut cached, mut plain) = (Accumulator::default(), Accumulator::default());
                        cached.refresh_cached(net, &mut cache, &pos, c);
                        plain.refresh(net, &pos, c);
                        assert_eq!(cached.values[c.index()], plain.values[c.index()], "{}", pos.to_sfen());
                        assert_eq!(cached.psqt[c.index()], plain.psqt[c.index()], "{}", pos.to_sfen());
                    }
                    let mut list = engine::MoveList::new();
                    engine::generate_legal(&pos, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    let kings: Vec<Move> = list
                        .iter()
                        .copied()
                        .filter(|m| !m.is_drop() && pos.piece_on(m.from()).kind() == PieceType::King)
                        .collect();
                    let m = if !kings.is_empty() && rng.next_u64().is_multiple_of(3) {
                        kings[(rng.next_u64() % kings.len() as u64) as usize]
                    } else {
                        list.as_slice()[(rng.next_u64() % list.len() as u64) as usize]
                    };
                    pos.do_move(m);
                }
            }
        }
        // Many views, and cached entries that were equal, near, and far.
        assert!(views_seen.len() >= 20, "{} views", views_seen.len());
        assert!(diffs.iter().all(|&n| n >= 100), "{diffs:?}");
    }

    /// Updating with a move's `Dirty` equals refreshing the child, for every perspective
    /// whose view did not change.
    #[test]
    fn dirty_update_matches_refresh() {
        let net = Network::from_quant(&QuantNet::random(22));
        let mut kinds = [0usize; 4]; // drops, captures, promotions, king moves
        let kingless = crate::nnue::network::tests::kingless_fixture_positions(60, 31);
        for mut pos in fixture_positions(200).into_iter().chain(kingless) {
            let mut parent = Accumulator::default();
            for c in Color::ALL {
                parent.refresh(&net, &pos, c);
            }
            let mut list = engine::MoveList::new();
            engine::generate_legal(&pos, &mut list);
            for &m in list.iter() {
                let mut views = [View::of(&pos, Color::Black), View::of(&pos, Color::White)];
                let dirty = Dirty::of_move(&pos, m, &mut views);
                kinds[0] += m.is_drop() as usize;
                kinds[1] += (!m.is_drop() && !pos.piece_on(m.to()).is_empty()) as usize;
                kinds[2] += m.is_promotion() as usize;
                kinds[3] += (!m.is_drop() && pos.piece_on(m.from()).kind() == PieceType::King) as usize;
                pos.do_move(m);
                let (mut inc, mut full) = (Accumulator::default(), Accumulator::default());
                for c in Color::ALL {
                    assert_eq!(views[c.index()], View::of(&pos, c));
                    full.refresh(&net, &pos, c);
                    if !dirty.refresh[c.index()] {
                        dirty.apply(&net, &mut inc, &parent, c, views[c.index()]);
                        assert_eq!(inc.values[c.index()], full.values[c.index()], "{} {m:?}", pos.to_sfen());
                    }
                }
                pos.undo_move(m);
            }
        }
        assert!(kinds.iter().all(|&k| k > 100), "move kinds covered: {kinds:?}");
    }
}
