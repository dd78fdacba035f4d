//! The result and progress lines of the protocol, each checked against the position it
//! answers before it goes out: a `bestmove` is legal, a PV is cut at its first illegal move, a
//! `checkmate` line is a real mate. Shared by the session, `kaname go` and `kaname analyse`.

use engine::{Move, MoveList, Position};
use search::{BestMove, Info, MateResult, Score, SearchResult};

/// How a search value is written as `score cp`: Kaname's units as they are (a pawn is about
/// 90), or with a YaneuraOu net YaneuraOu's own conversion (`USIEngine::to_cp`, `100 v / 90`),
/// so a user sees the figures YaneuraOu shows with the same net.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum CpUnits {
    /// Kaname's evaluations (classical, its own nets).
    #[default]
    Kaname,
    /// A YaneuraOu net's evaluation.
    YaneuraOu,
}

impl CpUnits {
    /// The units of what `searcher` evaluates with.
    pub fn of(searcher: &search::Searcher) -> CpUnits {
        let yo = searcher.eval_in_use() == eval::EvalKind::Net && searcher.net().is_some_and(|n| n.is_yo());
        if yo {
            CpUnits::YaneuraOu
        } else {
            CpUnits::Kaname
        }
    }

    /// A search value as `score cp`.
    pub fn cp(self, v: i32) -> i32 {
        match self {
            CpUnits::Kaname => v,
            CpUnits::YaneuraOu => eval::yo::to_cp(v),
        }
    }

    /// A search score in these units.
    pub fn score(self, s: Score) -> Score {
        match s {
            Score::Cp(v) => Score::Cp(self.cp(v)),
            mate => mate,
        }
    }
}

/// `bestmove ...` for a result, checked against the root position: an illegal move is
/// replaced by a legal one, an illegal ponder move dropped.
pub fn bestmove_line(pos: &Position, r: &SearchResult) -> String {
    match r.best {
        BestMove::Resign => "bestmove resign".into(),
        BestMove::Win => "bestmove win".into(),
        BestMove::Move(m) if !pos.is_legal(m) => {
            log::error!("the search returned the illegal move {m}; replaced");
            fallback_bestmove(pos)
        }
        BestMove::Move(m) => {
            let mut line = format!("bestmove {m}");
            if let Some(p) = r.ponder {
                let mut after = pos.clone();
                after.do_move(m);
                if after.is_legal(p) {
                    line.push_str(&format!(" ponder {p}"));
                } else {
                    log::error!("the search returned the illegal ponder move {p}; dropped");
                }
            }
            line
        }
    }
}

/// A legal `bestmove` when the search failed to give one (`resign` with no legal move).
pub fn fallback_bestmove(pos: &Position) -> String {
    let mut legal = MoveList::new();
    engine::generate_legal(pos, &mut legal);
    match legal.iter().next() {
        Some(m) => format!("bestmove {m}"),
        None => "bestmove resign".into(),
    }
}

/// `info ...` for a search progress report (`pv` last; the PV is cut at an illegal move), its
/// score in `units`.
pub fn info_line(pos: &Position, info: &Info, units: CpUnits) -> String {
    let mut s = format!("info depth {} seldepth {} multipv {} score ", info.depth, info.seldepth, info.multipv);
    match units.score(info.score) {
        Score::Cp(v) => s.push_str(&format!("cp {v}")),
        Score::Mate(n) => s.push_str(&format!("mate {n}")),
    }
    match info.bound {
        search::Bound::Exact => {}
        search::Bound::Lower => s.push_str(" lowerbound"),
        search::Bound::Upper => s.push_str(" upperbound"),
    }
    s.push_str(&format!(" time {} nodes {} nps {} hashfull {}", info.time_ms, info.nodes, info.nps, info.hashfull));
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for m in legal_prefix(pos, &info.pv) {
            s.push_str(&format!(" {m}"));
        }
    }
    s
}

/// The moves of `line` up to the first one that is not legal where it is played: the guard
/// on every PV the front end prints or writes. (The search's PVs are legal since e9094c5; a
/// stale tail once slipped through on a root fail low, so the guard stays and logs a cut.)
pub fn legal_prefix(pos: &Position, line: &[Move]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(line.len());
    for &m in line {
        if !p.is_legal(m) {
            log::error!("PV move {m} is illegal in {}; PV cut", p.to_sfen());
            break;
        }
        p.do_move(m);
        out.push(m);
    }
    out
}

/// The checkmate line for a mate result, checked (`search::verify_line`: every move legal,
/// every attacker move a check, the final position mated). A broken line is reported as
/// `checkmate timeout`.
pub fn checkmate_line(pos: &Position, r: &MateResult) -> String {
    match r {
        MateResult::NoMate => "checkmate nomate".into(),
        MateResult::Timeout => "checkmate timeout".into(),
        MateResult::NotImplemented => "checkmate notimplemented".into(),
        MateResult::Mate(moves) if !search::verify_line(pos, moves) => {
            log::error!("the mate solver returned a broken line; reporting timeout");
            "checkmate timeout".into()
        }
        MateResult::Mate(moves) => {
            let text: Vec<String> = moves.iter().map(Move::to_string).collect();
            format!("checkmate {}", text.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_lines_are_checked() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        let m = pos.parse_usi_move("G*5b").unwrap();
        assert_eq!(checkmate_line(&pos, &MateResult::Mate(vec![m])), "checkmate G*5b");
        let quiet = pos.parse_usi_move("5i4h").unwrap();
        assert_eq!(checkmate_line(&pos, &MateResult::Mate(vec![quiet])), "checkmate timeout");
        // A check that does not mate, and an empty line.
        let check = pos.parse_usi_move("G*4b").unwrap();
        assert_eq!(checkmate_line(&pos, &MateResult::Mate(vec![check])), "checkmate timeout");
        assert_eq!(checkmate_line(&pos, &MateResult::Mate(vec![])), "checkmate timeout");
        assert_eq!(checkmate_line(&pos, &MateResult::NoMate), "checkmate nomate");
    }

    #[test]
    fn bestmove_lines_are_checked() {
        let pos = Position::startpos();
        let m = |p: &Position, t: &str| p.parse_usi_move(t).unwrap();
        let r = SearchResult { best: BestMove::Move(m(&pos, "7g7f")), ponder: Some(m(&pos, "3g3f")) };
        // 3g3f is Black's move: no reply of White's, so the ponder move goes.
        assert_eq!(bestmove_line(&pos, &r), "bestmove 7g7f");
        let mut after = pos.clone();
        after.do_move(m(&pos, "7g7f"));
        let r = SearchResult { best: BestMove::Move(m(&pos, "7g7f")), ponder: Some(m(&after, "3c3d")) };
        assert_eq!(bestmove_line(&pos, &r), "bestmove 7g7f ponder 3c3d");
        // A White move in a Black position is replaced by a legal move.
        let r = SearchResult { best: BestMove::Move(m(&after, "3c3d")), ponder: None };
        let line = bestmove_line(&pos, &r);
        assert!(pos.parse_usi_move(line.strip_prefix("bestmove ").unwrap()).is_ok(), "{line}");
        let mated = Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap();
        assert_eq!(fallback_bestmove(&mated), "bestmove resign");
        let r = search::immediate_result(&mated, engine::EnteringKingRule::Csa27).unwrap();
        assert_eq!(bestmove_line(&mated, &r), "bestmove resign");
        assert!(search::immediate_result(&Position::startpos(), engine::EnteringKingRule::Csa27).is_none());
    }
}
