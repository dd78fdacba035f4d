//! What a search reports, as the options `PvInterval`, `ConsiderationMode` and `OutputFailLHPV`
//! shape it. Fixed-depth and fixed-node searches with one thread and a fresh table are
//! deterministic, so these tests do not depend on the clock (the interval is either 0 or far
//! longer than any test).

#[path = "search_common.rs"]
mod common;

use common::*;
use engine::Position;
use search::{BestMove, Bound, Info, Limits, Options, Score};
use std::time::Duration;

/// Positions of `kaname bench` (aspiration windows fail in them).
const POSITIONS: &[&str] = &[
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
];

fn nodes(pos: &Position, n: u64, o: &Options) -> Outcome {
    let mut s = searcher(o);
    run(&mut s, pos, Limits { nodes: Some(n), ..Default::default() })
}

fn same_report(a: &Info, b: &Info) -> bool {
    (a.depth, a.multipv, a.score, a.bound, &a.pv) == (b.depth, b.multipv, b.score, b.bound, &b.pv)
}

#[test]
fn pv_interval_holds_back_all_but_the_last_report() {
    for s in POSITIONS {
        let pos = sfen(s);
        let every = search_depth(&pos, 8, &options());
        let held = search_depth(&pos, 8, &Options { pv_interval: 100_000_000, ..options() });
        assert!(every.infos.len() >= 8, "{s}: {} reports", every.infos.len());
        // Only the last PV, the one `bestmove` comes from, and it is the same search's.
        assert_eq!(held.infos.len(), 1, "{s}: {:?}", held.infos);
        assert!(same_report(every.infos.last().unwrap(), &held.infos[0]), "{s}");
        assert_eq!(held.infos[0].depth, 8);
        assert_eq!(every.result, held.result, "{s}");
    }
}

#[test]
fn pv_interval_does_not_apply_to_infinite_or_consideration_mode() {
    let pos = sfen(POSITIONS[0]);
    let o = Options { pv_interval: 100_000_000, consideration_mode: true, ..options() };
    let out = search_depth(&pos, 8, &o);
    assert!(out.infos.len() >= 8, "{} reports", out.infos.len());
    // `go infinite` with a depth limit ends by itself, then waits for stop.
    let o = Options { pv_interval: 100_000_000, ..options() };
    let mut s = searcher(&o);
    let (done, infos, _) = start(&mut s, &pos, Limits { infinite: true, depth: Some(8), ..Default::default() });
    let mut n = 0;
    while n < 8 {
        infos.recv_timeout(std::time::Duration::from_secs(30)).expect("a report per iteration");
        n += 1;
    }
    s.stop();
    done.recv_timeout(std::time::Duration::from_secs(30)).expect("a result after stop");
    s.wait();
}

#[test]
fn consideration_mode_continues_the_pv_from_the_table() {
    let mut longer = 0;
    for s in POSITIONS {
        let pos = sfen(s);
        for n in [30_000, 100_000, 300_000] {
            let plain = nodes(&pos, n, &options());
            let full = nodes(&pos, n, &Options { consideration_mode: true, ..options() });
            assert_eq!(plain.result, full.result, "{s} {n}: the search itself is the same");
            let (a, b) = (&plain.last_info().pv, &full.last_info().pv);
            assert!(b.len() >= a.len() && b[..a.len()] == a[..], "{s} {n}: {a:?} / {b:?}");
            assert!(line_is_legal(&pos, b), "{s} {n}: {b:?}");
            longer += usize::from(b.len() > a.len());
        }
    }
    // The table continues lines beyond where the search's PV ended.
    assert!(longer > 0, "no PV was continued from the table");
}

/// Every report of node-limited searches of `POSITIONS` (stopped at many points, so some stop
/// inside an aspiration re-search) with `o`.
fn reports(o: &Options) -> Vec<Info> {
    let mut all = Vec::new();
    for s in POSITIONS {
        let pos = sfen(s);
        for n in [30_000, 100_000, 300_000] {
            all.extend(nodes(&pos, n, o).infos);
        }
    }
    all
}

#[test]
fn output_fail_lh_pv_false_never_reports_a_bound() {
    // Consideration mode reports fail-highs and fail-lows at once (without it they wait 3 s).
    let shown = reports(&Options { consideration_mode: true, ..options() });
    let bounds = shown.iter().filter(|i| i.bound != Bound::Exact).count();
    assert!(bounds > 0, "no aspiration fail in {} reports: the control failed", shown.len());
    let hidden = reports(&Options { consideration_mode: true, output_fail_lh_pv: false, ..options() });
    assert!(hidden.iter().all(|i| i.bound == Bound::Exact), "{:?}", hidden.iter().find(|i| i.bound != Bound::Exact));
    // The fail-high/low reports are left out.
    assert!(hidden.len() < shown.len(), "{} vs {}", hidden.len(), shown.len());
}

#[test]
fn fail_reports_wait_three_seconds_outside_consideration_mode() {
    let shown = reports(&Options { consideration_mode: true, ..options() });
    let plain = reports(&options());
    // The fail reports of the consideration mode are missing.
    assert!(plain.len() < shown.len(), "{} vs {}", plain.len(), shown.len());
}

/// What a GUI records for the move (the last `multipv 1` report before the result) is the line
/// played: exact, its first move the best move, its second the ponder move, and whole (at least
/// two moves, unless the line ends the game).
fn check_last_report(pos: &Position, out: &Outcome, what: &str) {
    let last = out.last_info();
    assert_eq!(last.bound, Bound::Exact, "{what}: {last:?}");
    let BestMove::Move(best) = out.result.best else { panic!("{what}: {:?}", out.result) };
    assert_eq!(last.pv.first(), Some(&best), "{what}: {last:?}");
    if let Some(p) = out.result.ponder {
        assert_eq!(last.pv.get(1), Some(&p), "{what}: {last:?}");
    }
    assert!(line_is_legal(pos, &last.pv), "{what}: {last:?}");
    let ends_the_game = {
        let mut p = pos.clone();
        for &m in &last.pv {
            p.do_move(m);
        }
        !p.has_legal_move() || matches!(last.score, Score::Mate(n) if n.unsigned_abs() as usize <= last.pv.len())
    };
    assert!(last.pv.len() >= 2 || ends_the_game, "{what}: a short line {last:?}");
}

#[test]
fn the_last_report_is_the_completed_line_played() {
    let sets = [
        ("default", options()),
        ("OutputFailLHPV false", Options { output_fail_lh_pv: false, ..options() }),
        ("ConsiderationMode", Options { consideration_mode: true, ..options() }),
        ("PvInterval", Options { pv_interval: 100_000_000, ..options() }),
    ];
    let mut interrupted = 0;
    for (name, o) in &sets {
        for s in POSITIONS {
            let pos = sfen(s);
            for n in [7_000, 30_000, 100_000, 300_000] {
                let out = nodes(&pos, n, o);
                let what = format!("{name} {s} nodes {n}");
                check_last_report(&pos, &out, &what);
                // The last completed iteration's: no exact report of the first line went deeper.
                let last = out.last_info();
                let deepest = out.infos.iter().filter(|i| i.multipv == 1 && i.bound == Bound::Exact).map(|i| i.depth);
                assert_eq!(deepest.max(), Some(last.depth), "{what}");
                interrupted += usize::from(out.infos.iter().any(|i| i.depth > last.depth));
            }
        }
    }
    // Consideration mode prints the fail-highs and fail-lows of the iteration the node limit
    // interrupted: the searches above did stop inside iterations.
    assert!(interrupted > 0, "no search reported an iteration it did not complete");
}

/// A node limit cuts an iteration off. A move that beat the completed iteration's best in it,
/// with an exact score, is played and reported last (Stockfish and YaneuraOu play the cut-off
/// iteration's best too); otherwise the last completed iteration's line is. A search with a
/// fresh table and one thread is deterministic, so `go depth D` replays the node-limited
/// search's iteration D: the last line either is that iteration's, or is one ply deeper than
/// the last completed iteration and plays another move.
#[test]
fn a_move_found_better_in_the_cut_off_iteration_is_played() {
    // Two positions of same-net games against YaneuraOu where 20,000 nodes cut off an
    // iteration that had found another move better, beside bench's.
    const FOUND: &[&str] = &[
        "lnsg2snl/4k1g2/1ppp1p1pp/p1r3p2/7P1/2P3S1P/PPSPGPP2/3K1R3/LN3G1NL b BPbp 31",
        "1n2bk1nl/l1Pg2g2/2sp+Nps1p/6pp1/p1G2G3/1P1P1P1RP/4P1P2/2+b1K4/6SNL b RPsl4p 69",
    ];
    let o = options();
    let mut adopted = 0;
    let mut searches = 0;
    for s in POSITIONS.iter().chain(FOUND) {
        let pos = sfen(s);
        for n in [7_000, 20_000, 40_000, 80_000, 150_000] {
            let out = nodes(&pos, n, &o);
            let what = format!("{s} nodes {n}");
            check_last_report(&pos, &out, &what);
            searches += 1;
            let last = out.last_info().clone();
            let replay = search_depth(&pos, last.depth, &o);
            if same_report(replay.last_info(), &last) {
                assert_eq!(replay.best_move(), out.best_move(), "{what}");
                continue;
            }
            // Not iteration `last.depth` completed: the one before it was, and the cut-off
            // one found this move better.
            let completed = search_depth(&pos, last.depth - 1, &o);
            assert_ne!(completed.best_move(), out.best_move(), "{what}: {last:?}");
            assert_eq!(last.bound, Bound::Exact, "{what}");
            adopted += 1;
        }
    }
    assert!(adopted > 0, "no move of a cut-off iteration played in {searches} searches");
    eprintln!("{adopted} of {searches} searches played a move of the iteration the limit cut off");
}

#[test]
fn stop_at_once_still_ends_on_a_completed_line() {
    let pos = sfen(POSITIONS[1]);
    for limits in [
        Limits { infinite: true, ..Default::default() },
        Limits { ponder: true, byoyomi: [1000; 2], time: [Some(0); 2], ..Default::default() },
        Limits { nodes: Some(1), ..Default::default() },
    ] {
        let mut s = searcher(&options());
        let (done, infos, _) = start(&mut s, &pos, limits.clone());
        s.stop();
        let (result, _) = done.recv_timeout(Duration::from_secs(30)).expect("a result after stop");
        s.wait();
        let out = Outcome { infos: infos.try_iter().collect(), result, elapsed: Duration::ZERO };
        // The first root move is always scored: there is a line to report and play.
        check_last_report(&pos, &out, &format!("{limits:?}"));
        assert!(out.last_info().depth >= 1);
    }
}

#[test]
fn multipv_under_infinite_prints_each_depths_lines_once() {
    let pos = sfen(POSITIONS[0]);
    // Consideration mode reports aspiration fails at once: the failing line alone, as a bound.
    let plain = Options { multipv: 3, ..options() };
    let consideration = Options { consideration_mode: true, ..plain.clone() };
    let mut fails = 0;
    for (o, depth) in [(&plain, Some(7)), (&plain, None), (&consideration, Some(9)), (&consideration, None)] {
        let mut s = searcher(o);
        let (done, infos, _) = start(&mut s, &pos, Limits { infinite: true, depth, ..Default::default() });
        std::thread::sleep(Duration::from_millis(400));
        s.stop();
        let (result, _) = done.recv_timeout(Duration::from_secs(30)).expect("a result after stop");
        s.wait();
        let out = Outcome { infos: infos.try_iter().collect(), result, elapsed: Duration::ZERO };
        fails += out.infos.iter().filter(|i| i.bound != Bound::Exact).count();
        let mut seen = std::collections::HashSet::new();
        for i in out.infos.iter().filter(|i| i.bound == Bound::Exact) {
            assert!(
                seen.insert((i.depth, i.multipv)),
                "depth {} multipv {} printed twice: {:?}",
                i.depth,
                i.multipv,
                out.infos
            );
        }
        // Every depth has its three lines, best first, the last of them the line played.
        let last_depth = out.infos.last().unwrap().depth;
        for d in 1..=last_depth {
            assert!((1..=3).all(|k| seen.contains(&(d, k))), "depth {d}: {:?}", out.infos);
        }
        let tail = &out.infos[out.infos.len() - 3..];
        assert_eq!(tail.iter().map(|i| i.multipv).collect::<Vec<_>>(), [1, 2, 3]);
        check_last_report(&pos, &out, &format!("multipv 3 infinite depth {depth:?} {o:?}"));
    }
    assert!(fails > 0, "control: no aspiration fail reported in consideration mode");
}

#[test]
fn two_threads_end_on_the_voted_threads_line() {
    let _serial = serial();
    let o = Options { threads: 2, ..options() };
    for s in POSITIONS {
        let pos = sfen(s);
        for movetime in [60, 250] {
            let mut searcher = searcher(&o);
            let out = run(&mut searcher, &pos, Limits { movetime: Some(movetime), ..Default::default() });
            check_last_report(&pos, &out, &format!("threads 2 movetime {movetime} {s}"));
        }
    }
}
