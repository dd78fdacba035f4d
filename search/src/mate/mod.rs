//! The df-pn mate solver behind `go mate`. (Placeholder: always times out.)

use engine::{Move, Position};
use std::sync::atomic::AtomicBool;

/// The answer to `go mate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A mating line from the root: every attacker move checks, the last position is mate.
    Mate(Vec<Move>),
    /// Proved: no mate exists.
    NoMate,
    /// Not decided within the limit (or stopped).
    Timeout,
}

/// Progress of the mate solver, for `info` lines.
#[derive(Clone, Copy, Debug)]
pub struct MateProgress {
    /// Nodes searched so far.
    pub nodes: u64,
    /// Milliseconds since the start.
    pub time_ms: u64,
}

/// Solves `go mate`: searches for a forced mate by the side to move within `time_ms`
/// (`None` = until `stop`), reporting progress about once a second. Placeholder: always times out.
pub fn solve_mate(
    pos: &Position,
    time_ms: Option<u64>,
    hash_mb: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(MateProgress),
) -> MateResult {
    let _ = (pos, time_ms, hash_mb, stop, progress);
    MateResult::Timeout
}
