//! `kaname gensfen`: self-play training data (YaneuraOu's 40-byte PackedSfenValue records),
//! a thin front end to `search::selfplay`.

use crate::args::{cores, EvalArgs};
use crate::protocol::output::Output;
use engine::PackedSfenValue;
use search::selfplay::{self, SelfPlayConfig};
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The default output file: `$XDG_CACHE_HOME/kaname/gensfen/selfplay.psv` (or under
/// `~/.cache`): generated data stays out of the repository.
fn default_out() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("kaname").join("gensfen").join("selfplay.psv")
}

/// Self-play training positions (PackedSfenValue)
///
/// Plays games against itself (one search thread per game, `--threads` games at once) and
/// appends every position's search score, best move and game result to `--out` as YaneuraOu's
/// 40-byte PackedSfenValue records. A second run with the same file resumes where the first
/// ended. Out-of-range numbers are clamped to their range. Progress goes to stderr.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The output file; records are appended, a run resumes where the file ends
    #[arg(long, value_name = "F", default_value_os_t = default_out())]
    pub out: PathBuf,
    /// Positions to have in the file when the run ends
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub positions: u64,
    /// Node budget per move, 1 or more
    #[arg(long, value_name = "N", default_value_t = SelfPlayConfig::default().nodes, value_parser = clamped::<u64>(1, u64::MAX))]
    pub nodes: u64,
    /// Depth per move, 1..=64, instead of nodes
    #[arg(long, value_name = "D", value_parser = clamped::<i32>(1, 64))]
    pub depth: Option<i32>,
    /// Games played at once, one search thread each, 1..=256 [default: all cores]
    #[arg(long, value_name = "N", default_value_t = cores(), hide_default_value = true, value_parser = clamped::<usize>(1, 256))]
    pub threads: usize,
    /// Hash table per game thread, MiB, 1..=4096
    #[arg(long = "hash", value_name = "MB", default_value_t = 16, value_parser = clamped::<usize>(1, 4096))]
    pub hash_mb: usize,
    /// Seed of the games' random moves (game i of a run uses the seed and i only)
    #[arg(long, value_name = "S", default_value_t = SelfPlayConfig::default().seed)]
    pub seed: u64,
    /// Random legal moves played at the start of each game, between MIN and MAX
    #[arg(long, value_name = "MIN-MAX", default_value_t = PlyRange::from(SelfPlayConfig::default().random_plies), value_parser = ply_range)]
    pub random_plies: PlyRange,
    /// A game is a draw after this many plies, 1..=10000
    #[arg(long, value_name = "N", default_value_t = SelfPlayConfig::default().max_plies, value_parser = clamped::<u32>(1, 10_000))]
    pub max_plies: u32,
    /// The evaluation of both sides.
    #[command(flatten)]
    pub eval: EvalArgs,
}

impl Args {
    /// How the games are played.
    pub fn game(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            nodes: self.nodes,
            depth: self.depth,
            random_plies: (self.random_plies.0, self.random_plies.1),
            max_plies: self.max_plies,
            seed: self.seed,
            ..SelfPlayConfig::default()
        }
    }
}

/// A whole number clamped into `lo..=hi` (gensfen's numbers are clamped, not refused).
fn clamped<T: TryFrom<u64>>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s| {
        let n = s.parse::<u64>().map_err(|_| "not a whole number".to_string())?;
        T::try_from(n.clamp(lo, hi)).map_err(|_| format!("not in {lo}..={hi}"))
    }
}

/// `MIN-MAX` plies (`N` alone is `N-N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyRange(pub u32, pub u32);

impl From<(u32, u32)> for PlyRange {
    fn from((lo, hi): (u32, u32)) -> PlyRange {
        PlyRange(lo, hi)
    }
}

impl std::fmt::Display for PlyRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

fn ply_range(v: &str) -> Result<PlyRange, String> {
    let (lo, hi) = v.split_once('-').unwrap_or((v, v));
    match (lo.parse::<u32>(), hi.parse::<u32>()) {
        (Ok(lo), Ok(hi)) if lo <= hi => Ok(PlyRange(lo, hi)),
        _ => Err("takes MIN-MAX, such as 8-24".into()),
    }
}

/// Records already in `path`, after cutting off a partly written last record (an interrupted
/// run), and the game index to resume from (kept in `<path>.games`).
fn resume_point(path: &Path) -> std::io::Result<(u64, u64)> {
    let len = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(e),
    };
    let whole = len / engine::PSV_BYTES as u64 * engine::PSV_BYTES as u64;
    if whole != len {
        OpenOptions::new().write(true).open(path)?.set_len(whole)?;
    }
    let games = std::fs::read_to_string(games_file(path)).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
    Ok((whole / engine::PSV_BYTES as u64, games))
}

fn games_file(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".games");
    PathBuf::from(p)
}

/// Progress as plain lines every 10 seconds: positions, positions/s, ETA.
pub struct PlainProgress {
    start: std::time::Instant,
    last: std::time::Instant,
    from: u64,
    target: u64,
}

impl PlainProgress {
    /// Progress from `from` positions towards `target`.
    pub fn new(from: u64, target: u64) -> PlainProgress {
        let now = std::time::Instant::now();
        PlainProgress { start: now, last: now, from, target }
    }

    /// Reports `count` positions after `games` games, if the last line is 10 s old.
    pub fn update(&mut self, count: u64, games: u64) {
        if self.last.elapsed().as_secs() < 10 {
            return;
        }
        self.last = std::time::Instant::now();
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        let rate = (count - self.from) as f64 / secs;
        let eta = if rate > 0.0 { (self.target.saturating_sub(count)) as f64 / rate } else { f64::INFINITY };
        eprintln!(
            "gensfen: {count}/{} positions, {games} games, {rate:.0} positions/s, ETA {:.0} min",
            self.target,
            eta / 60.0
        );
    }
}

/// The record of one training position.
pub fn record(p: &selfplay::TrainingPosition) -> PackedSfenValue {
    PackedSfenValue {
        sfen: p.packed,
        score: p.score.clamp(-32000, 32000) as i16,
        move16: engine::move16(p.best),
        game_ply: p.game_ply.min(u16::MAX as u32) as u16,
        game_result: p.result,
        padding: 0,
    }
}

/// Runs `kaname gensfen`; progress goes to stderr.
pub fn run(a: &Args, net: Option<eval::Net>) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", a.out.display());
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let (have, first_game) = resume_point(&a.out).map_err(err)?;
    if have >= a.positions {
        eprintln!("{}: already holds {have} positions", a.out.display());
        return Ok(());
    }
    let file = OpenOptions::new().create(true).append(true).open(&a.out).map_err(err)?;
    let mut w = BufWriter::new(file);
    let options = search::Options {
        hash_mb: a.hash_mb,
        eval: a.eval.eval,
        ..crate::protocol::options::Settings::default().search
    };
    let eval_used =
        if a.eval.eval == eval::EvalKind::Net && net.is_none() { eval::EvalKind::Classical } else { a.eval.eval };
    eprintln!(
        "gensfen: {} -> {} positions into {} ({} threads, {}, eval {eval_used}, seed {}, from game {first_game})",
        have,
        a.positions,
        a.out.display(),
        a.threads,
        a.depth.map_or(format!("{} nodes", a.nodes), |d| format!("depth {d}")),
        a.seed,
    );
    let bar = indicatif::ProgressBar::new(a.positions);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} positions, {per_sec}, ETA {eta} {msg}",
        )
        .expect("progress template")
        .progress_chars("=> "),
    );
    bar.set_position(have);
    bar.reset_eta();
    // Without a terminal (a log file, a pipe) the bar is hidden: print a line now and then.
    let mut log =
        (!std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| PlainProgress::new(have, a.positions));
    let (mut count, mut games, mut io_error) = (have, 0u64, None);
    let mut resume_from = first_game;
    let next = selfplay::run_with_net(&a.game(), &options, net, a.threads, first_game, |game, recs, _end| {
        let take = recs.len().min((a.positions - count) as usize);
        for r in &recs[..take] {
            if let Err(e) = w.write_all(&record(r).to_bytes()) {
                io_error = Some(e);
                return false;
            }
        }
        count += take as u64;
        games += 1;
        // Kept up to date so that an interrupted run resumes past every game it wrote: games
        // still being played then are lost, never repeated.
        if game >= resume_from {
            resume_from = game + 1;
            if let Err(e) = w.flush().and_then(|_| std::fs::write(games_file(&a.out), format!("{resume_from}\n"))) {
                io_error = Some(e);
                return false;
            }
        }
        bar.set_position(count);
        bar.set_message(format!("({games} games)"));
        if let Some(log) = &mut log {
            log.update(count, games);
        }
        count < a.positions
    });
    bar.finish();
    w.flush().map_err(err)?;
    if let Some(e) = io_error {
        return Err(err(e));
    }
    std::fs::write(games_file(&a.out), format!("{next}\n")).map_err(err)?;
    eprintln!("gensfen: {count} positions in {}; next game {next}", a.out.display());
    Ok(())
}

/// `kaname gensfen`: an unusable `--eval-file` is a usage error (status 2), a failure while
/// writing exits with 1.
pub fn cli(a: &Args) {
    let net = a.eval.load_net().unwrap_or_else(|e| crate::args::usage_error::<Args>("gensfen", e));
    if let Err(e) = run(a, net) {
        eprintln!("kaname: gensfen: {e}");
        std::process::exit(1);
    }
}

/// Print PackedSfenValue records as text
///
/// One line per record: `sfen <SFEN> move <usi> score <cp> ply <n> result <r>` (for people,
/// and for `scripts/check_psv_cshogi.py`, which compares these with cshogi's reading). A file
/// that cannot be read or a record that does not unpack is a usage error (status 2).
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct DumpArgs {
    /// The PackedSfenValue file
    #[arg(value_name = "file")]
    pub file: String,
    /// Records printed, from the first [default: all]
    #[arg(value_name = "n")]
    pub n: Option<usize>,
}

/// `kaname psv-dump`: the lines of `dump`, or a usage error.
pub fn dump_cli(a: &DumpArgs) {
    match dump(&a.file, a.n.unwrap_or(usize::MAX)) {
        Ok(lines) => Output::stdout().lines(lines),
        Err(e) => crate::args::usage_error::<DumpArgs>("psv-dump", e),
    }
}

/// The first `limit` records of the PackedSfenValue file `path` as text, one per line (see
/// `DumpArgs`).
pub fn dump(path: &str, limit: usize) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = Vec::new();
    for (i, chunk) in bytes.chunks_exact(engine::PSV_BYTES).take(limit).enumerate() {
        let rec = PackedSfenValue::from_bytes(chunk.try_into().expect("40 bytes"));
        let pos = rec.position().map_err(|e| format!("{path}: record {i}: {e}"))?;
        let mv = engine::move_from_move16(&pos, rec.move16).map_or("none".to_string(), |m| m.to_string());
        lines.push(format!(
            "sfen {} move {mv} score {} ply {} result {}",
            pos.to_sfen(),
            rec.score,
            rec.game_ply,
            rec.game_result
        ));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let parse = crate::args::parse::<Args>;
        let a = parse("--out x.psv --positions 10 --nodes 500 --random-plies 2-4").unwrap();
        assert_eq!((a.positions, a.game().nodes, a.game().random_plies), (10, 500, (2, 4)));
        assert_eq!(a.out, PathBuf::from("x.psv"));
        let d = parse("").unwrap().game();
        assert_eq!((d.nodes, d.depth, d.random_plies, d.max_plies, d.seed), {
            let c = SelfPlayConfig::default();
            (c.nodes, c.depth, c.random_plies, c.max_plies, c.seed)
        });
        // Out of range is clamped, as it always was.
        let a = parse("--nodes 0 --depth 99 --threads 0 --hash 9999 --max-plies 0").unwrap();
        assert_eq!((a.nodes, a.depth, a.threads, a.hash_mb, a.max_plies), (1, Some(64), 1, 4096, 1));
        assert!(parse("--positions").is_err());
        assert!(parse("--random-plies 5-2").is_err());
        assert!(parse("--eval magic").is_err());
        assert!(parse("--bogus 1").is_err());
    }
}
