//! `perft`: the leaf nodes of the move tree to a depth, split by root move (typed in a session,
//! or `kaname perft` on the command line).

use crate::args::{whole, VariantArg};
use crate::protocol::output::Output;
use engine::Position;
use std::ops::RangeInclusive;
use std::time::Instant;

/// The depths `perft` takes (on the command line and in a session).
pub const DEPTHS: RangeInclusive<u64> = 1..=12;

/// Count leaf nodes to a depth, split by root move
///
/// Prints one line per root move with its leaf count, then the total (`Nodes searched: N`),
/// the time and nodes/s. In a session, `perft <depth>` counts from the session's position.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Depth, plies
    #[arg(value_name = "depth", value_parser = whole::<u32>(DEPTHS))]
    pub depth: u32,
    /// The position, as one argument or as its words (a leading `sfen` is dropped) [default:
    /// the start position]
    #[arg(value_name = "sfen", num_args = 0..)]
    pub sfen: Vec<String>,
    /// Count the last ply by generating its moves (like-for-like with other engines' perft)
    /// instead of counting them at once
    #[arg(long)]
    pub generate: bool,
    /// The game.
    #[command(flatten)]
    pub variant: VariantArg,
}

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

/// `kaname perft`: the lines of `perft` for `a`'s position; a bad SFEN is a usage error.
pub fn cli(a: &Args) {
    let variant = a.variant.variant;
    let pos = if a.sfen.is_empty() {
        Position::startpos_in(variant)
    } else {
        let sfen = a.sfen.join(" ");
        let sfen = sfen.strip_prefix("sfen ").unwrap_or(&sfen);
        Position::from_sfen_in(variant, sfen)
            .unwrap_or_else(|e| crate::args::usage_error::<Args>("perft", format!("bad SFEN: {e}")))
    };
    let last = if a.generate { engine::LastPly::Generate } else { engine::LastPly::Count };
    Output::stdout().lines(perft(&pos, a.depth, last));
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

    #[test]
    fn arguments() {
        let a: Args = crate::args::parse("3 --generate 7lk/9/8S/9/9/9/9/7L1/8K b P 1 --variant shogi").unwrap();
        assert_eq!((a.depth, a.generate, a.sfen.len()), (3, true, 4));
        let a: Args = crate::args::parse("2 sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap();
        assert_eq!(a.sfen[3], "-");
        for bad in ["", "0", "13", "x", "2 --variant chess"] {
            assert!(crate::args::parse::<Args>(bad).is_err(), "{bad}");
        }
    }
}
