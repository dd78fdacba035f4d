//! `kaname go`: think about one position, as a GUI's `go movetime` would, and print the
//! `info` lines and the `bestmove`.

use crate::protocol::output::Output;
use std::sync::Arc;
use std::time::Duration;

/// `kaname go [--sfen <sfen>] [--moves <m>...] [--movetime <ms>]`: one search of one position,
/// its `info` lines and its `bestmove` on stdout.
pub fn cli(args: &[&str]) {
    let mut sfen: Vec<&str> = Vec::new();
    let mut moves: Vec<&str> = Vec::new();
    let mut movetime = 3000u64;
    for (flag, vals) in crate::args::flag_groups(args) {
        match flag {
            "--sfen" => sfen.extend(vals),
            "--moves" => moves.extend(vals),
            "--movetime" => match vals {
                [t] => {
                    movetime = t.parse().unwrap_or_else(|_| crate::args::usage_error("--movetime needs milliseconds"))
                }
                _ => crate::args::usage_error("--movetime needs milliseconds"),
            },
            other => crate::args::usage_error(&format!("unknown argument '{other}'")),
        }
    }
    let mut pos = if sfen.is_empty() {
        engine::Position::startpos()
    } else {
        engine::Position::from_sfen(&sfen.join(" "))
            .unwrap_or_else(|e| crate::args::usage_error(&format!("bad SFEN: {e}")))
    };
    if let Some(e) = crate::protocol::parse::apply_moves(&mut pos, moves.iter().copied()) {
        crate::args::usage_error(&e);
    }
    let out = Arc::new(Output::stdout());
    let settings = crate::protocol::options::Settings::default();
    if let Some(r) = search::immediate_result(&pos, settings.search.entering_king_rule) {
        out.line(&crate::protocol::lines::bestmove_line(&pos, &r));
        return;
    }
    let mut searcher = search::Searcher::new();
    searcher.set_options(&settings.search);
    searcher.set_net(crate::protocol::options::load_net("").unwrap_or(None));
    searcher.prepare();
    let limits = search::Limits { movetime: Some(movetime), ..Default::default() };
    let (tx, rx) = crossbeam_channel::bounded(1);
    let info_out = out.clone();
    let info_pos = pos.clone();
    searcher.start(
        pos.clone(),
        limits,
        Box::new(move |info| info_out.line(&crate::protocol::lines::info_line(&info_pos, &info))),
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    let timeout = Duration::from_millis(movetime.saturating_add(10_000));
    match rx.recv_timeout(timeout) {
        Ok(r) => out.line(&crate::protocol::lines::bestmove_line(&pos, &r)),
        Err(_) => {
            searcher.stop();
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(r) => out.line(&crate::protocol::lines::bestmove_line(&pos, &r)),
                Err(_) => {
                    eprintln!("kaname: the search did not finish");
                    std::process::exit(1);
                }
            }
        }
    }
    searcher.wait();
}
