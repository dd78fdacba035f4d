//! A USI protocol fuzzer: seeded random and mutated command streams against the built `kaname`
//! binary, over pipes, with the protocol's promises checked on every line and after every step.
//!
//! **A stream.** The engine is started in a scratch directory (one stream in five as
//! `kaname --tune`, which also declares the `Tune_*` options), answers `usi`, and the fuzzer
//! learns the option names, types, defaults and ranges from that answer. Then it sends a mix of
//! every USI command (`usi isready setoption usinewgame position go stop ponderhit gameover
//! quit`, and `usi_tunables debug register`): `setoption` of every declared option (and
//! aliases, other spellings, unknown and `Tune_*` names) with legal, out-of-range, malformed
//! and missing values; `position startpos|sfen|<bare sfen> moves ...` with legal move lists
//! generated with the `engine` crate (long games too), illegal moves, `resign`/`win`/null moves,
//! random SFENs (from `tests/data`, random playouts, random boards, odd move numbers) valid and
//! corrupted; short searches (`go movetime 20-100`, `nodes`, `depth 1-4`, `byoyomi 50-200` with
//! `btime`/`wtime`, increments, `infinite` and `ponder` with a later `stop`/`ponderhit`, `mate`
//! with small limits, `searchmoves`, malformed and extreme parameters), `go` during a search,
//! and garbage. A stream's mutation rate (`chaos`) decides how many lines are corrupted: cut,
//! bytes replaced or inserted (non-UTF-8, NUL, Unicode spaces), tokens dropped, repeated or
//! swapped, case changed. Framing varies too: LF, CRLF, CR CR LF, blank lines, several lines in
//! one write, a line split over two writes, lines of 20 KB to 200 KB and (rarely) one longer
//! than the engine's 16 MiB limit. A stream ends with `quit`, `quit` followed by more input,
//! or end of input (EOF) at a line boundary or in the middle of a line.
//!
//! **Invariants.** Every stdout line is ASCII and a USI line (`id option usiok readyok info
//! bestmove checkmate usi_tunablesok` or the empty keep-alive); `id`/`option`/`usiok` only in
//! answer to `usi`; one `readyok` per `isready`; results come one per `go`, in order
//! (`checkmate` for `go mate`, `bestmove` otherwise), never one without a `go`, and under
//! `go infinite`/`go ponder` never before the `stop`/`ponderhit`/`go`/`gameover`/`quit`/EOF
//! that ends the wait (checked by reading everything that has arrived before each of those is
//! written); each result within 20 s of when the search had to end (its own limit, or the
//! command that ended it); every `bestmove` legal in the position of its `go` (`resign` only
//! without a legal move or when `ResignValue` allows resigning, `win` only when the declaration
//! rule in force allows it, the move among the legal `searchmoves` when some were given, the
//! ponder move legal after it); every `checkmate` line a legal mate with checks; every `pv`
//! legal from the searched position; no `info string error: internal error` (a caught panic);
//! the process alive until `quit`/EOF, then exiting with status 0 within 20 s; nothing on
//! stderr that says `panicked` or logs an `ERROR` (the front end replaces an illegal search
//! move, a broken mate line or a dead search with a safe answer, and logs an error: the
//! fuzzer counts that as a failure).
//!
//! **The engine's position.** The fuzzer reads the byte stream as `reader::read_line` does
//! (lines end at LF, one CR before it is dropped, lossy UTF-8, a line over `MAX_LINE` bytes is
//! ignored, an unfinished last line counts at EOF), and applies `position` exactly as
//! README "USI support" specifies it, with the `engine` crate: `startpos` (text after it
//! ignored), `sfen <sfen>` or a bare SFEN, the move list stops quietly at `resign`/`win`, null
//! moves `pass`/`0000`/`null`; a bad SFEN, a pass in check or an illegal move refuses the
//! position, and until a `position` is accepted every `go` must answer `bestmove resign` (`go
//! mate`: `checkmate notimplemented`), never a move of another position. `go`'s arguments are read the way
//! `usi/protocol/parse.rs` reads them (which flags a search has, its `searchmoves`, its limits), and
//! `EnteringKingRule`/`ResignValue` the way `setoption` does. This mirror is exact for
//! corrupted lines too (it is the same tokenising), so every `bestmove` is checked against the
//! one position the engine searched, never "either of two".
//!
//! **Never sent**: `d`, `eval`, `perft`, `bench`, `help` (answers for people, not USI; a
//! mutated line that becomes one of them is dropped), `USI_Hash`/`MateHash` above 64 MiB and
//! `Threads` above 4 in the quick run (the machine is shared), `UsiLog` paths outside the
//! scratch directory, and `BookFile`/`EvalFile`/`EvalDir` absolute paths other than the test data.
//!
//! **Running.** `fuzz_quick` runs a few seeded streams in the normal suite (well under a
//! minute). The long run is
//! `KANAME_FUZZ_ITERS=N [KANAME_FUZZ_SEED=S] cargo test --test fuzz_usi fuzz_long -- --ignored --nocapture`
//! (`--release` works too; the test profile keeps overflow checks, which find more): stream
//! `i` uses seed `S + i`; a failure prints its seed and the command that replays it
//! (`KANAME_FUZZ_ITERS=1 KANAME_FUZZ_SEED=<seed>`, plus `KANAME_FUZZ_CONFIG=quick` for a quick
//! stream) and writes the whole conversation to a file in the temporary directory. Search
//! timing makes the engine's answers vary from run to run, but a seed always sends the same
//! commands. Every failure found is kept below as a regression test (the minimal command
//! sequence) and its seed in `REGRESSION_SEEDS`, which `fuzz_quick` also runs.
//!
//! The parsers are fuzzed directly by property tests over seeded random input (no external
//! crate; the repository's other property tests are written the same way):
//! `engine/tests/fuzz_parsers.rs` (`Position::from_sfen`, `Position::parse_usi_move`) and the
//! test modules of `usi/protocol/options.rs` (`options::parse`) and `usi/protocol/parse.rs` (`position`, `go`).

mod common;

use common::{Engine, LIVE};
use engine::{EnteringKingRule, Move, MoveList, Position, VariantId};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `reader::MAX_LINE`: a longer line is dropped whole (and reported).
const MAX_LINE: usize = 16 << 20;
/// `reader::TOO_LONG`: the session takes a line starting with this for its too-long report.
const TOO_LONG: &str = "\u{0}line-too-long";
/// Extra commands that answer people, not USI: never sent.
const HUMAN_COMMANDS: &[&str] = &["d", "eval", "perft", "bench", "help"];
/// Every command word the fuzzer knows (USI and the USI-shaped extensions).
const COMMANDS: &[&str] = &[
    "usi",
    "isready",
    "setoption",
    "usinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "gameover",
    "usi_tunables",
    "debug",
    "register",
    "quit",
];
/// `go`'s keywords (`usi/protocol/parse.rs`).
const GO_KEYWORDS: &[&str] = &[
    "ponder",
    "infinite",
    "btime",
    "wtime",
    "binc",
    "winc",
    "byoyomi",
    "bbyoyomi",
    "wbyoyomi",
    "movetime",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "searchmoves",
];
/// Numbers at the edges of the integer types (and things that only look like numbers).
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000000000000000000000000000000000",
    "+5",
    "1e3",
    "0x10",
    "1.5",
    "\u{0663}",
    "",
];
/// How long a depth- or node-limited search may take at most on a loaded machine (before the
/// 20 s slack).
const NOMINAL_MS: u64 = 3000;
/// Searches planned longer than this are not waited for (a later `stop` ends them).
const LONGEST_WAIT_MS: u64 = 10_000;

/// The size of a run.
#[derive(Clone, Copy, Debug)]
struct Config {
    name: &'static str,
    /// Steps per stream.
    steps: usize,
    /// Largest `Threads` value sent.
    max_threads: i128,
    /// Largest `USI_Hash`/`MateHash` value sent.
    max_hash: i128,
    /// Per-step chance of a line longer than `MAX_LINE`.
    huge_line_chance: f64,
}

const QUICK: Config = Config { name: "quick", steps: 45, max_threads: 4, max_hash: 64, huge_line_chance: 0.004 };
const LONG: Config = Config { name: "long", steps: 250, max_threads: 8, max_hash: 128, huge_line_chance: 0.002 };

/// Seeds of streams that once failed, run by `fuzz_quick` (with the quick configuration) beside
/// its own seeds:
/// - 5431743990311747585 (a quick seed): `go btime 18446744073709551615 ...` overflowed the
///   time plan (`regression_go_with_clocks_near_u64_max`).
const REGRESSION_SEEDS: &[u64] = &[5431743990311747585];

/// splitmix64: small, deterministic, no dependency.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64) / ((1u64 << 53) as f64) < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    engine::generate_legal(pos, &mut list);
    list.as_slice().to_vec()
}

/// A random game from `start` of up to `plies` plies (captures preferred a little, so hands
/// fill), ending early at a position without legal moves.
fn random_game(rng: &mut Rng, start: &Position, plies: usize) -> (Position, Vec<Move>) {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let caps: Vec<Move> = legal.iter().copied().filter(|&m| pos.is_capture(m)).collect();
        let m = if !caps.is_empty() && rng.chance(0.4) { *rng.pick(&caps) } else { *rng.pick(&legal) };
        pos.do_move(m);
        moves.push(m);
    }
    (pos, moves)
}

/// Positions to start from: a sample of `tests/data/legal_moves.txt`, the short mates of
/// `tests/data/tsume.txt`, and hand-made corner cases.
struct Pool {
    sfens: Vec<String>,
    mates: Vec<String>,
    specials: Vec<String>,
}

/// The start position.
const START_SFEN: &str = engine::START_SFEN;
/// White to move and mated: no legal move.
const MATED: &str = "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1";
/// Black to move may declare a win (CSA 24 and 27 point rules).
const DECLARE_BLACK: &str = "+R+B7/PPPPPPPPP/4K4/9/9/9/9/9/8k b RB2G2S2N2L 1";
/// White to move may declare a win.
const DECLARE_WHITE: &str = "K8/9/9/9/9/9/4k4/ppppppppp/7+b+r w rb2g2s2n2l 1";

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let data = |f: &str| {
            std::fs::read_to_string(format!("{}/tests/data/{f}", env!("CARGO_MANIFEST_DIR"))).expect("test data")
        };
        let fields = |l: &str| l.split('\t').map(str::to_string).collect::<Vec<_>>();
        let sfens = data("legal_moves.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .step_by(40)
            .map(|l| fields(l)[0].clone())
            .collect();
        let mates = data("tsume.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(fields)
            .filter(|f| f[1].parse::<u32>().is_ok_and(|n| n <= 9))
            .map(|f| f[0].clone())
            .collect();
        let specials = [
            MATED,
            DECLARE_BLACK,
            DECLARE_WHITE,
            "4k4/9/9/9/9/9/9/9/4K4 b - 1",
            "4k4/9/9/9/9/9/9/9/4K4 w 2R2B4G4S4N4L18P 1",
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "8k/9/9/9/9/9/9/9/K8 b - 1",
            "4k4/9/4P4/9/9/9/9/9/4K4 b G 1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        Pool { sfens, mates, specials }
    })
}

// ---------------------------------------------------------------------------------------------
// The engine's side, mirrored.

/// One line as the session reads it.
enum Seen {
    Line(String),
    /// Longer than `MAX_LINE`: ignored (reported).
    TooLong,
}

/// A line's text as the session reads it (usi/protocol/reader.rs's `decode`): UTF-8, else
/// Shift_JIS when it is that without a fault, else lossy UTF-8.
fn decode(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| {
        let bytes = e.into_bytes();
        match encoding_rs::SHIFT_JIS.decode_without_bom_handling_and_without_replacement(&bytes) {
            Some(text) => text.into_owned(),
            None => String::from_utf8_lossy(&bytes).into_owned(),
        }
    })
}

/// Cuts the byte stream into lines as `reader::read_line` does.
#[derive(Default)]
struct Splitter {
    partial: Vec<u8>,
    /// Bytes of the unfinished line (`partial` keeps at most `MAX_LINE + 1` of them).
    partial_len: usize,
}

impl Splitter {
    fn push_part(&mut self, bytes: &[u8]) {
        let room = (MAX_LINE + 1).saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.partial_len += bytes.len();
    }

    fn take(&mut self) -> Seen {
        let mut buf = std::mem::take(&mut self.partial);
        let len = std::mem::take(&mut self.partial_len);
        if len > MAX_LINE {
            return Seen::TooLong;
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Seen::Line(decode(buf))
    }

    /// The lines that `bytes` completes.
    fn feed(&mut self, mut bytes: &[u8]) -> Vec<Seen> {
        let mut out = Vec::new();
        while let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            self.push_part(&bytes[..i]);
            out.push(self.take());
            bytes = &bytes[i + 1..];
        }
        self.push_part(bytes);
        out
    }

    /// The unfinished line, which the session reads at end of input.
    fn eof(&mut self) -> Option<Seen> {
        (self.partial_len > 0).then(|| self.take())
    }
}

/// `go`'s arguments as `usi/protocol/parse.rs` reads them.
#[derive(Clone, Debug, Default)]
struct GoArgs {
    ponder: bool,
    infinite: bool,
    time: [Option<u64>; 2],
    inc: [u64; 2],
    byoyomi: [u64; 2],
    movetime: Option<u64>,
    depth: Option<i32>,
    nodes: Option<u64>,
    /// `Some(None)`: `mate infinite` (or a bad time).
    mate: Option<Option<u64>>,
    searchmoves: Vec<Move>,
}

fn is_go_keyword(t: &str) -> bool {
    GO_KEYWORDS.contains(&t)
}

/// `parse::number`: a u64, or 0 for a negative i64, or nothing.
fn go_number(args: &[&str], i: usize) -> Option<u64> {
    let t = args.get(i)?;
    if let Ok(n) = t.parse::<u64>() {
        return Some(n);
    }
    t.parse::<i64>().ok().map(|_| 0)
}

fn parse_go(args: &[&str], pos: &Position) -> GoArgs {
    let mut g = GoArgs::default();
    let skip_bad = |i: &mut usize| {
        if args.get(*i).is_some_and(|t| !is_go_keyword(t)) {
            *i += 1;
        }
    };
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "ponder" => g.ponder = true,
            "infinite" => g.infinite = true,
            "btime" | "wtime" | "binc" | "winc" | "byoyomi" | "bbyoyomi" | "wbyoyomi" | "movetime" | "movestogo"
            | "nodes" => {
                let Some(n) = go_number(args, i) else {
                    skip_bad(&mut i);
                    continue;
                };
                i += 1;
                match key {
                    "btime" => g.time[0] = Some(n),
                    "wtime" => g.time[1] = Some(n),
                    "binc" => g.inc[0] = n,
                    "winc" => g.inc[1] = n,
                    "byoyomi" => g.byoyomi = [n, n],
                    "bbyoyomi" => g.byoyomi[0] = n,
                    "wbyoyomi" => g.byoyomi[1] = n,
                    "movetime" => g.movetime = Some(n),
                    "nodes" => g.nodes = Some(n),
                    _ => {}
                }
            }
            "depth" => match args.get(i).map(|t| t.parse::<i32>()) {
                Some(Ok(d)) if d >= 1 => {
                    g.depth = Some(d);
                    i += 1;
                }
                _ => skip_bad(&mut i),
            },
            "mate" => match args.get(i) {
                Some(&"infinite") => {
                    g.mate = Some(None);
                    i += 1;
                }
                Some(t) if t.parse::<u64>().is_ok() => {
                    g.mate = Some(t.parse().ok());
                    i += 1;
                }
                _ => {
                    g.mate = Some(None);
                    skip_bad(&mut i);
                }
            },
            "searchmoves" => {
                while let Some(t) = args.get(i).filter(|t| !is_go_keyword(t)) {
                    i += 1;
                    if let Ok(m) = pos.parse_usi_move(t) {
                        if !g.searchmoves.contains(&m) {
                            g.searchmoves.push(m);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    g
}

/// The time a clock (or `movetime`) allows, in ms, as `TimePlan::new` plans it (`None`: the
/// search has no time limit).
fn clock_budget(g: &GoArgs, us: usize) -> Option<u64> {
    if let Some(mt) = g.movetime {
        return Some(mt);
    }
    let (inc, byoyomi) = (g.inc[us], g.byoyomi[us]);
    let time = match g.time[us] {
        Some(t) => t,
        None if byoyomi > 0 || inc > 0 || g.time.iter().any(Option::is_some) => 0,
        None => return None,
    };
    Some(time.saturating_add(inc).saturating_add(byoyomi))
}

/// How long a search may take before its result is due (`None`: not waited for).
fn budget(g: &GoArgs, us: usize) -> Option<u64> {
    let mut b = clock_budget(g, us);
    if g.depth.is_some_and(|d| d <= 5) || g.nodes.is_some_and(|n| n <= 200_000) {
        b = Some(b.map_or(NOMINAL_MS, |x| x.min(NOMINAL_MS)));
    }
    b.filter(|&ms| ms <= LONGEST_WAIT_MS)
}

/// `setoption`'s name and value as `Session::cmd_setoption` cuts them.
fn setoption_parts(line: &str) -> Option<(String, Option<String>)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let name_at = tokens.iter().position(|t| t.eq_ignore_ascii_case("name"))?;
    let value_at = tokens.iter().position(|t| t.eq_ignore_ascii_case("value"));
    let name_end = value_at.filter(|&v| v > name_at).unwrap_or(tokens.len());
    let name = tokens[name_at + 1..name_end].join(" ");
    if name.is_empty() {
        return None;
    }
    let value = value_at.map(|v| {
        let mut rest = line;
        for _ in 0..=v {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            rest = &rest[end..];
        }
        rest.trim().to_string()
    });
    Some((name, value))
}

/// The position after `position`'s arguments in the game `variant`, or `None` when the engine
/// refuses it (no or a bad SFEN, a pass in check, an illegal move).
fn apply_position(args: &[&str], variant: VariantId) -> Option<Position> {
    let moves_at = args.iter().position(|t| *t == "moves").unwrap_or(args.len());
    let (head, moves) = (&args[..moves_at], args.get(moves_at + 1..).unwrap_or(&[]));
    let mut pos = match *head.first()? {
        "startpos" => Position::startpos_in(variant),
        first => {
            let sfen = if first == "sfen" { &head[1..] } else { head };
            Position::from_sfen_in(variant, &sfen.join(" ")).ok()?
        }
    };
    for m in moves {
        if m.eq_ignore_ascii_case("resign") || m.eq_ignore_ascii_case("win") {
            break;
        }
        if ["pass", "0000", "null"].iter().any(|t| m.eq_ignore_ascii_case(t)) {
            if pos.in_check() {
                return None;
            }
            pos.do_null_move();
            continue;
        }
        pos.do_move(pos.parse_usi_move(m).ok()?);
    }
    Some(pos)
}

/// A `go` whose result has not been read yet.
struct GoRec {
    line: String,
    pos: Position,
    /// For `go ponder`: the position before the last move of `position`. With
    /// `Stochastic_Ponder` (YaneuraOu's meaning) the engine ponders that position, so its
    /// PVs, and the `bestmove` after `stop`, may belong to it instead of `pos`.
    prior: Option<Position>,
    /// The position when a `ponderhit` came, if a `position` replaced `pos` meanwhile: under
    /// `Stochastic_Ponder` the `ponderhit` searches the session's position afresh (YaneuraOu
    /// repeats its last `position` and `go`), so the PVs and `bestmove` may belong to it.
    hit: Option<Position>,
    args: GoArgs,
    mate: bool,
    /// The last `position` was refused: the answer is `bestmove resign` (`go mate`:
    /// `checkmate notimplemented`).
    refused: bool,
    /// A Stochastic_Ponder `ponderhit` came while the last `position` was refused: the new
    /// search it starts answers `bestmove resign`.
    hit_refused: bool,
    /// Under `infinite`/`ponder`: no result before the command that ends the wait.
    waiting: bool,
    /// That command has been written.
    released: bool,
    /// A `ponderhit` was taken (a second one is ignored).
    ponderhit: bool,
    rule: EnteringKingRule,
    /// `ResignValue` below 99999: the search may resign with legal moves.
    may_resign: bool,
    /// The result must have arrived by then.
    due: Option<Instant>,
}

impl GoRec {
    fn release(&mut self, now: Instant) {
        self.released = true;
        self.set_due(Some(0), now);
    }

    fn set_due(&mut self, ms: Option<u64>, now: Instant) {
        if let Some(ms) = ms {
            let t = now + Duration::from_millis(ms) + LIVE;
            self.due = Some(self.due.map_or(t, |d| d.min(t)));
        }
    }
}

/// No legal move, or a declaration win: the front end answers without searching.
fn trivial(pos: &Position, rule: EnteringKingRule) -> bool {
    legal_moves(pos).is_empty() || pos.declaration_win(rule)
}

/// What the engine has been told, and what it still owes.
struct Model {
    /// The last position accepted.
    pos: Position,
    /// The last `position` was refused (the engine answers every `go` with a resignation).
    refused: bool,
    /// `USI_Variant`.
    variant: VariantId,
    rule: EnteringKingRule,
    resign_value: i128,
    quit: bool,
    gos: VecDeque<GoRec>,
    pending_ready: usize,
    pending_usi: usize,
    pending_tunables: usize,
    /// The `option` lines of the first `usi` answer.
    declared: Vec<String>,
    usi_answers: usize,
    stats: Stats,
}

/// Counts for the run summary.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    lines: usize,
    bytes: usize,
    gos: usize,
    bestmoves: usize,
    checkmates: usize,
    readyoks: usize,
    errors: usize,
    positions: usize,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.lines += o.lines;
        self.bytes += o.bytes;
        self.gos += o.gos;
        self.bestmoves += o.bestmoves;
        self.checkmates += o.checkmates;
        self.readyoks += o.readyoks;
        self.errors += o.errors;
        self.positions += o.positions;
    }
}

impl Model {
    fn new() -> Model {
        Model {
            pos: Position::startpos(),
            refused: false,
            variant: VariantId::Shogi,
            rule: EnteringKingRule::Csa27,
            resign_value: 99999,
            quit: false,
            gos: VecDeque::new(),
            pending_ready: 0,
            pending_usi: 0,
            pending_tunables: 0,
            declared: Vec::new(),
            usi_answers: 0,
            stats: Stats::default(),
        }
    }

    /// The last `go`, if its result is still owed and it waits for `stop`/`ponderhit`.
    fn waiting_go(&self) -> Option<&GoRec> {
        self.gos.back().filter(|g| g.waiting && !g.released)
    }

    /// One line the session reads.
    fn apply(&mut self, seen: Seen, now: Instant) {
        if self.quit {
            return;
        }
        let Seen::Line(line) = seen else { return };
        self.stats.lines += 1;
        if line.starts_with(TOO_LONG) {
            return;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = tokens.first() else { return };
        let args = &tokens[1..];
        match first.to_ascii_lowercase().as_str() {
            "usi" => self.pending_usi += 1,
            "isready" => self.pending_ready += 1,
            "usi_tunables" => self.pending_tunables += 1,
            "setoption" => self.setoption(&line),
            "position" => {
                self.stats.positions += 1;
                match apply_position(args, self.variant) {
                    Some(p) => {
                        self.pos = p;
                        self.refused = false;
                    }
                    None => self.refused = true,
                }
            }
            "go" => self.go(&line, args, now),
            "stop" | "gameover" => {
                if let Some(g) = self.gos.back_mut() {
                    g.release(now);
                }
            }
            "ponderhit" => self.ponderhit(args, now),
            "quit" => self.end(now),
            _ => {}
        }
    }

    /// `quit` or end of input: the session stops and answers whatever runs.
    fn end(&mut self, now: Instant) {
        self.quit = true;
        for g in &mut self.gos {
            g.release(now);
        }
    }

    fn setoption(&mut self, line: &str) {
        let Some((name, value)) = setoption_parts(line) else { return };
        let raw = value.as_deref().unwrap_or("").trim();
        if name.eq_ignore_ascii_case("EnteringKingRule") {
            self.rule = match raw.to_ascii_lowercase().as_str() {
                "noenteringking" => EnteringKingRule::None,
                "csarule24" => EnteringKingRule::Csa24,
                "csarule27" => EnteringKingRule::Csa27,
                _ => self.rule,
            };
        } else if name.eq_ignore_ascii_case("USI_Variant") || name.eq_ignore_ascii_case("UCI_Variant") {
            // A new game resets the position to its start (the engine clears its own).
            if let Ok(v) = raw.parse::<VariantId>() {
                self.variant = v;
                if self.pos.variant() != v {
                    self.pos = Position::startpos_in(v);
                }
            }
        } else if name.eq_ignore_ascii_case("ResignValue") {
            if let Ok(n) = raw.parse::<i128>() {
                self.resign_value = n.clamp(0, 99999);
            }
        }
    }

    fn go(&mut self, line: &str, args: &[&str], now: Instant) {
        // A new `go` ends the previous search first.
        if let Some(g) = self.gos.back_mut() {
            g.release(now);
        }
        let pos = self.pos.clone();
        let g = parse_go(args, &pos);
        let us = pos.side_to_move().index();
        let mate = g.mate.is_some();
        let waiting = !mate && (g.ponder || g.infinite);
        // As the session's `before_last_move`: a pass (null move) is undone too.
        let prior = Some(pos.last_move()).filter(|m| g.ponder && !mate && !self.refused && *m != engine::Move::NONE);
        let prior = prior.map(|m| {
            let mut p = pos.clone();
            if m == engine::Move::NULL {
                p.undo_null_move();
            } else {
                p.undo_move(m);
            }
            p
        });
        let mut rec = GoRec {
            line: line.chars().take(120).collect(),
            pos,
            prior,
            hit: None,
            mate,
            refused: self.refused,
            hit_refused: false,
            waiting,
            released: !waiting,
            ponderhit: false,
            rule: self.rule,
            may_resign: self.resign_value < 99999,
            due: None,
            args: g,
        };
        let ms = match rec.args.mate {
            Some(t) => t.filter(|&t| t <= LONGEST_WAIT_MS),
            None if waiting => None,
            None => budget(&rec.args, us),
        };
        rec.set_due(ms, now);
        self.stats.gos += 1;
        self.gos.push_back(rec);
    }

    fn ponderhit(&mut self, args: &[&str], now: Instant) {
        let pos = self.pos.clone();
        let refused = self.refused;
        let Some(g) = self.gos.back_mut() else { return };
        if g.mate || !g.args.ponder || g.ponderhit {
            return;
        }
        g.ponderhit = true;
        // Under Stochastic_Ponder the `ponderhit` is a new `go` on the session's position.
        g.hit_refused = refused && g.prior.is_some();
        if pos.to_sfen() != g.pos.to_sfen() {
            g.hit = Some(pos.clone());
        }
        // A held answer (no legal move, declaration) is printed at once; a search under
        // `ponder` becomes a timed search, under `ponder infinite` it still waits for stop.
        let held = g.refused || trivial(&g.pos, g.rule);
        if g.args.infinite && !held {
            return;
        }
        g.released = true;
        let us = g.pos.side_to_move().index();
        let ms = if held {
            Some(0)
        } else if args.is_empty() {
            budget(&g.args, us)
        } else {
            clock_budget(&parse_go(args, &pos), us).filter(|&ms| ms <= LONGEST_WAIT_MS)
        };
        g.set_due(ms, now);
    }

    /// Checks one stdout line against what is owed.
    fn on_line(&mut self, line: &str) -> Result<(), String> {
        if !line.is_ascii() {
            return Err(format!("non-ASCII stdout line {line:?}"));
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        let first = t.first().copied().unwrap_or("");
        match first {
            "" if line.is_empty() => Ok(()),
            "bestmove" => self.on_bestmove(line, &t),
            "checkmate" => self.on_checkmate(line, &t),
            "readyok" if t.len() == 1 => {
                self.stats.readyoks += 1;
                self.pending_ready = self.pending_ready.checked_sub(1).ok_or("readyok without isready")?;
                Ok(())
            }
            "usiok" if t.len() == 1 => {
                self.pending_usi = self.pending_usi.checked_sub(1).ok_or("usiok without usi")?;
                self.usi_answers += 1;
                Ok(())
            }
            "id" | "option" if self.pending_usi > 0 => {
                if first == "option" && self.usi_answers == 0 {
                    self.declared.push(line.to_string());
                }
                Ok(())
            }
            "usi_tunablesok" if t.len() == 1 => {
                self.pending_tunables =
                    self.pending_tunables.checked_sub(1).ok_or("usi_tunablesok without usi_tunables")?;
                Ok(())
            }
            "info" => self.on_info(line, &t),
            _ => Err(format!("not a USI line (or not expected now): {line:?}")),
        }
    }

    fn on_info(&mut self, line: &str, t: &[&str]) -> Result<(), String> {
        if t.get(1) == Some(&"string") {
            if line.starts_with("info string error:") {
                self.stats.errors += 1;
            }
            if line.contains("internal error") {
                return Err(format!("the session caught a panic: {line}"));
            }
            return Ok(());
        }
        let g = self.gos.front().ok_or_else(|| format!("search info with no go running: {line}"))?;
        if let Some(i) = t.iter().position(|x| *x == "pv") {
            let legal_from = |start: &Position| -> Result<(), String> {
                let mut p = start.clone();
                for m in &t[i + 1..] {
                    let mv = p.parse_usi_move(m).map_err(|e| {
                        format!("pv move {m} illegal in {} ({e}): {line}\n(go: {})", p.to_sfen(), g.line)
                    })?;
                    p.do_move(mv);
                }
                Ok(())
            };
            // Under Stochastic_Ponder a ponder search reports on the prior position.
            legal_from(&g.pos)
                .or_else(|e| g.prior.as_ref().map_or(Err(e.clone()), |p| legal_from(p).map_err(|_| e)))
                .or_else(|e| g.hit.as_ref().map_or(Err(e.clone()), |p| legal_from(p).map_err(|_| e)))?;
        }
        Ok(())
    }

    fn on_bestmove(&mut self, line: &str, t: &[&str]) -> Result<(), String> {
        self.stats.bestmoves += 1;
        let mut g = self.gos.pop_front().ok_or_else(|| format!("{line} without a go"))?;
        // Under Stochastic_Ponder, `stop` answers with the pondered (prior) position's move.
        let fits = |p: &Position| t.get(1).is_some_and(|m| p.parse_usi_move(m).is_ok());
        for other in [g.prior.take(), g.hit.take()].into_iter().flatten() {
            if !fits(&g.pos) && fits(&other) {
                g.pos = other;
            }
        }
        let ctx = || format!("{line}\n(go: {}; position {})", g.line, g.pos.to_sfen());
        if g.mate {
            return Err(format!("bestmove for go mate (a checkmate line was due): {}", ctx()));
        }
        if !g.released {
            return Err(format!("bestmove before stop/ponderhit under go infinite/ponder: {}", ctx()));
        }
        if !(t.len() == 2 || (t.len() == 4 && t[2] == "ponder")) {
            return Err(format!("malformed bestmove: {}", ctx()));
        }
        if g.refused && t[1..] != ["resign"] {
            return Err(format!("after a refused position, not bestmove resign: {}", ctx()));
        }
        if g.refused || (g.hit_refused && t[1..] == ["resign"]) {
            return Ok(());
        }
        let legal = legal_moves(&g.pos);
        match t[1] {
            "resign" if legal.is_empty() || g.may_resign => {}
            "resign" => return Err(format!("resigned with legal moves and ResignValue 99999: {}", ctx())),
            "win" if g.pos.declaration_win(g.rule) => {}
            "win" => return Err(format!("declared a win the rule {:?} does not allow: {}", g.rule, ctx())),
            m => {
                let mv = g.pos.parse_usi_move(m).map_err(|e| format!("illegal bestmove ({e}): {}", ctx()))?;
                if !g.args.searchmoves.is_empty() && !g.args.searchmoves.contains(&mv) {
                    return Err(format!("bestmove not among the searchmoves: {}", ctx()));
                }
                if t.len() == 4 {
                    let mut after = g.pos.clone();
                    after.do_move(mv);
                    after.parse_usi_move(t[3]).map_err(|e| format!("illegal ponder move ({e}): {}", ctx()))?;
                }
                return Ok(());
            }
        }
        if t.len() != 2 {
            return Err(format!("a ponder move after resign/win: {}", ctx()));
        }
        Ok(())
    }

    fn on_checkmate(&mut self, line: &str, t: &[&str]) -> Result<(), String> {
        self.stats.checkmates += 1;
        let g = self.gos.pop_front().ok_or_else(|| format!("{line} without a go"))?;
        let ctx = || format!("{line}\n(go: {}; position {})", g.line, g.pos.to_sfen());
        if !g.mate {
            return Err(format!("checkmate for a go that is not go mate: {}", ctx()));
        }
        if g.refused {
            return match &t[1..] {
                ["notimplemented"] => Ok(()),
                _ => Err(format!("after a refused position, not checkmate notimplemented: {}", ctx())),
            };
        }
        match &t[1..] {
            ["nomate"] | ["timeout"] => Ok(()),
            ["notimplemented"] if g.pos.variant() == VariantId::ShoShogi => Ok(()),
            [] => Err(format!("empty checkmate line: {}", ctx())),
            moves => {
                let mut p = g.pos.clone();
                for (i, m) in moves.iter().enumerate() {
                    let mv = p.parse_usi_move(m).map_err(|e| format!("illegal mate move {m} ({e}): {}", ctx()))?;
                    if i % 2 == 0 && !p.gives_check(mv) {
                        return Err(format!("mate move {m} gives no check: {}", ctx()));
                    }
                    p.do_move(mv);
                }
                if !p.in_check() || !legal_moves(&p).is_empty() {
                    return Err(format!("the mate line does not end in mate: {}", ctx()));
                }
                Ok(())
            }
        }
    }

    /// After the engine exited: nothing may be owed.
    fn check_settled(&self) -> Result<(), String> {
        if let Some(g) = self.gos.front() {
            return Err(format!(
                "{} go(s) never answered, the first: {} (position {})",
                self.gos.len(),
                g.line,
                g.pos.to_sfen()
            ));
        }
        if self.pending_ready > 0 {
            return Err(format!("{} isready never answered", self.pending_ready));
        }
        if self.pending_usi > 0 || self.pending_tunables > 0 {
            return Err("usi or usi_tunables never answered".into());
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The driver: writes, reads, checks.

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One engine process under test.
struct Driver {
    e: Engine,
    m: Model,
    split: Splitter,
    /// stdin is closed.
    closed: bool,
    seed: u64,
    config: &'static str,
    /// What was written, as escaped text (for the failure report).
    log: Vec<String>,
    dir: Scratch,
}

fn escape(bytes: &[u8], max: usize) -> String {
    let shown: String = bytes.iter().take(max).flat_map(|&b| std::ascii::escape_default(b)).map(char::from).collect();
    if bytes.len() > max {
        format!("{shown}... ({} bytes)", bytes.len())
    } else {
        shown
    }
}

impl Driver {
    fn new(seed: u64, config: &'static str, args: &[&str]) -> Driver {
        let dir = std::env::temp_dir().join(format!("kaname-fuzz-{}-{seed:x}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let e = Engine::spawn_in(Some(dir.as_path()), args);
        Driver {
            e,
            m: Model::new(),
            split: Splitter::default(),
            closed: false,
            seed,
            config,
            log: Vec::new(),
            dir: Scratch(dir),
        }
    }

    fn dir(&self) -> &Path {
        &self.dir.0
    }

    /// Fails the stream with the seed, the replay command and the conversation.
    fn fail(&self, msg: &str) -> ! {
        let mut t = String::new();
        t.push_str("--- written:\n");
        for l in &self.log {
            t.push_str(&format!("> {l}\n"));
        }
        t.push_str("--- read:\n");
        for l in &self.e.lines {
            t.push_str(&format!("< {}\n", l.chars().take(300).collect::<String>()));
        }
        t.push_str("--- stderr:\n");
        t.push_str(&self.e.stderr_text());
        let file = std::env::temp_dir().join(format!("kaname-fuzz-failure-{:x}.txt", self.seed));
        let _ = std::fs::write(&file, format!("{msg}\n{t}"));
        let tail: Vec<&str> = t.lines().collect();
        let tail = tail[tail.len().saturating_sub(150)..].join("\n");
        panic!(
            "USI fuzz failure (seed {seed}, config {config}): {msg}\n\
             replay: KANAME_FUZZ_ITERS=1 KANAME_FUZZ_SEED={seed} KANAME_FUZZ_CONFIG={config} \
             cargo test --test fuzz_usi fuzz_long -- --ignored --nocapture\n\
             whole conversation: {}\n... last lines:\n{tail}",
            file.display(),
            seed = self.seed,
            config = self.config,
        );
    }

    fn handle(&mut self, line: &str) {
        if let Err(e) = self.m.on_line(line) {
            self.fail(&e);
        }
    }

    /// Reads and checks everything that has arrived.
    fn drain(&mut self) {
        while let Some(l) = self.e.next_line(Duration::ZERO) {
            self.handle(&l);
        }
    }

    /// Reads and checks for `dur`.
    fn pump(&mut self, dur: Duration) {
        let end = Instant::now() + dur;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.e.next_line(left) {
                Some(l) => self.handle(&l),
                None => {
                    if self.e.stdout_ended() {
                        break;
                    }
                }
            }
        }
        self.drain();
    }

    /// Writes `bytes` and applies the lines they complete to the model. Everything already
    /// printed is read first, so that a result printed before a `stop` is caught.
    fn send(&mut self, bytes: &[u8]) {
        if self.closed {
            return;
        }
        self.drain();
        self.log.push(escape(bytes, 300));
        self.m.stats.bytes += bytes.len();
        let seen = self.split.feed(bytes);
        if let Err(e) = self.e.try_send_raw(bytes) {
            // After `quit` the engine may be gone.
            if !self.m.quit {
                self.fail(&format!("writing to the engine failed: {e}"));
            }
        }
        let now = Instant::now();
        for s in seen {
            self.m.apply(s, now);
        }
    }

    fn send_line(&mut self, line: &str) {
        self.send(format!("{line}\n").as_bytes());
    }

    /// Closes stdin: the session reads an unfinished line, then end of input.
    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.drain();
        self.log.push("(EOF)".into());
        self.e.close_stdin();
        self.closed = true;
        let now = Instant::now();
        if let Some(s) = self.split.eof() {
            self.m.apply(s, now);
        }
        self.m.end(now);
    }

    /// The invariants between steps: alive until quit/EOF, nothing overdue.
    fn check(&mut self) {
        self.drain();
        if !self.m.quit {
            if let Some(st) = self.e.try_exit() {
                self.drain();
                self.fail(&format!("the engine exited ({st}) before quit"));
            }
        }
        let now = Instant::now();
        if let Some(g) = self.m.gos.iter().find(|g| g.due.is_some_and(|d| d < now)) {
            let msg = format!("no result in time for {} (position {})", g.line, g.pos.to_sfen());
            self.fail(&msg);
        }
    }

    /// Waits for every result that is due (all but a search still free to run).
    fn settle(&mut self) {
        loop {
            self.drain();
            let Some(due) = self.m.gos.iter().filter_map(|g| g.due).min() else { return };
            let now = Instant::now();
            if now > due {
                self.check();
                return;
            }
            if self.e.next_line(due - now).map(|l| self.handle(&l)).is_none() && self.e.stdout_ended() {
                self.check();
                return;
            }
        }
    }

    /// Waits for the answers to every `isready` sent.
    fn await_ready(&mut self) {
        let end = Instant::now() + LIVE;
        while self.m.pending_ready > 0 && !self.m.quit {
            let Some(left) = end.checked_duration_since(Instant::now()) else {
                self.fail("no readyok in time");
            };
            match self.e.next_line(left) {
                Some(l) => self.handle(&l),
                None if self.e.stdout_ended() => self.fail("stdout ended while waiting for readyok"),
                None => {}
            }
        }
    }

    /// `usi`, and the option declarations of its answer.
    fn handshake(&mut self) -> Vec<String> {
        self.send_line("usi");
        let end = Instant::now() + LIVE;
        while self.m.pending_usi > 0 {
            let Some(left) = end.checked_duration_since(Instant::now()) else { self.fail("no usiok in time") };
            if let Some(l) = self.e.next_line(left) {
                self.handle(&l);
            } else if self.e.stdout_ended() {
                self.fail("stdout ended before usiok");
            }
        }
        self.m.declared.clone()
    }

    /// Ends the stream (sends `quit` if the stream did not end itself), waits for the exit and
    /// checks that nothing is owed.
    fn finish(mut self) -> Stats {
        if !self.m.quit {
            self.send_line("quit");
        }
        let end = Instant::now() + LIVE;
        let status = loop {
            if let Some(st) = self.e.try_exit() {
                break st;
            }
            if Instant::now() > end {
                self.fail("the engine did not exit after quit/EOF");
            }
            self.pump(Duration::from_millis(5));
        };
        while let Some(l) = self.e.next_line(Duration::from_secs(5)) {
            self.handle(&l);
        }
        if !status.success() {
            self.fail(&format!("exit status {status}"));
        }
        if let Err(e) = self.m.check_settled() {
            self.fail(&e);
        }
        let err = self.e.stderr_text();
        if let Some(l) = err.lines().find(|l| l.contains("panicked") || l.contains(" ERROR ")) {
            let msg = format!("stderr reports a problem: {l}");
            self.fail(&msg);
        }
        self.m.stats
    }
}

// ---------------------------------------------------------------------------------------------
// The generator.

/// An option as the `usi` answer declares it.
#[derive(Clone, Debug)]
struct Opt {
    name: String,
    kind: OptKind,
}

#[derive(Clone, Debug)]
enum OptKind {
    Check,
    Spin(i128, i128),
    Combo(Vec<String>),
    Button,
    Text,
}

fn parse_declaration(line: &str) -> Option<Opt> {
    let rest = line.strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let t: Vec<&str> = rest.split_whitespace().collect();
    let after = |k: &str| t.iter().position(|x| *x == k).and_then(|i| t.get(i + 1)).and_then(|v| v.parse().ok());
    let kind = match *t.first()? {
        "check" => OptKind::Check,
        "spin" => OptKind::Spin(after("min")?, after("max")?),
        "combo" => OptKind::Combo(t.windows(2).filter(|w| w[0] == "var").map(|w| w[1].to_string()).collect()),
        "button" => OptKind::Button,
        "string" | "filename" => OptKind::Text,
        _ => return None,
    };
    Some(Opt { name: name.to_string(), kind })
}

struct Gen {
    rng: Rng,
    cfg: Config,
    opts: Vec<Opt>,
    /// Per-line chance of corruption in this stream.
    chaos: f64,
    /// The game the `position` lines follow: `startpos` or `sfen <sfen>`, and its moves.
    base: String,
    start: Position,
    moves: Vec<Move>,
    game: Position,
    scratch: PathBuf,
}

fn data_path(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn moves_text(moves: &[Move]) -> String {
    moves.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
}

impl Gen {
    fn new(seed: u64, cfg: Config, opts: Vec<Opt>, scratch: PathBuf) -> Gen {
        let mut rng = Rng(seed ^ 0x005e_ed0f_5e55_1045);
        let chaos = *rng.pick(&[0.0, 0.05, 0.15, 0.3, 0.6]);
        Gen {
            rng,
            cfg,
            opts,
            chaos,
            base: "startpos".into(),
            start: Position::startpos(),
            moves: Vec::new(),
            game: Position::startpos(),
            scratch,
        }
    }

    fn num(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.range(lo, hi)
    }

    /// A byte for corruption: anything but LF.
    fn byte(&mut self) -> u8 {
        loop {
            let b = self.rng.next() as u8;
            if b != b'\n' {
                return b;
            }
        }
    }

    /// Bytes that parsers tend to trip on.
    fn noise(&mut self) -> Vec<u8> {
        let odd: &[&[u8]] = &[
            b"\xff",
            b"\xc3",
            b"\x80",
            b"\xe3\x81",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\0",
            b"\r",
            b"\t",
            b"\x0b",
            b"\x0c",
            "\u{3000}".as_bytes(),
            "\u{85}".as_bytes(),
            "\u{a0}".as_bytes(),
            "\u{200b}".as_bytes(),
            "\u{5c07}\u{68cb}".as_bytes(),
            b"+",
            b"*",
            b"-",
            b"/",
            b" ",
            b"0",
            b"9",
        ];
        if self.rng.chance(0.5) {
            self.rng.pick(odd).to_vec()
        } else {
            (0..1 + self.rng.below(4)).map(|_| self.byte()).collect()
        }
    }

    /// A random word the session knows, a number or a move.
    fn word(&mut self) -> String {
        match self.rng.below(6) {
            // Seldom `quit` (the last), which ends the stream.
            0 if self.rng.chance(0.9) => self.rng.pick(&COMMANDS[..COMMANDS.len() - 1]).to_string(),
            0 => "quit".to_string(),
            1 => self.rng.pick(GO_KEYWORDS).to_string(),
            2 => self.rng.pick(EXTREMES).to_string(),
            3 => {
                let legal = legal_moves(&self.game);
                legal.get(self.rng.below(legal.len().max(1))).map_or("7g7f".into(), Move::to_string)
            }
            4 => self
                .rng
                .pick(&["name", "value", "moves", "sfen", "startpos", "resign", "win", "pass", "0000"])
                .to_string(),
            _ => self.opts.get(self.rng.below(self.opts.len().max(1))).map_or("x".into(), |o| o.name.clone()),
        }
    }

    /// Corrupts a line (never adding LF: the framing decides where lines end).
    fn mutate(&mut self, mut b: Vec<u8>) -> Vec<u8> {
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(10) {
                0 => b.truncate(self.rng.below(b.len() + 1)),
                1 if !b.is_empty() => {
                    let i = self.rng.below(b.len());
                    b[i] = self.byte();
                }
                2 | 7 => {
                    let i = self.rng.below(b.len() + 1);
                    let ins = self.noise();
                    b.splice(i..i, ins);
                }
                3 if !b.is_empty() => {
                    let i = self.rng.below(b.len());
                    let j = (i + 1 + self.rng.below(8)).min(b.len());
                    b.drain(i..j);
                }
                4 => {
                    let mut parts: Vec<Vec<u8>> = b.split(|&c| c == b' ').map(<[u8]>::to_vec).collect();
                    let n = parts.len();
                    match self.rng.below(4) {
                        0 if n > 1 => {
                            parts.remove(self.rng.below(n));
                        }
                        1 => {
                            let i = self.rng.below(n);
                            let p = parts[i].clone();
                            parts.insert(i, p);
                        }
                        2 => {
                            let (i, j) = (self.rng.below(n), self.rng.below(n));
                            parts.swap(i, j);
                        }
                        _ => {
                            let i = self.rng.below(n + 1);
                            let w = self.word().into_bytes();
                            parts.insert(i, w);
                        }
                    }
                    b = parts.join(&b' ');
                }
                5 => match self.rng.below(3) {
                    0 => b.make_ascii_uppercase(),
                    1 => {
                        let end = b.iter().position(|&c| c == b' ').unwrap_or(b.len());
                        b[..end].make_ascii_uppercase();
                    }
                    _ => {
                        for c in b.iter_mut() {
                            if self.rng.chance(0.3) {
                                *c = if c.is_ascii_uppercase() {
                                    c.to_ascii_lowercase()
                                } else {
                                    c.to_ascii_uppercase()
                                };
                            }
                        }
                    }
                },
                6 => {
                    let sep: &[u8] =
                        self.rng.pick::<&[u8]>(&[b"\t", b"  ", b"\x0b", b"\x0c", "\u{3000}".as_bytes(), b" \r "]);
                    let mut out = Vec::new();
                    if self.rng.chance(0.5) {
                        out.extend_from_slice(sep);
                    }
                    for &c in &b {
                        if c == b' ' && self.rng.chance(0.5) {
                            out.extend_from_slice(sep);
                        } else {
                            out.push(c);
                        }
                    }
                    b = out;
                }
                8 => {
                    let copy = b.clone();
                    b.extend_from_slice(if self.rng.chance(0.5) { b" " } else { b"" });
                    b.extend_from_slice(&copy);
                }
                _ => {
                    let i = self.rng.below(b.len() + 1);
                    let w = format!(" {} ", self.word()).into_bytes();
                    b.splice(i..i, w);
                }
            }
        }
        b.retain(|&c| c != b'\n');
        b
    }

    /// Whether the session may be sent this line (see the module doc: never-sent things).
    fn safe(&self, bytes: &[u8]) -> bool {
        let line = decode(bytes.to_vec());
        if line.starts_with(TOO_LONG) {
            return true;
        }
        let Some(first) = line.split_whitespace().next() else { return true };
        let cmd = first.to_ascii_lowercase();
        if HUMAN_COMMANDS.contains(&cmd.as_str()) {
            return false;
        }
        if cmd != "setoption" {
            return true;
        }
        let Some((name, value)) = setoption_parts(&line) else { return true };
        let value = value.unwrap_or_default();
        let n = value.trim().parse::<i128>().ok();
        match name.to_ascii_lowercase().as_str() {
            "usi_hash" | "hash" | "matehash" => n.is_none_or(|n| n <= self.cfg.max_hash),
            "threads" => n.is_none_or(|n| n <= self.cfg.max_threads),
            "usilog" => !value.contains(['/', '\\', '~']) && !value.contains(".."),
            "bookfile" | "evalfile" | "evaldir" => {
                !value.contains("..")
                    && (!value.starts_with('/')
                        || value.starts_with(&*self.scratch.to_string_lossy())
                        || data_path("").starts_with(value.as_str())
                        || value.starts_with(&data_path("tests/data/"))
                        || value.starts_with(&data_path("eval/nets/"))
                        || value == data_path("README.md"))
            }
            _ => true,
        }
    }

    /// A command line: well-formed, or corrupted at this stream's rate; never an unsafe one.
    fn line(&mut self, m: &Model) -> Vec<u8> {
        loop {
            let text = self.command(m);
            let mut b = text.into_bytes();
            if self.rng.chance(self.chaos) {
                b = self.mutate(b);
            }
            if self.safe(&b) {
                return b;
            }
        }
    }

    /// A line end.
    fn end(&mut self) -> &'static [u8] {
        if self.rng.chance(0.7) {
            return b"\n";
        }
        self.rng.pick::<&[u8]>(&[b"\r\n", b"\r\r\n", b"\n\n", b" \n", b"\t\n", b"\n\r\n"])
    }

    fn command(&mut self, m: &Model) -> String {
        if let Some(g) = m.waiting_go() {
            // Do not leave a search waiting for long.
            if self.rng.chance(0.3) {
                return if g.args.ponder && self.rng.chance(0.5) { self.ponderhit() } else { "stop".into() };
            }
        }
        match self.rng.below(100) {
            0..=23 => self.go(m),
            24..=41 => self.position(m),
            42..=55 => self.setoption(),
            56..=63 => "isready".into(),
            64..=70 => "stop".into(),
            71..=74 => self.ponderhit(),
            75..=76 => "usinewgame".into(),
            77..=78 => format!("gameover {}", self.rng.pick(&["win", "lose", "draw", "", "resign", "x"])),
            79 => "usi".into(),
            80 => "usi_tunables".into(),
            81 => self
                .rng
                .pick(&["debug", "debug on", "debug off", "register later", "register name x code 1"])
                .to_string(),
            82..=85 => {
                self.rng.pick(&["", " ", "\t", "foo", "Go!", "position_", "isreadyy", "stopp", "\0x"]).to_string()
            }
            86..=91 => self.garbage(),
            92..=93 => format!("{TOO_LONG} 12"),
            _ => {
                let n = 1 + self.rng.below(8);
                (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
            }
        }
    }

    fn ponderhit(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!(
                "ponderhit btime {} wtime {} byoyomi {}",
                self.num(0, 1000),
                self.num(0, 1000),
                self.num(50, 200)
            ),
            1 => format!("ponderhit {}", self.word()),
            _ => "ponderhit".into(),
        }
    }

    /// Printable or arbitrary bytes (no LF), lossily decoded later by the session.
    fn garbage(&mut self) -> String {
        let n = self.rng.below(120);
        match self.rng.below(3) {
            0 => (0..n).map(|_| char::from(self.num(32, 126) as u8)).collect(),
            1 => String::from_utf8_lossy(&(0..n).map(|_| self.byte()).collect::<Vec<_>>()).into_owned(),
            _ => (0..n / 4).map(|_| self.word()).collect::<Vec<_>>().join(" "),
        }
    }

    fn go(&mut self, m: &Model) -> String {
        let legal = legal_moves(&m.pos);
        let some_moves = |g: &mut Gen, k: usize| -> String {
            let mut v: Vec<String> =
                (0..k).filter_map(|_| legal.get(g.rng.below(legal.len().max(1)))).map(Move::to_string).collect();
            if g.rng.chance(0.3) {
                v.push(g.rng.pick(&["1a1b", "P*5e", "7g7f", "9i9h+", "xx"]).to_string());
            }
            v.join(" ")
        };
        let clock =
            |g: &mut Gen| format!("btime {} wtime {} byoyomi {}", g.num(0, 1000), g.num(0, 1000), g.num(50, 200));
        match self.rng.below(22) {
            0..=2 => format!("go movetime {}", self.num(20, 100)),
            3 | 4 => format!("go nodes {}", self.num(1, 20000)),
            5..=7 => format!("go depth {}", self.num(1, 4)),
            8 | 9 => format!("go {}", clock(self)),
            10 => format!(
                "go btime {} wtime {} binc {} winc {}",
                self.num(0, 1500),
                self.num(0, 1500),
                self.num(0, 100),
                self.num(0, 100)
            ),
            11 | 12 => {
                let extra =
                    if self.rng.chance(0.3) { format!(" searchmoves {}", some_moves(self, 3)) } else { String::new() };
                format!("go infinite{extra}")
            }
            13 | 14 => match self.rng.below(3) {
                0 => format!("go ponder {}", clock(self)),
                1 => format!("go ponder movetime {}", self.num(20, 100)),
                _ => format!("go ponder depth {}", self.num(1, 3)),
            },
            15 => {
                if self.rng.chance(0.7) {
                    format!("go mate {}", self.num(50, 300))
                } else {
                    "go mate infinite".into()
                }
            }
            16 | 17 => {
                let k = 1 + self.rng.below(4);
                format!("go depth {} searchmoves {}", self.num(1, 3), some_moves(self, k))
            }
            18 => self
                .rng
                .pick(&[
                    "go depth 0",
                    "go depth x",
                    "go depth -3",
                    "go nodes abc",
                    "go nodes -1",
                    "go movetime",
                    "go movetime -5",
                    "go movetime 0",
                    "go btime",
                    "go mate",
                    "go mate x depth 1",
                    "go foo bar depth 1",
                    "go searchmoves",
                    "go searchmoves depth 1",
                    "go infinite ponder",
                    "go ponder infinite",
                    "go movestogo 5 movetime 40",
                    "go bbyoyomi 100 wbyoyomi 300 btime 0 wtime 0",
                    "go depth 2 nodes 500 movetime 80",
                    "go byoyomi 100",
                    "go binc 50",
                    "go winc 50 wtime 0",
                    "go",
                ])
                .to_string(),
            19 => {
                let key = *self.rng.pick(GO_KEYWORDS);
                let v = *self.rng.pick(EXTREMES);
                let key2 = *self.rng.pick(GO_KEYWORDS);
                let v2 = *self.rng.pick(EXTREMES);
                format!("go {key} {v} {key2} {v2}")
            }
            20 => {
                let v = *self.rng.pick(EXTREMES);
                format!("go btime {v} wtime {v} byoyomi {v} binc {v} winc {v}")
            }
            _ => {
                let depth = self.num(1, 3);
                format!("go depth {depth} searchmoves {}", some_moves(self, 1))
            }
        }
    }

    /// An SFEN: from the pool, a random playout, a random board, an odd move number, or
    /// corrupted.
    fn sfen(&mut self) -> String {
        let p = pool();
        match self.rng.below(10) {
            0..=2 => self.rng.pick(&p.sfens).clone(),
            3 => self.rng.pick(&p.mates).clone(),
            4 => self.rng.pick(&p.specials).clone(),
            5 => {
                let plies = self.rng.below(120);
                random_game(&mut self.rng, &Position::startpos(), plies).0.to_sfen()
            }
            6 => self.random_board(),
            7 => {
                let s = self.rng.pick(&p.sfens).clone();
                let head: Vec<&str> = s.split(' ').take(3).collect();
                let ply = *self.rng.pick(&[
                    "0",
                    "1",
                    "99",
                    "65535",
                    "2147483647",
                    "2147483648",
                    "4294967294",
                    "4294967295",
                    "4294967296",
                    "-1",
                    "+3",
                    "x",
                    "",
                    "1 2",
                ]);
                format!("{} {ply}", head.join(" "))
            }
            _ => {
                let s = self.rng.pick(&p.sfens).clone();
                String::from_utf8_lossy(&self.mutate(s.into_bytes())).into_owned()
            }
        }
    }

    /// A board of random pieces (mostly rejected: wrong king count, dead pieces, nifu ...).
    fn random_board(&mut self) -> String {
        let mut ranks = Vec::new();
        for _ in 0..9 {
            let mut r = String::new();
            let mut empty = 0;
            for _ in 0..9 {
                if self.rng.chance(0.15) {
                    if empty > 0 {
                        r.push_str(&empty.to_string());
                        empty = 0;
                    }
                    if self.rng.chance(0.2) {
                        r.push('+');
                    }
                    r.push(
                        *self
                            .rng
                            .pick(&['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K', 'p', 'l', 'n', 's', 'g', 'b', 'r', 'k']),
                    );
                } else {
                    empty += 1;
                }
            }
            if empty > 0 {
                r.push_str(&empty.to_string());
            }
            ranks.push(r);
        }
        let hands =
            self.rng.pick(&["-", "P", "2p", "RBGSNLP", "18P", "19P", "K", "0P", "p2", "S2s", "10G"]).to_string();
        format!("{} {} {hands} {}", ranks.join("/"), self.rng.pick(&["b", "w", "x"]), self.num(1, 300))
    }

    /// Starts a new game for the `position` lines.
    fn new_game(&mut self) {
        let p = pool();
        let sfen = match self.rng.below(4) {
            0 | 1 => None,
            2 => Some(self.rng.pick(&p.sfens).clone()),
            _ => Some(self.rng.pick(&p.specials).clone()),
        };
        match sfen.and_then(|s| Position::from_sfen(&s).ok().map(|p| (s, p))) {
            Some((s, pos)) => {
                self.base = format!("sfen {s}");
                self.start = pos;
            }
            None => {
                self.base = "startpos".into();
                self.start = Position::startpos();
            }
        }
        self.moves.clear();
        self.game = self.start.clone();
    }

    fn game_line(&mut self, moves: &str) -> String {
        if moves.is_empty() && self.rng.chance(0.5) {
            format!("position {}", self.base)
        } else {
            format!("position {} moves {moves}", self.base)
        }
    }

    fn position(&mut self, m: &Model) -> String {
        match self.rng.below(20) {
            0..=7 => {
                // The game goes on by one or two plies.
                for _ in 0..1 + self.rng.below(2) {
                    let legal = legal_moves(&self.game);
                    if legal.is_empty() {
                        self.new_game();
                        break;
                    }
                    let mv = *self.rng.pick(&legal);
                    self.game.do_move(mv);
                    self.moves.push(mv);
                }
                self.game_line(&moves_text(&self.moves))
            }
            8 | 9 => {
                self.new_game();
                self.game_line("")
            }
            10 | 11 => {
                let s = self.sfen();
                if self.rng.chance(0.3) {
                    format!("position {s}")
                } else {
                    format!("position sfen {s}")
                }
            }
            12 | 13 => {
                // An illegal move somewhere in the list (the position is refused).
                let mut words: Vec<String> = self.moves.iter().map(Move::to_string).collect();
                let bad = self
                    .rng
                    .pick(&["7g7f", "1a1b", "P*5e", "5i5h+", "9i9h", "xyz", "G*1a", "8h2b", "7g7f7f"])
                    .to_string();
                let i = self.rng.below(words.len() + 1);
                words.insert(i, bad);
                let extra = legal_moves(&self.game).first().map(Move::to_string).unwrap_or_default();
                words.push(extra);
                self.game_line(&words.join(" "))
            }
            14 => {
                let mut words: Vec<String> = self.moves.iter().map(Move::to_string).collect();
                let tok = self.rng.pick(&["resign", "win", "pass", "0000", "null", "PASS", "Resign"]).to_string();
                let i = self.rng.below(words.len() + 1);
                words.insert(i, tok);
                self.game_line(&words.join(" "))
            }
            15 => {
                // A long game.
                let start = if self.rng.chance(0.5) { Position::startpos() } else { m.pos.clone() };
                let plies = 100 + self.rng.below(300);
                let (_, moves) = random_game(&mut self.rng, &start, plies);
                if start.to_sfen() == Position::startpos().to_sfen() {
                    format!("position startpos moves {}", moves_text(&moves))
                } else {
                    format!("position sfen {} moves {}", start.to_sfen(), moves_text(&moves))
                }
            }
            16 => {
                let n = 1 + self.rng.below(400);
                let nulls = vec!["0000"; n].join(" ");
                format!("position {} moves {nulls}", self.base)
            }
            _ => self
                .rng
                .pick(&[
                    "position",
                    "position sfen",
                    "position startpos extra words",
                    "position moves 7g7f",
                    "position startpos moves",
                    "position startpos moves 7g7f 3c3d moves 2g2f",
                    "position startpos MOVES 7g7f",
                    "position STARTPOS",
                    "position sfen lnsgkgsnl/9 b - 1",
                    "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h 5a5b 5h5i",
                    "position 4k4/9/9/9/9/9/9/9/4K4 w - 1 moves 5a4b",
                    "position sfen 8k/9/9/9/9/9/9/9/K8 b - 1 moves 9i9h 1a1b 9h9i 1b1a 9i9h 1a1b 9h9i 1b1a",
                ])
                .to_string(),
        }
    }

    fn setoption(&mut self) -> String {
        if self.opts.is_empty() || self.rng.chance(0.08) {
            return self
                .rng
                .pick(&[
                    "setoption",
                    "setoption name",
                    "setoption name value 3",
                    "setoption value 3",
                    "setoption name Nope value 1",
                    "setoption name Tune_rfp_margin value 150",
                    "setoption name tune_RFP_margin value 999999",
                    "setoption name Tune_nothing value 1",
                    "setoption name Clear Hash",
                    "setoption name Hash value 8",
                    "setoption name USI_MultiPV value 2",
                    "setoption MultiPV 3",
                    "setoption name MultiPV 3",
                    "setoption value 2 name MultiPV",
                    "setoption name Threads value",
                ])
                .to_string();
        }
        let opt = self.rng.pick(&self.opts).clone();
        let mut name = opt.name.clone();
        if self.rng.chance(0.1) {
            name = name.to_ascii_lowercase();
        }
        let lname = opt.name.to_ascii_lowercase();
        let value: Option<String> = match &opt.kind {
            OptKind::Check => Some(self.rng.pick(&["true", "false", "TRUE", "False", "yes", "1", ""]).to_string()),
            OptKind::Spin(lo, hi) => {
                let cap = match lname.as_str() {
                    "usi_hash" | "matehash" => Some(self.cfg.max_hash),
                    "threads" => Some(self.cfg.max_threads),
                    _ => None,
                };
                let hi = cap.map_or(*hi, |c| c.min(*hi));
                let (lo, hi) = (*lo, hi.max(*lo));
                Some(match self.rng.below(11) {
                    0..=3 => (lo + (self.rng.next() as i128).rem_euclid(hi - lo + 1)).to_string(),
                    // Small values matter most (DepthLimit 1, MaxMovesToDraw 3, ...).
                    4 | 10 => (lo + self.rng.below(17) as i128).min(hi).to_string(),
                    5 => lo.to_string(),
                    6 => hi.to_string(),
                    7 if cap.is_none() => self.rng.pick(EXTREMES).to_string(),
                    8 if cap.is_none() => (hi + 1).to_string(),
                    _ => self.rng.pick(&["x", "", "1.5", "-", "0x10", "lo", "+1"]).to_string(),
                })
            }
            OptKind::Combo(vars) => Some(match self.rng.below(4) {
                0 => "nope".to_string(),
                1 => self.rng.pick(vars).to_ascii_lowercase(),
                _ => self.rng.pick(vars).clone(),
            }),
            OptKind::Button => self.rng.chance(0.2).then(|| "1".to_string()),
            OptKind::Text => Some(match lname.as_str() {
                "usilog" => {
                    self.rng.pick(&["<empty>", "usi.log", "logs/usi.log", "", "a b.log", "usi.log"]).to_string()
                }
                "bookfile" => {
                    let tiny = data_path("tests/data/books/tiny.db");
                    let bad = data_path("tests/data/books/bad.db");
                    let readme = data_path("README.md");
                    let dir = self.scratch.to_string_lossy().into_owned();
                    self.rng.pick(&[tiny.clone(), tiny, bad, readme, dir, "nope.db".into(), "<empty>".into()]).clone()
                }
                "evalfile" => {
                    let net = data_path("eval/nets/default.knn");
                    let bad = data_path("tests/data/books/tiny.db");
                    let readme = data_path("README.md");
                    self.rng.pick(&[net, bad, readme, "nope.knn".into(), "<empty>".into(), "<empty>".into()]).clone()
                }
                _ => self.garbage(),
            }),
        };
        match value {
            Some(v) => format!("setoption name {name} value {v}"),
            None => format!("setoption name {name}"),
        }
    }

    /// One line longer than usual: 20 KB to 200 KB of words after a command.
    fn long_line(&mut self) -> Vec<u8> {
        let target = 20_000 + self.rng.below(180_000);
        let mut s = match self.rng.below(3) {
            0 => "go ".to_string(),
            1 => format!("position {} moves ", self.base),
            _ => "setoption name MultiPV value ".to_string(),
        };
        while s.len() < target {
            s.push_str(&self.word());
            s.push(' ');
        }
        s.into_bytes()
    }
}

// ---------------------------------------------------------------------------------------------
// Streams.

/// One seeded stream against a fresh engine.
fn run_stream(seed: u64, cfg: Config) -> Stats {
    println!("fuzz stream seed {seed} ({})", cfg.name);
    let start = Instant::now();
    let mut rng = Rng(seed);
    let tune = rng.chance(0.2);
    let mut d = Driver::new(seed, cfg.name, if tune { &["--tune"] } else { &[] });
    let opts: Vec<Opt> = d.handshake().iter().filter_map(|l| parse_declaration(l)).collect();
    assert!(opts.len() >= 20, "the usi answer declares {} options", opts.len());
    let mut g = Gen::new(seed, cfg, opts, d.dir().to_path_buf());
    // A small table, always: the machine is shared.
    let hash = g.num(1, 16);
    d.send_line(&format!("setoption name USI_Hash value {hash}"));
    d.send_line(&format!("setoption name MateHash value {}", g.num(1, 16)));
    if g.rng.chance(0.7) {
        d.send_line("isready");
        d.await_ready();
    }
    let steps = cfg.steps / 2 + g.rng.below(cfg.steps + 1);
    for _ in 0..steps {
        if d.m.quit {
            break;
        }
        if g.rng.chance(cfg.huge_line_chance) {
            let mut b = b"go depth 1 ".to_vec();
            b.resize(MAX_LINE + 1 + g.rng.below(100), b'y');
            b.push(b'\n');
            d.send(&b);
        }
        match g.rng.below(100) {
            0..=54 => {
                let mut b = g.line(&d.m);
                b.extend_from_slice(g.end());
                d.send(&b);
            }
            55..=61 => {
                // Several lines in one write.
                let mut b = Vec::new();
                for _ in 0..2 + g.rng.below(5) {
                    b.extend(g.line(&d.m));
                    b.extend_from_slice(g.end());
                }
                d.send(&b);
            }
            62..=65 => {
                // A line in two writes.
                let mut b = g.line(&d.m);
                b.extend_from_slice(g.end());
                let cut = g.rng.below(b.len() + 1);
                d.send(&b[..cut]);
                d.pump(Duration::from_millis(g.num(0, 30)));
                d.send(&b[cut..]);
            }
            66..=73 => {
                let ms = if g.rng.chance(0.8) { g.num(0, 40) } else { g.num(50, 250) };
                d.pump(Duration::from_millis(ms));
            }
            74..=78 => d.settle(),
            79..=83 => {
                d.send_line("isready");
                d.await_ready();
            }
            84..=86 => {
                let mut b = g.long_line();
                if g.safe(&b) {
                    b.push(b'\n');
                    d.send(&b);
                }
            }
            _ => scenario(&mut d, &mut g),
        }
        d.check();
    }
    // The end: quit, quit and more, or end of input (at a line end or inside a line).
    if !d.m.quit {
        if g.rng.chance(0.3) {
            d.send_line("stop");
        }
        match g.rng.below(8) {
            0..=3 => d.send_line("quit"),
            4 => d.send(b"quit\ngo depth 1\nisready\nposition startpos moves 7g7f\n"),
            5 => d.close(),
            6 => {
                let tail = g.line(&d.m);
                d.send(&tail);
                d.close();
            }
            _ => {
                d.send(b"quit");
                d.close();
            }
        }
    }
    let stats = d.finish();
    println!("  {:.1} s: {stats:?}", start.elapsed().as_secs_f64());
    stats
}

/// A few commands in the orders GUIs (and broken GUIs) send them.
fn scenario(d: &mut Driver, g: &mut Gen) {
    let wait = |d: &mut Driver, g: &mut Gen| {
        let ms = g.num(0, 200);
        d.pump(Duration::from_millis(ms));
    };
    match g.rng.below(10) {
        0 => {
            d.send_line("go infinite");
            wait(d, g);
            if g.rng.chance(0.5) {
                d.send_line("isready");
            }
            d.send_line("stop");
        }
        1 => {
            let go = format!("go ponder btime {} wtime {} byoyomi {}", g.num(0, 500), g.num(0, 500), g.num(50, 200));
            d.send_line(&go);
            wait(d, g);
            let hit = g.ponderhit();
            d.send_line(&hit);
            match g.rng.below(3) {
                0 => d.send_line("stop"),
                // After ponderhit the search must end by itself.
                1 => d.settle(),
                _ => {}
            }
        }
        2 => {
            // Ponder miss: stop, the real move, a new search.
            d.send_line("go ponder depth 3");
            wait(d, g);
            d.send_line("stop");
            let p = g.position(&d.m);
            d.send_line(&p);
            d.send_line(&format!("go movetime {}", g.num(20, 80)));
        }
        3 => {
            // go during a search.
            let a = g.go(&d.m);
            let b = g.go(&d.m);
            d.send_line(&a);
            if g.rng.chance(0.5) {
                wait(d, g);
            }
            d.send_line(&b);
        }
        4 => {
            d.send_line("go depth 4");
            let n = g.num(1, 4);
            d.send(format!("isready\nsetoption name MultiPV value {n}\n").as_bytes());
            let p = g.position(&d.m);
            d.send_line(&p);
            d.send_line("stop");
        }
        5 => {
            let mates = &pool().mates;
            let s = g.rng.pick(mates).clone();
            d.send_line(&format!("position sfen {s}"));
            if g.rng.chance(0.5) {
                d.send_line(&format!("go mate {}", g.num(50, 500)));
            } else {
                d.send_line("go mate infinite");
                wait(d, g);
                d.send_line("stop");
            }
        }
        6 => {
            d.send_line("go infinite");
            wait(d, g);
            let r = *g.rng.pick(&["win", "lose", "draw"]);
            d.send(format!("gameover {r}\nusinewgame\nisready\n").as_bytes());
        }
        7 => {
            // Answers the front end knows without searching (no legal move, a declaration win),
            // or a search that ends by itself, must still wait for stop/ponderhit.
            let s = *g.rng.pick(&[MATED, DECLARE_BLACK, DECLARE_WHITE, START_SFEN]);
            d.send_line(&format!("position sfen {s}"));
            let go = *g.rng.pick(&[
                "go infinite",
                "go ponder",
                "go ponder infinite",
                "go infinite movetime 30",
                "go ponder depth 1",
                "go infinite depth 1",
                "go ponder nodes 100",
            ]);
            d.send_line(go);
            let ms = g.num(30, 200);
            d.pump(Duration::from_millis(ms));
            let end = *g.rng.pick(&["stop", "ponderhit", "gameover lose", "go depth 1"]);
            d.send_line(end);
        }
        8 => {
            // A book move under ponder is held too.
            d.send_line(&format!("setoption name BookFile value {}", data_path("tests/data/books/tiny.db")));
            d.send_line("setoption name USI_OwnBook value true");
            d.send_line(g.rng.pick::<&str>(&["position startpos moves 7g7f", "position startpos moves 7g7f 3c3d"]));
            d.send_line(
                g.rng.pick::<&str>(&["go ponder btime 0 wtime 0 byoyomi 100", "go btime 0 wtime 0 byoyomi 100"]),
            );
            let ms = g.num(30, 200);
            d.pump(Duration::from_millis(ms));
            d.send_line(g.rng.pick::<&str>(&["ponderhit", "stop"]));
        }
        _ => {
            // A game move with a real clock.
            let p = g.position(&d.m);
            d.send_line(&p);
            d.send_line(&format!("go btime {} wtime {} byoyomi {}", g.num(0, 300), g.num(0, 300), g.num(50, 150)));
            d.settle();
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name} must be a number")))
}

#[test]
fn fuzz_quick() {
    let start = Instant::now();
    let mut total = Stats::default();
    let mut seeds: Vec<u64> = (0..8).map(|i| 0x4b61_6e61_6d65_0000 + i).collect();
    seeds.extend(REGRESSION_SEEDS.iter().filter(|s| !seeds.contains(s)).collect::<Vec<_>>());
    for &seed in &seeds {
        total += run_stream(seed, QUICK);
    }
    println!("{} streams in {:.1} s: {total:?}", seeds.len(), start.elapsed().as_secs_f64());
    assert!(total.bestmoves > 20 && total.readyoks > 5, "the streams did too little: {total:?}");
}

#[test]
#[ignore = "long run: KANAME_FUZZ_ITERS=N [KANAME_FUZZ_SEED=S] cargo test --test fuzz_usi fuzz_long -- --ignored"]
fn fuzz_long() {
    let iters = env_u64("KANAME_FUZZ_ITERS").unwrap_or(50);
    let seed = env_u64("KANAME_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let cfg = match std::env::var("KANAME_FUZZ_CONFIG").as_deref() {
        Ok("quick") => QUICK,
        _ => LONG,
    };
    println!("KANAME_FUZZ_SEED={seed} KANAME_FUZZ_ITERS={iters} ({})", cfg.name);
    let start = Instant::now();
    let mut total = Stats::default();
    for i in 0..iters {
        total += run_stream(seed.wrapping_add(i), cfg);
    }
    println!("{iters} streams in {:.1} s: {total:?}", start.elapsed().as_secs_f64());
}

#[test]
fn the_special_positions_are_what_they_claim() {
    let mated = Position::from_sfen(MATED).unwrap();
    assert!(legal_moves(&mated).is_empty());
    for s in [DECLARE_BLACK, DECLARE_WHITE] {
        let p = Position::from_sfen(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert!(p.declaration_win(EnteringKingRule::Csa27), "{s}");
        assert!(p.declaration_win(EnteringKingRule::Csa24), "{s}");
        assert!(!p.declaration_win(EnteringKingRule::None), "{s}");
    }
    for s in &pool().specials {
        Position::from_sfen(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    assert!(pool().sfens.len() > 100 && pool().mates.len() > 20);
}

#[test]
fn the_mirror_reads_lines_as_the_session_does() {
    let mut s = Splitter::default();
    let seen = s.feed(b"usi\r\nis\xffready\n\nposition startpos\r\r\nlast");
    let lines: Vec<String> = seen
        .into_iter()
        .map(|x| match x {
            Seen::Line(l) => l,
            Seen::TooLong => "<too long>".into(),
        })
        .collect();
    assert_eq!(lines, ["usi", "is\u{fffd}ready", "", "position startpos\r"]);
    assert!(matches!(s.eof(), Some(Seen::Line(l)) if l == "last"));
    assert!(s.eof().is_none());
    let mut big = vec![b'x'; MAX_LINE];
    big.push(b'\r');
    assert!(matches!(&s.feed(&big)[..], []));
    assert!(matches!(&s.feed(b"\nok\n")[..], [Seen::TooLong, Seen::Line(l)] if l == "ok"));
    let pos = Position::startpos();
    let g = parse_go(&["btime", "wtime", "5", "infinite", "searchmoves", "7g7f", "1a1b", "depth", "2"], &pos);
    assert_eq!(g.time, [None, Some(5)]);
    assert!(g.infinite && g.depth == Some(2) && g.searchmoves.len() == 1);
    let g = parse_go(&["mate", "x", "movetime", "-3"], &pos);
    assert_eq!((g.mate, g.movetime), (Some(None), Some(0)));
    assert_eq!(
        setoption_parts("setoption  name UsiLog value /tmp/my logs/usi.log "),
        Some(("UsiLog".to_string(), Some("/tmp/my logs/usi.log".to_string())))
    );
    assert_eq!(setoption_parts("setoption name Clear Hash"), Some(("Clear Hash".to_string(), None)));
    // An illegal move refuses the position (the legal prefix is another position).
    assert!(apply_position(&["startpos", "moves", "7g7f", "3c3d", "9a9b", "2g2f"], VariantId::Shogi).is_none());
    let p = apply_position(&["startpos", "moves", "7g7f", "3c3d", "resign", "2g2f"], VariantId::Shogi).unwrap();
    assert_eq!(p.game_ply(), 3);
    assert!(apply_position(&["sfen", "lnsgkgsnl/9", "b", "-", "1"], VariantId::Shogi).is_none());
}

// ---------------------------------------------------------------------------------------------
// Regression tests: every failure the fuzzers found, as the shortest command sequence that
// showed it, run through the same checks as a stream.

/// Sends `lines` (each with LF) to a fresh engine with the stream checks after each, waits for
/// every result that is due, then quits and checks that nothing is owed.
fn replay_script(id: u64, lines: &[&str]) {
    let mut d = Driver::new(id, "regression", &[]);
    d.handshake();
    d.send_line("setoption name USI_Hash value 4");
    for l in lines {
        d.send_line(l);
        d.check();
    }
    d.settle();
    d.finish();
}

/// Found by `fuzz_quick` (seed 5431743990311747585): clocks near `u64::MAX` overflowed
/// `TimePlan::new` ("internal error while handling 'go'"; a wrapped plan in release builds).
#[test]
fn regression_go_with_clocks_near_u64_max() {
    let max = u64::MAX;
    replay_script(
        1,
        &[
            &format!("go btime {max} wtime {max} byoyomi {max} binc {max} winc {max} infinite"),
            "stop",
            &format!("go btime -2147483648 wtime {max} byoyomi 1 movetime 50"),
            "go ponder btime 0 wtime 0 byoyomi 100",
            &format!("ponderhit btime {max} wtime {max} binc {max}"),
            "stop",
        ],
    );
}

/// Found by the SFEN parser fuzzer (`engine/tests/fuzz_parsers.rs`): a move number near
/// `u32::MAX` was kept, and the search's first move overflowed the ply counter (a panic in
/// the search thread, "the search ended without a result", a fallback move).
#[test]
fn regression_sfen_move_number_near_u32_max_then_go() {
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL";
    replay_script(
        2,
        &[
            &format!("position sfen {start} b - 4294967295 moves 7g7f"),
            "go depth 3",
            &format!("position sfen {start} w - 4294967295"),
            "go movetime 50",
        ],
    );
}

/// The options the engine declares, which the streams draw from, are the README's "Options"
/// table, in its order, with its types and ranges.
#[test]
fn declared_options_are_the_readme_table() {
    let readme = std::fs::read_to_string(data_path("README.md")).expect("README.md");
    let rows: Vec<Vec<String>> = readme
        .lines()
        .skip_while(|l| !l.starts_with("## Options"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
        .collect();
    let mut d = Driver::new(3, "regression", &[]);
    let declared: Vec<Opt> = d.handshake().iter().filter_map(|l| parse_declaration(l)).collect();
    d.finish();
    assert_eq!(declared.len(), rows.len(), "{declared:?}");
    for (row, o) in rows.iter().zip(&declared) {
        let (name, ty, range) = (row[1].split('`').nth(1).unwrap(), row[2].as_str(), row[4].as_str());
        assert_eq!(name, o.name, "{row:?}");
        let (want_ty, want_range) = match &o.kind {
            OptKind::Check => ("check", String::new()),
            OptKind::Spin(lo, hi) => ("spin", format!("{lo}..{hi}")),
            OptKind::Combo(vars) => ("combo", vars.join(", ")),
            OptKind::Button => ("button", String::new()),
            OptKind::Text => ("string", String::new()),
        };
        assert_eq!((ty, range), (want_ty, want_range.as_str()), "{row:?}");
    }
}
