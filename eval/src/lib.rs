//! Kaname's evaluation. Two evaluations sit behind one interface, `Evaluator`, which the
//! search tells about every move it makes and unmakes and asks for values:
//! - `classical`: material (Apery's values) plus king-pressure terms, hand-written;
//! - `nnue`: a network trained from Kaname's own games (see `nnue`; `train` is its trainer);
//! - `yo`: YaneuraOu's NNUE nets (`nn.bin`), evaluated exactly as YaneuraOu does.
//!
//! `Net` is a loaded net of either family, told apart by the file's content.
//!
//! Piece values (`piece_value`, `move_gain`, ...) are shared by both: the search's move
//! ordering and pruning margins use them whatever evaluates the leaves.

#![deny(missing_docs)]

pub mod classical;
mod evaluator;
pub mod net;
pub mod nnue;
pub mod rng;
pub mod train;
mod wide;
pub mod yo;

pub use classical::{capture_gain, evaluate, hand_value, material, move_gain, piece_value, positional, Value};
pub use evaluator::{EvalKind, Evaluator, ParseEvalKindError};
pub use net::{Loaded, Net, NetLoadError};
