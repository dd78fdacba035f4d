//! The types the front end and the search exchange: what a `go` asks for (`Limits`), the
//! options the search reads (`Options`), what it reports while it runs (`Info`, `Score`,
//! `Bound`) and what it decides (`SearchResult`). They depend on nothing else in the crate, so
//! the search's internals read them without importing the `Searcher` facade.

use crate::types::*;
use engine::{EnteringKingRule, Move, VariantId};

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
    /// The game (`USI_Variant`). The net knows standard shogi only: in a variant the search
    /// evaluates classically (`Searcher::eval_in_use`).
    pub variant: VariantId,
    /// The divisor of a YaneuraOu net's output (`FV_SCALE`, YaneuraOu's option; other
    /// evaluations ignore it).
    pub fv_scale: i32,
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
        variant: VariantId::Shogi,
        fv_scale: eval::yo::DEFAULT_FV_SCALE,
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

impl Score {
    /// A search value as USI reports it (mate distances in plies).
    pub fn from_value(v: Value) -> Score {
        if v >= VALUE_MATE_IN_MAX_PLY {
            Score::Mate(VALUE_MATE - v)
        } else if v <= -VALUE_MATE_IN_MAX_PLY {
            Score::Mate(-(VALUE_MATE + v))
        } else {
            Score::Cp(v)
        }
    }
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
