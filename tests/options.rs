//! End-to-end tests of the options that shape what the engine prints and plays, through the
//! built binary: `PvInterval`, `ConsiderationMode`, `OutputFailLHPV`, `DrawValueBlack` /
//! `DrawValueWhite`, the `EnteringKingRule` variants, `RoundUpToFullSecond` and
//! `Stochastic_Ponder`. Searches limited by depth or nodes with one thread after `usinewgame`
//! are deterministic, so most checks do not depend on the clock; the one that does
//! (`RoundUpToFullSecond`) compares a second against a few milliseconds.

mod common;

use common::{errors, Engine, LIVE};
use engine::{EnteringKingRule, Position};
use std::time::{Duration, Instant};

/// Positions of `kaname bench` with tactics (aspiration windows fail in them).
const POSITIONS: &[&str] = &[
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
];

/// The `info ... pv` lines among `lines`.
fn pv_lines(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.starts_with("info depth ") && l.contains(" pv ")).collect()
}

/// The moves of an `info ... pv` line.
fn pv_of(line: &str) -> Vec<String> {
    line.split(" pv ").nth(1).unwrap_or("").split_whitespace().map(str::to_string).collect()
}

/// The `score cp N` of an `info` line.
fn cp_of(line: &str) -> Option<i32> {
    let t: Vec<&str> = line.split_whitespace().collect();
    t.windows(3).find(|w| w[0] == "score" && w[1] == "cp").map(|w| w[2].parse().unwrap())
}

fn has_bound(line: &str) -> bool {
    line.split_whitespace().any(|t| t == "lowerbound" || t == "upperbound")
}

/// Whether `moves` are legal one after another from `pos`.
fn legal_line(pos: &Position, moves: &[String]) -> bool {
    let mut p = pos.clone();
    moves.iter().all(|m| match p.parse_usi_move(m) {
        Ok(mv) => {
            p.do_move(mv);
            true
        }
        Err(_) => false,
    })
}

/// Reads up to the first line starting with `prefix` (a whole word); returns the lines since
/// the previous wait, that one last.
fn lines_until(e: &mut Engine, prefix: &str) -> Vec<String> {
    let (last, mut lines) = e.expect(prefix, LIVE);
    lines.push(last);
    lines
}

/// A ready engine with `setoption`s applied.
fn engine_with(options: &[(&str, &str)]) -> Engine {
    let mut e = Engine::ready();
    for (name, value) in options {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.sync();
    e
}

/// Sends `position` and `go`, waits for `bestmove` (checked) and returns every line of the
/// search, `bestmove` last.
fn search(e: &mut Engine, position: &str, go: &str) -> Vec<String> {
    e.send(position);
    e.send(go);
    let (best, mut lines) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    lines.push(best);
    lines
}

/// The lines of a node-limited search of each of `POSITIONS` from a cleared table, for each
/// node budget, with `options`.
fn searches(options: &[(&str, &str)], budgets: &[u64]) -> Vec<Vec<String>> {
    let mut e = engine_with(options);
    let mut all = Vec::new();
    for s in POSITIONS {
        for n in budgets {
            e.send("usinewgame");
            all.push(search(&mut e, &format!("position sfen {s}"), &format!("go nodes {n}")));
        }
    }
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    all
}

#[test]
fn pv_interval_prints_fewer_lines_but_always_the_last() {
    let go = "go depth 8";
    let pos = format!("position sfen {}", POSITIONS[0]);
    let mut e = engine_with(&[("PvInterval", "0")]);
    let every = search(&mut e, &pos, go);
    e.finish();
    // Far longer than the search: only the PV before `bestmove` is printed.
    let mut e = engine_with(&[("PvInterval", "100000000")]);
    let held = search(&mut e, &pos, go);
    e.finish();
    let (a, b) = (pv_lines(&every), pv_lines(&held));
    assert!(a.len() >= 8, "PvInterval 0 printed {} PV lines: {every:?}", a.len());
    assert_eq!(b.len(), 1, "{held:?}");
    // The same search: the same last line (time and speed aside) and move.
    let strip = |l: &str| l.split(" time ").next().unwrap().to_string() + " pv " + &pv_of(l).join(" ");
    assert_eq!(strip(a[a.len() - 1]), strip(b[0]));
    assert!(b[0].starts_with("info depth 8 "), "{}", b[0]);
    assert_eq!(every.last(), held.last());
    // `go infinite` (analysis) is never held back.
    let mut e = engine_with(&[("PvInterval", "100000000")]);
    e.send(&pos);
    e.send("go infinite depth 6");
    let lines = lines_until(&mut e, "info depth 6");
    assert!(pv_lines(&lines).len() >= 6, "{lines:?}");
    e.send("stop");
    e.expect_bestmove(LIVE);
    e.finish();
}

#[test]
fn output_fail_lh_pv_false_never_prints_a_bound() {
    // Consideration mode prints every aspiration fail at once (otherwise only after 3 s).
    let budgets = [30_000, 100_000, 300_000];
    let shown = searches(&[("ConsiderationMode", "true")], &budgets);
    let bounds = shown.iter().flatten().filter(|l| l.starts_with("info depth") && has_bound(l)).count();
    assert!(bounds > 0, "control: no fail-high or fail-low printed at all");
    let hidden = searches(&[("ConsiderationMode", "true"), ("OutputFailLHPV", "false")], &budgets);
    for lines in &hidden {
        assert!(!lines.iter().any(|l| has_bound(l)), "{lines:?}");
    }
    // The same searches, the same moves; the fail-high/low lines are left out.
    for (a, b) in shown.iter().zip(&hidden) {
        assert_eq!(a.last(), b.last());
    }
    let count = |all: &[Vec<String>]| all.iter().map(|l| pv_lines(l).len()).sum::<usize>();
    assert!(count(&hidden) < count(&shown), "{} vs {}", count(&hidden), count(&shown));
    // Whether or not bounds are printed, a search ends on an exact line (the last completed
    // iteration's): what a GUI records for the move. In consideration mode the searches above
    // did print bounds of iterations they did not complete.
    let plain = searches(&[], &budgets);
    let quiet = searches(&[("OutputFailLHPV", "false")], &budgets);
    for lines in shown.iter().chain(&plain).chain(&quiet) {
        assert!(!has_bound(pv_lines(lines).last().unwrap()), "{lines:?}");
    }
    for lines in &quiet {
        assert!(!lines.iter().any(|l| has_bound(l)), "{lines:?}");
    }
}

#[test]
fn consideration_mode_prints_full_pvs_and_every_fail() {
    let budgets = [30_000, 100_000, 300_000];
    let plain = searches(&[], &budgets);
    let full = searches(&[("ConsiderationMode", "true"), ("PvInterval", "100000000")], &budgets);
    let mut longer = 0;
    for ((a, b), (s, n)) in
        plain.iter().zip(&full).zip(POSITIONS.iter().flat_map(|s| budgets.iter().map(move |n| (s, n))))
    {
        assert_eq!(a.last(), b.last(), "{s} {n}: the same search");
        // The PVs are legal and continue the plain ones.
        let pos = Position::from_sfen(s).unwrap();
        let (pa, pb) = (pv_of(pv_lines(a).last().unwrap()), pv_of(pv_lines(b).last().unwrap()));
        assert!(pb.len() >= pa.len() && pb[..pa.len()] == pa[..], "{s} {n}: {pa:?} / {pb:?}");
        assert!(legal_line(&pos, &pb), "{s} {n}: {pb:?}");
        longer += usize::from(pb.len() > pa.len());
        // Every iteration is printed although PvInterval is huge, and the fails on top.
        assert!(pv_lines(b).len() >= pv_lines(a).len(), "{s} {n}");
    }
    assert!(longer > 0, "no PV was continued from the hash table");
    let (na, nb) =
        (plain.iter().map(|l| pv_lines(l).len()).sum::<usize>(), full.iter().map(|l| pv_lines(l).len()).sum::<usize>());
    assert!(nb > na, "consideration mode printed {nb} PV lines, plain {na}");
}

/// Black has only king and rook; White has R B B G G S S in hand: Black is lost, and the
/// shuffle below lets Black repeat the position a fourth time with 1h3h (a draw).
const LOSING: &str = "position sfen 4k4/9/9/9/9/9/9/7R1/4K4 b rb2g2s 1 moves \
                      2h3h 5a6a 3h2h 6a5a 2h3h 5a6a 3h2h 6a5a 2h3h 5a6a 3h1h 6a5a";
/// The same turned round: White lost, 9b7b draws.
const LOSING_WHITE: &str = "position sfen 4k4/1r7/9/9/9/9/9/9/4K4 w RB2G2S 1 moves \
                            8b7b 5i4i 7b8b 4i5i 8b7b 5i4i 7b8b 4i5i 8b7b 5i4i 7b9b 4i5i";

#[test]
fn draw_values_score_the_repetition_for_the_engines_side() {
    let mut e = engine_with(&[("DrawValueBlack", "-37"), ("DrawValueWhite", "55")]);
    let lines = search(&mut e, LOSING, "go depth 5");
    assert_eq!(lines.last().unwrap().split_whitespace().nth(1), Some("1h3h"), "{lines:?}");
    assert_eq!(cp_of(pv_lines(&lines).last().unwrap()), Some(-37), "{lines:?}");
    e.send("usinewgame");
    let lines = search(&mut e, LOSING_WHITE, "go depth 5");
    assert_eq!(lines.last().unwrap().split_whitespace().nth(1), Some("9b7b"), "{lines:?}");
    assert_eq!(cp_of(pv_lines(&lines).last().unwrap()), Some(55), "{lines:?}");
    // `DrawValue`, the earlier option, sets both (it is accepted, not declared).
    e.send("setoption name DrawValue value 11");
    e.send("usinewgame");
    let lines = search(&mut e, LOSING, "go depth 5");
    assert_eq!(cp_of(pv_lines(&lines).last().unwrap()), Some(11), "{lines:?}");
    e.send("usinewgame");
    let lines = search(&mut e, LOSING_WHITE, "go depth 5");
    assert_eq!(cp_of(pv_lines(&lines).last().unwrap()), Some(11), "{lines:?}");
    // Out of range: clamped and reported.
    e.send("setoption name DrawValueWhite value 99999");
    e.sync();
    let lines = e.finish();
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("DrawValueWhite") && errs[0].contains("30000"), "{errs:?}");
}

/// Black's king next to 5a with a mate in one in hand (G*9b): without the try rule the engine
/// mates; under it the try wins first, and `bestmove` is the king's move (not `win`).
const TRY_OR_MATE: &str = "position sfen k8/4K4/P8/9/9/9/9/9/9 b G 1";
/// White's king next to 5i.
const TRY_WHITE: &str = "position sfen 9/9/9/9/9/9/9/4k4/8K w - 1";
/// A two-piece handicap: White (no rook or bishop) declares with 17 points under CSARule27H.
const HANDICAP_DECLARATION: &str = "position sfen 9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w 2n2l3p 1";

#[test]
fn entering_king_rules_try_and_handicap() {
    let mut e = engine_with(&[]);
    let go = "go btime 0 wtime 0 byoyomi 1000";
    let mate = search(&mut e, TRY_OR_MATE, go);
    assert_eq!(mate.last().unwrap().split_whitespace().nth(1), Some("G*9b"), "{mate:?}");
    assert!(search(&mut e, HANDICAP_DECLARATION, go).last().unwrap() != "bestmove win");
    e.send("setoption name EnteringKingRule value TryRule");
    e.entering_king_rule = EnteringKingRule::Try;
    assert_eq!(search(&mut e, TRY_OR_MATE, go).last().unwrap(), "bestmove 5b5a");
    assert_eq!(search(&mut e, TRY_WHITE, go).last().unwrap(), "bestmove 5h5i");
    // Under go ponder the try waits for ponderhit, like every answer.
    e.send(TRY_OR_MATE);
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    let quiet = e.collect_for(Duration::from_millis(300));
    assert!(!quiet.iter().any(|l| l.starts_with("bestmove")), "{quiet:?}");
    e.send("ponderhit");
    assert_eq!(e.expect_bestmove(LIVE), "bestmove 5b5a");
    e.send("setoption name EnteringKingRule value csarule27h");
    e.entering_king_rule = EnteringKingRule::Csa27H;
    assert_eq!(search(&mut e, HANDICAP_DECLARATION, go).last().unwrap(), "bestmove win");
    e.send("setoption name EnteringKingRule value CSARule24H");
    assert!(search(&mut e, HANDICAP_DECLARATION, go).last().unwrap() != "bestmove win");
    e.send("setoption name EnteringKingRule value CSARule28");
    e.sync();
    let lines = e.finish();
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("TryRule"), "{errs:?}");
}

#[test]
fn round_up_to_full_second_thinks_to_the_second() {
    // With a second's lag (NetworkDelay 999) and a tiny optimum (SlowMover 1), rounding makes
    // the engine think to the end of its first whole second (the 1000 ms floor too); without
    // it, it stops after its first iterations. The clock counts whole seconds: on a millisecond
    // clock (a byoyomi of 100 ms) nothing is rounded and the floor is the clock's share.
    let clock = [("NetworkDelay", "999"), ("NetworkDelay2", "0"), ("SlowMover", "1")];
    let go = "go btime 10000 wtime 10000 byoyomi 1000";
    let timed = |round: &str| {
        let mut options = clock.to_vec();
        options.push(("RoundUpToFullSecond", round));
        let mut e = engine_with(&options);
        e.send("position startpos");
        let t = Instant::now();
        e.send(go);
        e.expect_bestmove(LIVE);
        let ms = t.elapsed().as_millis();
        e.finish();
        ms
    };
    let (on, off) = (timed("true"), timed("false"));
    println!("RoundUpToFullSecond true: {on} ms, false: {off} ms");
    assert!(on >= 950, "rounded up: {on} ms");
    assert!(off < 700, "not rounded: {off} ms");
}

#[test]
fn stochastic_ponder_searches_the_position_before_the_expected_move() {
    let full = "position startpos moves 7g7f 3c3d";
    let mut before = Position::startpos();
    before.do_move(before.parse_usi_move("7g7f").unwrap());
    let go = "go ponder btime 0 wtime 0 byoyomi 1000";
    let mut e = engine_with(&[("USI_Ponder", "true"), ("Stochastic_Ponder", "true")]);
    // Hit: the search of the position before 3c3d prints White's moves; ponderhit ends it
    // without a bestmove and the position sent is searched afresh.
    e.send(full);
    e.send(go);
    let pondered = lines_until(&mut e, "info depth 4");
    assert!(!pondered.iter().any(|l| l.starts_with("bestmove")), "{pondered:?}");
    for l in pv_lines(&pondered) {
        assert!(legal_line(&before, &pv_of(l)), "not a line of the position before 3c3d: {l}");
    }
    e.send("ponderhit");
    let (best, after) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    let last = pv_lines(&after).last().copied().cloned().unwrap_or_default();
    assert!(legal_line(&e.pos, &pv_of(&last)), "the last PV is not of the position sent: {last}");
    assert_eq!(pv_of(&last).first().map(String::as_str), best.split_whitespace().nth(1), "{after:?}");
    // Miss: stop; the bestmove is the one of the position searched (White's), which the GUI
    // discards.
    e.send(full);
    e.send(go);
    lines_until(&mut e, "info depth 3");
    e.send("stop");
    let (best, _) = e.expect("bestmove", LIVE);
    let m = best.split_whitespace().nth(1).unwrap().to_string();
    assert!(legal_line(&before, &[m]), "{best}");
    // Without the option the ponder search is of the position sent.
    e.send("setoption name Stochastic_Ponder value false");
    e.send(full);
    e.send(go);
    let pondered = lines_until(&mut e, "info depth 3");
    for l in pv_lines(&pondered) {
        assert!(legal_line(&e.pos, &pv_of(l)), "{l}");
    }
    e.send("ponderhit");
    e.expect_bestmove(LIVE);
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
}

#[test]
fn stochastic_ponder_edge_cases() {
    let mut e = engine_with(&[("USI_Ponder", "true"), ("Stochastic_Ponder", "true")]);
    // No move to take back: an ordinary ponder of the position sent.
    e.send("position startpos");
    e.send("go ponder btime 0 wtime 0 byoyomi 300");
    let pondered = lines_until(&mut e, "info depth 3");
    for l in pv_lines(&pondered) {
        assert!(legal_line(&e.pos, &pv_of(l)), "{l}");
    }
    e.send("ponderhit");
    e.expect_bestmove(LIVE);
    // The position sent is decided (the try): the ponder search runs on the position before,
    // ponderhit answers with the try at once.
    e.send("setoption name EnteringKingRule value TryRule");
    e.entering_king_rule = EnteringKingRule::Try;
    e.send("position sfen k8/9/4K4/9/9/9/9/9/9 b - 1 moves 5c5b 9a9b");
    e.send("go ponder btime 0 wtime 0 byoyomi 300");
    std::thread::sleep(Duration::from_millis(200));
    e.send("ponderhit");
    assert_eq!(e.expect_bestmove(LIVE), "bestmove 5b5a");
    // YaneuraOu's ponderhit with a clock: the new search keeps to it.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 60000");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("ponderhit btime 0 wtime 0 byoyomi 500");
    e.expect_bestmove(LIVE);
    assert!(t.elapsed() < Duration::from_secs(10), "the ponderhit's clock was not used: {:?}", t.elapsed());
    // Gameover while pondering: one bestmove, then a new game.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 300");
    std::thread::sleep(Duration::from_millis(100));
    e.send("gameover lose");
    e.expect("bestmove", LIVE);
    e.sync();
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
}

#[test]
fn bad_values_are_reported() {
    let mut e = engine_with(&[]);
    for (cmd, what) in [
        ("setoption name PvInterval value -5", "PvInterval"),
        ("setoption name ConsiderationMode value yes", "ConsiderationMode"),
        ("setoption name OutputFailLHPV value 1", "OutputFailLHPV"),
        ("setoption name RoundUpToFullSecond value", "RoundUpToFullSecond"),
        ("setoption name Stochastic_Ponder value on", "Stochastic_Ponder"),
        ("setoption name DrawValueBlack value draw", "DrawValueBlack"),
    ] {
        e.send(cmd);
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        let errs = errors(&lines);
        assert_eq!(errs.len(), 1, "{cmd}: {lines:?}");
        assert!(errs[0].contains(what), "{cmd}: {errs:?}");
    }
    // The session goes on (PvInterval clamped to 0, the others as they were).
    e.send("position startpos");
    e.go("go depth 3");
    e.finish();
}
