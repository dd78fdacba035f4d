//! Perft against the reference counts in `tests/data/perft.txt` (published values and cshogi).
//!
//! Every depth whose expected leaf count is at most `LEAF_BUDGET` is checked; the start position
//! at depth 6 (547,581,517 leaves) has its own `#[ignore]` test for CI to run explicitly:
//! `cargo test -p engine --release --test perft_suite -- --ignored`.

use engine::{perft, Position};

const PERFT_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/perft.txt");

/// Depths with more expected leaves than this are skipped in the default run.
const LEAF_BUDGET: u64 = 60_000_000;

struct Case {
    name: String,
    sfen: String,
    counts: Vec<u64>,
}

fn load() -> Vec<Case> {
    let text = std::fs::read_to_string(PERFT_FILE).expect("read tests/data/perft.txt");
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(fields.len() >= 3, "perft.txt line {}: expected name, sfen, counts, source: {line}", i + 1);
        let counts = fields[2]
            .split(',')
            .map(|c| {
                c.trim().parse::<u64>().unwrap_or_else(|e| panic!("perft.txt line {}: bad count {c:?}: {e}", i + 1))
            })
            .collect::<Vec<_>>();
        assert!(!counts.is_empty(), "perft.txt line {}: no counts", i + 1);
        cases.push(Case { name: fields[0].to_string(), sfen: fields[1].to_string(), counts });
    }
    cases
}

#[test]
fn perft_file_is_well_formed() {
    let cases = load();
    assert!(cases.len() >= 8, "only {} perft cases", cases.len());
    assert!(cases.iter().any(|c| c.name == "startpos"));
    for c in &cases {
        // Every SFEN in the file parses.
        Position::from_sfen(&c.sfen).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    }
}

#[test]
fn perft_suite_within_budget() {
    let cases = load();
    let mut checked_total = 0;
    let mut failures = Vec::new();
    for c in &cases {
        let mut pos = Position::from_sfen(&c.sfen).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let before = pos.to_sfen();
        let mut checked = Vec::new();
        let mut skipped = Vec::new();
        for (i, &expected) in c.counts.iter().enumerate() {
            let depth = i as u32 + 1;
            if expected > LEAF_BUDGET {
                skipped.push(depth);
                continue;
            }
            let got = perft(&mut pos, depth);
            if got != expected {
                failures.push(format!("{} depth {depth}: expected {expected}, got {got} ({})", c.name, c.sfen));
            }
            checked.push(depth);
            checked_total += 1;
        }
        assert_eq!(pos.to_sfen(), before, "{}: perft left the position changed", c.name);
        println!(
            "perft {:<22} checked depths {:?}{}",
            c.name,
            checked,
            if skipped.is_empty() { String::new() } else { format!(", skipped (over budget) {skipped:?}") }
        );
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
    assert!(checked_total >= 30, "only {checked_total} depths checked");
}

/// The full start position at depth 6 (547,581,517 leaves): a few seconds, run by CI explicitly.
#[test]
#[ignore]
fn perft_startpos_depth6() {
    let cases = load();
    let start = cases.iter().find(|c| c.name == "startpos").expect("startpos case");
    assert!(start.counts.len() >= 6, "startpos has no depth-6 count");
    assert_eq!(start.counts[5], 547_581_517);
    let mut pos = Position::from_sfen(&start.sfen).unwrap();
    assert_eq!(perft(&mut pos, 6), start.counts[5]);
}
