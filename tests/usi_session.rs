//! End-to-end USI sessions with the built binary, as ShogiGUI, Shogidokoro and scripts hold them.

mod common;

use common::{errors, under_wine, Engine, LIVE};
use std::time::{Duration, Instant};

/// Short thinking time for a game move.
const GO: &str = "go btime 0 wtime 0 byoyomi 200";
/// How long to watch for a forbidden early `bestmove`.
const QUIET: Duration = Duration::from_millis(300);

fn no_bestmove(lines: &[String]) -> bool {
    !lines.iter().any(|l| l.starts_with("bestmove"))
}

#[test]
fn usi_answers_at_once_and_declares_every_option() {
    let mut e = Engine::spawn();
    let t = Instant::now();
    e.send("usi");
    let (_, lines) = e.expect("usiok", LIVE);
    let ms = t.elapsed().as_millis();
    println!("usi -> usiok took {ms} ms");
    assert!(ms < 2000, "usiok took {ms} ms");
    assert!(lines[0].starts_with("id name Kaname "), "{lines:?}");
    assert_eq!(lines[1], "id author The Kaname developers");
    let names: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("option name "))
        .map(|l| l.split(" type ").next().unwrap())
        .collect();
    for want in [
        "USI_Hash",
        "USI_Ponder",
        "Threads",
        "MultiPV",
        "NetworkDelay",
        "NetworkDelay2",
        "MinimumThinkingTime",
        "SlowMover",
        "MaxMovesToDraw",
        "EnteringKingRule",
        "DrawValueBlack",
        "DrawValueWhite",
        "PvInterval",
        "ConsiderationMode",
        "OutputFailLHPV",
        "RoundUpToFullSecond",
        "Stochastic_Ponder",
        "ResignValue",
        "DepthLimit",
        "NodesLimit",
        "USI_OwnBook",
        "ClearHash",
        "UsiLog",
        "MateHash",
    ] {
        assert!(names.contains(&want), "option {want} not declared: {names:?}");
    }
    e.finish();
}

/// Reads the `usi` answer and sends `setoption` for every declared option with its default,
/// the way Shogidokoro and ShogiHome do before every game.
fn set_every_option(e: &mut Engine) {
    e.send("usi");
    let (_, lines) = e.expect("usiok", LIVE);
    for l in lines.iter().filter(|l| l.starts_with("option name ")) {
        let t: Vec<&str> = l.split_whitespace().collect();
        let name = t[2];
        let kind = t[4];
        let default = t.iter().position(|x| *x == "default").map(|i| t[i + 1]);
        let value = match (name, kind) {
            ("USI_Hash", _) => "16".to_string(),
            (_, "button") => {
                e.send(&format!("setoption name {name}"));
                continue;
            }
            _ => default.unwrap().to_string(),
        };
        e.send(&format!("setoption name {name} value {value}"));
    }
    // Sent even when not declared.
    e.send("setoption name USI_Hash value 16");
    e.send("setoption name USI_Ponder value true");
}

/// Plays `plies` plies: the engine moves for the side given by `engine_first`, the test answers
/// with the first legal move. Returns the move list.
fn play(e: &mut Engine, start: &str, plies: usize) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..plies {
        let cmd = if moves.is_empty() { start.to_string() } else { format!("{start} moves {}", moves.join(" ")) };
        e.send(&cmd);
        let mut legal = engine::MoveList::new();
        engine::generate_legal(&e.pos, &mut legal);
        if legal.is_empty() {
            break;
        }
        if ply % 2 == 0 {
            // Main time used up (as late in a game): the clock is byoyomi only, so that a real
            // search spends ~0.2 s here.
            let best = e.go(&format!("go btime 0 wtime {} byoyomi 200", 60000 - ply * 100));
            let m = best.split_whitespace().nth(1).unwrap().to_string();
            if m == "resign" || m == "win" {
                break;
            }
            moves.push(m);
        } else {
            moves.push(legal.iter().next().unwrap().to_string());
        }
    }
    moves
}

#[test]
fn shogidokoro_game_order_two_games() {
    let mut e = Engine::spawn();
    set_every_option(&mut e);
    e.sync();
    e.send("usinewgame");
    play(&mut e, "position startpos", 8);
    e.send("gameover win");
    // The next game starts with isready again.
    e.sync();
    e.send("usinewgame");
    play(&mut e, "position startpos", 6);
    e.send("gameover lose");
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

#[test]
fn handicap_game_from_sfen() {
    let mut e = Engine::ready();
    e.send("usinewgame");
    let start = "position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    e.send(&format!("{start} moves 5a6b 7g7f"));
    e.go(GO);
    e.send(&format!("{start} moves 5a6b 7g7f 3a3b"));
    e.go("go btime 1000 wtime 1000 binc 100 winc 100");
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

#[test]
fn shogigui_analysis_with_multipv() {
    let mut e = Engine::ready();
    e.send("position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1");
    e.send("go infinite");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove before stop: {quiet:?}");
    e.send("stop");
    e.expect_bestmove(LIVE);
    e.send("setoption name MultiPV value 3");
    e.send("position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1 moves G*2c");
    e.send("go infinite");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove before stop: {quiet:?}");
    e.send("stop");
    e.expect_bestmove(LIVE);
    // The GUI's next position arrives with the implicit stop of a new go.
    e.send("setoption name USI_MultiPV value 1");
    e.send("position startpos moves 2g2f");
    e.send("go infinite");
    e.collect_for(Duration::from_millis(100));
    e.send("stop");
    e.expect_bestmove(LIVE);
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

#[test]
fn ponder_hit_and_ponder_miss() {
    let mut e = Engine::ready();
    e.send("setoption name USI_Ponder value true");
    e.send("usinewgame");
    // Hit.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 200");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove while pondering: {quiet:?}");
    e.send("ponderhit");
    e.expect_bestmove(LIVE);
    // Miss: stop, the bestmove must be legal in the pondered position, then the real move.
    e.send("position startpos moves 7g7f 3c3d 2g2f 8c8d");
    e.send("go ponder btime 0 wtime 0 byoyomi 200");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove while pondering: {quiet:?}");
    e.send("stop");
    e.expect_bestmove(LIVE);
    e.send("position startpos moves 7g7f 3c3d 2g2f 4c4d");
    e.go(GO);
    // YaneuraOu's ponderhit with clock times.
    e.send("position startpos moves 7g7f 3c3d 2g2f 4c4d 2f2e 2b3c");
    e.send("go ponder btime 0 wtime 0 byoyomi 200");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove while pondering: {quiet:?}");
    e.send("ponderhit btime 0 wtime 0 byoyomi 150");
    e.expect_bestmove(LIVE);
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

#[test]
fn gameover_stops_pondering_and_a_new_game_follows() {
    let mut e = Engine::ready();
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 200");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet));
    // Shogidokoro: gameover without stop when the opponent resigns during our ponder.
    e.send("gameover win");
    e.expect_bestmove(LIVE);
    e.sync();
    e.send("usinewgame");
    e.send("position startpos");
    e.go(GO);
    e.finish();
}

#[test]
fn isready_during_a_search_does_not_disturb_it() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    e.send("isready");
    let (_, before) = e.expect("readyok", LIVE);
    assert!(no_bestmove(&before), "{before:?}");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "isready ended the search: {quiet:?}");
    e.send("stop");
    e.expect_bestmove(LIVE);
    e.finish();
}

#[test]
fn stop_is_obeyed_within_milliseconds() {
    let mut e = Engine::ready();
    let mut worst = Duration::ZERO;
    for pos in [
        "position startpos",
        "position sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    ] {
        e.send(pos);
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        e.send("stop");
        e.expect_bestmove(LIVE);
        worst = worst.max(t.elapsed());
    }
    println!("stop -> bestmove latency: worst {} ms", worst.as_millis());
    assert!(worst < Duration::from_millis(500), "stop took {worst:?}");
    e.finish();
}

#[test]
fn go_before_any_position_uses_the_start_position() {
    let mut e = Engine::spawn();
    e.send("usi");
    e.expect("usiok", LIVE);
    e.send("setoption name USI_Hash value 16");
    // No isready, no position.
    e.go(GO);
    e.finish();
}

#[test]
fn no_legal_move_under_go_infinite_waits_for_stop() {
    let mut e = Engine::ready();
    // White to move is checkmated (gold on 5b protected by the pawn on 5c).
    let mated = "position sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1";
    e.send(mated);
    e.send("go infinite");
    let quiet = e.collect_for(Duration::from_millis(500));
    assert!(no_bestmove(&quiet), "bestmove before stop: {quiet:?}");
    e.send("stop");
    let line = e.expect_bestmove(LIVE);
    assert_eq!(line, "bestmove resign");
    // Same under go ponder until ponderhit.
    e.send("go ponder btime 1000 wtime 1000 byoyomi 100");
    let quiet = e.collect_for(QUIET);
    assert!(no_bestmove(&quiet), "bestmove before ponderhit: {quiet:?}");
    e.send("ponderhit");
    assert_eq!(e.expect_bestmove(LIVE), "bestmove resign");
    // And at once with a clock.
    assert_eq!(e.go(GO), "bestmove resign");
    e.finish();
}

#[test]
fn exactly_one_bestmove_per_go() {
    let mut e = Engine::ready();
    e.send("position startpos moves 7g7f");
    for _ in 0..5 {
        e.go(GO);
    }
    // A new go while searching stops the old search: each still gets its own bestmove.
    e.send("go infinite");
    e.send("go infinite");
    e.send("go ponder btime 100 wtime 100 byoyomi 100");
    e.send("go btime 0 wtime 0 byoyomi 100");
    e.send("go depth 1");
    e.send("go nodes 1000");
    e.send("go movetime 100");
    e.send("stop");
    e.send("stop");
    e.send("isready");
    e.expect("readyok", LIVE);
    // Let every bestmove arrive before counting.
    let want = e.sent.iter().filter(|l| l.starts_with("go")).count();
    let deadline = Instant::now() + LIVE;
    while e.lines.iter().filter(|l| l.starts_with("bestmove")).count() < want && Instant::now() < deadline {
        e.collect_for(Duration::from_millis(50));
    }
    let lines = e.collect_for(QUIET);
    assert!(no_bestmove(&lines), "extra bestmove: {lines:?}");
    for l in e.lines.clone().iter().filter(|l| l.starts_with("bestmove")) {
        e.check_bestmove(l);
    }
    e.finish();
}

#[test]
fn go_mate_answers_exactly_one_checkmate_line() {
    let mut e = Engine::ready();
    // Mate in one by a gold drop (a placeholder solver may still answer timeout).
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    e.send("go mate 1000");
    let (line, _) = e.expect("checkmate", LIVE);
    let t: Vec<&str> = line.split_whitespace().collect();
    match t[1] {
        "nomate" | "timeout" => assert_eq!(t.len(), 2, "{line}"),
        _ => {
            let mut p = e.pos.clone();
            for m in &t[1..] {
                let mv = p.parse_usi_move(m).unwrap_or_else(|err| panic!("{line}: {err}"));
                p.do_move(mv);
            }
            let mut legal = engine::MoveList::new();
            engine::generate_legal(&p, &mut legal);
            assert!(legal.is_empty() && p.in_check(), "{line} does not mate");
        }
    }
    // go mate infinite ends at stop at the latest.
    e.send("go mate infinite");
    let early = e.collect_for(Duration::from_millis(100));
    e.send("stop");
    if !early.iter().any(|l| l.starts_with("checkmate")) {
        e.expect("checkmate", LIVE);
    }
    let rest = e.collect_for(QUIET);
    assert!(!rest.iter().any(|l| l.starts_with("checkmate") || l.starts_with("bestmove")));
    // Then a normal search works.
    e.go(GO);
    e.finish();
}

#[test]
fn eof_during_a_search_exits_promptly() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.close_stdin();
    let st = e.wait_exit(Duration::from_secs(10));
    println!("exit after EOF took {} ms", t.elapsed().as_millis());
    assert!(st.success());
    assert!(t.elapsed() < Duration::from_secs(5));
    let lines = e.collect_for(Duration::from_millis(200));
    assert!(lines.iter().filter(|l| l.starts_with("bestmove")).count() <= 1);
}

#[test]
fn quit_during_go_mate_and_ponder_exits() {
    for go in ["go mate infinite", "go ponder btime 1000 wtime 1000 byoyomi 100"] {
        let mut e = Engine::ready();
        e.send("position startpos");
        e.send(go);
        e.send("quit");
        assert!(e.wait_exit(Duration::from_secs(10)).success());
    }
}

/// Sends a bad input, then a `go`: exactly one `info string error:` line comes back, and a
/// legal `bestmove` (checked against `expect_pos`, the position the engine should now have).
fn bad_input(e: &mut Engine, input: &[u8], expect_pos: Option<&str>) {
    e.send_raw(input);
    e.record_sent(&String::from_utf8_lossy(&input[..input.len().min(60)]));
    if let Some(p) = expect_pos {
        e.pos = common::position_from_command(p);
    }
    e.send(GO);
    let (best, lines) = e.expect("bestmove", LIVE);
    e.check_bestmove(&best);
    let errs = errors(&lines);
    assert_eq!(
        errs.len(),
        1,
        "input {:?} gave {} error lines: {errs:?}\n{}",
        String::from_utf8_lossy(&input[..input.len().min(80)]),
        errs.len(),
        e.transcript()
    );
    assert!(errs[0].len() < 1000, "error line too long");
}

/// Sends a `position` the engine refuses, then a `go`: the refusal and the `go` are each
/// reported once (`info string error:`), and the `go` answers `bestmove resign`; so does a
/// second one, and `go mate` answers `checkmate notimplemented`, until a position is accepted.
fn refused_input(e: &mut Engine, input: &[u8]) {
    let shown = String::from_utf8_lossy(&input[..input.len().min(80)]).to_string();
    e.send_raw(input);
    e.record_sent(&shown);
    e.send(GO);
    let (best, lines) = e.expect("bestmove", LIVE);
    assert_eq!(best, "bestmove resign", "after {shown:?}\n{}", e.transcript());
    let errs = errors(&lines);
    assert_eq!(errs.len(), 2, "{shown:?}: {errs:?}");
    assert!(errs[0].contains("position refused"), "{shown:?}: {errs:?}");
    assert!(errs[1].contains("go: the last position was refused (position"), "{shown:?}: {errs:?}");
    e.send("go mate 100");
    assert_eq!(e.expect("checkmate", LIVE).0, "checkmate notimplemented", "{shown:?}");
}

#[test]
fn bad_input_is_reported_once_and_the_session_goes_on() {
    let mut e = Engine::ready();
    e.send("position startpos moves 7g7f");
    bad_input(&mut e, b"foo bar baz\n", None);
    // Whatever a position is refused for, a later `go` answers `bestmove resign` (never a move
    // of another position: the one before, or the legal part of the list), with the reason.
    for input in [
        // Malformed SFEN.
        &b"position sfen lnsgkgsnl/9 b - 1\n"[..],
        b"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1\n",
        // Impossible SFENs: two black kings, nifu, a dead pawn.
        b"position sfen 4k4/9/9/9/9/9/9/9/3KK4 b - 1\n",
        b"position sfen 4k4/9/9/9/4P4/4P4/9/9/4K4 b - 1\n",
        b"position sfen P3k4/9/9/9/9/9/9/9/4K4 b - 1\n",
        b"position\n",
        // An illegal move in the list.
        b"position startpos moves 7g7f 3c3d 7f7e 9i9h 2g2f\n",
        b"position startpos moves 7g7f 3c3d xyzzy\n",
        b"position startpos moves 7g7f 3c3d 8h2b+ 3a2b P*5e\n",
        // A pass while in check.
        b"position sfen 4k4/9/9/9/9/9/9/4r4/4K4 b - 1 moves pass 5i5h\n",
    ] {
        refused_input(&mut e, input);
        e.send("position startpos moves 7g7f");
    }
    // Options.
    e.send("position startpos");
    bad_input(&mut e, b"setoption name NoSuchOption value 1\n", None);
    // Out of range: clamped (to small values, so that the searches stay cheap) and reported.
    bad_input(&mut e, b"setoption name Threads value 0\n", None);
    bad_input(&mut e, b"setoption name Threads value -5\n", None);
    bad_input(&mut e, b"setoption name USI_Hash value 0\n", None);
    bad_input(&mut e, b"setoption name MinimumThinkingTime value 5\n", None);
    bad_input(&mut e, b"setoption name USI_Hash value lots\n", None);
    bad_input(&mut e, b"setoption name USI_Ponder value maybe\n", None);
    bad_input(&mut e, b"setoption name EnteringKingRule value Anything\n", None);
    bad_input(&mut e, b"setoption Threads 2\n", None);
    bad_input(&mut e, b"setoption name\n", None);
    e.send("setoption name Threads value 1");
    // Garbage bytes, a megabyte line, a megabyte position.
    bad_input(&mut e, b"\xff\xfe\x00\x01garbage\x80\n", None);
    let mut big = vec![b'x'; 2 << 20];
    big.push(b'\n');
    bad_input(&mut e, &big, None);
    let mut big = b"position startpos moves 7g7f".to_vec();
    for _ in 0..200_000 {
        big.extend_from_slice(b" 7g7f");
    }
    big.push(b'\n');
    refused_input(&mut e, &big);
    // Bad go parameters still search.
    e.send("position startpos");
    bad_input(&mut e, b"go btime abc wtime 0 byoyomi 100\n", None);
    // (that go produced its own bestmove, checked by finish())
    let _ = e.expect_bestmove(LIVE);
    bad_input(&mut e, b"go searchmoves 1a1b byoyomi 100\n", None);
    let _ = e.expect_bestmove(LIVE);
    // Still alive and in sync.
    e.sync();
    e.finish();
}

#[test]
fn valid_oddities_are_accepted_silently() {
    let mut e = Engine::ready();
    // CRLF line ends.
    e.send_raw(b"position startpos moves 7g7f\r\n");
    e.record_sent("position startpos moves 7g7f");
    e.pos = common::position_from_command("position startpos moves 7g7f");
    e.send_raw(b"go btime 0 wtime 0 byoyomi 100\r\n");
    e.record_sent("go");
    e.expect_bestmove(LIVE);
    // Null moves and end markers in the move list.
    e.send("position startpos moves 7g7f pass 2g2f");
    e.go(GO);
    e.send("position startpos moves 7g7f 0000 2g2f null");
    e.go(GO);
    e.send("position startpos moves 7g7f 3c3d resign");
    e.go(GO);
    e.send("position startpos moves 7g7f 3c3d win 2g2f");
    e.go(GO);
    // A bare SFEN, `moves` with nothing after it, extra spaces and tabs.
    e.send("position lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f");
    e.go(GO);
    e.send("position   startpos \t moves");
    e.go(GO);
    e.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    e.go("go  btime 0   wtime 0 byoyomi 100 ");
    // SFEN without move number.
    e.send("position sfen 4k4/9/9/9/9/9/9/9/4K4 b G");
    e.go(GO);
    // stop when idle, ponderhit when not pondering, blank lines, options in any case.
    e.send("stop");
    e.send("ponderhit");
    e.send("");
    e.send("   ");
    e.send("setoption name threads value 1");
    e.send("SetOption Name usi_hash Value 16");
    e.send("setoption name ClearHash");
    e.send("setoption name USI_OwnBook value true");
    e.send("setoption name EnteringKingRule value csarule24");
    e.send("usinewgame");
    e.sync();
    e.send("position startpos");
    e.go("go btime 0 wtime 0 byoyomi 100");
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    // USI_OwnBook without a BookFile: no book, every move searched, nothing to report.
    assert!(!lines.iter().any(|l| l.starts_with("info string book")), "no BookFile, no book move");
}

#[test]
fn commands_for_people() {
    let mut e = Engine::ready();
    e.human_output = true;
    e.send("perft 3");
    let (_, _) = e.expect("Nodes searched: 25470", LIVE);
    e.send("position startpos moves 7g7f");
    e.send("d");
    let lines = e.read_until(|l| l.starts_with("Checkers:"), LIVE);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("SFEN: ")
            && l.ends_with("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2")));
    assert!(lines.iter().any(|l| l.starts_with("Key: ")));
    assert!(lines.iter().any(|l| l == "Kings: black (sente) 5i, white (gote) 5a"), "{lines:?}");
    // A tsume position without the attacker's king: `d` says so.
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    e.send("d");
    let lines = e.read_until(|l| l.starts_with("Checkers:"), LIVE);
    let kings = lines.iter().rev().find(|l| l.starts_with("Kings: ")).unwrap();
    assert!(kings.starts_with("Kings: black (sente) none, white (gote) 5a (a side without a king"), "{kings}");
    // After a refused position `d` says so first (and shows the last position accepted).
    e.send_raw(b"position sfen 4k4/9/4P4/9/9/9/9/9/9 b - 1 moves 9a9b\n");
    e.send("d");
    let lines = e.read_until(|l| l.starts_with("Checkers:"), LIVE);
    assert!(lines.iter().any(|l| l.starts_with("Position refused (position: move 1 '9a9b'")), "{lines:?}");
    e.send("position startpos moves 7g7f");
    e.send("eval");
    e.read_until(|l| l.starts_with("Terms "), LIVE);
    e.send("position startpos");
    e.send("perft 2");
    let lines = e.read_until(|l| l.starts_with("Nodes searched:"), LIVE);
    assert!(lines.iter().any(|l| l == "7g7f: 30"), "divide line");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 900");
    e.send("perft x");
    e.send("bench 1 1 16");
    e.read_until(|l| l.starts_with("Nodes/second:"), LIVE);
    e.send("help");
    e.read_until(|l| l.contains("Extra commands"), LIVE);
    e.go(GO);
    let lines = e.finish();
    assert_eq!(errors(&lines).len(), 2, "the refused position and perft x: {:?}", errors(&lines));
}

#[test]
fn usilog_records_every_line_in_and_out() {
    let path = std::env::temp_dir().join(format!("kaname usi log {}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut e = Engine::ready();
    e.send(&format!("setoption name UsiLog value {}", path.display()));
    e.send("position startpos");
    e.go(GO);
    e.send("setoption name UsiLog value <empty>");
    e.sync();
    e.finish();
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(log.lines().any(|l| l.ends_with("> position startpos")), "{log}");
    assert!(log.lines().any(|l| l.contains(" < bestmove ")), "{log}");
    assert!(!log.contains("readyok"), "logging did not stop: {log}");
    assert!(log.lines().all(|l| l.starts_with("20") || l.starts_with("19")), "{log}");
}

/// A hash size larger than the machine can map (`USI_Hash` and `MateHash` allow 64 GiB) is not a
/// crash: the engine takes the largest halving it can map, says so in an `info string` when it
/// had to, and plays on, across `usinewgame`, `go mate` and back to a normal size.
#[test]
fn a_hash_larger_than_the_machine_is_reduced_not_fatal() {
    if under_wine() {
        // `ulimit -v` limits Wine's process, but Windows' available memory, which Kaname reads
        // there, does not show it: the table is then halved until it maps, filling the address
        // space and leaving the mate table too little. hugemem's unit tests check the cap's
        // reading under Wine; a real Windows machine has no such limit.
        return;
    }
    // A machine that can map 3 GiB, whatever the machine running the test: the 64 GiB asked
    // for become half of what that limit leaves (`a_hash_the_machine_cannot_spare_...`).
    let mut e = Engine::spawn_with_address_space(3 * 1024);
    e.send("usi");
    e.expect("usiok", LIVE);
    // `isready` after setting `option` (others at 16 MiB); the info lines it printed.
    let set_and_ready = |e: &mut Engine, option: &str, mb: u32| {
        for name in ["USI_Hash", "MateHash"] {
            e.send(&format!("setoption name {name} value {}", if name == option { mb } else { 16 }));
        }
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        lines.into_iter().filter(|l| l.starts_with("info string")).collect::<Vec<_>>()
    };
    for option in ["USI_Hash", "MateHash"] {
        let lines = set_and_ready(&mut e, option, 65536);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains(&format!("{option} 65536 MiB")) && lines[0].contains("using"), "{lines:?}");
        e.send("usinewgame");
        e.send("position startpos moves 7g7f");
        e.go("go depth 4");
        e.send("position sfen 7k1/9/9/9/9/9/9/9/8K b 2G 1");
        e.send("go mate 1000");
        let (answer, _) = e.expect("checkmate", LIVE);
        assert_eq!(answer, "checkmate nomate");
    }
    assert!(set_and_ready(&mut e, "USI_Hash", 16).is_empty());
    e.go("go depth 4");
    let lines = e.finish();
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
}

/// Issue 66: `USI_Hash 65536` (64 GiB) on a machine that cannot spare it. The table takes half
/// of the memory available (the rest for the OS, the GUI and another engine), an `info string`
/// says so, `readyok` comes at once (the pages are mapped for at most 0.7 s, the rest in the
/// background while only the mapped part is used), as does the `bestmove` of a `go infinite`
/// that resized the table when `stop` follows, and a byoyomi search keeps its time. On this
/// machine's memory and under a limit of 2 GiB (`ulimit -v`; a memory control group as well
/// where the test may make one).
#[test]
fn a_hash_the_machine_cannot_spare_is_capped_and_answers_at_once() {
    if under_wine() {
        // Wine maps any size and would be run out of memory; hugemem's unit tests check the
        // cap's reading on Windows.
        return;
    }
    let quick = Duration::from_millis(2500);
    let mut engines = vec![
        ("this machine", Engine::spawn(), None),
        ("ulimit -v 2 GiB", Engine::spawn_with_address_space(2048), None),
    ];
    if let Some((e, group)) = spawn_in_memory_cgroup(2048) {
        engines.push(("a 2 GiB memory cgroup", e, Some(group)));
    }
    for (machine, mut e, group) in engines {
        e.send("usi");
        e.expect("usiok", LIVE);
        e.send("setoption name USI_Hash value 65536");
        let t = Instant::now();
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        let waited = t.elapsed();
        assert!(waited < quick, "{machine}: readyok after {waited:?}");
        let note =
            lines.iter().find(|l| l.starts_with("info string USI_Hash 65536 MiB is more than this machine can spare"));
        let note = note.unwrap_or_else(|| panic!("{machine}: {lines:?}"));
        let mb: u64 = note.split("using ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        eprintln!("{machine}: readyok after {waited:?}: {note}");
        if machine != "this machine" {
            assert!(mb <= 1024, "{machine}: {note}");
        }
        // A byoyomi move keeps its time with the table partly mapped.
        e.send("usinewgame");
        e.send("position startpos moves 7g7f 3c3d");
        let t = Instant::now();
        e.send("go btime 0 wtime 0 byoyomi 1000");
        e.expect_bestmove(LIVE);
        assert!(t.elapsed() < Duration::from_millis(1600), "{machine}: byoyomi 1000 took {:?}", t.elapsed());
        // A `go infinite` that resizes the table: `stop` is answered at once.
        e.send("setoption name USI_Hash value 60000");
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        let t = Instant::now();
        e.send("stop");
        e.expect_bestmove(LIVE);
        assert!(t.elapsed() < quick, "{machine}: bestmove {:?} after stop", t.elapsed());
        let lines = e.finish();
        if let Some(group) = group {
            let _ = std::fs::remove_dir(group);
        }
        assert!(errors(&lines).is_empty(), "{machine}: {:?}", errors(&lines));
    }
}

/// The engine in a new memory control group limited to `mib` MiB (cgroup v2, or v1's memory
/// controller), with the group's folder to remove once it is empty, or `None` (with a note)
/// where the test may not make one.
fn spawn_in_memory_cgroup(mib: u64) -> Option<(Engine, std::path::PathBuf)> {
    let name = format!("kaname-test-{}", std::process::id());
    for (root, limit) in [("/sys/fs/cgroup", "memory.max"), ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")] {
        let dir = std::path::Path::new(root).join(&name);
        if std::fs::create_dir(&dir).is_err() {
            continue;
        }
        // A real group has the kernel's files at once (`/sys/fs/cgroup` of a v1 machine is a
        // tmpfs, where a folder is only a folder).
        if !dir.join("cgroup.procs").exists() {
            let _ = std::fs::remove_dir(&dir);
            continue;
        }
        if std::fs::write(dir.join(limit), (mib << 20).to_string()).is_err() {
            let _ = std::fs::remove_dir(&dir);
            continue;
        }
        let mut cmd = std::process::Command::new("sh");
        let procs = dir.join("cgroup.procs");
        cmd.arg("-c").arg(format!("echo $$ > '{}' && exec \"$0\"", procs.display())).arg(common::kaname_bin());
        return Some((Engine::spawn_command(cmd), dir));
    }
    eprintln!("note: no memory cgroup could be made here; tested under ulimit -v only");
    None
}

#[test]
fn eval_file_errors_are_reported_once_and_play_goes_on() {
    let dir = std::env::temp_dir().join(format!("kaname-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("random.knn");
    eval::nnue::netfile::save(&eval::nnue::QuantNet::random(7), &good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let truncated = dir.join("truncated.knn");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let corrupt = dir.join("corrupt.knn");
    let mut c = bytes.clone();
    let last = c.len() - 1;
    c[last] ^= 0x55;
    std::fs::write(&corrupt, &c).unwrap();
    let missing = dir.join("missing.knn");

    let mut e = Engine::ready();
    e.send("setoption name EvalKind value net");
    for (file, bad) in [(&missing, true), (&good, false), (&truncated, true), (&corrupt, true), (&good, false)] {
        e.send(&format!("setoption name EvalFile value {}", file.display()));
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        let errs: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string error")).collect();
        if bad {
            assert_eq!(errs.len(), 1, "{file:?}: {lines:?}");
            assert!(errs[0].contains("EvalFile"), "{}", errs[0]);
        } else {
            assert!(errs.is_empty(), "{file:?}: {lines:?}");
        }
        // The same file again is not reloaded nor reported again.
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        assert!(lines.iter().all(|l| !l.starts_with("info string error")), "{lines:?}");
        e.send("position startpos moves 7g7f 3c3d");
        e.go("go depth 4");
    }
    e.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `EvalDir` is the folder of a bare `EvalFile` (YaneuraOu's pair, which shogiarena sends):
/// the net is found there, a change of folder loads again, and a bare name in a folder
/// without it is reported like any missing file.
#[test]
fn eval_file_is_read_from_eval_dir() {
    let dir = std::env::temp_dir().join(format!("kaname-evaldir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    eval::nnue::netfile::save(&eval::nnue::QuantNet::random(11), dir.join("n.knn")).unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();

    let mut e = Engine::ready();
    let ready_errors = |e: &mut Engine| {
        e.send("isready");
        let (_, lines) = e.expect("readyok", LIVE);
        lines.into_iter().filter(|l| l.starts_with("info string error")).collect::<Vec<String>>()
    };
    e.send(&format!("setoption name EvalDir value {}", dir.display()));
    e.send("setoption name EvalFile value n.knn");
    assert!(ready_errors(&mut e).is_empty());
    e.send(&format!("setoption name EvalDir value {}", empty.display()));
    let errs = ready_errors(&mut e);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(common::slashes(&errs[0]).contains(&empty.join("n.knn").display().to_string()), "{errs:?}");
    e.send(&format!("setoption name EvalFile value {}", dir.join("n.knn").display()));
    assert!(ready_errors(&mut e).is_empty(), "an absolute EvalFile ignores EvalDir");
    e.send("position startpos");
    e.go("go depth 3");
    e.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The nodes of the last `info ... nodes N` line of a fixed-depth search.
fn nodes_at_depth(e: &mut Engine, depth: u32) -> u64 {
    e.send("usinewgame");
    e.send("position startpos moves 7g7f 3c3d 2g2f 8c8d");
    e.send(&format!("go depth {depth}"));
    let (_, lines) = e.expect("bestmove", LIVE);
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.iter().position(|&w| w == "nodes").and_then(|i| t.get(i + 1)?.parse().ok())
        })
        .expect("an info line with nodes")
}

/// shogiarena's SPSA: `usi_tunables` answers one JSON manifest (schema
/// `shogiarena.usi_tunables.v1`) and `usi_tunablesok`; `kaname --tune` declares each tunable
/// as a spin option with the manifest's default and range; a plain session declares none but
/// accepts them, and a tunable changes the search; `Clear Hash` is a button.
#[test]
fn spsa_tunables_manifest_tuning_mode_and_clear_hash() {
    let mut e = Engine::spawn_with_args(&["--tune"]);
    e.send("usi");
    let (_, lines) = e.expect("usiok", LIVE);
    let spins: Vec<String> = lines.iter().filter(|l| l.starts_with("option name Tune_")).cloned().collect();
    assert!(lines.contains(&"option name Clear Hash type button".to_string()), "{lines:?}");
    e.send("usi_tunables");
    let (_, lines) = e.expect("usi_tunablesok", LIVE);
    let json = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string shogiarena_tunables_json "))
        .unwrap_or_else(|| panic!("no manifest: {lines:?}"));
    let v: serde_json::Value = serde_json::from_str(json).expect("the manifest is JSON");
    assert_eq!(v["schema_version"], "shogiarena.usi_tunables.v1");
    let tunables = v["tunables"].as_array().expect("a list of tunables");
    assert!(tunables.len() >= 10, "{json}");
    assert_eq!(tunables.len(), spins.len(), "{spins:?}");
    for t in tunables {
        assert_eq!(t["value_type"], "int");
        assert!(t["schedule"]["c_end"].as_f64().unwrap() > 0.0);
        let decl = format!(
            "option name {} type spin default {} min {} max {}",
            t["option"].as_str().unwrap(),
            t["default"],
            t["min"],
            t["max"]
        );
        assert!(spins.contains(&decl), "{decl} not declared: {spins:?}");
    }
    e.finish();

    let mut e = Engine::ready();
    e.send("usi");
    let (_, lines) = e.expect("usiok", LIVE);
    assert!(!lines.iter().any(|l| l.contains("Tune_") || l.contains("Clear Hash")), "declared outside --tune");
    let base = nodes_at_depth(&mut e, 7);
    assert_eq!(nodes_at_depth(&mut e, 7), base, "a fixed-depth search repeats after usinewgame");
    e.send("setoption name Tune_lmr_div value 150");
    e.send("setoption name Clear Hash");
    let tuned = nodes_at_depth(&mut e, 7);
    assert_ne!(tuned, base, "Tune_lmr_div changed nothing");
    e.send("setoption name Tune_lmr_div value 210");
    assert_eq!(nodes_at_depth(&mut e, 7), base, "back to the default, back to the same search");
    e.send("setoption name Tune_lmr_div value lots");
    e.sync();
    let lines = e.finish();
    assert_eq!(errors(&lines).len(), 1, "one error for the bad value: {:?}", errors(&lines));
}
