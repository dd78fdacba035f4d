//! Lazy SMP: every thread searches the same root with its own histories over the shared
//! transposition table; the main thread reports, watches the clock and stops the others; the
//! move played comes from a vote weighted by score and completed depth.

use crate::padded::Padded;
use crate::search::Worker;
use crate::timeman::TimePlan;
use crate::tt::{Bound as TtBound, TranspositionTable};
use crate::types::*;
use crate::{Bound, Info, InfoSink, Limits, Options, Score};
use engine::{Move, Position};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// State shared by the threads of one search. Read at every node by every thread; aligned so
/// that nothing a thread writes often (the main thread's stack) shares its cache lines.
#[repr(align(128))]
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// Options in force.
    pub options: &'a Options,
    /// The `go` limits.
    pub limits: &'a Limits,
    /// Set to end the search (by `stop`, the clock or a limit).
    pub stop: &'a AtomicBool,
    /// Set while pondering: the clock does not run.
    pub ponder: &'a AtomicBool,
    /// Nodes per thread, published every 1024 nodes, each on its own cache lines.
    pub nodes: Vec<Padded<AtomicU64>>,
    /// When the clock started (reset by `ponderhit`).
    pub start: &'a Mutex<Instant>,
    /// The time plan (replaced by `ponderhit` with new times).
    pub plan: &'a Mutex<Option<TimePlan>>,
    /// Milliseconds after `start` at which the main thread decided to stop.
    pub stop_at: AtomicU64,
    /// The info sink (main thread only).
    pub info: Mutex<Option<InfoSink>>,
    /// The root position's number of legal moves searched.
    pub root_move_count: usize,
}

impl Shared<'_> {
    /// Whether the search must end now.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Milliseconds since the clock started.
    pub fn elapsed(&self) -> u64 {
        self.start.lock().elapsed().as_millis() as u64
    }

    /// Total nodes of all threads (as last published).
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Relaxed)).sum()
    }

    /// Publishes a thread's node count.
    #[inline]
    pub fn publish_nodes(&self, id: usize, nodes: u64) {
        self.nodes[id].store(nodes, Relaxed);
    }

    /// The iteration depth limit.
    pub fn depth_limit(&self) -> i32 {
        let d =
            self.limits.depth.unwrap_or(if self.options.depth_limit > 0 { self.options.depth_limit } else { i32::MAX });
        d.clamp(1, MAX_DEPTH)
    }

    fn node_limit(&self) -> Option<u64> {
        self.limits.nodes.or(if self.options.nodes_limit > 0 { Some(self.options.nodes_limit) } else { None })
    }

    /// Called by the main thread every 1024 nodes: enforces the clock and the node limit.
    pub fn check_limits(&self) {
        if let Some(n) = self.node_limit() {
            if self.total_nodes() >= n {
                self.stop.store(true, Relaxed);
            }
        }
        if self.ponder.load(Relaxed) {
            return;
        }
        let elapsed = self.elapsed();
        if elapsed >= self.stop_at.load(Relaxed) {
            self.stop.store(true, Relaxed);
        }
        if let Some(plan) = *self.plan.lock() {
            if elapsed >= plan.maximum {
                self.stop.store(true, Relaxed);
            }
        }
    }

    /// After each iteration of the main thread: stop when the optimum time (scaled by how
    /// unstable the best move is) has been used, rounding up to the clock's next second.
    pub fn iteration_done(&self, main: &Worker) {
        if self.stopped() || self.ponder.load(Relaxed) {
            return;
        }
        let Some(plan) = *self.plan.lock() else { return };
        let elapsed = self.elapsed();
        let single = self.root_move_count == 1;
        let best = &main.root_moves[0];
        let falling = (best.previous_score - best.score).clamp(0, 300) as f64 / 300.0;
        let scale = (0.7 + 0.6 * main.best_move_changes + 0.5 * falling).clamp(0.5, 2.5);
        if single || elapsed as f64 >= plan.optimum as f64 * scale {
            let at = if single { elapsed } else { plan.stop_time(elapsed) };
            self.stop_at.fetch_min(at, Relaxed);
            if elapsed >= at {
                self.stop.store(true, Relaxed);
            }
        }
    }

    /// Sends one `info` line per PV line to the sink (main thread).
    pub fn report(&self, w: &Worker, depth: i32, multipv: usize) {
        let mut sink = self.info.lock();
        let Some(sink) = sink.as_mut() else { return };
        let elapsed = self.elapsed();
        let nodes = self.total_nodes().max(w.nodes);
        let hashfull = self.tt.hashfull();
        for (i, rm) in w.root_moves.iter().take(multipv).enumerate() {
            let searched = i <= w.pv_index();
            let (score, d) = if searched || rm.previous_score == -VALUE_INFINITE {
                (rm.score, depth)
            } else {
                (rm.previous_score, (depth - 1).max(1))
            };
            if score == -VALUE_INFINITE {
                continue;
            }
            let bound = if i == w.pv_index() {
                match rm.bound {
                    TtBound::Lower => Bound::Lower,
                    TtBound::Upper => Bound::Upper,
                    _ => Bound::Exact,
                }
            } else {
                Bound::Exact
            };
            sink(Info {
                depth: d,
                seldepth: rm.sel_depth.max(d as usize) as i32,
                multipv: i + 1,
                score: to_score(score),
                bound,
                time_ms: elapsed,
                nodes,
                nps: nodes * 1000 / elapsed.max(1),
                hashfull,
                pv: rm.pv.clone(),
            });
        }
    }
}

/// A search value as USI reports it (mate distances in plies).
pub fn to_score(v: Value) -> Score {
    if v >= VALUE_MATE_IN_MAX_PLY {
        Score::Mate(VALUE_MATE - v)
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        Score::Mate(-(VALUE_MATE + v))
    } else {
        Score::Cp(v)
    }
}

/// Runs all workers on `pos` until the search ends; returns the index of the worker whose
/// best move is chosen.
pub fn run(workers: &mut [Worker], pos: &Position, root_moves: &[Move], shared: &Shared) -> usize {
    for w in workers.iter_mut() {
        w.reset(pos, root_moves);
    }
    let (main, helpers) = workers.split_first_mut().expect("at least one worker");
    std::thread::scope(|s| {
        for w in helpers.iter_mut() {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, move || {
                    // Cloned by the helper itself, so its position and state stack live in its
                    // own memory, not next to the main thread's.
                    let mut p = pos.clone();
                    w.iterate(&mut p, shared)
                })
                .expect("spawn search thread");
        }
        let mut p = pos.clone();
        main.iterate(&mut p, shared);
        shared.stop.store(true, Relaxed);
    });
    pick_best(workers, shared)
}

/// The vote: each thread backs its best move with weight (score - min + 14) * depth; the
/// move with most support wins, the deepest thread backing it supplies the PV. Mates win
/// outright, the shortest first.
fn pick_best(workers: &[Worker], shared: &Shared) -> usize {
    if workers.len() == 1 || shared.options.multipv > 1 || shared.limits.depth.is_some() {
        return 0;
    }
    let usable: Vec<usize> = (0..workers.len())
        .filter(|&i| workers[i].completed_depth > 0 && workers[i].root_moves[0].score > -VALUE_INFINITE)
        .collect();
    if usable.is_empty() {
        return 0;
    }
    let min = usable.iter().map(|&i| workers[i].root_moves[0].score).min().unwrap_or(0);
    let mut votes: std::collections::HashMap<Move, i64> = std::collections::HashMap::new();
    for &i in &usable {
        let rm = &workers[i].root_moves[0];
        *votes.entry(rm.mv).or_default() += (rm.score - min + 14) as i64 * workers[i].completed_depth as i64;
    }
    let mut best = usable[0];
    for &i in &usable[1..] {
        let (b, c) = (&workers[best].root_moves[0], &workers[i].root_moves[0]);
        let better = if b.score >= VALUE_MATE_IN_MAX_PLY || c.score >= VALUE_MATE_IN_MAX_PLY {
            c.score > b.score
        } else {
            votes[&c.mv] > votes[&b.mv] || (votes[&c.mv] == votes[&b.mv] && c.pv.len() > b.pv.len())
        };
        if better {
            best = i;
        }
    }
    best
}
