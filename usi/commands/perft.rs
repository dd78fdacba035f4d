//! `perft`: the leaf nodes of the move tree to a depth, split by root move (typed in a session,
//! or `kaname perft` on the command line).

use crate::protocol::output::Output;
use engine::Position;
use std::time::Instant;

/// `perft`: one line per root move, then the total, time and speed.
pub fn perft(pos: &Position, depth: u32, last: engine::LastPly) -> Vec<String> {
    let mut p = pos.clone();
    let start = Instant::now();
    let divide = engine::perft_divide_with(&mut p, depth, last);
    let ms = start.elapsed().as_millis() as u64;
    let total: u64 = divide.iter().map(|(_, n)| n).sum();
    let mut lines: Vec<String> = divide.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    lines.push(format!("Nodes searched: {total}"));
    lines.push(format!("Time: {ms} ms"));
    lines.push(format!("Nodes/second: {}", super::bench::nps(total, ms)));
    lines
}

/// `kaname perft <depth> [--generate] [--variant <name>] [<sfen>]`.
pub fn cli(args: &[&str]) {
    // `--generate` counts the last ply by generating the moves (like-for-like with other
    // engines' perft) instead of the default popcount.
    let last = if args.contains(&"--generate") { engine::LastPly::Generate } else { engine::LastPly::Count };
    let (variant, args) = crate::args::take_variant(args);
    let args: Vec<&str> = args.iter().copied().filter(|&a| a != "--generate").collect();
    let depth = match args.first().map(|d| d.parse::<u32>()) {
        Some(Ok(d)) if (1..=12).contains(&d) => d,
        _ => crate::args::usage_error("expected perft <depth 1..12> [--generate] [--variant <name>] [<sfen>]"),
    };
    let pos = if args.len() > 1 {
        let sfen = args[1..].join(" ");
        let sfen = sfen.strip_prefix("sfen ").unwrap_or(&sfen);
        Position::from_sfen_in(variant, sfen).unwrap_or_else(|e| crate::args::usage_error(&format!("bad SFEN: {e}")))
    } else {
        Position::startpos_in(variant)
    };
    Output::stdout().lines(perft(&pos, depth, last));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_lines() {
        let lines = perft(&Position::startpos(), 2, engine::LastPly::Count);
        assert_eq!(lines.len(), 30 + 3);
        assert_eq!(lines[30], "Nodes searched: 900");
    }
}
