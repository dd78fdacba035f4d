//! `kaname go`: think about one position, as a GUI's `go movetime` would, and print the
//! `info` lines and the `bestmove`.

use crate::protocol::output::Output;
use crate::protocol::{lines, options};
use std::sync::Arc;
use std::time::Duration;

/// Think about one position and print the best move
///
/// Searches the position for `--movetime` milliseconds with the options' defaults, as a GUI's
/// `go movetime` would, and prints the `info` lines and the `bestmove`.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The position, its words [default: the start position]
    #[arg(long, value_name = "sfen", num_args = 0..)]
    pub sfen: Vec<String>,
    /// Moves played from it, USI
    #[arg(long, value_name = "move", num_args = 0..)]
    pub moves: Vec<String>,
    /// Thinking time, milliseconds
    #[arg(long, value_name = "ms", default_value_t = 3000)]
    pub movetime: u64,
}

/// `kaname go`: a bad SFEN or an illegal move is a usage error.
pub fn cli(a: &Args) {
    let usage_error = |e: String| -> ! { crate::args::usage_error::<Args>("go", e) };
    let mut pos = if a.sfen.is_empty() {
        engine::Position::startpos()
    } else {
        engine::Position::from_sfen(&a.sfen.join(" ")).unwrap_or_else(|e| usage_error(format!("bad SFEN: {e}")))
    };
    if let Some(e) = crate::protocol::parse::apply_moves(&mut pos, a.moves.iter().map(String::as_str)) {
        usage_error(e);
    }
    let movetime = a.movetime;
    let out = Arc::new(Output::stdout());
    let settings = options::Settings::default();
    if let Some(r) = search::immediate_result(&pos, settings.search.entering_king_rule) {
        if let Some(info) = search::immediate_info(&r) {
            out.line(&lines::info_line(&pos, &info, lines::CpUnits::Kaname));
        }
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
        Box::new(move |info| info_out.line(&lines::info_line(&info_pos, &info, lines::CpUnits::Kaname))),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let a: Args = crate::args::parse("--sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1 --movetime 100").unwrap();
        assert_eq!((a.sfen.join(" ").as_str(), a.movetime), ("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 100));
        let a: Args = crate::args::parse("--moves 7g7f 3c3d --moves 2g2f").unwrap();
        assert_eq!((a.moves.len(), a.movetime), (3, 3000));
        for bad in ["--movetime", "--movetime x", "--movetime -1", "7g7f", "--bogus"] {
            assert!(crate::args::parse::<Args>(bad).is_err(), "{bad}");
        }
    }
}
