//! The opening book end to end: book moves played at once and announced, the options that
//! limit them, bad book files, `go ponder` with a book move, and `kaname makebook`.

mod common;

use common::{errors, Engine, LIVE};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A game move with a long byoyomi: a search would take seconds, a book move none.
const GO_SLOW: &str = "go btime 0 wtime 0 byoyomi 10000";
/// How long to watch for a forbidden early `bestmove`.
const QUIET: Duration = Duration::from_millis(300);

fn fixture(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books").join(name).to_str().unwrap().to_string()
}

/// An engine with the tiny book (4 positions: the start, after 7g7f, 7g7f 3c3d, and 2g2f).
fn with_tiny_book(options: &[(&str, &str)]) -> Engine {
    let mut e = Engine::ready();
    e.send(&format!("setoption name BookFile value {}", fixture("tiny.db")));
    for (name, value) in options {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.send("isready");
    let (_, lines) = e.expect("readyok", LIVE);
    let loaded = lines.iter().any(|l| l.contains("book '") && l.contains("4 positions"));
    // USI_OwnBook false: the book is not even read.
    assert_eq!(loaded, !options.contains(&("USI_OwnBook", "false")), "{lines:?}");
    e
}

/// Sends `go` and returns the lines up to and with its `bestmove` and the time it took.
fn go_lines(e: &mut Engine, go: &str) -> (Vec<String>, Duration) {
    let t = Instant::now();
    e.send(go);
    let (best, mut lines) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    lines.push(best);
    (lines, t.elapsed())
}

fn is_book(lines: &[String]) -> bool {
    lines.iter().any(|l| l.starts_with("info string book "))
}

#[test]
fn a_book_move_is_played_at_once_and_announced() {
    let mut e = with_tiny_book(&[("BookEvalDiff", "0")]);
    e.send("position startpos");
    let (lines, took) = go_lines(&mut e, GO_SLOW);
    assert!(took < Duration::from_secs(3), "a book move took {took:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string book 7g7f")), "{lines:?}");
    let pv: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(pv.len(), 1, "{lines:?}");
    // The PV follows the book: 7g7f, White's first book move 3c3d, then Black's 2g2f, then
    // that entry's ponder move 8c8d (the position after it is not in the book).
    assert!(pv[0].contains("multipv 1 score cp 50 ") && pv[0].ends_with("pv 7g7f 3c3d 2g2f 8c8d"), "{}", pv[0]);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
    // The same position reached at another ply (within BookMoves) hits too; White's book move.
    e.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 12");
    let (lines, _) = go_lines(&mut e, GO_SLOW);
    assert_eq!(lines.last().unwrap(), "bestmove 3c3d ponder 2g2f", "{lines:?}");
    // An illegal move in the book is reported and skipped.
    e.send("position startpos moves 2g2f");
    let (lines, _) = go_lines(&mut e, GO_SLOW);
    assert!(errors(&lines).iter().any(|l| l.contains("illegal move 8c8e")), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "bestmove 8c8d ponder 7g7f");
    // Out of the book: a search.
    e.send("position startpos moves 7g7f 3c3d 2g2f");
    let (lines, _) = go_lines(&mut e, "go nodes 3000");
    assert!(!is_book(&lines) && errors(&lines).is_empty(), "{lines:?}");
    e.finish();
}

#[test]
fn book_dir_holds_a_relative_book_file_as_in_yaneuraou() {
    // shogiarena copies a match's book and sends its folder as `BookDir`, its name as `BookFile`.
    let dir = std::path::Path::new(&fixture("tiny.db")).parent().unwrap().to_str().unwrap().to_string();
    let mut e = Engine::ready();
    e.send(&format!("setoption name BookDir value {dir}"));
    e.send("setoption name BookFile value tiny.db");
    e.send("isready");
    let (_, lines) = e.expect("readyok", LIVE);
    assert!(lines.iter().any(|l| l.contains("book '") && l.contains("4 positions")), "{lines:?}");
    e.send("position startpos");
    let (lines, _) = go_lines(&mut e, GO_SLOW);
    assert!(is_book(&lines), "{lines:?}");
    // Another folder: the name is looked for there, not found, reported once.
    e.send("setoption name BookDir value /nonexistent-kaname-books");
    e.send("isready");
    let (_, lines) = e.expect("readyok", LIVE);
    assert!(
        errors(&lines).iter().any(|l| common::slashes(l).contains("/nonexistent-kaname-books/tiny.db")),
        "{lines:?}"
    );
    e.send("position startpos");
    let (lines, _) = go_lines(&mut e, "go nodes 3000");
    assert!(!is_book(&lines), "{lines:?}");
    e.finish();
}

#[test]
fn book_options_are_respected() {
    let start = "position startpos";
    let search = "go nodes 3000";
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, bool);
    let cases: &[Case] = &[
        (&[], search, true),
        (&[("USI_OwnBook", "false")], search, false),
        (&[("BookMoves", "0")], search, false),
        (&[("BookIgnoreRate", "100")], search, false),
        (&[("BookDepthLimit", "21")], search, false),
        (&[("BookDepthLimit", "20")], search, true),
        (&[("BookEvalBlackLimit", "51")], search, false),
        (&[], "go infinite", false),
        (&[], "go nodes 3000 searchmoves 1g1f", false),
    ];
    for (options, go, book) in cases {
        let mut e = with_tiny_book(options);
        e.send(start);
        if *go == "go infinite" {
            e.send(go);
            let early = e.collect_for(QUIET);
            assert!(!early.iter().any(|l| l.starts_with("bestmove")), "{early:?}");
            e.send("stop");
            let (best, lines) = e.expect("bestmove", LIVE);
            e.check_bestmove(&best);
            assert!(!is_book(&early) && !is_book(&lines), "go infinite searches: {lines:?}");
        } else {
            let (lines, _) = go_lines(&mut e, go);
            assert_eq!(is_book(&lines), *book, "{options:?} {go}: {lines:?}");
            if options.iter().any(|(n, _)| *n == "BookDepthLimit") && !book {
                assert!(lines.iter().any(|l| l.contains("BookDepthLimit")), "{lines:?}");
            }
        }
        e.finish();
    }
    // BookEvalDiff 30: 7g7f (50) or 2g2f (45), never 5g5f (-200); BookPvMoves 2; MultiPV 3
    // lists the other book moves after the chosen one.
    let mut e = with_tiny_book(&[("BookPvMoves", "2"), ("MultiPV", "3")]);
    let mut played = std::collections::HashSet::new();
    for _ in 0..12 {
        e.send(start);
        let (lines, _) = go_lines(&mut e, search);
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
        let pv: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(pv.len(), 3, "{lines:?}");
        assert!(pv[0].contains(&format!("multipv 1 score cp {} ", if best == "7g7f" { 50 } else { 45 })));
        assert!(pv[0].ends_with(&format!("pv {best} {}", if best == "7g7f" { "3c3d" } else { "8c8d" })), "{}", pv[0]);
        assert!(pv[2].contains("multipv 3 score cp -200 ") && pv[2].ends_with("pv 5g5f"), "{}", pv[2]);
        played.insert(best);
    }
    assert!(played.iter().all(|m| m == "7g7f" || m == "2g2f"), "{played:?}");
    // searchmoves restricts the book moves.
    e.send(start);
    let (lines, _) = go_lines(&mut e, "go nodes 3000 searchmoves 2g2f 1g1f");
    assert!(is_book(&lines) && lines.last().unwrap().starts_with("bestmove 2g2f"), "{lines:?}");
    e.finish();
}

#[test]
fn a_bad_or_missing_book_is_reported_once_and_play_goes_on() {
    for file in [fixture("no-such-book.db"), fixture("bad.db")] {
        let mut e = Engine::ready();
        e.send(&format!("setoption name BookFile value {file}"));
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        assert_eq!(errors(&lines).len(), 1, "{lines:?}");
        assert!(errors(&lines)[0].contains("BookFile"), "{lines:?}");
        for _ in 0..2 {
            e.send("position startpos");
            let (lines, _) = go_lines(&mut e, "go nodes 2000");
            assert!(errors(&lines).is_empty() && !is_book(&lines), "{lines:?}");
            assert!(lines.iter().any(|l| l.starts_with("info depth")), "a search ran: {lines:?}");
        }
        e.sync();
        // Set again, the file is tried (and reported) again.
        e.send(&format!("setoption name BookFile value {file}"));
        e.send("position startpos");
        let (lines, _) = go_lines(&mut e, "go nodes 2000");
        assert_eq!(errors(&lines).len(), 1, "{lines:?}");
        e.finish();
    }
}

#[test]
fn go_ponder_with_a_book_move_waits_for_stop_or_ponderhit() {
    let mut e = with_tiny_book(&[("USI_Ponder", "true")]);
    for end in ["stop", "ponderhit"] {
        e.send("position startpos moves 7g7f");
        e.send("go ponder btime 0 wtime 0 byoyomi 10000");
        let early = e.collect_for(QUIET);
        assert!(is_book(&early), "the book move is announced at once: {early:?}");
        assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before {end}: {early:?}");
        e.send(end);
        let best = e.expect_bestmove(LIVE);
        assert!(best.starts_with("bestmove 3c3d") || best.starts_with("bestmove 8c8d"), "{best}");
        // Nothing more for this go.
        let after = e.collect_for(QUIET);
        assert!(!after.iter().any(|l| l.starts_with("bestmove")), "{after:?}");
    }
    // A stop right after the go, and a new go at once.
    e.send("position startpos");
    e.send("go ponder btime 0 wtime 0 byoyomi 10000");
    e.send("stop");
    e.expect_bestmove(LIVE);
    e.send("position startpos");
    e.go("go btime 0 wtime 0 byoyomi 10000");
    e.finish();
}

fn kaname(args: &[&str]) -> std::process::Output {
    common::kaname().args(args).output().expect("running kaname")
}

/// A book file as text: key (SFEN without ply) -> (SFEN, moves as (move, ponder, value, depth)).
type Parsed = HashMap<String, (String, Vec<(String, String, i32, i32)>)>;

fn parse_book(text: &str) -> (Vec<String>, Parsed) {
    let mut order = Vec::new();
    let mut book: Parsed = HashMap::new();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("#YANEURAOU-DB2016 1.00"));
    let mut current = String::new();
    for l in lines {
        if let Some(sfen) = l.strip_prefix("sfen ") {
            let f: Vec<&str> = sfen.split_whitespace().collect();
            assert_eq!(f.len(), 4, "{l}");
            current = f[..3].join(" ");
            order.push(current.clone());
            assert!(book.insert(current.clone(), (sfen.to_string(), Vec::new())).is_none(), "twice: {l}");
        } else {
            let t: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(t.len(), 5, "{l}");
            let entry = book.get_mut(&current).expect("a move after an sfen line");
            entry.1.push((t[0].into(), t[1].into(), t[2].parse().unwrap(), t[3].parse().unwrap()));
            assert_eq!(t[4], "1");
        }
    }
    (order, book)
}

/// Checks every entry of a book `kaname makebook` wrote: positions up to game ply `max_ply`,
/// moves sorted by value, each move and ponder move legal, and a move into a later book position
/// worth minus that position's best value with its best move as ponder (a move back into a
/// position that came earlier in the game keeps its search score).
fn check_entries(book: &Parsed, max_ply: u32) {
    for (k, (sfen, moves)) in book {
        let pos = engine::Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert!(pos.game_ply() <= max_ply, "{sfen}");
        assert!(!moves.is_empty());
        assert!(moves.windows(2).all(|w| w[0].2 >= w[1].2), "sorted by value: {k}");
        for (m, ponder, value, depth) in moves {
            let mv = pos.parse_usi_move(m).unwrap_or_else(|e| panic!("{m} in {sfen}: {e}"));
            assert!(*depth >= 1 && value.abs() < 32000, "{m} in {sfen}");
            let mut child = pos.clone();
            child.do_move(mv);
            if ponder != "none" {
                child.parse_usi_move(ponder).unwrap_or_else(|e| panic!("ponder {ponder} after {m} in {sfen}: {e}"));
            }
            let ck: Vec<String> = child.to_sfen().split_whitespace().take(3).map(String::from).collect();
            if let Some((child_sfen, cm)) = book.get(&ck.join(" ")) {
                if engine::Position::from_sfen(child_sfen).unwrap().game_ply() > pos.game_ply() {
                    assert_eq!(*value, back_up(cm[0].2), "backed up: {m} in {sfen}");
                    assert_eq!(ponder, &cm[0].0, "ponder of {m} in {sfen}");
                }
            }
        }
    }
}

fn back_up(v: i32) -> i32 {
    if v >= 31754 {
        -(v - 1)
    } else if v <= -31754 {
        -(v + 1)
    } else {
        -v
    }
}

#[test]
fn makebook_writes_a_consistent_book_the_engine_plays_and_resumes() {
    let dir = std::env::temp_dir().join(format!("kaname-makebook-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "# two lines\nstartpos moves 7g7f 3c3d 2g2f\nstartpos moves 2g2f 8c8d\n").unwrap();
    let out = dir.join("book.db");
    let args = [
        "makebook",
        "--out",
        out.to_str().unwrap(),
        "--openings",
        openings.to_str().unwrap(),
        "--plies",
        "3",
        "--multipv",
        "2",
        "--nodes",
        "400",
        "--threads",
        "2",
        "--hash",
        "4",
        "--no-progress",
    ];
    let o = kaname(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{stderr}");
    assert!(o.stdout.is_empty(), "makebook prints on stderr only");
    let text = std::fs::read_to_string(&out).unwrap();
    let (order, book) = parse_book(&text);
    // The openings' positions up to ply 3 plus the best move's child of each of them.
    assert!(book.len() >= 5 && book.len() <= 1 + 3 + 5, "{} positions\n{text}", book.len());
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "sorted by SFEN");
    let start_key = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
    assert!(book.contains_key(start_key));
    check_entries(&book, 3);
    // Every move the openings play from a book position is in the book.
    let root = &book[start_key].1;
    assert!(root.iter().any(|m| m.0 == "7g7f") && root.iter().any(|m| m.0 == "2g2f"), "{root:?}");
    // The engine loads it and plays from it.
    let mut e = Engine::ready();
    e.send(&format!("setoption name BookFile value {}", out.display()));
    e.send("setoption name BookEvalBlackLimit value -99999");
    e.send("setoption name BookEvalDiff value 0");
    e.send("isready");
    let (_, lines) = e.expect("readyok", LIVE);
    assert!(lines.iter().any(|l| l.contains(&format!("{} positions", book.len()))), "{lines:?}");
    e.send("position startpos");
    let (lines, _) = go_lines(&mut e, GO_SLOW);
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(root.iter().any(|m| m.0 == best && m.2 == root[0].2), "{best} is not a best book move: {root:?}");
    e.finish();
    // A second run searches nothing and writes the same book.
    let o = kaname(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success() && stderr.contains("0 searched now"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    // An interrupted journal line is dropped and searched again.
    let journal = dir.join("book.db.searched");
    let j = std::fs::read_to_string(&journal).unwrap();
    let cut = j.trim_end().rfind('\n').unwrap() + 1 + 20;
    std::fs::write(&journal, &j[..cut]).unwrap();
    let o = kaname(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success() && stderr.contains("1 searched now"), "{stderr}");
    assert_eq!(parse_book(&std::fs::read_to_string(&out).unwrap()).1.len(), book.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn makebook_usage_and_errors() {
    let o = kaname(&["makebook", "--help"]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success() && text.contains("--plies") && text.contains("--multipv"), "{text}");
    let help = String::from_utf8_lossy(&kaname(&["help"]).stdout).to_string();
    assert!(help.contains("kaname makebook"), "{help}");
    let o = kaname(&["makebook", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let dir = std::env::temp_dir().join(format!("kaname-makebook-err-{}", std::process::id()));
    let out = dir.join("b.db");
    let o = kaname(&["makebook", "--out", out.to_str().unwrap(), "--openings", "/nonexistent/openings.txt"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/openings.txt"));
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_shipped_book_is_sorted_legal_backed_up_and_played_from_the_start() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("book/kaname_book.db");
    let text = std::fs::read_to_string(&path).expect("book/kaname_book.db ships with the project");
    let (order, book) = parse_book(&text);
    assert_eq!(book.len(), 3000, "book/README.md describes 3,000 positions");
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "sorted by SFEN, so that large copies are looked up on disk");
    check_entries(&book, 16);
    // Through BookDir, as shogiarena passes it, and from the start: one of the moves within the
    // default BookEvalDiff of the first.
    let start = &book["lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -"].1;
    let mut e = Engine::ready();
    e.send(&format!("setoption name BookDir value {}", path.parent().unwrap().display()));
    e.send("setoption name BookFile value kaname_book.db");
    e.send("isready");
    let (_, lines) = e.expect("readyok", LIVE);
    assert!(lines.iter().any(|l| l.contains("3000 positions")), "{lines:?}");
    e.send("position startpos");
    let (lines, took) = go_lines(&mut e, GO_SLOW);
    assert!(is_book(&lines) && took < Duration::from_secs(3), "{lines:?}");
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(start.iter().any(|m| m.0 == best && m.2 >= start[0].2 - 30), "{best}: {start:?}");
    e.finish();
}
