//! What a search reports, as the options `PvInterval`, `ConsiderationMode` and `OutputFailLHPV`
//! shape it. Fixed-depth and fixed-node searches with one thread and a fresh table are
//! deterministic, so these tests do not depend on the clock (the interval is either 0 or far
//! longer than any test).

#[path = "search_common.rs"]
mod common;

use common::*;
use engine::Position;
use search::{Bound, Info, Limits, Options};

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
    // A search stopped in a fail-high's re-search has a PV of a move or two: the table
    // continues it.
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
    // The fail-high/low reports are left out (a last report stopped in a re-search stays, with
    // the previous iteration's score).
    assert!(hidden.len() < shown.len(), "{} vs {}", hidden.len(), shown.len());
}

#[test]
fn fail_reports_wait_three_seconds_outside_consideration_mode() {
    let shown = reports(&Options { consideration_mode: true, ..options() });
    let plain = reports(&options());
    // The fail reports of the consideration mode are missing; a search stopped within a
    // re-search still ends with its bound (the last report is always sent).
    assert!(plain.len() < shown.len(), "{} vs {}", plain.len(), shown.len());
}
