//! Kaname's search: lazy-SMP alpha-beta over a shared transposition table, time management,
//! and the df-pn mate solver behind `go mate`.
//!
//! The front end talks to `Searcher`: `start` a search with `Limits`, receive `Info` through a
//! callback while it runs, and exactly one `SearchResult` through another when it ends.

#![deny(missing_docs)]

mod api;
mod history;
mod mate;
mod movepick;
mod padded;
mod protocol;
mod report;
mod search;
pub mod selfplay;
mod shared;
mod thread;
mod timeman;
mod tt;
pub mod tune;
mod types;

pub use api::*;
pub use mate::{mate_in_1, verify_line, MateProgress, MateQuery, MateReport, MateResult};
pub use protocol::*;
pub use thread::{immediate_info, immediate_result};
