//! The main thread's progress reports: its root moves turned into `Info` lines, sent through
//! the search's sink, at the pace `PvInterval`, `OutputFailLHPV` and `ConsiderationMode` ask.

use crate::protocol::{Bound, Info, Score};
use crate::search::Worker;
use crate::shared::Shared;
use crate::tt::Bound as TtBound;
use crate::types::*;

impl Worker {
    /// After an iteration (or one MultiPV line of it) that was not stopped: reports it, unless
    /// `pv_interval` holds it back (then `report_held` reports it at the end).
    pub fn report_iteration(&self, shared: &Shared, depth: i32, multipv: usize) {
        if shared.pv_due() {
            self.report(shared, depth, multipv);
        } else {
            shared.hold_pv(depth);
        }
    }

    /// After an aspiration fail-high or fail-low, before the re-search: reported under
    /// `output_fail_lh_pv`, after 3 s of search (at once in `consideration_mode`), and
    /// `pv_interval` apart.
    pub fn report_fail(&self, shared: &Shared, depth: i32) {
        let o = shared.options;
        if o.output_fail_lh_pv && (o.consideration_mode || shared.elapsed() > 3000) && shared.pv_due() {
            self.report(shared, depth, self.pv_index() + 1);
        }
    }

    /// When the search has ended: the PV `pv_interval` held back, if no report came after it
    /// (the last PV before the result is always reported).
    pub fn report_held(&self, shared: &Shared, multipv: usize) {
        let depth = shared.held_pv();
        if depth > 0 {
            self.report(shared, depth, multipv);
        }
    }

    /// Sends one `info` line per PV line (up to `multipv`) to the sink, now.
    pub fn report(&self, shared: &Shared, depth: i32, multipv: usize) {
        let mut sink = shared.info.lock();
        let Some(sink) = sink.as_mut() else { return };
        shared.mark_reported();
        let elapsed = shared.elapsed();
        let nodes = shared.total_nodes().max(self.nodes);
        let hashfull = shared.tt.hashfull();
        for (i, rm) in self.root_moves.iter().take(multipv).enumerate() {
            let searched = i <= self.pv_index();
            let (mut score, mut d) = if searched || rm.previous_score == -VALUE_INFINITE {
                (rm.score, depth)
            } else {
                (rm.previous_score, (depth - 1).max(1))
            };
            if score == -VALUE_INFINITE {
                continue;
            }
            let mut bound = if i == self.pv_index() {
                match rm.bound {
                    TtBound::Lower => Bound::Lower,
                    TtBound::Upper => Bound::Upper,
                    _ => Bound::Exact,
                }
            } else {
                Bound::Exact
            };
            // Without fail-high/low PVs a line stopped in an aspiration re-search shows the
            // previous iteration's exact score (the score found so far when there is none).
            if bound != Bound::Exact && !shared.options.output_fail_lh_pv {
                if rm.previous_score != -VALUE_INFINITE {
                    (score, d) = (rm.previous_score, (depth - 1).max(1));
                }
                bound = Bound::Exact;
            }
            let pv = if shared.options.consideration_mode { shared.full_pv(&rm.pv) } else { rm.pv.clone() };
            sink(Info {
                depth: d,
                seldepth: rm.sel_depth.max(d as usize) as i32,
                multipv: i + 1,
                score: Score::from_value(score),
                bound,
                time_ms: elapsed,
                nodes,
                nps: nodes * 1000 / elapsed.max(1),
                hashfull,
                pv,
            });
        }
    }
}
