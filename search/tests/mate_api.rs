//! The mate solver's contract on small hand-made positions: mate_in_1, NoMate cases, the
//! attacker in check, the stop flag and progress reports.

use engine::{generate, GenKind, MoveList, Position};
use search::{mate_in_1, verify_line, MateQuery, MateResult};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn solve(sfen: &str) -> MateResult {
    let pos = Position::from_sfen(sfen).unwrap();
    let stop = AtomicBool::new(false);
    MateQuery::new(16).time(Some(10_000)).stop(&stop).solve(&pos, Some(&mut |_| {})).result
}

fn mate_len(sfen: &str) -> usize {
    let pos = Position::from_sfen(sfen).unwrap();
    match solve(sfen) {
        MateResult::Mate(line) => {
            assert!(verify_line(&pos, &line), "{sfen}: bad line {line:?}");
            line.len()
        }
        r => panic!("{sfen}: expected a mate, got {r:?}"),
    }
}

#[test]
fn mate_in_one_found_and_checked() {
    for sfen in ["4k4/9/4P4/9/9/9/9/9/4K4 b G 1", "k8/9/1G7/9/9/9/9/9/8K b G 1", "8k/6G2/9/9/8b/9/9/9/4K3R b - 1"] {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let m = mate_in_1(&mut pos).unwrap_or_else(|| panic!("{sfen}: no mate in 1"));
        assert!(verify_line(&pos, &[m]), "{sfen}: {m}");
        assert_eq!(mate_len(sfen), 1);
    }
    // Only a pawn drop would mate, and that is illegal (uchifuzume).
    for sfen in ["k8/2S6/1G7/9/9/9/9/9/8K b P 1", "7lk/7p1/7G1/9/9/9/9/9/K8 b P 1"] {
        let mut pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(mate_in_1(&mut pos), None, "{sfen}");
    }
    let mut pos = Position::startpos();
    assert_eq!(mate_in_1(&mut pos), None);
}

#[test]
fn mate_in_one_agrees_with_brute_force() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt")).unwrap();
    let mut found = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).step_by(5) {
        let Ok(mut pos) = Position::from_sfen(line.split('\t').next().unwrap()) else { continue };
        let mut all = MoveList::new();
        generate(&pos, GenKind::All, &mut all);
        let brute = all.iter().any(|&m| {
            pos.do_move(m);
            let mated = !pos.has_legal_move();
            pos.undo_move(m);
            mated
        });
        let fast = mate_in_1(&mut pos);
        assert_eq!(fast.is_some(), brute, "{line}");
        if let Some(m) = fast {
            assert!(verify_line(&pos, &[m]));
            found += 1;
        }
    }
    assert!(found > 50, "only {found} mates in 1");
}

#[test]
fn no_mate_cases() {
    // No check at all, pawn-drop mate only, a pawn check the king escapes, a mate that
    // needs a gold the attacker lacks, the start position.
    for sfen in [
        "4k4/9/9/9/9/9/9/9/4K4 b - 1",
        "k8/2S6/1G7/9/9/9/9/9/8K b P 1",
        "7lk/7p1/7G1/9/9/9/9/9/K8 b P 1",
        "k8/9/1G7/9/9/9/9/9/8K b P 1",
        "4k4/9/4P4/9/9/9/9/9/4K4 b S 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ] {
        assert_eq!(solve(sfen), MateResult::NoMate, "{sfen}");
    }
}

#[test]
fn attacker_in_check() {
    // The only evasion that checks mates (the rook takes the checking bishop).
    assert_eq!(mate_len("8k/6G2/9/9/8b/9/9/9/4K3R b - 1"), 1);
    // In check from an adjacent rook, no evasion checks: no mate.
    assert_eq!(solve("4k4/9/4P4/9/9/9/9/4r4/4K4 b G 1"), MateResult::NoMate);
}

#[test]
fn stop_flag_is_obeyed() {
    // A big middlegame position with many checks: stop it after 50 ms.
    let pos = Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1").unwrap();
    let stop = AtomicBool::new(false);
    let t = Instant::now();
    let mut reports = 0;
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let r = MateQuery::new(16).stop(&stop).solve(&pos, Some(&mut |_| reports += 1)).result;
        assert!(matches!(r, MateResult::Timeout | MateResult::Mate(_) | MateResult::NoMate));
    });
    assert!(t.elapsed().as_millis() < 1000, "took {:?}", t.elapsed());
}

#[test]
fn time_limit_and_progress() {
    // No mate here but a long search: with 1.3 s the solver reports about once a second.
    let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b RB 1").unwrap();
    let stop = AtomicBool::new(false);
    let t = Instant::now();
    let mut reports = Vec::new();
    let r = MateQuery::new(16).time(Some(1300)).stop(&stop).solve(&pos, Some(&mut |p| reports.push(p.time_ms))).result;
    let ms = t.elapsed().as_millis();
    if r == MateResult::Timeout {
        assert!((1200..2500).contains(&ms), "took {ms} ms");
        assert!(!reports.is_empty(), "no progress report");
    }
}

#[test]
fn shortest_mate_with_a_shared_table() {
    // Searches at several length limits share one table; a proof stored at one limit once
    // leaked a too-short length into a later one (mate 7 claimed, minimum 9: exact search in
    // scripts/gen_tsume.py).
    let sfen = "4g1s2/3+S5/1+B5k1/1B3+R3/5K3/p2G3+r1/4+l4/2Nl+n4/3g3N+l b G2SN7P10p 196";
    let pos = Position::from_sfen(sfen).unwrap();
    let rep = MateQuery::new(16).nodes(1_000_000).solve(&pos, None);
    match rep.result {
        MateResult::Mate(line) => {
            assert!(verify_line(&pos, &line));
            assert_eq!(line.len(), 9, "{line:?}");
            assert!(rep.shortest);
        }
        r => panic!("{r:?}"),
    }
}
