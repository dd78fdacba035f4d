//! Self-play games that make training positions (`kaname gensfen`): each game starts from the
//! start position (or a line of an openings file) plus a few random moves for variety, then
//! both sides search every move to a fixed node or depth budget. Every searched position is
//! a `TrainingPosition` (the position, the search's score and best move, the ply, and the
//! game's result from the side to move's view, filled in when the game ends).
//!
//! The game rules are the engine's own: mate (no legal move), entering-king declaration,
//! repetition (draw, or a loss for perpetual check), the ply limit (draw), and adjudication
//! once one side's score stays beyond `adjudicate_score` for `adjudicate_plies` plies in a row
//! (the side ahead wins: self-play to the mate teaches little and costs a lot).

use crate::{BestMove, Limits, Score, Searcher};
use engine::{generate_legal, Color, Move, MoveList, Position, Repetition};
use eval::rng::Rng;

/// How self-play games are played.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    /// Node budget per move (`go nodes`); used when `depth` is `None`.
    pub nodes: u64,
    /// Depth budget per move, instead of nodes.
    pub depth: Option<i32>,
    /// Random legal moves played at the start of each game: uniformly between these (inclusive).
    pub random_plies: (u32, u32),
    /// The game is a draw after this many plies.
    pub max_plies: u32,
    /// Adjudication: a score beyond this ...
    pub adjudicate_score: i32,
    /// ... for this many consecutive plies ends the game.
    pub adjudicate_plies: u32,
    /// Seed of the game's random moves: game `i` of a run uses `seed` and `i` only, so a run
    /// repeats exactly (with one thread per game and node budgets).
    pub seed: u64,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            nodes: 6000,
            depth: None,
            random_plies: (8, 24),
            max_plies: 320,
            adjudicate_score: 3000,
            adjudicate_plies: 6,
            seed: 2026,
        }
    }
}

/// One position of a self-play game, as training needs it.
#[derive(Clone, Debug)]
pub struct TrainingPosition {
    /// The position, packed (YaneuraOu's PackedSfen).
    pub packed: [u8; 32],
    /// The side to move.
    pub side: Color,
    /// The search's score from the side to move's point of view (never a mate score).
    pub score: i32,
    /// The move the search chose.
    pub best: Move,
    /// The position's move number in its game (the SFEN's last field: 1 at the start).
    pub game_ply: u32,
    /// The game's result from the side to move's point of view: 1 win, 0 draw, -1 loss.
    pub result: i8,
}

/// How a self-play game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// This side won (mate, declaration, perpetual check by the other, adjudication).
    Win(Color),
    /// Repetition or the ply limit.
    Draw,
}

/// The end of the game at `pos` before the side to move plays, if it has ended.
fn game_end(pos: &Position, config: &SelfPlayConfig, searcher: &Searcher) -> Option<GameEnd> {
    let us = pos.side_to_move();
    let mut legal = MoveList::new();
    generate_legal(pos, &mut legal);
    if legal.is_empty() {
        return Some(GameEnd::Win(!us));
    }
    match pos.repetition(0) {
        Repetition::Draw => return Some(GameEnd::Draw),
        Repetition::Win => return Some(GameEnd::Win(us)),
        Repetition::Lose => return Some(GameEnd::Win(!us)),
        _ => {}
    }
    if pos.declaration_win(searcher.options().entering_king_rule) {
        return Some(GameEnd::Win(us));
    }
    if pos.game_ply() > config.max_plies {
        return Some(GameEnd::Draw);
    }
    None
}

/// Plays one game from `start` with `searcher` (whose options are used as they are; give it
/// one thread so that a node budget makes the game reproducible) and returns its searched
/// positions, results filled in, and how it ended. `rng` supplies the opening's random moves.
pub fn play_game(
    searcher: &mut Searcher,
    start: &Position,
    config: &SelfPlayConfig,
    rng: &mut Rng,
) -> (Vec<TrainingPosition>, GameEnd) {
    let mut pos = start.clone();
    searcher.clear();
    for _ in 0..rng.range(config.random_plies.0 as i64, config.random_plies.1 as i64) {
        let mut legal = MoveList::new();
        generate_legal(&pos, &mut legal);
        if legal.is_empty() {
            break;
        }
        let m = legal.as_slice()[rng.modulo(legal.len() as u64) as usize];
        pos.do_move(m);
    }
    let mut records = Vec::new();
    let mut streak = 0u32;
    let end = loop {
        if let Some(end) = game_end(&pos, config, searcher) {
            break end;
        }
        let limits = match config.depth {
            Some(d) => Limits { depth: Some(d), ..Default::default() },
            None => Limits { nodes: Some(config.nodes), ..Default::default() },
        };
        let us = pos.side_to_move();
        let (result, info) = searcher.think(&pos, limits);
        let m = match result.best {
            BestMove::Move(m) => m,
            BestMove::Resign => break GameEnd::Win(!us),
            BestMove::Win => break GameEnd::Win(us),
        };
        match info.map(|i| i.score) {
            Some(Score::Cp(v)) => {
                // A position without all 40 pieces (a handicap start) cannot be packed: skip it.
                if let Ok(packed) = engine::pack(&pos) {
                    let game_ply = pos.game_ply();
                    records.push(TrainingPosition { packed, side: us, score: v, best: m, game_ply, result: 0 });
                }
                streak = if v.abs() >= config.adjudicate_score { streak + 1 } else { 0 };
                if streak >= config.adjudicate_plies {
                    break GameEnd::Win(if v > 0 { us } else { !us });
                }
            }
            // A mate score says who wins but is no evaluation to learn.
            Some(Score::Mate(_)) | None => streak = 0,
        }
        pos.do_move(m);
    };
    for r in &mut records {
        r.result = match end {
            GameEnd::Draw => 0,
            GameEnd::Win(c) if c == r.side => 1,
            GameEnd::Win(_) => -1,
        };
    }
    (records, end)
}

/// Plays games on `threads` threads, one `Searcher` (one search thread, `options`' tables)
/// each, until `sink` says stop: each finished game's positions go to `sink`, on the calling
/// thread with the game's index, and `sink` returns whether to go on. Game `first_game + i` (i counting games as they
/// start) takes its random moves from `Rng::stream(config.seed, first_game + i)`, so a run
/// resumed with `first_game` past the games already played never repeats one. Games still
/// being played when `sink` says stop are finished and dropped. Returns the first game index
/// this run did not start (where a resumed run should begin).
pub fn run(
    config: &SelfPlayConfig,
    options: &crate::Options,
    threads: usize,
    first_game: u64,
    sink: impl FnMut(u64, Vec<TrainingPosition>, GameEnd) -> bool,
) -> u64 {
    run_with_net(config, options, None, threads, first_game, sink)
}

/// `run`, evaluating with `net` when `options.eval` asks for a net.
pub fn run_with_net(
    config: &SelfPlayConfig,
    options: &crate::Options,
    net: Option<eval::Net>,
    threads: usize,
    first_game: u64,
    mut sink: impl FnMut(u64, Vec<TrainingPosition>, GameEnd) -> bool,
) -> u64 {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let next_game = AtomicU64::new(first_game);
    let done = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next_game, done) = (&next_game, &done);
            let net = net.clone();
            s.spawn(move || {
                let mut searcher = Searcher::new();
                searcher.set_options(&crate::Options { threads: 1, ..options.clone() });
                searcher.set_net(net);
                searcher.prepare();
                while !done.load(Ordering::Relaxed) {
                    let game = next_game.fetch_add(1, Ordering::Relaxed);
                    let mut rng = Rng::stream(config.seed, game);
                    let (records, end) = play_game(&mut searcher, &Position::startpos(), config, &mut rng);
                    if tx.send((game, records, end)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (game, records, end) in rx.iter() {
            if done.load(Ordering::Relaxed) {
                continue;
            }
            if !sink(game, records, end) {
                done.store(true, Ordering::Relaxed);
            }
        }
    });
    next_game.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn searcher() -> Searcher {
        let mut s = Searcher::new();
        s.set_options(&Options { hash_mb: 4, ..Options::default() });
        s.prepare();
        s
    }

    #[test]
    fn a_game_yields_positions_with_consistent_results() {
        let config = SelfPlayConfig { nodes: 300, max_plies: 60, ..Default::default() };
        let mut s = searcher();
        let (recs, end) = play_game(&mut s, &Position::startpos(), &config, &mut Rng::stream(1, 0));
        assert!(!recs.is_empty());
        for r in &recs {
            let pos = engine::unpack(&r.packed).unwrap();
            assert_eq!(pos.side_to_move(), r.side);
            assert!(pos.is_legal(r.best), "{} {}", pos.to_sfen(), r.best);
            assert!(r.score.abs() < 30000);
            let want = match end {
                GameEnd::Draw => 0,
                GameEnd::Win(c) => {
                    if c == pos.side_to_move() {
                        1
                    } else {
                        -1
                    }
                }
            };
            assert_eq!(r.result, want);
        }
        // The random opening moves are not recorded: the first record is past them.
        assert!(recs[0].game_ply > config.random_plies.0);
    }

    #[test]
    fn games_repeat_exactly_for_the_same_seed() {
        let config = SelfPlayConfig { nodes: 200, max_plies: 40, ..Default::default() };
        let mut s = searcher();
        let a = play_game(&mut s, &Position::startpos(), &config, &mut Rng::stream(7, 3)).0;
        let b = play_game(&mut s, &Position::startpos(), &config, &mut Rng::stream(7, 3)).0;
        let c = play_game(&mut s, &Position::startpos(), &config, &mut Rng::stream(7, 4)).0;
        let key = |v: &Vec<TrainingPosition>| {
            v.iter().map(|r| format!("{:?} {} {}", r.packed, r.score, r.best)).collect::<Vec<_>>()
        };
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
    }

    #[test]
    fn a_run_stops_when_the_sink_says_so() {
        let config = SelfPlayConfig { nodes: 100, max_plies: 40, ..Default::default() };
        let options = Options { hash_mb: 2, ..Options::default() };
        let (mut games, mut positions) = (0, 0);
        run(&config, &options, 2, 0, |_, recs, _| {
            games += 1;
            positions += recs.len();
            positions < 50
        });
        assert!(positions >= 50 && games >= 1);
    }

    #[test]
    fn a_mated_side_loses() {
        // White to move is mated: the game ends at once as Black's win.
        let pos = Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap();
        let config = SelfPlayConfig { random_plies: (0, 0), ..Default::default() };
        let mut s = searcher();
        let (recs, end) = play_game(&mut s, &pos, &config, &mut Rng::stream(1, 1));
        assert!(recs.is_empty());
        assert_eq!(end, GameEnd::Win(Color::Black));
    }
}
