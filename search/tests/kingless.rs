//! Tsume positions without the attacker's king: `go mate` (the df-pn solver) and the game
//! search (`go` with depth, nodes, time, MultiPV, infinite), with the classical evaluation and
//! with a net of each family.

#[path = "search_common.rs"]
mod common;

use common::*;
use engine::{generate_legal, MoveList, Position};
use search::{verify_line, BestMove, Limits, MateQuery, MateResult, Options, Score};
use std::sync::Arc;
use std::time::Duration;

/// ShogiHome's tsume start position: the attacker has nothing, so there is no mate.
const SHOGIHOME: &str = "4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1";
/// The mate in one (`G*5b`).
const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
/// YaneuraOu issue #107's position.
const YO107: &str = "7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1";

fn solve(sfen: &str) -> MateResult {
    let pos = Position::from_sfen(sfen).unwrap();
    MateQuery::new(16).time(Some(20_000)).solve(&pos, None).result
}

#[test]
fn go_mate_solves_tsume_without_the_attackers_king() {
    assert_eq!(solve(MATE1), MateResult::Mate(vec![mv(&sfen(MATE1), "G*5b")]));
    // A longer one: the df-pn line is legal, all checks, ends in mate, and is the shortest.
    let pos = sfen(YO107);
    match solve(YO107) {
        MateResult::Mate(line) => {
            assert!(verify_line(&pos, &line), "{line:?}");
            assert!(line.len() % 2 == 1);
        }
        other => panic!("{YO107}: {other:?}"),
    }
    assert_eq!(solve(SHOGIHOME), MateResult::NoMate);
    // The defender to move: nothing checks the missing king.
    assert_eq!(solve("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1"), MateResult::NoMate);
    // A pawn drop that would mate is still illegal: only the gold mates, and without it none.
    assert_eq!(solve("k8/2S6/1G7/9/9/9/9/9/9 b P2r2b3g3s4n4l17p 1"), MateResult::NoMate);
}

/// The game search on kingless positions plays a legal move whatever the limit, with each
/// evaluation: attacker to move, defender to move, defender in check.
#[test]
fn go_plays_a_legal_move() {
    let _guard = serial();
    let nets: Vec<Option<eval::Net>> = vec![
        None,
        Some(eval::Net::Kaname(Arc::new(eval::nnue::Network::from_quant(&eval::nnue::QuantNet::random(5))))),
        Some(eval::Net::Yo(Arc::new(eval::yo::YoNet::new(eval::yo::random::params(eval::yo::Shape::HALFKP_256, 6))))),
        Some(eval::Net::Yo(Arc::new(eval::yo::YoNet::new(eval::yo::random::params(eval::yo::Shape::KP_256, 7))))),
    ];
    let positions = [
        MATE1,
        YO107,
        "4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1",
        // The defender in check by a kingless attacker's rook.
        "4k4/9/9/9/9/9/9/9/4R4 w 2Gr2b2g4s4n4l18p 1",
        // Black's king only: White attacks, White to move.
        "9/9/9/9/9/9/4p4/9/4K4 w 2r2b4g4s4n4l17p 1",
    ];
    for net in nets {
        let mut s = searcher(&options());
        s.set_net(net);
        s.prepare();
        for text in positions {
            let pos = sfen(text);
            for limits in
                [Limits { depth: Some(6), ..Default::default() }, Limits { nodes: Some(20_000), ..Default::default() }]
            {
                let out = run(&mut s, &pos, limits);
                let m = out.best_move();
                assert!(line_is_legal(&pos, &[m]), "{text}: {m}");
                assert!(line_is_legal(&pos, &out.last_info().pv), "{text}: {:?}", out.last_info().pv);
            }
        }
    }
}

/// A timed `go` on YaneuraOu issue #107's position finds the mate and reports it as one.
#[test]
fn timed_go_on_yaneuraou_107() {
    let _guard = serial();
    let pos = sfen(YO107);
    let limits = Limits { time: [Some(0), Some(0)], byoyomi: [2000, 2000], ..Default::default() };
    let out = run(&mut searcher(&options()), &pos, limits);
    let BestMove::Move(m) = out.result.best else { panic!("{:?}", out.result) };
    let info = out.last_info();
    let Score::Mate(n) = info.score else { panic!("score {:?}", info.score) };
    assert!(n > 0, "mate {n}");
    assert_eq!(info.pv.first(), Some(&m));
    let mut p = pos.clone();
    for &mv in &info.pv {
        assert!(p.is_legal(mv), "{:?}", info.pv);
        p.do_move(mv);
    }
    assert!(!p.has_legal_move(), "PV {:?} does not end in mate", info.pv);
}

/// MultiPV lists distinct legal moves; `go infinite` runs until stopped and then plays a legal
/// move.
#[test]
fn multipv_and_infinite() {
    let _guard = serial();
    let pos = sfen("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1");
    let mut s = searcher(&Options { multipv: 3, ..options() });
    let out = run(&mut s, &pos, Limits { depth: Some(5), ..Default::default() });
    let mut firsts: Vec<_> =
        (1..=3).map(|k| out.infos.iter().rev().find(|i| i.multipv == k).expect("a line").pv[0]).collect();
    for &m in &firsts {
        assert!(line_is_legal(&pos, &[m]), "{m}");
    }
    firsts.sort_by_key(|m| m.raw());
    firsts.dedup();
    assert_eq!(firsts.len(), 3);

    let mut s = searcher(&options());
    let pos = sfen(YO107);
    let (drx, _irx, _) = start(&mut s, &pos, Limits { infinite: true, ..Default::default() });
    assert!(drx.recv_timeout(Duration::from_millis(300)).is_err(), "an infinite search ended by itself");
    s.stop();
    let (result, _) = drx.recv_timeout(Duration::from_secs(10)).expect("stopped search ends");
    s.wait();
    let BestMove::Move(m) = result.best else { panic!("{result:?}") };
    let mut legal = MoveList::new();
    generate_legal(&pos, &mut legal);
    assert!(legal.contains(m));
}
