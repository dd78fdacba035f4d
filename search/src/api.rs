//! The interface the USI front end drives: `Searcher` runs searches in the background and
//! reports through callbacks.

use crate::padded::Padded;
use crate::search::Worker;
use crate::thread::{self, Shared};
use crate::timeman::TimePlan;
use crate::tt::TranspositionTable;
use crate::types::*;
use engine::{generate_legal, EnteringKingRule, Move, MoveList, Position, Repetition};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// What a `go` command asks for. Times are milliseconds; `None` means "not given".
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Remaining main time per colour (`btime`, `wtime`), index `Color::index()`.
    pub time: [Option<u64>; 2],
    /// Fischer increment per colour (`binc`, `winc`).
    pub inc: [u64; 2],
    /// Byoyomi per colour (`byoyomi`, or `bbyoyomi`/`wbyoyomi`).
    pub byoyomi: [u64; 2],
    /// Fixed time for this move (`movetime`).
    pub movetime: Option<u64>,
    /// Depth limit (`depth`).
    pub depth: Option<i32>,
    /// Node limit (`nodes`).
    pub nodes: Option<u64>,
    /// `infinite`: search until `stop`.
    pub infinite: bool,
    /// `ponder`: search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Restrict the root to these moves (`searchmoves`); empty means all.
    pub searchmoves: Vec<Move>,
}

/// Engine options that the search reads (set by `setoption`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Transposition table size in MiB (`USI_Hash`).
    pub hash_mb: usize,
    /// Search threads (`Threads`).
    pub threads: usize,
    /// Number of principal variations (`MultiPV`).
    pub multipv: usize,
    /// Average network/GUI lag in ms (`NetworkDelay`).
    pub network_delay: u64,
    /// Worst-case lag in ms (`NetworkDelay2`).
    pub network_delay2: u64,
    /// Minimum thinking time in ms (`MinimumThinkingTime`).
    pub minimum_thinking_time: u64,
    /// Percentage multiplier of the optimum time (`SlowMover`).
    pub slow_mover: u64,
    /// Game length in plies after which the game is a draw; 0 = unlimited (`MaxMovesToDraw`).
    pub max_moves_to_draw: u32,
    /// Declaration rule (`EnteringKingRule`).
    pub entering_king_rule: EnteringKingRule,
    /// Score of a draw (repetition, move limit) for the engine when it plays Black, that is
    /// when Black is to move at the root, in centipawns (`DrawValueBlack`).
    pub draw_value_black: i32,
    /// The same when the engine plays White (`DrawValueWhite`).
    pub draw_value_white: i32,
    /// Resign when the best score is below minus this value (`ResignValue`).
    pub resign_value: i32,
    /// Default depth limit when `go` gives none; 0 = none (`DepthLimit`).
    pub depth_limit: i32,
    /// Default node limit when `go` gives none; 0 = none (`NodesLimit`).
    pub nodes_limit: u64,
    /// The GUI allows pondering (`USI_Ponder`): affects time planning only.
    pub usi_ponder: bool,
    /// Mate solver table size in MiB (`MateHash`).
    pub mate_hash_mb: usize,
    /// Which evaluation the search uses (`EvalKind`); `Net` needs a net (`Searcher::set_net`)
    /// and falls back to the classical evaluation without one.
    pub eval: eval::EvalKind,
    /// The tunable search parameters (`Tune_*` options; see `tune`).
    pub tune: crate::tune::Tune,
    /// Least milliseconds between two PV reports during a search (`PvInterval`); 0 = every
    /// iteration. The last PV before the result is always reported. Not applied under
    /// `infinite` or `consideration_mode`.
    pub pv_interval: u64,
    /// Analysis mode (`ConsiderationMode`): PVs continue from the hash table to their end, every
    /// PV is reported (no `pv_interval`), aspiration fail-highs and fail-lows at once too.
    pub consideration_mode: bool,
    /// Report the PVs of aspiration fail-highs and fail-lows (`lowerbound`/`upperbound`)
    /// (`OutputFailLHPV`); without it no report carries a bound.
    pub output_fail_lh_pv: bool,
    /// Stop at the end of the clock's current second, less `network_delay`, when the clock
    /// counts whole seconds (byoyomi or increments), and never think less than 1000 ms
    /// (`RoundUpToFullSecond`).
    pub round_up_to_full_second: bool,
    /// Pondering searches the position before the opponent's expected move
    /// (`Stochastic_Ponder`): the time plan gives no ponder bonus.
    pub stochastic_ponder: bool,
}

impl Options {
    /// The defaults, which are also the `usi` declarations' (the front end's options table reads
    /// them from here, so that each is written once).
    pub const DEFAULT: Options = Options {
        hash_mb: 256,
        threads: 1,
        multipv: 1,
        // Local-GUI values, not YaneuraOu's network-safe 120 / 1120 / 2000.
        network_delay: 40,
        network_delay2: 150,
        minimum_thinking_time: 1000,
        slow_mover: 100,
        max_moves_to_draw: 0,
        entering_king_rule: EnteringKingRule::Csa27,
        draw_value_black: -2,
        draw_value_white: -2,
        resign_value: 99999,
        depth_limit: 0,
        nodes_limit: 0,
        usi_ponder: false,
        mate_hash_mb: 64,
        // `Net`, as the front end declares it: a searcher without a net (`set_net`) evaluates
        // classically all the same (`eval_in_use`), so `Searcher::new`, the search's tests and
        // self-play without a net search as they did when this default was `Classical`.
        eval: eval::EvalKind::Net,
        tune: crate::tune::Tune::DEFAULT,
        // YaneuraOu's is 300; 0 keeps a PV line per iteration.
        pv_interval: 0,
        consideration_mode: false,
        output_fail_lh_pv: true,
        round_up_to_full_second: true,
        stochastic_ponder: false,
    };

    /// The draw score for the engine when `root` (the side to move at the root) is its side.
    pub fn draw_value(&self, root: engine::Color) -> i32 {
        match root {
            engine::Color::Black => self.draw_value_black,
            engine::Color::White => self.draw_value_white,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::DEFAULT
    }
}

/// A score as USI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many plies; negative when the side to move is being mated.
    Mate(i32),
}

/// Whether a score is exact or a bound (fail-high / fail-low during aspiration search).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Exact score.
    Exact,
    /// The true score is at least this (`lowerbound`).
    Lower,
    /// The true score is at most this (`upperbound`).
    Upper,
}

/// One `info` line's worth of search progress.
#[derive(Clone, Debug)]
pub struct Info {
    /// Completed iteration depth.
    pub depth: i32,
    /// Deepest ply reached.
    pub seldepth: i32,
    /// 1-based index of this PV line.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Whether the score is a bound.
    pub bound: Bound,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Transposition table fill in permille.
    pub hashfull: u32,
    /// The principal variation, legal from the root position.
    pub pv: Vec<Move>,
}

/// What the search decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BestMove {
    /// Play this move.
    Move(Move),
    /// No legal move, or lost beyond `ResignValue`.
    Resign,
    /// Declare an entering-king win.
    Win,
}

/// The end of one search: exactly one per `Searcher::start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play.
    pub best: BestMove,
    /// The expected reply, legal after `best`, if known.
    pub ponder: Option<Move>,
}

/// Receives progress while a search runs (called from the search's main thread).
pub type InfoSink = Box<dyn FnMut(Info) + Send>;
/// Receives the result, exactly once.
pub type DoneSink = Box<dyn FnOnce(SearchResult) + Send>;

/// Everything a running search shares with the `Searcher` that started it.
struct Control {
    /// Ends the search threads (set by `stop`, the clock, limits, or the search finishing).
    stop: AtomicBool,
    /// Set only by `stop()`: what ends the wait for `stop` under `infinite`/`ponder`.
    stop_requested: AtomicBool,
    ponder: AtomicBool,
    start: Mutex<Instant>,
    plan: Mutex<Option<TimePlan>>,
    limits: Mutex<Limits>,
    side_and_ply: Mutex<(engine::Color, u32)>,
}

impl Control {
    fn new(side: engine::Color, ply: u32) -> Control {
        Control {
            stop: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
            ponder: AtomicBool::new(false),
            start: Mutex::new(Instant::now()),
            plan: Mutex::new(None),
            limits: Mutex::new(Limits::default()),
            side_and_ply: Mutex::new((side, ply)),
        }
    }
}

/// The search engine: owns the transposition table and the worker threads.
pub struct Searcher {
    options: Options,
    tt: Arc<TranspositionTable>,
    /// The size in MiB the table was asked to be (it is smaller if the machine could not map it).
    tt_asked_mb: usize,
    workers: Arc<Mutex<Vec<Worker>>>,
    control: Arc<Control>,
    handle: Option<JoinHandle<()>>,
    /// The net `EvalKind` `Net` evaluates with.
    net: Option<Arc<eval::nnue::Network>>,
}

impl Default for Searcher {
    fn default() -> Self {
        Searcher::new()
    }
}

impl Searcher {
    /// A searcher with default options; allocates nothing heavy (that happens in `prepare`).
    pub fn new() -> Searcher {
        Searcher {
            options: Options::default(),
            tt: Arc::new(TranspositionTable::new(1)),
            tt_asked_mb: 1,
            workers: Arc::new(Mutex::new(Vec::new())),
            control: Arc::new(Control::new(engine::Color::Black, 1)),
            handle: None,
            net: None,
        }
    }

    /// Applies options (takes effect for the next search; call `prepare` to resize tables).
    pub fn set_options(&mut self, options: &Options) {
        self.options = options.clone();
    }

    /// Sets the net for `EvalKind::Net` (takes effect at the next `prepare`).
    pub fn set_net(&mut self, net: Option<Arc<eval::nnue::Network>>) {
        self.net = net;
    }

    /// The net set by `set_net`.
    pub fn net(&self) -> Option<&Arc<eval::nnue::Network>> {
        self.net.as_ref()
    }

    /// The evaluation the next search will use: `Net` only when asked for and a net is set.
    pub fn eval_in_use(&self) -> eval::EvalKind {
        match (self.options.eval, &self.net) {
            (eval::EvalKind::Net, Some(_)) => eval::EvalKind::Net,
            _ => eval::EvalKind::Classical,
        }
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Heavy initialisation for `isready`: (re)allocates the hash table and the per-thread
    /// statistics to match the options. Does nothing while a search runs.
    pub fn prepare(&mut self) {
        if self.is_searching() {
            return;
        }
        self.wait();
        let mb = self.options.hash_mb.max(1);
        if self.tt_asked_mb != mb || Arc::strong_count(&self.tt) > 1 {
            self.replace_table();
        }
        let mut workers = self.workers.lock();
        let n = self.options.threads.max(1);
        workers.truncate(n);
        while workers.len() < n {
            let id = workers.len();
            workers.push(Worker::new(id));
        }
        let net = match self.eval_in_use() {
            eval::EvalKind::Net => self.net.clone(),
            eval::EvalKind::Classical => None,
        };
        for w in workers.iter_mut() {
            w.use_net(net.clone());
        }
    }

    /// A fresh table of `hash_mb` MiB, or the largest halving of it the machine can map.
    fn replace_table(&mut self) {
        // Drop the old table first: its memory may be what the new one needs.
        self.tt = Arc::new(TranspositionTable::new(1));
        self.tt_asked_mb = self.options.hash_mb.max(1);
        self.tt = Arc::new(TranspositionTable::largest_up_to(self.tt_asked_mb));
    }

    /// The hash table's size in MiB: `Options::hash_mb` after `prepare`, unless the machine
    /// could not map that much, in which case the largest halving of it that it could.
    pub fn hash_mb_in_use(&self) -> usize {
        self.tt.size_mb()
    }

    /// Forgets everything learned (`usinewgame`, `ClearHash`).
    pub fn clear(&mut self) {
        if self.is_searching() {
            return;
        }
        self.wait();
        // A fresh zeroed table instead of clearing in place: instant even for gigabytes.
        self.replace_table();
        for w in self.workers.lock().iter_mut() {
            w.hist.clear();
        }
    }

    /// Maps the whole hash table into memory now: `bench` calls it after `clear`, so that the
    /// kernel zeroing the fresh table's pages (one page fault each) is not timed as search.
    pub fn touch_table(&self) {
        self.tt.touch();
    }

    /// Starts searching `pos` (a position with its game history) in the background. `on_done`
    /// is called exactly once; under `infinite` or `ponder` not before `stop`/`ponderhit`.
    pub fn start(&mut self, pos: Position, limits: Limits, on_info: InfoSink, on_done: DoneSink) {
        self.wait();
        self.prepare();
        let c = &self.control;
        c.stop.store(false, Ordering::SeqCst);
        c.stop_requested.store(false, Ordering::SeqCst);
        c.ponder.store(limits.ponder, Ordering::SeqCst);
        *c.start.lock() = Instant::now();
        *c.plan.lock() = TimePlan::new(&limits, pos.side_to_move(), pos.game_ply(), &self.options);
        *c.limits.lock() = limits.clone();
        *c.side_and_ply.lock() = (pos.side_to_move(), pos.game_ply());
        self.tt.new_search();
        let control = self.control.clone();
        let tt = self.tt.clone();
        let workers = self.workers.clone();
        let options = self.options.clone();
        self.handle = Some(
            std::thread::Builder::new()
                .name("search".into())
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(move || {
                    let result = search_root(&pos, &limits, &options, &tt, &workers, &control, on_info);
                    // Under infinite or ponder the GUI expects nothing before stop/ponderhit.
                    while (limits.infinite || control.ponder.load(Ordering::SeqCst))
                        && !control.stop_requested.load(Ordering::SeqCst)
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    on_done(result);
                })
                .expect("spawn search thread"),
        );
    }

    /// Asks the running search to stop at once (it still reports its result through `on_done`).
    pub fn stop(&self) {
        self.control.stop_requested.store(true, Ordering::SeqCst);
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: switch from pondering to a normal timed search.
    /// The clock starts now; `limits`, when given, replaces the clock of the `go ponder`
    /// (YaneuraOu's `ponderhit btime .. wtime ..` extension).
    pub fn ponderhit(&self, limits: Option<Limits>) {
        let c = &self.control;
        *c.start.lock() = Instant::now();
        if let Some(l) = limits {
            let (side, ply) = *c.side_and_ply.lock();
            *c.plan.lock() = TimePlan::new(&l, side, ply, &self.options);
            *c.limits.lock() = l;
        }
        c.ponder.store(false, Ordering::SeqCst);
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Waits for the running search (if any) to finish.
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Searches `pos` to `limits` in the calling thread's time (no callbacks) and returns the
    /// result with the last `info` the search reported: what self-play needs for each move.
    pub fn think(&mut self, pos: &Position, limits: Limits) -> (SearchResult, Option<Info>) {
        self.wait();
        self.prepare();
        let control = Control::new(pos.side_to_move(), pos.game_ply());
        *control.plan.lock() = TimePlan::new(&limits, pos.side_to_move(), pos.game_ply(), &self.options);
        self.tt.new_search();
        let last = Arc::new(Mutex::new(None));
        let sink = last.clone();
        let (options, tt, workers) = (&self.options, &*self.tt, &*self.workers);
        let result = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, || {
                    let on_info: InfoSink = Box::new(move |info| *sink.lock() = Some(info));
                    search_root(pos, &limits, options, tt, workers, &control, on_info)
                })
                .expect("spawn search thread")
                .join()
                .expect("search thread")
        });
        let info = last.lock().take();
        (result, info)
    }

    /// Runs a fixed-depth search of `pos` with the configured threads and tables and returns
    /// the nodes searched. With one thread, after `clear`, the count is deterministic: the
    /// `bench` signature.
    pub fn bench_search(&mut self, pos: &Position, depth: i32) -> u64 {
        self.wait();
        self.prepare();
        let control = Control::new(pos.side_to_move(), pos.game_ply());
        let limits = Limits { depth: Some(depth), ..Default::default() };
        let (options, tt, workers) = (&self.options, &*self.tt, &*self.workers);
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, || {
                    search_root(pos, &limits, options, tt, workers, &control, Box::new(|_| {}));
                })
                .expect("spawn bench thread");
        });
        self.workers.lock().iter().map(|w| w.nodes).sum()
    }
}

/// The largest of `mb`, `mb / 2`, `mb / 4`, ... MiB (at least 1) that the machine can map
/// now: the size a table asked to be `mb` MiB gets (the mate table of `go mate`, say).
pub fn mappable_mb(mb: usize) -> usize {
    // SAFETY: bytes, for which all-zero is a valid value; the memory is only mapped, then freed.
    let probe = unsafe { crate::hugemem::ZeroedArray::<u8>::largest_up_to(mb.max(1).saturating_mul(1 << 20), 1 << 20) };
    probe.len() >> 20
}

/// The result when the side to move wins by rule at once: under a point rule `BestMove::Win`
/// (`bestmove win`), under the try rule the try itself, the king's move (YaneuraOu answers
/// both so).
pub fn declaration_result(pos: &Position, rule: EnteringKingRule) -> Option<SearchResult> {
    if !pos.declaration_win(rule) {
        return None;
    }
    let best = match rule {
        EnteringKingRule::Try => BestMove::Move(pos.try_move()?),
        _ => BestMove::Win,
    };
    Some(SearchResult { best, ponder: None })
}

/// The whole search of one `go`: root checks (no legal move, declaration), the threads, the
/// resign decision and the ponder move.
fn search_root(
    pos: &Position,
    limits: &Limits,
    options: &Options,
    tt: &TranspositionTable,
    workers: &Mutex<Vec<Worker>>,
    control: &Control,
    mut on_info: InfoSink,
) -> SearchResult {
    let mut legal = MoveList::new();
    generate_legal(pos, &mut legal);
    if legal.is_empty() {
        return SearchResult { best: BestMove::Resign, ponder: None };
    }
    if let Some(result) = declaration_result(pos, options.entering_king_rule) {
        return result;
    }
    let root_moves: Vec<Move> = if limits.searchmoves.is_empty() {
        legal.iter().copied().collect()
    } else {
        let v: Vec<Move> = legal.iter().copied().filter(|m| limits.searchmoves.contains(m)).collect();
        if v.is_empty() {
            legal.iter().copied().collect()
        } else {
            v
        }
    };
    // About 5% of the planned time (df-pn runs at roughly 100 nodes per millisecond here).
    let budget = match *control.plan.lock() {
        Some(plan) => plan.optimum.saturating_mul(5).clamp(1_000, 100_000),
        None => 100_000,
    };
    if let Some(result) = root_mate(pos, limits, &root_moves, budget, &control.stop, on_info.as_mut()) {
        return result;
    }
    let mut workers = workers.lock();
    if workers.is_empty() {
        workers.push(Worker::new(0));
    }
    let shared = Shared {
        tt,
        options,
        limits,
        stop: &control.stop,
        ponder: &control.ponder,
        nodes: (0..workers.len()).map(|_| Padded(AtomicU64::new(0))).collect(),
        start: &control.start,
        plan: &control.plan,
        stop_at: AtomicU64::new(u64::MAX),
        info: Mutex::new(Some(on_info)),
        root_move_count: root_moves.len(),
        root: pos,
        last_pv: Mutex::new(*control.start.lock()),
        pv_held: AtomicI32::new(0),
    };
    let best = thread::run(&mut workers, pos, &root_moves, &shared);
    let w = &workers[best];
    if w.id != 0 && w.completed_depth > 0 {
        shared.report(w, w.completed_depth, 1);
    } else {
        shared.report_held(&workers[0], options.multipv.clamp(1, root_moves.len()));
    }
    let rm = &w.root_moves[0];
    if rm.score > -VALUE_INFINITE && rm.score <= -options.resign_value && options.resign_value < 99999 {
        return SearchResult { best: BestMove::Resign, ponder: None };
    }
    let best_move = rm.mv;
    let mut after = pos.clone();
    after.do_move(best_move);
    let ponder = rm
        .pv
        .get(1)
        .copied()
        .or_else(|| tt.probe(after.key()).map(|d| after.move_from_u16(d.move16)))
        .filter(|&m| after.is_legal(m));
    SearchResult { best: BestMove::Move(best_move), ponder }
}

/// A budgeted df-pn at the root: a forced mate that alpha-beta could not see in time is still
/// played, and reported as `score mate N` with its line.
fn root_mate(
    pos: &Position,
    limits: &Limits,
    root_moves: &[Move],
    nodes: u64,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(Info),
) -> Option<SearchResult> {
    if limits.depth.is_some() || limits.nodes.is_some() {
        return None;
    }
    let start = Instant::now();
    // The shortest mate, not the first one proved: a longer proof may start with a check that
    // returns to an earlier position, and replaying it move after move is a perpetual check,
    // which loses. Along shortest mates the distance falls with every move, so they never cycle.
    let report = crate::mate::solve_mate_nodes_or_stop(pos, nodes, 4, true, Some(stop));
    let crate::mate::MateResult::Mate(line) = report.result else { return None };
    if !root_moves.contains(&line[0]) {
        return None;
    }
    // A first move back into the game's history (possible when the budget did not prove the
    // line shortest) is left to alpha-beta, which knows repetitions and mate distances.
    let mut after = pos.clone();
    after.do_move(line[0]);
    if after.repetition(usize::MAX) != Repetition::None {
        return None;
    }
    let ms = start.elapsed().as_millis() as u64;
    on_info(Info {
        depth: line.len() as i32,
        seldepth: line.len() as i32,
        multipv: 1,
        score: Score::Mate(line.len() as i32),
        bound: Bound::Exact,
        time_ms: ms,
        nodes: report.nodes,
        nps: report.nodes * 1000 / ms.max(1),
        hashfull: 0,
        pv: line.clone(),
    });
    Some(SearchResult { best: BestMove::Move(line[0]), ponder: line.get(1).copied() })
}
