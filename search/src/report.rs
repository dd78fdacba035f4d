//! The main thread's progress reports: its root moves turned into `Info` lines, sent through
//! the search's sink, at the pace `PvInterval`, `OutputFailLHPV` and `ConsiderationMode` ask;
//! and the last report of a search, the lines of the move played.
//!
//! What a GUI records for a move (ShogiHome, ShogiGUI and Shogidokoro alike) is the last
//! `info ... multipv 1 ... score ...` line before `bestmove`: the record's evaluation and line
//! of play, the evaluation graph. So every search ends on the lines of its last completed
//! iteration (`Worker::completed`), or on the line of a move the iteration the stop cut off
//! found better with an exact score (`Worker::adopt_interrupted`): exact scores and whole
//! lines, the first move of the first line the `bestmove`, its second move the `ponder` move,
//! never on an interrupted iteration's bound or its one- or two-move line.

use crate::protocol::{Bound, Info, Score};
use crate::search::{PvLine, Worker};
use crate::shared::Shared;
use crate::tt::Bound as TtBound;
use crate::types::*;

impl Worker {
    /// After an iteration that completed: its lines become the worker's `completed` lines,
    /// each continued from the hash table where it is short (`Shared::line_of`).
    pub fn complete(&mut self, shared: &Shared, depth: i32, multipv: usize) {
        self.completed = self
            .root_moves
            .iter()
            .take(multipv)
            .filter(|rm| rm.score != -VALUE_INFINITE)
            .map(|rm| PvLine {
                score: rm.score,
                depth,
                sel_depth: rm.sel_depth.max(depth as usize),
                pv: shared.line_of(&rm.pv, depth),
            })
            .collect();
    }

    /// After the search (single PV): a move that beat the completed iteration's best in the
    /// iteration the stop cut off, with an exact score, becomes the line reported last and
    /// played. A search one ply deeper found it better; only the rest of that iteration's
    /// moves went unsearched (Stockfish and YaneuraOu play the cut-off iteration's best
    /// too). A move that only failed high there (a lower bound, its re-search cut off) is
    /// not taken: the line a GUI records stays exact, and taking those too measured no
    /// better (issue 65's results of 2026-12-06).
    pub fn adopt_interrupted(&mut self, shared: &Shared, multipv: usize) {
        let rm = &self.root_moves[0];
        let Some(done) = self.completed.first() else { return };
        if multipv != 1
            || rm.depth <= self.completed_depth
            || rm.bound != TtBound::Exact
            || rm.mv == done.pv[0]
            || rm.score == -VALUE_INFINITE
        {
            return;
        }
        self.completed = vec![PvLine {
            score: rm.score,
            depth: rm.depth,
            sel_depth: rm.sel_depth.max(rm.depth as usize),
            pv: shared.line_of(&rm.pv, rm.depth),
        }];
        if self.id == 0 {
            shared.set_completed_reported(false);
        }
    }

    /// After a completed iteration (main thread): reports its lines, unless `pv_interval`
    /// holds them back (the search's last report prints them then).
    pub fn report_iteration(&self, shared: &Shared) {
        if shared.pv_due() {
            report_lines(shared, &self.completed, shared.total_nodes().max(self.nodes));
            shared.set_completed_reported(true);
        } else {
            shared.set_completed_reported(false);
        }
    }

    /// After an aspiration fail-high or fail-low, before the re-search: the line being
    /// searched (`multipv` its index) with its bound, reported under `output_fail_lh_pv`, after
    /// 3 s of search (at once in `consideration_mode`), and `pv_interval` apart. Only that line:
    /// the others of the iteration are printed once, when it completes.
    pub fn report_fail(&self, shared: &Shared, depth: i32) {
        let o = shared.options;
        if !(o.output_fail_lh_pv && (o.consideration_mode || shared.elapsed() > 3000) && shared.pv_due()) {
            return;
        }
        let mut sink = shared.info.lock();
        let Some(sink) = sink.as_mut() else { return };
        shared.mark_reported();
        shared.set_completed_reported(false);
        let rm = &self.root_moves[self.pv_index()];
        if rm.score == -VALUE_INFINITE {
            return;
        }
        let bound = match rm.bound {
            TtBound::Lower => Bound::Lower,
            TtBound::Upper => Bound::Upper,
            _ => Bound::Exact,
        };
        let (elapsed, nodes) = (shared.elapsed(), shared.total_nodes().max(self.nodes));
        sink(Info {
            depth,
            seldepth: rm.sel_depth.max(depth as usize) as i32,
            multipv: self.pv_index() + 1,
            score: Score::from_value(rm.score),
            bound,
            time_ms: elapsed,
            nodes,
            nps: nodes * 1000 / elapsed.max(1),
            hashfull: shared.tt.hashfull(),
            pv: if o.consideration_mode { shared.full_pv(&rm.pv) } else { rm.pv.clone() },
        });
    }
}

/// Sends `lines` (a completed iteration's, best first) to the sink as `multipv 1..`, with the
/// search's time and `nodes` now: exact scores, whole lines. A search's last report, unless
/// the main thread's report of the same lines was the last one sent (each iteration's lines
/// are printed once: under `go infinite` with MultiPV too).
pub fn report_lines(shared: &Shared, lines: &[PvLine], nodes: u64) {
    let mut sink = shared.info.lock();
    let Some(sink) = sink.as_mut() else { return };
    shared.mark_reported();
    let elapsed = shared.elapsed();
    let hashfull = shared.tt.hashfull();
    for (i, line) in lines.iter().enumerate() {
        sink(Info {
            depth: line.depth,
            seldepth: line.sel_depth as i32,
            multipv: i + 1,
            score: Score::from_value(line.score),
            bound: Bound::Exact,
            time_ms: elapsed,
            nodes,
            nps: nodes * 1000 / elapsed.max(1),
            hashfull,
            pv: line.pv.clone(),
        });
    }
}
