//! The engine's own book in a session (`USI_OwnBook`): the book of `BookFile`, opened once per
//! setting at `isready` (or the next `go`), and its answer to a `go`: a book move, announced.

use crate::book::{self, Book};
use crate::protocol::lines::bestmove_line;
use crate::protocol::options::Settings;
use crate::protocol::output::Output;
use engine::{Move, Position};
use search::{BestMove, Limits, SearchResult};
use std::time::Instant;

/// The opening book of `BookFile`, opened once per setting.
pub struct OwnBook {
    /// The book path (`BookFile` in `BookDir`) last opened, or tried (`None`: open at the next chance).
    file: Option<String>,
    /// The book, when `file` could be opened.
    book: Option<Book>,
    /// Chooses among book moves.
    rng: eval::rng::Rng,
}

impl OwnBook {
    /// No book yet; the choice among book moves seeded by the clock and the process.
    pub fn new() -> OwnBook {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id()).rotate_left(32);
        OwnBook { file: None, book: None, rng: eval::rng::Rng::new(seed) }
    }

    /// `BookFile` or `BookDir` was set: open it again at the next chance, even if the name is the same.
    pub fn forget_file(&mut self) {
        self.file = None;
    }

    /// Opens the book of `BookFile` (in `BookDir`) if it changed (only under `USI_OwnBook`). A
    /// file that cannot be used is reported once; play goes on without a book.
    pub fn load(&mut self, out: &Output, settings: &Settings) {
        let file = &settings.book_path();
        if !settings.own_book || self.file.as_ref() == Some(file) {
            return;
        }
        self.book = None;
        self.file = Some(file.clone());
        if file.is_empty() {
            return;
        }
        let start = Instant::now();
        match Book::open(&crate::protocol::options::locate(file).to_string_lossy()) {
            Ok(b) => {
                log::info!("book opened in {} ms (on disk: {})", start.elapsed().as_millis(), b.on_disk());
                out.info_string(&b.summary);
                if let Some(p) = &b.problem {
                    out.error(p);
                }
                self.book = Some(b);
            }
            Err(e) => out.error(&format!("{e}; playing without a book")),
        }
    }

    /// The book's move for `pos`, announced (`info string book ...` and one `info ... pv` line
    /// per book move up to `MultiPV`, the chosen one first), as a `bestmove` line. A book that
    /// fails while read is reported and dropped; play goes on without it.
    pub fn answer(&mut self, out: &Output, settings: &Settings, pos: &Position, limits: &Limits) -> Option<String> {
        let b = self.book.as_ref()?;
        let opts = &settings.book;
        let probe = match book::probe(b, pos, opts, &limits.searchmoves, &mut self.rng) {
            Ok(p) => p,
            Err(e) => {
                out.error(&format!("{e}; playing without a book"));
                self.book = None;
                return None;
            }
        };
        for note in &probe.notes {
            match note.strip_prefix("error: ") {
                Some(e) => out.error(e),
                None => out.info_string(note),
            }
        }
        let hit = probe.hit?;
        let e = &hit.best.entry;
        out.info_string(&format!(
            "book {} (value {}, depth {}, count {}; {} legal book move{})",
            hit.best.mv,
            e.value,
            e.depth,
            e.count,
            hit.all.len(),
            if hit.all.len() == 1 { "" } else { "s" }
        ));
        let mut lines = vec![(hit.best.clone(), hit.pv.clone())];
        for c in hit.all.iter().filter(|c| c.mv != hit.best.mv) {
            if lines.len() >= settings.search.multipv {
                break;
            }
            lines.push((c.clone(), book::book_pv(b, pos, c, opts.pv_moves.max(1) as usize, opts.flipped)));
        }
        for (i, (c, pv)) in lines.iter().enumerate() {
            let moves: Vec<String> = pv.iter().map(Move::to_string).collect();
            out.line(&format!(
                "info depth {d} seldepth {d} multipv {} {} time 0 nodes 0 nps 0 pv {}",
                i + 1,
                book::score_text(c.entry.value),
                moves.join(" "),
                d = c.entry.depth.max(0),
            ));
        }
        let r = SearchResult { best: BestMove::Move(hit.best.mv), ponder: hit.ponder };
        Some(bestmove_line(pos, &r))
    }
}
