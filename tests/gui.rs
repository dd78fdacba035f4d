//! The engine as the GUIs drive it: ShogiHome, ShogiGUI and Shogidokoro (将棋所). Each test
//! says which GUI does what, from `shared/reference/usi.md`'s notes and ShogiHome's source
//! (sunfish-shogi/shogihome: `src/background/usi/engine.ts`, the USI process;
//! `src/renderer/players/usi.ts`, what is recorded; `src/background/usi/process.ts`), so that
//! the next fault a GUI trips on is ours to find first.
//!
//! **The record.** ShogiHome, like ShogiGUI and Shogidokoro, keeps the last
//! `info ... multipv 1 ... score ...` line before `bestmove` as the move's evaluation and line of
//! play (the record's 評価値 and 読み筋, the evaluation graph): `USIPlayer.onUSIInfo` keeps the
//! lines of `multipv 1` (or without `multipv`), and `onBestMove` attaches that line to the move
//! only when its first move is the `bestmove`, and ponders on the `bestmove`'s ponder move. So
//! for every move of every game here the recorded line must be exact (no `lowerbound`/
//! `upperbound`), start with the `bestmove`, continue with the ponder move, and be whole (two
//! moves at least, unless the line ends the game: a mate as long as its distance).

mod common;

use common::{errors, Engine, LIVE};
use engine::{MoveList, Position};
use std::time::Duration;

/// `setoption` values a user changed in the GUI's engine settings (the rest are sent with
/// their defaults). A small hash: several engines run at once on a 2-core machine.
const USER: &[(&str, &str)] = &[("USI_Hash", "16"), ("MateHash", "16")];

/// One declared option: name, type, default (`<empty>` as it is declared).
struct Declared {
    name: String,
    kind: String,
    default: String,
    min: Option<String>,
    max: Option<String>,
}

fn parse_option(line: &str) -> Option<Declared> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.first() != Some(&"option") || t.get(1) != Some(&"name") {
        return None;
    }
    let after = |key: &str| t.iter().position(|w| *w == key).and_then(|i| t.get(i + 1)).map(|s| s.to_string());
    Some(Declared {
        name: t[2].to_string(),
        kind: after("type")?,
        default: after("default").unwrap_or_default(),
        min: after("min"),
        max: after("max"),
    })
}

/// A GUI's engine: the process, what it declared, and what the GUI recorded.
struct Gui {
    e: Engine,
    declared: Vec<Declared>,
    /// The move the engine ponders on (after its last `bestmove ... ponder`), if it does.
    pondering: Option<String>,
    /// The lines recorded for the moves it played.
    records: usize,
    /// `Stochastic_Ponder` is on: after `stop` (a ponder miss) the `bestmove` is a move of the
    /// position before the expected move (which the GUI discards).
    stochastic: bool,
}

impl Gui {
    /// Launches as ShogiHome does (`EngineProcess`): `usi`; then every declared option, the
    /// user's value or else its default, on every launch (ShogiHome sends `setoption name <n>
    /// value <v>` for each, an empty string as `value ` with nothing after the space; buttons
    /// are not sent); `USI_Hash` and `USI_Ponder` whatever was declared (ShogiHome and
    /// Shogidokoro always send both); `isready`; and `usinewgame` right after `readyok`, with
    /// no `isready` before the first `position`.
    fn launch(values: &[(&str, &str)]) -> Gui {
        let mut e = Engine::spawn();
        e.send("usi");
        let (_, lines) = e.expect("usiok", LIVE);
        let declared: Vec<Declared> = lines.iter().filter_map(|l| parse_option(l)).collect();
        let value_of = |name: &str| {
            values.iter().chain(USER).find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.to_string())
        };
        for d in &declared {
            if d.kind == "button" {
                continue;
            }
            let default = if d.default == "<empty>" { String::new() } else { d.default.clone() };
            let v = value_of(&d.name).unwrap_or(default);
            e.send(&format!("setoption name {} value {v}", d.name));
        }
        for name in ["USI_Hash", "USI_Ponder"] {
            let v = value_of(name).unwrap_or_else(|| if name == "USI_Hash" { "16".into() } else { "false".into() });
            e.send(&format!("setoption name {name} value {v}"));
        }
        e.send("isready");
        e.expect("readyok", LIVE * 3);
        e.send("usinewgame");
        let stochastic = value_of("Stochastic_Ponder").is_some_and(|v| v == "true");
        Gui { e, declared, pondering: None, records: 0, stochastic }
    }

    /// Between games (ShogiHome, Shogidokoro, MyShogi): `gameover`, then `isready` and
    /// `usinewgame` for the next game. `stop_first`: ShogiHome stops a ponder search before
    /// `gameover`; Shogidokoro in network games sends `gameover` without `stop`.
    fn next_game(&mut self, result: &str, stop_first: bool) {
        if self.pondering.take().is_some() {
            if stop_first {
                self.e.send("stop");
                self.e.expect("bestmove", LIVE);
            }
            self.e.send(&format!("gameover {result}"));
            if !stop_first {
                // `gameover` ends the ponder search: its `bestmove` (which the GUI ignores).
                self.e.expect("bestmove", LIVE);
            }
        } else {
            self.e.send(&format!("gameover {result}"));
        }
        self.e.send("isready");
        self.e.expect("readyok", LIVE);
        self.e.send("usinewgame");
    }
}

/// The full move list, as every GUI sends it in a game; Shogidokoro and ShogiGUI write
/// `position startpos` with no `moves` when there is none.
fn position_line(moves: &[String]) -> String {
    if moves.is_empty() {
        "position startpos".into()
    } else {
        format!("position startpos moves {}", moves.join(" "))
    }
}

/// The line a GUI records from `lines` (one search's output before its `bestmove`): the last
/// `info` of `multipv 1` (or without `multipv`) with a score.
fn recorded(lines: &[String]) -> Option<&String> {
    lines.iter().rev().find(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        let multipv = t.iter().position(|w| *w == "multipv").map_or("1", |i| t[i + 1]);
        t.first() == Some(&"info") && t.get(1) != Some(&"string") && t.contains(&"score") && multipv == "1"
    })
}

/// The moves after `pv` in an `info` line.
fn pv_of(line: &str) -> Vec<String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    t.iter().position(|w| *w == "pv").map_or(Vec::new(), |i| t[i + 1..].iter().map(|s| s.to_string()).collect())
}

/// Checks the record of one move: `lines` the search's output, `best` its `bestmove` line,
/// `pos` the position searched.
fn check_record(pos: &Position, lines: &[String], best: &str, what: &str) {
    let b: Vec<&str> = best.split_whitespace().collect();
    if b[1] == "resign" {
        return;
    }
    let line = recorded(lines).unwrap_or_else(|| panic!("{what}: nothing to record for {best}: {lines:?}"));
    let t: Vec<&str> = line.split_whitespace().collect();
    assert!(!t.contains(&"lowerbound") && !t.contains(&"upperbound"), "{what}: a bound recorded: {line}");
    if b[1] == "win" {
        // A declaration: `score mate 1`, no line (`win` is not a move).
        assert!(line.contains("score mate 1") && !t.contains(&"pv"), "{what}: {line}");
        return;
    }
    let pv = pv_of(line);
    assert_eq!(
        pv.first().map(String::as_str),
        Some(b[1]),
        "{what}: the recorded line is not the move's: {line} / {best}"
    );
    if b.len() == 4 {
        assert_eq!(
            pv.get(1).map(String::as_str),
            Some(b[3]),
            "{what}: the ponder move is not the line's: {line} / {best}"
        );
    }
    let mut p = pos.clone();
    for m in &pv {
        let mv = p.parse_usi_move(m).unwrap_or_else(|e| panic!("{what}: {m} illegal in {line}: {e}"));
        p.do_move(mv);
    }
    let mate = t.iter().position(|w| *w == "mate").and_then(|i| t[i + 1].parse::<i32>().ok());
    let ends = !p.has_legal_move() || mate.is_some_and(|n| n.unsigned_abs() as usize <= pv.len());
    assert!(pv.len() >= 2 || ends, "{what}: a short line recorded: {line}");
}

fn legal_count(pos: &Position) -> usize {
    let mut l = MoveList::new();
    engine::generate_legal(pos, &mut l);
    l.len()
}

/// A game between two engines driven as a GUI does, `plies` at most; `go` is the clock part
/// of `go` (`btime .. wtime .. byoyomi ..` or `binc winc`). With `ponder` each engine ponders
/// on its ponder move after its `bestmove` (ShogiHome: `position` with the expected move then
/// `go ponder` and the clock), and gets `ponderhit` when the opponent plays it, else `stop`
/// (its `bestmove` ignored) then the new `position` and `go`. Every move's record is checked.
/// Returns the moves.
fn play(engines: &mut [Gui; 2], plies: usize, go: &str, ponder: bool, what: &str) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    let mut pos = Position::startpos();
    for ply in 0..plies {
        let g = &mut engines[ply % 2];
        let what = format!("{what} ply {}", ply + 1);
        let last = moves.last().cloned();
        let (best, lines) = match g.pondering.take() {
            Some(p) if Some(&p) == last.as_ref() => {
                g.e.send("ponderhit");
                let (best, lines) = g.e.expect("bestmove", LIVE);
                g.e.check_bestmove(&best);
                (best, lines)
            }
            pondered => {
                if pondered.is_some() {
                    // A miss: `stop`, and the `bestmove` that answers it is ignored.
                    g.e.send("stop");
                    if g.stochastic {
                        g.e.expect("bestmove", LIVE);
                    } else {
                        g.e.expect_bestmove(LIVE);
                    }
                }
                g.e.send(&position_line(&moves));
                g.e.send(&format!("go {go}"));
                let (best, lines) = g.e.expect("bestmove", LIVE);
                g.e.check_bestmove(&best);
                (best, lines)
            }
        };
        check_record(&pos, &lines, &best, &what);
        g.records += 1;
        let b: Vec<&str> = best.split_whitespace().collect();
        if b[1] == "resign" || b[1] == "win" {
            break;
        }
        let mv = pos.parse_usi_move(b[1]).unwrap();
        pos.do_move(mv);
        moves.push(b[1].to_string());
        if legal_count(&pos) == 0 {
            break;
        }
        if ponder && b.len() == 4 {
            let mut expected = moves.clone();
            expected.push(b[3].to_string());
            g.e.send(&position_line(&expected));
            g.e.send(&format!("go ponder {go}"));
            g.pondering = Some(b[3].to_string());
        }
    }
    moves
}

/// ShogiHome plays a byoyomi game with pondering (`USI_Ponder` on), one engine with MultiPV 3
/// (what a user who analyses while playing sets), the other with `Stochastic_Ponder`
/// (ShogiHome's stochastic ponder setting: the engine ponders the position before the expected
/// move, and `ponderhit` starts a new search), then `stop` and `gameover` and a second game
/// after `isready`/`usinewgame`. Every option is sent on every launch, defaults included.
#[test]
fn shogihome_byoyomi_games_with_ponder_record_every_move() {
    let mut engines = [
        Gui::launch(&[("USI_Ponder", "true"), ("MultiPV", "3")]),
        Gui::launch(&[("USI_Ponder", "true"), ("Stochastic_Ponder", "true")]),
    ];
    for g in &engines {
        assert!(errors(&g.e.lines).is_empty(), "every option with its default is accepted: {:?}", errors(&g.e.lines));
    }
    let go = "btime 0 wtime 0 byoyomi 300";
    let moves = play(&mut engines, 24, go, true, "ShogiHome game 1");
    assert!(moves.len() >= 10, "{moves:?}");
    for (g, result) in engines.iter_mut().zip(["win", "lose"]) {
        g.next_game(result, true);
    }
    play(&mut engines, 8, go, true, "ShogiHome game 2");
    // The engines ponder on their own lines' second moves: some of them were played.
    let hits: usize = engines.iter().map(|g| g.e.sent.iter().filter(|l| *l == "ponderhit").count()).sum();
    assert!(hits > 0, "no ponderhit in two games");
    for g in engines {
        assert!(g.records > 0);
        g.e.finish();
    }
}

/// Shogidokoro plays a Fischer game (`binc`/`winc`, never together with `byoyomi`), one engine
/// with two threads (the line of the thread the vote chose), pondering; in a network game it
/// sends `gameover` without `stop` to an engine that ponders, and the next game follows
/// `isready`/`usinewgame`.
#[test]
fn shogidokoro_fischer_game_with_threads_and_gameover_without_stop() {
    let mut engines =
        [Gui::launch(&[("Threads", "2"), ("USI_Ponder", "true")]), Gui::launch(&[("USI_Ponder", "true")])];
    let go = "btime 2000 wtime 2000 binc 300 winc 300";
    play(&mut engines, 16, go, true, "Shogidokoro game 1");
    for (g, result) in engines.iter_mut().zip(["draw", "draw"]) {
        g.next_game(result, false);
    }
    play(&mut engines, 6, go, false, "Shogidokoro game 2");
    for g in engines {
        g.e.finish();
    }
}

/// Analysis (ShogiGUI's 検討, ShogiHome's research): `position sfen ...` (ShogiGUI sends the
/// position as an SFEN there), `go infinite`, `stop`; the user changes MultiPV in the middle
/// (`setoption` while the search runs, then `stop` and `go infinite` again: ShogiGUI changes
/// `MultiPV` between searches), and the next position comes with `stop` and the new `go`
/// sent back to back. Each depth's lines are printed once, and the `bestmove` after `stop` is
/// the first move of the last `multipv 1` line printed.
#[test]
fn shogigui_analysis_with_a_multipv_change_in_the_middle() {
    let mut g = Gui::launch(&[]);
    let e = &mut g.e;
    let sfen = "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    e.send(sfen);
    let pos = e.pos.clone();
    let from = e.lines.len();
    e.send("go infinite");
    e.read_until(|l| l.starts_with("info depth 6 "), LIVE);
    // The user sets MultiPV 3 while the search runs: taken at the next go.
    e.send("setoption name MultiPV value 3");
    e.send("stop");
    let (best, _) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    check_record(&pos, &e.lines[from..], &best, "analysis MultiPV 1");
    let from = e.lines.len();
    e.send("go infinite");
    e.read_until(|l| l.starts_with("info depth 7 ") && l.contains(" multipv 3 "), LIVE);
    std::thread::sleep(Duration::from_millis(200));
    // The next position: `stop`, then `position` and `go infinite` at once.
    e.send("stop");
    e.send("position sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3");
    e.send("go infinite");
    let (best, _) = e.expect("bestmove", LIVE);
    let lines = e.lines[from..].to_vec();
    check_record(&pos, &lines, &best, "analysis MultiPV 3");
    let mut seen = std::collections::HashSet::new();
    for l in lines.iter().filter(|l| l.starts_with("info depth") && !l.contains("bound")) {
        let t: Vec<&str> = l.split_whitespace().collect();
        let (depth, k) = (t[2], t[t.iter().position(|w| *w == "multipv").unwrap() + 1]);
        assert!(seen.insert((depth.to_string(), k.to_string())), "depth {depth} multipv {k} printed twice: {lines:?}");
    }
    for d in 1..=7 {
        for k in 1..=3 {
            assert!(seen.contains(&(d.to_string(), k.to_string())), "depth {d} multipv {k} missing: {lines:?}");
        }
    }
    let pos = e.pos.clone();
    let from = e.lines.len();
    e.read_until(|l| l.starts_with("info depth 5 ") && l.contains(" multipv 3 "), LIVE);
    e.send("stop");
    let (best, _) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    check_record(&pos, &e.lines[from..], &best, "analysis of the next position");
    g.e.finish();
}

/// ShogiHome's mate search (詰み探索) on tsume positions as ShogiHome writes them, without the
/// attacker's king: `go mate <ms>` and `go mate infinite` with `stop`; the `checkmate` line is a
/// mate in the position sent.
#[test]
fn shogihome_mate_search_on_tsume_without_the_attackers_king() {
    let mut g = Gui::launch(&[]);
    let e = &mut g.e;
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    e.send("go mate 10000");
    let (line, _) = e.expect("checkmate", LIVE);
    assert_eq!(line, "checkmate G*5b");
    let data = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tsume_kingless.txt")).unwrap();
    for len in ["3", "5"] {
        let sfen = data
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .find(|f| f.get(1) == Some(&len))
            .map(|f| f[0].to_string())
            .unwrap();
        e.send(&format!("position sfen {sfen}"));
        e.send(if len == "3" { "go mate 20000" } else { "go mate infinite" });
        let (line, _) = e.expect("checkmate", LIVE);
        let moves: Vec<&str> = line.split_whitespace().skip(1).collect();
        assert_eq!(moves.len().to_string(), len, "{sfen}: {line}");
        let mut p = Position::from_sfen(&sfen).unwrap();
        for m in &moves {
            let mv = p.parse_usi_move(m).unwrap();
            p.do_move(mv);
        }
        assert!(p.in_check() && !p.has_legal_move(), "{sfen}: {line}");
        if len == "5" {
            // `go mate infinite` answered by itself; a `stop` now finds nothing to stop.
            e.send("stop");
        }
    }
    // A search (not a mate search) of a tsume position: its mate, and its line recorded.
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    e.send("go btime 0 wtime 0 byoyomi 300");
    let (best, lines) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    assert!(best.starts_with("bestmove G*5b"), "{best}");
    let pos = e.pos.clone();
    check_record(&pos, &lines, &best, "tsume search");
    g.e.finish();
}

/// A position the engine refuses (here a move list with a pass while in check, as ShogiGUI's
/// analysis can send, and a bad SFEN): a later `go` answers `bestmove resign`, never a move of
/// another position (which ShogiHome would report as an unknown move), `go mate` answers
/// `checkmate notimplemented`, each with an `info string` saying why, until a position is
/// accepted.
#[test]
fn a_refused_position_is_never_answered_with_a_move_of_another() {
    let mut g = Gui::launch(&[]);
    let e = &mut g.e;
    e.send("position startpos moves 7g7f 3c3d 8h2b+");
    e.send("go btime 0 wtime 0 byoyomi 300");
    let (best, _) = e.expect("bestmove", LIVE);
    assert!(best.starts_with("bestmove 3a2b") || best.starts_with("bestmove "), "{best}");
    let before = e.lines.len();
    e.send_raw(b"position sfen 4k4/9/9/9/9/9/9/4r4/4K4 b - 1 moves pass 5i4i\n");
    e.record_sent("position (refused)");
    e.send_raw(b"go btime 0 wtime 0 byoyomi 300\n");
    e.record_sent("go btime 0 wtime 0 byoyomi 300");
    let (best, lines) = e.expect("bestmove", LIVE);
    assert_eq!(best, "bestmove resign");
    let errs: Vec<&String> = errors(&e.lines[before..]);
    assert!(errs.iter().any(|l| l.contains("in check") && l.contains("refused")), "{errs:?}");
    assert!(lines.iter().any(|l| l.contains("go: the last position was refused")), "{lines:?}");
    e.send_raw(b"go mate 1000\n");
    e.record_sent("go mate 1000");
    assert_eq!(e.expect("checkmate", LIVE).0, "checkmate notimplemented");
    // Under go infinite the answer waits for stop, like any other.
    e.send_raw(b"go infinite\n");
    e.record_sent("go infinite");
    assert!(!e.collect_for(Duration::from_millis(300)).iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    assert_eq!(e.expect("bestmove", LIVE).0, "bestmove resign");
    // An accepted position ends it.
    e.send("position startpos moves 2g2f");
    let best = e.go("go btime 0 wtime 0 byoyomi 300");
    assert!(best != "bestmove resign", "{best}");
    g.e.finish();
}

/// The engine's own book (`USI_OwnBook`, `BookFile`): the book move comes with the book's line
/// (`info ... multipv 1 ... score ... pv <book move> <ponder move> ...`), which is what the GUI
/// records, its ponder move the line's second move.
#[test]
fn a_book_move_is_recorded_with_the_books_line() {
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/books/tiny.db");
    for multipv in ["1", "3"] {
        let mut g = Gui::launch(&[("BookFile", book), ("BookEvalDiff", "0"), ("MultiPV", multipv)]);
        g.e.send("position startpos");
        g.e.send("go btime 0 wtime 0 byoyomi 10000");
        let (best, lines) = g.e.expect("bestmove", LIVE);
        g.e.check_bestmove(&best);
        assert!(lines.iter().any(|l| l.starts_with("info string book ")), "{lines:?}");
        check_record(&Position::startpos(), &lines, &best, &format!("book, MultiPV {multipv}"));
        g.e.finish();
    }
}

/// An entering-king declaration (`bestmove win`) and a try (`bestmove <king move>`) are
/// recorded with `score mate 1` (YaneuraOu's score for a win by rule); the declaration without
/// a line (`win` is not a move).
#[test]
fn a_declaration_or_a_try_is_recorded_with_mate_1() {
    let mut g = Gui::launch(&[]);
    let e = &mut g.e;
    let declaration = "position sfen 9/9/9/1R5B1/PPPPPPPPP/LNSGKGSNL/2p3p2/pp2k2pp/1sg3gs1 w 2n2l3p 1";
    e.send("setoption name EnteringKingRule value CSARule27H");
    e.entering_king_rule = engine::EnteringKingRule::Csa27H;
    e.send(declaration);
    e.send("go btime 0 wtime 0 byoyomi 300");
    let (best, lines) = e.expect("bestmove", LIVE);
    assert_eq!(best, "bestmove win");
    check_record(&e.pos.clone(), &lines, &best, "declaration");
    assert!(lines.iter().any(|l| l.starts_with("info string entering-king declaration")), "{lines:?}");
    e.send("setoption name EnteringKingRule value TryRule");
    e.entering_king_rule = engine::EnteringKingRule::Try;
    e.send("position sfen k8/4K4/P8/9/9/9/9/9/9 b G 1");
    e.send("go btime 0 wtime 0 byoyomi 300");
    let (best, lines) = e.expect("bestmove", LIVE);
    assert_eq!(best, "bestmove 5b5a");
    check_record(&e.pos.clone(), &lines, &best, "try");
    g.e.finish();
}

/// ShogiHome reads a spin's `default`, `min` and `max` with JavaScript's `Number()`, exact only
/// up to 2^53 - 1: every declared spin must come back as it was declared.
#[test]
fn every_spin_survives_a_javascript_number() {
    let g = Gui::launch(&[]);
    const MAX_SAFE: i128 = (1 << 53) - 1;
    let mut spins = 0;
    for d in g.declared.iter().filter(|d| d.kind == "spin") {
        spins += 1;
        for v in [Some(&d.default), d.min.as_ref(), d.max.as_ref()] {
            let v = v.unwrap_or_else(|| panic!("{}: a spin without its range", d.name));
            let n: i128 = v.parse().unwrap();
            assert!(n.abs() <= MAX_SAFE, "{} {v}: a JavaScript GUI would send back {}", d.name, n as f64);
        }
    }
    assert!(spins > 10);
    g.e.finish();
}

/// GUIs never read stderr (ShogiHome spawns the engine with a stderr pipe and no reader,
/// `process.ts`): at the most verbose `RUST_LOG` a user may set, a long session (thousands of
/// bad commands, searches, `stop`s while idle) must not fill the pipe and freeze the engine.
#[test]
fn a_long_session_at_rust_log_trace_never_blocks_on_an_unread_stderr() {
    for level in ["trace", "info"] {
        let mut e = Engine::spawn_with_stderr_unread(&[("RUST_LOG", level)]);
        e.send("usi");
        e.expect("usiok", LIVE);
        e.send("setoption name USI_Hash value 16");
        e.sync();
        for i in 0..3000 {
            // Each a log record at info or debug level: 3,000 of them are far more than a pipe holds.
            e.send_raw(format!("frobnicate {i}\nstop\n").as_bytes());
        }
        e.sync();
        for _ in 0..20 {
            e.send("position startpos moves 7g7f 3c3d");
            e.go("go depth 3");
        }
        e.send("quit");
        e.wait_exit(LIVE);
        let stderr = e.unread_stderr();
        assert!(stderr.len() < 4096, "RUST_LOG={level}: {} bytes on stderr", stderr.len());
    }
}
