//! One search thread's alpha-beta: iterative deepening with aspiration windows, principal
//! variation search, quiescence search, and the pruning and reductions strong engines use,
//! with shogi's rules (repetition, entering king, mate in one, max moves) at every node.

use crate::history::{from_index, stat_bonus, stat_malus, update, Histories, CORRECTION_KINDS, CORRECTION_SIZE};
use crate::movepick::{is_tactical, ContKeys, MovePicker};
use crate::shared::Shared;
use crate::timeman::Iteration;
use crate::tt::{Bound, TtData};
use crate::tune::{reduction_table, Tune};
use crate::types::*;
use engine::{Color, Move, Position, Repetition, Square};
use eval::Evaluator;

/// The quiescence's pruning of one move (YaneuraOu's and Stockfish's shape), for a node whose
/// line is not already lost.
struct QsPrune {
    in_check: bool,
    /// The square the previous move went to: a capture there is a recapture.
    recapture_to: Option<Square>,
    /// The static evaluation plus the futility margin (meaningless in check).
    futility_base: Value,
    /// Captures losing more than this in exchange are left out.
    see_margin: Value,
}

impl QsPrune {
    /// `None` when the move is searched; otherwise it is skipped, and the node's best value
    /// rises to at least the returned bound (the most the move could have scored).
    /// `move_count` counts the moves picked at the node, this one included; `alpha` is the
    /// node's, which rises as moves are searched.
    fn skips(&self, pos: &Position, m: Move, move_count: usize, alpha: Value) -> Option<Value> {
        // Recaptures and checks are searched; of the rest, two at most, and only those that
        // can still lift the evaluation to alpha (the two are the best by the picker's order;
        // the quiescence's width, unbounded otherwise, is what drops make explode).
        if !self.in_check && Some(m.to()) != self.recapture_to && !pos.gives_check(m) {
            if move_count > 2 {
                return Some(-VALUE_INFINITE);
            }
            let futility = self.futility_base + eval::move_gain(pos, m);
            if futility <= alpha {
                return Some(futility);
            }
            if !pos.see_ge(m, alpha - self.futility_base) {
                return Some(alpha.min(self.futility_base));
            }
        }
        // Quiet evasions (once one has answered the check) and clearly losing exchanges.
        if !is_tactical(pos, m) || !pos.see_ge(m, -self.see_margin) {
            return Some(-VALUE_INFINITE);
        }
        None
    }
}

/// Whether a stored value with this bound decides the node for the window (alpha, beta).
fn tt_cuts(bound: Bound, value: Value, alpha: Value, beta: Value) -> bool {
    value != VALUE_NONE
        && match bound {
            Bound::Lower => value >= beta,
            Bound::Upper => value <= alpha,
            Bound::Exact => true,
            Bound::None => false,
        }
}

/// Whether a stored value with this bound is a better estimate of the node than its static
/// evaluation `eval`: the bound says the true value lies beyond the evaluation, on its side.
fn tt_refines(bound: Bound, value: Value, eval: Value) -> bool {
    value != VALUE_NONE
        && value.abs() < VALUE_MATE_IN_MAX_PLY
        && match bound {
            Bound::Exact => true,
            Bound::Lower => value > eval,
            Bound::Upper => value < eval,
            Bound::None => false,
        }
}

/// A root move with what the last iteration learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Score of the last completed search of this move (-infinite if it failed low).
    pub score: Value,
    /// Score in the previous iteration.
    pub previous_score: Value,
    /// Whether `score` is only a bound (aspiration fail).
    pub bound: Bound,
    /// The iteration whose search of this move set `score`.
    pub depth: i32,
    /// Deepest ply reached below this move.
    pub sel_depth: usize,
    /// Its principal variation, starting with `mv`.
    pub pv: Vec<Move>,
}

/// One line of a completed iteration, or the interrupted iteration's new best
/// (`Worker::adopt_interrupted`): what the search reports last and plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    /// Its exact score.
    pub score: Value,
    /// The iteration's depth.
    pub depth: i32,
    /// The deepest ply reached below its first move.
    pub sel_depth: usize,
    /// The line, its first move the root move (continued from the hash table where the
    /// search's line was short).
    pub pv: Vec<Move>,
}

/// What a singular-extension search concludes for the hash move.
enum Singular {
    /// Search it this many plies deeper (negative: shallower).
    Extend(i32),
    /// Another move beats beta too: the node fails high with this value.
    Cut(Value),
}

#[derive(Clone, Copy)]
struct Frame {
    current_move: Move,
    /// (piece after move, destination) of `current_move`, for continuation histories.
    piece_to: Option<(usize, usize)>,
    static_eval: Value,
    killers: [Move; 2],
    /// The move a singular-extension search leaves out at this ply (`Move::NONE` otherwise).
    excluded: Move,
}

const EMPTY_FRAME: Frame = Frame {
    current_move: Move::NONE,
    piece_to: None,
    static_eval: VALUE_NONE,
    killers: [Move::NONE; 2],
    excluded: Move::NONE,
};

/// A hash-table entry for a search result at `ply`: the move, the value made relative to the
/// node (mate scores count from it), the raw static evaluation, the depth and the bound.
#[inline]
fn tt_entry(m: Move, v: Value, ply: usize, eval: Value, depth: i32, bound: Bound) -> TtData {
    TtData { move16: m.to_u16(), value: value_to_tt(v, ply), eval, depth, bound }
}

/// Late move reductions from a `tune::reduction_table`, indexed by depth and move number.
#[inline(always)]
fn reduction(table: &[[u8; 64]; 64], depth: i32, move_count: usize) -> i32 {
    table[depth.clamp(1, 63) as usize][move_count.clamp(1, 63)] as i32
}

/// The correction-history keys of `pos` (Stockfish's and YaneuraOu's correction history,
/// keyed as YaneuraOu keys it for shogi): the pawn structure of both sides, and where each
/// king and its golds and silvers stand (the castle). A material evaluation misjudges
/// positions of one structure or castle the same way every time; the search learns by how much.
#[inline]
fn correction_keys(pos: &Position) -> [usize; CORRECTION_KINDS] {
    use engine::PieceType::{Gold, King, Pawn, Silver};
    fn index(x: u64) -> usize {
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CORRECTION_SIZE.trailing_zeros())) as usize
    }
    let words = |c: Color, kinds: &[engine::PieceType]| {
        let bb = kinds.iter().fold(engine::Bitboard::EMPTY, |b, &k| b | pos.pieces(c, k));
        let [w0, w1] = bb.words();
        w0 ^ w1.rotate_left(23)
    };
    let pawns = words(Color::Black, &[Pawn]) ^ words(Color::White, &[Pawn]).rotate_left(41);
    let castles =
        words(Color::Black, &[King, Gold, Silver]) ^ words(Color::White, &[King, Gold, Silver]).rotate_left(41);
    [index(pawns), index(castles ^ 0x5555_5555_5555_5555)]
}

/// A search thread's private state. Workers sit side by side in a `Vec` and each writes its
/// own fields (`nodes`) at every node: the alignment keeps them off each other's cache lines.
#[repr(align(128))]
pub struct Worker {
    /// Thread index (0 is the main thread, which reports and manages time).
    pub id: usize,
    /// Move-ordering statistics.
    pub hist: Histories,
    /// The root moves, best first after each iteration.
    pub root_moves: Vec<RootMove>,
    /// Nodes searched in this search.
    pub nodes: u64,
    /// The last depth this thread completed.
    pub completed_depth: i32,
    /// Whether this search has scored a root move (the first iteration's first, at least).
    root_scored: bool,
    /// How often the best root move changed (main thread; decays per iteration).
    pub best_move_changes: f64,
    /// The lines of the last completed iteration (up to MultiPV), best first: what the search
    /// reports last and plays. The first iteration's first root move always completes, so a
    /// search has them (`Worker::stopped`).
    pub completed: Vec<PvLine>,
    sel_depth: usize,
    pv_idx: usize,
    root_color: Color,
    stack: Vec<Frame>,
    /// Late move reductions for `reductions_for` (rebuilt when a search's `Tune` differs).
    reductions: Box<[[u8; 64]; 64]>,
    reductions_for: Tune,
    /// The evaluation's incremental state along the current line.
    evaluator: Evaluator,
    pv: Vec<Vec<Move>>,
}

/// What must still be mappable after a new worker's histories for it to be added: its
/// evaluator (`use_net`: about 1 MB with a net), the `go`'s search thread (a 64 MiB stack) and
/// the small allocations of a search. Under `ulimit -v 2 GiB` with `Threads 256` the
/// evaluators, allocated after the histories, aborted the process (2026-12-07). Each search
/// thread's own stack is checked when it starts (`thread::run`).
const ROOM_AFTER_A_WORKER: usize = 96 << 20;

impl Worker {
    /// A worker with empty statistics.
    pub fn new(id: usize) -> Worker {
        Worker::try_new(id).expect("memory for a search thread")
    }

    /// A worker with empty statistics, or `None` when the machine refuses the memory of its
    /// histories (the part of a worker that grows the process: 14 MB) or would have less than
    /// `ROOM_AFTER_A_WORKER` left after them.
    pub fn try_new(id: usize) -> Option<Worker> {
        let hist = Histories::try_new()?;
        // Asked for and given back at once: what the rest needs is allocated without a way to
        // fail but to abort.
        Vec::<u8>::new().try_reserve_exact(ROOM_AFTER_A_WORKER).ok()?;
        Some(Worker {
            id,
            hist,
            root_moves: Vec::new(),
            nodes: 0,
            completed_depth: 0,
            root_scored: false,
            best_move_changes: 0.0,
            completed: Vec::new(),
            sel_depth: 0,
            pv_idx: 0,
            root_color: Color::Black,
            stack: vec![EMPTY_FRAME; MAX_PLY + 8],
            reductions: reduction_table(&Tune::default()),
            reductions_for: Tune::default(),
            evaluator: Evaluator::new(MAX_PLY + 8),
            pv: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(32)).collect(),
        })
    }

    /// Evaluates with `net`, or classically with `None` (kept as it is when already so), a
    /// YaneuraOu net's output divided by `fv_scale`.
    pub fn use_net(&mut self, net: Option<eval::Net>, fv_scale: i32) {
        if !self.evaluator.runs(net.as_ref()) {
            self.evaluator = match net {
                Some(net) => Evaluator::with_net(MAX_PLY + 8, net),
                None => Evaluator::new(MAX_PLY + 8),
            };
        }
        self.evaluator.set_fv_scale(fv_scale);
    }

    /// Whether this thread must end its search now: the search was stopped, and this thread
    /// has scored a root move. The first root move's depth-1 search always completes, so every
    /// search has a line to report and play whenever `stop` comes; the rest of the first
    /// iteration does not wait. (It did until 2026-12-07: in a lopsided position full of
    /// captures a depth-1 iteration took 200,000 nodes, 0.4 s, and lost games on time at
    /// byoyomi 100.)
    #[inline(always)]
    fn stopped(&self, shared: &Shared) -> bool {
        (self.completed_depth > 0 || self.root_scored) && shared.stopped()
    }

    /// A stop came while the first root move still has no score, which `stopped` waits for:
    /// the quiescence then hurries, returning evaluations instead of searching, so that the root
    /// move gets a (rough) score at once. Its width has no bound in check, and with pieces in
    /// hand a chain of checks and evasions below the first root move took 445,104 nodes, 1.3 s,
    /// in one position from a fresh start, and up to 2.0 s in games (with their tables), where
    /// byoyomi 100 was due.
    #[inline(always)]
    fn hurried(&self, shared: &Shared) -> bool {
        self.completed_depth == 0 && !self.root_scored && shared.stopped()
    }

    /// The index of the PV line being searched (MultiPV).
    pub fn pv_index(&self) -> usize {
        self.pv_idx
    }

    /// Prepares for a search of `pos` restricted to `moves`.
    pub fn reset(&mut self, pos: &Position, moves: &[Move]) {
        self.root_moves = moves
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -VALUE_INFINITE,
                previous_score: -VALUE_INFINITE,
                bound: Bound::Upper,
                depth: 0,
                sel_depth: 0,
                pv: vec![mv],
            })
            .collect();
        self.nodes = 0;
        self.completed_depth = 0;
        self.root_scored = false;
        self.best_move_changes = 0.0;
        self.completed.clear();
        self.root_color = pos.side_to_move();
        for f in self.stack.iter_mut() {
            *f = EMPTY_FRAME;
        }
    }

    /// Iterative deepening until `stop` or the depth limit. The main thread (id 0) reports
    /// and decides when to stop.
    pub fn iterate(&mut self, pos: &mut Position, shared: &Shared) {
        // Only the main thread obeys a depth limit: a helper that stopped at it would leave its
        // core idle while the main thread finishes, so helpers search on until told to stop.
        let max_depth = if self.id == 0 { shared.depth_limit() } else { MAX_DEPTH };
        if self.reductions_for != shared.options.tune {
            self.reductions_for = shared.options.tune;
            self.reductions = reduction_table(&self.reductions_for);
        }
        let multipv = shared.options.multipv.clamp(1, self.root_moves.len().max(1));
        self.evaluator.reset(pos);
        let mut depth = 1;
        while depth <= max_depth && !self.stopped(shared) {
            // Lazy SMP diversity: odd helpers skip every other iteration's start depth.
            if self.id > 0 && self.id % 2 == 1 && depth > 2 && depth % 2 == 0 && self.completed_depth > 0 {
                depth += 1;
            }
            self.best_move_changes *= 0.5;
            for rm in self.root_moves.iter_mut() {
                rm.previous_score = rm.score;
            }
            for pv_idx in 0..multipv {
                if self.stopped(shared) {
                    break;
                }
                self.pv_idx = pv_idx;
                self.sel_depth = 0;
                self.aspiration(pos, shared, depth);
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            }
            if !self.stopped(shared) {
                self.completed_depth = depth;
                self.complete(shared, depth, multipv);
                if self.id == 0 {
                    self.report_iteration(shared);
                }
            }
            if self.id == 0 {
                shared.iteration_done(&self.iteration(shared));
            }
            // A proven mate (for either side) found well within the depth cannot change.
            let best = self.root_moves[0].score;
            if multipv == 1 && best.abs() >= VALUE_MATE_IN_MAX_PLY && VALUE_MATE - best.abs() + 4 <= depth {
                break;
            }
            depth += 1;
        }
        if self.completed.is_empty() && self.root_scored {
            // Stopped inside the first iteration: its root moves scored so far (exact: its
            // window is the full one) are the lines to report and play.
            self.complete(shared, 1, multipv);
        }
        self.adopt_interrupted(shared, multipv);
    }

    /// What the time plan needs to know of the iteration just ended (main thread).
    fn iteration(&self, shared: &Shared) -> Iteration {
        let best = &self.root_moves[0];
        Iteration {
            single_move: shared.root_move_count == 1,
            best_move_changes: self.best_move_changes,
            score: best.score,
            previous_score: best.previous_score,
        }
    }

    fn aspiration(&mut self, pos: &mut Position, shared: &Shared, depth: i32) {
        let prev = self.root_moves[self.pv_idx].previous_score;
        let mut delta = shared.options.tune.asp_delta + (self.id % 8) as Value * 3;
        let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < VALUE_MATE_IN_MAX_PLY {
            ((prev - delta).max(-VALUE_INFINITE), (prev + delta).min(VALUE_INFINITE))
        } else {
            (-VALUE_INFINITE, VALUE_INFINITE)
        };
        loop {
            let v = self.search(pos, shared, alpha, beta, depth, 0, true, false);
            // Keep the tail ordered by the latest scores; fail-lows stay at the front's order.
            self.root_moves[self.pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.stopped(shared) {
                return;
            }
            if v <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-VALUE_INFINITE);
                self.root_moves[self.pv_idx].bound = Bound::Upper;
            } else if v >= beta {
                beta = (v + delta).min(VALUE_INFINITE);
                self.root_moves[self.pv_idx].bound = Bound::Lower;
            } else {
                self.root_moves[self.pv_idx].bound = Bound::Exact;
                return;
            }
            if self.id == 0 {
                self.report_fail(shared, depth);
            }
            delta += delta / 2 + 5;
        }
    }

    /// The PV at `ply` becomes `m` followed by the child's PV.
    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(m);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// The static evaluation of the current position (`ply` moves below the root).
    #[inline]
    fn static_eval(&mut self, pos: &Position, ply: usize) -> Value {
        debug_assert_eq!(self.evaluator.ply(), ply);
        self.evaluator.evaluate(pos)
    }

    /// Makes `m` at `ply`: the line's stack, the evaluation and the position, and starts
    /// fetching the child's table entry. A node is counted here, once per move made (as
    /// YaneuraOu and Stockfish count), so a re-search of a child, a null move's child or a
    /// second look at a node (razoring, the singular test) is not counted again: `go nodes`
    /// and nodes/s mean what they mean in the engines Kaname is compared with.
    #[inline(always)]
    fn make_move(&mut self, pos: &mut Position, shared: &Shared, ply: usize, m: Move) {
        self.count_node(shared);
        self.stack[ply].current_move = m;
        self.stack[ply].piece_to = Some((m.piece_after().index(), m.to().index()));
        self.evaluator.push(pos, m);
        pos.do_move(m);
        // The child probes the table after its rule checks: start the (likely) cache miss
        // now. (Hashing the move beforehand with `key_after` cost 2% more instructions.)
        shared.tt.prefetch(pos.key());
    }

    /// Makes a null move (a pass) at `ply`.
    #[inline]
    fn make_null(&mut self, pos: &mut Position, ply: usize) {
        self.stack[ply].current_move = Move::NULL;
        self.stack[ply].piece_to = None;
        self.evaluator.push_null();
        pos.do_null_move();
    }

    /// Takes back `m` (`Move::NULL` for a null move), made by `make_move` or `make_null`.
    #[inline(always)]
    fn unmake(&mut self, pos: &mut Position, m: Move) {
        if m == Move::NULL {
            pos.undo_null_move();
        } else {
            pos.undo_move(m);
        }
        self.evaluator.pop();
    }

    fn draw_value(&self, pos: &Position, shared: &Shared) -> Value {
        let v = shared.options.draw_value(self.root_color);
        if pos.side_to_move() == self.root_color {
            v
        } else {
            -v
        }
    }

    /// The continuation-history keys of the node at `ply` (its last two plies' moves).
    fn cont_keys(&self, ply: usize) -> ContKeys {
        let at = |back: usize| if ply < back { None } else { self.stack[ply - back].piece_to };
        [at(1), at(2)]
    }

    #[inline]
    fn count_node(&mut self, shared: &Shared) {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            shared.publish_nodes(self.id, self.nodes);
            if self.id == 0 {
                shared.check_limits();
            }
        }
    }

    /// Negamax alpha-beta. `ply` counts from the root; `cut_node` marks expected fail-highs.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &mut Position,
        shared: &Shared,
        mut alpha: Value,
        mut beta: Value,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> Value {
        if depth <= 0 {
            return self.qsearch(pos, shared, alpha, beta, ply, pv_node);
        }
        let root = ply == 0;
        if pv_node {
            self.pv[ply].clear();
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        let in_check = pos.in_check();
        if !root {
            if self.stopped(shared) {
                return 0;
            }
            if ply >= MAX_PLY - 2 {
                return if in_check { 0 } else { self.static_eval(pos, ply) };
            }
            if let Some(v) = self.rule_value(pos, shared, ply) {
                return v;
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }
        // In a singular-extension search this node is searched again without one move: its
        // result must neither come from nor go to the table, and nothing may be pruned on it.
        let excluded = self.stack[ply].excluded;
        let key = pos.key();
        let tt = shared.tt.probe(key);
        let tt_value = tt.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        let tt_move =
            if root { self.root_moves[self.pv_idx].mv } else { tt.map_or(Move::NONE, |d| pos.move_from_u16(d.move16)) };
        if let Some(d) = tt {
            if !pv_node && excluded == Move::NONE && d.depth >= depth && tt_cuts(d.bound, tt_value, alpha, beta) {
                return tt_value;
            }
        }

        // Shogi is decided by mating races: look for a mate in one before anything else.
        if !root && !in_check && tt.is_none() && excluded == Move::NONE {
            if let Some(v) = self.mate_in_1(pos, shared, ply, pv_node, depth + 6) {
                return v;
            }
        }

        let raw_eval = if in_check {
            VALUE_NONE
        } else {
            match tt {
                Some(d) if d.eval != VALUE_NONE && d.bound != Bound::None => d.eval,
                _ => self.static_eval(pos, ply),
            }
        };
        // The evaluation corrected by what earlier searches of similar positions found; the
        // table keeps the raw value.
        let corr_keys = correction_keys(pos);
        let static_eval = if in_check { VALUE_NONE } else { self.corrected(raw_eval, pos, corr_keys) };
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.stack[ply - 2].static_eval;
        // The table's value is a better estimate than the evaluation where its bound says the
        // truth lies beyond the evaluation (Stockfish's and YaneuraOu's): pruning judges by it.
        let eval = match tt {
            Some(d) if !in_check && excluded == Move::NONE && tt_refines(d.bound, tt_value, static_eval) => tt_value,
            _ => static_eval,
        };
        self.stack[ply + 1].killers = [Move::NONE; 2];
        let us = pos.side_to_move();
        let tune = &shared.options.tune;

        if !pv_node && !in_check && excluded == Move::NONE {
            // Reverse futility: far above beta with little depth left.
            if depth < tune.rfp_depth
                && eval - (tune.rfp_margin - tune.rfp_improving * improving as Value) * depth >= beta
                && eval.abs() < VALUE_MATE_IN_MAX_PLY
            {
                return eval;
            }
            // Razoring: hopelessly below alpha.
            if depth <= 2 && eval + tune.razor_margin * depth < alpha {
                let v = self.qsearch(pos, shared, alpha, beta, ply, false);
                if v <= alpha {
                    return v;
                }
            }
            // Null move, unless only the king is left to defend (zugzwang-like positions).
            let has_material = pos.pieces_of(us).count() > 1 || !pos.hand(us).is_empty();
            if depth >= 3
                && eval >= beta
                && has_material
                && pos.last_move() != Move::NULL
                && beta > -VALUE_MATE_IN_MAX_PLY
            {
                let r = tune.nmp_base
                    + depth / tune.nmp_depth_div.max(1)
                    + ((eval - beta) / tune.nmp_eval_div.max(1)).min(3);
                self.make_null(pos, ply);
                let v = -self.search(pos, shared, -beta, -beta + 1, depth - r, ply + 1, false, !cut_node);
                self.unmake(pos, Move::NULL);
                if v >= beta && !self.stopped(shared) {
                    return if v >= VALUE_MATE_IN_MAX_PLY { beta } else { v };
                }
            }
        }

        // ProbCut: a capture that beats beta by a margin in a search four plies shallower
        // almost surely beats beta in the full one. Skipped when the table already says the
        // node stays below that margin.
        let pc_beta = beta + tune.probcut_margin - tune.probcut_improving * improving as Value;
        if !pv_node
            && !in_check
            && excluded == Move::NONE
            && depth >= 5
            && beta.abs() < VALUE_MATE_IN_MAX_PLY
            && !tt.is_some_and(|d| d.depth >= depth - 3 && tt_value != VALUE_NONE && tt_value < pc_beta)
        {
            let mut picker = MovePicker::new_qsearch(pos, tt_move);
            while let Some(m) = picker.next(pos, &self.hist) {
                if !pos.see_ge(m, pc_beta - eval) {
                    continue;
                }
                self.make_move(pos, shared, ply, m);
                let mut v = -self.qsearch(pos, shared, -pc_beta, -pc_beta + 1, ply + 1, false);
                if v >= pc_beta {
                    v = -self.search(pos, shared, -pc_beta, -pc_beta + 1, depth - 4, ply + 1, false, !cut_node);
                }
                self.unmake(pos, m);
                if self.stopped(shared) {
                    return 0;
                }
                if v >= pc_beta {
                    shared.tt.store(key, tt_entry(m, v, ply, raw_eval, depth - 3, Bound::Lower));
                    return v;
                }
            }
        }

        // Internal iterative reduction (Stockfish's and YaneuraOu's): a node expected to matter
        // that the table knows nothing of is searched a ply shallower; the next visit finds
        // the move this one stores.
        if !root && (pv_node || cut_node) && depth >= tune.iir_depth && tt_move == Move::NONE && excluded == Move::NONE
        {
            depth -= 1;
        }

        let killers = self.stack[ply].killers;
        let counter = self.stack[ply.wrapping_sub(1).min(MAX_PLY)]
            .piece_to
            .filter(|_| ply > 0)
            .map_or(Move::NONE, |(pc, to)| self.hist.counter[pc][to]);
        let cont_keys = self.cont_keys(ply);
        let mut picker = MovePicker::new(pos, tt_move, killers, counter, depth, cont_keys);
        let mut best_value = -VALUE_INFINITE;
        let mut best_move = Move::NONE;
        let mut move_count = 0;
        let mut quiets_tried: [Move; 64] = [Move::NONE; 64];
        let mut n_quiets = 0;
        let mut captures_tried: [Move; 32] = [Move::NONE; 32];
        let mut n_captures = 0;
        let mut root_i = self.pv_idx;
        let tt_capture = tt_move != Move::NONE && is_tactical(pos, tt_move);

        loop {
            let m = if root {
                match self.root_moves.get(root_i) {
                    Some(rm) => {
                        root_i += 1;
                        rm.mv
                    }
                    None => break,
                }
            } else {
                match picker.next(pos, &self.hist) {
                    Some(m) => m,
                    None => break,
                }
            };
            if m == excluded {
                continue;
            }
            move_count += 1;
            let tactical = is_tactical(pos, m);
            let gives_check = pos.gives_check(m);
            // The move's late move reduction before the node's adjustments: pruning judges the
            // depth it would leave, and the reduction below starts from it.
            let base_r = reduction(&self.reductions, depth, move_count);
            // A quiet's history, twice butterfly plus continuation (Stockfish's statScore):
            // pruning and the reduction below both judge by it. The first move is neither
            // pruned nor reduced: its history is not read.
            let (cont, history) = if tactical || move_count == 1 {
                (0, 0)
            } else {
                let cont = self.hist.continuation_of(cont_keys, m);
                (cont, cont + 2 * self.hist.main_of(us, m))
            };

            if !root && best_value > -VALUE_MATE_IN_MAX_PLY {
                let lmp_limit = (tune.lmp_base + depth * depth) as usize / (2 - improving as usize);
                if !tactical && move_count >= lmp_limit {
                    picker.skip_quiets = true;
                }
                // The depth the move would be searched to after its late move reduction
                // (Stockfish's and YaneuraOu's): a move reduced to nothing is judged as one.
                let lmr_depth = (depth - 1 - base_r).max(0);
                if !tactical && !gives_check {
                    // History pruning (Stockfish's and YaneuraOu's): a quiet that kept failing
                    // after these two moves is dropped, and the better a quiet's history, the
                    // deeper futility judges it.
                    if cont < -tune.hist_prune * depth {
                        continue;
                    }
                    let lmr_depth = (depth - 1 - base_r + history / tune.hist_fut_div.max(1)).max(0);
                    let futility = eval + tune.fut_base + tune.fut_margin * lmr_depth;
                    if move_count > 1 && lmr_depth <= tune.fut_depth && !in_check && futility <= alpha {
                        // The pruned move could have reached about this much: the node's
                        // upper bound must not claim less.
                        if best_value < futility && futility.abs() < VALUE_MATE_IN_MAX_PLY {
                            best_value = futility;
                        }
                        continue;
                    }
                    if lmr_depth <= 6 && !pos.see_ge(m, -tune.see_quiet * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else {
                    // Capture futility (Stockfish's and YaneuraOu's): a capture or promotion
                    // whose gain, with a margin for the depth it would keep, still leaves the
                    // evaluation below alpha. Not for checks, which may start a mating attack.
                    if !gives_check && !in_check && lmr_depth < tune.cf_depth {
                        let captured = pos.piece_on(m.to()).kind_opt();
                        let cap_hist = captured.map_or(0, |c| self.hist.capture_of(m, c));
                        if eval + tune.cf_base + tune.cf_margin * lmr_depth + eval::move_gain(pos, m) + cap_hist / 32
                            <= alpha
                        {
                            continue;
                        }
                    }
                    if depth <= 6 && !pos.see_ge(m, -tune.see_tactical * depth) {
                        continue;
                    }
                }
            }

            let mut extension = 0;
            if let Some(d) = tt.filter(|_| !root && m == tt_move && excluded == Move::NONE) {
                match self.singular(pos, shared, d, tt_value, beta, depth, ply, cut_node, m) {
                    Singular::Cut(v) => return v,
                    Singular::Extend(e) => extension = e,
                }
            }

            self.make_move(pos, shared, ply, m);
            if pv_node {
                // A child searched with a null window leaves its PV slot as an earlier line
                // left it: empty it, so a fail high here (or a root move's fail low) records
                // this move alone rather than a stale tail that may be illegal.
                self.pv[ply + 1].clear();
            }
            // No check extension: shogi checks come in long chains (drops), and a blanket
            // extension explodes the tree; checks are instead reduced less. The one extension
            // is the singular one, above.
            let new_depth = depth - 1 + extension;
            let mut v;
            if depth >= 3 && move_count > 1 + pv_node as usize && (!tactical || cut_node) {
                let mut r = base_r;
                r += tune.lmr_cut * cut_node as i32 - pv_node as i32 - improving as i32;
                // A quiet is reduced less the better its history, butterfly and continuation
                // (Stockfish's and YaneuraOu's statScore), and more where the hash move is a
                // capture: the node's fate likely lies with that capture.
                if !tactical {
                    r -= history / tune.lmr_history_div.max(1);
                    r += tt_capture as i32;
                }
                if gives_check {
                    r -= tune.lmr_check;
                }
                let d = (new_depth - r).clamp(1, new_depth);
                v = -self.search(pos, shared, -alpha - 1, -alpha, d, ply + 1, false, true);
                if v > alpha && d < new_depth {
                    // The reduced search's margin decides the full one's depth (Stockfish's
                    // and YaneuraOu's deeper and shallower re-search).
                    let deeper = v > best_value + tune.lmr_deeper;
                    let shallower = v < best_value + tune.lmr_shallower;
                    let full = new_depth + deeper as i32 - shallower as i32;
                    if full > d {
                        v = -self.search(pos, shared, -alpha - 1, -alpha, full, ply + 1, false, !cut_node);
                    }
                }
            } else if !pv_node || move_count > 1 {
                v = -self.search(pos, shared, -alpha - 1, -alpha, new_depth, ply + 1, false, !cut_node);
            } else {
                v = alpha + 1;
            }
            if pv_node && (move_count == 1 || (v > alpha && (root || v < beta))) {
                v = -self.search(pos, shared, -beta, -alpha, new_depth, ply + 1, true, false);
            }
            self.unmake(pos, m);
            if self.stopped(shared) {
                return 0;
            }

            if root {
                let sel = self.sel_depth;
                let child_pv: Vec<Move> = self.pv[ply + 1].clone();
                let scored = move_count == 1 || v > alpha;
                self.root_scored |= scored;
                let Some(rm) = self.root_moves.iter_mut().find(|rm| rm.mv == m) else { continue };
                if scored {
                    rm.score = v;
                    rm.depth = depth; // The root's depth is the iteration's (no reduction there).
                    rm.bound = if v >= beta {
                        Bound::Lower
                    } else if v <= alpha {
                        Bound::Upper
                    } else {
                        Bound::Exact
                    };
                    rm.sel_depth = sel;
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend_from_slice(&child_pv);
                    if move_count > 1 && self.id == 0 {
                        self.best_move_changes += 1.0;
                    }
                } else {
                    rm.score = -VALUE_INFINITE;
                }
            }

            if v > best_value {
                best_value = v;
                if v > alpha {
                    best_move = m;
                    if pv_node && !root {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
            if m != best_move {
                if tactical && n_captures < captures_tried.len() {
                    captures_tried[n_captures] = m;
                    n_captures += 1;
                } else if !tactical && n_quiets < quiets_tried.len() {
                    quiets_tried[n_quiets] = m;
                    n_quiets += 1;
                }
            }
        }

        if move_count == 0 {
            // No legal move: in shogi that loses, check or no check. Without the excluded
            // move, the singular search only learns that no other move reaches its bound.
            return if excluded != Move::NONE { alpha } else { mated_in(ply) };
        }
        if best_value >= beta && best_move != Move::NONE {
            self.update_stats(
                pos,
                ply,
                best_move,
                stat_bonus(tune, depth),
                stat_malus(tune, depth),
                &quiets_tried[..n_quiets],
                &captures_tried[..n_captures],
            );
        }
        // A search without the hash move teaches neither the correction history nor the table.
        if excluded != Move::NONE {
            return best_value;
        }
        // Teach the correction history what this search found, where its result says more than
        // the evaluation did: not in check, not after a capture (exchanges are not structure),
        // and only in the direction the bound can vouch for.
        if !in_check
            && (best_move == Move::NONE || !is_tactical(pos, best_move))
            && best_value.abs() < VALUE_MATE_IN_MAX_PLY
            && ((best_value < static_eval && best_value < beta)
                || (best_value > static_eval && best_move != Move::NONE))
        {
            let bonus = (best_value - static_eval) * depth / 8;
            self.hist.update_correction(us.index(), corr_keys, bonus);
        }
        if !root || self.pv_idx == 0 {
            let bound = if best_value >= beta {
                Bound::Lower
            } else if pv_node && best_move != Move::NONE {
                Bound::Exact
            } else {
                Bound::Upper
            };
            shared.tt.store(key, tt_entry(best_move, best_value, ply, raw_eval, depth, bound));
        }
        best_value
    }

    /// Singular extension (Stockfish's and YaneuraOu's): the hash move `m`, whose entry `d` says
    /// it fails high, is searched one ply deeper if no other move reaches a bound a little
    /// below its value in a search of half the depth. If another move beats `beta` there, the
    /// node is cut (multi-cut); if another comes close, the hash move is searched shallower.
    #[allow(clippy::too_many_arguments)]
    fn singular(
        &mut self,
        pos: &mut Position,
        shared: &Shared,
        d: TtData,
        tt_value: Value,
        beta: Value,
        depth: i32,
        ply: usize,
        cut_node: bool,
        m: Move,
    ) -> Singular {
        let tune = &shared.options.tune;
        // Twice the iteration's depth caps how far extensions can stretch a line.
        if depth < tune.se_depth
            || ply as i32 >= 2 * (self.completed_depth + 1)
            || d.depth < depth - 3
            || d.bound == Bound::Upper
            || d.bound == Bound::None
            || tt_value == VALUE_NONE
            || tt_value.abs() >= VALUE_MATE_IN_MAX_PLY
        {
            return Singular::Extend(0);
        }
        let s_beta = tt_value - tune.se_margin * depth / 64;
        self.stack[ply].excluded = m;
        let v = self.search(pos, shared, s_beta - 1, s_beta, (depth - 1) / 2, ply, false, cut_node);
        self.stack[ply].excluded = Move::NONE;
        if v < s_beta {
            Singular::Extend(1)
        } else if v >= beta && v.abs() < VALUE_MATE_IN_MAX_PLY {
            Singular::Cut(v)
        } else if tt_value >= beta {
            Singular::Extend(-2)
        } else if cut_node {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// YaneuraOu's mate-in-one probe (`engine::contact_mate_in_1`: contact and knight checks):
    /// the mate's value, the mate stored in the table at `tt_depth` and made the PV at a PV
    /// node. Shogi is decided by mating races, and neither a material evaluation nor a
    /// captures-only quiescence sees a mate one move away.
    #[inline]
    fn mate_in_1(
        &mut self,
        pos: &mut Position,
        shared: &Shared,
        ply: usize,
        pv_node: bool,
        tt_depth: i32,
    ) -> Option<Value> {
        let m = engine::contact_mate_in_1(pos)?;
        let v = mate_in(ply + 1);
        shared.tt.store(pos.key(), tt_entry(m, v, ply, VALUE_NONE, tt_depth, Bound::Exact));
        if pv_node {
            self.pv[ply].clear();
            self.pv[ply].push(m);
        }
        Some(v)
    }

    /// Draws, perpetual checks, entering-king wins and the move limit, judged before searching.
    fn rule_value(&self, pos: &Position, shared: &Shared, ply: usize) -> Option<Value> {
        match pos.repetition(ply) {
            Repetition::None => {}
            Repetition::Draw => return Some(self.draw_value(pos, shared)),
            Repetition::Win => return Some(mate_in(ply)),
            Repetition::Lose => return Some(mated_in(ply)),
            Repetition::Superior => return Some(VALUE_SUPERIOR),
            Repetition::Inferior => return Some(-VALUE_SUPERIOR),
        }
        let max = shared.options.max_moves_to_draw;
        if max > 0 && pos.game_ply() > max && !pos.in_check() {
            return Some(self.draw_value(pos, shared));
        }
        if pos.declaration_win(shared.options.entering_king_rule) {
            return Some(mate_in(ply + 1));
        }
        None
    }

    /// `raw` corrected by the correction history, kept clear of the mate range.
    #[inline]
    fn corrected(&self, raw: Value, pos: &Position, keys: [usize; CORRECTION_KINDS]) -> Value {
        let v = raw + self.hist.correction(pos.side_to_move().index(), keys);
        v.clamp(-VALUE_MATE_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY - 1)
    }

    /// After a cut by `best`: `bonus` to its history, `malus` off the moves tried before it.
    #[allow(clippy::too_many_arguments)]
    fn update_stats(
        &mut self,
        pos: &Position,
        ply: usize,
        best: Move,
        bonus: i32,
        malus: i32,
        quiets: &[Move],
        captures: &[Move],
    ) {
        let us = pos.side_to_move();
        if !is_tactical(pos, best) {
            let f = &mut self.stack[ply];
            if f.killers[0] != best {
                f.killers[1] = f.killers[0];
                f.killers[0] = best;
            }
            if ply > 0 {
                if let Some((pc, to)) = self.stack[ply - 1].piece_to {
                    self.hist.counter[pc][to] = best;
                }
            }
            self.quiet_bonus(us, ply, best, bonus);
            for &m in quiets {
                self.quiet_bonus(us, ply, m, -malus);
            }
        } else if let Some(c) = pos.piece_on(best.to()).kind_opt() {
            self.hist.update_capture(best, c, bonus);
        }
        for &m in captures {
            if let Some(c) = pos.piece_on(m.to()).kind_opt() {
                self.hist.update_capture(m, c, -malus);
            }
        }
    }

    fn quiet_bonus(&mut self, us: Color, ply: usize, m: Move, bonus: i32) {
        update(&mut self.hist.main[us.index()][from_index(m)][m.to().index()], bonus);
        let (pc, to) = (m.piece_after().index(), m.to().index());
        for back in 1..=2 {
            if ply >= back {
                if let Some((ppc, pto)) = self.stack[ply - back].piece_to {
                    self.hist.update_continuation(ppc, pto, pc, to, bonus);
                }
            }
        }
    }

    /// Quiescence search: captures and pawn promotions until the position is quiet (all
    /// evasions when in check).
    fn qsearch(
        &mut self,
        pos: &mut Position,
        shared: &Shared,
        mut alpha: Value,
        beta: Value,
        ply: usize,
        pv_node: bool,
    ) -> Value {
        if pv_node {
            self.pv[ply].clear();
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { 0 } else { self.static_eval(pos, ply) };
        }
        if let Some(v) = self.rule_value(pos, shared, ply) {
            return v;
        }
        // Below the root move's own reply, which still searches (and stores) its moves, so
        // that the line played has that reply for the ponder move.
        if ply >= 2 && self.hurried(shared) {
            return self.static_eval(pos, ply);
        }
        let key = pos.key();
        let tt = shared.tt.probe(key);
        let tt_value = tt.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        if let Some(d) = tt {
            if !pv_node && tt_cuts(d.bound, tt_value, alpha, beta) {
                return tt_value;
            }
        }
        let raw_stand_pat = if in_check {
            -VALUE_INFINITE
        } else if let Some(d) = tt.filter(|d| d.eval != VALUE_NONE && d.bound != Bound::None) {
            d.eval
        } else if let Some(v) = self.evaluator.lazy_cutoff(beta) {
            return v;
        } else {
            self.static_eval(pos, ply)
        };
        let static_eval =
            if in_check { raw_stand_pat } else { self.corrected(raw_stand_pat, pos, correction_keys(pos)) };
        // As in the main search, the table's value where it says more than the evaluation;
        // futility below still judges captures from the evaluation.
        let stand_pat = if !in_check && tt.is_some_and(|d| tt_refines(d.bound, tt_value, static_eval)) {
            tt_value
        } else {
            static_eval
        };
        if stand_pat >= beta {
            return stand_pat;
        }
        // At the horizon too, where only captures would follow: the mate threat a quiet move
        // left behind shows here. Not where standing pat already fails high (most quiescence
        // nodes): a mate would only fail higher.
        if !in_check && tt.is_none() {
            if let Some(v) = self.mate_in_1(pos, shared, ply, pv_node, 0) {
                return v;
            }
        }
        let mut best_value = stand_pat;
        alpha = alpha.max(stand_pat);
        let tt_move = tt.map_or(Move::NONE, |d| pos.move_from_u16(d.move16));
        let mut picker = MovePicker::new_qsearch(pos, tt_move);
        let mut best_move = Move::NONE;
        let mut move_count = 0;
        let tune = &shared.options.tune;
        let last = pos.last_move();
        let qs = QsPrune {
            in_check,
            recapture_to: (last != Move::NONE && last != Move::NULL).then(|| last.to()),
            futility_base: static_eval + tune.qs_futility,
            see_margin: tune.qs_see,
        };
        while let Some(m) = picker.next(pos, &self.hist) {
            move_count += 1;
            // Pruning in YaneuraOu's (and Stockfish's) shape, once the line is not lost.
            if best_value > -VALUE_MATE_IN_MAX_PLY {
                if let Some(bound) = qs.skips(pos, m, move_count, alpha) {
                    best_value = best_value.max(bound);
                    continue;
                }
            }
            self.make_move(pos, shared, ply, m);
            let v = -self.qsearch(pos, shared, -beta, -alpha, ply + 1, pv_node);
            self.unmake(pos, m);
            if self.stopped(shared) {
                return 0;
            }
            if v > best_value {
                best_value = v;
                if v > alpha {
                    best_move = m;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        // A hurried subtree's value is a guess: the table does not keep it (but the reply's).
        if ply < 2 || !self.hurried(shared) {
            let bound = if best_value >= beta { Bound::Lower } else { Bound::Upper };
            let stored_eval = if in_check { VALUE_NONE } else { raw_stand_pat };
            shared.tt.store(key, tt_entry(best_move, best_value, ply, stored_eval, 0, bound));
        }
        best_value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quiescence's pruning of `usi` in `sfen`, with the default margins and a level
    /// evaluation.
    fn qs_skips(sfen: &str, usi: &str, move_count: usize, recapture_to: Option<&str>, alpha: Value) -> Option<Value> {
        let pos = Position::from_sfen(sfen).unwrap();
        let m = pos.parse_usi_move(usi).unwrap();
        let qs = QsPrune {
            in_check: pos.in_check(),
            recapture_to: recapture_to.map(|sq| sq.parse().unwrap()),
            futility_base: Tune::DEFAULT.qs_futility,
            see_margin: Tune::DEFAULT.qs_see,
        };
        qs.skips(&pos, m, move_count, alpha)
    }

    #[test]
    fn the_quiescence_searches_two_captures_and_every_recapture_and_check() {
        // A rook and a lance can take loose pawns; another rook takes a gold with check.
        let pos = "4k4/9/2p1g1p2/9/9/9/2R1R4/9/4K1L2 b - 1";
        assert_eq!(qs_skips(pos, "7g7c+", 2, None, 0), None);
        assert_eq!(qs_skips(pos, "7g7c+", 3, None, 0), Some(-VALUE_INFINITE), "a third capture");
        assert_eq!(qs_skips(pos, "7g7c+", 3, Some("7c"), 0), None, "a recapture");
        assert_eq!(qs_skips(pos, "5g5c+", 9, None, 0), None, "a check");
        // Futility: a capture that cannot lift the evaluation to alpha is not searched, and
        // the node keeps what it could have scored.
        let board = Position::from_sfen(pos).unwrap();
        let gain = eval::move_gain(&board, board.parse_usi_move("3i3c+").unwrap());
        assert_eq!(qs_skips(pos, "3i3c+", 1, None, 3000), Some(Tune::DEFAULT.qs_futility + gain));
        // With alpha at the evaluation plus the margin, any gain (and no exchange loss) will do.
        assert_eq!(qs_skips(pos, "3i3c+", 1, None, Tune::DEFAULT.qs_futility), None);
    }

    #[test]
    fn the_quiescence_leaves_out_losing_exchanges_and_quiet_evasions() {
        // The rook would take a pawn the gold defends: even as a recapture, not searched.
        let pos = "4k4/2g6/2p6/9/9/9/2R6/9/4K4 b - 1";
        assert_eq!(qs_skips(pos, "7g7c", 1, Some("7c"), 0), Some(-VALUE_INFINITE));
        // In check, once one evasion has answered: the king takes, but does not step aside.
        let pos = "4k4/9/9/9/9/9/9/4r4/4K4 b - 1";
        assert_eq!(qs_skips(pos, "5i5h", 2, None, 0), None);
        assert_eq!(qs_skips(pos, "5i4i", 2, None, 0), Some(-VALUE_INFINITE));
    }

    #[test]
    fn the_table_refines_the_evaluation_only_on_the_side_its_bound_vouches_for() {
        // A lower bound above the evaluation, an upper bound below it, an exact value: better.
        assert!(tt_refines(Bound::Lower, 120, 100));
        assert!(tt_refines(Bound::Upper, 80, 100));
        assert!(tt_refines(Bound::Exact, 80, 100));
        assert!(tt_refines(Bound::Exact, 120, 100));
        // A bound on the other side says nothing the evaluation does not.
        assert!(!tt_refines(Bound::Lower, 80, 100));
        assert!(!tt_refines(Bound::Upper, 120, 100));
        assert!(!tt_refines(Bound::Lower, 100, 100));
        // No value, no bound, or a mate score (a proof, not an estimate): never.
        assert!(!tt_refines(Bound::None, 120, 100));
        assert!(!tt_refines(Bound::Exact, VALUE_NONE, 100));
        assert!(!tt_refines(Bound::Lower, mate_in(5), 100));
        assert!(!tt_refines(Bound::Upper, mated_in(5), 100));
    }
}
