//! The search plays by shogi's rules: it finds short mates and reports them as mate scores,
//! resigns with no legal move, declares entering-king wins, and scores repetitions, perpetual
//! checks and the move limit correctly. All positions were checked with cshogi 1.1.0.

#[path = "search_common.rs"]
mod common;

use common::*;
use engine::{EnteringKingRule, Position, Repetition};
use search::{BestMove, Limits, Options, Score};

/// Mate in one (the side to move mates): every mating move is acceptable.
const MATE_IN_1: &[&str] = &[
    "4k4/9/4P4/9/9/9/9/9/4K4 b G 1",
    "k8/9/1G7/9/9/9/9/9/8K b G 1",
    // From tests/data/tsume.txt (cshogi playouts), both colours.
    "1r1S3pk/1+B7/1s1s4G/2p2gp2/pK3B1G1/3l3N1/3pl4/1P3G1P1/1N1L3+r1 b N8Psnl3p 229",
    "p2+P1+L1sk/1g4n2/1s1pppp1+P/1n5p1/1sB3PG1/6lP1/3N3+sn/2+R1+p4/2g+b4K w L3Prgl4p 190",
    "3p+S4/n5+b1+N/1p4p2/1l3+R2G/1spk4P/1P2P1Pp1/+p1PGKP2L/1g4G2/9 b 6P 178",
];

/// Minimal mate length 3 (no mate in one), from tests/data/tsume.txt.
const MATE_IN_3: &[&str] = &[
    "sb3p3/1s1PR3+P/g2G+N1k1+L/p1+P6/4P4/P1N2nG1L/2+b5P/+s5P2/g4N1KS b RL7P2p 220",
    "2p2S+N1p/l6P1/k2p1g2+L/1P2p4/B4PP2/1G7/PG1P+n2p+s/L2S3RS/G3N1KN1 w RB7Pl 188",
    "2s6/4gp2s/+P1n4k1/L1p2K1pp/1p5N1/2P2P3/n1Gp1G3/R8/B+n7 b S7Psl2p 130",
];

/// The side to move is mated in two plies whatever it does (one legal move each, both
/// checked by brute force): the positions after the first move of two MATE_IN_3 solutions.
const MATED_IN_2: &[&str] = &[
    "2s6/4gp2s/+P1n3+Nk1/L1p2K1pp/1p7/2P2P3/n1Gp1G3/R8/B+n7 w S7Psl2p 131",
    "2p2S+N1p/l6P1/k2p1g2+L/1P2p4/B4PP2/1G7/PG1P+n3+s/L2S3+pS/G3N1KN1 b RB7Prl 189",
];

#[test]
fn mate_in_one_is_played_and_scored_mate_1() {
    for s in MATE_IN_1 {
        let pos = sfen(s);
        let out = search_depth(&pos, 4, &options());
        let m = out.best_move();
        assert!(is_mating(&pos, m), "{s}: best move {m} does not mate");
        assert_eq!(out.score(), Score::Mate(1), "{s}");
        assert_eq!(out.last_info().pv.first(), Some(&m), "{s}: PV does not start with the best move");
    }
}

#[test]
fn mate_in_three_is_scored_mate_3() {
    for s in MATE_IN_3 {
        let pos = sfen(s);
        for depth in [5, 7] {
            let out = search_depth(&pos, depth, &options());
            assert_eq!(out.score(), Score::Mate(3), "{s} depth {depth}");
            let pv = &out.last_info().pv;
            assert!(pv.len() >= 3 && line_is_legal(&pos, pv), "{s}: PV {pv:?}");
            // The PV's third move mates.
            let mut p = pos.clone();
            p.do_move(pv[0]);
            p.do_move(pv[1]);
            assert!(is_mating(&p, pv[2]), "{s}: PV {pv:?} does not end in mate");
        }
    }
}

#[test]
fn being_mated_in_two_plies_is_scored_mate_minus_2() {
    for s in MATED_IN_2 {
        let pos = sfen(s);
        let out = search_depth(&pos, 6, &options());
        assert_eq!(out.score(), Score::Mate(-2), "{s}");
        assert!(matches!(out.result.best, BestMove::Move(_)), "{s}: {:?}", out.result);
    }
}

#[test]
fn no_legal_move_resigns() {
    // White is checkmated (gold on 5b backed by the pawn on 5c).
    let pos = sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1");
    assert!(!pos.has_legal_move());
    let out = search_depth(&pos, 5, &options());
    assert_eq!(out.result.best, BestMove::Resign);
    assert_eq!(out.result.ponder, None);
}

/// Black: king 5b in the camp with R R B B G G G G S S (10 pieces, 26 points) and 2 pawns in
/// hand: 28 points, exactly enough for Black under the 27-point rule.
const DECLARE_BLACK: &str = "RRBB5/GGGGK4/SS7/9/9/9/9/9/8k b 2P 1";
/// The same with one pawn: 27 points, one short.
const DECLARE_BLACK_SHORT: &str = "RRBB5/GGGGK4/SS7/9/9/9/9/9/8k b P 1";
/// White's mirror with 27 points (enough for White).
const DECLARE_WHITE: &str = "8K/9/9/9/9/9/ss7/ggggk4/rrbb5 w p 1";

#[test]
fn declaration_position_wins_under_csa27() {
    for s in [DECLARE_BLACK, DECLARE_WHITE] {
        let pos = sfen(s);
        assert!(pos.declaration_win(EnteringKingRule::Csa27), "{s}: fixture is not a declaration win");
        assert!(!pos.in_check());
        let out = search_depth(&pos, 3, &options());
        assert_eq!(out.result.best, BestMove::Win, "{s}");
    }
}

#[test]
fn no_declaration_without_the_rule_or_the_points() {
    let pos = sfen(DECLARE_BLACK);
    for rule in [EnteringKingRule::None, EnteringKingRule::Csa24] {
        assert!(!pos.declaration_win(rule));
        let o = Options { entering_king_rule: rule, ..options() };
        let out = search_depth(&pos, 3, &o);
        assert!(matches!(out.result.best, BestMove::Move(_)), "{rule:?}: {:?}", out.result);
    }
    let pos = sfen(DECLARE_BLACK_SHORT);
    assert!(!pos.declaration_win(EnteringKingRule::Csa27));
    let out = search_depth(&pos, 3, &options());
    assert!(matches!(out.result.best, BestMove::Move(_)), "{:?}", out.result);
}

#[test]
fn handicap_rules_declare_for_white_with_fewer_points() {
    // A two-piece handicap (no white rook or bishop): White's 17 points win under CSARule27H
    // (27 less the 10 missing points), not under CSARule27.
    let pos = sfen("9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w 2n2l3p 1");
    let o = Options { entering_king_rule: EnteringKingRule::Csa27H, ..options() };
    assert_eq!(search_depth(&pos, 3, &o).result.best, BestMove::Win);
    let out = search_depth(&pos, 3, &options());
    assert!(matches!(out.result.best, BestMove::Move(_)), "{:?}", out.result);
}

/// Black's king next to 5a, White's far away: under the try rule Black wins by 5b5a.
const TRY_BLACK: &str = "9/4K4/9/9/9/9/9/9/k8 b - 1";
/// Black's king two steps from 5a: a try in three plies (5c-5b, any reply, 5b-5a).
const TRY_BLACK_IN_3: &str = "9/9/4K4/9/9/9/9/9/k8 b - 1";
/// The same for White, towards 5i.
const TRY_WHITE_IN_3: &str = "8K/9/9/9/9/9/4k4/9/9 w - 1";

#[test]
fn the_try_is_played_at_the_root() {
    let pos = sfen(TRY_BLACK);
    let o = Options { entering_king_rule: EnteringKingRule::Try, ..options() };
    let out = search_depth(&pos, 3, &o);
    assert_eq!(out.result.best, BestMove::Move(mv(&pos, "5b5a")));
    assert_eq!(search::immediate_result(&pos, EnteringKingRule::Try), Some(out.result));
    // Under a point rule a lone king has nothing to declare.
    assert_eq!(search::immediate_result(&pos, EnteringKingRule::Csa27), None);
    assert!(matches!(search_depth(&pos, 3, &options()).result.best, BestMove::Move(_)));
}

#[test]
fn the_search_sees_tries_ahead() {
    for s in [TRY_BLACK_IN_3, TRY_WHITE_IN_3] {
        let pos = sfen(s);
        let o = Options { entering_king_rule: EnteringKingRule::Try, ..options() };
        let out = search_depth(&pos, 4, &o);
        assert_eq!(out.score(), Score::Mate(3), "{s}");
        let mut after = pos.clone();
        after.do_move(out.best_move());
        assert!(after.king_square(pos.side_to_move()).in_zone(pos.side_to_move()), "{s}: {}", out.best_move());
        // Bare kings under CSARule27: nothing to win.
        let out = search_depth(&pos, 4, &options());
        assert!(matches!(out.score(), Score::Cp(_)), "{s}: {:?}", out.score());
    }
}

/// Black has only king and rook; White has R B B G G S S in hand: Black is lost.
const LOSING: &str = "4k4/9/9/9/9/9/9/7R1/4K4 b rb2g2s 1";
/// Black has everything in hand: Black is winning.
const WINNING: &str = "4k4/9/9/9/9/9/9/7R1/4K4 b RB2G2Sl 1";

/// Quiet shuffles (no checks): the position after Black's 2h3h (White to move) occurs at
/// plies 1, 5 and 9; the root (rook on 1h, Black to move) is new, and 1h3h would make that
/// position occur the fourth time: sennichite, a draw.
const SHUFFLE: &[&str] =
    &["2h3h", "5a6a", "3h2h", "6a5a", "2h3h", "5a6a", "3h2h", "6a5a", "2h3h", "5a6a", "3h1h", "6a5a"];

fn shuffled(base: &str) -> Position {
    let mut pos = sfen(base);
    play(&mut pos, SHUFFLE);
    pos
}

#[test]
fn lost_side_takes_the_fourfold_repetition_draw() {
    let pos = shuffled(LOSING);
    let draw = mv(&pos, "1h3h");
    // Without the history the position is simply lost.
    let fresh = search_depth(&sfen(&pos.to_sfen()), 5, &options());
    match fresh.score() {
        Score::Cp(v) => assert!(v < -500, "fixture is not lost: {v}"),
        Score::Mate(n) => assert!(n < 0, "fixture is not lost: mate {n}"),
    }
    for draw_value in [-2, -37, 0] {
        // The engine plays Black: DrawValueBlack counts, DrawValueWhite not at all.
        let o = Options { draw_value_black: draw_value, draw_value_white: 555, ..options() };
        let out = search_depth(&pos, 5, &o);
        assert_eq!(out.best_move(), draw, "draw value {draw_value}");
        assert_eq!(out.score(), Score::Cp(draw_value), "draw value {draw_value}");
    }
}

/// `LOSING` turned round: White has king and rook, Black everything in hand, White to move.
const LOSING_WHITE: &str = "4k4/1r7/9/9/9/9/9/9/4K4 w RB2G2S 1";
/// `SHUFFLE` turned round.
const SHUFFLE_WHITE: &[&str] =
    &["8b7b", "5i4i", "7b8b", "4i5i", "8b7b", "5i4i", "7b8b", "4i5i", "8b7b", "5i4i", "7b9b", "4i5i"];

#[test]
fn the_draw_value_is_the_root_sides() {
    let mut pos = sfen(LOSING_WHITE);
    play(&mut pos, SHUFFLE_WHITE);
    let draw = mv(&pos, "9b7b");
    for (black, white) in [(-2, -2), (555, -37), (-37, 40)] {
        let o = Options { draw_value_black: black, draw_value_white: white, ..options() };
        let out = search_depth(&pos, 5, &o);
        assert_eq!(out.best_move(), draw, "{black} {white}");
        assert_eq!(out.score(), Score::Cp(white), "{black} {white}");
    }
    assert_eq!(Options { draw_value_black: 1, draw_value_white: 2, ..options() }.draw_value(engine::Color::White), 2);
}

#[test]
fn winning_side_avoids_the_fourfold_repetition_draw() {
    let pos = shuffled(WINNING);
    let draw = mv(&pos, "1h3h");
    let out = search_depth(&pos, 5, &options());
    assert_ne!(out.best_move(), draw);
    match out.score() {
        Score::Cp(v) => assert!(v > 300, "{v}"),
        Score::Mate(n) => assert!(n > 0, "mate {n}"),
    }
}

/// Black's rook checks White's king back and forth (every Black move is check). The position
/// after Black's 5h4h+ (White to move, king 4a, rook 4h) occurs at plies 3, 7 and 11; the root
/// (rook 3h, king 4a, Black to move) is new, and 3h4h+ would repeat it a fourth time with
/// Black checking throughout: perpetual check, which loses for Black.
const PERPETUAL_BASE: &str = "4k4/9/9/9/9/9/9/5R3/4K4 b rb2g2s 1";
const PERPETUAL: &[&str] =
    &["4h5h", "5a4a", "5h4h", "4a5a", "4h5h", "5a4a", "5h4h", "4a5a", "4h5h", "5a4a", "5h4h", "4a3a", "4h3h", "3a4a"];

#[test]
fn perpetual_check_is_a_loss_not_a_draw() {
    let mut pos = sfen(PERPETUAL_BASE);
    play(&mut pos, PERPETUAL);
    let perpetual = mv(&pos, "3h4h");
    assert!(pos.gives_check(perpetual));
    let out = search_depth(&pos, 5, &options());
    assert_ne!(out.best_move(), perpetual, "played into a perpetual check");
    assert_ne!(out.score(), Score::Cp(-2), "scored as a draw");
    match out.score() {
        Score::Cp(v) => assert!(v < -300, "{v}"),
        Score::Mate(n) => assert!(n < 0, "mate {n}"),
    }
}

#[test]
fn move_limit_scores_the_game_as_a_draw() {
    // The lost position at game ply 100: with MaxMovesToDraw 100 every reply is past the
    // limit, so the game is a draw whatever Black plays.
    let pos = sfen("4k4/9/9/9/9/9/9/7R1/4K4 b rb2g2s 100");
    assert_eq!(pos.game_ply(), 100);
    let unlimited = search_depth(&pos, 5, &options());
    assert_ne!(unlimited.score(), Score::Cp(-2));
    for draw_value in [-2, -37] {
        let o = Options { max_moves_to_draw: 100, draw_value_black: draw_value, ..options() };
        let out = search_depth(&pos, 5, &o);
        assert_eq!(out.score(), Score::Cp(draw_value), "draw value {draw_value}");
    }
    // A limit far away changes nothing.
    let o = Options { max_moves_to_draw: 1000, ..options() };
    let far = search_depth(&pos, 5, &o);
    assert_eq!(far.score(), unlimited.score());
}

#[test]
fn searchmoves_can_exclude_the_mate() {
    let pos = sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    let only = vec![mv(&pos, "G*4b"), mv(&pos, "5i5h")];
    let mut s = searcher(&options());
    let out = run(&mut s, &pos, Limits { depth: Some(4), searchmoves: only.clone(), ..Default::default() });
    let best = out.best_move();
    assert!(only.contains(&best), "{best} not in searchmoves");
    assert_ne!(out.score(), Score::Mate(1));
}

/// A 12-ply cycle (rook 1h-2h-3h-4h-4g-1g-1h, king 5a-6a-7a-7b-6b-5b-5a, no checks) played twice
/// and then almost a third time: the position after 1h2h (rook 2h, king 5a, White to move)
/// occurred at plies 1, 13 and 25. Black then leaves the cycle (1g2g, 5b5a) and from the new
/// root 2g2h repeats it a fourth time, 36 plies after the first: sennichite.
const LONG_CYCLE_BASE: &str = "4k4/9/9/9/9/9/9/8R/4K4 b rb2g2s 1";
const LONG_CYCLE: &[&str] =
    &["1h2h", "5a6a", "2h3h", "6a7a", "3h4h", "7a7b", "4h4g", "7b6b", "4g1g", "6b5b", "1g1h", "5b5a"];

#[test]
fn fourfold_repetition_of_a_long_cycle_is_a_draw() {
    let mut pos = sfen(LONG_CYCLE_BASE);
    for _ in 0..2 {
        play(&mut pos, LONG_CYCLE);
    }
    play(&mut pos, &LONG_CYCLE[..10]);
    play(&mut pos, &["1g2g", "5b5a"]);
    let draw = mv(&pos, "2g2h");
    let out = search_depth(&pos, 5, &options());
    assert_eq!(out.score(), Score::Cp(-2), "the lost side misses its sennichite");
    assert_eq!(out.best_move(), draw);
}

/// Kaname-b's game 8 of the 10 s + 1 s self-play series (2026-11-22), 154 plies from the start
/// position. Black has a real mate, but the root df-pn probe used to play the first mate it
/// proved, not the shortest: a horse check (3a4b / 4b3a) that led back to an earlier position,
/// again and again, until the fourth occurrence lost the game by perpetual check.
const PERPETUAL_TRAP: &str = concat!(
    "2h6h 6c6d 6g6f 4a5b 4i5h 5a4a 3i3h 4a4b 6h6g 8b6b 5i6h 3a3b 3g3f 6a5a 7i7h 5a4a 3h3g 3c3d 3g4f ",
    "4c4d 5g5f 6b6c 9g9f 5c5d 2i3g 5b5c 7g7f 6c6a 6g5g 6a5a 8i7g 1c1d 1g1f 7a7b 2g2f 7b6c 2f2e 7c7d ",
    "1i1h 8a7c 8g8f 5c4c 5g6g 8c8d 8h9g 1a1b 9g8h 6c5b 1h1g 9c9d 7h8i 4d4e 3g4e 2a1c 7f7e 5b6c 6f6e ",
    "7d7e 6e6d P*6f 6g5g 6c7d 2e2d 1c2e 5f5e 2e1g+ 5e5d L*6g 6h7h 6g6i+ 7h6i 6f6g+ 5h6g 4c5d 2d2c+ ",
    "3b2c P*5b 5a5b P*5c 5b9b 5g5d P*6f 6g6h G*4c 5d5g P*4d 6d6c+ 4d4e 5c5b+ 4b3c G*5c N*7f 5c4c 3c4c ",
    "5g5c+ 4c3b L*3c 3b2a 5b4a 7f6h+ 6i6h G*6g 6h5i G*5h 5c5h 6g5h 5i5h R*2h N*4h 2b3c G*4c 4e4f 4c3c ",
    "L*5d P*5e 5d5e P*5f 5e5f P*5g 5f5g+ 5h5g 4f4g+ 5g4g 2h2g+ G*3g P*4f 4g5f P*5e 5f4e 2g2e G*3e ",
    "3d3e P*2b 9b2b 3c2b 2a2b B*3a 2b3c 3a4b+ 3c2b 4b3a 2b3c R*4c 3c2d 4c2c+ 2d2c S*3b 2c3c 3a4b 3c2b ",
    "4b3a 2b3c 3a4b 3c2b ",
);

#[test]
fn a_proved_mate_is_not_played_through_a_repetition() {
    let mut pos = sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    play(&mut pos, &PERPETUAL_TRAP.split_whitespace().collect::<Vec<_>>());
    let limits = Limits { time: [Some(17_263), Some(14_852)], inc: [1000, 1000], ..Default::default() };
    let mut s = searcher(&options());
    let out = run(&mut s, &pos, limits);
    let mut after = pos.clone();
    after.do_move(out.best_move());
    assert_eq!(after.repetition(usize::MAX), Repetition::None, "{} repeats an earlier position", out.best_move());
    assert!(matches!(out.score(), Score::Mate(n) if n > 0), "{:?}", out.score());
}
