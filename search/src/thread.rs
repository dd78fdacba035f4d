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
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};
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
    /// The root position (the PVs of `consideration_mode` continue from it through the table).
    pub root: &'a Position,
    /// When a PV was last reported (the search's start before the first): `pv_interval` counts
    /// from here.
    pub last_pv: Mutex<Instant>,
    /// The depth of an iteration whose PV `pv_interval` held back (0: none), reported when the
    /// search ends unless a later report came first.
    pub pv_held: AtomicI32,
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

    /// The least time between two PV reports: `pv_interval`, but none under `infinite`
    /// (analysis from a GUI) or `consideration_mode` (YaneuraOu's `computed_pv_interval`).
    fn pv_interval(&self) -> u64 {
        if self.limits.infinite || self.options.consideration_mode {
            0
        } else {
            self.options.pv_interval
        }
    }

    /// Whether `pv_interval` has passed since the last PV report.
    fn pv_due(&self) -> bool {
        let interval = self.pv_interval();
        interval == 0 || self.last_pv.lock().elapsed().as_millis() as u64 >= interval
    }

    /// After an iteration (or one MultiPV line of it) of the main thread that was not stopped:
    /// reports it, unless `pv_interval` holds it back (then `report_held` reports it at the end).
    pub fn report_iteration(&self, w: &Worker, depth: i32, multipv: usize) {
        if self.pv_due() {
            self.report(w, depth, multipv);
        } else {
            self.pv_held.store(depth, Relaxed);
        }
    }

    /// After an aspiration fail-high or fail-low of the main thread, before the re-search:
    /// reported under `output_fail_lh_pv`, after 3 s of search (at once in
    /// `consideration_mode`), and `pv_interval` apart.
    pub fn report_fail(&self, w: &Worker, depth: i32) {
        let o = self.options;
        if o.output_fail_lh_pv && (o.consideration_mode || self.elapsed() > 3000) && self.pv_due() {
            self.report(w, depth, w.pv_index() + 1);
        }
    }

    /// When the search has ended: the PV `pv_interval` held back, if no report came after it
    /// (the last PV before the result is always reported).
    pub fn report_held(&self, w: &Worker, multipv: usize) {
        let depth = self.pv_held.load(Relaxed);
        if depth > 0 {
            self.report(w, depth, multipv);
        }
    }

    /// Sends one `info` line per PV line to the sink (main thread), now.
    pub fn report(&self, w: &Worker, depth: i32, multipv: usize) {
        let mut sink = self.info.lock();
        let Some(sink) = sink.as_mut() else { return };
        *self.last_pv.lock() = Instant::now();
        self.pv_held.store(0, Relaxed);
        let elapsed = self.elapsed();
        let nodes = self.total_nodes().max(w.nodes);
        let hashfull = self.tt.hashfull();
        for (i, rm) in w.root_moves.iter().take(multipv).enumerate() {
            let searched = i <= w.pv_index();
            let (mut score, mut d) = if searched || rm.previous_score == -VALUE_INFINITE {
                (rm.score, depth)
            } else {
                (rm.previous_score, (depth - 1).max(1))
            };
            if score == -VALUE_INFINITE {
                continue;
            }
            let mut bound = if i == w.pv_index() {
                match rm.bound {
                    TtBound::Lower => Bound::Lower,
                    TtBound::Upper => Bound::Upper,
                    _ => Bound::Exact,
                }
            } else {
                Bound::Exact
            };
            // Without fail-high/low PVs a line stopped in an aspiration re-search shows the
            // previous iteration's exact score (the score found so far when there is none).
            if bound != Bound::Exact && !self.options.output_fail_lh_pv {
                if rm.previous_score != -VALUE_INFINITE {
                    (score, d) = (rm.previous_score, (depth - 1).max(1));
                }
                bound = Bound::Exact;
            }
            let pv = if self.options.consideration_mode { self.full_pv(&rm.pv) } else { rm.pv.clone() };
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
                pv,
            });
        }
    }

    /// `pv` continued with the hash table's moves until the table has no (legal) move, or the
    /// line repeats a position (YaneuraOu's PV of `ConsiderationMode`).
    pub fn full_pv(&self, pv: &[Move]) -> Vec<Move> {
        let mut p = self.root.clone();
        let mut line = Vec::with_capacity(pv.len() + 8);
        for &m in pv {
            if !p.is_legal(m) {
                return line;
            }
            p.do_move(m);
            line.push(m);
        }
        while line.len() < MAX_PLY {
            if !line.is_empty() && p.repetition(line.len()) != engine::Repetition::None {
                break;
            }
            let Some(d) = self.tt.probe(p.key()) else { break };
            let m = p.move_from_u16(d.move16);
            if m == Move::NONE || !p.is_legal(m) {
                break;
            }
            p.do_move(m);
            line.push(m);
        }
        line
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::TtData;

    /// Runs `f` with a `Shared` over `tt`, `options` and `root` (no search behind it).
    fn with_shared<R>(tt: &TranspositionTable, options: &Options, root: &Position, f: impl FnOnce(&Shared) -> R) -> R {
        let limits = Limits::default();
        let (stop, ponder) = (AtomicBool::new(false), AtomicBool::new(false));
        let start = Mutex::new(Instant::now());
        let plan = Mutex::new(None);
        let shared = Shared {
            tt,
            options,
            limits: &limits,
            stop: &stop,
            ponder: &ponder,
            nodes: vec![Padded(AtomicU64::new(0))],
            start: &start,
            plan: &plan,
            stop_at: AtomicU64::new(u64::MAX),
            info: Mutex::new(None),
            root_move_count: 1,
            root,
            last_pv: Mutex::new(Instant::now()),
            pv_held: AtomicI32::new(0),
        };
        f(&shared)
    }

    /// Stores `line`'s moves in `tt` as the best moves of the positions along it from `pos`.
    fn store_line(tt: &TranspositionTable, pos: &Position, line: &[&str]) {
        let mut p = pos.clone();
        for text in line {
            let m = p.parse_usi_move(text).unwrap();
            let d = TtData { move16: m.to_u16(), value: 0, eval: 0, depth: 5, bound: TtBound::Exact };
            tt.store(p.key(), d);
            p.do_move(m);
        }
    }

    fn text(line: &[Move]) -> Vec<String> {
        line.iter().map(Move::to_string).collect()
    }

    #[test]
    fn full_pv_follows_the_table_after_the_pv() {
        let tt = TranspositionTable::new(1);
        let root = Position::startpos();
        store_line(&tt, &root, &["7g7f", "3c3d", "2g2f", "8c8d"]);
        let pv = [root.parse_usi_move("7g7f").unwrap()];
        let line = with_shared(&tt, &Options::default(), &root, |s| s.full_pv(&pv));
        assert_eq!(text(&line), ["7g7f", "3c3d", "2g2f", "8c8d"]);
        // The PV's own moves come first, whatever the table holds for them.
        let mut p = root.clone();
        let pv: Vec<Move> = ["2g2f", "8c8d"]
            .iter()
            .map(|t| {
                let m = p.parse_usi_move(t).unwrap();
                p.do_move(m);
                m
            })
            .collect();
        let line = with_shared(&tt, &Options::default(), &root, |s| s.full_pv(&pv));
        assert_eq!(text(&line), ["2g2f", "8c8d"]);
    }

    #[test]
    fn full_pv_stops_at_a_repetition_and_at_an_illegal_move() {
        let tt = TranspositionTable::new(1);
        let root = Position::startpos();
        // Kings step out and back: the fifth position repeats the root, and the table would go
        // round for ever.
        store_line(&tt, &root, &["5i5h", "5a5b", "5h5i", "5b5a", "5i5h"]);
        let pv = [root.parse_usi_move("5i5h").unwrap()];
        let line = with_shared(&tt, &Options::default(), &root, |s| s.full_pv(&pv));
        assert_eq!(text(&line), ["5i5h", "5a5b", "5h5i", "5b5a"]);
        // A move the table holds for another position (a hash collision, say) ends the line.
        let tt = TranspositionTable::new(1);
        let mut after = root.clone();
        after.do_move(root.parse_usi_move("7g7f").unwrap());
        let foreign = root.parse_usi_move("2g2f").unwrap();
        tt.store(after.key(), TtData { move16: foreign.to_u16(), value: 0, eval: 0, depth: 5, bound: TtBound::Exact });
        let pv = [root.parse_usi_move("7g7f").unwrap()];
        let line = with_shared(&tt, &Options::default(), &root, |s| s.full_pv(&pv));
        assert_eq!(text(&line), ["7g7f"]);
    }

    #[test]
    fn pv_interval_is_off_for_infinite_and_consideration_mode() {
        let tt = TranspositionTable::new(1);
        let root = Position::startpos();
        let o = Options { pv_interval: 1_000_000, ..Options::default() };
        assert!(!with_shared(&tt, &o, &root, |s| s.pv_due()));
        assert!(with_shared(&tt, &Options { pv_interval: 0, ..o.clone() }, &root, |s| s.pv_due()));
        assert!(with_shared(&tt, &Options { consideration_mode: true, ..o }, &root, |s| s.pv_due()));
    }
}
