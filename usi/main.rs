//! Kaname, a USI shogi engine: the binary. With no arguments it speaks USI on stdin/stdout;
//! `bench`, `perft`, `go`, `analyse`, `train` and `help` are for people and scripts.

mod analyse;
mod annotate;
mod bench;
mod book;
mod gensfen;
mod graph;
mod lines;
mod makebook;
mod options;
mod output;
mod own_book;
mod parse;
mod reader;
mod record;
mod session;
mod tools;
mod train;

use output::Output;
use std::sync::Arc;
use std::time::Duration;

/// Printable ASCII only (anything else becomes `?`), at most `max` characters (`...` marks a cut).
pub fn ascii(text: &str, max: usize) -> String {
    let mut s: String = text.chars().take(max).map(|c| if (' '..='~').contains(&c) { c } else { '?' }).collect();
    if text.chars().nth(max).is_some() {
        s.push_str("...");
    }
    s
}

/// The `help` text (also `kaname --help`).
pub fn help_lines() -> Vec<String> {
    [
        concat!("Kaname ", env!("CARGO_PKG_VERSION"), ", a USI shogi engine."),
        "",
        "Command line:",
        "  kaname                          speak USI on stdin/stdout (for GUIs)",
        "  kaname --tune                   the same, declaring the Tune_* search parameters (SPSA)",
        "  kaname bench [depth] [threads] [hash] [--variant minishogi]   fixed-depth search of the bench positions",
        "  kaname perft <depth> [--generate] [--variant minishogi] [<sfen>]   count leaf nodes, split by root move",
        "  kaname go [--sfen <sfen> | --moves <m...>] [--movetime <ms>]",
        "                                  think about one position and print the best move",
        "  kaname analyse <record> [--movetime MS | --nodes N | --depth D] [--threads N] [--multipv N]",
        "                 [--from PLY] [--to PLY] [--json F] [--kif F] [--csa F] [--graph F.svg]",
        "                 [--marks 0.05,0.10,0.20] [--eval net|classical] [--eval-file F] [--hash MB]",
        "                 [--no-progress]   analyse a KIF/KI2/CSA/USI game record (1000 ms per",
        "                                  position by default) and write <record>.analysis.json,",
        "                                  .kif (.csa) and .svg (kaname analyse --help for more)",
        "  kaname gensfen [--out F] [--positions N] [--nodes N | --depth D] [--threads N] [--seed S]",
        "                 [--random-plies MIN-MAX] [--max-plies N] [--hash MB] [--eval net|classical]",
        "                 [--eval-file F]   self-play training positions (PackedSfenValue)",
        "  kaname psv-dump <file> [n]      print PackedSfenValue records as text",
        "  kaname makebook [--out F] [--openings F | --psv F] [--plies N] [--multipv N] [--nodes N]",
        "                                  an opening book from Kaname's analysis (makebook --help)",
        "  kaname train --data <psv...> --out <net.knn> [options]",
        "                                  train the NNUE net (kaname train --help for options)",
        "  kaname options-markdown         print the options table (Markdown)",
        "  kaname help | --help            this text",
        "",
        "USI commands: usi isready setoption usinewgame position go stop ponderhit gameover quit",
        "Extra commands: d (board), eval (static evaluation), perft <depth>,",
        "  bench [depth] [threads] [hash], usi_tunables (shogiarena's SPSA manifest), help",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Parses `[depth] [threads] [hash]` of `bench`.
pub fn bench_args(args: &[&str]) -> Result<(i32, Option<usize>, Option<usize>), String> {
    if args.len() > 3 {
        return Err("expected bench [depth] [threads] [hash]".into());
    }
    let num = |i: usize, what: &str, lo: u64, hi: u64| -> Result<Option<u64>, String> {
        match args.get(i) {
            None => Ok(None),
            Some(t) => match t.parse::<u64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
                _ => Err(format!("{what} must be {lo}..{hi}, not '{}'", ascii(t, 20))),
            },
        }
    };
    let depth = num(0, "depth", 1, 127)?.map_or(bench::DEFAULT_DEPTH, |d| d as i32);
    let threads = num(1, "threads", 1, 256)?.map(|n| n as usize);
    let hash = num(2, "hash", 1, 65536)?.map(|n| n as usize);
    Ok((depth, threads, hash))
}

/// Command-line arguments grouped by flag: each `--flag` with the values up to the next
/// `--flag` (`go` and `train` take several values per flag).
pub fn flag_groups<'a>(args: &'a [&'a str]) -> Vec<(&'a str, &'a [&'a str])> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i];
        i += 1;
        let start = i;
        while i < args.len() && !args[i].starts_with("--") {
            i += 1;
        }
        groups.push((flag, &args[start..i]));
    }
    groups
}

fn usage_error(msg: &str) -> ! {
    eprintln!("kaname: {msg}");
    eprintln!("try: kaname --help");
    std::process::exit(2);
}

/// `--variant <name>` taken out of `args` (standard shogi without it).
fn take_variant<'a>(args: &[&'a str]) -> (engine::VariantId, Vec<&'a str>) {
    let Some(i) = args.iter().position(|&a| a == "--variant") else {
        return (engine::VariantId::Shogi, args.to_vec());
    };
    let Some(name) = args.get(i + 1) else { usage_error("--variant needs a name (shogi, minishogi)") };
    let variant = name.parse().unwrap_or_else(|e: engine::UnknownVariant| usage_error(&e.to_string()));
    let rest = args.iter().enumerate().filter(|&(j, _)| j != i && j != i + 1).map(|(_, &a)| a).collect();
    (variant, rest)
}

fn cli_bench(args: &[&str]) {
    let (variant, args) = take_variant(args);
    let (depth, threads, hash) = bench_args(&args).unwrap_or_else(|e| usage_error(&e));
    let mut o = options::Settings::default().search;
    o.variant = variant;
    o.threads = threads.unwrap_or(o.threads);
    o.hash_mb = hash.unwrap_or(o.hash_mb);
    let mut searcher = search::Searcher::new();
    searcher.set_options(&o);
    searcher.set_net(options::load_net("").unwrap_or(None));
    searcher.prepare();
    let out = Output::stdout();
    bench::run(&mut searcher, depth, variant, &mut |l| out.line(&l));
}

fn cli_perft(args: &[&str]) {
    // `--generate` counts the last ply by generating the moves (like-for-like with other
    // engines' perft) instead of the default popcount.
    let last = if args.contains(&"--generate") { engine::LastPly::Generate } else { engine::LastPly::Count };
    let (variant, args) = take_variant(args);
    let args: Vec<&str> = args.iter().copied().filter(|&a| a != "--generate").collect();
    let depth = match args.first().map(|d| d.parse::<u32>()) {
        Some(Ok(d)) if (1..=12).contains(&d) => d,
        _ => usage_error("expected perft <depth 1..12> [--generate] [--variant <name>] [<sfen>]"),
    };
    let pos = if args.len() > 1 {
        let sfen = args[1..].join(" ");
        let sfen = sfen.strip_prefix("sfen ").unwrap_or(&sfen);
        engine::Position::from_sfen_in(variant, sfen).unwrap_or_else(|e| usage_error(&format!("bad SFEN: {e}")))
    } else {
        engine::Position::startpos_in(variant)
    };
    Output::stdout().lines(tools::perft(&pos, depth, last));
}

fn cli_go(args: &[&str]) {
    let mut sfen: Vec<&str> = Vec::new();
    let mut moves: Vec<&str> = Vec::new();
    let mut movetime = 3000u64;
    for (flag, vals) in flag_groups(args) {
        match flag {
            "--sfen" => sfen.extend(vals),
            "--moves" => moves.extend(vals),
            "--movetime" => match vals {
                [t] => movetime = t.parse().unwrap_or_else(|_| usage_error("--movetime needs milliseconds")),
                _ => usage_error("--movetime needs milliseconds"),
            },
            other => usage_error(&format!("unknown argument '{other}'")),
        }
    }
    let mut pos = if sfen.is_empty() {
        engine::Position::startpos()
    } else {
        engine::Position::from_sfen(&sfen.join(" ")).unwrap_or_else(|e| usage_error(&format!("bad SFEN: {e}")))
    };
    if let Some(e) = parse::apply_moves(&mut pos, moves.iter().copied()) {
        usage_error(&e);
    }
    let out = Arc::new(Output::stdout());
    let settings = options::Settings::default();
    if let Some(r) = search::immediate_result(&pos, settings.search.entering_king_rule) {
        out.line(&lines::bestmove_line(&pos, &r));
        return;
    }
    let mut searcher = search::Searcher::new();
    searcher.set_options(&settings.search);
    searcher.set_net(options::load_net("").unwrap_or(None));
    searcher.prepare();
    let limits = search::Limits { movetime: Some(movetime), ..Default::default() };
    let (tx, rx) = crossbeam_channel::bounded(1);
    let info_out = out.clone();
    let info_pos = pos.clone();
    searcher.start(
        pos.clone(),
        limits,
        Box::new(move |info| info_out.line(&lines::info_line(&info_pos, &info))),
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    let timeout = Duration::from_millis(movetime.saturating_add(10_000));
    match rx.recv_timeout(timeout) {
        Ok(r) => out.line(&lines::bestmove_line(&pos, &r)),
        Err(_) => {
            searcher.stop();
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(r) => out.line(&lines::bestmove_line(&pos, &r)),
                Err(_) => {
                    eprintln!("kaname: the search did not finish");
                    std::process::exit(1);
                }
            }
        }
    }
    searcher.wait();
}

fn cli_gensfen(args: &[&str]) {
    let a = gensfen::parse_args(args).unwrap_or_else(|e| usage_error(&format!("gensfen: {e}")));
    let net = options::load_net(&a.eval_file).unwrap_or_else(|e| usage_error(&format!("gensfen: {e}")));
    if let Err(e) = gensfen::run(&a, net) {
        eprintln!("kaname: gensfen: {e}");
        std::process::exit(1);
    }
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    // `kaname <command> --help` prints help instead of reading `--help` as a value (a depth,
    // a file name); commands with more options than the general text have their own.
    let wants_help = args.get(1).is_some_and(|a| matches!(*a, "--help" | "-h" | "help"));
    match args.first().copied() {
        Some("bench" | "perft" | "go" | "gensfen" | "psv-dump" | "options-markdown") if wants_help => {
            Output::stdout().lines(help_lines())
        }
        None | Some("--tune") => {
            let out = Arc::new(Output::stdout());
            let mut session = session::Session::new(out);
            session.set_tuning(args.first() == Some(&"--tune"));
            let tx = session.sender();
            reader::spawn(move |line| tx.send(line.map_or(session::Event::Eof, session::Event::Line)).is_ok());
            session.run();
            // Search threads may still be parked; stdout is flushed line by line.
            std::process::exit(0);
        }
        Some("bench") => cli_bench(&args[1..]),
        Some("perft") => cli_perft(&args[1..]),
        Some("go") => cli_go(&args[1..]),
        Some("gensfen") => cli_gensfen(&args[1..]),
        Some("psv-dump") => match gensfen::dump(&args[1..]) {
            Ok(lines) => Output::stdout().lines(lines),
            Err(e) => usage_error(&e),
        },
        Some("train") if wants_help => Output::stdout().lines(train::USAGE.lines()),
        Some("train") => train::cli(&args[1..]),
        Some("analyse" | "analyze") if wants_help => Output::stdout().lines(analyse::USAGE.lines()),
        Some("analyse" | "analyze") => analyse::cli(&args[1..]),
        Some("makebook") if wants_help => Output::stdout().lines(makebook::USAGE.lines()),
        Some("makebook") => makebook::cli(&args[1..]),
        Some("options-markdown") => print!("{}", options::markdown_table()),
        Some("help" | "--help" | "-h") => Output::stdout().lines(help_lines()),
        Some(other) => usage_error(&format!("unknown command '{other}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_cleans_and_cuts() {
        assert_eq!(ascii("ab\u{3042}\tc", 10), "ab??c");
        assert_eq!(ascii("abcdef", 3), "abc...");
    }

    #[test]
    fn bench_arguments() {
        assert_eq!(bench_args(&[]).unwrap(), (bench::DEFAULT_DEPTH, None, None));
        assert_eq!(bench_args(&["5", "2", "16"]).unwrap(), (5, Some(2), Some(16)));
        assert!(bench_args(&["0"]).is_err());
        assert!(bench_args(&["x"]).is_err());
    }
}
