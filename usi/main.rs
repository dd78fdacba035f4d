//! Kaname, a USI shogi engine: the binary. With no arguments it speaks USI on stdin/stdout;
//! the commands (`kaname help`) are for people and scripts. This file only dispatches: the
//! command line is parsed by clap from the argument structs of the rooms that own the
//! commands, and each command runs there.
//!
//! The rooms, each importing only those before it: `protocol` (the USI language), `args` (what
//! the commands' arguments share), then `book`, `analyse` and `commands` (side by side), then
//! `session` (the USI session). Nothing imports from this file.

mod analyse;
mod args;
mod book;
mod commands;
mod protocol;
mod session;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// The command line: a command, or none to speak USI.
#[derive(Parser)]
#[command(name = "kaname", bin_name = "kaname", version, args_conflicts_with_subcommands = true)]
struct Cli {
    /// Speak USI as without arguments, declaring the Tune_* search parameters (SPSA)
    #[arg(long)]
    tune: bool,
    /// The command.
    #[command(subcommand)]
    command: Option<Command>,
}

/// The commands; each one's help is its argument struct's, in its room.
#[derive(Subcommand)]
enum Command {
    Bench(commands::bench::Args),
    Perft(commands::perft::Args),
    Go(commands::go::Args),
    #[command(alias = "analyze")]
    Analyse(analyse::Args),
    Gensfen(commands::gensfen::Args),
    PsvDump(commands::gensfen::DumpArgs),
    Makebook(book::make::Args),
    Train(commands::train::Args),
    /// Print the options table (Markdown, as in the README)
    OptionsMarkdown,
}

/// The overview of every command and of a session's commands (`kaname help`, `help` in a
/// session).
fn help_lines() -> Vec<String> {
    args::overview(&Cli::command(), session::COMMANDS)
}

/// Logging for the commands (not a session): `RUST_LOG` (default `warn`) on stderr.
fn init_command_log() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
}

fn main() {
    if std::env::args_os().len() == 1 {
        // The GUI's case: USI at once, before the command line's parser is built. GUIs never
        // read stderr: a session's diagnostics are bounded there (`protocol::diag`).
        protocol::diag::init_session();
        session::run_stdio(false, help_lines);
    }
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `kaname <command> help` is `kaname <command> --help`, as it always was.
    if argv.get(2).is_some_and(|a| a == "help") {
        argv[2] = "--help".into();
    }
    let cmd = Cli::command();
    let help = args::overview(&cmd, session::COMMANDS).join("\n");
    let cli = Cli::from_arg_matches(&cmd.override_help(help).get_matches_from(argv)).unwrap_or_else(|e| e.exit());
    match cli.command {
        None => protocol::diag::init_session(),
        Some(_) => init_command_log(),
    }
    match cli.command {
        None => session::run_stdio(cli.tune, help_lines),
        Some(Command::Bench(a)) => commands::bench::cli(&a),
        Some(Command::Perft(a)) => commands::perft::cli(&a),
        Some(Command::Go(a)) => commands::go::cli(&a),
        Some(Command::Analyse(a)) => analyse::cli(a),
        Some(Command::Gensfen(a)) => commands::gensfen::cli(&a),
        Some(Command::PsvDump(a)) => commands::gensfen::dump_cli(&a),
        Some(Command::Makebook(a)) => book::make::cli(&a),
        Some(Command::Train(a)) => commands::train::cli(&a),
        Some(Command::OptionsMarkdown) => print!("{}", protocol::options::markdown_table()),
    }
}
