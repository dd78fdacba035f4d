//! `kaname gensfen`: self-play training data (YaneuraOu's 40-byte PackedSfenValue records),
//! a thin front end to `search::selfplay`.

use crate::protocol::ascii;
use engine::PackedSfenValue;
use search::selfplay::{self, SelfPlayConfig};
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What `kaname gensfen` was asked for.
#[derive(Debug)]
pub struct Args {
    /// The output file (records are appended; a run resumes where the file ends).
    pub out: PathBuf,
    /// Positions to have in the file when the run ends.
    pub positions: u64,
    /// Games played at once, one search thread each.
    pub threads: usize,
    /// Hash table per game thread, MiB.
    pub hash_mb: usize,
    /// How games are played.
    pub game: SelfPlayConfig,
    /// Evaluation used by both sides.
    pub eval: eval::EvalKind,
    /// A net file for `eval = net` (empty: the embedded net).
    pub eval_file: String,
}

/// The default output file: `$XDG_CACHE_HOME/kaname/gensfen/selfplay.psv` (or under
/// `~/.cache`): generated data stays out of the repository.
fn default_out() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("kaname").join("gensfen").join("selfplay.psv")
}

/// Parses the arguments after `gensfen`.
pub fn parse_args(args: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        out: default_out(),
        positions: 100_000,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        hash_mb: 16,
        game: SelfPlayConfig::default(),
        eval: crate::protocol::options::Settings::default().search.eval,
        eval_file: String::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i];
        let val = args.get(i + 1).copied().ok_or_else(|| format!("{flag} needs a value"))?;
        let num =
            |what: &str| val.parse::<u64>().map_err(|_| format!("{what} needs a number, not '{}'", ascii(val, 20)));
        match flag {
            "--out" => a.out = PathBuf::from(val),
            "--positions" => a.positions = num(flag)?,
            "--nodes" => a.game.nodes = num(flag)?.max(1),
            "--depth" => a.game.depth = Some(num(flag)?.clamp(1, 64) as i32),
            "--threads" => a.threads = num(flag)?.clamp(1, 256) as usize,
            "--hash" => a.hash_mb = num(flag)?.clamp(1, 4096) as usize,
            "--seed" => a.game.seed = num(flag)?,
            "--max-plies" => a.game.max_plies = num(flag)?.clamp(1, 10_000) as u32,
            "--random-plies" => {
                let (lo, hi) = val.split_once('-').unwrap_or((val, val));
                match (lo.parse::<u32>(), hi.parse::<u32>()) {
                    (Ok(lo), Ok(hi)) if lo <= hi => a.game.random_plies = (lo, hi),
                    _ => return Err(format!("--random-plies takes MIN-MAX, not '{}'", ascii(val, 20))),
                }
            }
            "--eval" => a.eval = val.parse().map_err(|e: eval::ParseEvalKindError| e.to_string())?,
            "--eval-file" => a.eval_file = val.to_string(),
            other => return Err(format!("unknown argument '{}'", ascii(other, 40))),
        }
        i += 2;
    }
    Ok(a)
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
pub fn run(a: &Args, net: Option<std::sync::Arc<eval::nnue::Network>>) -> Result<(), String> {
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
    let options =
        search::Options { hash_mb: a.hash_mb, eval: a.eval, ..crate::protocol::options::Settings::default().search };
    let eval_used = if a.eval == eval::EvalKind::Net && net.is_none() { eval::EvalKind::Classical } else { a.eval };
    eprintln!(
        "gensfen: {} -> {} positions into {} ({} threads, {}, eval {eval_used}, seed {}, from game {first_game})",
        have,
        a.positions,
        a.out.display(),
        a.threads,
        a.game.depth.map_or(format!("{} nodes", a.game.nodes), |d| format!("depth {d}")),
        a.game.seed,
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
    let next = selfplay::run_with_net(&a.game, &options, net, a.threads, first_game, |game, recs, _end| {
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

/// `kaname gensfen [options]`: usage errors exit with 2, failures with 1.
pub fn cli(args: &[&str]) {
    let a = parse_args(args).unwrap_or_else(|e| crate::args::usage_error(&format!("gensfen: {e}")));
    let net = crate::protocol::options::load_net(&a.eval_file)
        .unwrap_or_else(|e| crate::args::usage_error(&format!("gensfen: {e}")));
    if let Err(e) = run(&a, net) {
        eprintln!("kaname: gensfen: {e}");
        std::process::exit(1);
    }
}

/// `kaname psv-dump FILE [N]`: the first N (default all) records of a PackedSfenValue file
/// as text, one per line: `sfen <SFEN> move <usi> score <cp> ply <n> result <r>` (for people,
/// and for `scripts/check_psv_cshogi.py`, which compares these with cshogi's reading).
pub fn dump(args: &[&str]) -> Result<Vec<String>, String> {
    let path = args.first().ok_or("psv-dump needs a file")?;
    let limit = match args.get(1) {
        Some(n) => n.parse::<usize>().map_err(|_| format!("psv-dump: bad count '{}'", ascii(n, 20)))?,
        None => usize::MAX,
    };
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
        let a =
            parse_args(&["--out", "x.psv", "--positions", "10", "--nodes", "500", "--random-plies", "2-4"]).unwrap();
        assert_eq!((a.positions, a.game.nodes, a.game.random_plies), (10, 500, (2, 4)));
        assert_eq!(a.out, PathBuf::from("x.psv"));
        assert!(parse_args(&["--positions"]).is_err());
        assert!(parse_args(&["--random-plies", "5-2"]).is_err());
        assert!(parse_args(&["--eval", "magic"]).is_err());
        assert!(parse_args(&["--bogus", "1"]).is_err());
    }
}
