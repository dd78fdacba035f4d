//! Lazy SMP and the root of a search: the root checks every `go` needs (no legal move, a
//! declaration, a quick mate), then every thread searching the same root with its own
//! histories over the shared transposition table, the main thread reporting and watching the
//! clock; the move played comes from a vote weighted by score and completed depth.

use crate::mate::{MateQuery, MateResult};
use crate::protocol::{BestMove, Bound, Info, InfoSink, Limits, Options, Score, SearchResult};
use crate::report::report_lines;
use crate::search::Worker;
use crate::shared::{Control, Shared};
use crate::tt::TranspositionTable;
use crate::types::*;
use engine::{generate_legal, EnteringKingRule, Move, MoveList, Position, Repetition};
use parking_lot::{Mutex, RwLock};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The result a `go` gets without searching: the root checks every search makes first. With
/// no legal move the side to move has lost (`BestMove::Resign`); when it wins by rule at once,
/// under a point rule it declares (`BestMove::Win`, `bestmove win`), under the try rule it
/// plays the try itself, the king's move (YaneuraOu answers both so).
pub fn immediate_result(pos: &Position, rule: EnteringKingRule) -> Option<SearchResult> {
    if !pos.has_legal_move() {
        return Some(SearchResult { best: BestMove::Resign, ponder: None });
    }
    if !pos.declaration_win(rule) {
        return None;
    }
    let best = match rule {
        EnteringKingRule::Try => BestMove::Move(pos.try_move()?),
        _ => BestMove::Win,
    };
    Some(SearchResult { best, ponder: None })
}

/// The `info` line of a result `immediate_result` gave, so that a GUI records a score for it
/// too: a win by rule is `score mate 1` (YaneuraOu's score for it), with the try as its line
/// under the try rule and no line for a declaration (`win` is not a move: ShogiGUI shows
/// nothing for a line holding such a word). `None` for a resignation (no legal move).
pub fn immediate_info(result: &SearchResult) -> Option<Info> {
    let pv = match result.best {
        BestMove::Resign => return None,
        BestMove::Win => Vec::new(),
        BestMove::Move(m) => vec![m],
    };
    Some(Info {
        depth: 1,
        seldepth: 1,
        multipv: 1,
        score: Score::Mate(1),
        bound: Bound::Exact,
        time_ms: 0,
        nodes: 0,
        nps: 0,
        hashfull: 0,
        pv,
    })
}

/// The whole search of one `go`: root checks (`immediate_result`, a quick mate), the threads,
/// the resign decision and the ponder move.
pub fn search_root(
    pos: &Position,
    limits: &Limits,
    options: &Options,
    tt: &TranspositionTable,
    workers: &Mutex<Vec<Worker>>,
    control: &Control,
    mut on_info: InfoSink,
) -> SearchResult {
    if let Some(result) = immediate_result(pos, options.entering_king_rule) {
        if let Some(info) = immediate_info(&result) {
            on_info(info);
        }
        return result;
    }
    let mut legal = MoveList::new();
    generate_legal(pos, &mut legal);
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
    let shared = Shared::new(tt, options, limits, control, pos, root_moves.len(), workers.len()).with_sink(on_info);
    let best = run(&mut workers, pos, &root_moves, &shared);
    let w = &workers[best];
    // The last report: the lines of the move played, unless the main thread's report of them
    // was the last one sent (its time and nodes are then those of the iteration's end).
    if !(w.id == 0 && shared.completed_reported()) {
        let nodes = workers.iter().map(|w| w.nodes).sum();
        report_lines(&shared, &w.completed, nodes);
    }
    let Some(line) = w.completed.first() else {
        // Not reached: the first root move is always scored (`Worker::stopped`). The old answer, just in case.
        let rm = &w.root_moves[0];
        return SearchResult { best: BestMove::Move(rm.mv), ponder: None };
    };
    if line.score <= -options.resign_value && options.resign_value < 99999 {
        return SearchResult { best: BestMove::Resign, ponder: None };
    }
    let best_move = line.pv[0];
    let mut after = pos.clone();
    after.do_move(best_move);
    let ponder = line.pv.get(1).copied().filter(|&m| after.is_legal(m));
    SearchResult { best: BestMove::Move(best_move), ponder }
}

/// The mate table of the root probe: its budget is at most 100,000 nodes.
const ROOT_MATE_HASH_MB: usize = 4;

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
    let report = MateQuery::new(ROOT_MATE_HASH_MB).nodes(nodes).stop(stop).solve(pos, None);
    let MateResult::Mate(line) = report.result else { return None };
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

/// Runs all workers on `pos` until the search ends; returns the index of the worker whose
/// best move is chosen.
pub fn run(workers: &mut [Worker], pos: &Position, root_moves: &[Move], shared: &Shared) -> usize {
    for w in workers.iter_mut() {
        w.reset(pos, root_moves);
    }
    let (main, helpers) = workers.split_first_mut().expect("at least one worker");
    let threads = helpers.len() + 1;
    // The helpers start together, once all are spawned (the gate is held shut meanwhile): a
    // helper that searched at once would take a core from the thread still spawning the
    // others, and with many more threads than cores (`Threads 256` on 2) spawning them took up
    // to 9 s (2026-12-07); behind the gate it takes milliseconds.
    let gate = RwLock::new(());
    std::thread::scope(|s| {
        // Without its watchdog the clock is still kept by the main thread's own checks.
        let watchdog = std::thread::Builder::new().spawn_scoped(s, || shared.watch_clock()).ok();
        let shut = gate.write();
        for (i, w) in helpers.iter_mut().enumerate() {
            let gate = &gate;
            let spawned = std::thread::Builder::new().stack_size(SEARCH_STACK_BYTES).spawn_scoped(s, move || {
                drop(gate.read());
                // Cloned by the helper itself, so its position and state stack live in its
                // own memory, not next to the main thread's.
                let mut p = pos.clone();
                w.iterate(&mut p, shared)
            });
            // A thread the machine cannot start (no memory for its stack) is left out, and
            // the search goes on with those that started: a panic here would leave them
            // searching with no one to stop them, and the `go` without its `bestmove`.
            if let Err(e) = spawned {
                log::warn!("searching with {} of {threads} threads: no more could be started ({e})", i + 1);
                break;
            }
        }
        drop(shut);
        let mut p = pos.clone();
        main.iterate(&mut p, shared);
        shared.stop();
        if let Some(watchdog) = watchdog {
            watchdog.thread().unpark();
        }
    });
    pick_best(workers, shared)
}

/// The vote over the threads' last completed iterations: each thread backs its best move with
/// weight (score - min + 14) * depth; the move with most support wins, the deepest thread
/// backing it supplies the line. Mates win outright, the shortest first.
fn pick_best(workers: &[Worker], shared: &Shared) -> usize {
    if workers.len() == 1 || shared.options.multipv > 1 || shared.limits.depth.is_some() {
        return 0;
    }
    let usable: Vec<usize> = (0..workers.len()).filter(|&i| !workers[i].completed.is_empty()).collect();
    if usable.is_empty() {
        return 0;
    }
    let line = |i: usize| &workers[i].completed[0];
    let min = usable.iter().map(|&i| line(i).score).min().unwrap_or(0);
    let mut votes: std::collections::HashMap<Move, i64> = std::collections::HashMap::new();
    for &i in &usable {
        let l = line(i);
        *votes.entry(l.pv[0]).or_default() += (l.score - min + 14) as i64 * workers[i].completed_depth as i64;
    }
    let mut best = usable[0];
    for &i in &usable[1..] {
        let (b, c) = (line(best), line(i));
        let better = if b.score >= VALUE_MATE_IN_MAX_PLY || c.score >= VALUE_MATE_IN_MAX_PLY {
            c.score > b.score
        } else {
            votes[&c.pv[0]] > votes[&b.pv[0]] || (votes[&c.pv[0]] == votes[&b.pv[0]] && c.pv.len() > b.pv.len())
        };
        if better {
            best = i;
        }
    }
    best
}
