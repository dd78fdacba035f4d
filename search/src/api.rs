//! The facade the USI front end drives: `Searcher` owns the transposition table and the
//! worker threads, runs searches in the background and reports through callbacks.

use crate::mate::{MateProgress, MateQuery, MateResult};
use crate::protocol::{DoneSink, Info, InfoSink, Limits, Options, SearchResult};
use crate::search::Worker;
use crate::shared::Control;
use crate::thread::search_root;
use crate::tt::TranspositionTable;
use crate::types::*;
use engine::Position;
use parking_lot::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Receives the mate solver's progress (about once a second) during `Searcher::start_mate`.
pub type MateProgressSink = Box<dyn FnMut(MateProgress) + Send>;
/// Receives the answer of `Searcher::start_mate`, exactly once.
pub type MateDoneSink = Box<dyn FnOnce(MateResult) + Send>;

/// What `Searcher::prepare` mapped: the hash table's size asked for and got, in MiB (smaller
/// than asked when the machine could not map that much: the largest halving it could).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prepared {
    /// `Options::hash_mb` (at least 1).
    pub hash_mb_asked: usize,
    /// The table's size.
    pub hash_mb: usize,
    /// The cap that made the table smaller than asked (`capped_mb`), in MiB, if one did.
    pub hash_cap_mb: Option<usize>,
    /// `Options::threads` (at least 1).
    pub threads_asked: usize,
    /// The search threads that have their tables: fewer than asked when the machine refused
    /// the memory of the others.
    pub threads: usize,
}

/// The search engine: owns the transposition table and the worker threads.
pub struct Searcher {
    options: Options,
    tt: Arc<TranspositionTable>,
    /// The size in MiB the table was asked to be (it is smaller if the machine could not map it).
    tt_asked_mb: usize,
    /// Whether a search has written into the table since it was last emptied.
    tt_used: bool,
    /// The memory cap that made the table smaller than asked, in MiB, if one did.
    tt_cap_mb: Option<usize>,
    workers: Arc<Mutex<Vec<Worker>>>,
    control: Arc<Control>,
    handle: Option<JoinHandle<()>>,
    /// The net `EvalKind` `Net` evaluates with.
    net: Option<eval::Net>,
}

impl Default for Searcher {
    fn default() -> Self {
        Searcher::new()
    }
}

impl Searcher {
    /// A searcher with default options; allocates nothing heavy (that happens in `prepare`).
    pub fn new() -> Searcher {
        Searcher {
            options: Options::default(),
            tt: Arc::new(TranspositionTable::new(1)),
            tt_asked_mb: 1,
            tt_used: false,
            tt_cap_mb: None,
            workers: Arc::new(Mutex::new(Vec::new())),
            control: Arc::new(Control::idle()),
            handle: None,
            net: None,
        }
    }

    /// Applies options (takes effect for the next search; call `prepare` to resize tables).
    pub fn set_options(&mut self, options: &Options) {
        self.options = options.clone();
    }

    /// Sets the net for `EvalKind::Net` (takes effect at the next `prepare`).
    pub fn set_net(&mut self, net: Option<eval::Net>) {
        self.net = net;
    }

    /// The net set by `set_net`.
    pub fn net(&self) -> Option<&eval::Net> {
        self.net.as_ref()
    }

    /// The evaluation the next search will use: `Net` only when asked for, a net is set and the
    /// game is standard shogi.
    pub fn eval_in_use(&self) -> eval::EvalKind {
        match (self.options.eval, &self.net) {
            (eval::EvalKind::Net, Some(_)) if self.options.variant == engine::VariantId::Shogi => eval::EvalKind::Net,
            _ => eval::EvalKind::Classical,
        }
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Heavy initialisation for `isready`: (re)allocates the hash table and the per-thread
    /// statistics to match the options, and says what it mapped. Changes nothing while a search
    /// runs.
    pub fn prepare(&mut self) -> Prepared {
        let prepared = Prepared {
            hash_mb_asked: self.options.hash_mb.max(1),
            hash_mb: self.tt.size_mb(),
            hash_cap_mb: self.tt_cap_mb,
            threads_asked: self.options.threads.max(1),
            threads: self.options.threads.max(1),
        };
        if self.is_searching() {
            return prepared;
        }
        self.wait();
        let mb = self.options.hash_mb.max(1);
        // Not on the count of the table's holders: the thread mapping its pages holds it too.
        if self.tt_asked_mb != mb {
            self.replace_table();
        }
        let mut workers = self.workers.lock();
        let n = self.options.threads.max(1);
        workers.truncate(n);
        let net = match self.eval_in_use() {
            eval::EvalKind::Net => self.net.clone(),
            eval::EvalKind::Classical => None,
        };
        for w in workers.iter_mut() {
            w.use_net(net.clone(), self.options.fv_scale);
        }
        // As many as the machine gives memory for: a `Threads` it cannot hold is not fatal.
        // Each gets its evaluator before the next is made (`Worker::try_new` leaves room for it).
        while workers.len() < n {
            let Some(mut w) = Worker::try_new(workers.len()) else { break };
            w.use_net(net.clone(), self.options.fv_scale);
            workers.push(w);
        }
        let threads = workers.len();
        Prepared { hash_mb: self.tt.size_mb(), hash_cap_mb: self.tt_cap_mb, threads, ..prepared }
    }

    /// A fresh table of `hash_mb` MiB (at most what the machine can spare, `capped_mb`, or the
    /// largest halving of that it can map), its pages mapped now (in `isready`) rather than by
    /// page faults during the first search, as far as `TOUCH_BUDGET` allows.
    fn replace_table(&mut self) {
        // Drop the old table first: its memory may be what the new one needs.
        self.tt = Arc::new(TranspositionTable::new(1));
        self.tt_asked_mb = self.options.hash_mb.max(1);
        let (mb, cap) = capped_mb(self.tt_asked_mb);
        self.tt_cap_mb = cap;
        self.tt = Arc::new(TranspositionTable::largest_up_to(mb));
        if !self.tt.touch(self.helper_threads(), Instant::now() + TOUCH_BUDGET) {
            TranspositionTable::map_rest_in_background(&self.tt);
        }
        self.tt_used = false;
    }

    /// Maps now every page of the table that `prepare` left to the background, however long it
    /// takes (`bench`: its node count must not depend on how fast the machine maps memory).
    pub fn finish_mapping(&mut self) {
        self.wait();
        self.tt.touch(self.helper_threads(), Instant::now() + Duration::from_secs(1 << 30));
    }

    /// Threads for work between searches (mapping and clearing the table): the `Threads`
    /// option or the machine's cores, whichever is more; nothing else runs then.
    fn helper_threads(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.options.threads.max(cores)
    }

    /// The hash table's size in MiB: `Options::hash_mb` after `prepare`, unless the machine
    /// could not map that much, in which case the largest halving of it that it could.
    pub fn hash_mb_in_use(&self) -> usize {
        self.tt.size_mb()
    }

    /// Forgets everything learned (`usinewgame`, `ClearHash`).
    pub fn clear(&mut self) {
        if self.is_searching() {
            return;
        }
        self.wait();
        if self.tt_used {
            self.tt.clear(self.helper_threads());
            self.tt_used = false;
        }
        for w in self.workers.lock().iter_mut() {
            w.hist.clear();
        }
    }

    /// What every search does first: waits for the previous job, applies the options
    /// (`prepare`), marks the table used (for `clear`) and, with `new_generation`, ages its
    /// entries. The search's control.
    fn begin_search(&mut self, pos: &Position, limits: &Limits, new_generation: bool) -> Control {
        self.wait();
        self.prepare();
        if new_generation {
            self.tt.new_search();
        }
        self.tt_used = true;
        Control::new(pos, limits, &self.options)
    }

    /// Starts searching `pos` (a position with its game history) in the background. `on_done`
    /// is called exactly once; under `infinite` or `ponder` not before `stop`/`ponderhit`.
    pub fn start(&mut self, pos: Position, limits: Limits, on_info: InfoSink, on_done: DoneSink) {
        // A fresh control per search: a `stop` meant for an earlier search cannot reach it.
        self.control = Arc::new(self.begin_search(&pos, &limits, true));
        let control = self.control.clone();
        let tt = self.tt.clone();
        let workers = self.workers.clone();
        let options = self.options.clone();
        self.handle = Some(
            std::thread::Builder::new()
                .name("search".into())
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(move || {
                    let result = search_root(&pos, &limits, &options, &tt, &workers, &control, on_info);
                    // Under infinite or ponder the GUI expects nothing before stop/ponderhit.
                    while control.must_hold_result(limits.infinite) {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    on_done(result);
                })
                .expect("spawn search thread"),
        );
    }

    /// Starts `go mate` on `pos` in the background: the mate solver with a table of
    /// `Options::mate_hash_mb`, for `time_ms` (`None`: until `stop`). It is a job like a search:
    /// `stop` ends it, `is_searching` and `wait` see it, and `on_done` is called exactly once
    /// (with `Timeout` if the solver panicked).
    pub fn start_mate(
        &mut self,
        pos: Position,
        time_ms: Option<u64>,
        mut on_progress: MateProgressSink,
        on_done: MateDoneSink,
    ) {
        self.wait();
        self.control = Arc::new(Control::new(&pos, &Limits::default(), &self.options));
        let control = self.control.clone();
        let query = MateQuery::new(self.options.mate_hash_mb).time(time_ms);
        self.handle = Some(
            std::thread::Builder::new()
                .name("mate".into())
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(move || {
                    let query = query.stop(&control.stop);
                    let result = catch_unwind(AssertUnwindSafe(|| query.solve(&pos, Some(&mut *on_progress)).result))
                        .unwrap_or_else(|_| {
                            log::error!("the mate solver panicked");
                            MateResult::Timeout
                        });
                    on_done(result);
                })
                .expect("spawn mate thread"),
        );
    }

    /// Asks the running search to stop at once (it still reports its result through `on_done`).
    pub fn stop(&self) {
        self.control.request_stop();
    }

    /// The opponent played the expected move: switch from pondering to a normal timed search.
    /// The clock starts now; `limits`, when given, replaces the clock of the `go ponder`
    /// (YaneuraOu's `ponderhit btime .. wtime ..` extension).
    pub fn ponderhit(&self, limits: Option<Limits>) {
        self.control.ponderhit(limits.as_ref(), &self.options);
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Waits for the running search (if any) to finish.
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Searches `pos` to `limits` in the calling thread's time (no callbacks) and returns the
    /// result with the last `info` the search reported: what self-play needs for each move.
    pub fn think(&mut self, pos: &Position, limits: Limits) -> (SearchResult, Option<Info>) {
        let control = self.begin_search(pos, &limits, true);
        let last = Arc::new(Mutex::new(None));
        let sink = last.clone();
        let (options, tt, workers) = (&self.options, &*self.tt, &*self.workers);
        let result = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, || {
                    let on_info: InfoSink = Box::new(move |info| *sink.lock() = Some(info));
                    search_root(pos, &limits, options, tt, workers, &control, on_info)
                })
                .expect("spawn search thread")
                .join()
                .expect("search thread")
        });
        let info = last.lock().take();
        (result, info)
    }

    /// Runs a fixed-depth search of `pos` with the configured threads and tables and returns
    /// the nodes searched. With one thread, after `clear`, the count is deterministic: the
    /// `bench` signature.
    pub fn bench_search(&mut self, pos: &Position, depth: i32) -> u64 {
        let limits = Limits { depth: Some(depth), ..Default::default() };
        // No new table generation: `bench` searches each position from an emptied table alike.
        let control = self.begin_search(pos, &limits, false);
        let (options, tt, workers) = (&self.options, &*self.tt, &*self.workers);
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, || {
                    search_root(pos, &limits, options, tt, workers, &control, Box::new(|_| {}));
                })
                .expect("spawn bench thread");
        });
        self.workers.lock().iter().map(|w| w.nodes).sum()
    }
}

/// The largest of `mb`, `mb / 2`, `mb / 4`, ... MiB (at least 1) that the machine can map
/// now, after the cap of `capped_mb`: the size a table asked to be `mb` MiB gets (the mate
/// table of `go mate`, say).
pub fn mappable_mb(mb: usize) -> usize {
    let mb = capped_mb(mb).0;
    // SAFETY: bytes, for which all-zero is a valid value; the memory is only mapped, then freed.
    let probe =
        unsafe { engine::hugemem::ZeroedArray::<u8>::largest_up_to(mb.max(1).saturating_mul(1 << 20), 1 << 20) };
    probe.len() >> 20
}

/// A table asked to be `mb` MiB takes at most what the machine can spare now
/// (`engine::hugemem::table_cap`: half of the memory available), at least 1 MiB: the size, and
/// the cap in MiB when it was the smaller.
pub fn capped_mb(mb: usize) -> (usize, Option<usize>) {
    let mb = mb.max(1);
    match engine::hugemem::table_cap().map(|b| (b >> 20).max(1) as usize) {
        Some(cap) if cap < mb => (cap, Some(cap)),
        _ => (mb, None),
    }
}

/// How long `isready` (or a `go` that resizes the table) spends mapping a fresh table's pages
/// before it leaves the rest to the search; with clearing and freeing the old table, `readyok`
/// comes within about a second whatever `USI_Hash` is (issue 66).
const TOUCH_BUDGET: Duration = Duration::from_millis(700);
