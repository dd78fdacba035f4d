//! The opening book: YaneuraOu's standard text format (`#YANEURAOU-DB2016 1.00`), the format
//! ShogiGUI users and book makers exchange, and the choice of a book move with YaneuraOu's
//! options (`BookMoves`, `BookIgnoreRate`, `BookEvalDiff`, ...).
//!
//! The format: a header line, then for each position a line `sfen <SFEN>` followed by one line
//! per move, `<move> <ponder|none> [<value> [<depth> [<count>]]]`; `value` is the score of the
//! move for the side to move (centipawns; mate in n plies is 32000 - n), `count` how often it
//! was played. Lines starting with `#` or `//` are comments. Positions are looked up by the SFEN
//! without its move number (YaneuraOu's `IgnoreBookPly`): a position reached at another ply
//! still hits.
//!
//! YaneuraOu writes its books sorted by SFEN, so a large book is searched on disk by bisection
//! over byte offsets (YaneuraOu's `BookOnTheFly`): opening a book of millions of positions costs
//! a few hundred reads, and a look-up a few dozen. A small book, or one that is not sorted, is
//! read into a hash map instead.
//!
//! This file needs only the rules core (`engine`), a random generator and the `Book*` options'
//! values (`protocol::options::BookOptions`): the book is the front end's business (the session
//! decides before it starts a search).
//!
//! The room: the format and the look-up (here), `play` (the engine's own book in a session,
//! `USI_OwnBook`) and `make` (`kaname makebook`, which writes the same format from Kaname's
//! own analysis). May use: `protocol` and `args`; not `analyse`, `commands` or `session`.

pub mod make;
pub mod play;

use crate::protocol::ascii;
use crate::protocol::options::BookOptions;
use engine::{Move, Position, Repetition};
use eval::rng::Rng;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::Mutex;

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// A mate in `n` plies is written as `VALUE_MATE - n` (YaneuraOu's convention).
pub const VALUE_MATE: i32 = 32000;

/// Values at least this large (in absolute value) are mate scores (YaneuraOu's
/// `VALUE_MATE_IN_MAX_PLY`, 32000 - 246).
pub const VALUE_MATE_IN_MAX_PLY: i32 = VALUE_MATE - 246;

/// Books up to this size are read into memory; larger sorted ones are searched on disk.
pub const MEMORY_LIMIT: u64 = 8 << 20;

/// Offsets sampled at opening to check that a large book is sorted.
const SORT_SAMPLES: u64 = 256;

/// One move of a book position, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move (USI text).
    pub mv: String,
    /// The expected reply (`none` in the file is `None`).
    pub ponder: Option<String>,
    /// The score of the move for the side to move.
    pub value: i32,
    /// The depth of the search that gave the value.
    pub depth: i32,
    /// How often the move was played (1 when not given).
    pub count: u64,
}

/// The look-up key of an SFEN: its board, side and hands fields, without the move number.
/// `None` when the text is not shaped like an SFEN (three fields, or four with a number).
pub fn key(sfen: &str) -> Option<String> {
    let f: Vec<&str> = sfen.split_whitespace().collect();
    match f.len() {
        3 => {}
        4 if f[3].bytes().all(|b| b.is_ascii_digit()) => {}
        _ => return None,
    }
    Some(f[..3].join(" "))
}

/// Whether `t` looks like a USI move (`7g7f`, `8h2b+`, `P*5e`); legality is checked later,
/// against the position.
fn usi_move_shape(t: &str) -> bool {
    let b = t.as_bytes();
    let file = |c: u8| (b'1'..=b'9').contains(&c);
    let rank = |c: u8| (b'a'..=b'i').contains(&c);
    match b.len() {
        4 if b[1] == b'*' => b"RBGSNLP".contains(&b[0]) && file(b[2]) && rank(b[3]),
        4 => file(b[0]) && rank(b[1]) && file(b[2]) && rank(b[3]),
        5 => file(b[0]) && rank(b[1]) && file(b[2]) && rank(b[3]) && b[4] == b'+',
        _ => false,
    }
}

/// Parses a move line `<move> <ponder|none> [<value> [<depth> [<count>]]]` (YaneuraOu's
/// `BookMove::from_string`: the numbers are optional; anything after the count is ignored).
pub fn parse_move_line(line: &str) -> Result<BookMove, String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let mv = *t.first().ok_or("empty move line")?;
    if !usi_move_shape(mv) {
        return Err(format!("'{}' is not a USI move", ascii(mv, 20)));
    }
    let ponder = match t.get(1).copied() {
        None | Some("none" | "None" | "resign") => None,
        Some(p) if usi_move_shape(p) => Some(p.to_string()),
        Some(p) => return Err(format!("ponder '{}' is not a USI move", ascii(p, 20))),
    };
    let num = |i: usize, what: &str, default: i64| -> Result<i64, String> {
        match t.get(i) {
            None => Ok(default),
            Some(s) => s.parse::<i64>().map_err(|_| format!("{what} '{}' is not a number", ascii(s, 20))),
        }
    };
    let value = num(2, "value", 0)?.clamp(-VALUE_MATE as i64, VALUE_MATE as i64) as i32;
    let depth = num(3, "depth", 0)?.clamp(-9999, 99999) as i32;
    let count = num(4, "count", 1)?.max(0) as u64;
    Ok(BookMove { mv: mv.to_string(), ponder, value, depth, count })
}

/// One line of a book file.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// Empty.
    Blank,
    /// `#...` (the header too) or `//...`.
    Comment,
    /// `sfen <SFEN>`: the key of the position.
    Sfen(String),
    /// A move of the current position.
    Move(BookMove),
    /// Anything else, with the reason.
    Bad(String),
}

/// Classifies one line (line ends and surrounding blanks are ignored).
pub fn parse_line(line: &str) -> Line {
    let l = line.trim();
    if l.is_empty() {
        Line::Blank
    } else if l.starts_with('#') || l.starts_with("//") {
        Line::Comment
    } else if let Some(rest) = l.strip_prefix("sfen ") {
        match key(rest) {
            Some(k) => Line::Sfen(k),
            None => Line::Bad(format!("bad SFEN '{}'", ascii(rest.trim(), 100))),
        }
    } else {
        match parse_move_line(l) {
            Ok(m) => Line::Move(m),
            Err(e) => Line::Bad(e),
        }
    }
}

enum Store {
    /// Every position, by key (small or unsorted books).
    Memory(HashMap<String, Vec<BookMove>>),
    /// A sorted file searched by bisection.
    Disk { file: Mutex<File>, len: u64 },
}

/// An open book.
pub struct Book {
    store: Store,
    /// One line saying what was opened (`info string` at load).
    pub summary: String,
    /// Lines that could not be read (reported once; the rest of the book is used).
    pub problem: Option<String>,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.summary)
    }
}

/// What went wrong reading lines: how many bad lines, and the first one.
#[derive(Default)]
struct Problems {
    count: u64,
    first: Option<String>,
}

impl Problems {
    fn add(&mut self, line_no: u64, why: &str) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(format!("line {line_no}: {why}"));
        }
    }

    fn text(&self) -> Option<String> {
        self.first.as_ref().map(|f| format!("{} bad line{} ignored (first: {f})", self.count, plural(self.count)))
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl Book {
    /// Opens a book: into memory when it is small (`MEMORY_LIMIT`) or not sorted, else for
    /// look-ups on disk. Errors are sentences for `info string error:`.
    pub fn open(path: &str) -> Result<Book, String> {
        Book::open_with(path, MEMORY_LIMIT)
    }

    /// `open` with the size up to which the book is read into memory.
    pub fn open_with(path: &str, memory_limit: u64) -> Result<Book, String> {
        let shown = ascii(path, 100);
        let err = |e: &dyn std::fmt::Display| format!("BookFile '{shown}': {e}");
        let meta = std::fs::metadata(path).map_err(|e| err(&e))?;
        if meta.is_dir() {
            return Err(err(&"is a directory"));
        }
        let mut file = File::open(path).map_err(|e| err(&e))?;
        let len = meta.len();
        let mut head = vec![0u8; 4096.min(len as usize)];
        file.read_exact(&mut head).map_err(|e| err(&e))?;
        if head.contains(&0) {
            return Err(err(&"not a text book (YaneuraOu's #YANEURAOU-DB2016 format expected)"));
        }
        if len > memory_limit {
            match sorted_sample(&mut file, len).map_err(|e| err(&e))? {
                Sample::Sorted(n) if n > 0 => {
                    return Ok(Book {
                        store: Store::Disk { file: Mutex::new(file), len },
                        summary: format!(
                            "book '{shown}': {} MB, sorted by SFEN, looked up on disk",
                            (len + (1 << 19)) >> 20
                        ),
                        problem: None,
                    });
                }
                Sample::Sorted(_) => return Err(err(&"no positions (no 'sfen' lines)")),
                Sample::Unsorted => log::info!("{shown} is not sorted by SFEN: reading it into memory"),
            }
        }
        file.seek(SeekFrom::Start(0)).map_err(|e| err(&e))?;
        let (map, problems) = read_all(BufReader::with_capacity(1 << 16, file)).map_err(|e| err(&e))?;
        if map.is_empty() {
            let why = match problems.text() {
                Some(p) => format!("no positions; {p}"),
                None => "no positions (no 'sfen' lines with moves)".into(),
            };
            return Err(err(&why));
        }
        let sorted_note = if len > memory_limit { ", not sorted by SFEN: read into memory" } else { "" };
        Ok(Book {
            summary: format!("book '{shown}': {} positions{sorted_note}", map.len()),
            store: Store::Memory(map),
            problem: problems.text().map(|p| err(&p)),
        })
    }

    /// The moves of `pos` in the book (in file order), or `None`. An I/O error is a sentence.
    pub fn find(&self, pos: &Position) -> Result<Option<Vec<BookMove>>, String> {
        let k = key(&pos.to_sfen()).expect("a position's SFEN");
        self.find_key(&k)
    }

    /// The moves of the position with this key.
    pub fn find_key(&self, k: &str) -> Result<Option<Vec<BookMove>>, String> {
        match &self.store {
            Store::Memory(map) => Ok(map.get(k).cloned()),
            Store::Disk { file, len } => {
                let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
                disk_find(&mut f, *len, k).map_err(|e| format!("reading the book: {e}"))
            }
        }
    }

    /// Whether the book is searched on disk (else it is in memory).
    pub fn on_disk(&self) -> bool {
        matches!(self.store, Store::Disk { .. })
    }
}

/// Reads a whole book. SFENs are put in canonical form (hand order) through the rules core;
/// a position given twice keeps its first entry.
fn read_all(r: impl BufRead) -> std::io::Result<(HashMap<String, Vec<BookMove>>, Problems)> {
    let mut map: HashMap<String, Vec<BookMove>> = HashMap::new();
    let mut problems = Problems::default();
    // The position whose moves follow (`None` before the first and after a bad SFEN line).
    let mut current: Option<String> = None;
    let mut after_bad_sfen = false;
    let mut moves: Vec<BookMove> = Vec::new();
    let mut flush = |current: &mut Option<String>, moves: &mut Vec<BookMove>| {
        if let Some(k) = current.take() {
            if !moves.is_empty() {
                map.entry(k).or_insert_with(|| std::mem::take(moves));
            }
        }
        moves.clear();
    };
    let mut line_no = 0u64;
    for line in r.split(b'\n') {
        let line = line?;
        line_no += 1;
        let text = String::from_utf8_lossy(&line);
        match parse_line(&text) {
            Line::Blank | Line::Comment => {}
            Line::Sfen(k) => {
                flush(&mut current, &mut moves);
                match Position::from_sfen(&k) {
                    Ok(p) => current = key(&p.to_sfen()),
                    Err(e) => problems.add(line_no, &format!("bad SFEN '{}': {e}", ascii(&k, 100))),
                }
                after_bad_sfen = current.is_none();
            }
            Line::Move(m) => {
                if current.is_some() {
                    moves.push(m);
                } else if !after_bad_sfen {
                    problems.add(line_no, "a move line before any 'sfen' line");
                }
            }
            Line::Bad(why) => problems.add(line_no, &why),
        }
    }
    flush(&mut current, &mut moves);
    Ok((map, problems))
}

/// Bytes read at a time when searching on disk.
const CHUNK: usize = 4096;

/// Below this many bytes between the bounds, bisection gives way to reading on.
const WINDOW: u64 = CHUNK as u64;

/// Up to `len` bytes at `off` into `buf` (fewer at the end of the file).
fn read_at(f: &mut File, off: u64, len: usize, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.resize(len, 0);
    f.seek(SeekFrom::Start(off))?;
    let mut got = 0;
    while got < len {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(got);
    Ok(())
}

/// The first `sfen` line starting at or after byte `off`: its start, its key, and the offset
/// after it. Usually one read of `CHUNK` bytes.
fn sfen_at_or_after(f: &mut File, off: u64) -> std::io::Result<Option<(u64, String, u64)>> {
    // From the byte before `off`: a line starts at `off` when that byte ends a line.
    let base = off.saturating_sub(1);
    let mut want = CHUNK;
    let mut buf = Vec::new();
    loop {
        read_at(f, base, want, &mut buf)?;
        let eof = buf.len() < want;
        let first = if off == 0 { Some(0) } else { buf.iter().position(|&b| b == b'\n').map(|p| p + 1) };
        if let Some(mut i) = first {
            while i < buf.len() {
                let rest = &buf[i..];
                let (line, next) = match rest.iter().position(|&b| b == b'\n') {
                    Some(nl) => (&rest[..nl], i + nl + 1),
                    // The file's last line, without a newline.
                    None if eof => (rest, buf.len()),
                    None => break,
                };
                if line.starts_with(b"sfen ") {
                    if let Line::Sfen(k) = parse_line(&String::from_utf8_lossy(line)) {
                        return Ok(Some((base + i as u64, k, base + next as u64)));
                    }
                }
                i = next;
            }
        }
        if eof {
            return Ok(None);
        }
        // A long stretch without an `sfen` line: read more at once.
        want *= 4;
    }
}

/// Bisection over byte offsets of a file sorted by SFEN down to a window of `WINDOW` bytes,
/// then the records from there are read in order up to the one with key `target`, if any.
fn disk_find(f: &mut File, len: u64, target: &str) -> std::io::Result<Option<Vec<BookMove>>> {
    let (mut lo, mut hi) = (0u64, len);
    while hi - lo > WINDOW {
        let mid = lo + (hi - lo) / 2;
        match sfen_at_or_after(f, mid)? {
            Some((start, k, _)) if k.as_str() < target => lo = start + 1,
            _ => hi = mid,
        }
    }
    let Some((_, mut k, after)) = sfen_at_or_after(f, lo)? else { return Ok(None) };
    f.seek(SeekFrom::Start(after))?;
    let mut r = BufReader::with_capacity(2 * CHUNK, &mut *f);
    let mut buf = Vec::new();
    let mut moves = Vec::new();
    loop {
        if k.as_str() > target {
            return Ok(None);
        }
        let found = k == target;
        // The lines up to the next `sfen` line: the moves of `k`.
        loop {
            buf.clear();
            if r.read_until(b'\n', &mut buf)? == 0 {
                return Ok((found && !moves.is_empty()).then_some(moves));
            }
            if !found && !buf.starts_with(b"sfen ") {
                continue;
            }
            match parse_line(&String::from_utf8_lossy(&buf)) {
                Line::Sfen(next) => {
                    k = next;
                    break;
                }
                Line::Move(m) if found => moves.push(m),
                Line::Bad(why) if found => log::warn!("book: {why}"),
                _ => {}
            }
        }
        if found {
            return Ok((!moves.is_empty()).then_some(moves));
        }
    }
}

enum Sample {
    /// Sorted as far as the samples tell, with the number of `sfen` lines seen.
    Sorted(usize),
    Unsorted,
}

/// Reads the `sfen` line after each of `SORT_SAMPLES` evenly spaced offsets and checks that
/// their keys do not decrease (a bounded check: an unsorted file almost never passes it).
fn sorted_sample(f: &mut File, len: u64) -> std::io::Result<Sample> {
    let mut last: Option<String> = None;
    let mut seen = 0;
    for i in 0..SORT_SAMPLES {
        if let Some((_, k, _)) = sfen_at_or_after(f, len * i / SORT_SAMPLES)? {
            if last.as_ref().is_some_and(|l| *l > k) {
                return Ok(Sample::Unsorted);
            }
            last = Some(k);
            seen += 1;
        }
    }
    Ok(Sample::Sorted(seen))
}

/// A legal book move.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// What the book says about it.
    pub entry: BookMove,
}

/// The book's answer for a position.
#[derive(Debug)]
pub struct Hit {
    /// The move to play.
    pub best: Candidate,
    /// The reply to ponder on, legal after `best`.
    pub ponder: Option<Move>,
    /// The book line from the position: `best` first, at most `BookPvMoves` plies.
    pub pv: Vec<Move>,
    /// Every legal book move (sorted as YaneuraOu sorts them: count, then value, descending),
    /// before the filters.
    pub all: Vec<Candidate>,
}

/// What `probe` found, with the remarks worth an `info string`.
#[derive(Debug)]
pub struct Probe {
    /// The move to play, if the book gives one.
    pub hit: Option<Hit>,
    /// Remarks (illegal book moves, filters that removed moves).
    pub notes: Vec<String>,
}

/// The moves of `pos`, legal ones only, sorted (count, then value, descending); also looks
/// up the flipped position when allowed. Illegal moves are reported in `notes`.
pub fn legal_moves(
    book: &Book,
    pos: &Position,
    flipped: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<Candidate>, String> {
    let mut entries = book.find(pos)?;
    if entries.is_none() && flipped {
        if let Some(fk) = flipped_key(pos) {
            entries = book.find_key(&fk)?.map(|v| {
                v.into_iter()
                    .map(|m| BookMove {
                        mv: flip_move_text(&m.mv),
                        ponder: m.ponder.as_deref().map(flip_move_text),
                        ..m
                    })
                    .collect()
            });
        }
    }
    let Some(entries) = entries else { return Ok(Vec::new()) };
    let mut out: Vec<Candidate> = Vec::new();
    for e in entries {
        match pos.parse_usi_move(&e.mv) {
            Ok(mv) if !out.iter().any(|c| c.mv == mv) => out.push(Candidate { mv, entry: e }),
            Ok(_) => {}
            Err(err) => notes.push(format!(
                "error: illegal move {} in the book for {}: {err}; skipped",
                ascii(&e.mv, 10),
                pos.to_sfen()
            )),
        }
    }
    out.sort_by(|a, b| b.entry.count.cmp(&a.entry.count).then(b.entry.value.cmp(&a.entry.value)));
    Ok(out)
}

/// The book move for `pos` under `opts` (YaneuraOu's `BookMoveSelector::probe`):
/// `BookIgnoreRate`, `BookMoves`, the legal moves (restricted to `searchmoves` when given),
/// `BookDepthLimit` on the first move, then the moves valued at least
/// max(first - `BookEvalDiff`, the side's `BookEval*Limit`), one chosen at random (uniformly,
/// or by count with `ConsiderBookMoveCount`).
pub fn probe(
    book: &Book,
    pos: &Position,
    opts: &BookOptions,
    searchmoves: &[Move],
    rng: &mut Rng,
) -> Result<Probe, String> {
    let mut notes = Vec::new();
    let miss = |notes: Vec<String>| -> Result<Probe, String> { Ok(Probe { hit: None, notes }) };
    if opts.ignore_rate as usize > rng.below(100) {
        return miss(notes);
    }
    if pos.game_ply() > opts.moves {
        return miss(notes);
    }
    let all = legal_moves(book, pos, opts.flipped, &mut notes)?;
    let mut list: Vec<Candidate> =
        all.iter().filter(|c| searchmoves.is_empty() || searchmoves.contains(&c.mv)).cloned().collect();
    if list.is_empty() {
        return miss(notes);
    }
    if opts.depth_limit != 0 && list[0].entry.depth < opts.depth_limit {
        notes.push(format!(
            "book: BookDepthLimit {} is above the depth {} of this position's first move; searching",
            opts.depth_limit, list[0].entry.depth
        ));
        return miss(notes);
    }
    let side_limit = match pos.side_to_move() {
        engine::Color::Black => ("BookEvalBlackLimit", opts.eval_black_limit),
        engine::Color::White => ("BookEvalWhiteLimit", opts.eval_white_limit),
    };
    let limit = (list[0].entry.value.saturating_sub(opts.eval_diff)).max(side_limit.1);
    let n = list.len();
    list.retain(|c| c.entry.value >= limit);
    if list.len() != n {
        notes.push(format!(
            "book: BookEvalDiff = {}, {} = {}, {n} moves to {} moves",
            opts.eval_diff,
            side_limit.0,
            side_limit.1,
            list.len()
        ));
    }
    if list.is_empty() {
        return miss(notes);
    }
    let pick = if opts.consider_count {
        let weight = |c: &Candidate| if list.iter().all(|c| c.entry.count == 0) { 1 } else { c.entry.count };
        let total: u64 = list.iter().map(weight).sum();
        let mut r = if total == 0 { 0 } else { rng.next_u64() % total };
        let mut i = 0;
        while i + 1 < list.len() && r >= weight(&list[i]) {
            r -= weight(&list[i]);
            i += 1;
        }
        i
    } else {
        rng.below(list.len())
    };
    let best = list.swap_remove(pick);
    let mut after = pos.clone();
    after.do_move(best.mv);
    let pv = book_pv(book, pos, &best, opts.pv_moves.max(1) as usize, opts.flipped);
    // The line's second move, so that the line printed and the ponder move agree (a GUI keeps
    // the line as the move's line of play and ponders on its second move).
    let ponder = pv.get(1).copied().or_else(|| {
        best.entry
            .ponder
            .as_deref()
            .and_then(|p| after.parse_usi_move(p).ok())
            .or_else(|| legal_moves(book, &after, opts.flipped, &mut Vec::new()).ok()?.first().map(|c| c.mv))
    });
    Ok(Probe { hit: Some(Hit { best, ponder, pv, all }), notes })
}

/// The book line after `first`: the first (most played, then best valued) legal book move of
/// each position, up to `len` plies; it stops at a repetition, and ends with the last move's
/// ponder move when the book has nothing further (YaneuraOu's `pv_builder`).
pub fn book_pv(book: &Book, pos: &Position, first: &Candidate, len: usize, flipped: bool) -> Vec<Move> {
    let mut p = pos.clone();
    let mut pv = vec![first.mv];
    p.do_move(first.mv);
    let mut ponder = first.entry.ponder.clone();
    while pv.len() < len {
        if p.repetition(pv.len()) != Repetition::None {
            break;
        }
        match legal_moves(book, &p, flipped, &mut Vec::new()).ok().and_then(|v| v.into_iter().next()) {
            Some(c) => {
                pv.push(c.mv);
                p.do_move(c.mv);
                ponder = c.entry.ponder;
            }
            None => {
                if let Some(m) = ponder.as_deref().and_then(|t| p.parse_usi_move(t).ok()) {
                    pv.push(m);
                }
                break;
            }
        }
    }
    pv
}

/// `score cp V` or `score mate N` for a book value.
pub fn score_text(value: i32) -> String {
    if value >= VALUE_MATE_IN_MAX_PLY {
        format!("score mate {}", VALUE_MATE - value)
    } else if value <= -VALUE_MATE_IN_MAX_PLY {
        format!("score mate -{}", VALUE_MATE + value)
    } else {
        format!("score cp {value}")
    }
}

/// The USI move text with the board turned round (`7g7f` -> `3c3d`, `P*5e` -> `P*5e`).
pub fn flip_move_text(m: &str) -> String {
    m.bytes()
        .map(|b| match b {
            b'1'..=b'9' => (b'1' + b'9' - b) as char,
            b'a'..=b'i' => (b'a' + b'i' - b) as char,
            other => other as char,
        })
        .collect()
}

/// The key of `pos` with the board turned round and the colours swapped (YaneuraOu's
/// `FlippedBook`), canonical through the rules core.
pub fn flipped_key(pos: &Position) -> Option<String> {
    let sfen = pos.to_sfen();
    let f: Vec<&str> = sfen.split_whitespace().collect();
    let swap = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
    let ranks: Vec<String> = f[0]
        .split('/')
        .rev()
        .map(|rank| {
            // Tokens: a digit run, or a piece with its `+`; reversed, case swapped.
            let mut tokens: Vec<String> = Vec::new();
            let mut plus = false;
            for c in rank.chars() {
                if c == '+' {
                    plus = true;
                } else {
                    tokens.push(if plus { format!("+{}", swap(c)) } else { swap(c).to_string() });
                    plus = false;
                }
            }
            tokens.reverse();
            tokens.concat()
        })
        .collect();
    let side = if f[1] == "b" { "w" } else { "b" };
    let hands: String = if f[2] == "-" { "-".into() } else { f[2].chars().map(swap).collect() };
    let flipped = format!("{} {side} {hands} 1", ranks.join("/"));
    Position::from_sfen(&flipped).ok().and_then(|p| key(&p.to_sfen()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::MoveList;
    use std::io::Write;

    const START_KEY: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";

    fn temp(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("kaname-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::File::create(&p).unwrap().write_all(text.as_bytes()).unwrap();
        p.to_str().unwrap().to_string()
    }

    fn after(moves: &[&str]) -> Position {
        let mut p = Position::startpos();
        for m in moves {
            let mv = p.parse_usi_move(m).unwrap();
            p.do_move(mv);
        }
        p
    }

    #[test]
    fn keys_drop_the_move_number() {
        assert_eq!(key(&format!("{START_KEY} 1")).unwrap(), START_KEY);
        assert_eq!(key(&format!("  {START_KEY}   57 \r")).unwrap(), START_KEY);
        assert_eq!(key(START_KEY).unwrap(), START_KEY);
        assert!(key("lnsgkgsnl/9 b").is_none());
        assert!(key(&format!("{START_KEY} x")).is_none());
        assert_eq!(key(&after(&["7g7f"]).to_sfen()).unwrap(), key(&after(&["7g7f"]).to_sfen()).unwrap());
    }

    #[test]
    fn lines() {
        assert_eq!(parse_line(HEADER), Line::Comment);
        assert_eq!(parse_line("// a comment"), Line::Comment);
        assert_eq!(parse_line("  \r"), Line::Blank);
        assert_eq!(parse_line(&format!("sfen {START_KEY} 1\r")), Line::Sfen(START_KEY.into()));
        assert!(matches!(parse_line("sfen lnsgkgsnl b - 1 2"), Line::Bad(_)));
        let m = |mv: &str, ponder: Option<&str>, value, depth, count| {
            Line::Move(BookMove { mv: mv.into(), ponder: ponder.map(Into::into), value, depth, count })
        };
        assert_eq!(parse_line("7g7f 3c3d 45 16 3"), m("7g7f", Some("3c3d"), 45, 16, 3));
        assert_eq!(parse_line("8h2b+ none -12 0 0"), m("8h2b+", None, -12, 0, 0));
        assert_eq!(parse_line("P*5e none"), m("P*5e", None, 0, 0, 1));
        assert_eq!(parse_line("2g2f"), m("2g2f", None, 0, 0, 1));
        assert_eq!(parse_line("2g2f 8c8d 31990 5 1 extra"), m("2g2f", Some("8c8d"), 31990, 5, 1));
        for bad in ["7g7z 3c3d 0 0 1", "K*5e none", "7g7f 3c3d ten", "7g7f xx", "hello world", "7g7f 3c3d 1 2 x"] {
            assert!(matches!(parse_line(bad), Line::Bad(_)), "{bad}");
        }
    }

    /// A small book of three positions, sorted by key or in reverse.
    fn book_text(sorted: bool) -> String {
        let s1 = after(&["7g7f"]).to_sfen();
        let s2 = after(&["2g2f"]).to_sfen();
        let mut records = [
            format!("sfen {}\n7g7f 3c3d 50 20 1\n2g2f 8c8d 40 20 1\n5g5f none -100 20 1\n", engine::START_SFEN),
            format!("sfen {s1}\n3c3d 2g2f -40 18 1\n// comment\n8c8d none -60 18 1\n"),
            format!("sfen {s2}\n8c8d 7g7f -35 18 1\n"),
        ];
        if sorted {
            records.sort_by_key(|r| key(r.lines().next().unwrap().strip_prefix("sfen ").unwrap()).unwrap());
        } else {
            records.sort_by_key(|r| std::cmp::Reverse(key(&r.lines().next().unwrap()[5..]).unwrap()));
        }
        format!("{HEADER}\n{}", records.concat())
    }

    fn check_lookups(book: &Book) {
        let start = book.find(&Position::startpos()).unwrap().unwrap();
        assert_eq!(start.len(), 3);
        assert_eq!(start[0].mv, "7g7f");
        let p = after(&["7g7f"]);
        let moves = book.find(&p).unwrap().unwrap();
        assert_eq!(moves.iter().map(|m| m.mv.as_str()).collect::<Vec<_>>(), ["3c3d", "8c8d"]);
        // The same position at another ply hits too.
        let mut later = Position::from_sfen(&format!("{} 31", key(&p.to_sfen()).unwrap())).unwrap();
        assert_eq!(book.find(&later).unwrap().unwrap().len(), 2);
        later.do_move(later.parse_usi_move("3c3d").unwrap());
        assert!(book.find(&later).unwrap().is_none());
        assert_eq!(book.find(&after(&["2g2f"])).unwrap().unwrap()[0].value, -35);
    }

    #[test]
    fn lookups_in_memory_and_on_disk() {
        let sorted = temp("sorted.db", &book_text(true));
        let unsorted = temp("unsorted.db", &book_text(false));
        let mem = Book::open(&sorted).unwrap();
        assert!(!mem.on_disk() && mem.problem.is_none());
        check_lookups(&mem);
        let disk = Book::open_with(&sorted, 0).unwrap();
        assert!(disk.on_disk(), "{}", disk.summary);
        check_lookups(&disk);
        // Not sorted: read into memory whatever its size.
        let b = Book::open_with(&unsorted, 0).unwrap();
        assert!(!b.on_disk() && b.summary.contains("not sorted"), "{}", b.summary);
        check_lookups(&b);
        check_lookups(&Book::open(&unsorted).unwrap());
    }

    #[test]
    fn disk_search_finds_every_position_of_a_larger_book() {
        // Many positions, some with comment lines and CRLF line ends, each found by bisection.
        let mut positions = Vec::new();
        let mut p = Position::startpos();
        let mut rng = Rng::new(7);
        while positions.len() < 300 {
            let mut l = MoveList::new();
            engine::generate_legal(&p, &mut l);
            if l.is_empty() || p.game_ply() > 60 {
                p = Position::startpos();
                continue;
            }
            let m = l.as_slice()[rng.below(l.len())];
            positions.push((key(&p.to_sfen()).unwrap(), p.to_sfen(), m));
            p.do_move(m);
        }
        positions.sort_by(|a, b| a.0.cmp(&b.0));
        positions.dedup_by(|a, b| a.0 == b.0);
        let mut text = format!("{HEADER}\r\n");
        for (i, (_, sfen, m)) in positions.iter().enumerate() {
            text.push_str(&format!("sfen {sfen}\r\n{m} none {i} 1 1\r\n"));
            if i % 7 == 0 {
                text.push_str("# note\r\n");
            }
        }
        let path = temp("many.db", &text);
        let b = Book::open_with(&path, 0).unwrap();
        assert!(b.on_disk());
        for (i, (k, _, m)) in positions.iter().enumerate() {
            let moves = b.find_key(k).unwrap().unwrap_or_else(|| panic!("{k}"));
            assert_eq!((moves[0].mv.as_str(), moves[0].value), (m.to_string().as_str(), i as i32));
        }
        assert!(b.find_key("9/9/9/9/9/9/9/9/9 b -").unwrap().is_none());
        assert!(b.find_key("zzz b -").unwrap().is_none());
    }

    #[test]
    fn bad_books() {
        assert!(Book::open("/nonexistent/kaname.db").unwrap_err().contains("BookFile"));
        let dir = std::env::temp_dir();
        assert!(Book::open(dir.to_str().unwrap()).is_err());
        assert!(Book::open(&temp("empty.db", "")).unwrap_err().contains("no positions"));
        assert!(Book::open(&temp("binary.db", "\0\x01\x02sfen")).unwrap_err().contains("not a text book"));
        assert!(Book::open(&temp("junk.db", "hello\nworld\n")).unwrap_err().contains("bad line"));
        assert!(Book::open_with(&temp("junk2.db", "hello\nworld\n"), 0).is_err());
        // Bad lines among good ones: the good ones are used, the bad ones reported.
        let text = format!("{}\nsfen nonsense b - 1\n7g7f none\nsfen {}\n7g7f 3c3d 1 2 x\n", book_text(true), {
            after(&["5g5f"]).to_sfen()
        });
        let b = Book::open(&temp("mixed.db", &text)).unwrap();
        let p = b.problem.clone().unwrap();
        assert!(p.contains("2 bad lines") && p.contains("bad SFEN"), "{p}");
        check_lookups(&b);
        assert!(b.find(&after(&["5g5f"])).unwrap().is_none());
    }

    fn options() -> BookOptions {
        BookOptions { eval_diff: 30, eval_black_limit: -99999, eval_white_limit: -99999, ..BookOptions::default() }
    }

    fn chosen(b: &Book, pos: &Position, o: &BookOptions, seeds: u64) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for seed in 0..seeds {
            if let Some(h) = probe(b, pos, o, &[], &mut Rng::new(seed)).unwrap().hit {
                let m = h.best.mv.to_string();
                if !seen.contains(&m) {
                    seen.push(m);
                }
            }
        }
        seen.sort();
        seen
    }

    #[test]
    fn option_filters() {
        let b = Book::open(&temp("filters.db", &book_text(true))).unwrap();
        let start = Position::startpos();
        // BookEvalDiff 30: 7g7f (50) and 2g2f (40), never 5g5f (-100).
        assert_eq!(chosen(&b, &start, &options(), 64), ["2g2f", "7g7f"]);
        let o = BookOptions { eval_diff: 0, ..options() };
        assert_eq!(chosen(&b, &start, &o, 16), ["7g7f"]);
        let o = BookOptions { eval_diff: 1000, ..options() };
        assert_eq!(chosen(&b, &start, &o, 64), ["2g2f", "5g5f", "7g7f"]);
        // The side's lower limit.
        let o = BookOptions { eval_diff: 1000, eval_black_limit: 45, ..options() };
        assert_eq!(chosen(&b, &start, &o, 16), ["7g7f"]);
        let o = BookOptions { eval_white_limit: -30, ..options() };
        assert!(chosen(&b, &after(&["2g2f"]), &o, 16).is_empty());
        // BookMoves: the start position is ply 1.
        assert!(chosen(&b, &start, &BookOptions { moves: 0, ..options() }, 16).is_empty());
        assert_eq!(chosen(&b, &after(&["7g7f"]), &BookOptions { moves: 2, eval_diff: 0, ..options() }, 16), ["3c3d"]);
        assert!(chosen(&b, &after(&["7g7f"]), &BookOptions { moves: 1, ..options() }, 16).is_empty());
        // BookDepthLimit: the first move's depth decides for the position.
        assert!(chosen(&b, &start, &BookOptions { depth_limit: 21, ..options() }, 16).is_empty());
        assert_eq!(chosen(&b, &start, &BookOptions { depth_limit: 20, eval_diff: 0, ..options() }, 16), ["7g7f"]);
        let notes = probe(&b, &start, &BookOptions { depth_limit: 21, ..options() }, &[], &mut Rng::new(1)).unwrap();
        assert!(notes.notes[0].contains("BookDepthLimit"), "{:?}", notes.notes);
        // BookIgnoreRate 100: never; 0: always.
        assert!(chosen(&b, &start, &BookOptions { ignore_rate: 100, ..options() }, 32).is_empty());
        // searchmoves restricts the book moves.
        let only = [start.parse_usi_move("5g5f").unwrap()];
        let o = BookOptions { eval_diff: 1000, ..options() };
        let h = probe(&b, &start, &o, &only, &mut Rng::new(3)).unwrap().hit.unwrap();
        assert_eq!(h.best.mv, only[0]);
        let not_in_book = [start.parse_usi_move("1g1f").unwrap()];
        assert!(probe(&b, &start, &o, &not_in_book, &mut Rng::new(3)).unwrap().hit.is_none());
    }

    #[test]
    fn count_weighted_choice_and_sorting() {
        let text = format!("{HEADER}\nsfen {}\n2g2f none 0 0 1\n7g7f none 0 0 99\n", engine::START_SFEN);
        let b = Book::open(&temp("counts.db", &text)).unwrap();
        let start = Position::startpos();
        let o = BookOptions { consider_count: true, eval_diff: 0, ..BookOptions::default() };
        let mut n7 = 0;
        for seed in 0..200 {
            let h = probe(&b, &start, &o, &[], &mut Rng::new(seed)).unwrap().hit.unwrap();
            n7 += (h.best.mv.to_string() == "7g7f") as u32;
            assert_eq!(h.all[0].mv.to_string(), "7g7f", "most played first");
        }
        assert!(n7 > 180, "{n7}");
    }

    #[test]
    fn illegal_moves_are_skipped_and_reported() {
        let text = format!("{HEADER}\nsfen {}\n7g7e none 100 0 1\n2g2f 3c3d 10 0 1\n", engine::START_SFEN);
        let b = Book::open(&temp("illegal.db", &text)).unwrap();
        let p = probe(&b, &Position::startpos(), &options(), &[], &mut Rng::new(0)).unwrap();
        assert_eq!(p.hit.unwrap().best.mv.to_string(), "2g2f");
        assert!(p.notes[0].contains("illegal move 7g7e"), "{:?}", p.notes);
    }

    #[test]
    fn pv_follows_the_book_and_ends_with_the_ponder_move() {
        let b = Book::open(&temp("pv.db", &book_text(true))).unwrap();
        let o = BookOptions { eval_diff: 0, ..options() };
        let h = probe(&b, &Position::startpos(), &o, &[], &mut Rng::new(0)).unwrap().hit.unwrap();
        let pv: Vec<String> = h.pv.iter().map(|m| m.to_string()).collect();
        assert_eq!(pv, ["7g7f", "3c3d", "2g2f"]);
        assert_eq!(h.ponder.unwrap().to_string(), "3c3d");
        let o = BookOptions { pv_moves: 2, ..o };
        let h = probe(&b, &Position::startpos(), &o, &[], &mut Rng::new(0)).unwrap().hit.unwrap();
        assert_eq!(h.pv.len(), 2);
        // No ponder in the entry: the book's move of the next position.
        let p = after(&["7g7f"]);
        let h = probe(
            &b,
            &p,
            &BookOptions { eval_diff: 1000, ..o },
            &[p.parse_usi_move("8c8d").unwrap()],
            &mut Rng::new(0),
        )
        .unwrap()
        .hit
        .unwrap();
        assert_eq!(h.ponder, None);
    }

    #[test]
    fn the_ponder_move_is_the_lines_second_move() {
        // The entry's ponder (8c8d) is not the book's first move after it (3c3d): the line a GUI
        // records for the move and the ponder move must agree, so the ponder follows the line.
        let s1 = after(&["7g7f"]).to_sfen();
        let text = format!(
            "{HEADER}\nsfen {}\n7g7f 8c8d 50 20 1\nsfen {s1}\n3c3d 2g2f -40 18 9\n8c8d none -60 18 1\n",
            engine::START_SFEN
        );
        let b = Book::open(&temp("ponder.db", &text)).unwrap();
        let h = probe(&b, &Position::startpos(), &options(), &[], &mut Rng::new(0)).unwrap().hit.unwrap();
        let pv: Vec<String> = h.pv.iter().map(|m| m.to_string()).collect();
        assert_eq!(pv[..2], ["7g7f", "3c3d"]);
        assert_eq!(h.ponder.unwrap().to_string(), "3c3d");
    }

    #[test]
    fn flipped_positions_hit_with_flipped_moves() {
        assert_eq!(flip_move_text("7g7f"), "3c3d");
        assert_eq!(flip_move_text("8h2b+"), "2b8h+");
        assert_eq!(flip_move_text("P*5e"), "P*5e");
        // The book knows White's 3c3d after 7g7f; turned round, that is Black's 7g7f in the
        // start position with White's pawn already on 3d.
        let black = after(&["7g7f"]);
        let text = format!("{HEADER}\nsfen {}\n3c3d 2g2f 5 0 1\n", black.to_sfen());
        let b = Book::open(&temp("flip.db", &text)).unwrap();
        let o = BookOptions { eval_black_limit: -99999, eval_white_limit: -99999, ..BookOptions::default() };
        let fk = flipped_key(&black).unwrap();
        assert_eq!(fk, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -");
        let flipped = Position::from_sfen(&format!("{fk} 2")).unwrap();
        let h = probe(&b, &flipped, &o, &[], &mut Rng::new(0)).unwrap().hit.unwrap();
        assert_eq!(h.best.mv.to_string(), "7g7f");
        assert!(probe(&b, &flipped, &BookOptions { flipped: false, ..o }, &[], &mut Rng::new(0))
            .unwrap()
            .hit
            .is_none());
        assert_eq!(h.ponder.unwrap().to_string(), "8c8d");
        assert_eq!(flipped_key(&flipped).unwrap(), key(&black.to_sfen()).unwrap());
    }

    /// Open and look-up times on a large book: `KANAME_BOOK_BENCH=<book> cargo test --release
    /// --bin kaname bench_large_book -- --ignored --nocapture`, with `<book>.queries` holding
    /// `position` arguments (`startpos moves ...`) of positions in the book. Prints wall time
    /// and, on Linux, the thread's CPU time (what a loaded machine does not inflate).
    #[test]
    #[ignore]
    fn bench_large_book() {
        use std::time::Instant;
        let Ok(path) = std::env::var("KANAME_BOOK_BENCH") else { return };
        let cpu_ns = || -> Option<u64> {
            std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
        };
        let timed = |what: &str, n: usize, f: &mut dyn FnMut() -> String| {
            let (t, c) = (Instant::now(), cpu_ns());
            let result = f();
            let wall = t.elapsed().as_secs_f64() * 1e6 / n as f64;
            let cpu = c
                .zip(cpu_ns())
                .map_or(String::new(), |(a, b)| format!(", CPU {:.1} us", (b - a) as f64 / 1e3 / n as f64));
            println!("{what}: {result}: wall {wall:.1} us{cpu} each");
        };
        let queries: Vec<Position> = std::fs::read_to_string(format!("{path}.queries"))
            .unwrap()
            .lines()
            .map(|l| {
                crate::protocol::parse::position(&l.split_whitespace().collect::<Vec<_>>(), engine::VariantId::Shogi)
                    .unwrap()
                    .0
            })
            .collect();
        // Positions one random move further: almost all out of the book.
        let mut rng = Rng::new(5);
        let misses: Vec<Position> = queries
            .iter()
            .map(|p| {
                let mut l = MoveList::new();
                engine::generate_legal(p, &mut l);
                let mut q = p.clone();
                q.do_move(l.as_slice()[rng.below(l.len())]);
                q
            })
            .collect();
        let mut b = None;
        timed("open", 1, &mut || {
            b = Some(Book::open(&path).unwrap());
            b.as_ref().unwrap().summary.clone()
        });
        let b = b.unwrap();
        assert!(b.on_disk());
        for (what, set) in [("in the book", &queries), ("one move further", &misses)] {
            timed(&format!("{} look-ups of positions {what}", set.len()), set.len(), &mut || {
                format!("{} found", set.iter().filter(|p| b.find(p).unwrap().is_some()).count())
            });
        }
        let o = BookOptions {
            eval_diff: 1000,
            eval_black_limit: -99999,
            eval_white_limit: -99999,
            moves: 10000,
            ..Default::default()
        };
        timed(
            &format!("{} probes (legality, ponder, PV, flipped look-ups)", queries.len()),
            queries.len(),
            &mut || {
                format!(
                    "{} hits",
                    queries.iter().filter(|p| probe(&b, p, &o, &[], &mut rng).unwrap().hit.is_some()).count()
                )
            },
        );
        let mut m = None;
        timed("the same book read into memory", 1, &mut || {
            m = Some(Book::open_with(&path, u64::MAX).unwrap());
            m.as_ref().unwrap().summary.clone()
        });
        let m = m.unwrap();
        timed("in memory, look-ups of positions in the book", queries.len(), &mut || {
            format!("{} found", queries.iter().filter(|p| m.find(p).unwrap().is_some()).count())
        });
    }

    #[test]
    fn scores() {
        assert_eq!(score_text(35), "score cp 35");
        assert_eq!(score_text(VALUE_MATE - 3), "score mate 3");
        assert_eq!(score_text(-VALUE_MATE + 4), "score mate -4");
    }
}
