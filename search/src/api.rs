//! The interface the USI front end drives. (Temporary placeholder internals; the real search
//! replaces the body of `Searcher` without changing these types.)

use engine::{EnteringKingRule, Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

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
#[derive(Clone, Debug)]
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
    /// Score of a draw for the side to move at the root, in centipawns (`DrawValue`).
    pub draw_value: i32,
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 256,
            threads: 1,
            multipv: 1,
            network_delay: 120,
            network_delay2: 1120,
            minimum_thinking_time: 2000,
            slow_mover: 100,
            max_moves_to_draw: 0,
            entering_king_rule: EnteringKingRule::Csa27,
            draw_value: -2,
            resign_value: 99999,
            depth_limit: 0,
            nodes_limit: 0,
            usi_ponder: false,
            mate_hash_mb: 64,
        }
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

/// The search engine: owns the transposition table and the worker threads.
pub struct Searcher {
    options: Options,
    stop: Arc<AtomicBool>,
    ponder: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
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
            stop: Arc::new(AtomicBool::new(false)),
            ponder: Arc::new(AtomicBool::new(false)),
            handle: None,
        }
    }

    /// Applies options (takes effect for the next search; call `prepare` to resize tables).
    pub fn set_options(&mut self, options: &Options) {
        self.options = options.clone();
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Heavy initialisation for `isready`: allocate the hash tables, build attack tables.
    pub fn prepare(&mut self) {
        engine::attacks::init();
    }

    /// Forgets everything learned (`usinewgame`, `ClearHash`).
    pub fn clear(&mut self) {}

    /// Starts searching `pos` (a position with its game history) in the background. `on_done`
    /// is called exactly once; under `infinite` or `ponder` not before `stop`/`ponderhit`.
    pub fn start(&mut self, pos: Position, limits: Limits, mut on_info: InfoSink, on_done: DoneSink) {
        self.wait();
        self.stop.store(false, Ordering::SeqCst);
        self.ponder.store(limits.ponder, Ordering::SeqCst);
        let stop = self.stop.clone();
        let ponder = self.ponder.clone();
        self.handle = Some(std::thread::spawn(move || {
            let mut list = engine::MoveList::new();
            engine::generate_legal(&pos, &mut list);
            let best = list.iter().next().copied();
            if let Some(m) = best {
                on_info(Info {
                    depth: 1,
                    seldepth: 1,
                    multipv: 1,
                    score: Score::Cp(0),
                    bound: Bound::Exact,
                    time_ms: 0,
                    nodes: 1,
                    nps: 0,
                    hashfull: 0,
                    pv: vec![m],
                });
            }
            while (limits.infinite || ponder.load(Ordering::SeqCst)) && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            on_done(SearchResult { best: best.map_or(BestMove::Resign, BestMove::Move), ponder: None });
        }));
    }

    /// Asks the running search to stop at once (it still reports its result through `on_done`).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: switch from pondering to a normal timed search.
    /// `limits`, when given, replaces the clock of the `go ponder` (YaneuraOu's extension).
    pub fn ponderhit(&self, limits: Option<Limits>) {
        let _ = limits;
        self.ponder.store(false, Ordering::SeqCst);
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

    /// Runs a fixed-depth search of `pos` synchronously on one thread and returns the nodes
    /// searched: the `bench` signature.
    pub fn bench_search(&mut self, pos: &Position, depth: i32) -> u64 {
        let _ = (pos, depth);
        0
    }
}
