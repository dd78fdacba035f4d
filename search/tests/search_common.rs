//! Helpers shared by the `search_*` integration tests (included with `#[path]`): run one
//! search through the public `Searcher` API and collect its infos and result.

#![allow(dead_code)]

use engine::{generate_legal, Move, MoveList, Position};
use search::{Info, Limits, Options, Score, SearchResult, Searcher};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Everything one search reported.
pub struct Outcome {
    /// All infos, in the order they were sent.
    pub infos: Vec<Info>,
    /// The result (exactly one).
    pub result: SearchResult,
    /// Wall time from `start` to `on_done`.
    pub elapsed: Duration,
}

impl Outcome {
    /// The last info of the first PV line.
    pub fn last_info(&self) -> &Info {
        self.infos.iter().rev().find(|i| i.multipv == 1).expect("no info with multipv 1")
    }

    /// The score of the last info of the first PV line.
    pub fn score(&self) -> Score {
        self.last_info().score
    }

    /// The best move, panicking on resign/win.
    pub fn best_move(&self) -> Move {
        match self.result.best {
            search::BestMove::Move(m) => m,
            other => panic!("expected a move, got {other:?}"),
        }
    }
}

/// Serialises the tests of one binary that read the clock. Cargo runs a binary's tests in
/// parallel; on a 2-core CI machine a dozen searches (some with two threads) at once starve the
/// one being timed, and a 1 s byoyomi test overran by 152 ms (CI, 2026-11-23) while the engine's
/// own margin is `NetworkDelay2`, 150 ms. Hold the guard for the whole test.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Small, test-friendly options: 16 MiB hash, one thread.
pub fn options() -> Options {
    Options { hash_mb: 16, threads: 1, ..Options::default() }
}

/// A prepared searcher with `options`.
pub fn searcher(options: &Options) -> Searcher {
    let mut s = Searcher::new();
    s.set_options(options);
    s.prepare();
    s
}

/// Starts a search; returns the result channel (with arrival times), the info channel and the
/// start time.
pub fn start(
    s: &mut Searcher,
    pos: &Position,
    limits: Limits,
) -> (mpsc::Receiver<(SearchResult, Instant)>, mpsc::Receiver<Info>, Instant) {
    let (itx, irx) = mpsc::channel();
    let (dtx, drx) = mpsc::channel();
    let t0 = Instant::now();
    s.start(
        pos.clone(),
        limits,
        Box::new(move |i| {
            let _ = itx.send(i);
        }),
        Box::new(move |r| {
            let _ = dtx.send((r, Instant::now()));
        }),
    );
    (drx, irx, t0)
}

/// Runs one search to completion (it must end by itself within 30 s).
pub fn run(s: &mut Searcher, pos: &Position, limits: Limits) -> Outcome {
    let (drx, irx, t0) = start(s, pos, limits);
    let (result, at) = drx.recv_timeout(Duration::from_secs(30)).expect("search did not end within 30 s");
    s.wait();
    assert!(drx.try_recv().is_err(), "more than one result");
    let infos: Vec<Info> = irx.try_iter().collect();
    Outcome { infos, result, elapsed: at - t0 }
}

/// A depth-limited search with `options`.
pub fn search_depth(pos: &Position, depth: i32, options: &Options) -> Outcome {
    let mut s = searcher(options);
    run(&mut s, pos, Limits { depth: Some(depth), ..Default::default() })
}

/// A position from an SFEN (panics on error).
pub fn sfen(text: &str) -> Position {
    Position::from_sfen(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// Plays USI moves on `pos` (each must be legal).
pub fn play(pos: &mut Position, moves: &[&str]) {
    for m in moves {
        let mv = pos.parse_usi_move(m).unwrap_or_else(|e| panic!("{m} in {}: {e:?}", pos.to_sfen()));
        pos.do_move(mv);
    }
}

/// A legal move of `pos` from its USI text.
pub fn mv(pos: &Position, text: &str) -> Move {
    pos.parse_usi_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e:?}", pos.to_sfen()))
}

/// Whether `m` mates at once.
pub fn is_mating(pos: &Position, m: Move) -> bool {
    let mut p = pos.clone();
    p.do_move(m);
    !p.has_legal_move()
}

/// Whether `line` is a sequence of legal moves from `pos`.
pub fn line_is_legal(pos: &Position, line: &[Move]) -> bool {
    let mut p = pos.clone();
    for &m in line {
        let mut legal = MoveList::new();
        generate_legal(&p, &mut legal);
        if !legal.contains(m) {
            return false;
        }
        p.do_move(m);
    }
    true
}
