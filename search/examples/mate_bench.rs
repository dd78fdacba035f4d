//! Runs Kaname's mate solver over a tsume suite (tests/data/tsume.txt format) and prints
//! solved positions per mate length, time and nodes per second.
//!
//! Usage: `cargo run --release -p search --example mate_bench -- [SUITE] [MAX_NODES] [HASH_MB]`
//! (defaults: tests/data/tsume.txt, 1000000 nodes, 64 MiB). With `--first` the first mate
//! proved is accepted (no search for the shortest). Prints one line per position with `-v`.

use engine::Position;
use search::{verify_line, MateQuery, MateResult};
use std::collections::BTreeMap;
use std::time::Instant;

/// Per label: positions, solved, right length, nodes, seconds.
type Row = (u32, u32, u32, u64, f64);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let first = args.iter().any(|a| a == "--first");
    let rest: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let suite = rest.first().map(|s| s.as_str()).unwrap_or("tests/data/tsume.txt");
    let max_nodes: u64 = rest.get(1).map(|s| s.parse().expect("MAX_NODES")).unwrap_or(1_000_000);
    let hash_mb: usize = rest.get(2).map(|s| s.parse().expect("HASH_MB")).unwrap_or(64);
    let text = std::fs::read_to_string(suite).expect("suite file");
    let mut table: BTreeMap<(u32, String), Row> = BTreeMap::new();
    let t_all = Instant::now();
    let mut wrong = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (sfen, label) = (f[0], f[1]);
        let pos = Position::from_sfen(sfen).expect("suite SFEN");
        let t = Instant::now();
        let query = MateQuery::new(hash_mb).nodes(max_nodes);
        let rep = if first { query.first_found() } else { query }.solve(&pos, None);
        let secs = t.elapsed().as_secs_f64();
        let known: Option<usize> = label.parse().ok();
        let (solved, right) = match (&rep.result, label) {
            (MateResult::Mate(pv), "nomate") => {
                wrong += 1;
                println!("WRONG: mate {} in a nomate position {sfen}", pv.len());
                (false, false)
            }
            (MateResult::Mate(pv), _) => {
                if !verify_line(&pos, pv) {
                    wrong += 1;
                    println!("WRONG: bad line for {sfen}");
                }
                let right = known.is_none_or(|k| k == pv.len());
                if known.is_some_and(|k| pv.len() < k) {
                    wrong += 1;
                    println!("WRONG: mate {} shorter than the known minimum {label}: {sfen}", pv.len());
                }
                (true, right)
            }
            (MateResult::NoMate, "nomate") => (true, true),
            (MateResult::NoMate, _) => {
                wrong += 1;
                println!("WRONG: nomate claimed for mate {label}: {sfen}");
                (false, false)
            }
            (MateResult::Timeout | MateResult::NotImplemented, _) => (false, false),
        };
        if verbose {
            let got = match &rep.result {
                MateResult::Mate(pv) => format!("mate {}", pv.len()),
                r => format!("{r:?}"),
            };
            println!("{label}\t{got}\t{}\t{:.3}s\t{sfen}", rep.nodes, secs);
        }
        let order = known.map_or(if label == "nomate" { 1000 } else { 999 }, |k| k as u32);
        let e = table.entry((order, label.to_string())).or_default();
        e.0 += 1;
        e.1 += solved as u32;
        e.2 += right as u32;
        e.3 += rep.nodes;
        e.4 += secs;
    }
    println!("Kaname df-pn ({} nodes max, {hash_mb} MiB{})", max_nodes, if first { ", first mate" } else { "" });
    println!(
        "{:>8} {:>6} {:>7} {:>7} {:>12} {:>9} {:>10}",
        "length", "count", "solved", "exact", "nodes", "time[s]", "nodes/s"
    );
    let (mut n, mut s, mut x, mut nodes, mut secs) = (0, 0, 0, 0, 0.0);
    for ((_, label), (c, so, r, no, t)) in &table {
        println!("{label:>8} {c:>6} {so:>7} {r:>7} {no:>12} {t:>9.4} {:>10.0}", *no as f64 / t.max(1e-9));
        n += c;
        s += so;
        x += r;
        nodes += no;
        secs += t;
    }
    println!("{:>8} {n:>6} {s:>7} {x:>7} {nodes:>12} {secs:>9.4} {:>10.0}", "total", nodes as f64 / secs.max(1e-9));
    println!("wall {:.2}s, wrong answers: {wrong}", t_all.elapsed().as_secs_f64());
    if wrong > 0 {
        std::process::exit(1);
    }
}
