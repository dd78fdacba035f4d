//! Differential test against cshogi: the legal moves of 30,003 positions from random playouts
//! (`tests/data/legal_moves.txt`), plus per-position invariants of the generator, `is_legal`,
//! SFEN printing and USI move parsing.

use engine::{generate, perft, Color, GenKind, Move, MoveList, PieceType, Position, SfenError};
use std::collections::BTreeSet;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");

/// How many mismatching positions to describe in the failure message.
const REPORT: usize = 5;

struct Entry {
    line: usize,
    sfen: String,
    count: usize,
    moves: BTreeSet<String>,
}

fn load() -> Vec<Entry> {
    let text = std::fs::read_to_string(FIXTURE).expect("read tests/data/legal_moves.txt");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() >= 2, "line {}: too few fields", i + 1);
        let count: usize = f[1].parse().expect("move count");
        let moves: BTreeSet<String> =
            f.get(2).map(|m| m.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
        assert_eq!(moves.len(), count, "line {}: count field disagrees with the list", i + 1);
        out.push(Entry { line: i + 1, sfen: f[0].to_string(), count, moves });
    }
    out
}

/// Parses a fixture position. The fixture holds positions reached by an illegal move: the
/// generator keeps the position after cshogi's `mate_move_in_1ply`, which it also calls when
/// the side to move is in check, where that function may return a move that ignores the check
/// (e.g. line 130, `...6+r1l/8K b ...`: White dropped `L*1h` while its king stood in check).
/// Both kings are attacked there and the fixture lists no legal move. Kaname rejects such
/// SFENs with `OpponentInCheck`; check that this is the only reason a fixture SFEN is refused.
fn parse_entry(e: &Entry) -> Option<Position> {
    match Position::from_sfen(&e.sfen) {
        Ok(pos) => Some(pos),
        Err(SfenError::OpponentInCheck) => {
            assert_eq!(e.count, 0, "line {}: rejected position has legal moves", e.line);
            // With the other side to move, that side's king is attacked too.
            let f = fields(&e.sfen);
            let other = if f[1] == "b" { "w" } else { "b" };
            let flipped = format!("{} {other} {} {}", f[0], f[2], f[3]);
            match Position::from_sfen(&flipped) {
                Err(SfenError::OpponentInCheck) => {}
                Ok(p) => assert!(p.in_check(), "line {}: {flipped}", e.line),
                Err(err) => panic!("line {}: {flipped}: {err}", e.line),
            }
            None
        }
        Err(err) => panic!("line {}: {err}: {}", e.line, e.sfen),
    }
}

fn gen(pos: &Position, kind: GenKind) -> Vec<Move> {
    let mut list = MoveList::new();
    generate(pos, kind, &mut list);
    list.as_slice().to_vec()
}

fn fields(sfen: &str) -> Vec<&str> {
    sfen.split_whitespace().collect()
}

#[test]
fn fixture_has_all_positions() {
    let entries = load();
    assert!(entries.len() >= 30_000, "{} positions", entries.len());
    // The fixture covers the interesting cases (see its header): checkmates and big move lists.
    assert!(entries.iter().filter(|e| e.count == 0).count() > 900);
    assert!(entries.iter().any(|e| e.count == 524));
}

/// Kaname's legal move set equals cshogi's, position by position.
#[test]
fn legal_moves_match_cshogi() {
    let entries = load();
    let mut mismatches = Vec::new();
    let mut n_bad = 0;
    let mut skipped = 0;
    for e in &entries {
        let Some(pos) = parse_entry(e) else {
            skipped += 1;
            continue;
        };
        let list = gen(&pos, GenKind::All);
        let ours: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
        let dup = list.len() != ours.len();
        // Perft's bulk count of the last ply counts without generating: it must agree too.
        let counted = perft(&mut pos.clone(), 1) as usize;
        if ours != e.moves || dup || pos.has_legal_move() != (e.count > 0) || counted != e.count {
            n_bad += 1;
            if mismatches.len() < REPORT {
                let missing: Vec<_> = e.moves.difference(&ours).cloned().collect();
                let extra: Vec<_> = ours.difference(&e.moves).cloned().collect();
                mismatches.push(format!(
                    "line {}: {}\n  missing {:?}\n  extra {:?}\n  perft 1 counts {counted}{}",
                    e.line,
                    e.sfen,
                    missing,
                    extra,
                    if dup { "\n  duplicates generated" } else { "" }
                ));
            }
        }
    }
    assert!(
        n_bad == 0,
        "{n_bad} of {} positions disagree with cshogi; first ones:\n{}",
        entries.len(),
        mismatches.join("\n")
    );
    println!(
        "{} positions compared, {skipped} skipped (reached by an illegal move, see parse_entry)",
        entries.len() - skipped
    );
    assert_eq!(skipped, 0, "{skipped} fixture positions rejected");
}

/// Captures and Quiets partition All; every generated move passes `is_legal`.
#[test]
fn staged_generation_partitions_all() {
    let mut failures = Vec::new();
    for e in load() {
        let Some(pos) = parse_entry(&e) else {
            continue;
        };
        let all = gen(&pos, GenKind::All);
        let caps = gen(&pos, GenKind::Captures);
        let quiets = gen(&pos, GenKind::Quiets);
        let all_set: BTreeSet<u32> = all.iter().map(|m| m.raw()).collect();
        let cap_set: BTreeSet<u32> = caps.iter().map(|m| m.raw()).collect();
        let quiet_set: BTreeSet<u32> = quiets.iter().map(|m| m.raw()).collect();
        let both: Vec<_> = cap_set.intersection(&quiet_set).collect();
        let union: BTreeSet<u32> = cap_set.union(&quiet_set).copied().collect();
        if !both.is_empty() || union != all_set || caps.len() + quiets.len() != all.len() {
            failures.push(format!(
                "line {}: {}: captures {} + quiets {} vs all {}, overlap {}",
                e.line,
                e.sfen,
                caps.len(),
                quiets.len(),
                all.len(),
                both.len()
            ));
        }
        for &m in &caps {
            // Captures stage: captures, and pawn pushes that promote.
            let capture = pos.is_capture(m);
            let pawn_promo = m.is_promotion() && m.moved_kind() == PieceType::Pawn;
            if !capture && !pawn_promo {
                failures.push(format!("line {}: {m} in Captures is neither", e.line));
            }
        }
        for &m in &quiets {
            if pos.is_capture(m) {
                failures.push(format!("line {}: capture {m} in Quiets", e.line));
            }
        }
        for &m in &all {
            if !pos.is_legal(m) {
                failures.push(format!("line {}: {}: is_legal({m}) is false", e.line, e.sfen));
            }
        }
        if failures.len() > REPORT {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// SFEN printing round-trips: the board, side and move number print as read (cshogi prints
/// them canonically), hands print in canonical order and survive a second round trip exactly.
#[test]
fn sfen_round_trips() {
    for e in load() {
        let Some(pos) = parse_entry(&e) else {
            continue;
        };
        let printed = pos.to_sfen();
        let a = fields(&e.sfen);
        let b = fields(&printed);
        assert_eq!(b.len(), 4, "{printed}");
        assert_eq!(a[0], b[0], "board differs: {} -> {printed}", e.sfen);
        assert_eq!(a[1], b[1], "side differs: {} -> {printed}", e.sfen);
        assert_eq!(a[3], b[3], "move number differs: {} -> {printed}", e.sfen);
        let again = Position::from_sfen(&printed).unwrap();
        assert_eq!(again.to_sfen(), printed, "second round trip of {}", e.sfen);
        assert_eq!(again.key(), pos.key(), "key changes through SFEN: {}", e.sfen);
        for c in [Color::Black, Color::White] {
            assert_eq!(again.hand(c), pos.hand(c), "{} hand of {c:?}", e.sfen);
        }
        // Hands: same multiset of letters as the input.
        assert_eq!(hand_counts(a[2]), hand_counts(b[2]), "hands differ: {} -> {printed}", e.sfen);
    }
}

/// Expands a SFEN hands field into sorted (letter, count) pairs.
fn hand_counts(h: &str) -> Vec<(char, u32)> {
    let mut v = Vec::new();
    if h == "-" {
        return v;
    }
    let mut n = 0u32;
    for ch in h.chars() {
        if let Some(d) = ch.to_digit(10) {
            n = n * 10 + d;
        } else {
            v.push((ch, n.max(1)));
            n = 0;
        }
    }
    v.sort();
    v
}

/// `parse_usi_move` of each legal move's text returns that same move; the oracle's texts parse.
#[test]
fn usi_moves_parse_back() {
    for e in load() {
        let Some(pos) = parse_entry(&e) else {
            continue;
        };
        for m in gen(&pos, GenKind::All) {
            let text = m.to_string();
            assert_eq!(pos.parse_usi_move(&text), Ok(m), "{}: parse_usi_move({text})", e.sfen);
        }
        // A move the oracle lists but we might print differently would show up here too.
        for text in &e.moves {
            let m = pos.parse_usi_move(text).unwrap_or_else(|err| panic!("{}: {text}: {err}", e.sfen));
            assert_eq!(&m.to_string(), text);
        }
    }
}

/// `has_evasion` (the early-exit mate test) agrees with full generation on every fixture
/// position that is in check.
#[test]
fn has_evasion_matches_generation() {
    let mut checked = 0;
    for line in
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt")).unwrap().lines()
    {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let sfen = line.split('\t').next().unwrap();
        let Ok(pos) = engine::Position::from_sfen(sfen) else { continue };
        if !pos.in_check() {
            continue;
        }
        let mut list = engine::MoveList::new();
        engine::generate_legal(&pos, &mut list);
        assert_eq!(pos.has_evasion(), !list.is_empty(), "{sfen}");
        checked += 1;
    }
    assert!(checked > 5000, "only {checked} positions in check");
}
