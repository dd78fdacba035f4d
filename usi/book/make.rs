//! `kaname makebook`: an opening book from Kaname's own analysis, in YaneuraOu's format.
//!
//! 1. The positions: those of an openings file (`startpos moves ...` lines, default
//!    `scripts/openings.txt`) and of self-play records (`--psv`, gensfen's PackedSfenValue files)
//!    up to game ply `--plies`, then, ply by ply, the positions after the best `--expand` moves of
//!    every position searched, also up to `--plies` (`--limit` caps the total).
//! 2. Each position is searched with `--multipv` lines and a `--nodes`, `--movetime` or
//!    `--depth` budget (`--threads` searches at once, one search thread each, a fresh hash table
//!    per position). Every result goes to the journal `<out>.searched` at once, one line per
//!    position; a later run with the same journal searches only what it does not hold
//!    (resuming an interrupted run, or growing a book with more plies or openings).
//! 3. The values are backed up over the book graph (negamax): a move leading to a book
//!    position is worth minus that position's best value (a mate one ply further), whether or
//!    not the search listed it; other moves keep their search score. The book is written
//!    sorted by SFEN, so large books are searched on disk.

use crate::args::{cores, whole, EvalArgs};
use crate::book::{self, BookMove, VALUE_MATE, VALUE_MATE_IN_MAX_PLY};
use engine::{Move, MoveList, Position};
use search::{Info, Limits, Score, Searcher};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The openings file used when neither `--openings` nor `--psv` is given.
pub const DEFAULT_OPENINGS: &str = "scripts/openings.txt";

/// The node budget per position when no budget is given.
pub const DEFAULT_NODES: u64 = 100_000;

/// An opening book (YaneuraOu's format) from Kaname's own analysis
///
/// Searches the positions of openings files and self-play records up to --plies, and the
/// positions after the best --expand moves of each, then backs the values up over the book
/// graph and writes the book sorted by SFEN. Every search is kept at once in OUT.searched, so
/// that a later run searches only what it does not hold. Progress and the summary go to
/// stderr; exit status 1 on failure, 2 on bad arguments.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The book to write; searches are kept in F.searched
    #[arg(long, value_name = "F", default_value = "kaname_book.db")]
    pub out: PathBuf,
    /// Openings files, lines 'startpos moves ...' or 'sfen ... moves ...' [default:
    /// scripts/openings.txt unless --psv is given]
    #[arg(long, value_name = "F", num_args = 1..)]
    pub openings: Vec<PathBuf>,
    /// Also the positions of self-play records (kaname gensfen's files)
    #[arg(long, value_name = "F", num_args = 1..)]
    pub psv: Vec<PathBuf>,
    /// Book positions up to this game ply
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = whole::<u32>(1..=1000))]
    pub plies: u32,
    /// Also the positions after the best N moves of each position searched
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = whole::<usize>(0..=600))]
    pub expand: usize,
    /// At most N positions in all [default: no limit]
    #[arg(long, value_name = "N", value_parser = whole::<usize>(1..=u64::MAX))]
    pub limit: Option<usize>,
    /// Moves searched per position
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = whole::<usize>(1..=600))]
    pub multipv: usize,
    /// Node budget per position [default: 100000 unless --movetime or --depth is given]
    #[arg(long, value_name = "N", value_parser = whole::<u64>(1..=u64::MAX), overrides_with_all = ["movetime", "depth"])]
    pub nodes: Option<u64>,
    /// Time per position, milliseconds, instead of nodes
    #[arg(long, value_name = "MS", value_parser = whole::<u64>(1..=u64::MAX), overrides_with_all = ["nodes", "depth"])]
    pub movetime: Option<u64>,
    /// Depth per position, instead of nodes
    #[arg(long, value_name = "D", value_parser = whole::<i32>(1..=127), overrides_with_all = ["nodes", "movetime"])]
    pub depth: Option<i32>,
    /// Positions searched at once, one search thread each [default: all cores]
    #[arg(long, value_name = "N", default_value_t = cores(), hide_default_value = true, value_parser = whole::<usize>(1..=256))]
    pub threads: usize,
    /// Hash table per search, MiB
    #[arg(long = "hash", value_name = "MB", default_value_t = 64, value_parser = whole::<usize>(1..=65536))]
    pub hash_mb: usize,
    /// The evaluation.
    #[command(flatten)]
    pub eval: EvalArgs,
    /// Plain progress lines instead of a bar
    #[arg(long)]
    pub no_progress: bool,
}

impl Args {
    /// The budget of each search: the last of `--nodes`, `--movetime` and `--depth` given, or
    /// `DEFAULT_NODES`.
    pub fn limits(&self) -> Limits {
        match (self.nodes, self.movetime, self.depth) {
            (None, None, None) => Limits { nodes: Some(DEFAULT_NODES), ..Default::default() },
            (nodes, movetime, depth) => Limits { nodes, movetime, depth, ..Default::default() },
        }
    }

    /// The openings files read: `--openings`, or `DEFAULT_OPENINGS` without `--openings` and
    /// `--psv`.
    pub fn openings(&self) -> Vec<PathBuf> {
        match (self.openings.is_empty(), self.psv.is_empty()) {
            (true, true) => vec![PathBuf::from(DEFAULT_OPENINGS)],
            _ => self.openings.clone(),
        }
    }
}

/// One searched move: the search's own result, before backing up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The move.
    pub mv: String,
    /// The second move of its line.
    pub ponder: Option<String>,
    /// Its score for the side to move (mate in n = 32000 - n).
    pub value: i32,
    /// The depth of its line.
    pub depth: i32,
}

/// A search score as a book value.
pub fn book_value(s: Score) -> i32 {
    match s {
        Score::Cp(v) => v.clamp(-VALUE_MATE_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY - 1),
        Score::Mate(n) if n > 0 => VALUE_MATE - n,
        Score::Mate(n) => -VALUE_MATE - n,
    }
}

/// The value of a position seen from the position before it: minus the value, and a mate one
/// ply further away.
pub fn back_up(v: i32) -> i32 {
    if v >= VALUE_MATE_IN_MAX_PLY {
        -(v - 1)
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        -(v + 1)
    } else {
        -v
    }
}

/// The journal file beside the book.
pub fn journal_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".searched");
    PathBuf::from(p)
}

/// One journal line: `<sfen>\t<move> <ponder|none> <value> <depth>\t...`.
fn journal_line(sfen: &str, moves: &[Searched]) -> String {
    let mut s = sfen.to_string();
    for m in moves {
        s.push_str(&format!("\t{} {} {} {}", m.mv, m.ponder.as_deref().unwrap_or("none"), m.value, m.depth));
    }
    s.push('\n');
    s
}

/// The journal: searched positions by key. A last line without its newline (an interrupted
/// write) is dropped, and cut from the file so that appending goes on cleanly.
fn read_journal(path: &Path) -> Result<HashMap<String, Vec<Searched>>, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(err(e)),
    };
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole != text.len() {
        OpenOptions::new().write(true).open(path).and_then(|f| f.set_len(whole as u64)).map_err(err)?;
    }
    let mut map = HashMap::new();
    for (i, line) in String::from_utf8_lossy(&text[..whole]).lines().enumerate() {
        let mut fields = line.split('\t');
        let bad = || format!("{}: line {}: not a journal line", path.display(), i + 1);
        let k = fields.next().and_then(book::key).ok_or_else(bad)?;
        let moves = fields
            .map(|f| {
                let m = book::parse_move_line(f).map_err(|_| bad())?;
                Ok(Searched { mv: m.mv, ponder: m.ponder, value: m.value, depth: m.depth })
            })
            .collect::<Result<Vec<_>, String>>()?;
        map.insert(k, moves);
    }
    Ok(map)
}

/// The positions of one openings line (`[position] startpos|sfen ... [moves ...]`) up to ply
/// `plies`; an illegal move ends the line (the positions before it stay) with a warning.
pub fn line_positions(line: &str, plies: u32) -> Result<(Vec<Position>, Option<String>), String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let t = if t.first() == Some(&"position") { &t[1..] } else { &t[..] };
    let moves_at = t.iter().position(|x| *x == "moves").unwrap_or(t.len());
    let (mut pos, problem) = crate::protocol::parse::position(&t[..moves_at], engine::VariantId::Shogi)?;
    let mut out = Vec::new();
    if pos.game_ply() <= plies {
        out.push(pos.clone());
    }
    for m in t.iter().skip(moves_at + 1) {
        if pos.game_ply() >= plies {
            break;
        }
        if let Some(e) = crate::protocol::parse::apply_moves(&mut pos, [*m]) {
            return Ok((out, Some(e)));
        }
        out.push(pos.clone());
    }
    Ok((out, problem))
}

/// The seed positions of the openings and record files, by ply.
fn seeds(a: &Args) -> Result<Vec<Position>, String> {
    let mut out = Vec::new();
    for f in &a.openings() {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            match line_positions(l, a.plies) {
                Ok((ps, problem)) => {
                    if let Some(p) = problem {
                        eprintln!("makebook: {}: line {}: {p}", f.display(), i + 1);
                    }
                    out.extend(ps);
                }
                Err(e) => eprintln!("makebook: {}: line {}: {e}; skipped", f.display(), i + 1),
            }
        }
    }
    for f in &a.psv {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        for (i, chunk) in bytes.chunks_exact(engine::PSV_BYTES).enumerate() {
            let rec = engine::PackedSfenValue::from_bytes(chunk.try_into().expect("record size"));
            match rec.position() {
                Ok(p) if p.game_ply() <= a.plies => out.push(p),
                Ok(_) => {}
                Err(e) => return Err(format!("{}: record {i}: {e}", f.display())),
            }
        }
    }
    Ok(out)
}

/// Searches `pos` and returns its MultiPV lines (the last complete report), best first.
pub fn analyse(searcher: &mut Searcher, pos: &Position, limits: &Limits) -> Vec<Searched> {
    searcher.clear();
    let lines: Arc<Mutex<Vec<Info>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let (tx, rx) = crossbeam_channel::bounded(1);
    searcher.start(
        pos.clone(),
        limits.clone(),
        Box::new(move |info: Info| {
            let mut v = sink.lock().unwrap_or_else(|e| e.into_inner());
            // Each report lists the lines from the first: a new report starts at multipv 1.
            if info.multipv == 1 {
                v.clear();
            }
            v.push(info);
        }),
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    let _ = rx.recv();
    searcher.wait();
    let infos = lines.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut out: Vec<Searched> = Vec::new();
    for info in infos {
        let Some(&m) = info.pv.first() else { continue };
        let mv = m.to_string();
        if out.iter().any(|s| s.mv == mv) || !pos.is_legal(m) {
            continue;
        }
        out.push(Searched {
            mv,
            ponder: info.pv.get(1).map(Move::to_string),
            value: book_value(info.score),
            depth: info.depth,
        });
    }
    out
}

/// Book positions, by key: the SFEN (with the lowest ply it was reached at) and its searched moves.
pub type Nodes = BTreeMap<String, (String, Vec<Searched>)>;

/// A node's moves: the move, its search result if it was searched, and the book node it leads to.
type Edges<'a> = HashMap<&'a str, Vec<(String, Option<&'a Searched>, Option<&'a str>)>>;

/// The book entries of every node, values backed up over the graph (negamax; a move into a
/// position on the current path keeps its search score, or is left out if it has none).
pub fn back_up_book(nodes: &Nodes) -> BTreeMap<String, (String, Vec<BookMove>)> {
    // The graph: each node's moves, with the key of the book node they lead to.
    let mut edges: Edges = HashMap::new();
    for (k, (sfen, searched)) in nodes {
        let pos = Position::from_sfen(sfen).expect("book SFEN");
        let mut legal = MoveList::new();
        engine::generate_legal(&pos, &mut legal);
        let mut list = Vec::new();
        for &m in legal.iter() {
            let text = m.to_string();
            let raw = searched.iter().find(|s| s.mv == text);
            let mut child = pos.clone();
            child.do_move(m);
            let ck = book::key(&child.to_sfen()).expect("SFEN");
            let child = nodes.get_key_value(&ck).map(|(k, _)| k.as_str());
            if raw.is_some() || child.is_some() {
                list.push((text, raw, child));
            }
        }
        edges.insert(k.as_str(), list);
    }
    enum Visit {
        Open,
        Done(Vec<BookMove>),
    }
    fn visit<'a>(k: &'a str, edges: &Edges<'a>, state: &mut HashMap<&'a str, Visit>) {
        if state.contains_key(k) {
            return;
        }
        state.insert(k, Visit::Open);
        let mut moves = Vec::new();
        for (mv, raw, child) in &edges[k] {
            if let Some(c) = child {
                visit(c, edges, state);
                if let Some(Visit::Done(cm)) = state.get(c) {
                    if let Some(best) = cm.first() {
                        moves.push(BookMove {
                            mv: mv.clone(),
                            ponder: Some(best.mv.clone()),
                            value: back_up(best.value),
                            depth: best.depth + 1,
                            count: 1,
                        });
                        continue;
                    }
                }
            }
            if let Some(r) = raw {
                moves.push(BookMove {
                    mv: mv.clone(),
                    ponder: r.ponder.clone(),
                    value: r.value,
                    depth: r.depth,
                    count: 1,
                });
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.value));
        state.insert(k, Visit::Done(moves));
    }
    let mut state = HashMap::new();
    for k in nodes.keys() {
        visit(k, &edges, &mut state);
    }
    nodes
        .iter()
        .map(|(k, (sfen, _))| {
            let moves = match state.remove(k.as_str()) {
                Some(Visit::Done(m)) => m,
                _ => Vec::new(),
            };
            (k.clone(), (sfen.clone(), moves))
        })
        .collect()
}

/// Writes the book sorted by SFEN (through a temporary file, so a reader never sees half a book).
pub fn write_book(path: &Path, entries: &BTreeMap<String, (String, Vec<BookMove>)>) -> std::io::Result<usize> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut w = BufWriter::new(std::fs::File::create(&tmp)?);
    writeln!(w, "{}", book::HEADER)?;
    let mut n = 0;
    for (sfen, moves) in entries.values() {
        if moves.is_empty() {
            continue;
        }
        n += 1;
        writeln!(w, "sfen {sfen}")?;
        for m in moves {
            writeln!(w, "{} {} {} {} {}", m.mv, m.ponder.as_deref().unwrap_or("none"), m.value, m.depth, m.count)?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&tmp, path)?;
    Ok(n)
}

/// Progress: a bar on a terminal, else a line every 10 seconds.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: std::time::Instant,
    last: std::time::Instant,
    done: u64,
    total: u64,
}

impl Progress {
    fn new(plain: bool) -> Progress {
        let bar = (!plain && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            let b = indicatif::ProgressBar::new(0);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} positions searched (more are found ply by ply), {per_sec}, ETA {eta} {msg}",
                )
                .expect("progress template")
                .progress_chars("=> "),
            );
            b
        });
        let now = std::time::Instant::now();
        Progress { bar, start: now, last: now, done: 0, total: 0 }
    }

    fn add_total(&mut self, n: u64, ply: u32) {
        self.total += n;
        if let Some(b) = &self.bar {
            b.set_length(self.total);
            b.set_message(format!("(ply {ply})"));
        }
    }

    fn step(&mut self, ply: u32) {
        self.done += 1;
        match &self.bar {
            Some(b) => b.set_position(self.done),
            None if self.last.elapsed().as_secs() >= 10 || self.done == self.total => {
                self.last = std::time::Instant::now();
                let rate = self.done as f64 / self.start.elapsed().as_secs_f64().max(1e-3);
                eprintln!(
                    "makebook: ply {ply}: {}/{} positions searched, {rate:.2} positions/s, ETA {:.0} s (for the positions known so far)",
                    self.done,
                    self.total,
                    (self.total - self.done) as f64 / rate.max(1e-9)
                );
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish();
        }
    }
}

/// Searches `todo` with `searchers` (one position per searcher at a time); each result is
/// passed to `done` on this thread as it comes.
fn search_all(
    searchers: &mut [Searcher],
    todo: &[Position],
    limits: &Limits,
    mut done: impl FnMut(usize, Vec<Searched>) -> Result<(), String>,
) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::scope(|s| {
        for searcher in searchers.iter_mut() {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= todo.len() {
                    return;
                }
                if tx.send((i, analyse(searcher, &todo[i], limits))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut result = Ok(());
        for (i, moves) in rx {
            if result.is_ok() {
                result = done(i, moves);
                if result.is_err() {
                    // Let the searchers run out of work.
                    next.store(usize::MAX / 2, Ordering::SeqCst);
                }
            }
        }
        result
    })
}

/// `kaname makebook`: an unusable `--eval-file` is a usage error (status 2), a failure exits
/// with 1.
pub fn cli(a: &Args) {
    let net = a.eval.load_net().unwrap_or_else(|e| crate::args::usage_error::<Args>("makebook", e));
    if let Err(e) = run(a, net) {
        eprintln!("kaname makebook: {e}");
        std::process::exit(1);
    }
}

/// Runs `kaname makebook`; progress and the summary go to stderr.
pub fn run(a: &Args, net: Option<eval::Net>) -> Result<(), String> {
    let seeds = seeds(a)?;
    let journal_file = journal_path(&a.out);
    let mut journal = read_journal(&journal_file)?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_file)
        .map_err(|e| format!("{}: {e}", journal_file.display()))?;
    let options = search::Options {
        hash_mb: a.hash_mb,
        threads: 1,
        multipv: a.multipv,
        eval: a.eval.eval,
        ..crate::protocol::options::Settings::default().search
    };
    let mut searchers: Vec<Searcher> = (0..a.threads.max(1))
        .map(|_| {
            let mut s = Searcher::new();
            s.set_options(&options);
            s.set_net(net.clone());
            s
        })
        .collect();
    let mut levels: BTreeMap<u32, Vec<Position>> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    let add = |levels: &mut BTreeMap<u32, Vec<Position>>, seen: &mut HashSet<String>, p: Position| {
        let k = book::key(&p.to_sfen()).expect("SFEN");
        if seen.insert(k) {
            levels.entry(p.game_ply()).or_default().push(p);
        }
    };
    let mut sorted_seeds = seeds;
    sorted_seeds.sort_by_key(|p| p.game_ply());
    for p in sorted_seeds {
        add(&mut levels, &mut seen, p);
    }
    let eval_used = searchers[0].eval_in_use();
    eprintln!(
        "makebook: {} seed positions up to ply {}, multipv {}, {}, {} searches at once, eval {eval_used}, \
         {} positions in the journal {}",
        seen.len(),
        a.plies,
        a.multipv,
        budget_text(&a.limits()),
        searchers.len(),
        journal.len(),
        journal_file.display()
    );
    let mut nodes: Nodes = BTreeMap::new();
    let mut progress = Progress::new(a.no_progress);
    let (mut searched_now, mut reused, rule) = (0usize, 0usize, options.entering_king_rule);
    while let Some((ply, wave)) = levels.pop_first() {
        let room = a.limit.unwrap_or(usize::MAX).saturating_sub(nodes.len());
        if room == 0 || ply > a.plies {
            break;
        }
        let wave: Vec<Position> =
            wave.into_iter().filter(|p| search::immediate_result(p, rule).is_none()).take(room).collect();
        let todo: Vec<Position> =
            wave.iter().filter(|p| !journal.contains_key(&book::key(&p.to_sfen()).unwrap())).cloned().collect();
        reused += wave.len() - todo.len();
        progress.add_total(todo.len() as u64, ply);
        search_all(&mut searchers, &todo, &a.limits(), |i, moves| {
            let sfen = todo[i].to_sfen();
            log.write_all(journal_line(&sfen, &moves).as_bytes())
                .and_then(|_| log.flush())
                .map_err(|e| format!("{}: {e}", journal_file.display()))?;
            journal.insert(book::key(&sfen).unwrap(), moves);
            searched_now += 1;
            progress.step(ply);
            Ok(())
        })?;
        for p in wave {
            let sfen = p.to_sfen();
            let k = book::key(&sfen).unwrap();
            let moves = journal.get(&k).cloned().unwrap_or_default();
            if moves.is_empty() {
                continue;
            }
            if ply < a.plies {
                for m in moves.iter().take(a.expand) {
                    if let Ok(mv) = p.parse_usi_move(&m.mv) {
                        let mut child = p.clone();
                        child.do_move(mv);
                        add(&mut levels, &mut seen, child);
                    }
                }
            }
            nodes.insert(k, (sfen, moves));
        }
    }
    progress.finish();
    let entries = back_up_book(&nodes);
    let n = write_book(&a.out, &entries).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!(
        "makebook: {n} positions written to {} ({searched_now} searched now, {reused} taken from the journal)",
        a.out.display(),
    );
    Ok(())
}

fn budget_text(l: &Limits) -> String {
    match (l.nodes, l.movetime, l.depth) {
        (Some(n), _, _) => format!("{n} nodes"),
        (_, Some(t), _) => format!("{t} ms"),
        (_, _, Some(d)) => format!("depth {d}"),
        _ => "no limit".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let parse_args = crate::args::parse::<Args>;
        let a = parse_args("--out b.db --plies 8 --multipv 3 --movetime 50").unwrap();
        assert_eq!((a.plies, a.multipv, a.limits().movetime, a.limits().nodes), (8, 3, Some(50), None));
        assert_eq!(a.openings(), [PathBuf::from("scripts/openings.txt")]);
        let a = parse_args("--psv x.psv --no-progress --openings a.txt b.txt").unwrap();
        assert_eq!(a.openings().len(), 2);
        assert!(a.no_progress && a.psv.len() == 1);
        assert_eq!(parse_args("").unwrap().limits().nodes, Some(100_000));
        // The last budget given counts, as before.
        let l = parse_args("--nodes 5 --depth 3").unwrap().limits();
        assert_eq!((l.nodes, l.depth), (None, Some(3)));
        assert_eq!(parse_args("--depth 3 --nodes 5").unwrap().limits().nodes, Some(5));
        for bad in ["--plies", "--plies 0", "--nodes x", "--bogus", "--no-progress 1", "--openings"] {
            assert!(parse_args(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn values() {
        assert_eq!(book_value(Score::Cp(35)), 35);
        assert_eq!(book_value(Score::Mate(3)), 31997);
        assert_eq!(book_value(Score::Mate(-2)), -31998);
        assert_eq!(back_up(35), -35);
        // Mated in 2 here is mate in 3 for the side before.
        assert_eq!(back_up(-31998), 31997);
        assert_eq!(back_up(31997), -31996);
    }

    #[test]
    fn openings_lines() {
        let (ps, p) = line_positions("startpos moves 7g7f 3c3d 2g2f", 16).unwrap();
        assert_eq!(ps.len(), 4);
        assert!(p.is_none());
        let (ps, _) = line_positions("position startpos moves 7g7f 3c3d 2g2f", 2).unwrap();
        assert_eq!(ps.iter().map(|p| p.game_ply()).collect::<Vec<_>>(), [1, 2]);
        let (ps, p) = line_positions("startpos moves 7g7f 7g7f", 16).unwrap();
        assert_eq!(ps.len(), 2);
        assert!(p.unwrap().contains("illegal"));
        assert!(line_positions("sfen nonsense", 16).is_err());
    }

    #[test]
    fn negamax_over_the_book_graph() {
        // Start: searched 7g7f 50, 2g2f 40. After 7g7f (a book node): 3c3d -20 (so 7g7f is
        // worth 20 from the start). After 2g2f: not in the book.
        let s = |mv: &str, v: i32| Searched { mv: mv.into(), ponder: None, value: v, depth: 10 };
        let start = Position::startpos();
        let mut p1 = start.clone();
        p1.do_move(p1.parse_usi_move("7g7f").unwrap());
        let mut nodes: Nodes = BTreeMap::new();
        nodes.insert(book::key(&start.to_sfen()).unwrap(), (start.to_sfen(), vec![s("7g7f", 50), s("2g2f", 40)]));
        nodes.insert(book::key(&p1.to_sfen()).unwrap(), (p1.to_sfen(), vec![s("3c3d", -20), s("8c8d", -30)]));
        let book = back_up_book(&nodes);
        let root = &book[&book::key(&start.to_sfen()).unwrap()].1;
        assert_eq!((root[0].mv.as_str(), root[0].value), ("2g2f", 40));
        assert_eq!((root[1].mv.as_str(), root[1].value, root[1].depth), ("7g7f", 20, 11));
        assert_eq!(root[1].ponder.as_deref(), Some("3c3d"));
    }
}
