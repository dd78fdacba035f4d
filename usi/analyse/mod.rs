//! `kaname analyse <record>`: searches every position of a game record and writes the
//! annotated game: a JSON report (`annotate`), a KIF or CSA copy with the scores as comments,
//! and an evaluation graph (`graph`); a summary goes to stdout and progress to stderr.
//! Reading records is `record`'s job; this file is the command line and the search loop.
//!
//! The room: `record` (KIF, KI2, CSA and USI records in, their encodings), `annotate` (a ply's
//! verdict, the report, the annotated copy), `graph` (the SVG). May use: `protocol` and
//! `args`; not `book`, `commands` or `session`.

pub mod annotate;
pub mod graph;
pub mod record;

use crate::args::{cores, whole, EvalArgs};
use crate::protocol::lines::CpUnits;
use annotate::{Ply, Report, Score, Searched};
use engine::{Move, Position};
use record::{Format, Game};
use search::{BestMove, Info, Limits, Searcher};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Milliseconds per position when no budget is given.
pub const DEFAULT_MOVETIME: u64 = 1000;

/// Win-rate losses of a dubious move, a mistake and a blunder (`--marks`' default).
pub const DEFAULT_MARKS: [f64; 3] = [0.05, 0.10, 0.20];

/// Analyse a KIF/KI2/CSA/USI game record
///
/// Searches every position of the record (1000 ms each unless a budget is given) and writes
/// a JSON report, a KIF (or CSA) copy with the scores as comments and an evaluation graph
/// beside it: RECORD.analysis.json, .kif (.csa for a CSA record) and .svg. Without --json,
/// --kif, --csa and --graph these three are written; with any of them, only those. A summary
/// goes to stdout, progress to stderr. Exit status: 0; 1 if the record or an output cannot be
/// read or written, or the record has a bad move (the plies before it are analysed and
/// written); 2 on bad arguments.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// A KIF, KI2 or CSA record, or a file with a USI position line or SFEN (UTF-8 with or
    /// without BOM, or Shift_JIS; the format by content and extension)
    #[arg(value_name = "record")]
    pub record: PathBuf,
    /// Milliseconds per position [default: 1000 when no budget is given]
    #[arg(long, value_name = "MS", value_parser = whole::<u64>(1..=u64::MAX))]
    pub movetime: Option<u64>,
    /// Nodes per position
    #[arg(long, value_name = "N", value_parser = whole::<u64>(1..=u64::MAX))]
    pub nodes: Option<u64>,
    /// Depth per position
    #[arg(long, value_name = "D", value_parser = whole::<i32>(1..=127))]
    pub depth: Option<i32>,
    /// Search threads [default: all cores]
    #[arg(long, value_name = "N", default_value_t = cores(), hide_default_value = true, value_parser = whole::<usize>(1..=256))]
    pub threads: usize,
    /// Lines reported per position in the JSON
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = whole::<usize>(1..=600))]
    pub multipv: usize,
    /// Hash table, MiB
    #[arg(long = "hash", value_name = "MB", default_value_t = 256, value_parser = whole::<usize>(1..=65536))]
    pub hash_mb: usize,
    /// First ply analysed [default: 1]
    #[arg(long, value_name = "PLY", value_parser = whole::<usize>(1..=u64::MAX))]
    pub from: Option<usize>,
    /// Last ply analysed [default: the last]
    #[arg(long, value_name = "PLY", value_parser = whole::<usize>(1..=u64::MAX))]
    pub to: Option<usize>,
    /// The report [default: RECORD.analysis.json]
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
    /// KIF copy with the scores as comments (Shift_JIS, or UTF-8 for .kifu) [default:
    /// RECORD.analysis.kif, .csa for a CSA record]
    #[arg(long, value_name = "OUT.kif")]
    pub kif: Option<PathBuf>,
    /// CSA copy with the scores as comments
    #[arg(long, value_name = "OUT.csa")]
    pub csa: Option<PathBuf>,
    /// Evaluation graph, SVG [default: RECORD.analysis.svg]
    #[arg(long, value_name = "OUT.svg", value_parser = graph_path)]
    pub graph: Option<PathBuf>,
    /// Win-rate losses of a dubious move, a mistake, a blunder
    #[arg(long, value_name = "A,B,C", default_value_t = Marks(DEFAULT_MARKS), value_parser = parse_marks)]
    pub marks: Marks,
    /// The evaluation.
    #[command(flatten)]
    pub eval: EvalArgs,
    /// Plain progress lines instead of a progress bar
    #[arg(long)]
    pub no_progress: bool,
}

impl Args {
    /// The budget of each position's search (`DEFAULT_MOVETIME` when none is given).
    pub fn limits(&self) -> Limits {
        let movetime = match (self.movetime, self.nodes, self.depth) {
            (None, None, None) => Some(DEFAULT_MOVETIME),
            _ => self.movetime,
        };
        Limits { movetime, nodes: self.nodes, depth: self.depth, ..Limits::default() }
    }

    /// What clap cannot check: `--from` not after `--to`.
    pub fn check(self) -> Result<Args, String> {
        match self.from.zip(self.to) {
            Some((f, t)) if f > t => Err("--from is after --to".into()),
            _ => Ok(self),
        }
    }
}

/// The thresholds of `--marks`: win-rate losses of a dubious move, a mistake and a blunder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marks(pub [f64; 3]);

impl std::fmt::Display for Marks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c] = self.0;
        write!(f, "{a:.2},{b:.2},{c:.2}")
    }
}

/// Parses `--marks 0.05,0.10,0.20`: three win-rate losses in 0..=1, in order.
pub fn parse_marks(v: &str) -> Result<Marks, String> {
    let bad = || "three numbers in 0..1 in order are needed, such as 0.05,0.10,0.20".to_string();
    let t: Vec<f64> = v.split(',').map(|x| x.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    match t[..] {
        [a, b, c] if 0.0 < a && a <= b && b <= c && c <= 1.0 => Ok(Marks([a, b, c])),
        _ => Err(bad()),
    }
}

/// The graph is SVG only: a PNG needs system font libraries to draw its text.
fn graph_path(v: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(v);
    match p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => Ok(p),
        _ => Err("the graph is SVG: give a .svg file (convert it to PNG with rsvg-convert or a browser)".into()),
    }
}

/// Searches `pos` to `limits` (a finished game is not searched: mated, or a declaration win).
fn search_position(searcher: &mut Searcher, pos: &Position, limits: &Limits) -> Searched {
    let decided = |score| Searched { best: None, score, depth: 0, seldepth: 0, nodes: 0, pv: vec![], lines: vec![] };
    match search::immediate_result(pos, searcher.options().entering_king_rule).map(|r| r.best) {
        // A declaration, or under the try rule the try: the side to move wins at once.
        Some(BestMove::Win | BestMove::Move(_)) => return decided(Score::Mate(1)),
        Some(_) => return decided(Score::Mate(0)),
        None => {}
    }
    // The latest report of each MultiPV line (`think` keeps only the last line reported).
    let lines: Arc<Mutex<BTreeMap<usize, Info>>> = Arc::default();
    let sink = lines.clone();
    let (tx, rx) = crossbeam_channel::bounded(1);
    searcher.start(
        pos.clone(),
        limits.clone(),
        Box::new(move |info| {
            sink.lock().unwrap_or_else(|e| e.into_inner()).insert(info.multipv, info);
        }),
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    let result = rx.recv().expect("a search always reports its result");
    searcher.wait();
    let best = match result.best {
        BestMove::Move(m) => Some(m),
        BestMove::Resign | BestMove::Win => None,
    };
    let lines = std::mem::take(&mut *lines.lock().unwrap_or_else(|e| e.into_inner()));
    searched(pos, best, lines, CpUnits::of(searcher))
}

/// `Searched` from a search's result and its last report of every line. The best move's
/// score and line come from the reported line that starts with it (the first line, unless a
/// search stopped in the middle of a MultiPV iteration reordered the moves after its last
/// report); when no reported line starts with it, the first line stands for the best move, so
/// that a move, its score and its line always belong together. A search stopped before its
/// first iteration reported nothing: the static evaluation stands in, at depth 0.
fn searched(pos: &Position, best: Option<Move>, lines: BTreeMap<usize, Info>, units: CpUnits) -> Searched {
    let mut lines: Vec<(Score, Vec<Move>, &Info)> = lines
        .values()
        .map(|i| (Score::from_search(units.score(i.score)), crate::protocol::lines::legal_prefix(pos, &i.pv), i))
        .collect();
    lines.retain(|(_, pv, _)| !pv.is_empty());
    if let Some(k) = lines.iter().position(|(_, pv, _)| pv.first() == best.as_ref()) {
        lines[..=k].rotate_right(1);
    }
    let Some((score, pv, info)) = lines.first() else {
        let pv: Vec<Move> = best.into_iter().collect();
        let score = Score::Cp(eval::evaluate(pos));
        return Searched { best, score, depth: 0, seldepth: 0, nodes: 0, pv: pv.clone(), lines: vec![(score, pv)] };
    };
    let (best, score, pv) = (pv.first().copied(), *score, pv.clone());
    let (depth, seldepth, nodes) = (info.depth, info.seldepth, info.nodes);
    let lines = lines.into_iter().map(|(s, pv, _)| (s, pv)).collect();
    Searched { best, score, depth, seldepth, nodes, pv, lines }
}

/// A progress bar on a terminal; otherwise (or with `--no-progress`) one line per ply.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    searches: u64,
    done: u64,
}

impl Progress {
    fn new(bar: bool, searches: u64) -> Progress {
        let bar = (bar && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            let b = indicatif::ProgressBar::new(searches);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} positions, ETA {eta} {msg}",
                )
                .expect("progress template")
                .progress_chars("=> "),
            );
            b
        });
        Progress { bar, start: Instant::now(), searches, done: 0 }
    }

    fn searched(&mut self) {
        self.done += 1;
        if let Some(b) = &self.bar {
            b.set_position(self.done);
        }
    }

    fn ply(&mut self, p: &Ply) {
        self.searched();
        let mark = p.mark.map_or(String::new(), |m| format!(" {}", m.name()));
        let text = format!("ply {} {} {}{mark}", p.ply, p.move_ja, p.score_black.text());
        match &self.bar {
            Some(b) => b.set_message(text),
            None => {
                let per = self.start.elapsed().as_secs_f64() / self.done as f64;
                let eta = (per * (self.searches - self.done) as f64).round() as u64;
                let best = p.best_ja.as_deref().unwrap_or("-");
                eprintln!(
                    "analyse: {text} (best {best} {}, loss {:.3}), {}/{} positions, ETA {}:{:02}",
                    p.best_score_black.text(),
                    p.loss_winrate,
                    self.done,
                    self.searches,
                    eta / 60,
                    eta % 60
                );
            }
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The positions of the game: the start, then after each move (with the history for
/// repetitions).
fn positions(game: &Game) -> Vec<Position> {
    let mut pos = game.start.clone();
    let mut out = vec![pos.clone()];
    for &m in &game.moves {
        pos.do_move(m);
        out.push(pos.clone());
    }
    out
}

/// Plies `from..=to`: every position from the one before `from` to the one after `to` is
/// searched once (see `annotate` for why that values the played moves).
fn analyse(searcher: &mut Searcher, game: &Game, from: usize, to: usize, a: &Args) -> Vec<Ply> {
    if from > to {
        return Vec::new();
    }
    let positions = positions(game);
    let mut progress = Progress::new(!a.no_progress, (to - from + 2) as u64);
    let limits = a.limits();
    let mut before = search_position(searcher, &positions[from - 1], &limits);
    progress.searched();
    let mut plies = Vec::with_capacity(to - from + 1);
    for ply in from..=to {
        let after = search_position(searcher, &positions[ply], &limits);
        let p = annotate::analyse_ply(&positions[ply - 1], ply, game.moves[ply - 1], &before, &after, a.marks.0);
        progress.ply(&p);
        plies.push(p);
        before = after;
    }
    progress.finish();
    plies
}

/// The plies to analyse, `from..=to` (empty when the record has no move).
fn ply_range(a: &Args, moves: usize) -> Result<(usize, usize), String> {
    let from = a.from.unwrap_or(1);
    let to = a.to.unwrap_or(moves).min(moves);
    if moves > 0 && from > moves {
        return Err(format!("--from {from} is beyond the record's {moves} moves"));
    }
    Ok((from, to))
}

fn new_searcher(a: &Args, net: Option<eval::Net>) -> Searcher {
    let mut o = crate::protocol::options::Settings::default().search;
    o.threads = a.threads;
    o.hash_mb = a.hash_mb;
    o.multipv = a.multipv;
    o.eval = a.eval.eval;
    // No GUI in between: the whole movetime is the search's.
    o.network_delay = 0;
    o.network_delay2 = 0;
    let mut s = Searcher::new();
    s.set_options(&o);
    s.set_net(net);
    s.prepare();
    s
}

fn report(a: &Args, game: &Game, range: (usize, usize), plies: Vec<Ply>, eval: eval::EvalKind) -> Report {
    let error = game.problem.as_ref().map(|p| {
        let (line, ply) = match p {
            record::RecordError::IllegalMove { ply, line, .. } => (*line, Some(*ply)),
            record::RecordError::Parse { line, .. } => (*line, None),
            _ => (None, None),
        };
        annotate::Problem { line, ply, message: p.to_string() }
    });
    Report {
        kaname: env!("CARGO_PKG_VERSION"),
        record: annotate::RecordInfo {
            path: a.record.display().to_string(),
            format: game.format.name(),
            encoding: game.encoding.name(),
            start_sfen: game.start.to_sfen(),
            moves: game.moves.len(),
            black: game.players[0].clone(),
            white: game.players[1].clone(),
            result: game.result.clone(),
        },
        settings: annotate::Settings {
            movetime: a.limits().movetime,
            nodes: a.nodes,
            depth: a.depth,
            threads: a.threads,
            multipv: a.multipv,
            hash_mb: a.hash_mb,
            eval: eval.to_string(),
            marks: a.marks.0,
            winrate_scale: annotate::WINRATE_SCALE,
            from: range.0,
            to: range.1,
        },
        summary: annotate::summarise(&plies),
        plies,
        error,
    }
}

/// Where the outputs go: the ones asked for, or, when none is, the report, the graph and a
/// copy in the record's family (CSA for CSA, KIF otherwise) beside the record.
fn output_paths(a: &Args, format: Format) -> [Option<PathBuf>; 4] {
    if a.json.is_some() || a.kif.is_some() || a.csa.is_some() || a.graph.is_some() {
        return [a.json.clone(), a.kif.clone(), a.csa.clone(), a.graph.clone()];
    }
    let beside = |ext: &str| Some(a.record.with_extension(format!("analysis.{ext}")));
    let csa = format == Format::Csa;
    [beside("json"), if csa { None } else { beside("kif") }, if csa { beside("csa") } else { None }, beside("svg")]
}

/// Record copies are Shift_JIS, what `.kif` and `.csa` files conventionally are and every GUI
/// reads; UTF-8 with a BOM (which GUIs recognise) for `.kifu`/`.ki2u`, or when some character
/// (a player's name, say) has no Shift_JIS code.
fn encode_record(path: &Path, text: &str) -> Vec<u8> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if !matches!(ext.as_str(), "kifu" | "ki2u") {
        let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
        if !unmappable {
            return bytes.into_owned();
        }
    }
    [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn graph_title(a: &Args, game: &Game) -> String {
    match &game.players {
        [Some(b), Some(w)] => format!("Kaname: ▲{b} - △{w}"),
        _ => format!("Kaname: {}", a.record.file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned())),
    }
}

/// Writes the outputs; returns the files written.
fn write_outputs(a: &Args, game: &Game, r: &Report) -> Result<Vec<PathBuf>, String> {
    let [json, kif, csa, graph] = output_paths(a, game.format);
    let mut written = Vec::new();
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(r).map_err(|e| e.to_string())?;
        write(&p, format!("{text}\n").as_bytes())?;
        written.push(p);
    }
    if let Some(p) = graph {
        let start = r.plies.first().map(|p| (p.ply - 1, p.best_score_black.winrate()));
        write(&p, crate::analyse::graph::svg(&graph_title(a, game), start, &r.plies)?.as_bytes())?;
        written.push(p);
    }
    let copy = annotate::annotated(&game.record, &r.plies);
    if let Some(p) = kif {
        let text = rsshogi::records::kif::export_kif(&copy).map_err(|e| format!("{}: {e}", p.display()))?;
        write(&p, &encode_record(&p, &text))?;
        written.push(p);
    }
    if let Some(p) = csa {
        let text = rsshogi::records::csa::export_csa(&copy).map_err(|e| format!("{}: {e}", p.display()))?;
        write(&p, &encode_record(&p, &text))?;
        written.push(p);
    }
    Ok(written)
}

/// Display width on a terminal: full-width (Japanese) characters take two columns.
fn width(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn budget(l: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(t) = l.movetime {
        parts.push(format!("{t} ms"));
    }
    if let Some(n) = l.nodes {
        parts.push(format!("{n} nodes"));
    }
    if let Some(d) = l.depth {
        parts.push(format!("depth {d}"));
    }
    parts.join(", ")
}

/// The summary table: settings, per-side totals, the marked moves, the files written.
pub fn summary_lines(r: &Report, limits: &Limits, written: &[PathBuf]) -> Vec<String> {
    let s = &r.settings;
    let range = match r.plies.len() {
        0 => "no move analysed".to_string(),
        _ => format!("plies {}-{} of {}", s.from, s.to, r.record.moves),
    };
    let mut lines = vec![
        format!(
            "Kaname analysis of {} ({}, {}): {range}, {} per position, {} thread(s), eval {}",
            r.record.path,
            r.record.format,
            r.record.encoding,
            budget(limits),
            s.threads,
            s.eval
        ),
        String::new(),
        "side    moves  best  avg loss cp  avg loss win%  dubious  mistake  blunder".to_string(),
    ];
    for (name, t) in [("black", &r.summary.black), ("white", &r.summary.white)] {
        lines.push(format!(
            "{name:<6} {:>6} {:>5} {:>12.0} {:>14.1} {:>8} {:>8} {:>8}",
            t.moves,
            t.best,
            t.average_loss_cp,
            t.average_loss_winrate * 100.0,
            t.dubious,
            t.mistake,
            t.blunder
        ));
    }
    let marked: Vec<&Ply> = r.plies.iter().filter(|p| p.mark.is_some()).collect();
    if !marked.is_empty() {
        lines.push(String::new());
        lines.push(" ply  move          score   best          best score  loss cp  loss win%  mark".to_string());
    }
    for p in marked {
        lines.push(format!(
            "{:>4}  {} {:>6}   {} {:>10} {:>8} {:>10.1}  {}",
            p.ply,
            pad(&p.move_ja, 12),
            p.score_black.text(),
            pad(p.best_ja.as_deref().unwrap_or("-"), 12),
            p.best_score_black.text(),
            p.loss_cp,
            p.loss_winrate * 100.0,
            p.mark.map_or("", |m| m.name())
        ));
    }
    lines.push(String::new());
    let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    lines.push(format!("written: {}", if files.is_empty() { "nothing".to_string() } else { files.join(", ") }));
    lines
}

/// Runs the analysis; `Ok(Some(problem))` when the record had a bad move (the plies before it
/// were analysed and written).
fn run(a: &Args) -> Result<Option<String>, String> {
    let path = a.record.display().to_string();
    let game = record::read_file(&a.record).map_err(|e| format!("{path}: {e}"))?;
    let problem = game.problem.as_ref().map(|p| format!("{path}: {p}"));
    if let Some(p) = &problem {
        eprintln!("kaname analyse: {p}; analysing the {} moves before it", game.moves.len());
    }
    let range = ply_range(a, game.moves.len())?;
    let net = a.eval.load_net()?;
    let mut searcher = new_searcher(a, net);
    let plies = analyse(&mut searcher, &game, range.0, range.1, a);
    let r = report(a, &game, range, plies, searcher.eval_in_use());
    let written = write_outputs(a, &game, &r)?;
    crate::protocol::output::Output::stdout().lines(summary_lines(&r, &a.limits(), &written));
    Ok(problem)
}

/// `kaname analyse`: exit status 2 on bad arguments, 1 on an unreadable record or output and
/// after a record's bad move (with the plies before it written), 0 otherwise.
pub fn cli(a: Args) {
    let a = a.check().unwrap_or_else(|e| crate::args::usage_error::<Args>("analyse", e));
    match run(&a) {
        Ok(None) => {}
        Ok(Some(problem)) => {
            eprintln!("kaname analyse: {problem}; the moves before it were analysed and written");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("kaname analyse: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        crate::args::parse::<Args>(s).map_err(|e| e.to_string())?.check()
    }

    #[test]
    fn arguments() {
        let a = args("game.kif").unwrap();
        assert_eq!(a.record, PathBuf::from("game.kif"));
        assert_eq!(
            (a.limits().movetime, a.limits().nodes, a.multipv, a.marks.0),
            (Some(DEFAULT_MOVETIME), None, 1, DEFAULT_MARKS)
        );
        let a = args("--nodes 500 --depth 3 game.csa --multipv 3 --from 2 --to 9 --marks 0.1,0.2,0.3 --no-progress")
            .unwrap();
        assert_eq!(a.record, PathBuf::from("game.csa"));
        assert_eq!((a.limits().movetime, a.limits().nodes, a.limits().depth), (None, Some(500), Some(3)));
        assert_eq!((a.multipv, a.from, a.to, a.marks.0, !a.no_progress), (3, Some(2), Some(9), [0.1, 0.2, 0.3], false));
        let a = args("g.kif --json o/x.json --graph o/x.svg --eval classical --threads 1 --hash 16").unwrap();
        assert_eq!((a.json.unwrap(), a.graph.unwrap()), (PathBuf::from("o/x.json"), PathBuf::from("o/x.svg")));
        assert_eq!((a.eval.eval, a.threads, a.hash_mb), (eval::EvalKind::Classical, 1, 16));
        for bad in [
            "",
            "a.kif b.kif",
            "g.kif --nodes",
            "g.kif --nodes 0",
            "g.kif --depth x",
            "g.kif --graph g.png",
            "g.kif --marks 0.2,0.1,0.3",
            "g.kif --marks 0.1,0.2",
            "g.kif --from 5 --to 2",
            "g.kif --eval magic",
            "g.kif --bogus",
        ] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn default_outputs_sit_beside_the_record() {
        let a = args("dir/game.kif").unwrap();
        let names = |f| output_paths(&a, f).map(|p| p.map(|p| p.display().to_string()));
        assert_eq!(
            names(Format::Kif),
            [
                Some("dir/game.analysis.json".into()),
                Some("dir/game.analysis.kif".into()),
                None,
                Some("dir/game.analysis.svg".into())
            ]
        );
        assert_eq!(names(Format::Csa)[1..3], [None, Some("dir/game.analysis.csa".into())]);
        let a = args("game.kif --json out.json").unwrap();
        assert_eq!(output_paths(&a, Format::Kif), [Some(PathBuf::from("out.json")), None, None, None]);
    }

    #[test]
    fn record_copies_are_shift_jis_unless_they_cannot_be() {
        let sjis = encode_record(Path::new("a.kif"), "先手：羽生\n");
        assert_eq!(crate::analyse::record::decode(&sjis).unwrap().1, crate::analyse::record::Encoding::ShiftJis);
        let utf8 = encode_record(Path::new("a.kifu"), "先手：羽生\n");
        assert!(utf8.starts_with(b"\xEF\xBB\xBF"));
        let emoji = encode_record(Path::new("a.kif"), "先手：\u{1F600}\n");
        assert!(emoji.starts_with(b"\xEF\xBB\xBF"));
    }

    #[test]
    fn a_short_search_reports_a_move_and_a_score() {
        let a = args("g.kif --nodes 3000 --threads 1 --hash 4 --multipv 2").unwrap();
        let mut s = new_searcher(&a, None);
        let r = search_position(&mut s, &Position::startpos(), &a.limits());
        assert!(r.best.is_some() && r.depth >= 1, "{r:?}");
        assert_eq!(r.pv.first(), r.best.as_ref());
        assert_eq!(r.lines.len(), 2);
        let mated = Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap();
        let r = search_position(&mut s, &mated, &a.limits());
        assert_eq!((r.best, r.score), (None, Score::Mate(0)));
    }
}
