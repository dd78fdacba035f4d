//! What the threads of one search share: the controls the `Searcher` drives from outside
//! (`Control`: stop, ponder, the clock and its plan) and the state every worker reads at every
//! node (`Shared`: the table, the options, node counts, the reporting channel). Workers read
//! it; it knows nothing of them.

use crate::padded::Padded;
use crate::protocol::{InfoSink, Limits, Options};
use crate::timeman::{Iteration, TimePlan};
use crate::tt::TranspositionTable;
use crate::types::*;
use engine::{Color, Move, Position};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::time::Instant;

/// The part of a search the `Searcher` drives while it runs: `stop`, `ponderhit` and the clock.
pub struct Control {
    /// Ends the search threads (set by `stop`, the clock, limits, or the search finishing).
    pub stop: AtomicBool,
    /// Set only by `stop()`: what ends the wait for `stop` under `infinite`/`ponder`.
    pub stop_requested: AtomicBool,
    /// Pondering: the clock does not run, and no result before `stop`/`ponderhit`. The one
    /// place pondering lives while a search runs (`Limits::ponder` only starts it).
    pub ponder: AtomicBool,
    /// When the clock started (reset by `ponderhit`).
    pub start: Mutex<Instant>,
    /// The time plan (replaced by a `ponderhit` that carries a clock).
    pub plan: Mutex<Option<TimePlan>>,
    /// The root's side to move and game ply: what a new plan needs at `ponderhit`.
    side_and_ply: Mutex<(Color, u32)>,
}

impl Control {
    /// The controls before any search (a new `Searcher`'s): no clock plan, nothing to stop.
    pub fn idle() -> Control {
        Control {
            stop: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
            ponder: AtomicBool::new(false),
            start: Mutex::new(Instant::now()),
            plan: Mutex::new(None),
            side_and_ply: Mutex::new((Color::Black, 1)),
        }
    }

    /// The controls of a search of `pos` to `limits`, its clock started now.
    pub fn new(pos: &Position, limits: &Limits, options: &Options) -> Control {
        let (side, ply) = (pos.side_to_move(), pos.game_ply());
        Control {
            ponder: AtomicBool::new(limits.ponder),
            plan: Mutex::new(TimePlan::new(limits, side, ply, options)),
            side_and_ply: Mutex::new((side, ply)),
            ..Control::idle()
        }
    }

    /// Asks the search to end at once.
    pub fn request_stop(&self) {
        self.stop_requested.store(true, SeqCst);
        self.stop.store(true, SeqCst);
    }

    /// The opponent played the expected move: the clock starts now, with `limits`' clock when
    /// given (YaneuraOu's `ponderhit btime .. wtime ..`), and pondering ends.
    pub fn ponderhit(&self, limits: Option<&Limits>, options: &Options) {
        *self.start.lock() = Instant::now();
        if let Some(l) = limits {
            let (side, ply) = *self.side_and_ply.lock();
            *self.plan.lock() = TimePlan::new(l, side, ply, options);
        }
        self.ponder.store(false, SeqCst);
    }

    /// Whether a finished search must still hold its result: under `infinite` or pondering the
    /// GUI expects nothing before `stop`/`ponderhit`.
    pub fn must_hold_result(&self, infinite: bool) -> bool {
        (infinite || self.ponder.load(SeqCst)) && !self.stop_requested.load(SeqCst)
    }
}

/// The longest the clock's watchdog sleeps (ms): `stop_at` and, at `ponderhit`, the plan
/// change while it sleeps.
const WATCHDOG_MAX_SLEEP: u64 = 10;

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
    /// Stop, ponder and the clock.
    pub control: &'a Control,
    /// Nodes per thread, published every 1024 nodes, each on its own cache lines.
    nodes: Vec<Padded<AtomicU64>>,
    /// Milliseconds after the clock's start at which the main thread decided to stop.
    stop_at: AtomicU64,
    /// The info sink (main thread only).
    pub info: Mutex<Option<InfoSink>>,
    /// The root position's number of legal moves searched.
    pub root_move_count: usize,
    /// The root position (the PVs of `consideration_mode` continue from it through the table).
    pub root: &'a Position,
    /// When a PV was last reported (the search's start before the first): `pv_interval` counts
    /// from here.
    last_pv: Mutex<Instant>,
    /// The last report sent was the main thread's last completed iteration's lines.
    completed_reported: AtomicBool,
}

impl<'a> Shared<'a> {
    /// The shared state of a search of `root` (restricted to `root_move_count` moves) by
    /// `threads` threads, reporting nowhere (see `with_sink`).
    pub fn new(
        tt: &'a TranspositionTable,
        options: &'a Options,
        limits: &'a Limits,
        control: &'a Control,
        root: &'a Position,
        root_move_count: usize,
        threads: usize,
    ) -> Shared<'a> {
        Shared {
            tt,
            options,
            limits,
            control,
            nodes: (0..threads).map(|_| Padded(AtomicU64::new(0))).collect(),
            stop_at: AtomicU64::new(u64::MAX),
            info: Mutex::new(None),
            root_move_count,
            root,
            last_pv: Mutex::new(*control.start.lock()),
            completed_reported: AtomicBool::new(false),
        }
    }

    /// The same, reporting to `sink`.
    pub fn with_sink(self, sink: InfoSink) -> Shared<'a> {
        *self.info.lock() = Some(sink);
        self
    }

    /// Whether the search must end now.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.control.stop.load(Relaxed)
    }

    /// Ends the search.
    pub fn stop(&self) {
        self.control.stop.store(true, Relaxed);
    }

    fn pondering(&self) -> bool {
        self.control.ponder.load(Relaxed)
    }

    /// Milliseconds since the clock started.
    pub fn elapsed(&self) -> u64 {
        self.control.start.lock().elapsed().as_millis() as u64
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
                self.stop();
            }
        }
        self.check_clock();
    }

    /// Enforces the clock: stops at the moment the main thread decided on (`stop_at`) or the
    /// plan's maximum, whichever comes first. Not while pondering (the clock is not running).
    pub fn check_clock(&self) {
        if let Some(due) = self.clock_due_in() {
            if due == 0 {
                self.stop();
            }
        }
    }

    /// Milliseconds until the clock ends the search (0: it is due), `None` while nothing on
    /// the clock can end it (pondering, or no time limit).
    fn clock_due_in(&self) -> Option<u64> {
        if self.pondering() {
            return None;
        }
        let maximum = self.control.plan.lock().map_or(u64::MAX, |plan| plan.maximum);
        let due = self.stop_at.load(Relaxed).min(maximum);
        (due < u64::MAX).then(|| due.saturating_sub(self.elapsed()))
    }

    /// The clock's watchdog, run on its own thread beside the workers until the search ends
    /// (`stop`, then an unpark): it wakes when the clock is due, at the latest every
    /// `WATCHDOG_MAX_SLEEP`, and enforces it. The main thread checks the clock too, but only
    /// every 1024 of its own nodes, and with many more threads than cores it gets too little
    /// of the machine for that to be on time: with `Threads 256` on 2 cores, `go movetime 1000`
    /// answered after up to 8.5 s (2026-12-07), the main thread still in its first iteration
    /// at 3.4 s. A sleeping thread that wakes is scheduled at once. It leaves the node limit
    /// to the main thread, whose checks fall at the same node counts in every run.
    pub fn watch_clock(&self) {
        while !self.stopped() {
            let sleep = self.clock_due_in().map_or(WATCHDOG_MAX_SLEEP, |ms| ms.clamp(1, WATCHDOG_MAX_SLEEP));
            std::thread::park_timeout(std::time::Duration::from_millis(sleep));
            self.check_clock();
        }
    }

    /// After each iteration of the main thread: asks the time plan whether to stop
    /// (`TimePlan::stop_after_iteration`), and stops at the moment it names.
    pub fn iteration_done(&self, iteration: &Iteration) {
        if self.stopped() || self.pondering() {
            return;
        }
        let Some(plan) = *self.control.plan.lock() else { return };
        let elapsed = self.elapsed();
        if let Some(at) = plan.stop_after_iteration(elapsed, iteration) {
            self.stop_at.fetch_min(at, Relaxed);
            if elapsed >= at {
                self.stop();
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
    pub fn pv_due(&self) -> bool {
        let interval = self.pv_interval();
        interval == 0 || self.last_pv.lock().elapsed().as_millis() as u64 >= interval
    }

    /// Whether the last report sent was the main thread's last completed iteration's lines
    /// (then the search's last report need not repeat them).
    pub fn completed_reported(&self) -> bool {
        self.completed_reported.load(Relaxed)
    }

    /// Records whether the last report was (`true`) the main thread's last completed lines.
    pub fn set_completed_reported(&self, yes: bool) {
        self.completed_reported.store(yes, Relaxed);
    }

    /// A PV report goes out now: `pv_interval` counts from here.
    pub fn mark_reported(&self) {
        *self.last_pv.lock() = Instant::now();
    }

    /// The line a completed iteration of `depth` reports for a root move whose PV is `pv`: in
    /// `consideration_mode` continued from the hash table to its end (`full_pv`); otherwise,
    /// when it is shorter than `depth` (or than two moves: the ponder move), continued from
    /// the table up to that length. A PV cut short (by a transposition, a rule, the horizon)
    /// then still shows the line the move is played for.
    pub fn line_of(&self, pv: &[Move], depth: i32) -> Vec<Move> {
        if self.options.consideration_mode {
            return self.full_pv(pv);
        }
        let want = (depth.max(2) as usize).min(MAX_PLY);
        if pv.len() >= want {
            return pv.to_vec();
        }
        self.pv_continued(pv, want)
    }

    /// `pv` continued with the hash table's moves until the table has no (legal) move, or the
    /// line repeats a position (YaneuraOu's PV of `ConsiderationMode`).
    pub fn full_pv(&self, pv: &[Move]) -> Vec<Move> {
        self.pv_continued(pv, MAX_PLY)
    }

    /// `pv` continued with the hash table's moves as `full_pv`, up to `max_len` moves.
    fn pv_continued(&self, pv: &[Move], max_len: usize) -> Vec<Move> {
        let mut p = self.root.clone();
        let mut line = Vec::with_capacity(pv.len() + 8);
        for &m in pv {
            if !p.is_legal(m) {
                return line;
            }
            p.do_move(m);
            line.push(m);
        }
        while line.len() < max_len {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::{Bound as TtBound, TtData};

    /// Runs `f` with a `Shared` over `tt`, `options` and `root` (no search behind it).
    fn with_shared<R>(tt: &TranspositionTable, options: &Options, root: &Position, f: impl FnOnce(&Shared) -> R) -> R {
        let limits = Limits::default();
        let control = Control::new(root, &limits, options);
        let shared = Shared::new(tt, options, &limits, &control, root, 1, 1);
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

    #[test]
    fn ponderhit_starts_the_clock_and_replans() {
        let root = Position::startpos();
        let o = Options::default();
        let ponder = Limits { ponder: true, byoyomi: [1000; 2], time: [Some(0); 2], ..Limits::default() };
        let c = Control::new(&root, &ponder, &o);
        assert!(c.must_hold_result(false));
        let before = (*c.plan.lock()).unwrap();
        let clock = Limits { byoyomi: [5000; 2], time: [Some(0); 2], ..Limits::default() };
        c.ponderhit(Some(&clock), &o);
        assert!(!c.must_hold_result(false));
        assert!(c.must_hold_result(true), "infinite still waits for stop");
        let after = (*c.plan.lock()).unwrap();
        assert!(after.maximum > before.maximum);
        c.request_stop();
        assert!(!c.must_hold_result(true) && c.stop.load(Relaxed));
    }
}
