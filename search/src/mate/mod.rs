//! The mate solver behind `go mate`, and mate-in-one for the game search.
//!
//! `MateQuery::solve` runs df-pn (`dfpn.rs`) over checking moves, then shortens the mate it found by
//! searching again below its length until that is disproved, and finally reads a mating line
//! from the table in which the attacker mates as fast as possible and the defender resists as
//! long as possible. Every line it returns has been replayed: legal moves, every attacker move
//! a check, the last position checkmate.

mod dfpn;
mod proof;
mod tt;

use dfpn::{Outcome, Solver, MAX_PLY};
use engine::{find_mate_in_1, generate, generate_checks, GenKind, Move, MoveList, Position};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The length limit of the first search.
const FIRST_LIMIT: u16 = 31;

/// The answer to `go mate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A mating line from the root: every attacker move checks, the last position is mate.
    Mate(Vec<Move>),
    /// Proved: no mate exists.
    NoMate,
    /// Not decided within the limit (or stopped).
    Timeout,
    /// The solver does not play this game: Sho shogi (no hands for its proof pieces, two
    /// royals); USI's `checkmate notimplemented`.
    NotImplemented,
}

/// Progress of the mate solver, for `info` lines.
#[derive(Clone, Copy, Debug)]
pub struct MateProgress {
    /// Nodes searched so far.
    pub nodes: u64,
    /// Milliseconds since the start.
    pub time_ms: u64,
}

/// A question for the mate solver: how much table, how much time or how many nodes, whether
/// the line must be the shortest, and a flag that ends the search early. Every caller (`go
/// mate`, the game search's root probe, the benchmarks) asks through this one type.
#[derive(Clone, Copy, Debug)]
pub struct MateQuery<'a> {
    /// Table size in MiB.
    pub hash_mb: usize,
    /// Milliseconds allowed; `None`: no time limit.
    pub time_ms: Option<u64>,
    /// Nodes allowed for the search proper (proving the mate shortest and reading the line may
    /// take as many again); `None`: no node limit.
    pub max_nodes: Option<u64>,
    /// Prove the mate shortest before reading the line (else the first mate proved is read).
    pub shortest: bool,
    /// Set from outside to end the search at once (the answer is then `Timeout`).
    pub stop: Option<&'a AtomicBool>,
}

impl<'a> MateQuery<'a> {
    /// The shortest mate with a table of `hash_mb` MiB, no time or node limit, no stop flag.
    pub fn new(hash_mb: usize) -> MateQuery<'a> {
        MateQuery { hash_mb, time_ms: None, max_nodes: None, shortest: true, stop: None }
    }

    /// Limits the search to `time_ms` milliseconds (`None`: no limit).
    pub fn time(self, time_ms: Option<u64>) -> MateQuery<'a> {
        MateQuery { time_ms, ..self }
    }

    /// Limits the search proper to about `max_nodes` nodes.
    pub fn nodes(self, max_nodes: u64) -> MateQuery<'a> {
        MateQuery { max_nodes: Some(max_nodes), ..self }
    }

    /// Reads the first mate proved instead of proving the shortest.
    pub fn first_found(self) -> MateQuery<'a> {
        MateQuery { shortest: false, ..self }
    }

    /// Ends the search as soon as `stop` is set.
    pub fn stop(self, stop: &'a AtomicBool) -> MateQuery<'a> {
        MateQuery { stop: Some(stop), ..self }
    }

    /// Searches for a forced mate by the side to move in `pos`, calling `progress` about once
    /// a second. A `Mate` line is always a real mate (replayed), the shortest when
    /// `shortest` and the limits allowed proving it.
    pub fn solve<'p>(&self, pos: &Position, progress: Option<&'p mut (dyn FnMut(MateProgress) + 'p)>) -> MateReport
    where
        'a: 'p,
    {
        if !pos.variant().desc().drops {
            return MateReport { result: MateResult::NotImplemented, nodes: 0, shortest: false };
        }
        let mut solver = Solver::new(self.hash_mb);
        solver.stop = self.stop;
        solver.progress = progress;
        solver.reset_counters();
        solver.deadline = self.time_ms.map(|t| Instant::now() + Duration::from_millis(t));
        solver.max_nodes = self.max_nodes.unwrap_or(u64::MAX);
        let mut pos = pos.clone();
        let (result, shortest) = run(&mut solver, &mut pos, self.shortest);
        MateReport { result, nodes: solver.nodes, shortest }
    }
}

/// What `MateQuery::solve` found, with the work it took.
#[derive(Clone, Debug)]
pub struct MateReport {
    /// The answer.
    pub result: MateResult,
    /// Nodes searched (all phases).
    pub nodes: u64,
    /// Whether a `Mate` line is proved to be the shortest.
    pub shortest: bool,
}

/// The three phases: prove, shorten, read the line.
fn run(solver: &mut Solver, pos: &mut Position, shortest: bool) -> (MateResult, bool) {
    let mut checks = MoveList::new();
    generate_checks(pos, &mut checks);
    if checks.is_empty() {
        return (MateResult::NoMate, false);
    }
    solver.set_path(0, pos.key());
    // Deep chases of the king that lead nowhere drown a df-pn without a length limit, so the
    // limit grows: 31 plies, then 63, 127, ... up to the guard. A disproof under a limit only
    // says "no mate that short" (the table keeps it as such); only one that holds at every
    // length answers NoMate.
    let mut limit = FIRST_LIMIT;
    let o = loop {
        let o = solver.search_or(pos, 0, limit);
        if o.pn == 0 || solver.aborted || o.nomate == tt::INF_DEPTH || limit >= MAX_PLY {
            break o;
        }
        limit = (limit * 2 + 1).min(MAX_PLY);
    };
    if o.pn != 0 {
        return if o.dn == 0 && o.nomate == tt::INF_DEPTH {
            (MateResult::NoMate, false)
        } else {
            (MateResult::Timeout, false)
        };
    }
    let mut len = o.mate_len;
    let mut exact = len == 1;
    if shortest {
        while len >= 3 && !solver.aborted {
            let o: Outcome = solver.search_or(pos, 0, len - 2);
            if o.pn == 0 {
                len = o.mate_len;
                exact = len == 1;
            } else if o.dn == 0 {
                exact = true;
                break;
            }
        }
    }
    // Reading the line needs a few more (small) searches; allow them even when the budget
    // of the search proper is spent, but never past a stop request.
    solver.aborted = false;
    solver.max_nodes = solver.max_nodes.saturating_add(solver.nodes.max(200_000));
    if let Some(d) = solver.deadline {
        solver.deadline = Some(d.max(Instant::now()) + Duration::from_millis(solver.elapsed_ms() / 4 + 50));
    }
    match extract_line(solver, pos, len, exact) {
        Some(line) if verify_line(pos, &line) => (MateResult::Mate(line), exact),
        _ => (MateResult::Timeout, false),
    }
}

/// Reads a mating line of at most `len` plies: at OR nodes a check proved to mate within the
/// remaining length, at AND nodes, when `len` is `exact`, an evasion after which no shorter
/// mate exists (so the line is as long as the defender can make it), else the evasion with the
/// longest proof in the table.
fn extract_line(solver: &mut Solver, pos: &mut Position, len: u16, exact: bool) -> Option<Vec<Move>> {
    let mut line = Vec::new();
    let mut d = len;
    let result = loop {
        // Attacker to move, mate within d.
        solver.set_path(line.len(), pos.key());
        let mut checks = MoveList::new();
        generate_checks(pos, &mut checks);
        let us = pos.side_to_move();
        let mut order: Vec<(u32, u16, Move)> = checks
            .iter()
            .map(|&m| {
                let (pn, _, ml) = solver.probe_child(pos, m, us, d - 1);
                (pn, ml, m)
            })
            .collect();
        order.sort_by_key(|&(pn, ml, _)| (pn != 0, ml, pn));
        let mut chosen = None;
        for &(pn, ml, m) in &order {
            if pn == 0 {
                chosen = Some((m, ml));
                break;
            }
            pos.do_move(m);
            let o = solver.search_and(pos, line.len() + 1, d - 1);
            pos.undo_move(m);
            if o.pn == 0 {
                chosen = Some((m, o.mate_len));
                break;
            }
            if solver.aborted {
                break;
            }
        }
        let Some((m, ml)) = chosen else { break None };
        pos.do_move(m);
        line.push(m);
        d = ml.min(d - 1);
        // Defender to move, mated within d.
        solver.set_path(line.len(), pos.key());
        let mut evasions = MoveList::new();
        generate(pos, GenKind::All, &mut evasions);
        if evasions.is_empty() {
            break Some(());
        }
        if d < 2 {
            break None;
        }
        let them = !pos.side_to_move();
        // Evasions, the longest known proofs first.
        let mut order: Vec<(u16, Move)> = evasions
            .iter()
            .map(|&e| {
                let (pn, _, ml) = solver.probe_child(pos, e, them, d - 1);
                (if pn == 0 { ml } else { 0 }, e)
            })
            .collect();
        order.sort_by_key(|&(ml, _)| std::cmp::Reverse(ml));
        let mut chosen = None;
        while chosen.is_none() {
            if d < 4 || !exact {
                chosen = Some(order[0].1);
                break;
            }
            // An evasion after which there is no mate within d - 3.
            for &(_, e) in &order {
                let (_, dn, _) = solver.probe_child(pos, e, them, d - 3);
                if dn == 0 {
                    chosen = Some(e);
                    break;
                }
            }
            if chosen.is_some() {
                break;
            }
            for &(_, e) in &order {
                pos.do_move(e);
                let o = solver.search_or(pos, line.len() + 1, d - 3);
                pos.undo_move(e);
                if o.dn == 0 {
                    chosen = Some(e);
                    break;
                }
                if solver.aborted {
                    break;
                }
            }
            if solver.aborted {
                break;
            }
            if chosen.is_none() {
                d -= 2; // every evasion is mated sooner: the bound was not tight here
            }
        }
        let Some(e) = chosen else { break None };
        pos.do_move(e);
        line.push(e);
        d -= 1;
        if d == 0 {
            break None;
        }
    };
    for &m in line.iter().rev() {
        pos.undo_move(m);
    }
    result.map(|_| line)
}

/// Replays `line` from `pos`: legal moves, every attacker move a check, ending in checkmate.
pub fn verify_line(pos: &Position, line: &[Move]) -> bool {
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if !p.is_legal(m) {
            return false;
        }
        if i % 2 == 0 && !p.gives_check(m) {
            return false;
        }
        p.do_move(m);
    }
    line.len() % 2 == 1 && !p.has_legal_move()
}

/// A mate in one for the side to move, if there is one (any checking move after which the
/// opponent has no legal move; pawn-drop mate excluded by the rules).
pub fn mate_in_1(pos: &mut Position) -> Option<Move> {
    find_mate_in_1(pos).0
}
