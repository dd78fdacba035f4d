//! `bench`: a fixed-depth search of a fixed list of positions, reporting nodes and speed. The
//! node total is the signature that shows whether a change altered the search.

use crate::args::{whole, VariantArg};
use crate::protocol::ascii;
use crate::protocol::options;
use crate::protocol::output::Output;
use engine::{Position, VariantId};
use search::Searcher;
use std::ops::RangeInclusive;
use std::time::Instant;

/// Default depth of `bench` (to be tuned once the search is real).
pub const DEFAULT_DEPTH: i32 = 10;

/// The depths `bench` takes (on the command line and in a session).
pub const DEPTHS: RangeInclusive<u64> = 1..=127;

/// The thread counts `bench` takes (`Threads`' range).
pub const THREADS: RangeInclusive<u64> = 1..=256;

/// The hash sizes `bench` takes, MiB (`USI_Hash`'s range).
pub const HASH_MB: RangeInclusive<u64> = 1..=65536;

/// A fixed-depth search of the bench positions, reporting nodes and speed
///
/// Searches each bench position (opening, middle game, end game, handicap, mate) to a fixed
/// depth with a fresh hash table and prints per position and in total `Nodes searched: N`, the
/// time and nodes/s. The node total is the search's signature. In a session, `bench [depth]
/// [threads] [hash]` does the same with the session's options.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Search depth
    #[arg(value_name = "depth", default_value_t = DEFAULT_DEPTH, value_parser = whole::<i32>(DEPTHS))]
    pub depth: i32,
    /// Search threads [default: the Threads option's]
    #[arg(value_name = "threads", value_parser = whole::<usize>(THREADS))]
    pub threads: Option<usize>,
    /// Hash table, MiB [default: the USI_Hash option's]
    #[arg(value_name = "hash", value_parser = whole::<usize>(HASH_MB))]
    pub hash: Option<usize>,
    /// The game.
    #[command(flatten)]
    pub variant: VariantArg,
}

/// The bench positions: name and SFEN.
pub const POSITIONS: &[(&str, &str)] = &[
    ("opening-start", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
    ("opening-early", "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9"),
    ("middle-complex", "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1"),
    ("middle-tactical", "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"),
    ("middle-gote", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
    ("middle-91", "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91"),
    ("endgame-124", "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124"),
    ("handicap-2piece", "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"),
    ("mate-drops", "7k1/9/9/9/l2s5/6snb/9/9/8K b 2G 1"),
    ("mate-lance", "7lk/9/8S/9/9/9/9/7L1/8K b P 1"),
];

/// Minishogi's bench positions (`bench` after `setoption name USI_Variant value minishogi`).
pub const MINISHOGI_POSITIONS: &[(&str, &str)] = &[
    ("mini-start", "rbsgk/4p/5/P4/KGSBR b - 1"),
    ("mini-drop-mate-barred", "k4/2S2/1G3/5/4K b P 1"),
    ("mini-dragon", "2+Rgk/4+p/1s3/P1B2/KG3 w Srb 23"),
];

/// Sho shogi's bench positions: the start, a prince beside its king, and a side left with its
/// prince alone.
pub const SHO_SHOGI_POSITIONS: &[(&str, &str)] = &[
    ("sho-start", "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1"),
    ("sho-prince", "lnsgkgsnl/1r2e2b1/pppp+Epppp/9/9/4p4/PPPP1PPPP/1B5R1/LNSGKGSNL w - 12"),
    ("sho-lone-prince", "lnsg1gsnl/1r2+e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 30"),
];

/// The bench positions of `variant`. Standard shogi's are the search's signature (`Bench:`).
pub fn positions(variant: VariantId) -> &'static [(&'static str, &'static str)] {
    match variant {
        VariantId::Shogi => POSITIONS,
        VariantId::Minishogi => MINISHOGI_POSITIONS,
        VariantId::ShoShogi => SHO_SHOGI_POSITIONS,
    }
}

/// Runs the bench of `variant` with the searcher's current options, printing through `print`.
/// Returns the total node count.
pub fn run(searcher: &mut Searcher, depth: i32, variant: VariantId, print: &mut dyn FnMut(String)) -> u64 {
    // The node count must not depend on how fast this machine maps memory: the whole table.
    searcher.finish_mapping();
    let o = searcher.options();
    let hash_mb = searcher.hash_mb_in_use();
    let list = positions(variant);
    let game = if variant == VariantId::Shogi { String::new() } else { format!(", {variant}") };
    print(format!("bench: depth {depth}, threads {}, hash {hash_mb} MB, {} positions{game}", o.threads, list.len()));
    print(machine_line(searcher));
    let mut total = 0u64;
    let mut total_ms = 0u64;
    for (i, (name, sfen)) in list.iter().enumerate() {
        let pos = Position::from_sfen_in(variant, sfen).expect("bench SFENs are valid");
        // Empties the table in place (its pages stay mapped, so no page faults are timed).
        searcher.clear();
        let t = Instant::now();
        let nodes = searcher.bench_search(&pos, depth);
        let ms = t.elapsed().as_millis() as u64;
        total += nodes;
        total_ms += ms;
        print(format!(
            "position {}/{} {name}: Nodes searched: {nodes} time {ms} ms nodes/s {}",
            i + 1,
            list.len(),
            nps(nodes, ms)
        ));
    }
    // Table clearing between positions is not search time.
    print(format!("Nodes searched: {total}"));
    print(format!("Time: {total_ms} ms"));
    print(format!("Nodes/second: {}", nps(total, total_ms)));
    total
}

/// What the machine gives the bench, for people comparing one machine with another: the
/// evaluation with the instructions its net runs on (chosen at run time from the CPU: AVX2
/// where it has them, else portable code), and the pages of the tables.
fn machine_line(searcher: &Searcher) -> String {
    let eval = match (searcher.eval_in_use(), searcher.net()) {
        (eval::EvalKind::Net, Some(net)) => {
            let simd = match net {
                eval::Net::Kaname(n) if n.uses_avx2() => "AVX2".to_string(),
                eval::Net::Kaname(_) => "portable".to_string(),
                eval::Net::Yo(n) => format!("{:?}", n.simd()),
            };
            format!("net {} on {simd}", net.architecture())
        }
        _ => "classical".to_string(),
    };
    let pages = if cfg!(target_os = "linux") {
        "transparent huge pages (advised)"
    } else if engine::hugemem::large_pages() {
        "large pages"
    } else {
        "ordinary pages"
    };
    format!("bench: eval {eval}, tables in {pages}")
}

/// Parses `[depth] [threads] [hash]` of `bench` typed in a session, in the ranges of `Args`.
pub fn session_args(args: &[&str]) -> Result<(i32, Option<usize>, Option<usize>), String> {
    if args.len() > 3 {
        return Err("expected bench [depth] [threads] [hash]".into());
    }
    let num = |i: usize, what: &str, range: RangeInclusive<u64>| -> Result<Option<u64>, String> {
        match args.get(i) {
            None => Ok(None),
            Some(t) => match t.parse::<u64>() {
                Ok(n) if range.contains(&n) => Ok(Some(n)),
                _ => Err(format!("{what} must be {}..{}, not '{}'", range.start(), range.end(), ascii(t, 20))),
            },
        }
    };
    let depth = num(0, "depth", DEPTHS)?.map_or(DEFAULT_DEPTH, |d| d as i32);
    let threads = num(1, "threads", THREADS)?.map(|n| n as usize);
    let hash = num(2, "hash", HASH_MB)?.map(|n| n as usize);
    Ok((depth, threads, hash))
}

/// `kaname bench`: the bench with the options' defaults, but for `a`'s.
pub fn cli(a: &Args) {
    let variant = a.variant.variant;
    let mut o = options::Settings::default().search;
    o.variant = variant;
    o.threads = a.threads.unwrap_or(o.threads);
    o.hash_mb = a.hash.unwrap_or(o.hash_mb);
    let mut searcher = Searcher::new();
    searcher.set_options(&o);
    searcher.set_net(options::load_net("").unwrap_or(None));
    searcher.prepare();
    let out = Output::stdout();
    run(&mut searcher, a.depth, variant, &mut |l| out.line(&l));
}

/// Nodes per second, avoiding a division by zero.
pub fn nps(nodes: u64, ms: u64) -> u64 {
    (nodes as u128 * 1000 / ms.max(1) as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_arguments() {
        assert_eq!(session_args(&[]).unwrap(), (DEFAULT_DEPTH, None, None));
        assert_eq!(session_args(&["5", "2", "16"]).unwrap(), (5, Some(2), Some(16)));
        assert!(session_args(&["0"]).is_err());
        assert!(session_args(&["x"]).is_err());
        let a: Args = crate::args::parse("5 2 16 --variant minishogi").unwrap();
        assert_eq!((a.depth, a.threads, a.hash, a.variant.variant), (5, Some(2), Some(16), VariantId::Minishogi));
        let a: Args = crate::args::parse("").unwrap();
        assert_eq!((a.depth, a.threads, a.hash, a.variant.variant), (DEFAULT_DEPTH, None, None, VariantId::Shogi));
        for bad in ["0", "x", "128", "1 0", "1 1 65537", "1 1 1 1", "--variant chess"] {
            assert!(crate::args::parse::<Args>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bench_positions_are_valid_and_playable() {
        assert!(POSITIONS.len() >= 10);
        for variant in VariantId::ALL {
            for (name, sfen) in positions(variant) {
                let pos = Position::from_sfen_in(variant, sfen).unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut list = engine::MoveList::new();
                engine::generate_legal(&pos, &mut list);
                assert!(!list.is_empty(), "{name} has no legal move");
            }
        }
    }
}
