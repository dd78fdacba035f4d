//! Positions where one side has no king, as a tsume (mate problem) leaves out the attacker's:
//! every rule that asks about the missing king, and a differential test of the legal moves
//! and perft against cshogi (`tests/data/legal_moves_kingless.txt`, made by
//! `scripts/gen_kingless_fixture.py`).

use engine::{
    contact_mate_in_1, find_mate_in_1, generate, generate_checks, generate_contact_checks, is_mate_after_check,
    is_pawn_drop_mate, pack, perft, Color, EnteringKingRule, GenKind, Move, MoveError, MoveList, PackError, Position,
    Repetition, SfenError, Square, VariantId,
};
use std::collections::BTreeSet;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves_kingless.txt");

/// ShogiHome's tsume start position: every unused piece in White's hand.
const SHOGIHOME: &str = "4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1";
/// The mate in one (`G*5b`).
const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
/// YaneuraOu issue #107's position.
const YO107: &str = "7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1";

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn legal(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    generate(pos, GenKind::All, &mut list);
    list.as_slice().to_vec()
}

fn usi(moves: &[Move]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

struct Entry {
    line: usize,
    sfen: String,
    moves: BTreeSet<String>,
    perft2: u64,
    perft3: Option<u64>,
}

fn load() -> Vec<Entry> {
    let text = std::fs::read_to_string(FIXTURE).expect("read tests/data/legal_moves_kingless.txt");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "line {}", i + 1);
        let moves: BTreeSet<String> = f[2].split_whitespace().map(str::to_string).collect();
        assert_eq!(moves.len(), f[1].parse::<usize>().unwrap(), "line {}", i + 1);
        out.push(Entry {
            line: i + 1,
            sfen: f[0].to_string(),
            moves,
            perft2: f[3].parse().unwrap(),
            perft3: f[4].parse().ok(),
        });
    }
    out
}

#[test]
fn one_side_without_a_king_is_accepted() {
    for (sfen, kingless) in [(SHOGIHOME, Color::Black), (MATE1, Color::Black), (YO107, Color::Black)] {
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert!(!pos.has_king(kingless) && pos.has_king(!kingless), "{sfen}");
        assert_eq!(pos.king_square_opt(kingless), None);
        assert!(pos.king_square_opt(!kingless).is_some());
        assert!(!pos.bound(kingless) && pos.bound(!kingless));
        assert!(!pos.in_check());
        assert_eq!(pos.to_sfen(), sfen);
        pos.is_consistent().unwrap();
    }
    // White without a king, either side to move; Minishogi too.
    for sfen in ["9/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1", "9/9/9/9/9/9/9/9/4K4 w - 1", "5/5/5/5/K4 b - 1"] {
        let variant = if sfen.starts_with("5/") { VariantId::Minishogi } else { VariantId::Shogi };
        let pos = Position::from_sfen_in(variant, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert!(!pos.has_king(Color::White) && pos.has_king(Color::Black));
        pos.is_consistent().unwrap();
    }
    // A king attacked by the side to move is still refused, whoever lacks a king.
    assert_eq!(Position::from_sfen("4k4/4R4/9/9/9/9/9/9/9 b - 1").err(), Some(SfenError::OpponentInCheck));
}

#[test]
fn no_kings_and_two_kings_are_refused() {
    let err = |s: &str| Position::from_sfen(s).err();
    assert_eq!(err("9/9/9/9/9/9/9/9/9 b - 1"), Some(SfenError::NoKings));
    assert_eq!(err("9/9/9/9/4P4/9/9/9/9 b 2R 1"), Some(SfenError::NoKings));
    assert_eq!(err("3kk4/9/9/9/9/9/9/9/9 b - 1"), Some(SfenError::KingCount(Color::White, 2)));
    assert_eq!(
        SfenError::KingCount(Color::White, 2).to_string(),
        "White has 2 kings, not at most 1",
        "the message names the limit"
    );
    assert!(SfenError::NoKings.to_string().contains("neither side has a king"));
    // Sho shogi keeps its royal rule: a side needs a royal.
    assert_eq!(
        Position::from_sfen_in(VariantId::ShoShogi, "4k4/9/9/9/9/9/9/9/9 b - 1").err(),
        Some(SfenError::KingCount(Color::Black, 0))
    );
}

/// cshogi's legal moves and perft 2 (and 3 for the first lines) for every fixture position;
/// the generator's stages partition the moves, every move keeps the position consistent, and
/// `is_legal` accepts exactly the generated moves among every 16-bit code (every 5th line).
#[test]
fn legal_moves_and_perft_match_cshogi() {
    let entries = load();
    assert!(entries.len() > 2000, "{} positions", entries.len());
    let mut checks = 0;
    let mut perft3 = 0;
    for (i, e) in entries.iter().enumerate() {
        let mut pos = Position::from_sfen(&e.sfen).unwrap_or_else(|err| panic!("line {}: {err}: {}", e.line, e.sfen));
        assert!(!pos.has_king(Color::Black) || !pos.has_king(Color::White), "line {}", e.line);
        let moves = legal(&pos);
        assert_eq!(usi(&moves), e.moves, "line {}: {}", e.line, e.sfen);
        assert_eq!(moves.len(), e.moves.len(), "line {}: duplicates", e.line);
        let mut staged = MoveList::new();
        generate(&pos, GenKind::Captures, &mut staged);
        generate(&pos, GenKind::Quiets, &mut staged);
        assert_eq!(usi(staged.as_slice()), e.moves, "line {}: captures + quiets", e.line);
        assert_eq!(pos.has_legal_move(), !moves.is_empty(), "line {}", e.line);
        if pos.in_check() {
            checks += 1;
            assert!(pos.has_king(pos.side_to_move()));
            assert_eq!(pos.has_evasion(), !moves.is_empty(), "line {}", e.line);
        }
        assert_eq!(perft(&mut pos, 2), e.perft2, "line {}: perft 2 of {}", e.line, e.sfen);
        if let Some(p3) = e.perft3 {
            assert_eq!(perft(&mut pos, 3), p3, "line {}: perft 3 of {}", e.line, e.sfen);
            perft3 += 1;
        }
        for &m in &moves {
            assert!(pos.is_legal(m), "line {}: {m}", e.line);
            pos.do_move(m);
            pos.is_consistent().unwrap_or_else(|err| panic!("line {}: after {m}: {err}", e.line));
            assert!(!pos.has_king(Color::Black) || !pos.has_king(Color::White));
            pos.undo_move(m);
        }
        if i % 5 == 0 {
            let set: BTreeSet<u32> = moves.iter().map(|m| m.raw()).collect();
            for code in 0..=u16::MAX {
                let m = pos.move_from_u16(code);
                if pos.is_legal(m) {
                    assert!(set.contains(&m.raw()), "line {}: is_legal accepts {m}", e.line);
                }
            }
        }
    }
    assert!(checks > 50 && perft3 >= 30, "{checks} positions in check, {perft3} perft 3");
}

/// No move checks a side without a king; against a side with one, `generate_checks` is the
/// legal moves that `gives_check` keeps, and `gives_check` is what `do_move` finds.
#[test]
fn checks_against_a_missing_king_are_none() {
    let mut against_missing = 0;
    for e in load() {
        let mut pos = Position::from_sfen(&e.sfen).unwrap();
        let them = !pos.side_to_move();
        let mut checks = MoveList::new();
        generate_checks(&pos, &mut checks);
        let mut contact = MoveList::new();
        generate_contact_checks(&pos, &mut contact);
        let moves = legal(&pos);
        let want: BTreeSet<String> = moves.iter().filter(|&&m| pos.gives_check(m)).map(|m| m.to_string()).collect();
        assert_eq!(usi(checks.as_slice()), want, "line {}: {}", e.line, e.sfen);
        if !pos.has_king(them) {
            against_missing += 1;
            assert!(checks.is_empty() && contact.is_empty(), "line {}", e.line);
        }
        for &m in &moves {
            let gives = pos.gives_check(m);
            pos.do_move(m);
            assert_eq!(pos.in_check(), gives, "line {}: {m}", e.line);
            pos.undo_move(m);
        }
    }
    assert!(against_missing > 500, "{against_missing}");
}

/// `find_mate_in_1`, `contact_mate_in_1` and `is_mate_after_check` answer what playing the
/// checks answers, with the attacker's king missing (the static reasoning never reads it)
/// and against a missing king (no mate at all).
#[test]
fn mate_in_one_matches_playing_the_checks() {
    let mut mates = 0;
    for e in load() {
        let mut pos = Position::from_sfen(&e.sfen).unwrap();
        let mut checks = MoveList::new();
        generate_checks(&pos, &mut checks);
        let mut first = None;
        for &m in checks.iter() {
            pos.do_move(m);
            let mated = !pos.has_legal_move();
            pos.undo_move(m);
            assert_eq!(is_mate_after_check(&mut pos, m), mated, "line {}: {m}", e.line);
            if mated && first.is_none() {
                first = Some(m);
            }
        }
        mates += first.is_some() as usize;
        let (found, any) = find_mate_in_1(&mut pos);
        assert_eq!(any, !checks.is_empty(), "line {}", e.line);
        assert_eq!(found.is_some(), first.is_some(), "line {}: {}", e.line, e.sfen);
        if let Some(m) = found {
            assert!(checks.contains(m));
            pos.do_move(m);
            assert!(!pos.has_legal_move(), "line {}: {m}", e.line);
            pos.undo_move(m);
        }
        if !pos.in_check() {
            if let Some(m) = contact_mate_in_1(&mut pos) {
                pos.do_move(m);
                assert!(pos.in_check() && !pos.has_legal_move(), "line {}: {m}", e.line);
                pos.undo_move(m);
            }
        }
    }
    assert!(mates > 5, "{mates} positions with a mate in one");

    let mut pos = Position::from_sfen(MATE1).unwrap();
    assert_eq!(find_mate_in_1(&mut pos).0.map(|m| m.to_string()), Some("G*5b".to_string()));
    assert_eq!(contact_mate_in_1(&mut pos).map(|m| m.to_string()), Some("G*5b".to_string()));
    // The defender to move has no check, let alone a mate, against the missing king.
    let mut pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1").unwrap();
    assert_eq!(find_mate_in_1(&mut pos), (None, false));
    assert_eq!(contact_mate_in_1(&mut pos), None);
}

/// Pawn-drop mate is about a pawn checking the opponent's king: the attacker's mating pawn
/// drop is still illegal without the attacker's own king, and a pawn drop is never pawn-drop
/// mate against a side without a king.
#[test]
fn pawn_drop_mate_needs_a_king_to_mate() {
    let pos = Position::from_sfen("k8/2S6/1G7/9/9/9/9/9/9 b P2r2b3g3s4n4l17p 1").unwrap();
    let drop = pos.parse_usi_move("P*9b");
    assert_eq!(drop, Err(MoveError::PawnDropMate(sq("9b"))));
    assert!(is_pawn_drop_mate(&pos, sq("9b")));
    assert!(!usi(&legal(&pos)).contains("P*9b"));
    // White's pawn drops against Black's missing king: one in front of each black piece.
    let pos = Position::from_sfen("4k4/9/9/9/9/9/9/1G7/G8 w 2r2b2g4s4n4l18p 1").unwrap();
    for to in ["9h", "8g", "5e"] {
        assert!(!is_pawn_drop_mate(&pos, sq(to)), "{to}");
        let m = pos.parse_usi_move(&format!("P*{to}")).unwrap();
        assert!(pos.is_legal(m));
    }
}

/// A side without a king cannot declare an entering king, and neither can its opponent: a
/// tsume knows no entering-king rule (`Position::declaration_win`). The same position with the
/// missing king added can declare.
#[test]
fn no_declaration_without_both_kings() {
    // White's king on 5h with ten pieces in Black's camp and 10 + 20 points.
    let with_king = Position::from_sfen("4K4/9/9/9/9/9/ppppppppp/4k4/8g w 2r2b 1").unwrap();
    let without = Position::from_sfen("9/9/9/9/9/9/ppppppppp/4k4/8g w 2r2b 1").unwrap();
    assert!(with_king.declaration_win(EnteringKingRule::Csa27));
    assert!(!without.declaration_win(EnteringKingRule::Csa27));
    for rule in EnteringKingRule::NAMES.map(|(r, _)| r) {
        assert!(!without.declaration_win(rule), "{rule:?}");
    }
    // The try rule: 5h next to 5i, White's try square.
    assert!(with_king.try_move().is_some());
    assert_eq!(without.try_move(), None);
    // Black to move without a king: nothing to declare with.
    let black = Position::from_sfen("9/9/9/9/9/9/ppppppppp/4k4/8g b 2r2b 1").unwrap();
    for rule in EnteringKingRule::NAMES.map(|(r, _)| r) {
        assert!(!black.declaration_win(rule), "{rule:?}");
    }
    assert_eq!(black.try_move(), None);
}

/// Perpetual check by the kingless attacker loses for it; the defender, who can never check,
/// is never charged with it.
#[test]
fn perpetual_check_by_a_kingless_attacker() {
    let mut pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/R8 b - 1").unwrap();
    for m in ["9i9a", "5a5b", "9a9b", "5b5a", "9b9a"] {
        let mv = pos.parse_usi_move(m).unwrap();
        pos.do_move(mv);
    }
    assert!(pos.in_check());
    assert_eq!(pos.repetition(64), Repetition::Win, "White, checked on every move, wins");
    // The same dance without checks (the rook off the king's rank) is a draw.
    let mut pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/R8 b - 1").unwrap();
    for m in ["9i9h", "5a5b", "9h9i", "5b5a", "9i9h"] {
        let mv = pos.parse_usi_move(m).unwrap();
        pos.do_move(mv);
    }
    assert_eq!(pos.repetition(64), Repetition::Draw);
    // The defender's moves never check: its continuous-check count stays zero.
    assert_eq!(pos.state().continuous_check[Color::White.index()], 0);
}

#[test]
fn packed_sfen_refuses_a_missing_king() {
    for (sfen, c) in [(SHOGIHOME, Color::Black), ("9/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1", Color::White)] {
        let pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(pack(&pos), Err(PackError::NoKing(c)));
        assert!(PackError::NoKing(c).to_string().contains("no king"));
    }
}

/// SEE with a king missing: the defender's king takes an unprotected checker, not a protected one.
#[test]
fn see_with_a_missing_king() {
    let pos = Position::from_sfen(MATE1).unwrap();
    let m = |s: &str| pos.parse_usi_move(s).unwrap();
    assert!(pos.see_ge(m("G*5b"), 0), "the pawn protects 5b");
    assert!(!pos.see_ge(m("G*4b"), 0), "the king takes the gold on 4b");
    // Black's missing king never recaptures: a rook takes a lone black gold for free.
    let pos = Position::from_sfen("4k4/9/9/9/4r4/9/9/9/4G4 w r2b3g4s4n4l18p 1").unwrap();
    assert!(pos.see_ge(pos.parse_usi_move("5e5i").unwrap(), 540));
}

/// The moves of the tsume starts: the attacker moves no king and the defender's pieces on a
/// line through where a king would stand are not pinned.
#[test]
fn tsume_starts() {
    let pos = Position::from_sfen(SHOGIHOME).unwrap();
    assert!(legal(&pos).is_empty(), "the attacker of ShogiHome's empty start has no piece");
    let mut pos = Position::from_sfen(MATE1).unwrap();
    assert_eq!(perft(&mut pos, 1), 81);
    let pos = Position::from_sfen("4k4/9/9/9/4r4/9/4b4/9/9 w 2Grb2g4s4n4l18p 1").unwrap();
    assert!(usi(&legal(&pos)).is_superset(&["5e1e", "5g1c+", "5g9c+"].map(String::from).into()));
}

/// Minishogi without one king (no outside reference there): along seeded random playouts every
/// generated move is legal by `is_legal` and nothing else is among every 16-bit code, the
/// position stays consistent, `gives_check` is what `do_move` finds, and no move checks the
/// missing king.
#[test]
fn minishogi_without_a_king_keeps_its_invariants() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut positions = 0;
    for start in ["rbsgk/4p/5/P4/1GSBR b - 1", "rbsg1/4p/5/P4/KGSBR w - 1", "2k2/5/5/5/5 b 2R2B2G2S2P 1"] {
        for _ in 0..20 {
            let mut pos = Position::from_sfen_in(VariantId::Minishogi, start).unwrap();
            for _ in 0..40 {
                let moves = legal(&pos);
                let set: BTreeSet<u32> = moves.iter().map(|m| m.raw()).collect();
                for code in 0..=u16::MAX {
                    let m = pos.move_from_u16(code);
                    if pos.is_legal(m) {
                        assert!(set.contains(&m.raw()), "{}: is_legal accepts {m}", pos.to_sfen());
                    }
                }
                let mut checks = MoveList::new();
                generate_checks(&pos, &mut checks);
                let want: BTreeSet<String> =
                    moves.iter().filter(|&&m| pos.gives_check(m)).map(|m| m.to_string()).collect();
                assert_eq!(usi(checks.as_slice()), want, "{}", pos.to_sfen());
                for &m in &moves {
                    assert!(pos.is_legal(m));
                    let gives = pos.gives_check(m);
                    pos.do_move(m);
                    pos.is_consistent().unwrap();
                    assert_eq!(pos.in_check(), gives, "{m}");
                    assert!(!pos.in_check() || pos.has_king(pos.side_to_move()));
                    pos.undo_move(m);
                }
                positions += 1;
                if moves.is_empty() {
                    break;
                }
                let m = moves[(next() % moves.len() as u64) as usize];
                pos.do_move(m);
            }
        }
    }
    assert!(positions > 1000, "{positions}");
}
