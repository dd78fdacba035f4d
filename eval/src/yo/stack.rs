//! The per-ply state of a YaneuraOu net along a search line: one accumulator per ply,
//! computed lazily (Stockfish's scheme, as Kaname's own nets do). `push` only records a
//! move's BonaPiece changes; `evaluate` walks back to the nearest ply whose accumulator is
//! computed and applies the changes forward, or, when the perspective's own king moved on
//! the way (HalfKP), recomputes it from the position. YaneuraOu looks one ply back only and
//! refreshes otherwise.

use super::accumulator::{add_sub, Lanes, RefreshCache};
use super::features::{self, Changes, Features};
use super::layers;
use super::network::{to_value, YoNet};
use super::shape::FeatureSet;
use crate::Value;
use engine::{Color, Move, Position};
use std::sync::Arc;

/// The state of a line, whatever the net's shape (the evaluator holds it as a trait object:
/// one indirect call per push and per evaluation, next to hundreds of vector instructions).
pub(crate) trait Line: Send {
    /// The net.
    fn net(&self) -> &Arc<YoNet>;
    /// Sets `FV_SCALE`.
    fn set_fv_scale(&mut self, fv_scale: i32);
    /// Starts a line at `pos` (ply 0).
    fn reset(&mut self, pos: &Position);
    /// Records `m`, about to be made in `pos` at `ply`.
    fn push(&mut self, ply: usize, pos: &Position, m: Move);
    /// Records a null move at `ply`.
    fn push_null(&mut self, ply: usize);
    /// The value of `pos`, the position at `ply`, from the side to move's view.
    fn evaluate(&mut self, ply: usize, pos: &Position) -> Value;
}

/// A line for `net`, of up to `max_ply` moves.
pub(crate) fn line(net: Arc<YoNet>, max_ply: usize, fv_scale: i32) -> Box<dyn Line> {
    let shape = net.shape();
    match (shape.features, shape.l1) {
        (FeatureSet::KP, _) => Box::new(Stack::<features::KP, 256>::new(net, max_ply, fv_scale)),
        (FeatureSet::HalfKP, 256) => Box::new(Stack::<features::HalfKP, 256>::new(net, max_ply, fv_scale)),
        (FeatureSet::HalfKP, 512) => Box::new(Stack::<features::HalfKP, 512>::new(net, max_ply, fv_scale)),
        (FeatureSet::HalfKP, 768) => Box::new(Stack::<features::HalfKP, 768>::new(net, max_ply, fv_scale)),
        (FeatureSet::HalfKP, _) => Box::new(Stack::<features::HalfKP, 1024>::new(net, max_ply, fv_scale)),
    }
}

/// One ply's state.
#[derive(Clone, Copy)]
struct Entry<const L1: usize> {
    /// `acc[c]` is valid when `computed[c]`.
    acc: [Lanes<L1>; 2],
    computed: [bool; 2],
    /// What the move into this ply changed.
    changes: Changes,
    /// `refresh[c]`: `c`'s own king moved into this ply (HalfKP), so `c` is recomputed.
    refresh: [bool; 2],
}

/// The line of a net with features `F` and `L1` lanes.
pub(crate) struct Stack<F: Features, const L1: usize> {
    net: Arc<YoNet>,
    fv_scale: i32,
    entries: Vec<Entry<L1>>,
    /// Refreshes after king moves (HalfKP only; K-P never refreshes after `reset`).
    cache: Option<Box<RefreshCache<L1>>>,
    _features: std::marker::PhantomData<F>,
}

impl<F: Features, const L1: usize> Stack<F, L1> {
    pub(crate) fn new(net: Arc<YoNet>, max_ply: usize, fv_scale: i32) -> Self {
        assert_eq!(net.shape().l1, L1);
        let empty =
            Entry { acc: [Lanes([0; L1]); 2], computed: [false; 2], changes: Changes::NONE, refresh: [false; 2] };
        let cache = F::KING_REFRESH.then(Box::default);
        Stack { net, fv_scale, entries: vec![empty; max_ply + 1], cache, _features: std::marker::PhantomData }
    }

    /// Recomputes `view`'s accumulator of entry `ply` from `pos`.
    fn refresh(&mut self, ply: usize, pos: &Position, view: Color) {
        let e = &mut self.entries[ply];
        if let Some(cache) = &mut self.cache {
            cache.refresh(&self.net, pos, view, &mut e.acc[view.index()].0);
            e.computed[view.index()] = true;
            return;
        }
        let mut active = [0usize; 40];
        let mut n = 0;
        F::for_each_active(pos, view, |f| {
            active[n] = f;
            n += 1;
        });
        let biases: &[i16; L1] = self.net.biases().try_into().expect("L1 biases");
        let e = &mut self.entries[ply];
        add_sub(&self.net, &mut e.acc[view.index()].0, biases, &[], &active[..n]);
        e.computed[view.index()] = true;
    }

    /// Makes `view`'s accumulator of entry `ply` valid.
    fn compute(&mut self, ply: usize, pos: &Position, view: Color) {
        let c = view.index();
        let mut from = ply;
        while !self.entries[from].computed[c] {
            if self.entries[from].refresh[c] {
                self.refresh(ply, pos, view);
                return;
            }
            debug_assert!(from > 0, "evaluate before reset");
            from -= 1;
        }
        // No refresh on the way: `view`'s king stood still, so its base is the current one.
        let base = F::base(pos, view);
        for p in from + 1..=ply {
            let (before, after) = self.entries.split_at_mut(p);
            let (parent, child) = (&before[p - 1], &mut after[0]);
            let ch = child.changes;
            let n = ch.n as usize;
            let removed: [usize; 2] = std::array::from_fn(|i| base + ch.old[i][c] as usize);
            let added: [usize; 2] = std::array::from_fn(|i| base + ch.new[i][c] as usize);
            add_sub(&self.net, &mut child.acc[c].0, &parent.acc[c].0, &removed[..n], &added[..n]);
            child.computed[c] = true;
        }
    }
}

impl<F: Features, const L1: usize> Line for Stack<F, L1> {
    fn net(&self) -> &Arc<YoNet> {
        &self.net
    }

    fn set_fv_scale(&mut self, fv_scale: i32) {
        self.fv_scale = fv_scale;
    }

    fn reset(&mut self, pos: &Position) {
        for view in Color::ALL {
            self.refresh(0, pos, view);
        }
    }

    #[inline]
    fn push(&mut self, ply: usize, pos: &Position, m: Move) {
        let changes = Changes::of_move(pos, m, !F::KING_REFRESH);
        let mut refresh = [false; 2];
        refresh[pos.side_to_move().index()] = F::KING_REFRESH && changes.king_moved;
        let child = &mut self.entries[ply + 1];
        child.changes = changes;
        child.refresh = refresh;
        child.computed = [false; 2];
    }

    #[inline]
    fn push_null(&mut self, ply: usize) {
        let child = &mut self.entries[ply + 1];
        child.changes = Changes::NONE;
        child.refresh = [false; 2];
        child.computed = [false; 2];
    }

    #[inline]
    fn evaluate(&mut self, ply: usize, pos: &Position) -> Value {
        self.compute(ply, pos, Color::Black);
        self.compute(ply, pos, Color::White);
        let stm = pos.side_to_move();
        let e = &self.entries[ply];
        let out = layers::propagate(&self.net, &e.acc[stm.index()].0, &e.acc[(!stm).index()].0);
        to_value(out, self.fv_scale)
    }
}
