//! Training data: PSV records read, filtered and turned into feature lists; the validation
//! split and the deterministic shuffle.

use crate::nnue::features::{self, ACTIVE_FEATURES};
use engine::{move_from_move16, Color, PackedSfenValue, Position, PSV_BYTES};
use rayon::prelude::*;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One training position: the active features of both perspectives (side to move first) and
/// its labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Active features from the side to move's perspective.
    pub stm: [u16; ACTIVE_FEATURES],
    /// Active features from the other side's perspective.
    pub nstm: [u16; ACTIVE_FEATURES],
    /// Search score, side to move's view, Kaname units (a pawn is 90).
    pub score: i16,
    /// Game result, side to move's view: 1 win, 0 draw, -1 loss.
    pub result: i8,
}

impl Sample {
    /// The sample of `pos` with these labels, or `None` when the position does not hold all
    /// 40 pieces (the feature lists have a fixed length).
    pub fn new(pos: &Position, score: i16, result: i8) -> Option<Sample> {
        let us = pos.side_to_move();
        let stm = feature_array(pos, us)?;
        let nstm = feature_array(pos, !us)?;
        Some(Sample { stm, nstm, score, result })
    }
}

/// The `ACTIVE_FEATURES` features of `pos` from `c`'s perspective, if there are exactly that many.
fn feature_array(pos: &Position, c: Color) -> Option<[u16; ACTIVE_FEATURES]> {
    let mut out = [0u16; ACTIVE_FEATURES];
    let mut n = 0;
    features::for_each_active(pos, c, |f| {
        if n < ACTIVE_FEATURES {
            // NUM_FEATURES (21096) fits a u16.
            out[n] = f as u16;
        }
        n += 1;
    });
    (n == ACTIVE_FEATURES).then_some(out)
}

/// Which records to keep.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// Skip positions whose |score| is above this (decided positions teach little and their
    /// scores are clamped or adjudicated).
    pub max_score: i32,
    /// Skip positions whose recorded best move is a capture (a quiet-position filter: the
    /// static evaluation of a position in the middle of an exchange is not its search score).
    pub quiet_only: bool,
}

impl Default for Filter {
    fn default() -> Self {
        Filter { max_score: 3000, quiet_only: false }
    }
}

/// What loading saw: how many records were read and why some were dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Records read.
    pub read: u64,
    /// Records kept.
    pub kept: u64,
    /// Records whose packed position did not decode.
    pub bad_position: u64,
    /// Records whose result is not -1, 0 or 1.
    pub bad_result: u64,
    /// Positions without all 40 pieces (handicap data).
    pub incomplete: u64,
    /// Positions with the side to move in check.
    pub in_check: u64,
    /// Positions beyond the score limit.
    pub big_score: u64,
    /// Positions whose recorded move is a capture (only with the quiet filter).
    pub capture: u64,
    /// Records whose move is not legal in their position (kept: the score does not depend on it).
    pub illegal_move: u64,
}

impl LoadStats {
    fn add(&mut self, o: &LoadStats) {
        self.read += o.read;
        self.kept += o.kept;
        self.bad_position += o.bad_position;
        self.bad_result += o.bad_result;
        self.incomplete += o.incomplete;
        self.in_check += o.in_check;
        self.big_score += o.big_score;
        self.capture += o.capture;
        self.illegal_move += o.illegal_move;
    }
}

impl fmt::Display for LoadStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {}, kept {}; dropped: undecodable {}, bad result {}, not 40 pieces {}, in check {}, \
             |score| too big {}, capture {}; illegal recorded move (kept) {}",
            self.read,
            self.kept,
            self.bad_position,
            self.bad_result,
            self.incomplete,
            self.in_check,
            self.big_score,
            self.capture,
            self.illegal_move
        )
    }
}

/// Why the data could not be loaded.
#[derive(Debug)]
pub enum DataError {
    /// A file could not be opened or read.
    Io(PathBuf, std::io::Error),
    /// A file's length is not a multiple of 40 bytes.
    PartialRecord(PathBuf, u64),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            DataError::PartialRecord(p, n) => {
                write!(f, "{}: {n} bytes is not a whole number of 40-byte PSV records", p.display())
            }
        }
    }
}

impl std::error::Error for DataError {}

/// Decodes and filters one record; `None` with the reason counted in `stats`.
pub fn decode(rec: &[u8; PSV_BYTES], filter: &Filter, stats: &mut LoadStats) -> Option<Sample> {
    stats.read += 1;
    let r = PackedSfenValue::from_bytes(rec);
    let Ok(pos) = r.position() else {
        stats.bad_position += 1;
        return None;
    };
    if !(-1..=1).contains(&r.game_result) {
        stats.bad_result += 1;
        return None;
    }
    if pos.in_check() {
        stats.in_check += 1;
        return None;
    }
    if (r.score as i32).abs() > filter.max_score {
        stats.big_score += 1;
        return None;
    }
    match move_from_move16(&pos, r.move16) {
        None => stats.illegal_move += 1,
        Some(m) if filter.quiet_only && pos.is_capture(m) => {
            stats.capture += 1;
            return None;
        }
        Some(_) => {}
    }
    let Some(s) = Sample::new(&pos, r.score, r.game_result) else {
        stats.incomplete += 1;
        return None;
    };
    stats.kept += 1;
    Some(s)
}

/// Where records go: which are held out for validation, and how many.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Holdout {
    /// Expected share of records held out.
    pub fraction: f64,
    /// Seed of the choice of blocks.
    pub seed: u64,
}

impl Holdout {
    /// Whether the record with this index (counted over all files from 0, before any
    /// filter) is held out. Whole blocks of `VAL_BLOCK` consecutive records are held out,
    /// because positions of one game are consecutive and alike: a per-position split would
    /// put near-copies of training positions into the validation set and flatter it. The
    /// choice depends on the record's index only, so runs with different filters share their
    /// validation games (and never train on each other's).
    pub fn is_val(&self, index: u64) -> bool {
        let block = index / VAL_BLOCK as u64;
        let mut rng = Rng::new(self.seed ^ 0x5a5a_0000_7777_1234 ^ block.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        (rng.next_f32() as f64) < self.fraction
    }
}

/// Decodes a buffer of whole records in parallel, keeping their order; `first` is the index
/// of its first record. Returns the training samples, the held-out ones and the counts.
pub fn decode_all(
    bytes: &[u8],
    filter: &Filter,
    first: u64,
    holdout: &Holdout,
) -> (Vec<Sample>, Vec<Sample>, LoadStats) {
    // Chunks of 4096 records: large enough to amortise rayon, small enough to balance.
    const CHUNK: usize = 4096;
    let parts: Vec<(Vec<Sample>, Vec<Sample>, LoadStats)> = bytes
        .par_chunks(PSV_BYTES * CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut stats = LoadStats::default();
            let (mut train, mut val) = (Vec::new(), Vec::new());
            for (j, rec) in chunk.chunks_exact(PSV_BYTES).enumerate() {
                if let Some(s) = decode(rec.try_into().expect("40-byte chunk"), filter, &mut stats) {
                    let index = first + (c * CHUNK + j) as u64;
                    if holdout.is_val(index) {
                        val.push(s);
                    } else {
                        train.push(s);
                    }
                }
            }
            (train, val, stats)
        })
        .collect();
    let mut stats = LoadStats::default();
    let (mut train, mut val) = (Vec::new(), Vec::new());
    for (t, v, s) in parts {
        train.extend(t);
        val.extend(v);
        stats.add(&s);
    }
    (train, val, stats)
}

/// Reads at most `limit` records (all with `None`) from the PSV files in order; returns the
/// training samples, the held-out ones and the counts. A data set too small to hold out a
/// whole block (tests) holds out its last samples instead.
pub fn load(
    paths: &[PathBuf],
    filter: &Filter,
    limit: Option<u64>,
    holdout: &Holdout,
) -> Result<(Vec<Sample>, Vec<Sample>, LoadStats), DataError> {
    let (mut train, mut val) = (Vec::new(), Vec::new());
    let mut stats = LoadStats::default();
    let mut left = limit.unwrap_or(u64::MAX);
    for path in paths {
        if left == 0 {
            break;
        }
        let bytes = read_records(path, left)?;
        left -= (bytes.len() / PSV_BYTES) as u64;
        let (t, v, s) = decode_all(&bytes, filter, stats.read, holdout);
        train.extend(t);
        val.extend(v);
        stats.add(&s);
    }
    if val.is_empty() && holdout.fraction > 0.0 && train.len() > 1 {
        let n = ((train.len() as f64 * holdout.fraction).ceil() as usize).clamp(1, train.len() - 1);
        val = train.split_off(train.len() - n);
    }
    Ok((train, val, stats))
}

/// The first `max` whole records of `path`.
fn read_records(path: &Path, max: u64) -> Result<Vec<u8>, DataError> {
    let io = |e| DataError::Io(path.to_path_buf(), e);
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    if len % PSV_BYTES as u64 != 0 {
        return Err(DataError::PartialRecord(path.to_path_buf(), len));
    }
    let want = len.min(max.saturating_mul(PSV_BYTES as u64));
    let mut bytes = Vec::with_capacity(want as usize);
    f.take(want).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

pub use crate::rng::Rng;

/// Fisher-Yates shuffle.
pub fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i + 1));
    }
}

/// Records per validation block.
const VAL_BLOCK: usize = 2048;

/// Splits samples held in memory (tests) as `load` splits records, by their index here.
pub fn split(samples: Vec<Sample>, fraction: f64, seed: u64) -> (Vec<Sample>, Vec<Sample>) {
    let h = Holdout { fraction, seed };
    let (mut train, mut val) = (Vec::new(), Vec::new());
    for (i, s) in samples.into_iter().enumerate() {
        if h.is_val(i as u64) {
            val.push(s);
        } else {
            train.push(s);
        }
    }
    if val.is_empty() && fraction > 0.0 && train.len() > 1 {
        let n = ((train.len() as f64 * fraction).ceil() as usize).clamp(1, train.len() - 1);
        val = train.split_off(train.len() - n);
    }
    (train, val)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::pack;

    /// The start position after `moves`.
    fn after(moves: &[&str]) -> Position {
        let mut pos = Position::startpos();
        for m in moves {
            let mv = pos.parse_usi_move(m).unwrap();
            pos.do_move(mv);
        }
        pos
    }

    fn record(pos: &Position, score: i16, m: &str, result: i8) -> [u8; PSV_BYTES] {
        let mv = pos.parse_usi_move(m).map(|m| m.to_u16()).unwrap_or(0);
        PackedSfenValue { sfen: pack(pos).unwrap(), score, move16: mv, game_ply: 10, game_result: result, padding: 0 }
            .to_bytes()
    }

    /// Each filter drops exactly the records it should.
    #[test]
    fn filter_counts() {
        let start = &Position::startpos();
        let capture = &after(&["7g7f", "3c3d"]); // 8h2b+ takes the bishop
        let check = &after(&["7g7f", "3c3d", "8h3c"]); // the bishop on 3c checks 5a
        assert!(check.in_check());
        let mut bytes = Vec::new();
        bytes.extend(record(start, 50, "7g7f", 1));
        bytes.extend(record(start, 4000, "7g7f", 1)); // big score
        bytes.extend(record(capture, 10, "8h2b+", -1)); // capture
        bytes.extend(record(check, 10, "2b3c", 0)); // in check
        bytes.extend(record(start, 10, "1a1b", 0)); // illegal move, kept
        bytes.extend(record(start, 10, "7g7f", 5)); // bad result
        let mut bad = [0xffu8; PSV_BYTES];
        bad[32..].fill(0);
        bytes.extend(bad); // undecodable
        let all = Holdout { fraction: 0.0, seed: 0 };
        let (v, _, s) = decode_all(&bytes, &Filter::default(), 0, &all);
        assert_eq!((s.read, s.kept, v.len() as u64), (7, 3, 3));
        assert_eq!((s.big_score, s.in_check, s.illegal_move, s.bad_result, s.bad_position), (1, 1, 1, 1, 1));
        let (v, _, s) = decode_all(&bytes, &Filter { max_score: 5000, quiet_only: true }, 0, &all);
        assert_eq!((s.kept, s.capture, s.big_score, v.len()), (3, 1, 0, 3));
    }

    #[test]
    fn sample_features_match_the_feature_set() {
        let pos = Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2").unwrap();
        let s = Sample::new(&pos, 0, 0).unwrap();
        let want: Vec<u16> = features::active(&pos, Color::White).iter().map(|&f| f as u16).collect();
        assert_eq!(s.stm.to_vec(), want);
    }

    #[test]
    fn split_and_shuffle_are_deterministic() {
        let pos = Position::startpos();
        let samples: Vec<Sample> = (0..10_000).map(|i| Sample::new(&pos, i as i16, 0).unwrap()).collect();
        let (t1, v1) = split(samples.clone(), 0.1, 7);
        let (t2, v2) = split(samples, 0.1, 7);
        assert_eq!((t1.len() + v1.len(), t1 == t2, v1 == v2), (10_000, true, true));
        assert!(!v1.is_empty());
        let mut a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        shuffle(&mut a, &mut Rng::new(3));
        shuffle(&mut b, &mut Rng::new(3));
        assert_eq!(a, b);
        assert_ne!(a, (0..100).collect::<Vec<u32>>());
    }
}
