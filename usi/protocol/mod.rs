//! The USI protocol's language, shared by every room above it: what comes in (`reader`, the
//! stdin lines; `parse`, the `position`, `go` and `ponderhit` arguments), what goes out
//! (`lines`, the `info`, `bestmove` and `checkmate` lines checked against their position;
//! `output`, stdout and the `UsiLog` file, and `ascii`, how input is echoed; `diag`, a
//! session's log records and panic messages, bounded on stderr) and the option
//! table (`options`: the declarations, `setoption`, the `Settings` every command starts from,
//! the net of `EvalFile`).
//!
//! May use: the library crates (`engine`, `eval`, `search`) only; no other room of the binary.

pub mod diag;
pub mod lines;
pub mod options;
pub mod output;
pub mod parse;
pub mod reader;

pub use output::ascii;
