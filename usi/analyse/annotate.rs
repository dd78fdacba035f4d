//! A game's analysis as data (`kaname analyse`): scores, losses and marks per ply, the JSON
//! report and its schema, and the comments of the annotated KIF/CSA copies.
//!
//! How the played move is valued: each position of the game is searched once, with the same
//! budget. The search of the position before a move gives Kaname's best move and its score;
//! the search of the position after it (the next ply's root anyway), seen from the mover's side,
//! gives the played move's score. So a game of N plies costs N + 1 searches, where searching
//! the played move separately (`searchmoves`) would cost up to 2N. The search after the move
//! looks one ply further along the played line than the search before it did, so a played move
//! can come out a little better than the best one: such a gain counts as no loss, and a played
//! move that is Kaname's best move loses nothing by definition.
//!
//! # JSON report
//!
//! One object (field names as in [`Report`]):
//! - `kaname` (version), `record` ([`RecordInfo`]: path, format, encoding, start SFEN, number of
//!   moves, players, result), `settings` ([`Settings`]: budget, threads, MultiPV, evaluation,
//!   mark thresholds, win-rate scale, ply range);
//! - `plies`: one [`Ply`] per analysed move: `ply`, `side` (`black`/`white`, who moved), `sfen`
//!   (the position before the move), `move`/`move_ja` (played, USI and Japanese), `best`/`best_ja`,
//!   `best_is_played`, `pv`/`pv_ja`, `score_black`/`score_mover` (the played move's value) and
//!   `best_score_black`/`best_score_mover` (the best move's), each `{"cp": n}` or `{"mate": n}`
//!   (plies, positive when that side mates), `depth`, `seldepth`, `nodes`, `winrate_black`
//!   (after the move), `winrate_best`/`winrate_played` (mover's view), `loss_cp`,
//!   `loss_winrate`, `mark` (`null`, `dubious`, `mistake`, `blunder`), `lines` (the MultiPV
//!   lines of the position before the move);
//! - `summary`: per side ([`SideSummary`]) moves, moves equal to Kaname's best, average loss
//!   in centipawns and in win rate, and the count of each mark;
//! - `error`: `null`, or the record problem that ended the analysis early ([`Problem`]).

use engine::{Color, Move, Position};
use rsshogi::records::Record;
use serde::Serialize;

/// The logistic scale of the win rate: 1 / (1 + exp(-cp / 600)).
pub const WINRATE_SCALE: f64 = 600.0;

/// Scores beyond this many centipawns decide the game; losses in centipawns are taken between
/// scores clamped to it (a mate counts as this), so one missed mate does not swamp a game's
/// average.
pub const CP_CAP: i32 = 3000;

/// A score from one side's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many plies: positive when this side mates, negative when it is mated
    /// (0: mated now, for a position's side to move only).
    Mate(i32),
}

impl Score {
    /// The search's score (side to move's view).
    pub fn from_search(s: search::Score) -> Score {
        match s {
            search::Score::Cp(c) => Score::Cp(c),
            search::Score::Mate(n) => Score::Mate(n),
        }
    }

    /// The same value from the other side's point of view.
    pub fn flip(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(n) => Score::Mate(-n),
        }
    }

    /// The value, for the side that played the move, of the move that led to a position
    /// worth `self` to its side to move: one ply earlier, so mate distances grow by one.
    pub fn before_move(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(n) if n > 0 => Score::Mate(-(n + 1)),
            Score::Mate(n) => Score::Mate(1 - n),
        }
    }

    /// This side's chance of winning: 1 / (1 + exp(-cp / 600)); 1 or 0 for a mate.
    pub fn winrate(self) -> f64 {
        match self {
            Score::Cp(c) => 1.0 / (1.0 + (-(c as f64) / WINRATE_SCALE).exp()),
            Score::Mate(n) if n > 0 => 1.0,
            Score::Mate(_) => 0.0,
        }
    }

    /// Centipawns clamped to `CP_CAP`, a mate counting as the cap.
    pub fn capped_cp(self) -> i32 {
        match self {
            Score::Cp(c) => c.clamp(-CP_CAP, CP_CAP),
            Score::Mate(n) if n > 0 => CP_CAP,
            Score::Mate(_) => -CP_CAP,
        }
    }

    /// `+85`, `-120`, `+M3` (this side mates in 3 plies), `-M4`.
    pub fn text(self) -> String {
        match self {
            Score::Cp(c) => format!("{c:+}"),
            Score::Mate(n) if n > 0 => format!("+M{n}"),
            Score::Mate(n) => format!("-M{}", -n),
        }
    }

    /// The text of the KIF/CSA comments: `+85`, `+詰3`, `-詰4`.
    pub fn text_ja(self) -> String {
        match self {
            Score::Cp(c) => format!("{c:+}"),
            Score::Mate(n) if n > 0 => format!("+詰{n}"),
            Score::Mate(n) => format!("-詰{}", -n),
        }
    }
}

/// How bad a move was, by the win rate it gave away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// At least the first threshold (default 0.05).
    Dubious,
    /// At least the second (default 0.10).
    Mistake,
    /// At least the third (default 0.20).
    Blunder,
}

impl Mark {
    /// The mark of a win-rate loss under `thresholds` (dubious, mistake, blunder; rising).
    pub fn of(loss: f64, thresholds: [f64; 3]) -> Option<Mark> {
        [Mark::Blunder, Mark::Mistake, Mark::Dubious]
            .into_iter()
            .zip(thresholds.iter().rev())
            .find_map(|(mark, &t)| (loss >= t).then_some(mark))
    }

    /// The name in the JSON output and on the terminal.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Dubious => "dubious",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }

    /// The word shogi GUIs and commentators use (疑問手, 悪手, 大悪手).
    pub fn japanese(self) -> &'static str {
        match self {
            Mark::Dubious => "疑問手",
            Mark::Mistake => "悪手",
            Mark::Blunder => "大悪手",
        }
    }
}

/// What one search found about a position, from its side to move's point of view.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The best move; `None` when the game is over (mated, or a declaration win).
    pub best: Option<Move>,
    /// The position's value (`Mate(0)`: the side to move is mated).
    pub score: Score,
    /// Completed depth (0: decided without a search).
    pub depth: i32,
    /// Selective depth.
    pub seldepth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
    /// The MultiPV lines (score and line), best first; the first is `score` and `pv`.
    pub lines: Vec<(Score, Vec<Move>)>,
}

/// One MultiPV line of a position before a move.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// 1-based rank of the line.
    pub multipv: usize,
    /// The line's first move (USI).
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for the side to move.
    pub score_mover: Score,
    /// The line (USI moves).
    pub pv: Vec<String>,
}

/// The analysis of one move of the game.
#[derive(Clone, Debug, Serialize)]
pub struct Ply {
    /// 1-based ply of the move in the record.
    pub ply: usize,
    /// Who played it: `black` (sente, also the handicap receiver) or `white`.
    pub side: &'static str,
    /// The position before the move.
    pub sfen: String,
    /// The move played (USI).
    #[serde(rename = "move")]
    pub mv: String,
    /// The move played in Japanese (`▲７六歩`).
    pub move_ja: String,
    /// Kaname's best move (USI); `null` when the position was already decided.
    pub best: Option<String>,
    /// The best move in Japanese.
    pub best_ja: Option<String>,
    /// Whether the move played is Kaname's best move.
    pub best_is_played: bool,
    /// Kaname's principal variation (USI).
    pub pv: Vec<String>,
    /// The principal variation in Japanese.
    pub pv_ja: Vec<String>,
    /// The played move's value from Black's point of view.
    pub score_black: Score,
    /// The played move's value for the side that played it.
    pub score_mover: Score,
    /// The best move's value from Black's point of view.
    pub best_score_black: Score,
    /// The best move's value for the side to move.
    pub best_score_mover: Score,
    /// Depth of the search of the position before the move.
    pub depth: i32,
    /// Its selective depth.
    pub seldepth: i32,
    /// Nodes searched when it reported the best move's line (the search may have gone on).
    pub nodes: u64,
    /// Black's win rate after the move played.
    pub winrate_black: f64,
    /// The mover's win rate with the best move.
    pub winrate_best: f64,
    /// The mover's win rate with the move played.
    pub winrate_played: f64,
    /// Centipawns given away (scores clamped to +-3000, mates as 3000), at least 0.
    pub loss_cp: i32,
    /// Win rate given away, 0..1.
    pub loss_winrate: f64,
    /// The mark of the loss, if it reaches a threshold.
    pub mark: Option<Mark>,
    /// The MultiPV lines of the position before the move.
    pub lines: Vec<Line>,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn usi(moves: &[Move]) -> Vec<String> {
    moves.iter().map(Move::to_string).collect()
}

/// The analysis of move number `ply`, `played`, in `pos`, from the searches of the position
/// before it and after it.
pub fn analyse_ply(
    pos: &Position,
    ply: usize,
    played: Move,
    before: &Searched,
    after: &Searched,
    marks: [f64; 3],
) -> Ply {
    let mover = pos.side_to_move();
    let to_black = |s: Score| if mover == Color::Black { s } else { s.flip() };
    let best_is_played = before.best == Some(played);
    let best_score = before.score;
    // Kaname's best move loses nothing by definition (see the module comment).
    let score = if best_is_played { best_score } else { after.score.before_move() };
    let loss_cp = if best_is_played { 0 } else { (best_score.capped_cp() - score.capped_cp()).max(0) };
    let loss_winrate = if best_is_played { 0.0 } else { (best_score.winrate() - score.winrate()).max(0.0) };
    let lines = before
        .lines
        .iter()
        .enumerate()
        .filter(|(_, (_, pv))| !pv.is_empty())
        .map(|(i, (s, pv))| Line { multipv: i + 1, mv: pv[0].to_string(), score_mover: *s, pv: usi(pv) })
        .collect();
    Ply {
        ply,
        side: side_name(mover),
        sfen: pos.to_sfen(),
        mv: played.to_string(),
        move_ja: crate::analyse::record::japanese(pos, &[played]).remove(0),
        best: before.best.map(|m| m.to_string()),
        best_ja: before.best.map(|m| crate::analyse::record::japanese(pos, &[m]).remove(0)),
        best_is_played,
        pv: usi(&before.pv),
        pv_ja: crate::analyse::record::japanese(pos, &before.pv),
        score_black: to_black(score),
        score_mover: score,
        best_score_black: to_black(best_score),
        best_score_mover: best_score,
        depth: before.depth,
        seldepth: before.seldepth,
        nodes: before.nodes,
        winrate_black: to_black(score).winrate(),
        winrate_best: best_score.winrate(),
        winrate_played: score.winrate(),
        loss_cp,
        loss_winrate,
        mark: Mark::of(loss_winrate, marks),
        lines,
    }
}

/// Per-side totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideSummary {
    /// Moves analysed.
    pub moves: usize,
    /// Of them, Kaname's best move.
    pub best: usize,
    /// Average centipawn loss.
    pub average_loss_cp: f64,
    /// Average win-rate loss.
    pub average_loss_winrate: f64,
    /// Moves marked dubious.
    pub dubious: usize,
    /// Moves marked mistake.
    pub mistake: usize,
    /// Moves marked blunder.
    pub blunder: usize,
}

/// Totals for Black and White.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Black's (sente's) moves.
    pub black: SideSummary,
    /// White's (gote's) moves.
    pub white: SideSummary,
}

/// The totals of the analysed plies.
pub fn summarise(plies: &[Ply]) -> Summary {
    let mut s = Summary::default();
    for p in plies {
        let side = if p.side == "black" { &mut s.black } else { &mut s.white };
        side.moves += 1;
        side.best += p.best_is_played as usize;
        side.average_loss_cp += p.loss_cp as f64;
        side.average_loss_winrate += p.loss_winrate;
        match p.mark {
            Some(Mark::Dubious) => side.dubious += 1,
            Some(Mark::Mistake) => side.mistake += 1,
            Some(Mark::Blunder) => side.blunder += 1,
            None => {}
        }
    }
    for side in [&mut s.black, &mut s.white] {
        let n = side.moves.max(1) as f64;
        side.average_loss_cp /= n;
        side.average_loss_winrate /= n;
    }
    s
}

/// The record analysed.
#[derive(Clone, Debug, Serialize)]
pub struct RecordInfo {
    /// The file as given.
    pub path: String,
    /// `kif`, `ki2`, `csa` or `usi`.
    pub format: &'static str,
    /// `utf-8`, `utf-8-bom` or `shift_jis`.
    pub encoding: &'static str,
    /// The start position.
    pub start_sfen: String,
    /// Moves read (up to a bad move, if any).
    pub moves: usize,
    /// Black's (sente's, the handicap receiver's) name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The recorded ending (`resign`, `mate`, `interrupt`, ...), if any.
    pub result: Option<String>,
}

/// How the analysis was run.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// Milliseconds per position.
    pub movetime: Option<u64>,
    /// Nodes per position.
    pub nodes: Option<u64>,
    /// Depth per position.
    pub depth: Option<i32>,
    /// Search threads.
    pub threads: usize,
    /// MultiPV lines.
    pub multipv: usize,
    /// Hash table, MiB.
    pub hash_mb: usize,
    /// The evaluation used (`net` or `classical`).
    pub eval: String,
    /// Win-rate losses for dubious, mistake and blunder.
    pub marks: [f64; 3],
    /// The centipawn scale of the win rate.
    pub winrate_scale: f64,
    /// First ply analysed.
    pub from: usize,
    /// Last ply analysed.
    pub to: usize,
}

/// A problem of the record that ended the analysis early.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    /// The 1-based line of the record, when known.
    pub line: Option<usize>,
    /// The ply of the bad move, when it is a move.
    pub ply: Option<usize>,
    /// The whole message.
    pub message: String,
}

/// The whole JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Kaname's version.
    pub kaname: &'static str,
    /// The record.
    pub record: RecordInfo,
    /// The settings.
    pub settings: Settings,
    /// The analysed moves in order.
    pub plies: Vec<Ply>,
    /// Totals per side.
    pub summary: Summary,
    /// The record's problem, if it had one.
    pub error: Option<Problem>,
}

/// The comment lines of one move in the annotated copies: the played move's value, its loss
/// and mark, Kaname's best move and line.
pub fn comment_lines(p: &Ply) -> Vec<String> {
    let mut first = format!("Kaname 評価値 {} (先手から)", p.score_black.text_ja());
    if !p.best_is_played {
        first.push_str(&format!(" 損失 {} 勝率 -{:.1}%", p.loss_cp, p.loss_winrate * 100.0));
    }
    if let Some(m) = p.mark {
        first.push_str(&format!(" {}", m.japanese()));
    }
    let mut second = match (&p.best_ja, p.best_is_played) {
        (Some(_), true) => "Kaname 最善手と一致".to_string(),
        (Some(b), false) => format!("Kaname 最善手 {b} {}", p.best_score_black.text_ja()),
        (None, _) => "Kaname 最善手なし".to_string(),
    };
    second.push_str(&format!(" 深さ {}", p.depth));
    if !p.pv_ja.is_empty() {
        second.push_str(&format!(" 読み筋 {}", p.pv_ja.join(" ")));
    }
    vec![first, second]
}

/// A copy of `record` with each analysed move's comment lines appended to its comments
/// (`rsshogi` writes them as `*` lines in KIF and `'*` lines in CSA, which GUIs show).
pub fn annotated(record: &Record, plies: &[Ply]) -> Record {
    let mut r = record.clone();
    let ids = r.main_line_ids();
    for p in plies {
        let Some(&id) = ids.get(p.ply - 1) else { continue };
        if let Ok(node) = r.node_mut(id) {
            for line in comment_lines(p) {
                node.append_comment_line(&line);
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn searched(best: Option<Move>, score: Score) -> Searched {
        let pv: Vec<Move> = best.into_iter().collect();
        Searched { best, score, depth: 5, seldepth: 7, nodes: 100, pv: pv.clone(), lines: vec![(score, pv)] }
    }

    #[test]
    fn scores_across_a_move_and_between_sides() {
        assert_eq!(Score::Cp(85).before_move(), Score::Cp(-85));
        assert_eq!(Score::Mate(0).before_move(), Score::Mate(1), "the move mated");
        assert_eq!(Score::Mate(-2).before_move(), Score::Mate(3));
        assert_eq!(Score::Mate(3).before_move(), Score::Mate(-4));
        assert_eq!(Score::Mate(3).flip(), Score::Mate(-3));
        assert!((Score::Cp(0).winrate() - 0.5).abs() < 1e-12);
        assert!((Score::Cp(600).winrate() - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert_eq!((Score::Mate(5).winrate(), Score::Mate(-1).winrate()), (1.0, 0.0));
        assert_eq!((Score::Cp(-5000).capped_cp(), Score::Mate(2).capped_cp()), (-3000, 3000));
        assert_eq!(serde_json::to_string(&Score::Mate(-3)).unwrap(), r#"{"mate":-3}"#);
        assert_eq!(serde_json::to_string(&Score::Cp(12)).unwrap(), r#"{"cp":12}"#);
    }

    #[test]
    fn marks_by_thresholds() {
        let t = [0.05, 0.10, 0.20];
        assert_eq!(Mark::of(0.049, t), None);
        assert_eq!(Mark::of(0.05, t), Some(Mark::Dubious));
        assert_eq!(Mark::of(0.15, t), Some(Mark::Mistake));
        assert_eq!(Mark::of(0.9, t), Some(Mark::Blunder));
    }

    #[test]
    fn a_ply_from_two_searches() {
        // White to move: the played move's value comes from the search after it.
        let pos = Position::from_sfen("4k4/9/9/9/9/9/4p3P/9/4K4 w g 1").unwrap();
        let (mate, king) = (pos.parse_usi_move("G*5h").unwrap(), pos.parse_usi_move("5a4b").unwrap());
        let before = searched(Some(mate), Score::Mate(1));
        let after = searched(None, Score::Cp(-2000));
        let p = analyse_ply(&pos, 1, king, &before, &after, [0.05, 0.10, 0.20]);
        assert_eq!(
            (p.side, p.best_is_played, p.score_mover, p.score_black),
            ("white", false, Score::Cp(2000), Score::Cp(-2000))
        );
        assert_eq!((p.best_score_mover, p.best_score_black), (Score::Mate(1), Score::Mate(-1)));
        assert_eq!(p.loss_cp, 1000);
        assert!((p.loss_winrate - (1.0 - Score::Cp(2000).winrate())).abs() < 1e-12);
        assert_eq!(p.mark, None, "still winning: {}", p.loss_winrate);
        assert_eq!((p.move_ja.as_str(), p.best_ja.as_deref()), ("△４二玉", Some("△５八金")));
        // The best move played: no loss even if the search after it disagrees.
        let p = analyse_ply(&pos, 1, mate, &before, &searched(None, Score::Cp(500)), [0.05, 0.10, 0.20]);
        assert_eq!((p.best_is_played, p.loss_cp, p.loss_winrate, p.mark), (true, 0, 0.0, None));
        let lines = comment_lines(&p);
        assert!(lines[0].starts_with("Kaname 評価値 -詰1 (先手から)"), "{lines:?}");
        assert!(lines[1].contains("最善手と一致"), "{lines:?}");
    }
}
