//! The USI session: one loop that receives stdin lines (from a reader thread) and search
//! notifications through one channel, and keeps the protocol's promises:
//! exactly one `bestmove` per `go` (one `checkmate` per `go mate`), none before `stop` or
//! `ponderhit` under `go infinite`/`go ponder`, `stop` obeyed at once, `readyok` at any time.
//!
//! The top room: may use `protocol` (its language), `book` (the engine's own book) and
//! `commands` (`bench`, `perft`, `d` and `eval` typed in a session); nothing uses it but
//! `main.rs`.

use crate::book::play::OwnBook;
use crate::protocol::ascii;
use crate::protocol::lines::{bestmove_line, checkmate_line, fallback_bestmove, info_line, CpUnits};
use crate::protocol::options::{self, Settings, Value};
use crate::protocol::output::Output;
use crate::protocol::parse;
use crate::protocol::reader::{MAX_LINE, TOO_LONG};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use engine::{Move, Position};
use search::{Info, Limits, MateProgress, MateResult, SearchResult, Searcher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The commands of a session, the end of the `help` text (`kaname help` ends with them too).
pub const COMMANDS: &[&str] = &[
    "USI commands: usi isready setoption usinewgame position go stop ponderhit gameover quit",
    "Extra commands: d (board), eval (static evaluation), perft <depth>,",
    "  bench [depth] [threads] [hash], usi_tunables (shogiarena's SPSA manifest), help",
];

/// What the loop receives.
#[derive(Debug)]
pub enum Event {
    /// A line from stdin (lossy UTF-8, without the line end).
    Line(String),
    /// stdin is closed.
    Eof,
    /// The job (a search or a mate search) with this id has printed its result line.
    Done(u64),
}

/// Makes sure one `go` produces one result line, whoever gets there first.
#[derive(Clone)]
struct Ticket {
    fired: Arc<AtomicBool>,
    /// Retired without a line: another job answers the `go` (a stochastic ponder hit).
    cancelled: Arc<AtomicBool>,
    out: Arc<Output>,
}

impl Ticket {
    fn new(out: &Arc<Output>) -> Ticket {
        Ticket {
            fired: Arc::new(AtomicBool::new(false)),
            cancelled: Arc::new(AtomicBool::new(false)),
            out: out.clone(),
        }
    }

    /// Prints `line` unless this ticket already printed; returns whether it printed.
    fn emit(&self, line: &str) -> bool {
        if self.fired.swap(true, Ordering::SeqCst) {
            if self.cancelled.load(Ordering::SeqCst) {
                log::debug!("result of a replaced search dropped: {line}");
            } else {
                log::warn!("suppressed a second result: {line}");
            }
            return false;
        }
        self.out.line(line);
        true
    }

    /// Retires the ticket without printing anything.
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.fired.store(true, Ordering::SeqCst);
    }

    fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

/// What the session is doing: one job at a time.
enum Job {
    Idle,
    /// The Searcher runs a search (`go`) or the mate solver (`go mate`).
    Running {
        id: u64,
        ticket: Ticket,
        pos: Box<Position>,
        /// `go mate`: the result line is `checkmate ...`.
        mate: bool,
        /// No result before `stop` or `ponderhit` (`infinite` or `ponder`).
        waiting: bool,
        ponder: bool,
        /// Under `Stochastic_Ponder`: the `go` arguments (without `ponder`) to search the
        /// position sent with at `ponderhit`.
        restart: Option<Vec<String>>,
    },
    /// A result the front end produced itself (no legal move, declaration win, a dead search),
    /// held until `stop`/`ponderhit`.
    Held {
        line: String,
        ticket: Ticket,
        ponder: bool,
        /// As for `Search`.
        restart: Option<Vec<String>>,
    },
}

/// What `prepare` depends on (`Session::prepared_key`): hash, threads, mate hash, evaluation,
/// variant and net file.
type PreparedKey = (usize, usize, usize, eval::EvalKind, engine::VariantId, String, i32);

/// The session state.
pub struct Session {
    out: Arc<Output>,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    searcher: Searcher,
    settings: Settings,
    pos: Option<Position>,
    /// Why the last `position` was refused, until one is accepted: meanwhile a `go` answers
    /// `bestmove resign` (`go mate`: `checkmate notimplemented`) with an `info string` saying
    /// why, never a move of another position (the one before, or a legal prefix of the list).
    refused: Option<String>,
    job: Job,
    next_id: u64,
    prepared: Option<PreparedKey>,
    /// The `EvalFile` last loaded or tried (`None` before the first `prepare`): a file is not
    /// read again until the option changes.
    net_file: Option<String>,
    /// The file of the net in use (empty: the built-in net); unlike `net_file`, unchanged by
    /// a file that failed to load.
    net_in_use: String,
    clear_pending: bool,
    book: OwnBook,
    /// `kaname --tune`: `usi` also declares the `Tune_*` search parameters.
    tuning: bool,
    /// The `help` text (the binary's overview: this room does not know the command line).
    help: fn() -> Vec<String>,
}

/// Speaks USI on stdin/stdout until `quit` or the end of input (`tuning`: `kaname --tune`;
/// `help`: the text of `help`), then ends the process: search threads may still be parked,
/// and stdout is flushed line by line.
pub fn run_stdio(tuning: bool, help: fn() -> Vec<String>) -> ! {
    let mut session = Session::new(Arc::new(Output::stdout()));
    session.set_tuning(tuning);
    session.set_help(help);
    let tx = session.sender();
    crate::protocol::reader::spawn(move |line| tx.send(line.map_or(Event::Eof, Event::Line)).is_ok());
    session.run();
    std::process::exit(0);
}

/// Whether the loop goes on.
#[derive(PartialEq, Eq, Debug)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// `quit` or end of input.
    Quit,
}

/// The position before the last move of `pos` (a null move included), or `None` when `pos`
/// has no move history.
pub fn before_last_move(pos: &Position) -> Option<Position> {
    if pos.history_len() == 0 {
        return None;
    }
    let mut p = pos.clone();
    match p.last_move() {
        Move::NULL => p.undo_null_move(),
        Move::NONE => return None,
        m => p.undo_move(m),
    }
    Some(p)
}

impl Session {
    /// A session writing to `out`.
    pub fn new(out: Arc<Output>) -> Session {
        let (tx, rx) = crossbeam_channel::unbounded();
        Session {
            out,
            tx,
            rx,
            searcher: Searcher::new(),
            settings: Settings::default(),
            pos: None,
            refused: None,
            job: Job::Idle,
            next_id: 1,
            prepared: None,
            net_file: None,
            net_in_use: String::new(),
            clear_pending: false,
            book: OwnBook::new(),
            tuning: false,
            help: || COMMANDS.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Tuning mode (`kaname --tune`): `usi` also declares the `Tune_*` options.
    pub fn set_tuning(&mut self, tuning: bool) {
        self.tuning = tuning;
    }

    /// The text `help` prints (by default `COMMANDS`).
    pub fn set_help(&mut self, help: fn() -> Vec<String>) {
        self.help = help;
    }

    /// The sender stdin lines go to.
    pub fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// Runs until `quit` or end of input, then stops whatever runs.
    pub fn run(&mut self) {
        loop {
            let ev = match self.rx.recv_timeout(Duration::from_millis(200)) {
                Ok(ev) => ev,
                Err(RecvTimeoutError::Timeout) => {
                    self.check_search_alive();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => Event::Eof,
            };
            match ev {
                Event::Line(line) => {
                    self.out.log_input(&line);
                    let r = catch_unwind(AssertUnwindSafe(|| self.handle_line(&line)));
                    match r {
                        Ok(Flow::Quit) => break,
                        Ok(Flow::Continue) => {}
                        Err(_) => {
                            let cmd = line.split_whitespace().next().unwrap_or("");
                            self.out.error(&format!(
                                "internal error while handling '{}'; the engine goes on",
                                ascii(cmd, 20)
                            ));
                        }
                    }
                }
                Event::Eof => {
                    log::info!("end of input");
                    break;
                }
                Event::Done(id) => {
                    if matches!(&self.job, Job::Running { id: j, .. } if *j == id) {
                        self.searcher.wait();
                        self.job = Job::Idle;
                    }
                }
            }
        }
        self.shutdown();
    }

    /// Stops a running search for `quit`, waiting a bounded time for its result.
    fn shutdown(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(3);
        match std::mem::replace(&mut self.job, Job::Idle) {
            Job::Idle => {}
            Job::Held { line, ticket, .. } => {
                ticket.emit(&line);
            }
            Job::Running { id, ticket, pos, mate, .. } => {
                self.searcher.stop();
                if !self.wait_for(|e| matches!(e, Event::Done(i) if *i == id), deadline) && !ticket.fired() {
                    log::error!("the search did not stop in time");
                    ticket.emit(&fallback_line(&pos, mate));
                }
            }
        }
    }

    fn wait_for(&self, pred: impl Fn(&Event) -> bool, deadline: Instant) -> bool {
        loop {
            match self.rx.recv_deadline(deadline) {
                Ok(e) if pred(&e) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }

    /// A search thread that ended without a result (a panic) must not leave the GUI waiting.
    fn check_search_alive(&mut self) {
        let Job::Running { ticket, .. } = &self.job else {
            return;
        };
        if ticket.fired() || self.searcher.is_searching() {
            return;
        }
        self.searcher.wait();
        if let Job::Running { ticket, pos, mate, waiting, ponder, restart, .. } =
            std::mem::replace(&mut self.job, Job::Idle)
        {
            if ticket.fired() {
                return;
            }
            log::error!("the search ended without a result");
            let line = fallback_line(&pos, mate);
            if waiting {
                self.job = Job::Held { line, ticket, ponder, restart };
            } else {
                ticket.emit(&line);
            }
        }
    }

    /// A job whose result line is out is over, even if its done event is still queued (the
    /// GUI may answer the `bestmove` before the loop sees the event).
    fn reap(&mut self) {
        if matches!(&self.job, Job::Running { ticket, .. } if ticket.fired()) {
            self.job = Job::Idle;
            self.searcher.wait();
        }
    }

    fn position(&self) -> Position {
        self.pos.clone().unwrap_or_else(|| Position::startpos_in(self.settings.search.variant))
    }

    /// Handles one line from the GUI.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        if let Some(n) = line.strip_prefix(TOO_LONG) {
            self.out.error(&format!("line longer than {} bytes ({} bytes dropped); ignored", MAX_LINE, n.trim()));
            return Flow::Continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = tokens.first() else {
            return Flow::Continue;
        };
        let args = &tokens[1..];
        self.reap();
        let cmd = cmd.to_ascii_lowercase();
        match cmd.as_str() {
            "usi" => self.cmd_usi(),
            "isready" => self.cmd_isready(),
            "setoption" => self.cmd_setoption(line),
            "usinewgame" => {
                if matches!(self.job, Job::Idle) {
                    self.searcher.clear();
                } else {
                    self.clear_pending = true;
                }
            }
            "position" => match parse::position(args, self.settings.search.variant) {
                Ok((pos, problem)) => {
                    self.pos = Some(pos);
                    self.refused = None;
                    if let Some(p) = problem {
                        self.out.error(&p);
                    }
                }
                Err(e) => {
                    self.out.error(&format!(
                        "{e}; position refused: a go answers bestmove resign until a position is accepted"
                    ));
                    self.refused = Some(e);
                }
            },
            "go" => self.cmd_go(args),
            "stop" => self.cmd_stop(),
            "ponderhit" => self.cmd_ponderhit(args),
            "gameover" => {
                if !args.is_empty() && !["win", "lose", "draw"].contains(&args[0]) {
                    log::info!("gameover {}", ascii(args[0], 20));
                }
                self.cmd_stop();
            }
            "quit" => return Flow::Quit,
            "debug" | "register" => log::debug!("ignored: {}", ascii(line, 80)),
            "d" => {
                self.load_net();
                let mut lines = Vec::new();
                if let Some(why) = &self.refused {
                    lines.push(format!(
                        "Position refused ({}): a go answers bestmove resign; shown: the last position accepted",
                        ascii(why, 200)
                    ));
                }
                lines.extend(crate::commands::board::diagram(&self.position()));
                lines.push(self.evaluation_in_use());
                self.out.lines(lines);
            }
            "eval" => {
                self.load_net();
                let net = self.searcher.net().cloned();
                let mut lines =
                    crate::commands::board::eval(&self.position(), net.as_ref(), self.settings.search.fv_scale);
                lines.push(self.evaluation_in_use());
                self.out.lines(lines);
            }
            "perft" => self.cmd_perft(args),
            "bench" => self.cmd_bench(args),
            "help" => self.out.lines((self.help)()),
            // shogiarena's SPSA asks for the tunable parameters (`search::tune`).
            "usi_tunables" => self.out.lines([
                format!("info string shogiarena_tunables_json {}", search::tune::tunables_manifest()),
                "usi_tunablesok".to_string(),
            ]),
            _ => self.out.error(&format!("unknown command '{}' (try help)", ascii(&cmd, 40))),
        }
        Flow::Continue
    }

    fn cmd_usi(&self) {
        let mut lines = vec![
            format!("id name Kaname {}", env!("CARGO_PKG_VERSION")),
            "id author The Kaname developers".to_string(),
        ];
        lines.extend(options::declarations(self.tuning));
        lines.push("usiok".into());
        self.out.lines(lines);
    }

    /// What `prepare` depends on: when it changes, the next `go` prepares again.
    fn prepared_key(&self) -> PreparedKey {
        let o = &self.settings.search;
        (o.hash_mb, o.threads, o.mate_hash_mb, o.eval, o.variant, self.settings.eval_path(), o.fv_scale)
    }

    /// Loads the net of `EvalFile` (in `EvalDir`) when it changed, and says which net it is; a
    /// file that cannot be used is reported once and the net in use stays in use (the
    /// built-in net before any other). Without `EvalFile`, `nn.bin` in `EvalDir` is used when
    /// it is there, the built-in net when not.
    fn load_net(&mut self) {
        let mut file = self.settings.eval_path();
        if self.settings.eval_path_is_default() && !file.is_empty() && !options::locate(&file).is_file() {
            file.clear();
        }
        if self.net_file.as_ref() == Some(&file) {
            return;
        }
        let fv_scale = self.settings.search.fv_scale;
        match options::load_net_reporting(&file) {
            Ok(loaded) => {
                if let Some(l) = &loaded {
                    for w in &l.warnings {
                        self.out.info_string(&format!("warning: EvalFile '{file}': {w}"));
                    }
                    if !file.is_empty() {
                        let what = options::describe_net(&l.net, fv_scale);
                        self.out.info_string(&format!("EvalFile '{file}': {what}"));
                    }
                }
                self.searcher.set_net(loaded.map(|l| l.net));
                self.net_in_use = file.clone();
            }
            Err(e) => {
                if self.searcher.net().is_none() {
                    self.searcher.set_net(options::load_net("").unwrap_or(None));
                }
                let kept = match self.searcher.net() {
                    Some(net) => options::describe_net(net, fv_scale),
                    None => "the classical evaluation".to_string(),
                };
                self.out.error(&format!("{e}; still using {kept}"));
            }
        }
        self.net_file = Some(file);
    }

    /// What evaluates: `Evaluation in use: ...` for `d` and `eval` (the net's family, shape,
    /// `FV_SCALE` and file, or the classical evaluation and why).
    fn evaluation_in_use(&self) -> String {
        let o = &self.settings.search;
        let fv_scale = o.fv_scale;
        let net_asked = o.eval == eval::EvalKind::Net && o.variant == engine::VariantId::Shogi;
        let what = match self.searcher.net().filter(|_| net_asked) {
            Some(net) => {
                let file = &self.net_in_use;
                let from = if file.is_empty() { "built into the binary".to_string() } else { format!("file {file}") };
                format!("{}, {from}", options::describe_net(net, fv_scale))
            }
            None if o.eval == eval::EvalKind::Classical => "classical (EvalKind classical)".into(),
            None => "classical (the net knows standard shogi only, or none is loaded)".into(),
        };
        format!("Evaluation in use: {what}")
    }

    /// `prepare` with a keep-alive empty line every 5 s, so that GUIs do not time out.
    fn prepare(&mut self) {
        self.load_net();
        self.searcher.set_options(&self.settings.search);
        if self.settings.search.eval != self.searcher.eval_in_use() {
            let variant = self.settings.search.variant;
            self.out.info_string(&if variant != engine::VariantId::Shogi {
                format!("EvalKind net: the net knows standard shogi only; using the classical evaluation in {variant}")
            } else {
                "EvalKind net: no net is available; using the classical evaluation".to_string()
            });
        }
        let out = self.out.clone();
        let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(0);
        let searcher = &mut self.searcher;
        let (book, settings, book_out) = (&mut self.book, &self.settings, &*self.out);
        let mapped = std::thread::scope(|s| {
            s.spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = done_rx.recv_timeout(Duration::from_secs(5)) {
                    out.line("");
                }
            });
            let mapped = searcher.prepare();
            book.load(book_out, settings);
            drop(done_tx);
            mapped
        });
        self.prepared = Some(self.prepared_key());
        let mate_mb = self.settings.search.mate_hash_mb.max(1);
        let mate_got = search::mappable_mb(mate_mb);
        for (name, asked, got, cap) in [
            ("USI_Hash", mapped.hash_mb_asked, mapped.hash_mb, mapped.hash_cap_mb),
            ("MateHash", mate_mb, mate_got, search::capped_mb(mate_mb).1),
        ] {
            if let Some(note) = table_size_note(name, asked, got, cap) {
                self.out.info_string(&note);
            }
        }
        if let Some(note) = threads_note(mapped.threads_asked, mapped.threads) {
            self.out.info_string(&note);
        }
        if self.clear_pending {
            self.searcher.clear();
            self.clear_pending = false;
        }
    }

    fn cmd_isready(&mut self) {
        // During a search answer at once and leave the search alone.
        if matches!(self.job, Job::Idle) {
            self.prepare();
        }
        self.out.line("readyok");
    }

    fn cmd_setoption(&mut self, line: &str) {
        // The value is the rest of the line after ` value ` (file paths may contain spaces).
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let name_at = tokens.iter().position(|t| t.eq_ignore_ascii_case("name"));
        let value_at = tokens.iter().position(|t| t.eq_ignore_ascii_case("value"));
        let Some(name_at) = name_at else {
            self.out.error("setoption: expected setoption name <id> [value <x>]");
            return;
        };
        let name_end = value_at.filter(|&v| v > name_at).unwrap_or(tokens.len());
        let name = tokens[name_at + 1..name_end].join(" ");
        if name.is_empty() {
            self.out.error("setoption: missing option name");
            return;
        }
        let value = value_at.map(|v| parse::rest_after_token(line, v).trim());
        let parsed = match options::parse(&name, value) {
            Ok(p) => p,
            Err(e) => {
                self.out.error(&format!("setoption: {e}"));
                return;
            }
        };
        if let Some(w) = &parsed.warning {
            self.out.error(&format!("setoption: {w}"));
        }
        self.settings.apply(parsed.name, &parsed.value);
        match (parsed.name, &parsed.value) {
            // A new game: the position and the tables of the old one mean nothing in it.
            ("USI_Variant", _) if self.pos.as_ref().map(Position::variant) != Some(self.settings.search.variant) => {
                self.pos = None;
                if matches!(self.job, Job::Idle) {
                    self.searcher.clear();
                } else {
                    self.clear_pending = true;
                }
            }
            ("ClearHash", _) => {
                if matches!(self.job, Job::Idle) {
                    self.searcher.clear();
                } else {
                    self.clear_pending = true;
                }
            }
            ("UsiLog", Value::Text(path)) => {
                if let Err(e) = self.out.set_log(path) {
                    self.settings.usi_log.clear();
                    self.out.error(&format!("setoption: cannot open UsiLog file '{}': {e}", ascii(path, 100)));
                }
            }
            ("BookFile" | "BookDir", _) => self.book.forget_file(),
            _ => {}
        }
    }

    /// Ends whatever runs before a new `go`; its result line is printed first.
    fn finish_job(&mut self) {
        match std::mem::replace(&mut self.job, Job::Idle) {
            Job::Idle => {}
            Job::Held { line, ticket, .. } => {
                ticket.emit(&line);
            }
            Job::Running { ticket, pos, mate, .. } => {
                self.searcher.stop();
                self.searcher.wait();
                if !ticket.fired() {
                    log::error!("the search ended without a result");
                    ticket.emit(&fallback_line(&pos, mate));
                }
            }
        }
    }

    fn cmd_go(&mut self, args: &[&str]) {
        self.finish_job();
        if let Some(why) = &self.refused {
            self.answer_refused(args, why.clone());
            return;
        }
        let pos = self.position();
        let (go, problem) = parse::go(args, &pos);
        if let Some(p) = problem {
            self.out.error(&p);
        }
        let id = self.next_id;
        self.next_id += 1;
        if let Some(time) = go.mate {
            self.start_mate(id, pos, time);
            return;
        }
        let mut limits = go.limits;
        // Stochastic_Ponder (YaneuraOu): ponder on the position before the opponent's expected
        // move, the last of `position`; `ponderhit` searches the position sent afresh.
        let mut restart = None;
        let pos = match before_last_move(&pos) {
            Some(before) if limits.ponder && self.settings.search.stochastic_ponder => {
                restart =
                    Some(args.iter().filter(|a| !a.eq_ignore_ascii_case("ponder")).map(|a| a.to_string()).collect());
                // The moves of `searchmoves` are moves of the position sent.
                limits.searchmoves.clear();
                before
            }
            _ => pos,
        };
        let ticket = Ticket::new(&self.out);
        let waiting = limits.infinite || limits.ponder;
        let rule = self.settings.search.entering_king_rule;
        let mut line = search::immediate_result(&pos, rule).map(|r| {
            self.announce_immediate(&pos, &r);
            bestmove_line(&pos, &r)
        });
        // The book answers at once, except under `go infinite` (analysis wants a search).
        if line.is_none() && !limits.infinite && self.settings.own_book && pos.variant() == engine::VariantId::Shogi {
            self.book.load(&self.out, &self.settings);
            line = self.book.answer(&self.out, &self.settings, &pos, &limits);
        }
        if let Some(line) = line {
            if waiting {
                self.job = Job::Held { line, ticket, ponder: limits.ponder, restart };
            } else {
                ticket.emit(&line);
            }
            return;
        }
        self.start_search(id, pos, limits, ticket, restart);
    }

    /// A `go` after a refused `position`: no move of another position, but `bestmove resign`,
    /// or for `go mate` `checkmate notimplemented` (not `nomate`: that would claim a proof
    /// about a position the engine never read; ShogiHome shows `notimplemented` as an error,
    /// `nomate` as the verdict "no mate found"). Under `go ponder`/`go infinite` the answer
    /// waits for `stop`/`ponderhit` like any other.
    fn answer_refused(&mut self, args: &[&str], why: String) {
        let pos = self.position();
        let (go, _) = parse::go(args, &pos);
        let ticket = Ticket::new(&self.out);
        let line = if go.mate.is_some() { "checkmate notimplemented" } else { "bestmove resign" };
        self.out.error(&format!("go: the last position was refused ({why}); answering {line}"));
        let limits = go.limits;
        if go.mate.is_none() && (limits.infinite || limits.ponder) {
            self.job = Job::Held { line: line.to_string(), ticket, ponder: limits.ponder, restart: None };
        } else {
            ticket.emit(line);
        }
    }

    /// The `info` lines of a result found without a search (`search::immediate_info`): a
    /// declaration or a try is `score mate 1`, so a GUI records a score for it.
    fn announce_immediate(&self, pos: &Position, r: &SearchResult) {
        if r.best == search::BestMove::Win {
            self.out.info_string(&format!(
                "entering-king declaration: {} wins by EnteringKingRule {}",
                if pos.side_to_move() == engine::Color::Black { "Black" } else { "White" },
                self.settings.search.entering_king_rule.name()
            ));
        }
        if let Some(info) = search::immediate_info(r) {
            self.out.line(&info_line(pos, &info, CpUnits::Kaname));
        }
    }

    fn start_search(&mut self, id: u64, pos: Position, limits: Limits, ticket: Ticket, restart: Option<Vec<String>>) {
        if self.prepared.as_ref() != Some(&self.prepared_key()) {
            self.prepare();
        } else {
            self.searcher.set_options(&self.settings.search);
            if self.clear_pending {
                self.searcher.clear();
                self.clear_pending = false;
            }
        }
        let out = self.out.clone();
        let info_pos = pos.clone();
        let units = CpUnits::of(&self.searcher);
        let on_info = Box::new(move |info: Info| out.line(&info_line(&info_pos, &info, units)));
        let done_pos = pos.clone();
        let done_ticket = ticket.clone();
        let tx = self.tx.clone();
        let on_done = Box::new(move |r: SearchResult| {
            done_ticket.emit(&bestmove_line(&done_pos, &r));
            let _ = tx.send(Event::Done(id));
        });
        let waiting = limits.infinite || limits.ponder;
        let ponder = limits.ponder;
        self.job = Job::Running { id, ticket, pos: Box::new(pos.clone()), mate: false, waiting, ponder, restart };
        self.searcher.start(pos, limits, on_info, on_done);
    }

    fn start_mate(&mut self, id: u64, pos: Position, time: Option<u64>) {
        self.searcher.set_options(&self.settings.search);
        let out = self.out.clone();
        let on_progress = Box::new(move |p: MateProgress| {
            let nps = crate::commands::bench::nps(p.nodes, p.time_ms);
            out.line(&format!("info nodes {} nps {nps} time {}", p.nodes, p.time_ms));
        });
        let ticket = Ticket::new(&self.out);
        let done_ticket = ticket.clone();
        let done_pos = pos.clone();
        let tx = self.tx.clone();
        let start = Instant::now();
        let on_done = Box::new(move |r: MateResult| {
            log::debug!("go mate took {} ms", start.elapsed().as_millis());
            done_ticket.emit(&checkmate_line(&done_pos, &r));
            let _ = tx.send(Event::Done(id));
        });
        self.job = Job::Running {
            id,
            ticket,
            pos: Box::new(pos.clone()),
            mate: true,
            waiting: false,
            ponder: false,
            restart: None,
        };
        self.searcher.start_mate(pos, time, on_progress, on_done);
    }

    fn cmd_stop(&mut self) {
        match &self.job {
            Job::Idle => log::debug!("stop while idle: ignored"),
            Job::Running { .. } => self.searcher.stop(),
            Job::Held { .. } => {
                if let Job::Held { line, ticket, .. } = std::mem::replace(&mut self.job, Job::Idle) {
                    ticket.emit(&line);
                }
            }
        }
    }

    fn cmd_ponderhit(&mut self, args: &[&str]) {
        let stochastic = matches!(
            &self.job,
            Job::Running { ponder: true, restart: Some(_), .. } | Job::Held { ponder: true, restart: Some(_), .. }
        );
        if stochastic {
            self.stochastic_ponderhit(args);
            return;
        }
        let pos = self.position();
        let (limits, problem) = parse::ponderhit(args, &pos);
        if let Some(p) = problem {
            self.out.error(&p);
        }
        match &mut self.job {
            Job::Running { ponder: p @ true, waiting, .. } => {
                *p = false;
                *waiting = false;
                self.searcher.ponderhit(limits);
            }
            Job::Held { ponder: true, .. } => {
                if let Job::Held { line, ticket, .. } = std::mem::replace(&mut self.job, Job::Idle) {
                    ticket.emit(&line);
                }
            }
            _ => log::debug!("ponderhit while not pondering: ignored"),
        }
    }

    /// `ponderhit` after a `Stochastic_Ponder` `go ponder`: the search of the position before
    /// the expected move ends without a `bestmove`, and the position sent is searched as a new
    /// `go` with the `go ponder`'s arguments, or the `ponderhit`'s clock when it gives one
    /// (YaneuraOu repeats its last `position` and `go` without `ponder`).
    fn stochastic_ponderhit(&mut self, args: &[&str]) {
        let go_args = match std::mem::replace(&mut self.job, Job::Idle) {
            Job::Running { ticket, restart, .. } => {
                ticket.cancel();
                self.searcher.stop();
                self.searcher.wait();
                restart
            }
            Job::Held { ticket, restart, .. } => {
                ticket.cancel();
                restart
            }
            other => {
                self.job = other;
                return;
            }
        };
        let go_args = go_args.unwrap_or_default();
        let go_args: Vec<&str> =
            if args.is_empty() { go_args.iter().map(String::as_str).collect() } else { args.to_vec() };
        self.cmd_go(&go_args);
    }

    fn busy_error(&self, what: &str) -> bool {
        if matches!(self.job, Job::Idle) {
            return false;
        }
        self.out.error(&format!("{what} is not available while a search runs (send stop first)"));
        true
    }

    fn cmd_perft(&mut self, args: &[&str]) {
        if self.busy_error("perft") {
            return;
        }
        match args.first().map(|d| d.parse::<u32>()) {
            Some(Ok(d)) if crate::commands::perft::DEPTHS.contains(&u64::from(d)) => {
                let lines = crate::commands::perft::perft(&self.position(), d, engine::LastPly::Count);
                self.out.lines(lines);
            }
            _ => self.out.error("perft: expected perft <depth 1..12>"),
        }
    }

    fn cmd_bench(&mut self, args: &[&str]) {
        if self.busy_error("bench") {
            return;
        }
        let (depth, threads, hash) = match crate::commands::bench::session_args(args) {
            Ok(a) => a,
            Err(e) => {
                self.out.error(&format!("bench: {e}"));
                return;
            }
        };
        self.load_net();
        let mut o = self.settings.search.clone();
        o.threads = threads.unwrap_or(o.threads);
        o.hash_mb = hash.unwrap_or(o.hash_mb);
        self.searcher.set_options(&o);
        self.searcher.prepare();
        self.prepared = None;
        let out = self.out.clone();
        crate::commands::bench::run(&mut self.searcher, depth, self.settings.search.variant, &mut |l| out.line(&l));
        self.searcher.clear();
        self.searcher.set_options(&self.settings.search);
    }
}

/// The result line of a job that ended without one: a legal `bestmove`, or for `go mate`
/// `checkmate timeout`.
fn fallback_line(pos: &Position, mate: bool) -> String {
    if mate {
        "checkmate timeout".into()
    } else {
        fallback_bestmove(pos)
    }
}

/// What a user is told when the table `name` got less than the `asked` MiB: the machine could
/// spare only `cap` MiB (half of what it had available), or could map only `got`.
fn table_size_note(name: &str, asked: usize, got: usize, cap: Option<usize>) -> Option<String> {
    if got >= asked {
        return None;
    }
    Some(match cap {
        Some(cap) if got == cap => format!(
            "{name} {asked} MiB is more than this machine can spare: using {got} MiB, half of the memory \
             available, the rest left to the OS, the GUI and another engine"
        ),
        _ => format!("{name} {asked} MiB is more memory than this machine can map; using {got} MiB"),
    })
}

/// The `info string` for `Threads` larger than the machine could give memory (`asked` threads,
/// `got` with their tables), if it was.
fn threads_note(asked: usize, got: usize) -> Option<String> {
    (got < asked)
        .then(|| format!("Threads {asked} is more than this machine has memory for: searching with {got} threads"))
}

#[cfg(test)]
mod table_note_tests {
    use super::table_size_note;

    #[test]
    fn a_table_smaller_than_asked_is_explained_by_its_cause() {
        assert_eq!(table_size_note("USI_Hash", 256, 256, None), None);
        let capped = table_size_note("USI_Hash", 65536, 11000, Some(11000)).unwrap();
        assert!(capped.starts_with("USI_Hash 65536 MiB is more than this machine can spare: using 11000 MiB"));
        let unmapped = table_size_note("MateHash", 65536, 4096, Some(8000)).unwrap();
        assert_eq!(unmapped, "MateHash 65536 MiB is more memory than this machine can map; using 4096 MiB");
    }

    #[test]
    fn threads_without_memory_are_explained() {
        assert_eq!(super::threads_note(8, 8), None);
        assert_eq!(
            super::threads_note(256, 97).unwrap(),
            "Threads 256 is more than this machine has memory for: searching with 97 threads"
        );
    }
}
