//! The variants' rules (issue 14): Minishogi's board, pieces, zone and SFEN, its published perft
//! counts, and generation checked against an exhaustive `is_legal` scan in random games.

use engine::{
    generate_legal, perft_with, Color, LastPly, Move, MoveError, MoveList, Piece, PieceType, Position, SfenError,
    Square, VariantId,
};

fn mini(sfen: &str) -> Position {
    Position::from_sfen_in(VariantId::Minishogi, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// Minishogi start d1-d5: shogiops `test/variant/minishogi.test.ts` and Fairy-Stockfish
/// `tests/perft.sh` (d5), as quoted in `../shared/reference/usi.md` §4.1.
#[test]
fn minishogi_start_perft_matches_the_published_counts() {
    let mut pos = Position::startpos_in(VariantId::Minishogi);
    assert_eq!(pos.to_sfen(), "rbsgk/4p/5/P4/KGSBR b - 1");
    for (depth, expected) in [(1, 14u64), (2, 181), (3, 2_512), (4, 35_401), (5, 533_203)] {
        assert_eq!(perft_with(&mut pos, depth, LastPly::Generate), expected, "d{depth}");
    }
    // The bulk count is shogi's only; asked for in a variant, perft generates.
    assert_eq!(perft_with(&mut pos, 3, LastPly::Count), 2_512);
}

#[test]
fn minishogi_sfen_round_trips_and_fits_the_board() {
    for sfen in [
        "rbsgk/4p/5/P4/KGSBR b - 1",
        "rbsgk/4p/5/P4/KGSBR w - 1",
        "r1sgk/4p/5/P4/KGSBR w - 1",
        "k4/2S2/1G3/5/4K b P 1",
        "2+Rgk/4+p/1s3/P1B2/KG3 w Srb 23",
    ] {
        let pos = mini(sfen);
        assert_eq!(pos.to_sfen(), sfen);
        assert_eq!(pos.variant(), VariantId::Minishogi);
        pos.is_consistent().unwrap();
    }
    let err = |s: &str| Position::from_sfen_in(VariantId::Minishogi, s).err();
    assert_eq!(err(engine::START_SFEN), Some(SfenError::RankCount { found: 9, expected: 5 }));
    assert_eq!(err("rbsgk/4p/5/P4/KGSB b - 1"), Some(SfenError::RankLength { rank: 'e', squares: 4, expected: 5 }));
    assert!(matches!(err("rbsgk/4p/6/P4/KGSBR b - 1"), Some(SfenError::RankLength { rank: 'c', .. })));
    assert_eq!(
        err("rbsgk/4p/2L2/P4/KGSBR b - 1"),
        Some(SfenError::PieceNotInVariant { letter: 'L', variant: VariantId::Minishogi })
    );
    assert_eq!(
        err("rbsgk/4p/5/P4/KGSBR b n 1"),
        Some(SfenError::PieceNotInVariant { letter: 'n', variant: VariantId::Minishogi })
    );
    // One set holds two of each kind: a third silver (counting hands) is too many.
    assert_eq!(err("rbsgk/4p/5/P4/KGSBR b S 1"), Some(SfenError::TooManyPieces(PieceType::Silver)));
    // Dead pieces and nifu on the 5x5 board: a pawn on White's last rank (e), two pawns on a file.
    assert_eq!(err("rbsgk/5/5/P4/KGSBp b - 1"), Some(SfenError::DeadPiece(sq("1e"))));
    assert!(err("rbsgk/4p/5/P4/KGSBR b - 1").is_none());
    assert_eq!(err("rbsgk/4p/4p/P4/KGSBR b - 1"), Some(SfenError::TooManyPieces(PieceType::Pawn)));
    assert_eq!(err("rbsgk/4p/P4/P4/KGSBR b - 1"), Some(SfenError::TooManyPieces(PieceType::Pawn)));
    assert_eq!(err("rbsgk/5/P4/P4/KGSBR b - 1"), Some(SfenError::Nifu(engine::Color::Black, 4)));
    // The error names the expected size.
    assert!(err(engine::START_SFEN).unwrap().to_string().contains("not 5"));
}

#[test]
fn minishogi_promotes_on_the_last_rank_only() {
    // A silver on 2c: 2c2b may not promote (rank b is outside the zone); on 2b it may, into 2a.
    let pos = mini("4k/5/3S1/5/K4 b - 1");
    assert!(pos.parse_usi_move("2c2b").is_ok());
    assert!(matches!(pos.parse_usi_move("2c2b+"), Err(MoveError::CannotPromote(_))));
    let pos = mini("k4/3S1/5/5/K4 b - 1");
    assert!(pos.parse_usi_move("2b3a").is_ok());
    assert!(pos.parse_usi_move("2b3a+").is_ok());
    // Out of the zone after a move inside it: still a promotion choice.
    let pos = mini("1S2k/5/5/5/K4 b - 1");
    assert!(pos.parse_usi_move("4a5b+").is_ok());
    assert!(pos.parse_usi_move("4a5b").is_ok());
    // A pawn must promote on rank a; White's on rank e.
    let pos = mini("4k/2P2/5/5/K4 b - 1");
    assert!(matches!(pos.parse_usi_move("3b3a"), Err(MoveError::MustPromote(_))));
    assert!(pos.parse_usi_move("3b3a+").is_ok());
    let pos = mini("4k/5/5/2p2/K4 w - 1");
    assert!(matches!(pos.parse_usi_move("3d3e"), Err(MoveError::MustPromote(_))));
    assert!(pos.parse_usi_move("3d3e+").is_ok());
    // A pawn may not be dropped on the last rank.
    let pos = mini("4k/5/5/5/K4 b P 1");
    assert!(matches!(pos.parse_usi_move("P*3a"), Err(MoveError::DeadDrop(_))));
    assert!(pos.parse_usi_move("P*3b").is_ok());
}

#[test]
fn minishogi_squares_past_the_edge_are_off_the_board() {
    let pos = Position::startpos_in(VariantId::Minishogi);
    assert_eq!(pos.parse_usi_move("5e6e"), Err(MoveError::OffBoard(sq("6e"))));
    assert_eq!(pos.parse_usi_move("1e1f"), Err(MoveError::OffBoard(sq("1f"))));
    assert_eq!(pos.parse_usi_move("7g7f"), Err(MoveError::OffBoard(sq("7g"))));
    let pos = mini("4k/5/5/5/K4 b P 1");
    assert_eq!(pos.parse_usi_move("P*6c"), Err(MoveError::OffBoard(sq("6c"))));
    // A king on 5e next to the edge: a move past it is never legal, whatever the bits say.
    let king = Piece::new(engine::Color::Black, PieceType::King);
    assert!(!pos.is_legal(Move::normal(sq("5e"), sq("6e"), king)));
    assert!(!pos.is_legal(Move::normal(sq("5e"), sq("6d"), king)));
    assert!(pos.is_legal(Move::normal(sq("5e"), sq("4d"), king)));
    let pawn = Piece::new(engine::Color::Black, PieceType::Pawn);
    assert!(!pos.is_legal(Move::drop(pawn, sq("6c"))));
    assert!(!pos.is_legal(Move::drop(pawn, sq("1f"))));
}

#[test]
fn minishogi_pawn_drop_mate_on_the_edge_file_is_illegal() {
    // White's king on 5a, the edge of the 5x5 board (not of the 9x9 one): its only flights are
    // 4a and 4b, both covered, and the pawn on 5b is defended by the gold. 6a and 6b do not exist.
    let pos = mini("k4/2S2/1G3/5/4K b P 1");
    assert_eq!(pos.parse_usi_move("P*5b"), Err(MoveError::PawnDropMate(sq("5b"))));
    let mut list = MoveList::new();
    generate_legal(&pos, &mut list);
    assert!(list.iter().all(|m| !(m.is_drop() && m.to() == sq("5b"))));
    assert!(engine::is_pawn_drop_mate(&pos, sq("5b")));
}

#[test]
fn minishogi_mate_on_the_edge_file() {
    // The rook on 5c checks; the gold on 3b covers 4a and 4b; 6a and 6b, which nothing
    // attacks, do not exist.
    let mut pos = mini("k4/2G2/R4/5/4K w - 1");
    assert!(pos.in_check());
    assert!(!pos.has_legal_move());
    assert!(!pos.has_evasion());
    assert_eq!(perft_with(&mut pos, 1, LastPly::Generate), 0);
}

/// Every move `is_legal` accepts, by brute force over every origin, destination, promotion
/// flag and drop: an independent check of the generator on the small board.
fn legal_by_scan(pos: &Position) -> Vec<Move> {
    let us = pos.side_to_move();
    let mut out = Vec::new();
    for to in Square::ALL {
        for from in Square::ALL {
            let pc = pos.piece_on(from);
            if pc.is_empty() || pc.color() != us || from == to {
                continue;
            }
            out.push(Move::normal(from, to, pc));
            if pc.kind().can_promote() {
                out.push(Move::promotion(from, to, pc));
            }
        }
        for pt in PieceType::HAND {
            out.push(Move::drop(Piece::new(us, pt), to));
        }
    }
    out.retain(|&m| pos.is_legal(m));
    out.sort_by_key(|m| m.raw());
    out
}

/// What the random games of a variant met, for the test's own sanity checks.
#[derive(Default, Debug)]
struct Seen {
    positions: usize,
    mates_in_one: usize,
    in_check: usize,
    two_royals: usize,
}

/// Random games of `variant`: in every position generation equals an exhaustive `is_legal`
/// scan and stays on the board, the SFEN round-trips, the checks generator and the mate-in-one
/// code equal playing every move, and every legal move checks exactly when `gives_check` says,
/// with check defined from scratch (a bound side's royal attacked); `undo_move` restores the
/// position.
fn random_games(variant: VariantId, games: usize, plies: usize) -> Seen {
    let mut seed = 0x5eed_5e55_u64 ^ variant as u64;
    let mut rand = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let board = variant.desc().board;
    let mut seen = Seen::default();
    for _game in 0..games {
        let mut pos = Position::startpos_in(variant);
        for _ply in 0..plies {
            let sfen = pos.to_sfen();
            pos.is_consistent().unwrap_or_else(|e| panic!("{sfen}: {e}"));
            let mut list = MoveList::new();
            generate_legal(&pos, &mut list);
            let mut generated: Vec<Move> = list.iter().copied().collect();
            generated.sort_by_key(|m| m.raw());
            assert_eq!(generated, legal_by_scan(&pos), "{sfen}");
            assert!(generated.iter().all(|m| board.contains(m.to())), "{sfen}");
            assert_eq!(pos.has_legal_move(), !generated.is_empty(), "{sfen}");
            assert_eq!(Position::from_sfen_in(variant, &sfen).unwrap().to_sfen(), sfen);
            let us = pos.side_to_move();
            let attacked = pos.is_attacked(!us, pos.king_square(us), pos.occupied());
            assert_eq!(pos.in_check(), pos.bound(us) && attacked, "{sfen}");
            let key = pos.key();
            for &m in &generated {
                let gives = pos.gives_check(m);
                pos.do_move(m);
                assert_eq!(pos.in_check(), gives, "{sfen} {m}");
                pos.undo_move(m);
                assert_eq!(pos.key(), key, "{sfen} {m}");
            }
            assert_eq!(pos.to_sfen(), sfen);
            seen.mates_in_one += check_checks_and_mates(&mut pos, &generated);
            seen.positions += 1;
            seen.in_check += pos.in_check() as usize;
            seen.two_royals += Color::ALL.iter().any(|&c| pos.pieces(c, PieceType::King).more_than_one()) as usize;
            if generated.is_empty() {
                break;
            }
            let m = generated[rand(generated.len())];
            pos.do_move(m);
        }
    }
    seen
}

#[test]
fn minishogi_generation_equals_an_is_legal_scan_in_random_games() {
    let seen = random_games(VariantId::Minishogi, 40, 120);
    assert!(seen.positions > 1000 && seen.mates_in_one > 20 && seen.in_check > 100, "{seen:?}");
}

#[test]
fn shoshogi_generation_equals_an_is_legal_scan_in_random_games() {
    let seen = random_games(VariantId::ShoShogi, 30, 200);
    assert!(seen.positions > 3000 && seen.in_check > 20 && seen.two_royals > 100, "{seen:?}");
}

/// The checks generator equals the legal moves filtered by `gives_check`, and the mate-in-one
/// code (`is_mate_after_check`, `find_mate_in_1`) equals playing every check; returns the
/// number of mating checks.
fn check_checks_and_mates(pos: &mut Position, legal: &[Move]) -> usize {
    let mut want: Vec<Move> = legal.iter().copied().filter(|&m| pos.gives_check(m)).collect();
    let mut checks = MoveList::new();
    engine::generate_checks(pos, &mut checks);
    let in_order: Vec<Move> = checks.iter().copied().collect();
    let mut got = in_order.clone();
    want.sort_by_key(|m| m.raw());
    got.sort_by_key(|m| m.raw());
    assert_eq!(got, want, "{}", pos.to_sfen());
    let mut mating = Vec::new();
    for &m in &in_order {
        pos.do_move(m);
        let mated = !pos.has_legal_move();
        pos.undo_move(m);
        assert_eq!(engine::is_mate_after_check(pos, m), mated, "{} {m}", pos.to_sfen());
        if mated {
            mating.push(m);
        }
    }
    let first = mating.first().copied();
    assert_eq!(engine::find_mate_in_1(pos), (first, !in_order.is_empty()), "{}", pos.to_sfen());
    // The search's cheap probe: a mate by a check next to the king or a knight check, if any.
    if !pos.in_check() {
        let near = engine::attacks::king_attacks(pos.king_square(!pos.side_to_move()));
        let contact_mates: Vec<Move> = mating
            .iter()
            .copied()
            .filter(|&m| near.contains(m.to()) || m.piece_after().kind() == engine::PieceType::Knight)
            .collect();
        match engine::contact_mate_in_1(pos) {
            Some(m) => assert!(contact_mates.contains(&m), "{} {m} {contact_mates:?}", pos.to_sfen()),
            None => assert!(contact_mates.is_empty(), "{} missed {contact_mates:?}", pos.to_sfen()),
        }
    }
    mating.len()
}

fn sho(sfen: &str) -> Position {
    Position::from_sfen_in(VariantId::ShoShogi, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

/// The legal moves of `pos` in USI, sorted.
fn legal_usi(pos: &Position) -> Vec<String> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

/// Sho shogi start: d1-d3 from pyffish (Fairy-Stockfish 230826), d4 = 445,372 from
/// Fairy-Stockfish's `tests/perft.sh` (`../shared/reference/usi.md` section 4.1).
#[test]
fn shoshogi_start_perft_matches_fairy_stockfish() {
    let mut pos = Position::startpos_in(VariantId::ShoShogi);
    assert_eq!(pos.to_sfen(), "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1");
    for (depth, expected) in [(1, 26u64), (2, 676), (3, 17_368), (4, 445_372)] {
        assert_eq!(perft_with(&mut pos, depth, LastPly::Generate), expected, "d{depth}");
    }
}

/// Fairy-Stockfish's royal rule, probe by probe (`docs/variants-plan.md` section 1.3, probes
/// run with pyffish; a White king added where the probe had none).
#[test]
fn shoshogi_royal_rule_follows_fairy_stockfish() {
    // A: king and prince: the king may step onto the rook's file (8 moves).
    let a = sho("5r2k/9/9/9/9/9/9/9/+E3K4 b - 1");
    assert!(!a.bound(Color::Black) && !a.in_check());
    let moves = legal_usi(&a);
    assert_eq!(moves.len(), 8, "{moves:?}");
    assert!(moves.contains(&"5i4h".to_string()) && moves.contains(&"5i4i".to_string()), "{moves:?}");
    // B: a lone king may not (3 moves).
    assert_eq!(legal_usi(&sho("5r2k/9/9/9/9/9/9/9/4K4 b - 1")), ["5i5h", "5i6h", "5i6i"]);
    // C: in check, promoting the elephant to a second royal does not escape: 4 king moves.
    let c = sho("4r3k/9/9/2E6/9/9/9/9/4K4 b - 1");
    assert!(c.in_check());
    assert_eq!(legal_usi(&c), ["5i4h", "5i4i", "5i6h", "5i6i"]);
    assert!(matches!(c.parse_usi_move("7d7c+"), Err(MoveError::KingInCheck(_))));
    // C': without the rook the elephant promotes normally (15 moves).
    let c2 = sho("8k/9/9/2E6/9/9/9/9/4K4 b - 1");
    let moves = legal_usi(&c2);
    assert_eq!(moves.len(), 15, "{moves:?}");
    for m in ["7d7c+", "7d6c+", "7d8c+", "7d7c", "7d6e"] {
        assert!(moves.contains(&m.to_string()), "{m}: {moves:?}");
    }
    // E: a lone prince is royal: 1 move.
    let e = sho("1r6k/9/9/9/9/9/9/9/+E8 b - 1");
    assert!(e.bound(Color::Black));
    assert_eq!(legal_usi(&e), ["9i9h"]);
    // G: both royals attacked, every move of either is legal (8).
    let g = sho("k3r3r/9/9/9/9/9/9/9/4K3+E b - 1");
    assert!(!g.in_check());
    assert_eq!(legal_usi(&g).len(), 8);
}

#[test]
fn shoshogi_taking_one_of_two_royals_binds_the_other() {
    // White takes the prince on 1i: Black is left its king, attacked by both rooks at once.
    let mut pos = sho("k3r3r/9/9/9/9/9/9/9/4K3+E w - 1");
    let m = pos.parse_usi_move("1a1i").unwrap();
    assert!(pos.gives_check(m));
    pos.do_move(m);
    assert!(pos.in_check() && pos.checkers().count() == 2, "{}", pos.to_sfen());
    assert!(pos.bound(Color::Black));
    assert_eq!(legal_usi(&pos), ["5i4h", "5i6h"]);
    pos.is_consistent().unwrap();
    pos.undo_move(m);
    assert_eq!(pos.to_sfen(), "k3r3r/9/9/9/9/9/9/9/4K3+E w - 1");
    pos.is_consistent().unwrap();
}

#[test]
fn shoshogi_elephant_promotes_to_a_prince_and_back() {
    let mut pos = sho("8k/9/9/2E6/9/9/9/9/4K4 b - 1");
    let m = pos.parse_usi_move("7d7c+").unwrap();
    assert_eq!(m.moved_kind(), PieceType::Elephant);
    assert_eq!(m.piece_after(), Piece::new(Color::Black, PieceType::King));
    pos.do_move(m);
    assert_eq!(pos.to_sfen(), "8k/9/2+E6/9/9/9/9/9/4K4 w - 2");
    assert!(!pos.bound(Color::Black) && pos.princes().contains(sq("7c")));
    assert_eq!(pos.king_square(Color::Black), sq("5i"));
    pos.is_consistent().unwrap();
    // The prince moves like a king and keeps its title.
    pos.do_move(pos.parse_usi_move("1a2a").unwrap());
    pos.do_move(pos.parse_usi_move("7c7b").unwrap());
    assert_eq!(pos.to_sfen(), "7k1/2+E6/9/9/9/9/9/9/4K4 w - 4");
    pos.is_consistent().unwrap();
}

#[test]
fn shoshogi_sfen_and_moves_refuse_what_it_lacks() {
    let err = |s: &str| Position::from_sfen_in(VariantId::ShoShogi, s).err();
    let start = "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL";
    assert_eq!(err(&format!("{start} b P 1")), Some(SfenError::NoHands(VariantId::ShoShogi)));
    assert!(err(&format!("{start} b - 1")).is_none());
    // Two elephants on one side; two kings; no royal at all.
    assert_eq!(err("4k4/4e4/9/9/9/9/9/3EE4/4K4 b - 1"), Some(SfenError::TooManyPieces(PieceType::Elephant)));
    assert!(matches!(err("4k4/9/9/9/9/9/9/9/3KK4 b - 1"), Some(SfenError::KingCount(Color::Black, 2))));
    assert!(matches!(err("4k4/9/9/9/9/9/9/9/4E4 b - 1"), Some(SfenError::KingCount(Color::Black, 0))));
    // The elephant is Sho shogi's: shogi and Minishogi refuse it.
    assert_eq!(
        Position::from_sfen(&format!("{start} b - 1")).err(),
        Some(SfenError::PieceNotInVariant { letter: 'e', variant: VariantId::Shogi })
    );
    let pos = Position::startpos_in(VariantId::ShoShogi);
    assert_eq!(pos.parse_usi_move("P*5e"), Err(MoveError::NoDrops));
    // A capture leaves the game: no hand afterwards.
    let mut pos = sho("4k4/9/9/9/4r4/4R4/9/9/4K4 b - 1");
    pos.do_move(pos.parse_usi_move("5f5e").unwrap());
    assert!(pos.hand(Color::Black).is_empty());
    assert_eq!(pos.to_sfen(), "4k4/9/9/9/4R4/9/9/9/4K4 w - 2");
}
