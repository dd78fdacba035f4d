//! The tsume suite (tests/data/tsume.txt, made by scripts/gen_tsume.py): every answer is
//! checked move by move. A `Mate` line must be legal, every attacker move a check, the last
//! position checkmate, and, where the suite knows the minimal length, exactly that long. A
//! `nomate` position must never get a `Mate`, and a mate position never a `NoMate`.
//!
//! `suite_sample` (every 4th position) runs in the normal test pass; `suite_full` is
//! `#[ignore]`d: `cargo test --release -p search --test mate_suite -- --ignored`.

use engine::Position;
use search::{verify_line, MateQuery, MateResult};

/// Node budget of the search proper per position.
const NODES: u64 = 400_000;
/// Table size per position, MiB.
const HASH_MB: usize = 16;

struct Case {
    sfen: String,
    label: String,
}

fn load() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/tsume.txt"))
        .expect("tests/data/tsume.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case { sfen: f[0].to_string(), label: f[1].to_string() }
        })
        .collect()
}

#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    /// Known-length mates answered with a line of exactly that length.
    exact: usize,
    /// Mates (any length label) answered with a valid line.
    mates: usize,
    /// `nomate` positions answered `NoMate`.
    nomates: usize,
    /// Mates not found or not shortened to the known length within the budget.
    missed: Vec<String>,
    /// Wrong answers: never allowed.
    wrong: Vec<String>,
}

fn judge(cases: &[&Case]) -> Tally {
    let mut t = Tally::default();
    for c in cases {
        t.positions += 1;
        let pos = Position::from_sfen(&c.sfen).expect("suite SFEN");
        let rep = MateQuery::new(HASH_MB).nodes(NODES).solve(&pos, None);
        let known: Option<usize> = c.label.parse().ok();
        match (&rep.result, c.label.as_str()) {
            (MateResult::Mate(line), "nomate") => {
                t.wrong.push(format!("mate {} in a nomate position: {}", line.len(), c.sfen))
            }
            (MateResult::Mate(line), _) => {
                if !verify_line(&pos, line) {
                    t.wrong.push(format!("invalid line {line:?}: {}", c.sfen));
                    continue;
                }
                t.mates += 1;
                match known {
                    Some(k) if line.len() < k => {
                        t.wrong.push(format!("mate {} below the minimum {k}: {}", line.len(), c.sfen))
                    }
                    Some(k) if line.len() > k => t.missed.push(format!("mate {} for {k}: {}", line.len(), c.sfen)),
                    Some(_) => t.exact += 1,
                    None => {}
                }
            }
            (MateResult::NoMate, "nomate") => t.nomates += 1,
            (MateResult::NoMate, label) => t.wrong.push(format!("NoMate for mate {label}: {}", c.sfen)),
            (MateResult::Timeout, "nomate") => {}
            (MateResult::Timeout, label) => t.missed.push(format!("timeout for mate {label}: {}", c.sfen)),
            (MateResult::NotImplemented, _) => t.wrong.push(format!("not implemented: {}", c.sfen)),
        }
    }
    t
}

/// Judges the cases on two threads and merges the tallies.
fn run(cases: Vec<&Case>) -> Tally {
    let a: Vec<&Case> = cases.iter().step_by(2).copied().collect();
    let b: Vec<&Case> = cases.iter().skip(1).step_by(2).copied().collect();
    let (mut ta, tb) = std::thread::scope(|s| {
        let h = s.spawn(|| judge(&b));
        let ta = judge(&a);
        (ta, h.join().expect("judge thread"))
    });
    ta.positions += tb.positions;
    ta.exact += tb.exact;
    ta.mates += tb.mates;
    ta.nomates += tb.nomates;
    ta.missed.extend(tb.missed);
    ta.wrong.extend(tb.wrong);
    ta
}

fn report(t: &Tally, known: usize) {
    eprintln!(
        "{} positions: {} mates with a valid line, {}/{known} of known length exactly, {} NoMate proved; \
         {} missed, {} wrong",
        t.positions,
        t.mates,
        t.exact,
        t.nomates,
        t.missed.len(),
        t.wrong.len()
    );
    for m in &t.missed {
        eprintln!("missed: {m}");
    }
    assert!(t.wrong.is_empty(), "wrong answers:\n{}", t.wrong.join("\n"));
}

#[test]
fn suite_sample() {
    let all = load();
    let sample: Vec<&Case> = all.iter().step_by(4).collect();
    let known = sample.iter().filter(|c| c.label.parse::<usize>().is_ok()).count();
    let t = run(sample);
    report(&t, known);
    // Every known-length mate of the sample is solved, shortest, within the budget.
    assert_eq!(t.exact, known, "known-length mates not solved exactly");
}

#[test]
#[ignore]
fn suite_full() {
    let all = load();
    let known = all.iter().filter(|c| c.label.parse::<usize>().is_ok()).count();
    let t = run(all.iter().collect());
    report(&t, known);
    assert_eq!(t.exact, known, "known-length mates not solved exactly");
}
