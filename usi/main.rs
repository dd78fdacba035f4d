//! Kaname, a USI shogi engine: the binary. With no arguments it speaks USI on stdin/stdout;
//! `bench`, `perft`, `go`, `analyse`, `train` and `help` are for people and scripts. This file
//! only dispatches: each command lives in the room that owns its subject.

mod analyse;
mod args;
mod book;
mod commands;
mod protocol;
mod session;

use protocol::output::Output;
use std::sync::Arc;

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
            Output::stdout().lines(session::help_lines())
        }
        None | Some("--tune") => {
            let out = Arc::new(Output::stdout());
            let mut session = session::Session::new(out);
            session.set_tuning(args.first() == Some(&"--tune"));
            let tx = session.sender();
            protocol::reader::spawn(move |line| {
                tx.send(line.map_or(session::Event::Eof, session::Event::Line)).is_ok()
            });
            session.run();
            // Search threads may still be parked; stdout is flushed line by line.
            std::process::exit(0);
        }
        Some("bench") => commands::bench::cli(&args[1..]),
        Some("perft") => commands::perft::cli(&args[1..]),
        Some("go") => commands::go::cli(&args[1..]),
        Some("gensfen") => commands::gensfen::cli(&args[1..]),
        Some("psv-dump") => match commands::gensfen::dump(&args[1..]) {
            Ok(lines) => Output::stdout().lines(lines),
            Err(e) => args::usage_error(&e),
        },
        Some("train") if wants_help => Output::stdout().lines(commands::train::USAGE.lines()),
        Some("train") => commands::train::cli(&args[1..]),
        Some("analyse" | "analyze") if wants_help => Output::stdout().lines(analyse::USAGE.lines()),
        Some("analyse" | "analyze") => analyse::cli(&args[1..]),
        Some("makebook") if wants_help => Output::stdout().lines(book::make::USAGE.lines()),
        Some("makebook") => book::make::cli(&args[1..]),
        Some("options-markdown") => print!("{}", protocol::options::markdown_table()),
        Some("help" | "--help" | "-h") => Output::stdout().lines(session::help_lines()),
        Some(other) => args::usage_error(&format!("unknown command '{other}'")),
    }
}
