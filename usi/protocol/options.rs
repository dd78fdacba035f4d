//! The engine options: one table from which the `usi` declarations, `setoption` parsing,
//! applying a value and the README's options table are all produced. The defaults of the
//! options the search reads are its crate's (`search::Options::DEFAULT`), those of the book's
//! `BookOptions::DEFAULT` (below, beside the struct the book reads), read into the table, so
//! that each is written once.

use crate::protocol::ascii;
use engine::EnteringKingRule;
use search::tune::{Tunable, TUNABLES};
use std::fmt::Write as _;

/// The type of an option, with its default and limits.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `type check default <bool>`.
    Check(bool),
    /// `type spin default <d> min <lo> max <hi>`.
    Spin { default: i64, min: i64, max: i64 },
    /// `type combo default <d> var <v>...`.
    Combo { default: &'static str, vars: &'static [&'static str] },
    /// `type button`.
    Button,
    /// `type string default <d>` (`<empty>` when `d` is empty).
    Text(&'static str),
}

/// One option of the table.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The name as declared (USI names are case-insensitive and contain no spaces).
    pub name: &'static str,
    /// Other names accepted by `setoption`.
    pub aliases: &'static [&'static str],
    /// Type, default and range.
    pub kind: Kind,
    /// Stores a value of this option (of its kind, as `parse` gives it) into the settings.
    pub apply: fn(&mut Settings, &Value),
    /// One line for the README.
    pub help: &'static str,
}

const ENTERING_KING_VARS: &[&str] =
    &["NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"];
const EVAL_KIND_VARS: &[&str] = &["net", "classical"];
const VARIANT_VARS: &[&str] = &["shogi", "minishogi", "shoshogi"];
/// The largest integer a GUI written in JavaScript (ShogiHome) holds exactly, 2^53 - 1
/// (`Number.MAX_SAFE_INTEGER`): every spin's range stays within plus or minus this, or the GUI
/// would show and send back another number (9223372036854775807 becomes 9223372036854776000).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;
/// The defaults of the options the search reads.
const SEARCH: search::Options = search::Options::DEFAULT;
/// The defaults of the `Book*` options.
const BOOK: BookOptions = BookOptions::DEFAULT;

/// Every option, in the order `usi` declares them.
pub const OPTIONS: &[Spec] = &[
    Spec {
        name: "USI_Hash",
        aliases: &["Hash"],
        kind: Kind::Spin { default: SEARCH.hash_mb as i64, min: 1, max: 65536 },
        apply: |s, v| s.search.hash_mb = v.int() as usize,
        help: "Transposition table size in MiB; resized on the next `isready` (or `go`). At most half of the \
               memory available then (Linux's `MemAvailable`, a container's or control group's memory limit, \
               `ulimit -v`; Windows' available memory), the rest left to the OS, the GUI and a second engine; \
               an `info string` says when the table was cut so. `readyok` comes within about a second whatever \
               the size: the table's pages are mapped for at most 0.7 s, and if that was not all of them, the \
               search uses the mapped part while a background thread of the lowest priority maps the rest \
               (leaving pages to fault in during the search ran it at under 1% of its speed on our VMs). On \
               Linux the table (and each thread's continuation history) asks for transparent huge pages \
               (`madvise`), which made the search about 20% faster on our machines.",
    },
    Spec {
        name: "USI_Ponder",
        aliases: &[],
        kind: Kind::Check(SEARCH.usi_ponder),
        apply: |s, v| s.search.usi_ponder = v.flag(),
        help: "The GUI may send `go ponder`; only affects time planning.",
    },
    Spec {
        name: "Stochastic_Ponder",
        aliases: &[],
        kind: Kind::Check(SEARCH.stochastic_ponder),
        apply: |s, v| s.search.stochastic_ponder = v.flag(),
        help: "YaneuraOu's stochastic pondering: `go ponder` searches the position before the last move of \
               `position` (before the opponent's expected reply, so the search covers every reply); \
               `ponderhit` stops that search without a `bestmove` and searches the position sent afresh, \
               with the clock of the `ponderhit` when it has one, else of the `go ponder`. The time plan \
               then gives pondering no bonus. After `stop` (a ponder miss) the `bestmove` is the one found \
               for the position searched, a move of the opponent's, which the GUI discards.",
    },
    Spec {
        name: "Threads",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.threads as i64, min: 1, max: 256 },
        apply: |s, v| s.search.threads = v.int() as usize,
        help: "Search threads, each with about 14 MB of tables of its own. With more than the machine can hold, the search runs with the threads it could give memory and start; an `info string` at `isready` says when memory was short.",
    },
    Spec {
        name: "MultiPV",
        aliases: &["USI_MultiPV"],
        kind: Kind::Spin { default: SEARCH.multipv as i64, min: 1, max: 600 },
        apply: |s, v| s.search.multipv = v.int() as usize,
        help: "Number of best lines reported (analysis); `USI_MultiPV` is accepted as an alias.",
    },
    Spec {
        name: "PvInterval",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.pv_interval as i64, min: 0, max: 100_000_000 },
        apply: |s, v| s.search.pv_interval = v.int() as u64,
        help: "Least time in ms between two PV `info` lines during a search, counted from `go`; 0 = one per \
               iteration. The last completed iteration's lines are always printed before `bestmove`. Not \
               applied under `go infinite` or `ConsiderationMode`. YaneuraOu's default is 300; Kaname's 0 \
               keeps its line per iteration.",
    },
    Spec {
        name: "ConsiderationMode",
        aliases: &[],
        kind: Kind::Check(SEARCH.consideration_mode),
        apply: |s, v| s.search.consideration_mode = v.flag(),
        help: "Analysis mode (YaneuraOu's): every PV is continued with the hash table's moves to its end \
               (or to a repetition), `PvInterval` is not applied, and with `OutputFailLHPV` the PVs of \
               aspiration fail-highs and fail-lows are printed at once (otherwise only after 3 s of search).",
    },
    Spec {
        name: "OutputFailLHPV",
        aliases: &[],
        kind: Kind::Check(SEARCH.output_fail_lh_pv),
        apply: |s, v| s.search.output_fail_lh_pv = v.flag(),
        help: "Print the PVs of aspiration fail-highs and fail-lows (`lowerbound`/`upperbound`; the failing \
               line alone, under MultiPV too) during a search (after 3 s, or at once in `ConsiderationMode`). \
               False: no `info` line carries a bound. Either way the last `info` before `bestmove` is exact: \
               the last completed iteration's line, or the line of a move the cut-off iteration found \
               better.",
    },
    Spec {
        name: "NetworkDelay",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.network_delay as i64, min: 0, max: 10000 },
        apply: |s, v| s.search.network_delay = v.int() as u64,
        help: "Average GUI/network lag in ms, subtracted when planning the time of a move.",
    },
    Spec {
        name: "NetworkDelay2",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.network_delay2 as i64, min: 0, max: 10000 },
        apply: |s, v| s.search.network_delay2 = v.int() as u64,
        help: "Worst-case lag in ms: the hard limit is the remaining time plus byoyomi minus this.",
    },
    Spec {
        name: "MinimumThinkingTime",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.minimum_thinking_time as i64, min: 1000, max: 100000 },
        apply: |s, v| s.search.minimum_thinking_time = v.int() as u64,
        help: "Minimum time per move in ms (YaneuraOu semantics: max(this - NetworkDelay, 1000)), except on a clock counted in milliseconds (sudden death, or a byoyomi or increment of part of a second), where it is never more than the clock's share of a move: a second a move would run a short sudden-death clock out.",
    },
    Spec {
        name: "SlowMover",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.slow_mover as i64, min: 1, max: 1000 },
        apply: |s, v| s.search.slow_mover = v.int() as u64,
        help: "Percentage applied to the planned time per move.",
    },
    Spec {
        name: "RoundUpToFullSecond",
        aliases: &[],
        kind: Kind::Check(SEARCH.round_up_to_full_second),
        apply: |s, v| s.search.round_up_to_full_second = v.flag(),
        help: "When the clock counts whole seconds (byoyomi or increments, each a whole number of seconds), \
               think to the end of the current second less `NetworkDelay` rather than stopping mid-second, and at \
               least 1000 ms. A byoyomi or increment with a fraction of a second is a millisecond clock and is \
               never rounded. False: no rounding, and the only floor is `MinimumThinkingTime` less `NetworkDelay`.",
    },
    Spec {
        name: "MaxMovesToDraw",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.max_moves_to_draw as i64, min: 0, max: 100000 },
        apply: |s, v| s.search.max_moves_to_draw = v.int() as u32,
        help: "The game is a draw after this many plies; 0 = no limit.",
    },
    Spec {
        name: "EnteringKingRule",
        aliases: &[],
        kind: Kind::Combo { default: SEARCH.entering_king_rule.name(), vars: ENTERING_KING_VARS },
        apply: |s, v| s.search.entering_king_rule = EnteringKingRule::from_name(v.text()).unwrap_or_default(),
        help: "Entering-king rule: none; the CSA declaration (`bestmove win`) with 24 points (31 win) or 27 \
               (28 for Black, 27 for White), the king in the enemy camp with ten other pieces, not in \
               check; the same for handicap games (`...H`: White, taken as the side giving the handicap, \
               needs as many points fewer as are missing from the full set of pieces); or the try rule \
               (`TryRule`: a king that can step onto the enemy king's starting square, 5a or 5i, free of \
               its own pieces and not attacked, wins; `bestmove` is that move).",
    },
    Spec {
        name: "DrawValueBlack",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.draw_value_black as i64, min: -30000, max: 30000 },
        apply: |s, v| s.search.draw_value_black = v.int() as i32,
        help: "Score of a draw (sennichite, `MaxMovesToDraw`) in centipawns when the engine plays Black \
               (Black to move at `go`). `DrawValue`, Kaname's earlier option (no longer declared), still \
               sets both this and `DrawValueWhite`: the later `setoption` wins.",
    },
    Spec {
        name: "DrawValueWhite",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.draw_value_white as i64, min: -30000, max: 30000 },
        apply: |s, v| s.search.draw_value_white = v.int() as i32,
        help: "Score of a draw in centipawns when the engine plays White.",
    },
    Spec {
        name: "ResignValue",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.resign_value as i64, min: 0, max: 99999 },
        apply: |s, v| s.search.resign_value = v.int() as i32,
        help: "Resign when the score is below minus this value; 99999 = never resign early.",
    },
    Spec {
        name: "DepthLimit",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.depth_limit as i64, min: 0, max: i32::MAX as i64 },
        apply: |s, v| s.search.depth_limit = v.int() as i32,
        help: "Depth limit of every search when `go` gives none; 0 = none.",
    },
    Spec {
        name: "NodesLimit",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.nodes_limit as i64, min: 0, max: MAX_SAFE_INTEGER },
        apply: |s, v| s.search.nodes_limit = v.int() as u64,
        help: "Node limit of every search when `go` gives none; 0 = none.",
    },
    Spec {
        name: "USI_OwnBook",
        aliases: &[],
        kind: Kind::Check(true),
        apply: |s, v| s.own_book = v.flag(),
        help: "Play moves from the opening book of `BookFile` (nothing happens while `BookFile` is empty).",
    },
    Spec {
        name: "BookFile",
        aliases: &[],
        kind: Kind::Text(""),
        apply: |s, v| s.book_file = v.text().to_string(),
        help: "The opening book: a file in YaneuraOu's format (`#YANEURAOU-DB2016 1.00`), by path (relative \
               to `BookDir`, by default the working directory); empty = no book. Read \
               at `isready` (or the next `go`): a book sorted by SFEN larger than 8 MB is searched on disk, a \
               smaller or unsorted one read into memory. A missing or unreadable file is reported once with \
               `info string error: ...` and the engine searches every move.",
    },
    Spec {
        name: "BookDir",
        aliases: &[],
        kind: Kind::Text(""),
        apply: |s, v| s.book_dir = v.text().to_string(),
        help: "The folder of a relative `BookFile` (YaneuraOu's option: shogiarena sends it with the copy of \
               the book it makes for a match); empty = the working directory (YaneuraOu's default is `book`). \
               An absolute `BookFile` ignores it.",
    },
    Spec {
        name: "BookMoves",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.moves as i64, min: 0, max: 10000 },
        apply: |s, v| s.book.moves = v.int() as u32,
        help: "The book is used while the game ply of the position to move in is at most this (the start \
               position is ply 1).",
    },
    Spec {
        name: "BookIgnoreRate",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.ignore_rate as i64, min: 0, max: 100 },
        apply: |s, v| s.book.ignore_rate = v.int() as u32,
        help: "Percent chance of searching a position although it is in the book.",
    },
    Spec {
        name: "BookEvalDiff",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.eval_diff as i64, min: 0, max: 99999 },
        apply: |s, v| s.book.eval_diff = v.int() as i32,
        help: "Only book moves valued within this of the first book move (the most played, then the best \
               valued) are played; 0 = only the moves as good as the first.",
    },
    Spec {
        name: "BookEvalBlackLimit",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.eval_black_limit as i64, min: -99999, max: 99999 },
        apply: |s, v| s.book.eval_black_limit = v.int() as i32,
        help: "Black plays no book move valued below this.",
    },
    Spec {
        name: "BookEvalWhiteLimit",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.eval_white_limit as i64, min: -99999, max: 99999 },
        apply: |s, v| s.book.eval_white_limit = v.int() as i32,
        help: "White plays no book move valued below this.",
    },
    Spec {
        name: "BookDepthLimit",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.depth_limit as i64, min: 0, max: 99999 },
        apply: |s, v| s.book.depth_limit = v.int() as i32,
        help: "A book position whose first move was searched less deep than this is searched instead; 0 = no \
               limit (YaneuraOu's default is 16).",
    },
    Spec {
        name: "BookPvMoves",
        aliases: &[],
        kind: Kind::Spin { default: BOOK.pv_moves as i64, min: 1, max: 246 },
        apply: |s, v| s.book.pv_moves = v.int() as u32,
        help: "Plies of the book line printed with a book move (`info ... pv`), following the book.",
    },
    Spec {
        name: "ConsiderBookMoveCount",
        aliases: &[],
        kind: Kind::Check(BOOK.consider_count),
        apply: |s, v| s.book.consider_count = v.flag(),
        help: "Choose among the book moves in proportion to their counts instead of uniformly.",
    },
    Spec {
        name: "FlippedBook",
        aliases: &[],
        kind: Kind::Check(BOOK.flipped),
        apply: |s, v| s.book.flipped = v.flag(),
        help: "Also look up the position turned round with the colours swapped (a book made for Black \
               serves White).",
    },
    Spec {
        name: "ClearHash",
        aliases: &["Clear Hash"],
        kind: Kind::Button,
        // The session presses it: it owns the tables.
        apply: |_, _| {},
        help: "Clears the hash tables (done after the current search if one runs). `Clear Hash`, Stockfish's \
               name, which shogiarena's SPSA presses between games, is accepted too and declared by `kaname \
               --tune` (USI GUIs may not expect a space in a name, so a plain session declares `ClearHash`).",
    },
    Spec {
        name: "UsiLog",
        aliases: &[],
        kind: Kind::Text(""),
        apply: |s, v| s.usi_log = v.text().to_string(),
        help: "File to which every USI line in and out is appended with a timestamp; empty = off.",
    },
    Spec {
        name: "MateHash",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.mate_hash_mb as i64, min: 1, max: 65536 },
        apply: |s, v| s.search.mate_hash_mb = v.int() as usize,
        help: "Mate solver (`go mate`) table size in MiB.",
    },
    Spec {
        name: "EvalKind",
        aliases: &[],
        kind: Kind::Combo { default: SEARCH.eval.name(), vars: EVAL_KIND_VARS },
        apply: |s, v| s.search.eval = v.text().parse().unwrap_or(eval::EvalKind::Classical),
        help: "The evaluation: `net` (the neural network of `EvalFile`) or `classical` (material and king \
               pressure, hand-written). `net` without a usable net falls back to `classical`, with an \
               `info string`.",
    },
    Spec {
        name: "EvalFile",
        aliases: &[],
        kind: Kind::Text(""),
        apply: |s, v| s.eval_file = v.text().to_string(),
        help: "Net file for `EvalKind net`: a Kaname net (`.knn`) or a YaneuraOu NNUE net (`nn.bin`, every \
               HalfKP shape and K-P; told by the file's content, not its name), by path (a relative one in \
               `EvalDir`, else the working directory, else the executable's folder); empty = `nn.bin` in \
               `EvalDir` when `EvalDir` is set and holds one, else the net built into the binary. A file \
               that cannot be used is reported with `info string error: ...` and the net in use stays in use.",
    },
    Spec {
        name: "EvalDir",
        aliases: &[],
        kind: Kind::Text(""),
        apply: |s, v| s.eval_dir = v.text().to_string(),
        help: "The folder of a relative `EvalFile` and, when `EvalFile` is empty, of YaneuraOu's net file \
               `nn.bin` (YaneuraOu's option and file name: a YaneuraOu user sets it to their `eval` folder); \
               empty = the working directory (YaneuraOu's default is `eval`). A relative folder is found from \
               the working directory, else from the executable's folder. An absolute `EvalFile` ignores it.",
    },
    Spec {
        name: "FV_SCALE",
        aliases: &[],
        kind: Kind::Spin { default: SEARCH.fv_scale as i64, min: 1, max: 128 },
        apply: |s, v| s.search.fv_scale = v.int() as i32,
        help: "YaneuraOu's: a YaneuraOu net's output is divided by this to give its evaluation (Kaname's own \
               nets ignore it). Each net has its value: Suisho5 24, Shinden3 and AobaNNUE 40, the tanuki- nets, \
               YaneuraOu's K-P nets and Kaname's HalfKP nets 16.",
    },
    Spec {
        name: "USI_Variant",
        aliases: &["UCI_Variant"],
        kind: Kind::Combo { default: SEARCH.variant.name(), vars: VARIANT_VARS },
        apply: |s, v| s.search.variant = v.text().parse().unwrap_or_default(),
        help: "The game: `shogi`, `minishogi` (5x5) or `shoshogi` (Sho shogi: the drunk elephant, no drops), \
               with Fairy-Stockfish's names and rules (and its option name; `UCI_Variant` is accepted too). \
               Changing it resets the position to the variant's start and \
               clears the hash tables. The net and the opening book are for standard shogi: in a variant the \
               search evaluates classically and the book is not consulted.",
    },
];

/// Options `setoption` accepts that `usi` does not declare: earlier names kept working.
pub const UNDECLARED: &[Spec] = &[Spec {
    name: "DrawValue",
    aliases: &[],
    kind: Kind::Spin { default: SEARCH.draw_value_black as i64, min: -30000, max: 30000 },
    apply: |s, v| (s.search.draw_value_black, s.search.draw_value_white) = (v.int() as i32, v.int() as i32),
    help: "Sets `DrawValueBlack` and `DrawValueWhite` both.",
}];

/// The options of the book (YaneuraOu's names in the options table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    /// `BookMoves`: the book is used up to this game ply (the ply of the position to move in).
    pub moves: u32,
    /// `BookIgnoreRate`: percent chance of searching although the position is in the book.
    pub ignore_rate: u32,
    /// `BookEvalDiff`: only moves within this of the first move's value.
    pub eval_diff: i32,
    /// `BookEvalBlackLimit`: Black plays no book move valued below this.
    pub eval_black_limit: i32,
    /// `BookEvalWhiteLimit`: White plays no book move valued below this.
    pub eval_white_limit: i32,
    /// `BookDepthLimit`: positions whose first move's depth is below this are ignored; 0 = all.
    pub depth_limit: i32,
    /// `BookPvMoves`: plies of the PV printed, following the book.
    pub pv_moves: u32,
    /// `ConsiderBookMoveCount`: choose by count instead of uniformly.
    pub consider_count: bool,
    /// `FlippedBook`: also look up the position with the board turned round and colours swapped.
    pub flipped: bool,
}

impl BookOptions {
    /// The defaults, which are also the `usi` declarations' (the options table reads them from
    /// here, so that each is written once). YaneuraOu's, except `BookDepthLimit` (16 there):
    /// Kaname's depths are not YaneuraOu's, and a count-only book has none.
    pub const DEFAULT: BookOptions = BookOptions {
        moves: 16,
        ignore_rate: 0,
        eval_diff: 30,
        eval_black_limit: 0,
        eval_white_limit: -140,
        depth_limit: 0,
        pv_moves: 8,
        consider_count: false,
        flipped: true,
    };
}

impl Default for BookOptions {
    fn default() -> Self {
        BookOptions::DEFAULT
    }
}

/// The current value of every option.
#[derive(Clone, Debug)]
pub struct Settings {
    /// What the search reads.
    pub search: search::Options,
    /// `USI_OwnBook`.
    pub own_book: bool,
    /// `BookFile`: empty = no book.
    pub book_file: String,
    /// `BookDir`: the folder of a relative `BookFile`; empty = the working directory.
    pub book_dir: String,
    /// The other `Book*` options.
    pub book: BookOptions,
    /// `UsiLog`: empty = off.
    pub usi_log: String,
    /// `EvalFile`: empty = the built-in net.
    pub eval_file: String,
    /// `EvalDir`: the folder of a relative `EvalFile`; empty = the working directory.
    pub eval_dir: String,
}

impl Default for Settings {
    /// The declared defaults (the table is the single source of truth; for the search's and the
    /// book's options it holds their crates' defaults, so applying it changes nothing there).
    fn default() -> Self {
        let mut s = Settings {
            search: search::Options::DEFAULT,
            own_book: false,
            book_file: String::new(),
            book_dir: String::new(),
            book: BookOptions::DEFAULT,
            usi_log: String::new(),
            eval_file: String::new(),
            eval_dir: String::new(),
        };
        for spec in OPTIONS {
            let v = match spec.kind {
                Kind::Check(b) => Value::Bool(b),
                Kind::Spin { default, .. } => Value::Int(default),
                Kind::Combo { default, .. } => Value::Text(default.to_string()),
                Kind::Button => continue,
                Kind::Text(t) => Value::Text(t.to_string()),
            };
            (spec.apply)(&mut s, &v);
        }
        s
    }
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A check box.
    Bool(bool),
    /// A spin value, already clamped into range.
    Int(i64),
    /// A combo or string value (combo values are spelled as declared).
    Text(String),
    /// A button press.
    Press,
    /// A value for `search::tune::TUNABLES[index]` (a `Tune_*` option), clamped into range.
    Tuned(usize, i32),
}

impl Value {
    /// A spin value (0 for another kind: `parse` gives each option a value of its own kind).
    fn int(&self) -> i64 {
        match self {
            Value::Int(n) => *n,
            _ => 0,
        }
    }

    /// A check value (false for another kind).
    fn flag(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// A combo or string value (empty for another kind).
    fn text(&self) -> &str {
        match self {
            Value::Text(t) => t,
            _ => "",
        }
    }
}

/// What `setoption` did.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The declared name of the option.
    pub name: &'static str,
    /// The value to apply.
    pub value: Value,
    /// A problem to report (value clamped into range); the value is still applied.
    pub warning: Option<String>,
}

/// Finds an option by name or alias, case-insensitively.
pub fn find(name: &str) -> Option<&'static Spec> {
    OPTIONS
        .iter()
        .chain(UNDECLARED)
        .find(|s| s.name.eq_ignore_ascii_case(name) || s.aliases.iter().any(|a| a.eq_ignore_ascii_case(name)))
}

/// Parses `setoption`'s name and value (the value is `None` when the command has no `value`).
/// Errors are complete sentences for `info string error:`.
pub fn parse(name: &str, value: Option<&str>) -> Result<Parsed, String> {
    let Some(spec) = find(name) else {
        return parse_tunable(name, value);
    };
    let raw = value.unwrap_or("").trim();
    let shown = ascii(raw, 40);
    let mut warning = None;
    let value = match spec.kind {
        Kind::Check(_) => {
            if raw.eq_ignore_ascii_case("true") {
                Value::Bool(true)
            } else if raw.eq_ignore_ascii_case("false") {
                Value::Bool(false)
            } else {
                return Err(format!("option {} takes true or false, not '{shown}'", spec.name));
            }
        }
        Kind::Spin { min, max, .. } => {
            let (n, w) = parse_spin(spec.name, raw, min, max)?;
            warning = w;
            Value::Int(n)
        }
        Kind::Combo { vars, .. } => match vars.iter().find(|v| v.eq_ignore_ascii_case(raw)) {
            Some(v) => Value::Text(v.to_string()),
            None => return Err(format!("option {} takes one of {}, not '{shown}'", spec.name, vars.join(", "))),
        },
        Kind::Button => Value::Press,
        Kind::Text(_) => {
            if raw == "<empty>" {
                Value::Text(String::new())
            } else {
                Value::Text(raw.to_string())
            }
        }
    };
    Ok(Parsed { name: spec.name, value, warning })
}

/// `setoption` of a `Tune_*` option (search parameters, see `search::tune`): accepted whether
/// or not `usi` declared them (they are declared only by `kaname --tune`).
fn parse_tunable(name: &str, value: Option<&str>) -> Result<Parsed, String> {
    let unknown = || format!("unknown option '{}'", ascii(name, 40));
    let t = Tunable::by_option(name).ok_or_else(unknown)?;
    let index = TUNABLES.iter().position(|x| x.name == t.name).ok_or_else(unknown)?;
    let (n, warning) = parse_spin(&t.option_name(), value.unwrap_or("").trim(), t.min.into(), t.max.into())?;
    Ok(Parsed { name: TUNE, value: Value::Tuned(index, n as i32), warning })
}

/// A spin value of option `name`: an integer clamped into `min..=max`, with a warning when
/// it had to be clamped. Errors are sentences for `info string error:`.
fn parse_spin(name: &str, raw: &str, min: i64, max: i64) -> Result<(i64, Option<String>), String> {
    let shown = ascii(raw, 40);
    let n: i128 = raw.parse().map_err(|_| format!("option {name} takes an integer {min}..{max}, not '{shown}'"))?;
    let clamped = n.clamp(min as i128, max as i128) as i64;
    let warning = (clamped as i128 != n)
        .then(|| format!("option {name} value {shown} is out of range {min}..{max}; using {clamped}"));
    Ok((clamped, warning))
}

/// `Parsed::name` of every `Tune_*` option.
pub const TUNE: &str = "Tune_*";

impl Settings {
    /// Stores a value of the option `name` (a declared name, an alias or `TUNE`) through its
    /// `Spec::apply`. Buttons are handled by the session, not here.
    pub fn apply(&mut self, name: &str, value: &Value) {
        if name == TUNE {
            if let Value::Tuned(i, v) = value {
                (TUNABLES[*i].set)(&mut self.search.tune, *v);
            }
            return;
        }
        match find(name) {
            Some(spec) => (spec.apply)(self, value),
            None => log::warn!("option {name} has no setting"),
        }
    }

    /// The book to open: `BookFile` in `BookDir` (YaneuraOu's `Path::Combine`: an absolute
    /// `BookFile`, or an empty `BookDir`, leaves `BookFile` as it is); empty = no book.
    pub fn book_path(&self) -> String {
        combine_path(&self.book_dir, &self.book_file)
    }

    /// The net to load: `EvalFile` in `EvalDir`, combined as `book_path` combines the book's;
    /// with no `EvalFile`, YaneuraOu's `nn.bin` in `EvalDir` (if `EvalDir` is set); empty = the
    /// built-in net.
    pub fn eval_path(&self) -> String {
        if self.eval_file.is_empty() && !self.eval_dir.is_empty() {
            return combine_path(&self.eval_dir, YO_NET_FILE);
        }
        combine_path(&self.eval_dir, &self.eval_file)
    }

    /// Whether `eval_path` is only YaneuraOu's default name in `EvalDir` (no `EvalFile`): its
    /// absence is no error, the built-in net is used.
    pub fn eval_path_is_default(&self) -> bool {
        self.eval_file.is_empty()
    }
}

/// YaneuraOu's fixed net file name (`EvalFileDefaultName`, `evaluate_nnue.h:82`), looked for in
/// `EvalDir` when `EvalFile` is empty.
pub const YO_NET_FILE: &str = "nn.bin";

/// Where a file named by an option is: an absolute or existing path as it is, else a relative
/// path from the executable's folder when it exists there. GUIs usually start an engine in its
/// own folder, but not always; YaneuraOu resolves `EvalDir` from the executable's folder.
pub fn locate(path: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(path);
    if path.is_empty() || p.is_absolute() || p.exists() {
        return p.to_path_buf();
    }
    let beside_exe = std::env::current_exe().ok().and_then(|e| e.parent().map(|d| d.join(p)));
    match beside_exe {
        Some(q) if q.exists() => q,
        _ => p.to_path_buf(),
    }
}

/// `file` in the folder `dir` (YaneuraOu's `Path::Combine`): an empty or absolute `file`, or
/// an empty `dir`, leaves `file` as it is.
fn combine_path(dir: &str, file: &str) -> String {
    if file.is_empty() || dir.is_empty() || std::path::Path::new(file).is_absolute() {
        return file.to_string();
    }
    std::path::Path::new(dir).join(file).to_string_lossy().into_owned()
}

/// The net of `EvalFile` value `file`: the built-in net when `file` is empty (`None` if the
/// binary has none), else the file's. Errors are sentences for `info string error:`.
pub fn load_net(file: &str) -> Result<Option<eval::Net>, String> {
    load_net_reporting(file).map(|l| l.map(|l| l.net))
}

/// `load_net` with the file's warnings (a YaneuraOu net whose hash or architecture string
/// disagrees with its size).
pub fn load_net_reporting(file: &str) -> Result<Option<eval::Loaded>, String> {
    if file.is_empty() {
        return Ok(eval::Net::embedded().map(|net| eval::Loaded { net, warnings: Vec::new() }));
    }
    eval::Net::load(locate(file)).map(Some).map_err(|e| format!("EvalFile '{}': {e}", ascii(file, 100)))
}

/// What a net is, for people: family, architecture and, for a YaneuraOu net, `FV_SCALE`.
pub fn describe_net(net: &eval::Net, fv_scale: i32) -> String {
    match net {
        eval::Net::Kaname(_) => format!("Kaname net {}", net.architecture()),
        eval::Net::Yo(_) => format!("YaneuraOu net {}, FV_SCALE {fv_scale}", net.architecture()),
    }
}

/// The `option name ...` lines of the `usi` answer; with `tuning`, also the `Tune_*` search
/// parameters (as spin options: shogiarena's SPSA checks its ranges against them) and the
/// `Clear Hash` button SPSA presses.
pub fn declarations(tuning: bool) -> Vec<String> {
    let tunables = TUNABLES.iter().filter(|_| tuning).map(|t| {
        format!("option name {} type spin default {} min {} max {}", t.option_name(), t.default, t.min, t.max)
    });
    let tunables = tunables.chain(tuning.then(|| "option name Clear Hash type button".to_string()));
    OPTIONS
        .iter()
        .map(|s| {
            let mut line = format!("option name {} type ", s.name);
            match s.kind {
                Kind::Check(d) => write!(line, "check default {d}"),
                Kind::Spin { default, min, max } => {
                    write!(line, "spin default {default} min {min} max {max}")
                }
                Kind::Combo { default, vars } => {
                    let _ = write!(line, "combo default {default}");
                    vars.iter().try_for_each(|v| write!(line, " var {v}"))
                }
                Kind::Button => write!(line, "button"),
                Kind::Text(d) => write!(line, "string default {}", if d.is_empty() { "<empty>" } else { d }),
            }
            .expect("writing to a String");
            line
        })
        .chain(tunables)
        .collect()
}

/// The README's options table (Markdown).
pub fn markdown_table() -> String {
    let mut t = String::from("| Option | Type | Default | Range | Meaning |\n|---|---|---|---|---|\n");
    for s in OPTIONS {
        let (ty, default, range) = match s.kind {
            Kind::Check(d) => ("check", d.to_string(), String::new()),
            Kind::Spin { default, min, max } => ("spin", default.to_string(), format!("{min}..{max}")),
            Kind::Combo { default, vars } => ("combo", default.to_string(), vars.join(", ")),
            Kind::Button => ("button", String::new(), String::new()),
            Kind::Text(d) => ("string", if d.is_empty() { "`<empty>`".into() } else { d.into() }, String::new()),
        };
        let mut name = format!("`{}`", s.name);
        for a in s.aliases {
            let _ = write!(name, " (alias `{a}`)");
        }
        let _ = writeln!(t, "| {name} | {ty} | {default} | {range} | {} |", s.help);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_file_is_combined_with_book_dir_as_yaneuraou_does() {
        let mut s = Settings::default();
        assert_eq!(s.book_path(), "");
        s.book_dir = "/books".into();
        assert_eq!(s.book_path(), "", "no BookFile, no book, whatever BookDir says");
        s.book_file = "user_book1.db".into();
        assert_eq!(s.book_path(), "/books/user_book1.db");
        s.book_file = "/elsewhere/b.db".into();
        assert_eq!(s.book_path(), "/elsewhere/b.db", "an absolute BookFile ignores BookDir");
        s.book_dir.clear();
        s.book_file = "book/kaname_book.db".into();
        assert_eq!(s.book_path(), "book/kaname_book.db", "relative to the working directory");
    }

    #[test]
    fn eval_file_is_combined_with_eval_dir_as_yaneuraou_does() {
        let mut s = Settings::default();
        assert_eq!(s.eval_path(), "", "the built-in net");
        s.eval_dir = "/nets".into();
        assert_eq!(s.eval_path(), "/nets/nn.bin", "no EvalFile: YaneuraOu's file name in EvalDir");
        assert!(s.eval_path_is_default());
        s.eval_file = "nn.knn".into();
        assert_eq!(s.eval_path(), "/nets/nn.knn");
        s.eval_file = "/elsewhere/nn.knn".into();
        assert_eq!(s.eval_path(), "/elsewhere/nn.knn", "an absolute EvalFile ignores EvalDir");
        s.eval_dir.clear();
        s.eval_file = "eval/nn.knn".into();
        assert_eq!(s.eval_path(), "eval/nn.knn", "relative to the working directory");
    }

    #[test]
    fn declared_defaults() {
        let s = Settings::default();
        let o = &s.search;
        assert_eq!(o.hash_mb, 256);
        assert_eq!(o.threads, 1);
        assert_eq!(o.multipv, 1);
        // Local-GUI time defaults chosen by the search developer (commit cbe74c3); the issue
        // proposed YaneuraOu's network-safe 120 / 1120 / 2000.
        assert_eq!(o.network_delay, 40);
        assert_eq!(o.network_delay2, 150);
        assert_eq!(o.minimum_thinking_time, 1000);
        assert_eq!(o.slow_mover, 100);
        assert_eq!(o.max_moves_to_draw, 0);
        assert_eq!(o.entering_king_rule, EnteringKingRule::Csa27);
        assert_eq!((o.draw_value_black, o.draw_value_white), (-2, -2));
        // YaneuraOu's defaults, except PvInterval (300 there): Kaname prints every iteration.
        assert_eq!(o.pv_interval, 0);
        assert!(!o.consideration_mode && o.output_fail_lh_pv && o.round_up_to_full_second && !o.stochastic_ponder);
        assert_eq!(o.resign_value, 99999);
        assert_eq!(o.mate_hash_mb, 64);
        assert!(!o.usi_ponder && s.usi_log.is_empty());
        // YaneuraOu's book defaults, except BookDepthLimit (16 there): Kaname's depths are not
        // YaneuraOu's, and a count-only book has none.
        assert!(s.own_book && s.book_file.is_empty());
        assert_eq!(s.book, BookOptions::default());
        let b = &s.book;
        assert_eq!((b.moves, b.ignore_rate, b.eval_diff, b.depth_limit, b.pv_moves), (16, 0, 30, 0, 8));
        assert_eq!((b.eval_black_limit, b.eval_white_limit, b.consider_count, b.flipped), (0, -140, false, true));
    }

    #[test]
    fn front_end_defaults_are_the_searchs() {
        // The table reads these defaults; applying them gives them back unless an option
        // stores into the wrong field or spells its default by hand.
        assert_eq!(Settings::default().search, search::Options::DEFAULT);
        assert_eq!(Settings::default().search, search::Options::default());
        assert_eq!(Settings::default().book, BookOptions::DEFAULT);
    }

    #[test]
    fn every_option_is_applied() {
        // Setting a non-default value must change the settings (catches a name missing from
        // `apply`).
        for spec in OPTIONS.iter().chain(UNDECLARED) {
            let v = match spec.kind {
                Kind::Check(d) => Value::Bool(!d),
                Kind::Spin { default, min, max } => Value::Int(if default == max { min } else { max.min(default + 1) }),
                Kind::Combo { default, vars } => Value::Text(vars.iter().find(|v| **v != default).unwrap().to_string()),
                Kind::Button => continue,
                Kind::Text(_) => Value::Text("x".into()),
            };
            let mut s = Settings::default();
            s.apply(spec.name, &v);
            assert_ne!(format!("{s:?}"), format!("{:?}", Settings::default()), "{}", spec.name);
        }
    }

    #[test]
    fn tunables_are_set_by_their_options() {
        let mut s = Settings::default();
        let p = parse("Tune_rfp_margin", Some("150")).unwrap();
        assert_eq!(p.warning, None);
        s.apply(p.name, &p.value);
        assert_eq!(s.search.tune.rfp_margin, 150);
        assert_eq!(s.search.tune.razor_margin, search::tune::Tune::default().razor_margin);
        let p = parse("tune_RFP_MARGIN", Some("100000")).unwrap();
        assert!(p.warning.is_some());
        s.apply(p.name, &p.value);
        assert_eq!(s.search.tune.rfp_margin, 300);
        assert!(parse("Tune_rfp_margin", Some("wide")).is_err());
        assert!(parse("Tune_nothing", Some("1")).is_err());
    }

    #[test]
    fn parsing() {
        assert_eq!(parse("usi_hash", Some("1024")).unwrap().value, Value::Int(1024));
        assert_eq!(parse("Hash", Some("16")).unwrap().name, "USI_Hash");
        assert_eq!(parse("usi_multipv", Some("3")).unwrap().name, "MultiPV");
        let p = parse("Threads", Some("100000")).unwrap();
        assert_eq!(p.value, Value::Int(256));
        assert!(p.warning.is_some());
        assert!(parse("Threads", Some("many")).is_err());
        assert!(parse("Nope", Some("1")).is_err());
        assert_eq!(parse("USI_Ponder", Some("TRUE")).unwrap().value, Value::Bool(true));
        assert!(parse("USI_Ponder", None).is_err());
        assert_eq!(parse("enteringkingrule", Some("csarule24")).unwrap().value, Value::Text("CSARule24".into()));
        assert_eq!(parse("UsiLog", Some("<empty>")).unwrap().value, Value::Text(String::new()));
        assert_eq!(parse("ClearHash", None).unwrap().value, Value::Press);
        assert_eq!(parse("clear hash", None).unwrap().name, "ClearHash");
        assert_eq!(parse("NodesLimit", Some("99999999999999999999999")).unwrap().value, Value::Int(MAX_SAFE_INTEGER));
    }

    /// splitmix64, for the fuzz test below.
    fn rng(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fuzzing `parse` with a property test over seeded random names and values (no external
    /// crate; the end-to-end USI fuzzer is tests/fuzz_usi.rs): it never panics; what it accepts
    /// is a declared option (by name or alias, any case) or a `Tune_*` option, under its declared
    /// name, with a value of the option's kind inside its range and a warning exactly when a
    /// number was clamped, and `Settings::apply` takes it; its errors are ASCII sentences; buttons
    /// and strings accept anything.
    #[test]
    fn parse_never_panics_and_keeps_values_in_range() {
        let mut state = 0x6b61_6e61_6d65_u64;
        let mut names: Vec<String> = Vec::new();
        for s in OPTIONS {
            names.extend([s.name.to_string(), s.name.to_ascii_lowercase(), s.name.to_ascii_uppercase()]);
            names.extend(s.aliases.iter().map(|a| a.to_string()));
        }
        names.extend(TUNABLES.iter().map(|t| t.option_name()));
        names.extend(TUNABLES.iter().map(|t| t.option_name().to_ascii_uppercase()));
        for odd in
            ["", "Nope", "USI_Hash2", "USI Hash", "Tune_", "Tune", "tune_x", "Clear  Hash", "\u{3042}", "T\u{e9}ne_a"]
        {
            names.push(odd.to_string());
        }
        let mut values: Vec<Option<String>> = vec![None];
        for v in [
            "",
            " ",
            "true",
            "FALSE",
            "True ",
            "yes",
            "0",
            "1",
            "-1",
            "+7",
            " 5 ",
            "1e3",
            "0x10",
            "1.5",
            "<empty>",
            "<EMPTY>",
            "a b",
            "2147483647",
            "2147483648",
            "-2147483649",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "170141183460469231731687303715884105727",
            "170141183460469231731687303715884105728",
            "\u{ff15}",
            "\u{0663}",
            "net",
            "CLASSICAL",
            "csarule24",
        ] {
            values.push(Some(v.to_string()));
        }
        for s in OPTIONS {
            if let Kind::Spin { min, max, .. } = s.kind {
                for v in [min as i128 - 1, min as i128, max as i128, max as i128 + 1] {
                    values.push(Some(v.to_string()));
                }
            }
            if let Kind::Combo { vars, .. } = s.kind {
                values.extend(vars.iter().map(|v| Some(v.to_string())));
            }
        }
        for _ in 0..20_000 {
            let name = names[(rng(&mut state) % names.len() as u64) as usize].clone();
            let value = if rng(&mut state).is_multiple_of(8) {
                let n = rng(&mut state) % 12;
                let bytes: Vec<u8> = (0..n).map(|_| rng(&mut state) as u8).collect();
                Some(String::from_utf8_lossy(&bytes).into_owned())
            } else {
                values[(rng(&mut state) % values.len() as u64) as usize].clone()
            };
            let r = std::panic::catch_unwind(|| parse(&name, value.as_deref()))
                .unwrap_or_else(|_| panic!("parse panicked on {name:?} {value:?}"));
            let raw = value.as_deref().unwrap_or("").trim();
            let p = match r {
                Ok(p) => p,
                Err(e) => {
                    assert!(e.is_ascii() && !e.is_empty(), "{name:?} {value:?}: {e:?}");
                    if let Some(spec) = find(&name) {
                        assert!(!matches!(spec.kind, Kind::Button | Kind::Text(_)), "{name:?} {value:?}: {e}");
                    }
                    continue;
                }
            };
            let ctx = format!("{name:?} {value:?} -> {p:?}");
            if p.name == TUNE {
                let Value::Tuned(i, v) = p.value else { panic!("{ctx}") };
                let t = &TUNABLES[i];
                assert_eq!(t.name, Tunable::by_option(&name).unwrap().name, "{ctx}");
                assert!((t.min..=t.max).contains(&v), "{ctx}");
                assert_eq!(p.warning.is_some(), raw.parse::<i128>().unwrap() != v as i128, "{ctx}");
            } else {
                let spec = find(&name).unwrap_or_else(|| panic!("accepted an unknown option: {ctx}"));
                assert_eq!(p.name, spec.name, "{ctx}");
                match (spec.kind, &p.value) {
                    (Kind::Check(_), Value::Bool(b)) => {
                        assert!(raw.eq_ignore_ascii_case(if *b { "true" } else { "false" }), "{ctx}")
                    }
                    (Kind::Spin { min, max, .. }, Value::Int(n)) => {
                        assert!((min..=max).contains(n), "{ctx}");
                        assert_eq!(p.warning.is_some(), raw.parse::<i128>().unwrap() != *n as i128, "{ctx}");
                    }
                    (Kind::Combo { vars, .. }, Value::Text(t)) => {
                        assert!(vars.contains(&t.as_str()) && t.eq_ignore_ascii_case(raw), "{ctx}")
                    }
                    (Kind::Button, Value::Press) => {}
                    (Kind::Text(_), Value::Text(t)) => assert_eq!(t, if raw == "<empty>" { "" } else { raw }, "{ctx}"),
                    _ => panic!("a value of the wrong kind: {ctx}"),
                }
                if !matches!(spec.kind, Kind::Spin { .. }) {
                    assert!(p.warning.is_none(), "{ctx}");
                }
            }
            assert!(p.warning.as_ref().is_none_or(|w| w.is_ascii()), "{ctx}");
            let mut settings = Settings::default();
            settings.apply(p.name, &p.value);
        }
        // Every declared default reads back as it is.
        for line in declarations(true) {
            let rest = line.strip_prefix("option name ").unwrap();
            let (name, rest) = rest.split_once(" type ").unwrap();
            let t: Vec<&str> = rest.split_whitespace().collect();
            let default = t.iter().position(|x| *x == "default").map(|i| t[i + 1]);
            let p = parse(name, default).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert!(p.warning.is_none(), "{line}");
        }
    }

    #[test]
    fn entering_king_rules_by_name() {
        for (rule, name) in EnteringKingRule::NAMES {
            let p = parse("EnteringKingRule", Some(&name.to_lowercase())).unwrap();
            assert_eq!(p.value, Value::Text(name.into()));
            let mut s = Settings::default();
            s.apply(p.name, &p.value);
            assert_eq!(s.search.entering_king_rule, rule, "{name}");
        }
        assert_eq!(ENTERING_KING_VARS, EnteringKingRule::NAMES.map(|(_, n)| n));
        assert!(parse("EnteringKingRule", Some("CSARule28")).unwrap_err().contains("TryRule"));
    }

    #[test]
    fn draw_values_per_colour_and_the_old_name() {
        let mut s = Settings::default();
        let set = |s: &mut Settings, name: &str, v: &str| {
            let p = parse(name, Some(v)).unwrap();
            assert!(p.warning.is_none());
            s.apply(p.name, &p.value);
        };
        set(&mut s, "DrawValueBlack", "-50");
        set(&mut s, "drawvaluewhite", "30");
        assert_eq!((s.search.draw_value_black, s.search.draw_value_white), (-50, 30));
        assert_eq!(s.search.draw_value(engine::Color::White), 30);
        // `DrawValue` sets both; a later per-colour value wins over it, and it over an earlier one.
        set(&mut s, "DrawValue", "7");
        assert_eq!((s.search.draw_value_black, s.search.draw_value_white), (7, 7));
        set(&mut s, "DrawValueWhite", "-9");
        assert_eq!((s.search.draw_value_black, s.search.draw_value_white), (7, -9));
        // Not declared (GUIs that send every declared option would otherwise overwrite the
        // per-colour values with its default).
        assert!(!declarations(false).iter().any(|l| l.starts_with("option name DrawValue ")));
        let p = parse("DrawValueBlack", Some("-40000")).unwrap();
        assert_eq!(p.value, Value::Int(-30000));
        assert!(p.warning.is_some());
    }

    #[test]
    fn report_and_clock_options() {
        let mut s = Settings::default();
        for (name, value) in [
            ("PvInterval", "300"),
            ("ConsiderationMode", "true"),
            ("OutputFailLHPV", "false"),
            ("RoundUpToFullSecond", "false"),
            ("Stochastic_Ponder", "true"),
        ] {
            let p = parse(name, Some(value)).unwrap();
            s.apply(p.name, &p.value);
        }
        let o = &s.search;
        assert_eq!(o.pv_interval, 300);
        assert!(o.consideration_mode && !o.output_fail_lh_pv && !o.round_up_to_full_second && o.stochastic_ponder);
        assert!(parse("PvInterval", Some("-1")).unwrap().warning.is_some());
        assert!(parse("OutputFailLHPV", Some("yes")).is_err());
        assert!(parse("stochastic_ponder", Some("maybe")).unwrap_err().contains("Stochastic_Ponder"));
    }

    #[test]
    fn declarations_are_usi() {
        let d = declarations(false);
        assert_eq!(d.len(), OPTIONS.len());
        assert_eq!(declarations(true).len(), OPTIONS.len() + TUNABLES.len() + 1);
        assert!(declarations(true).contains(&"option name Clear Hash type button".into()));
        assert!(declarations(true).contains(&"option name Tune_rfp_margin type spin default 140 min 40 max 300".into()));
        assert!(d.contains(&"option name USI_Hash type spin default 256 min 1 max 65536".into()));
        assert!(d.contains(&"option name UsiLog type string default <empty>".into()));
        assert!(d.contains(&"option name ClearHash type button".into()));
        assert!(d.iter().all(|l| l.split(" type ").next().unwrap().matches(' ').count() == 2), "no space in a name");
        assert!(d.contains(
            &"option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule24 \
              var CSARule24H var CSARule27 var CSARule27H var TryRule"
                .into()
        ));
        assert!(d.contains(&"option name PvInterval type spin default 0 min 0 max 100000000".into()));
        assert!(d.contains(&"option name Stochastic_Ponder type check default false".into()));
        assert!(d.iter().all(|l| l.is_ascii()));
    }

    /// ShogiHome (JavaScript numbers) holds integers exactly up to 2^53 - 1: a spin's default,
    /// minimum and maximum beyond that would come back from the GUI as another number.
    #[test]
    fn every_spin_range_fits_a_javascript_number() {
        let mut spins = 0;
        for line in declarations(true) {
            let t: Vec<&str> = line.split_whitespace().collect();
            if !line.contains(" type spin ") {
                continue;
            }
            spins += 1;
            for key in ["default", "min", "max"] {
                let at = t.iter().position(|w| *w == key).unwrap_or_else(|| panic!("{key} missing: {line}"));
                let n: i64 = t[at + 1].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                assert!(n.abs() <= MAX_SAFE_INTEGER, "{line}: {key} {n} is beyond 2^53 - 1");
            }
        }
        assert!(spins > 20, "{spins} spins declared");
        assert!(declarations(false)
            .contains(&format!("option name NodesLimit type spin default 0 min 0 max {MAX_SAFE_INTEGER}")));
    }
}
