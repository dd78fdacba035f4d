//! The per-ply NNUE state `Evaluator` carries for a net: one accumulator per ply, filled
//! lazily (Stockfish's scheme). `push` only records what the move changes; `evaluate` walks
//! back to the nearest ply whose accumulator is computed and applies the recorded changes
//! forward, or refreshes from the position when a king moved to another view on the way.

use super::accumulator::{Accumulator, Dirty, RefreshCache};
use super::features::View;
use super::layers;
use super::network::Network;
use crate::Value;
use engine::{Color, Move, Position};
use std::sync::Arc;

/// One ply's state.
#[derive(Clone, Copy)]
struct Entry {
    /// Valid for perspective `c` when `computed[c]`.
    acc: Accumulator,
    computed: [bool; 2],
    /// Both perspectives' views in this ply's position.
    views: [View; 2],
    /// What the move into this ply changed (unused at ply 0).
    dirty: Dirty,
}

const PLACEHOLDER_VIEW: View = View { color: Color::Black, mirrored: false, base: 0 };

const EMPTY_ENTRY: Entry =
    Entry { acc: Accumulator::ZERO, computed: [false; 2], views: [PLACEHOLDER_VIEW; 2], dirty: Dirty::NONE };

/// The net, its per-ply accumulators, and the refresh cache for king moves to another view.
pub(crate) struct NetStack {
    net: Arc<Network>,
    entries: Vec<Entry>,
    cache: RefreshCache,
}

impl NetStack {
    /// The net this stack evaluates with.
    pub(crate) fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// A stack for lines of up to `max_ply` moves.
    pub(crate) fn new(max_ply: usize, net: Arc<Network>) -> NetStack {
        NetStack { cache: RefreshCache::new(&net), net, entries: vec![EMPTY_ENTRY; max_ply + 1] }
    }

    /// Starts a line at `pos` (ply 0): both perspectives refreshed.
    pub(crate) fn reset(&mut self, pos: &Position) {
        let e = &mut self.entries[0];
        for c in Color::ALL {
            e.acc.refresh_cached(&self.net, &mut self.cache, pos, c);
            e.views[c.index()] = View::of(pos, c);
        }
        e.computed = [true; 2];
    }

    /// Records `m`, about to be made in `pos` at `ply`, in entry `ply + 1`. Not inlined, so
    /// the classical path's inlined `Evaluator::push` stays as small as it was.
    #[inline(never)]
    pub(crate) fn push(&mut self, ply: usize, pos: &Position, m: Move) {
        let mut views = self.entries[ply].views;
        let dirty = Dirty::of_move(pos, m, &mut views);
        let child = &mut self.entries[ply + 1];
        child.views = views;
        child.dirty = dirty;
        child.computed = [false; 2];
    }

    /// Records a null move at `ply`: nothing changes, so `evaluate` copies the parent's
    /// accumulator (the side to move flips, which swaps the perspectives' order).
    #[inline]
    pub(crate) fn push_null(&mut self, ply: usize) {
        let views = self.entries[ply].views;
        let child = &mut self.entries[ply + 1];
        child.views = views;
        child.dirty = Dirty::NONE;
        child.computed = [false; 2];
    }

    /// The net's value of `pos`, the position at `ply`, from the side to move's view.
    #[inline(never)]
    pub(crate) fn evaluate(&mut self, ply: usize, pos: &Position) -> Value {
        self.compute(ply, pos, Color::Black);
        self.compute(ply, pos, Color::White);
        let acc = &self.entries[ply].acc;
        let stm = pos.side_to_move();
        let psqt = acc.psqt[stm.index()].wrapping_sub(acc.psqt[(!stm).index()]);
        layers::propagate(&self.net, &acc.values[stm.index()], &acc.values[(!stm).index()], psqt)
    }

    /// Makes `color`'s perspective of entry `ply` valid.
    fn compute(&mut self, ply: usize, pos: &Position, color: Color) {
        let c = color.index();
        let mut from = ply;
        while !self.entries[from].computed[c] {
            if self.entries[from].dirty.refresh[c] {
                // A king changed view on the way: only the current position can be refreshed.
                let e = &mut self.entries[ply];
                e.acc.refresh_cached(&self.net, &mut self.cache, pos, color);
                e.computed[c] = true;
                return;
            }
            debug_assert!(from > 0, "Evaluator::evaluate before reset");
            from -= 1;
        }
        for p in from + 1..=ply {
            let (before, after) = self.entries.split_at_mut(p);
            let (parent, child) = (&before[p - 1], &mut after[0]);
            child.dirty.apply(&self.net, &mut child.acc, &parent.acc, color, child.views[c]);
            child.computed[c] = true;
        }
    }
}
