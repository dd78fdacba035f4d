//! The commands for people and scripts beside the USI session: `bench` and `perft` (also typed
//! in a session, with `d` and `eval` of `board`), `go` (one search of one position), `gensfen`
//! and `psv-dump` (self-play training data), `train` (the net's trainer).
//!
//! May use: `protocol` (the lines, the option table's defaults, the net of `EvalFile`) and
//! `args`; not `book`, `analyse` or `session`.

pub mod bench;
pub mod board;
pub mod gensfen;
pub mod go;
pub mod perft;
pub mod train;
