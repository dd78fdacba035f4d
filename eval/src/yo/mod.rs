//! YaneuraOu's NNUE nets (`nn.bin`): the files the shogi world plays with (Suisho5 and the
//! tanuki- nets, Shinden3, AobaNNUE, the nnue-pytorch branch nets, the K-P nets), read at
//! run time in every shape of `shape::SUPPORTED` and evaluated to the unit as YaneuraOu
//! evaluates them (`YoNet::evaluate_full` is what YaneuraOu's `e` command prints).
//!
//! - `shape`: the shapes, their sizes, hashes and names;
//! - `file`: the file format, read and written;
//! - `features`: BonaPieces and the HalfKP and K-P inputs;
//! - `network`: the parameters laid out for inference, the reference evaluation;
//! - `accumulator` and `layers`: the feature transformer and the dense part, each with an
//!   AVX2 path and a portable one that compute the same integers;
//! - `stack`: the lazily updated per-ply state the search carries;
//! - `random`: seeded random nets for the tests (the fixtures of YaneuraOu's own values are
//!   made over the same nets by `scripts/gen_yo_nnue_fixture.py`).
//!
//! What is YaneuraOu's and what Kaname adds: the arithmetic, the numbering and the file are
//! YaneuraOu's; the lazy multi-ply update is Kaname's (YaneuraOu updates from the previous
//! ply only).

pub mod accumulator;
pub mod features;
pub mod file;
pub mod layers;
pub mod network;
pub mod random;
pub mod shape;
pub(crate) mod stack;

pub use file::{YoNetError, YoNetFile};
pub use network::{Simd, YoNet, DEFAULT_FV_SCALE};
pub use shape::Shape;

/// YaneuraOu's conversion of an evaluation to the centipawns it prints
/// (`USIEngine::to_cp`, `usi.cpp:1110`: `100 * v / PawnValue`, PawnValue 90).
pub const fn to_cp(v: i32) -> i32 {
    100 * v / 90
}
