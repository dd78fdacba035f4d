//! Differential test of the variants against Fairy-Stockfish's move generator: the legal moves
//! of the positions in `tests/data/legal_moves_<variant>.txt` (made by
//! `scripts/gen_variant_fixture.py`), the pawn-drop mates Fairy-Stockfish lists as legal but
//! shogi's rules forbid, and the SFEN of each position.

use engine::{generate_legal, MoveError, MoveList, Position, VariantId};
use std::collections::BTreeSet;

/// How many mismatching positions to describe in the failure message.
const REPORT: usize = 5;

fn fixture(variant: VariantId) -> String {
    let path = format!("{}/../tests/data/legal_moves_{}.txt", env!("CARGO_MANIFEST_DIR"), variant.name());
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn compare(variant: VariantId, min_positions: usize) {
    let drops = variant.desc().drops;
    let text = fixture(variant);
    let (mut positions, mut mismatches, mut drop_mates, mut report) = (0, 0, 0, Vec::new());
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() >= 3, "line {}: too few fields", i + 1);
        let count: usize = f[1].parse().expect("move count");
        let want: BTreeSet<String> = f[2].split_whitespace().map(str::to_string).collect();
        assert_eq!(want.len(), count, "line {}: count field disagrees with the list", i + 1);
        let pos = Position::from_sfen_in(variant, f[0]).unwrap_or_else(|e| panic!("line {}: {e}: {}", i + 1, f[0]));
        pos.is_consistent().unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        // The same board and side to move as Fairy-Stockfish prints them.
        let ours = pos.to_sfen();
        let fields = |s: &str| s.split_whitespace().take(2).map(str::to_string).collect::<Vec<_>>();
        assert_eq!(fields(&ours), fields(f[0]), "line {}", i + 1);
        let mut list = MoveList::new();
        generate_legal(&pos, &mut list);
        let got: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
        assert_eq!(got.len(), list.len(), "line {}: a move generated twice", i + 1);
        if got != want {
            mismatches += 1;
            if report.len() < REPORT {
                report.push(format!(
                    "line {} {}: missing {:?}, extra {:?}",
                    i + 1,
                    f[0],
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>()
                ));
            }
        }
        for m in want.iter() {
            assert!(pos.parse_usi_move(m).is_ok(), "line {}: {m} refused", i + 1);
        }
        for m in f.get(3).map(|s| s.split_whitespace().collect::<Vec<_>>()).unwrap_or_default() {
            drop_mates += 1;
            let sq = m[2..].parse().unwrap();
            assert_eq!(pos.parse_usi_move(m), Err(MoveError::PawnDropMate(sq)), "line {}", i + 1);
        }
        positions += 1;
    }
    assert!(mismatches == 0, "{mismatches} of {positions} positions differ:\n{}", report.join("\n"));
    assert!(positions >= min_positions, "only {positions} positions");
    // Only a variant with drops has pawn-drop mates to take out of Fairy-Stockfish's lists.
    assert_eq!(drop_mates > 0, drops, "{drop_mates} pawn-drop mates");
}

#[test]
fn minishogi_matches_fairy_stockfish() {
    compare(VariantId::Minishogi, 5_000);
}

#[test]
fn shoshogi_matches_fairy_stockfish() {
    compare(VariantId::ShoShogi, 5_000);
}
