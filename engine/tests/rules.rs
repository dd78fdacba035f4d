//! The rules of shogi, rule by rule, on hand-made positions. Every expected move list and count
//! here was checked with cshogi 1.1.0 (`cshogi.Board(sfen).legal_moves`) or follows directly
//! from the rule stated in the comment.

use engine::{
    generate_legal, Color, EnteringKingRule, Move, MoveError, MoveList, PieceType, Position, Repetition, SfenError,
    Square,
};
use std::collections::BTreeSet;

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn legal(p: &Position) -> BTreeSet<String> {
    let mut list = MoveList::new();
    generate_legal(p, &mut list);
    let set: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
    assert_eq!(set.len(), list.len(), "duplicate moves generated");
    set
}

fn set(moves: &str) -> BTreeSet<String> {
    moves.split_whitespace().map(str::to_string).collect()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// Plays USI moves, each of which must be legal.
fn play(p: &mut Position, moves: &[&str]) {
    for text in moves {
        let m = p.parse_usi_move(text).unwrap_or_else(|e| panic!("{}: {text}: {e}", p.to_sfen()));
        p.do_move(m);
    }
}

/// The legal pawn drops, straight from the rule: empty square, not the last rank, no own
/// unpromoted pawn on the file (pawn-drop mate aside).
fn pawn_drops_by_rule(p: &Position) -> BTreeSet<String> {
    let us = p.side_to_move();
    let mut out = BTreeSet::new();
    for to in Square::ALL {
        if !p.piece_on(to).is_empty() || to.relative_rank(us) == 0 {
            continue;
        }
        let nifu = Square::ALL.iter().any(|&s| {
            s.file() == to.file() && {
                let pc = p.piece_on(s);
                !pc.is_empty() && pc.color() == us && pc.kind() == PieceType::Pawn
            }
        });
        if !nifu {
            out.insert(format!("P*{to}"));
        }
    }
    out
}

fn pawn_drops(p: &Position) -> BTreeSet<String> {
    legal(p).into_iter().filter(|m| m.starts_with("P*")).collect()
}

// ---------------------------------------------------------------------------------------------
// Nifu: a side may not drop a pawn on a file holding one of its own unpromoted pawns.

#[test]
fn nifu_own_pawn_blocks_the_file() {
    let p = pos("4k4/9/9/9/9/9/4P4/9/4K4 b P 1");
    let drops = pawn_drops(&p);
    assert_eq!(drops, pawn_drops_by_rule(&p));
    assert_eq!(drops.len(), 64); // 8 files x 8 ranks (b-i)
    assert!(!drops.iter().any(|m| m.as_bytes()[2] == b'5'));
    assert_eq!(p.parse_usi_move("P*5e"), Err(MoveError::Nifu(sq("5e"))));
    assert!(p.parse_usi_move("P*4e").is_ok());
    assert_eq!(legal(&p).len(), 70); // cshogi
}

#[test]
fn nifu_tokin_does_not_block() {
    // A tokin is not a pawn for nifu.
    let p = pos("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1");
    assert!(p.parse_usi_move("P*5e").is_ok());
    assert_eq!(pawn_drops(&p), pawn_drops_by_rule(&p));
    assert_eq!(pawn_drops(&p).len(), 70);
    assert_eq!(legal(&p).len(), 81); // cshogi
}

#[test]
fn nifu_opponent_pawn_does_not_block() {
    let p = pos("4k4/9/4p4/9/9/9/9/9/4K4 b P 1");
    assert!(p.parse_usi_move("P*5e").is_ok());
    assert!(p.parse_usi_move("P*5b").is_ok());
    assert_eq!(pawn_drops(&p), pawn_drops_by_rule(&p));
    assert_eq!(legal(&p).len(), 75); // cshogi
}

#[test]
fn nifu_for_white() {
    let p = pos("4k4/9/4p4/9/9/9/9/9/4K4 w p 1");
    assert_eq!(p.parse_usi_move("P*5e"), Err(MoveError::Nifu(sq("5e"))));
    assert!(p.parse_usi_move("P*4h").is_ok());
    assert_eq!(pawn_drops(&p), pawn_drops_by_rule(&p));
    assert_eq!(legal(&p).len(), 70); // cshogi
}

#[test]
fn nifu_sfen_with_full_pawn_files() {
    // Black pawn on 9i, white pawn on 9h, White holds the other 16 pawns.
    let p = pos("k8/2K6/9/7BB/7LL/7LL/8R/p2NNSSGG/P2NNSSGG b 16p 1");
    assert!(pawn_drops(&p).is_empty(), "black has no pawn in hand");
    let w = pos("k8/2K6/9/7BB/7LL/7LL/8R/p2NNSSGG/P2NNSSGG w 16p 1");
    // White's own pawn on 9h bars file 9 (Black's 9i pawn would not); elsewhere allowed.
    let drops = pawn_drops(&w);
    assert_eq!(drops.len(), 50); // cshogi
    assert_eq!(legal(&w).len(), 52); // cshogi
    assert_eq!(drops, pawn_drops_by_rule(&w));
    assert!(!drops.iter().any(|m| m.as_bytes()[2] == b'9'));
    assert!(drops.contains("P*8c"));
}

// ---------------------------------------------------------------------------------------------
// Uchifuzume: a pawn drop that gives checkmate is illegal (any other mate, and a pawn push
// that mates, is fine).

#[test]
fn pawn_drop_mate_published_position() {
    let p = pos("7lk/9/8S/9/9/9/9/7L1/8K b P 1");
    assert_eq!(legal(&p).len(), 85);
    assert!(!legal(&p).contains("P*1b"));
    assert_eq!(p.parse_usi_move("P*1b"), Err(MoveError::PawnDropMate(sq("1b"))));
}

#[test]
fn pawn_drop_mate_lance_drop_is_fine() {
    let p = pos("3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1");
    let l = legal(&p);
    assert_eq!(l.len(), 160); // cshogi
    assert!(l.contains("L*5b"));
    assert!(!l.contains("P*5b"));
    assert_eq!(p.parse_usi_move("P*5b"), Err(MoveError::PawnDropMate(sq("5b"))));
    assert!(p.parse_usi_move("L*5b").is_ok());
}

#[test]
fn pawn_drop_mate_late_in_generation_order() {
    // The white king is on 9a, so the mating square 9b is one of the last candidate squares
    // (squares are numbered file by file from 1a). Silver 7b covers 8a, gold 8c covers 8b
    // and defends 9b.
    let p = pos("k8/2S6/1G7/9/9/9/9/9/8K b P 1");
    let l = legal(&p);
    assert_eq!(l.len(), 84); // cshogi
    assert!(!l.contains("P*9b"));
    assert_eq!(p.parse_usi_move("P*9b"), Err(MoveError::PawnDropMate(sq("9b"))));
    let mut expected = pawn_drops_by_rule(&p);
    expected.remove("P*9b");
    assert_eq!(pawn_drops(&p), expected);
    // Only the mating square is removed; the pawn drop behind it is fine.
    assert!(l.contains("P*9d"));
}

#[test]
fn pawn_drop_check_king_can_capture() {
    // The pawn on 9b is undefended: the king takes it.
    let p = pos("k8/9/9/9/9/9/9/9/8K b P 1");
    let m = p.parse_usi_move("P*9b").expect("legal");
    assert!(p.gives_check(m));
    assert_eq!(legal(&p).len(), 74); // cshogi
}

#[test]
fn pawn_drop_check_king_can_escape() {
    // The gold on 8c defends 9b and covers 8b, but 8a is free.
    let p = pos("k8/9/1G7/9/9/9/9/9/8K b P 1");
    let m = p.parse_usi_move("P*9b").expect("legal");
    assert!(p.gives_check(m));
    assert_eq!(legal(&p).len(), 79); // cshogi
    let mut after = p.clone();
    after.do_move(m);
    assert_eq!(legal(&after), set("9a8a"));
}

#[test]
fn pawn_drop_check_file_pinned_defender_can_capture() {
    // The white gold on 9c is pinned by the lance on 9i along file 9; taking on 9b keeps it on
    // the file, so it may: the drop is check, not mate.
    let p = pos("k8/2S6/gG7/9/9/9/9/9/L7K b P 1");
    let m = p.parse_usi_move("P*9b").expect("legal");
    assert!(p.gives_check(m));
    assert_eq!(legal(&p).len(), 90); // cshogi
    let mut after = p.clone();
    after.do_move(m);
    assert_eq!(legal(&after), set("9c9b"));
}

#[test]
fn pawn_drop_mate_diagonally_pinned_defender_cannot_capture() {
    // The white gold on 8b could take on 9b, but the bishop on 6d pins it to the king on the
    // diagonal: the drop is mate, hence illegal.
    let p = pos("k8/1gS6/G8/3B5/9/9/9/9/8K b P 1");
    assert_eq!(legal(&p).len(), 100); // cshogi
    assert_eq!(p.parse_usi_move("P*9b"), Err(MoveError::PawnDropMate(sq("9b"))));
}

#[test]
fn pawn_push_mate_is_legal() {
    // Uchifuzume concerns drops only: pushing a pawn to mate is legal, promoted or not.
    let p = pos("k8/2S6/PG7/9/9/9/9/9/8K b - 1");
    let l = legal(&p);
    assert_eq!(l.len(), 17); // cshogi
    for text in ["9c9b", "9c9b+"] {
        assert!(l.contains(text));
        let mut after = p.clone();
        play(&mut after, &[text]);
        assert!(after.in_check());
        assert!(!after.has_legal_move(), "{text} mates");
    }
}

// ---------------------------------------------------------------------------------------------
// Promotion: pieces that could never move again must promote; silver, bishop and rook may
// decline; gold, king and promoted pieces cannot promote.

const FORCED: &str = "4k4/9/7S1/1+PG3NS1/9/9/9/9/4K3L b - 1";

#[test]
fn forced_promotion_lance_and_knight() {
    let p = pos(FORCED);
    let l = legal(&p);
    assert_eq!(
        l,
        set("1i1a+ 1i1b 1i1b+ 1i1c 1i1c+ 1i1d 1i1e 1i1f 1i1g 1i1h 2c1b 2c1b+ 2c1d 2c1d+ \
             2c2b 2c2b+ 2c3b 2c3b+ 2d1c 2d1c+ 2d1e 2d3c 2d3c+ 2d3e 3d2b+ 3d4b+ 5i4h 5i4i \
             5i5h 5i6h 5i6i 7d6c 7d6d 7d7c 7d7e 7d8c 8d7c 8d8c 8d8e 8d9c 8d9d")
    ); // cshogi
    assert!(matches!(p.parse_usi_move("1i1a"), Err(MoveError::MustPromote(_))));
    assert!(p.parse_usi_move("1i1a+").is_ok());
    // Lance to the second rank: promotion optional.
    assert!(p.parse_usi_move("1i1b").is_ok());
    assert!(matches!(p.parse_usi_move("3d2b"), Err(MoveError::MustPromote(_))));
    assert!(matches!(p.parse_usi_move("3d4b"), Err(MoveError::MustPromote(_))));
    assert!(p.parse_usi_move("3d2b+").is_ok());
}

#[test]
fn optional_promotion_for_silver_entering_inside_and_leaving_the_zone() {
    let p = pos(FORCED);
    // Silver 2d enters the zone on 1c/3c: both; moves outside the zone (1e, 3e): no promotion.
    for t in ["2d1c", "2d1c+", "2c2b", "2c2b+", "2c1d", "2c1d+"] {
        assert!(p.parse_usi_move(t).is_ok(), "{t}");
    }
    assert!(matches!(p.parse_usi_move("2d1e+"), Err(MoveError::CannotPromote(_))));
}

#[test]
fn gold_king_and_promoted_pieces_cannot_promote() {
    let p = pos(FORCED);
    assert!(matches!(p.parse_usi_move("7d7c+"), Err(MoveError::CannotPromote(_))));
    assert!(matches!(p.parse_usi_move("5i5h+"), Err(MoveError::CannotPromote(_))));
    assert!(matches!(p.parse_usi_move("8d8c+"), Err(MoveError::CannotPromote(_))));
    assert!(p.parse_usi_move("7d7c").is_ok());
}

#[test]
fn pawn_to_last_rank_must_promote() {
    let p = pos("4k4/P8/9/9/9/9/9/9/4K4 b - 1");
    assert!(matches!(p.parse_usi_move("9b9a"), Err(MoveError::MustPromote(_))));
    assert!(p.parse_usi_move("9b9a+").is_ok());
    assert_eq!(legal(&p).len(), 6); // 5 king moves + 9b9a+
                                    // Into the zone but not the last rank: optional.
    let p = pos("4k4/9/9/P8/9/9/9/9/4K4 b - 1");
    assert!(p.parse_usi_move("9d9c").is_ok());
    assert!(p.parse_usi_move("9d9c+").is_ok());
    // White's pawn on 1h must promote on 1i.
    let w = pos("4k4/9/9/9/9/9/9/8p/4K4 w - 1");
    assert!(matches!(w.parse_usi_move("1h1i"), Err(MoveError::MustPromote(_))));
    assert!(w.parse_usi_move("1h1i+").is_ok());
}

#[test]
fn knight_to_last_two_ranks_must_promote() {
    let p = pos("4k4/9/9/9/4N4/9/9/9/4K4 b - 1");
    // 5e to 4c/6c (third rank): optional.
    for t in ["5e4c", "5e4c+", "5e6c", "5e6c+"] {
        assert!(p.parse_usi_move(t).is_ok(), "{t}");
    }
    let p = pos("4k4/9/9/4N4/9/9/9/9/4K4 b - 1");
    for t in ["5d4b", "5d6b"] {
        assert!(matches!(p.parse_usi_move(t), Err(MoveError::MustPromote(_))), "{t}");
        assert!(p.parse_usi_move(&format!("{t}+")).is_ok());
    }
    // White knight on 5f goes to 4h/6h: must promote.
    let w = pos("4k4/9/9/9/9/4n4/9/9/K8 w - 1");
    assert!(matches!(w.parse_usi_move("5f4h"), Err(MoveError::MustPromote(_))));
    assert!(w.parse_usi_move("5f4h+").is_ok());
}

#[test]
fn rook_and_bishop_may_decline_promotion() {
    let p = pos("4k4/9/9/9/9/9/9/1B5R1/4K4 b - 1");
    for t in ["2h2b", "2h2b+", "8h3c", "8h3c+", "2h2c", "2h2c+"] {
        assert!(p.parse_usi_move(t).is_ok(), "{t}");
    }
    assert!(matches!(p.parse_usi_move("2h2d+"), Err(MoveError::CannotPromote(_))));
    // Leaving the zone: optional as well.
    let p = pos("4k4/7R1/9/9/9/9/9/9/4K4 b - 1");
    assert!(p.parse_usi_move("2b2h").is_ok());
    assert!(p.parse_usi_move("2b2h+").is_ok());
}

// ---------------------------------------------------------------------------------------------
// Dead drops: no pawn or lance on the last rank, no knight on the last two ranks.

#[test]
fn dead_drops_black() {
    let p = pos("4k4/9/9/9/9/9/9/9/4K4 b NLP 1");
    for t in ["P*1a", "L*1a", "N*1a", "N*1b", "N*9b"] {
        assert!(matches!(p.parse_usi_move(t), Err(MoveError::DeadDrop(_))), "{t}");
    }
    for t in ["P*1b", "L*1b", "N*1c"] {
        assert!(p.parse_usi_move(t).is_ok(), "{t}");
    }
    let l = legal(&p);
    assert_eq!(l.len(), 209); // cshogi
    assert!(!l.iter().any(|m| m.starts_with("P*") && m.ends_with('a')));
    assert!(!l.iter().any(|m| m.starts_with("L*") && m.ends_with('a')));
    assert!(!l.iter().any(|m| m.starts_with("N*") && (m.ends_with('a') || m.ends_with('b'))));
}

#[test]
fn dead_drops_white() {
    let p = pos("4k4/9/9/9/9/9/9/9/4K4 w nlp 1");
    for t in ["P*1i", "L*1i", "N*1i", "N*1h"] {
        assert!(matches!(p.parse_usi_move(t), Err(MoveError::DeadDrop(_))), "{t}");
    }
    for t in ["P*1h", "L*1h", "N*1g", "P*1a"] {
        assert!(p.parse_usi_move(t).is_ok(), "{t}");
    }
    let l = legal(&p);
    assert_eq!(l.len(), 209); // cshogi
    assert!(!l.iter().any(|m| m.starts_with("N*") && (m.ends_with('i') || m.ends_with('h'))));
}

// ---------------------------------------------------------------------------------------------
// Check evasion.

#[test]
fn double_check_only_king_moves() {
    // Rook 5e and bishop 1e both check the king on 5a; white's gold could block the rook and
    // white holds a gold, but in double check only the king may move.
    let p = pos("4k4/9/3g5/9/4R3B/9/9/9/4K4 w g 1");
    assert!(p.in_check());
    assert_eq!(p.checkers().count(), 2);
    assert_eq!(legal(&p), set("5a4a 5a6a 5a6b")); // cshogi
    assert!(matches!(p.parse_usi_move("6c5c"), Err(MoveError::KingInCheck(_))));
    assert!(matches!(p.parse_usi_move("G*5b"), Err(MoveError::KingInCheck(_))));
    assert!(matches!(p.parse_usi_move("5a5b"), Err(MoveError::KingInCheck(_))));
}

#[test]
fn pinned_rook_moves_along_the_pin() {
    let p = pos("4r3k/9/9/9/4R4/9/9/9/4K4 b - 1");
    assert_eq!(legal(&p), set("5e5a 5e5a+ 5e5b 5e5b+ 5e5c 5e5c+ 5e5d 5e5f 5e5g 5e5h 5i4h 5i4i 5i5h 5i6h 5i6i")); // cshogi
    assert!(matches!(p.parse_usi_move("5e4e"), Err(MoveError::KingInCheck(_))));
    assert_eq!(p.pinned(Color::Black).count(), 1);
}

#[test]
fn pinned_bishop_on_a_file_cannot_move() {
    let p = pos("4r4/9/8k/9/4B4/9/9/9/4K4 b - 1");
    assert_eq!(legal(&p), set("5i4h 5i4i 5i5h 5i6h 5i6i")); // cshogi
    assert!(matches!(p.parse_usi_move("5e4d"), Err(MoveError::KingInCheck(_))));
}

#[test]
fn lance_pin() {
    // The white lance on 5a pins the gold on 5e: it may move only along file 5.
    let p = pos("4l3k/9/9/9/4G4/9/9/9/4K4 b - 1");
    assert_eq!(legal(&p), set("5e5d 5e5f 5i4h 5i4i 5i5h 5i6h 5i6i")); // cshogi
                                                                      // A lance does not pin from behind: the same gold with the lance below it is free.
    let p = pos("4K3k/9/9/9/4G4/9/9/4l4/9 b - 1");
    assert_eq!(p.pinned(Color::Black).count(), 0);
}

#[test]
fn drops_interpose_a_slider_check() {
    let p = pos("4r3k/9/9/9/9/9/9/9/4K4 b G 1");
    assert!(p.in_check());
    assert_eq!(legal(&p), set("5i4h 5i4i 5i6h 5i6i G*5b G*5c G*5d G*5e G*5f G*5g G*5h"));
    // cshogi
}

#[test]
fn no_drop_answers_a_knight_or_adjacent_check() {
    let p = pos("8k/9/9/9/9/9/5n3/9/4K4 b G 1");
    assert!(p.in_check());
    assert_eq!(legal(&p), set("5i4h 5i4i 5i5h 5i6h 5i6i")); // cshogi
    let p = pos("8k/9/9/9/9/9/9/4g4/4K4 b G 1");
    assert!(p.in_check());
    assert_eq!(legal(&p), set("5i5h")); // cshogi
}

// ---------------------------------------------------------------------------------------------
// No legal move.

#[test]
fn checkmate_has_no_legal_move() {
    // Gold 1h, defended by the lance on 1a, mates the king on 1i.
    let p = pos("k7l/9/9/9/9/9/9/8g/8K b - 1");
    assert!(p.in_check());
    assert!(!p.has_legal_move());
    assert!(legal(&p).is_empty());
}

#[test]
fn stalemate_without_check_is_possible() {
    // Shogi has no stalemate rule, but the position exists: the lone black king on 1i is not
    // attacked, 2h and 2i are covered by the rook on 2a and 1h/2h by the gold on 1g. Black has
    // no legal move (and loses). cshogi agrees: zero legal moves, not in check.
    let p = pos("k6r1/9/9/9/9/9/8g/9/8K b - 1");
    assert!(!p.in_check());
    assert!(!p.has_legal_move());
}

// ---------------------------------------------------------------------------------------------
// Handicap start positions: White (the stronger side, uwate) moves first.

#[test]
fn handicap_start_positions() {
    for sfen in [
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ] {
        let p = pos(sfen);
        assert_eq!(p.side_to_move(), Color::White, "{sfen}");
        assert_eq!(p.to_sfen(), sfen);
        assert!(!p.in_check());
        assert!(p.has_legal_move());
    }
    // The ten-piece handicap: 9 pawn pushes + 5 king moves.
    assert_eq!(legal(&pos("4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")).len(), 14);
}

// ---------------------------------------------------------------------------------------------
// SFEN errors: every variant has an input that produces it; garbage never panics.

#[test]
fn sfen_errors_each_variant() {
    use SfenError::*;
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL";
    let err = |s: &str| Position::from_sfen(s).err();
    assert_eq!(err(""), Some(MissingField("board")));
    assert_eq!(err(start), Some(MissingField("side to move")));
    assert_eq!(err(&format!("{start} b")), Some(MissingField("pieces in hand")));
    assert!(matches!(err(&format!("{start} b - 1 extra")), Some(TrailingText(_))));
    assert_eq!(
        err("lnsgkgsnl/1r5b1/ppppppppp/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
        Some(RankCount { found: 8, expected: 9 })
    );
    assert_eq!(
        err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
        Some(RankCount { found: 10, expected: 9 })
    );
    assert_eq!(
        err("lnsgkgsnl/1r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
        Some(RankLength { rank: 'b', squares: 8, expected: 9 })
    );
    assert!(matches!(
        err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R2/LNSGKGSNL b - 1"),
        Some(RankLength { rank: 'h', .. })
    ));
    assert!(matches!(
        err("lnsgkgsnl/1r5b1/ppppppppp/91/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
        Some(RankLength { rank: 'd', .. })
    ));
    assert_eq!(err("lnsgkgsnl/1r5b1/ppppppppp/4x4/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"), Some(UnknownPiece('x')));
    for bad_rank in ["3+G5", "3+K5", "3++P4", "8+", "+1P7"] {
        let s = format!("lnsgkgsnl/1r5b1/ppppppppp/{bad_rank}/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(matches!(err(&s), Some(BadPromotion(_))), "{bad_rank}: {:?}", err(&s));
    }
    assert_eq!(err(&format!("{start} x - 1")), Some(BadSide("x".into())));
    assert_eq!(err(&format!("{start} B - 1")), Some(BadSide("B".into())));
    for hand in ["2", "0P", "K", "k", "P2", "+P", "19P", "x"] {
        assert!(
            matches!(err(&format!("{start} b {hand} 1")), Some(BadHand(_))),
            "{hand}: {:?}",
            err(&format!("{start} b {hand} 1"))
        );
    }
    for n in ["0", "-1", "abc", "1.5", "4294967296"] {
        assert_eq!(err(&format!("{start} b - {n}")), Some(BadMoveNumber(n.into())), "{n}");
    }
    // Too many pieces, counting both hands: a third rook, a nineteenth pawn, a fifth gold.
    assert_eq!(err(&format!("{start} b R 1")), Some(TooManyPieces(PieceType::Rook)));
    assert_eq!(err(&format!("{start} b p 1")), Some(TooManyPieces(PieceType::Pawn)));
    assert_eq!(err(&format!("{start} b G 1")), Some(TooManyPieces(PieceType::Gold)));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4 b 3R 1"), Some(TooManyPieces(PieceType::Rook)));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4 b 2B2b 1"), Some(TooManyPieces(PieceType::Bishop)));
    assert_eq!(err("4k4/9/9/9/9/9/9/+B+B2+b4/4K4 b - 1"), Some(TooManyPieces(PieceType::Bishop)));
    // Kings.
    // One side without a king is a tsume (its attacker); neither side with one is refused
    // (engine/tests/kingless.rs has the rules of the first).
    assert_eq!(err("4k4/9/9/9/9/9/9/9/9 b - 1"), None);
    assert_eq!(err("9/9/9/9/9/9/9/9/4K4 b - 1"), None);
    assert_eq!(err("9/9/9/9/9/9/9/9/9 b - 1"), Some(NoKings));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/3KK4 b - 1"), Some(KingCount(Color::Black, 2)));
    assert_eq!(err("3kk4/9/9/9/9/9/9/9/4K4 b - 1"), Some(KingCount(Color::White, 2)));
    // Dead pieces.
    assert_eq!(err("P3k4/9/9/9/9/9/9/9/4K4 b - 1"), Some(DeadPiece(sq("9a"))));
    assert_eq!(err("L3k4/9/9/9/9/9/9/9/4K4 b - 1"), Some(DeadPiece(sq("9a"))));
    assert_eq!(err("4k4/N8/9/9/9/9/9/9/4K4 b - 1"), Some(DeadPiece(sq("9b"))));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/4K3p b - 1"), Some(DeadPiece(sq("1i"))));
    assert_eq!(err("4k4/9/9/9/9/9/9/8n/4K4 b - 1"), Some(DeadPiece(sq("1h"))));
    // Promoted pieces are never dead.
    assert!(err("+P3k4/+N8/9/9/9/9/9/9/4K4 b - 1").is_none());
    // Nifu (file index 0-based: file 5 is 4).
    assert_eq!(err("4k4/9/9/4P4/9/4P4/9/9/4K4 b - 1"), Some(Nifu(Color::Black, 4)));
    assert_eq!(err("4k4/p8/p8/9/9/9/9/9/4K4 b - 1"), Some(Nifu(Color::White, 8)));
    assert!(err("4k4/9/9/4P4/9/4+P4/9/9/4K4 b - 1").is_none());
    // The side not to move is in check.
    assert_eq!(err("4k4/4R4/9/9/9/9/9/9/4K4 b - 1"), Some(OpponentInCheck));
    assert!(err("4k4/4R4/9/9/9/9/9/9/4K4 w - 1").is_none());
    // And the valid ones, with and without a move number.
    assert!(err(&format!("{start} b - 1")).is_none());
    assert!(err(&format!("{start} b -")).is_none());
    assert!(err(&format!("  {start}   w   -   7  ")).is_none());
}

/// A small deterministic generator for fuzzing.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ALPHABET: &[u8] = b"plnsgbrkPLNSGBRK+0123456789/ -bwx*\t\xc3\xa9";

#[test]
fn sfen_garbage_never_panics() {
    let seeds = [
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
    ];
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut parsed = 0;
    for i in 0..3000 {
        let text: Vec<u8> = if i % 3 == 0 {
            (0..rng.below(90)).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect()
        } else {
            let mut t = seeds[rng.below(seeds.len())].as_bytes().to_vec();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(t.len() + 1);
                match rng.below(3) {
                    0 if at < t.len() => {
                        t.remove(at);
                    }
                    1 if at < t.len() => t[at] = ALPHABET[rng.below(ALPHABET.len())],
                    _ => t.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                }
            }
            t
        };
        let s = String::from_utf8_lossy(&text);
        if let Ok(p) = Position::from_sfen(&s) {
            parsed += 1;
            p.is_consistent().unwrap();
            // Whatever parses prints to an SFEN that parses to the same position.
            let again = Position::from_sfen(&p.to_sfen()).unwrap();
            assert_eq!(again.to_sfen(), p.to_sfen());
            assert_eq!(again.key(), p.key());
            let _ = legal(&p);
        }
    }
    assert!(parsed > 50, "only {parsed} mutated SFENs parsed");
}

// ---------------------------------------------------------------------------------------------
// USI move errors.

#[test]
fn usi_move_errors_each_variant() {
    use MoveError::*;
    let p = Position::startpos();
    for t in [
        "", "7g7", "7g7f++", "7g7f+ ", "x", "P*", "P*5", "7j7f", "0g7f", "p*5e", "K*5e", "+P*5e", "7g*f", "pass",
        "resign",
    ] {
        assert!(matches!(p.parse_usi_move(t), Err(Syntax(_))), "{t:?}: {:?}", p.parse_usi_move(t));
    }
    assert_eq!(p.parse_usi_move("5e5d"), Err(NoPiece(sq("5e"))));
    assert_eq!(p.parse_usi_move("3c3d"), Err(NotYourPiece(sq("3c"))));
    assert!(matches!(p.parse_usi_move("7g7e"), Err(CannotReach(_))));
    assert!(matches!(p.parse_usi_move("8h2b"), Err(CannotReach(_)))); // blocked
    assert!(matches!(p.parse_usi_move("8h2b+"), Err(CannotReach(_))));
    assert_eq!(p.parse_usi_move("5i4i"), Err(OwnPieceOnTarget(sq("4i"))));
    assert!(matches!(p.parse_usi_move("7g7f+"), Err(CannotPromote(_))));
    assert!(matches!(p.parse_usi_move("6i5h+"), Err(CannotPromote(_))));
    assert_eq!(p.parse_usi_move("P*5e"), Err(NotInHand(PieceType::Pawn)));
    assert_eq!(p.parse_usi_move("R*5e"), Err(NotInHand(PieceType::Rook)));
    let f = pos(FORCED);
    assert!(matches!(f.parse_usi_move("1i1a"), Err(MustPromote(_))));
    let d = pos("4k4/9/9/9/9/9/9/9/4K4 b NLP 1");
    assert_eq!(d.parse_usi_move("N*5i"), Err(Occupied(sq("5i"))));
    assert_eq!(d.parse_usi_move("P*5a"), Err(Occupied(sq("5a"))));
    assert!(matches!(d.parse_usi_move("N*1b"), Err(DeadDrop(_))));
    let n = pos("4k4/9/9/9/9/9/4P4/9/4K4 b P 1");
    assert_eq!(n.parse_usi_move("P*5e"), Err(Nifu(sq("5e"))));
    let m = pos("7lk/9/8S/9/9/9/9/7L1/8K b P 1");
    assert_eq!(m.parse_usi_move("P*1b"), Err(PawnDropMate(sq("1b"))));
    let pin = pos("4r3k/9/9/9/4R4/9/9/9/4K4 b - 1");
    assert!(matches!(pin.parse_usi_move("5e4e"), Err(KingInCheck(_))));
    // The king may not step onto an attacked square.
    let k = pos("3r4k/9/9/9/9/9/9/9/4K4 b - 1");
    assert!(matches!(k.parse_usi_move("5i6i"), Err(KingInCheck(_))));
    assert!(k.parse_usi_move("5i4i").is_ok());
    // In check, a drop that does not block.
    let c = pos("4r3k/9/9/9/9/9/9/9/4K4 b G 1");
    assert!(matches!(c.parse_usi_move("G*4e"), Err(KingInCheck(_))));
    // Display works for every error.
    for e in [p.parse_usi_move("x"), p.parse_usi_move("5e5d")] {
        assert!(!e.unwrap_err().to_string().is_empty());
    }
}

#[test]
fn usi_move_garbage_never_panics() {
    let p = pos("8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124");
    let legal_set = legal(&p);
    let alphabet: Vec<char> = "123456789abcdefghijP*+LNSGBRKp \u{e9}\u{ff17}".chars().collect();
    let mut rng = Rng(0xfeed_0000_1111_2222);
    for _ in 0..20_000 {
        let len = rng.below(7);
        let s: String = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        match p.parse_usi_move(&s) {
            Ok(m) => {
                assert!(legal_set.contains(&m.to_string()), "{s} parsed to an illegal {m}");
                assert_eq!(m.to_string(), s);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    for s in ["\u{ff17}g7f", "7g\u{ff17}f", "\u{e9}*5e", "P*\u{e9}", "7\u{e9}7f", "7g7\u{e9}"] {
        assert!(p.parse_usi_move(s).is_err(), "{s}");
    }
}

// ---------------------------------------------------------------------------------------------
// Repetition (sennichite): the fourth occurrence of a position draws; inside the search
// window the first recurrence already counts. Perpetual check loses for the checker.

const KINGS: &str = "4k4/9/9/9/9/9/9/9/4K4 b - 1";
const SHUFFLE: [&str; 4] = ["5i5h", "5a5b", "5h5i", "5b5a"];

#[test]
fn repetition_first_recurrence_in_search_window_is_draw() {
    let mut p = pos(KINGS);
    assert_eq!(p.repetition(100), Repetition::None);
    play(&mut p, &SHUFFLE[..2]);
    assert_eq!(p.repetition(100), Repetition::None);
    play(&mut p, &SHUFFLE[2..]);
    assert_eq!(p.to_sfen().split(' ').next(), KINGS.split(' ').next());
    // Repeated once, 4 plies back: a draw inside the window, nothing outside it.
    assert_eq!(p.repetition(4), Repetition::Draw);
    assert_eq!(p.repetition(100), Repetition::Draw);
    assert_eq!(p.repetition(3), Repetition::None);
    assert_eq!(p.repetition(0), Repetition::None);
}

#[test]
fn repetition_fourth_occurrence_from_game_history() {
    let mut p = pos(KINGS);
    play(&mut p, &SHUFFLE); // second occurrence
    assert_eq!(p.repetition(0), Repetition::None);
    play(&mut p, &SHUFFLE); // third
    assert_eq!(p.repetition(0), Repetition::None);
    // One ply into the third cycle: the position with White to move occurs for the third time.
    play(&mut p, &SHUFFLE[..1]);
    assert_eq!(p.repetition(0), Repetition::None);
    assert_eq!(p.repetition(4), Repetition::Draw);
    play(&mut p, &SHUFFLE[1..]); // fourth occurrence of the root: the game ends in a draw
    assert_eq!(p.repetition(0), Repetition::Draw);
    play(&mut p, &SHUFFLE[..1]); // and the fourth of the position with White to move
    assert_eq!(p.repetition(0), Repetition::Draw);
}

#[test]
fn repetition_cut_by_null_move() {
    // A null move in between: the repetition cannot reach back past it.
    let mut p = pos(KINGS);
    play(&mut p, &SHUFFLE[..2]);
    p.do_null_move();
    p.undo_null_move();
    play(&mut p, &SHUFFLE[2..]);
    assert_eq!(p.repetition(100), Repetition::Draw);
    let mut p = pos(KINGS);
    play(&mut p, &["5i5h"]);
    p.do_null_move(); // white passes
    play(&mut p, &["5h5i"]);
    p.do_null_move(); // white passes: Black to move, same position as the root, but across nulls
    assert_eq!(p.repetition(100), Repetition::None);
}

/// Black's rook checks on every move; the white king steps between 1a and 1b.
const PERPETUAL: &str = "8k/9/4R4/9/9/9/9/9/4K4 b - 1";
const CHECKS: [&str; 6] = ["5c5a", "1a1b", "5a5b", "1b1a", "5b5a", "1a1b"];

#[test]
fn perpetual_check_by_the_opponent_wins() {
    let mut p = pos(PERPETUAL);
    play(&mut p, &CHECKS[..5]);
    // White to move, in check; the position after 5c5a has recurred and Black checked with
    // every move in between.
    assert!(p.in_check());
    assert_eq!(p.repetition(100), Repetition::Win);
    assert_eq!(p.repetition(0), Repetition::None);
}

#[test]
fn perpetual_check_by_the_side_to_move_loses() {
    let mut p = pos(PERPETUAL);
    play(&mut p, &CHECKS);
    // Black to move; Black has been checking throughout the cycle.
    assert_eq!(p.side_to_move(), Color::Black);
    assert_eq!(p.repetition(100), Repetition::Lose);
}

#[test]
fn repetition_without_continuous_check_is_a_draw() {
    // The same cycle, but the first move is not a check: the checks only began later, so
    // the cycle from the root position is a plain draw for the position after 4 plies...
    let mut p = pos("8k/9/4R4/9/9/9/9/9/4K4 b - 1");
    // Rook shuffles 5c5d/5d5c without check, king 1a1b/1b1a.
    play(&mut p, &["5c5d", "1a1b", "5d5c", "1b1a"]);
    assert_eq!(p.repetition(100), Repetition::Draw);
}

#[test]
fn superior_and_inferior_hands() {
    // White drops a pawn, Black's gold takes it and goes back; the white king walks a triangle
    // so that the same board returns with the same side to move, a pawn having changed hands.
    let mut p = pos("8k/9/9/9/9/4G4/9/9/4K4 w p 1");
    play(&mut p, &["P*5e", "5f5e", "1a2a", "5e5f", "2a1b", "5i5h", "1b1a", "5h5i"]);
    assert_eq!(p.to_sfen(), "8k/9/9/9/9/4G4/9/9/4K4 w P 9");
    // White to move has a pawn fewer than 8 plies ago.
    assert_eq!(p.repetition(8), Repetition::Inferior);
    assert_eq!(p.repetition(100), Repetition::Inferior);
    assert_eq!(p.repetition(7), Repetition::None);

    let mut p = pos("8k/9/9/9/9/4G4/9/9/4K4 b p 1");
    play(&mut p, &["5i5h", "P*5e", "5f5e", "1a2a", "5e5f", "2a1b", "5h5i", "1b1a"]);
    assert_eq!(p.to_sfen(), "8k/9/9/9/9/4G4/9/9/4K4 b P 9");
    // Black to move has a pawn more than 8 plies ago.
    assert_eq!(p.repetition(8), Repetition::Superior);
    assert_eq!(p.repetition(0), Repetition::None);
}

// ---------------------------------------------------------------------------------------------
// Entering-king declaration (CSA rules): king in the enemy camp, not in check, at least ten
// other own pieces in the camp, and enough points (big pieces 5, others 1, hand included):
// 28 for Black / 27 for White under the 27-point rule, 31 under the 24-point rule.

/// Black king on 5b; in the camp 2 rooks, 2 bishops (20 points), 2 golds, 4 silvers (6).
const CAMP: &str = "RBG3GBR/SS2K2SS/9/9/9/9/9/9/4k4";

#[test]
fn declaration_csa27_black_needs_28() {
    let p = pos(&format!("{CAMP} b 2P 1"));
    assert_eq!(p.entering_points(Color::Black), (28, 10));
    assert!(p.declaration_win(EnteringKingRule::Csa27));
    let p = pos(&format!("{CAMP} b P 1"));
    assert_eq!(p.entering_points(Color::Black), (27, 10));
    assert!(!p.declaration_win(EnteringKingRule::Csa27));
}

#[test]
fn declaration_csa27_white_needs_27() {
    // The mirror image, White to move with 27 points.
    let p = pos("4K4/9/9/9/9/9/9/ss2k2ss/rbg3gbr w p 1");
    assert_eq!(p.entering_points(Color::White), (27, 10));
    assert!(p.declaration_win(EnteringKingRule::Csa27));
    assert!(!p.declaration_win(EnteringKingRule::Csa24));
    // The same position with Black to move: Black's king is not in the camp.
    let b = pos("4K4/9/9/9/9/9/9/ss2k2ss/rbg3gbr b p 1");
    assert!(!b.declaration_win(EnteringKingRule::Csa27));
}

#[test]
fn declaration_fails_in_check() {
    let p = pos("RBG3GBR/SS2K2SS/4g4/9/9/9/9/9/4k4 b 2P 1");
    assert!(p.in_check());
    assert_eq!(p.entering_points(Color::Black).0, 28);
    assert!(!p.declaration_win(EnteringKingRule::Csa27));
}

#[test]
fn declaration_fails_with_nine_pieces_in_camp() {
    // Silver 1b moved out of the camp to 1d; three pawns in hand keep the points at 28.
    let p = pos("RBG3GBR/SS2K2S1/9/8S/9/9/9/9/4k4 b 3P 1");
    assert_eq!(p.entering_points(Color::Black), (28, 9));
    assert!(!p.declaration_win(EnteringKingRule::Csa27));
}

#[test]
fn declaration_fails_with_king_outside_camp() {
    let p = pos("RBG3GBR/SS5SS/9/4K4/9/9/9/9/4k4 b 2P 1");
    assert_eq!(p.entering_points(Color::Black), (28, 10));
    assert!(!p.declaration_win(EnteringKingRule::Csa27));
    // Rank c is still the camp.
    let p = pos("RBG3GBR/SS5SS/4K4/9/9/9/9/9/4k4 b 2P 1");
    assert!(p.declaration_win(EnteringKingRule::Csa27));
}

#[test]
fn declaration_csa24_needs_31() {
    let p = pos(&format!("{CAMP} b 4P 1"));
    assert_eq!(p.entering_points(Color::Black).0, 30);
    assert!(!p.declaration_win(EnteringKingRule::Csa24));
    assert!(p.declaration_win(EnteringKingRule::Csa27));
    let p = pos(&format!("{CAMP} b 5P 1"));
    assert_eq!(p.entering_points(Color::Black).0, 31);
    assert!(p.declaration_win(EnteringKingRule::Csa24));
    assert!(!p.declaration_win(EnteringKingRule::None));
}

#[test]
fn declaration_rule_none_never() {
    let p = pos(&format!("{CAMP} b 2G9P 1"));
    assert_eq!(p.entering_points(Color::Black).0, 37);
    assert!(!p.declaration_win(EnteringKingRule::None));
    assert!(p.declaration_win(EnteringKingRule::Csa24));
    // Promoted big pieces count 5 too.
    let p = pos("+R+BG3G+B+R/SS2K2SS/9/9/9/9/9/9/4k4 b 2P 1");
    assert_eq!(p.entering_points(Color::Black), (28, 10));
}

// ---------------------------------------------------------------------------------------------
// The handicap variants (YaneuraOu's `CSARule24H`, `CSARule27H`): the same conditions, but
// White's figure is lowered by the points missing from the full set of pieces (56 points, kings
// 1 each); Black's never changes.

/// A two-piece handicap (White has no rook or bishop: 46 points on the board and in hand).
/// White's king on 5h, in the camp 2 golds, 2 silvers and 6 pawns (10 points), in hand
/// 2 lances, 2 knights and 3 pawns (7): 17 points, what `Csa27H` asks of White here.
const HANDICAP2: &str = "9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w 2n2l3p 1";

#[test]
fn material_points_count_every_piece() {
    assert_eq!(Position::startpos().material_points(), 56);
    assert_eq!(pos(HANDICAP2).material_points(), 46);
    // A capture moves a piece to a hand and a promotion keeps its weight: the total stays.
    let mut p = Position::startpos();
    play(&mut p, &["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
    assert_eq!(p.material_points(), 56);
    // Bare kings.
    assert_eq!(pos("4k4/9/9/9/9/9/9/9/4K4 b - 1").material_points(), 2);
}

#[test]
fn handicap_rules_lower_whites_figure() {
    let p = pos(HANDICAP2);
    assert_eq!(p.entering_points(Color::White), (17, 10));
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Csa27), Some(27));
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Csa27H), Some(17));
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Csa24), Some(31));
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Csa24H), Some(21));
    assert_eq!(p.declaration_points_needed(Color::Black, EnteringKingRule::Csa27H), Some(28));
    assert_eq!(p.declaration_points_needed(Color::Black, EnteringKingRule::Csa24H), Some(31));
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Try), None);
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::None), None);
    assert!(p.declaration_win(EnteringKingRule::Csa27H));
    assert!(!p.declaration_win(EnteringKingRule::Csa27));
    assert!(!p.declaration_win(EnteringKingRule::Csa24H));
    assert!(!p.declaration_win(EnteringKingRule::Csa24));
    // White's king on 5h also stands next to an empty, unguarded 5i: a try.
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5h5i"));
    assert!(p.declaration_win(EnteringKingRule::Try));
}

#[test]
fn handicap_rules_one_point_short() {
    // One of White's pawns in Black's hand instead: the total is still 46 (17 needed), White
    // has 16.
    let p = pos("9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w P2n2l2p 1");
    assert_eq!(p.material_points(), 46);
    assert_eq!(p.entering_points(Color::White).0, 16);
    assert!(!p.declaration_win(EnteringKingRule::Csa27H));
    // A pawn taken off the board altogether lowers the total with White's points: a bigger
    // handicap asks one point less, and 16 points are enough again.
    let p = pos("9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w 2n2l2p 1");
    assert_eq!(p.material_points(), 45);
    assert_eq!(p.declaration_points_needed(Color::White, EnteringKingRule::Csa27H), Some(16));
    assert!(p.declaration_win(EnteringKingRule::Csa27H));
}

#[test]
fn handicap_rules_with_a_full_set_are_the_plain_rules() {
    // White also holds the rook and bishop in hand: 56 points in all, 27 for White.
    let p = pos("9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w rb2n2l3p 1");
    assert_eq!(p.material_points(), 56);
    assert_eq!(p.entering_points(Color::White).0, 27);
    for rule in [EnteringKingRule::Csa27, EnteringKingRule::Csa27H] {
        assert_eq!(p.declaration_points_needed(Color::White, rule), Some(27));
        assert!(p.declaration_win(rule), "{rule:?}");
    }
    for rule in [EnteringKingRule::Csa24, EnteringKingRule::Csa24H] {
        assert_eq!(p.declaration_points_needed(Color::White, rule), Some(31));
        assert!(!p.declaration_win(rule), "{rule:?}");
    }
    assert_eq!(Position::startpos().declaration_points_needed(Color::White, EnteringKingRule::Csa24H), Some(31));
}

#[test]
fn handicap_rules_keep_blacks_figure_and_the_other_conditions() {
    // Black's 28 points under `CSA27H` whatever the material (here far from a full set).
    let p = pos(&format!("{CAMP} b 2P 1"));
    assert!(p.material_points() < 56);
    assert!(p.declaration_win(EnteringKingRule::Csa27H));
    let p = pos(&format!("{CAMP} b P 1"));
    assert!(!p.declaration_win(EnteringKingRule::Csa27H));
    // In check (a black gold on 6i instead of 6f), nine pieces in the camp (a silver in hand
    // instead of on 2i), or the king outside the camp (on 5c): no declaration, handicap or not.
    for sfen in [
        "9/9/9/1R5B1/PPPPPPPPP/LNS1KGSNL/2p3p2/pp2k2pp/1sgG2gs1 w 2n2l3p 1",
        "9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/2g3gs1 w s2n2l3p 1",
        "9/9/4k4/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp5pp/1sg3gs1 w 2n2l3p 1",
    ] {
        let p = pos(sfen);
        assert!(!p.declaration_win(EnteringKingRule::Csa27H), "{sfen}");
        assert!(!p.declaration_win(EnteringKingRule::Csa24H), "{sfen}");
    }
}

// ---------------------------------------------------------------------------------------------
// The try rule (YaneuraOu's `TryRule`): the king that can step onto the enemy king's starting
// square (5a for Black, 5i for White), holding no own piece and not attacked once the king has
// left its square, wins by that move.

#[test]
fn try_from_every_neighbour_of_the_square() {
    for (sfen, m) in [
        ("9/4K4/9/9/9/9/9/9/k8 b - 1", "5b5a"),
        ("9/5K3/9/9/9/9/9/9/k8 b - 1", "4b5a"),
        ("9/3K5/9/9/9/9/9/9/k8 b - 1", "6b5a"),
        ("5K3/9/9/9/9/9/9/9/k8 b - 1", "4a5a"),
        ("3K5/9/9/9/9/9/9/9/k8 b - 1", "6a5a"),
    ] {
        let p = pos(sfen);
        let t = p.try_move().unwrap_or_else(|| panic!("{sfen}: no try"));
        assert_eq!(t.to_string(), m, "{sfen}");
        assert!(legal(&p).contains(m), "{sfen}: the try is a legal move");
        assert!(p.declaration_win(EnteringKingRule::Try), "{sfen}");
        // The point rules know nothing of it (one king alone has no points).
        assert!(!p.declaration_win(EnteringKingRule::Csa27), "{sfen}");
        assert!(!p.declaration_win(EnteringKingRule::None), "{sfen}");
    }
}

#[test]
fn try_for_white_is_to_5i() {
    let p = pos("K8/9/9/9/9/9/9/4k4/9 w - 1");
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5h5i"));
    assert!(p.declaration_win(EnteringKingRule::Try));
    // Black to move in the same position has no try: its king is far from 5a.
    let p = pos("K8/9/9/9/9/9/9/4k4/9 b - 1");
    assert_eq!(p.try_move(), None);
    assert!(!p.declaration_win(EnteringKingRule::Try));
}

#[test]
fn no_try_from_afar() {
    for sfen in [
        "9/9/4K4/9/9/9/9/9/k8 b - 1", // two steps away (5c)
        "9/9/9/9/4K4/9/9/9/k8 b - 1", // outside the camp
        "9/9/9/9/9/9/9/4K4/k8 b - 1", // next to the wrong square (its own 5i)
        "9/2K6/9/9/9/9/9/9/k8 b - 1", // 7b: in the camp, not next to 5a
    ] {
        let p = pos(sfen);
        assert_eq!(p.try_move(), None, "{sfen}");
        assert!(!p.declaration_win(EnteringKingRule::Try), "{sfen}");
    }
}

#[test]
fn no_try_onto_an_own_piece() {
    let p = pos("4G4/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_eq!(p.try_move(), None);
    assert!(!p.declaration_win(EnteringKingRule::Try));
}

#[test]
fn try_by_capturing_an_undefended_piece() {
    let p = pos("4s4/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
    // Defended by a gold on 4a: the capture would leave the king in check.
    let p = pos("4sg3/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_eq!(p.try_move(), None);
}

#[test]
fn no_try_onto_an_attacked_square() {
    for (sfen, why) in [
        ("r8/4K4/9/9/9/9/9/9/k8 b - 1", "a white rook on 9a sweeps rank a"),
        ("9/3sK4/9/9/9/9/9/9/k8 b - 1", "a white silver on 6b guards 5a diagonally backwards"),
        ("9/4K4/2b6/9/9/9/9/9/k8 b - 1", "a white bishop on 7c sees 5a over 6b"),
        ("5g3/4K4/9/9/9/9/9/9/k8 b - 1", "a white gold on 4a checks and guards 5a sideways"),
    ] {
        let p = pos(sfen);
        assert_eq!(p.try_move(), None, "{sfen}: {why}");
        assert!(!p.declaration_win(EnteringKingRule::Try), "{sfen}: {why}");
    }
    // Controls: a white gold on 4b checks the king but does not guard 5a (its backward step is
    // 4a), and a bishop on 8e checks along 7d-6c-5b, its line going on to 4a, not 5a: in both
    // the try answers the check.
    let p = pos("9/4Kg3/9/9/9/9/9/9/k8 b - 1");
    assert!(p.in_check());
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
    let p = pos("9/4K4/9/9/1b7/9/9/9/k8 b - 1");
    assert!(p.in_check());
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
}

#[test]
fn try_out_of_check_and_x_rays() {
    // A white silver on 4c checks the king on 5b; 5a is free: the try answers the check.
    let p = pos("9/4K4/5s3/9/9/9/9/9/k8 b - 1");
    assert!(p.in_check());
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
    assert!(p.declaration_win(EnteringKingRule::Try));
    // A white rook on 5e checks along file 5: on 5a the king would still stand in its line
    // (the square the king leaves does not block).
    let p = pos("9/4K4/9/9/4r4/9/9/9/k8 b - 1");
    assert!(p.in_check());
    assert_eq!(p.try_move(), None);
    assert!(!p.declaration_win(EnteringKingRule::Try));
    // The same rook behind a black pawn on 5c: no check, no attack on 5a.
    let p = pos("9/4K4/4P4/9/4r4/9/9/9/k8 b - 1");
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
    // A white lance on 5h: White's lances move towards rank i, so it attacks nothing above.
    let p = pos("9/4K4/9/9/9/9/9/4l4/k8 b - 1");
    assert_eq!(p.try_move().map(|m| m.to_string()).as_deref(), Some("5b5a"));
}

#[test]
fn rule_names_are_yaneuraous() {
    let names: Vec<&str> = EnteringKingRule::NAMES.iter().map(|(_, n)| *n).collect();
    assert_eq!(names, ["NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"]);
    for (rule, name) in EnteringKingRule::NAMES {
        assert_eq!(rule.name(), name);
        assert_eq!(EnteringKingRule::from_name(&name.to_lowercase()), Some(rule));
    }
    assert_eq!(EnteringKingRule::from_name("CSARule28"), None);
    assert_eq!(EnteringKingRule::default(), EnteringKingRule::Csa27);
}

/// `Move` values for the same text agree with the generator (sanity for the helpers above).
#[test]
fn helpers_agree() {
    let p = Position::startpos();
    let m: Move = p.parse_usi_move("7g7f").unwrap();
    assert_eq!(m.from(), sq("7g"));
    assert_eq!(m.to(), sq("7f"));
    assert_eq!(legal(&p).len(), 30);
}

/// Found by the parser fuzzer (engine/tests/fuzz_parsers.rs) and the USI fuzzer: an SFEN move
/// number near `u32::MAX` was accepted as it was, and the next move overflowed the ply counter
/// (a panic in the search thread with overflow checks, a move number of 0 without).
#[test]
fn a_move_number_near_u32_max_overflowed_the_ply_counter() {
    let board = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL";
    for n in ["2147483647", "2147483648", "4294967294", "4294967295"] {
        let mut p = pos(&format!("{board} b - {n}"));
        assert_eq!(p.game_ply(), engine::MAX_MOVE_NUMBER);
        assert_eq!(p.to_sfen(), format!("{board} b - 2147483647"));
        play(&mut p, &["7g7f", "3c3d"]);
        assert_eq!(p.game_ply(), engine::MAX_MOVE_NUMBER + 2);
        p.do_null_move();
        assert_eq!(pos(&p.to_sfen()).game_ply(), engine::MAX_MOVE_NUMBER, "a later position reads back clamped");
    }
    assert_eq!(pos(&format!("{board} b - 2147483646")).game_ply(), 2147483646);
}
