//! Training data: PSV records read, filtered and turned into feature lists; the validation
//! split and the deterministic shuffle. shogiarena's self-play records (`.sbinpack`) are
//! converted into PSV records first, so every filter and the split treat both alike.
//!
//! A sample keeps each perspective's features as 16-bit numbers and computes the first-layer
//! rows from them when it is used (`Sample::rows`): Kaname's features are the rows
//! themselves (< 21,096); a HalfKP row, `1548 * king + BonaPiece`, goes up to 125,387, so a
//! HalfKP sample keeps the 38 BonaPieces and the king square instead of 32-bit rows. Every
//! sample is then 166 bytes whatever the architecture (with u32 rows a HalfKP one would take
//! 308): 1.7 GB for 10 M positions, not 3.1 GB.

use super::arch::Arch;
use crate::nnue::features::{self, ACTIVE_FEATURES, FEATURES_PER_BUCKET};
use engine::{move_from_move16, Color, PackedSfenValue, Position, PSV_BYTES};
use rayon::prelude::*;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One training position: the active features of both perspectives (side to move first) and
/// its labels. Which features depends on the architecture it was made for
/// (`Sample::for_arch`): Kaname's 40 feature indexes, or HalfKP's 38 BonaPieces (the last two
/// slots unused) with the perspective's king square in `kings`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Active features from the side to move's perspective.
    pub stm: [u16; ACTIVE_FEATURES],
    /// Active features from the other side's perspective.
    pub nstm: [u16; ACTIVE_FEATURES],
    /// HalfKP: each perspective's own king square in its view (side to move first), the
    /// feature row being `1548 * king + BonaPiece`; 0 for Kaname's features.
    pub kings: [u8; 2],
    /// Search score, side to move's view, Kaname units (a pawn is 90).
    pub score: i16,
    /// Game result, side to move's view: 1 win, 0 draw, -1 loss.
    pub result: i8,
}

impl Sample {
    /// The sample of `pos` for Kaname's net with these labels, or `None` when the position
    /// does not hold all 40 pieces (the feature lists have a fixed length).
    pub fn new(pos: &Position, score: i16, result: i8) -> Option<Sample> {
        let us = pos.side_to_move();
        let stm = feature_array(pos, us)?;
        let nstm = feature_array(pos, !us)?;
        Some(Sample { stm, nstm, kings: [0; 2], score, result })
    }

    /// The sample of `pos` for `arch` with these labels, or `None` when the position does not
    /// hold all 40 pieces.
    pub fn for_arch(arch: Arch, pos: &Position, score: i16, result: i8) -> Option<Sample> {
        match arch {
            Arch::HalfKB9 => Sample::new(pos, score, result),
            Arch::Yo(_) => {
                let us = pos.side_to_move();
                let (stm, k0) = bona_array(pos, us)?;
                let (nstm, k1) = bona_array(pos, !us)?;
                Some(Sample { stm, nstm, kings: [k0, k1], score, result })
            }
        }
    }

    /// The first-layer rows and factor rows of perspective `p` (0: side to move) for `arch`,
    /// into `rows` and `factor` (`arch.active()` of each are written). Kaname's: the feature
    /// is the row, its factor row the feature modulo `FEATURES_PER_BUCKET`; HalfKP's: the row
    /// is `1548 * king + BonaPiece`, the factor row the BonaPiece.
    #[inline(always)]
    pub fn rows(&self, arch: Arch, p: usize, rows: &mut [u32; ACTIVE_FEATURES], factor: &mut [u32; ACTIVE_FEATURES]) {
        let feats = if p == 0 { &self.stm } else { &self.nstm };
        match arch {
            Arch::HalfKB9 => {
                for ((r, fr), &f) in rows.iter_mut().zip(factor.iter_mut()).zip(feats) {
                    *r = f as u32;
                    // A constant divisor: a multiply, not a division.
                    *fr = (f as usize % FEATURES_PER_BUCKET) as u32;
                }
            }
            Arch::Yo(_) => {
                let base = self.kings[p] as u32 * crate::yo::shape::FE_END as u32;
                let n = crate::yo::features::PIECE_SLOTS;
                for ((r, fr), &f) in rows[..n].iter_mut().zip(&mut factor[..n]).zip(&feats[..n]) {
                    *r = base + f as u32;
                    *fr = f as u32;
                }
            }
        }
    }
}

/// HalfKP's BonaPieces of `pos` from `c`'s perspective (in `HalfKP::for_each_active`'s order,
/// the two last slots 0) and `c`'s king square in its view, if all 38 non-king pieces are there.
fn bona_array(pos: &Position, c: Color) -> Option<([u16; ACTIVE_FEATURES], u8)> {
    use crate::yo::features::{for_each_piece, orient, PIECE_SLOTS};
    let mut out = [0u16; ACTIVE_FEATURES];
    let mut n = 0;
    for_each_piece(pos, c, |bp| {
        if n < PIECE_SLOTS {
            out[n] = bp;
        }
        n += 1;
    });
    (n == PIECE_SLOTS).then(|| (out, orient(c, pos.king_square(c)).index() as u8))
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
    /// sbinpack positions scored as a mate (a mate distance is no centipawn score).
    pub mate_score: u64,
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
        self.mate_score += o.mate_score;
    }
}

impl fmt::Display for LoadStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {}, kept {}; dropped: undecodable {}, bad result {}, not 40 pieces {}, in check {}, \
             |score| too big {}, capture {}, mate score {}; illegal recorded move (kept) {}",
            self.read,
            self.kept,
            self.bad_position,
            self.bad_result,
            self.incomplete,
            self.in_check,
            self.big_score,
            self.capture,
            self.mate_score,
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
    /// An sbinpack file does not decode: the file, the byte offset and what is wrong.
    Sbinpack(PathBuf, usize, String),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            DataError::PartialRecord(p, n) => {
                write!(f, "{}: {n} bytes is not a whole number of 40-byte PSV records", p.display())
            }
            DataError::Sbinpack(p, at, e) => write!(f, "{}: bad sbinpack data near byte {at}: {e}", p.display()),
        }
    }
}

impl std::error::Error for DataError {}

/// Decodes and filters one record into a sample for `arch`; `None` with the reason counted
/// in `stats`.
pub fn decode(rec: &[u8; PSV_BYTES], arch: Arch, filter: &Filter, stats: &mut LoadStats) -> Option<Sample> {
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
    let Some(s) = Sample::for_arch(arch, &pos, r.score, r.game_result) else {
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

/// Decodes a buffer of whole records into samples for `arch` in parallel, keeping their
/// order; `first` is the index of its first record. Returns the training samples, the
/// held-out ones and the counts.
pub fn decode_all(
    bytes: &[u8],
    arch: Arch,
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
                if let Some(s) = decode(rec.try_into().expect("40-byte chunk"), arch, filter, &mut stats) {
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

/// Reads at most `limit` records (all with `None`) from the files in order: PSV files, and
/// sbinpack files (by their extension `.sbinpack`), whose positions count as one record each.
/// Returns the training samples for `arch`, the held-out ones and the counts. A data set too
/// small to hold out a whole block (tests) holds out its last samples instead.
pub fn load(
    paths: &[PathBuf],
    arch: Arch,
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
        let (bytes, skipped) = if is_sbinpack(path) {
            read_sbinpack(path, left)?
        } else {
            (read_records(path, left)?, LoadStats::default())
        };
        left -= (bytes.len() / PSV_BYTES) as u64;
        let (t, v, s) = decode_all(&bytes, arch, filter, stats.read, holdout);
        train.extend(t);
        val.extend(v);
        stats.add(&s);
        // Added after the file's records, so the validation blocks stay where the records are.
        stats.add(&skipped);
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

/// Whether `path` names an sbinpack file (by its extension; anything else is read as PSV).
pub fn is_sbinpack(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("sbinpack"))
}

/// shogiarena writes a mate in n plies as ±(32000 - n), n < 246 (its `VALUE_MATE_IN_MAX_PLY`);
/// anything this large is a mate, not a centipawn score.
const SBINPACK_MATE_MIN: i32 = 32000 - 246;

/// The positions of the first games of an sbinpack file as PSV records, at most `max` of them,
/// and the counts of the positions left out (mate scores, positions Kaname cannot read).
///
/// Each position before a move becomes one record: the move is the one played (the engine's
/// best move, so the quiet filter sees what it sees in PSV), the score is the one the engine
/// reported for that move (shogiarena stores it from the side to move's view, in the engine's
/// own units: Kaname's USI `cp` are its internal units, a pawn is 90), and the result is the
/// game's, from the side to move's view. Games without a result (error, paused) get the
/// result 2, which the decoder counts as a bad result.
pub fn read_sbinpack(path: &Path, max: u64) -> Result<(Vec<u8>, LoadStats), DataError> {
    use rsshogi::records::{SbinpackDecodeEvent, SbinpackDecoder};
    let input = std::fs::read(path).map_err(|e| DataError::Io(path.to_path_buf(), e))?;
    let mut decoder = SbinpackDecoder::new(input.as_slice());
    let mut out = Vec::new();
    let mut skipped = LoadStats::default();
    let mut n = 0u64;
    while n < max {
        let at = decoder.offset();
        let mut rec = None;
        let event = decoder.decode_next_with(|ev| {
            if let SbinpackDecodeEvent::PositionBeforeMove { position, mv, eval, result, .. } = ev {
                rec = Some(sbinpack_record(&position.to_sfen(None), &mv.to_usi(), eval, result));
            }
        });
        match event {
            None => break,
            Some(Err(e)) => return Err(DataError::Sbinpack(path.to_path_buf(), at, format!("{e:?}"))),
            Some(Ok(())) => {}
        }
        match rec {
            None => {}
            Some(Ok(r)) => {
                out.extend_from_slice(&r.to_bytes());
                n += 1;
            }
            Some(Err(Skip::Mate)) => {
                skipped.read += 1;
                skipped.mate_score += 1;
            }
            Some(Err(Skip::Position)) => {
                skipped.read += 1;
                skipped.bad_position += 1;
            }
        }
    }
    Ok((out, skipped))
}

/// Why an sbinpack position gives no record.
enum Skip {
    /// Its score is a mate.
    Mate,
    /// Kaname cannot read or pack the position.
    Position,
}

/// The PSV record of one sbinpack position (see `read_sbinpack`).
fn sbinpack_record(
    sfen: &str,
    usi_move: &str,
    eval: i32,
    result: Option<rsshogi::types::GameResult>,
) -> Result<PackedSfenValue, Skip> {
    if eval.abs() >= SBINPACK_MATE_MIN {
        return Err(Skip::Mate);
    }
    let pos = Position::from_sfen(sfen).map_err(|_| Skip::Position)?;
    let sfen_bytes = engine::pack(&pos).map_err(|_| Skip::Position)?;
    // An unreadable move is stored as 0 and counted as illegal by `decode`, like PSV's.
    let move16 = pos.parse_usi_move(usi_move).map(engine::move16).unwrap_or(0);
    let black = match result {
        Some(r) if r.is_black_win() => 1,
        Some(r) if r.is_white_win() => -1,
        Some(r) if r.is_draw() => 0,
        _ => 2,
    };
    let game_result = if black == 2 || pos.side_to_move() == Color::Black { black } else { -black };
    let game_ply = sfen.rsplit(' ').next().and_then(|p| p.parse().ok()).unwrap_or(0);
    // |eval| < SBINPACK_MATE_MIN, so it fits an i16.
    Ok(PackedSfenValue { sfen: sfen_bytes, score: eval as i16, move16, game_ply, game_result, padding: 0 })
}

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
        let (v, _, s) = decode_all(&bytes, Arch::HalfKB9, &Filter::default(), 0, &all);
        assert_eq!((s.read, s.kept, v.len() as u64), (7, 3, 3));
        assert_eq!((s.big_score, s.in_check, s.illegal_move, s.bad_result, s.bad_position), (1, 1, 1, 1, 1));
        let (v, _, s) = decode_all(&bytes, Arch::HalfKB9, &Filter { max_score: 5000, quiet_only: true }, 0, &all);
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

    /// An sbinpack file written by rsshogi's own writer: `games` games of random legal moves
    /// from the start position, each with its plies, made-up scores (side to move's view) and
    /// result. Returns the file's bytes and, per position, what the loader should make of it:
    /// the position, its score (`None` for a mate) and the result from the side to move's view.
    #[allow(clippy::type_complexity)]
    fn sbinpack_fixture(games: &[(usize, rsshogi::types::GameResult)]) -> (Vec<u8>, Vec<(Position, Option<i16>, i8)>) {
        use rsshogi::records::{chain_from_record, serialize_file, MoveEntry, Record, RecordInitialPosition};
        use rsshogi::types::{Eval, Move as RsMove};
        let mut rng = Rng::new(11);
        let mut chains = Vec::new();
        let mut want = Vec::new();
        for (g, &(plies, result)) in games.iter().enumerate() {
            let mut pos = Position::startpos();
            let (mut moves, mut scores) = (Vec::new(), Vec::new());
            for i in 0..plies {
                let mut legal = engine::MoveList::new();
                engine::generate_legal(&pos, &mut legal);
                let m = legal.as_slice()[rng.below(legal.len())];
                // Scores differ in sign and size from ply to ply; ply 3 of game 0 is a mate in 5.
                let score: i32 = if g == 0 && i == 3 { 32000 - 5 } else { (i as i32 * 37 - 100) * (g as i32 + 1) };
                let black: i8 = if result.is_black_win() {
                    1
                } else if result.is_white_win() {
                    -1
                } else {
                    0
                };
                let stm_result = if pos.side_to_move() == Color::Black { black } else { -black };
                want.push((pos.clone(), (score.abs() < 31000).then_some(score as i16), stm_result));
                moves.push(MoveEntry::new(RsMove::from_usi(&m.to_string()).unwrap()));
                scores.push(score);
                pos.do_move(m);
            }
            let mut rec = Record::from_main_line_with_result(RecordInitialPosition::Startpos, moves, result).unwrap();
            let ids: Vec<_> = rec.main_line_ids().into_iter().filter(|&id| rec.node(id).mv().is_some()).collect();
            for (id, score) in ids.into_iter().zip(scores) {
                rec.node_mut(id).unwrap().annotation_mut().set_eval(Some(Eval::from_i32(score)));
            }
            chains.push(chain_from_record(&rec, 0).unwrap());
        }
        (serialize_file(&chains).unwrap(), want)
    }

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let p = std::env::temp_dir().join(format!("kaname-data-test-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Every scored position of every game comes back as the sample the PSV path makes of
    /// the same position, score and result; mate scores are counted and left out.
    #[test]
    fn sbinpack_games_load_as_samples() {
        use rsshogi::types::GameResult;
        let (bytes, want) = sbinpack_fixture(&[
            (14, GameResult::BlackWin),
            (9, GameResult::WhiteWin),
            (6, GameResult::DrawByRepetition),
        ]);
        let path = temp_file("a.sbinpack", &bytes);
        let filter = Filter { max_score: 32000, quiet_only: false };
        let all = Holdout { fraction: 0.0, seed: 0 };
        let (train, val, stats) = load(std::slice::from_ref(&path), Arch::HalfKB9, &filter, None, &all).unwrap();
        std::fs::remove_file(&path).unwrap();
        let expect: Vec<Sample> = want
            .iter()
            .filter(|(pos, score, _)| score.is_some() && !pos.in_check())
            .map(|(pos, score, result)| Sample::new(pos, score.unwrap(), *result).unwrap())
            .collect();
        let checks = want.iter().filter(|(p, s, _)| s.is_some() && p.in_check()).count() as u64;
        assert!(val.is_empty());
        assert_eq!((stats.read, stats.mate_score, stats.in_check, stats.illegal_move), (29, 1, checks, 0));
        assert_eq!(stats.kept, 28 - checks);
        assert_eq!(train, expect);
        // Both signs of score and result occur, so a flipped view could not pass.
        assert!(train.iter().any(|s| s.score < 0 && s.result < 0) && train.iter().any(|s| s.score > 0 && s.result > 0));
        // --limit counts converted positions.
        let path = temp_file("b.sbinpack", &bytes);
        let (train, _, stats) = load(std::slice::from_ref(&path), Arch::HalfKB9, &filter, Some(5), &all).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!((stats.read - stats.mate_score, stats.mate_score), (5, 1));
        assert_eq!(train[..], expect[..stats.kept as usize]);
    }

    /// A damaged sbinpack file is an error that names the file, not a panic.
    #[test]
    fn corrupt_sbinpack_is_an_error_naming_the_file() {
        use rsshogi::types::GameResult;
        let (bytes, _) = sbinpack_fixture(&[(10, GameResult::BlackWin)]);
        let all = Holdout { fraction: 0.0, seed: 0 };
        for (name, data) in [("cut.sbinpack", &bytes[..bytes.len() - 3]), ("magic.sbinpack", &b"XXXX\x01\0\0\0\0"[..])]
        {
            let path = temp_file(name, data);
            let err = load(std::slice::from_ref(&path), Arch::HalfKB9, &Filter::default(), None, &all).unwrap_err();
            std::fs::remove_file(&path).unwrap();
            assert!(matches!(err, DataError::Sbinpack(..)), "{err}");
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    /// Checks the score convention on real shogiarena records (`KANAME_SBINPACK=FILE cargo
    /// test -p eval --lib -- --ignored real_sbinpack`): side to move's view means consecutive
    /// plies mostly have opposite signs and large scores mostly agree with the result.
    #[test]
    #[ignore]
    fn real_sbinpack_scores_are_side_to_move() {
        let path = PathBuf::from(std::env::var("KANAME_SBINPACK").expect("KANAME_SBINPACK=FILE"));
        let (bytes, skipped) = read_sbinpack(&path, u64::MAX).unwrap();
        let recs: Vec<PackedSfenValue> =
            bytes.chunks_exact(PSV_BYTES).map(|r| PackedSfenValue::from_bytes(r.try_into().unwrap())).collect();
        let (mut flip, mut same, mut agree, mut disagree) = (0, 0, 0, 0);
        for w in recs.windows(2) {
            if w[1].game_ply == w[0].game_ply + 1 && w[0].score.abs() > 100 && w[1].score.abs() > 100 {
                if (w[0].score > 0) != (w[1].score > 0) {
                    flip += 1;
                } else {
                    same += 1;
                }
            }
        }
        for r in &recs {
            if r.score.abs() > 300 && r.game_result != 0 {
                if (r.score > 0) == (r.game_result > 0) {
                    agree += 1;
                } else {
                    disagree += 1;
                }
            }
        }
        eprintln!(
            "{} positions ({} mate scores left out); consecutive |score| > 100: sign flips {flip}, same {same}; \
             |score| > 300 in decided games: agrees with result {agree}, disagrees {disagree}",
            recs.len(),
            skipped.mate_score
        );
        let all = Holdout { fraction: 0.0, seed: 0 };
        let (_, _, stats) = load(&[path], Arch::HalfKB9, &Filter::default(), None, &all).unwrap();
        eprintln!("default filter: {stats}");
        assert!(flip > 4 * same && agree > 2 * disagree);
    }

    /// A HalfKP sample's rows are YaneuraOu's HalfKP inputs (`1548 * king + BonaPiece`) of
    /// each perspective, and its factor rows their BonaPieces.
    #[test]
    fn halfkp_rows_are_yaneuraou_inputs() {
        use crate::yo::features::{Features, HalfKP};
        let arch = Arch::HALFKP_256;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')).take(3000) {
            let pos = Position::from_sfen(line.split('\t').next().unwrap()).unwrap();
            let Some(s) = Sample::for_arch(arch, &pos, 0, 0) else { continue };
            for (p, view) in [(0, pos.side_to_move()), (1, !pos.side_to_move())] {
                let (mut rows, mut factor) = ([0u32; ACTIVE_FEATURES], [0u32; ACTIVE_FEATURES]);
                s.rows(arch, p, &mut rows, &mut factor);
                let mut want = Vec::new();
                HalfKP::for_each_active(&pos, view, |f| want.push(f as u32));
                assert_eq!(&rows[..arch.active()], &want[..], "{}", pos.to_sfen());
                assert!(rows[..38].iter().zip(&factor[..38]).all(|(r, f)| r % 1548 == *f));
            }
            n += 1;
        }
        assert!(n > 200, "{n} positions with 40 pieces");
        // A handicap position has fewer than 38 pieces: no sample.
        let handicap = Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        assert_eq!(Sample::for_arch(arch, &handicap, 0, 0), None);
        assert_eq!(std::mem::size_of::<Sample>(), 166);
    }
}
