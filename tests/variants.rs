//! The variants over USI (issue 14): `USI_Variant`, then `position`, `d`, `perft`, `go`,
//! `go mate` and `bench` in Minishogi, errors for positions that do not fit, and back to shogi.

mod common;

use common::{errors, Engine, LIVE};

/// Plays up to `plies` moves of a game from the start, each chosen by `go` (checked legal in
/// the variant the engine was told); returns the moves.
fn play_from_start(e: &mut Engine, plies: usize, go: &str) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..plies {
        let cmd = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        e.send(&cmd);
        let best = e.go(go);
        let mv = best.split_whitespace().nth(1).unwrap().to_string();
        if mv == "resign" || mv == "win" {
            break;
        }
        moves.push(mv);
    }
    moves
}

#[test]
fn minishogi_plays_over_usi() {
    let mut e = Engine::ready();
    e.human_output = true;
    e.send("setoption name USI_Variant value minishogi");
    e.send("position startpos");
    e.send("d");
    e.sync();
    assert!(e.lines.iter().any(|l| l == "SFEN: rbsgk/4p/5/P4/KGSBR b - 1"), "{}", e.transcript());
    assert!(e.lines.iter().any(|l| l == "Variant: minishogi"), "{}", e.transcript());
    e.send("perft 3");
    let (line, _) = e.expect("Nodes searched:", LIVE);
    assert_eq!(line, "Nodes searched: 2512");

    // A few moves of a game, each answer legal in Minishogi (`go` checks it).
    let moves = play_from_start(&mut e, 8, "go depth 5");
    assert!(moves.len() >= 4, "{}", e.transcript());
    e.send("position startpos");
    e.go("go byoyomi 200");

    // Mate in one with a gold drop next to the king in the corner (G*5b, G*4b and G*4a all
    // mate); `go mate` answers with a mating move.
    e.send("position sfen k4/2S2/1G3/5/4K b G 1");
    e.send("go mate 5000");
    let (line, _) = e.expect("checkmate", LIVE);
    let mv = line.strip_prefix("checkmate ").unwrap();
    let mut after = e.pos.clone();
    after.do_move(after.parse_usi_move(mv).unwrap_or_else(|err| panic!("{line}: {err}")));
    assert!(after.in_check() && !after.has_legal_move(), "{line}");

    // What does not fit the variant is refused with a reason; a go then resigns.
    let before = e.lines.len();
    e.send_raw(format!("position sfen {}\n", engine::START_SFEN).as_bytes());
    e.send_raw(b"position startpos moves 5e6e\n");
    e.send_raw(b"position sfen rbsgk/4p/2L2/P4/KGSBR b - 1\n");
    e.sync();
    let errs: Vec<String> = errors(&e.lines[before..]).into_iter().cloned().collect();
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(errs[0].contains("not 5"), "{errs:?}");
    assert!(errs[1].contains("6e is not on the board"), "{errs:?}");
    assert!(errs[2].contains("minishogi has no piece 'L'"), "{errs:?}");
    e.send("go depth 3");
    assert_eq!(e.expect("bestmove", LIVE).0, "bestmove resign");
    e.send("position startpos");
    e.go("go depth 3");

    e.send("bench 4");
    let (line, _) = e.expect("Nodes/second:", LIVE * 3);
    assert!(line.starts_with("Nodes/second:"));
    assert!(e.lines.iter().any(|l| l.starts_with("bench:") && l.ends_with(", minishogi")), "{}", e.transcript());

    // Back to shogi: the start is shogi's again.
    e.send("setoption name UCI_Variant value shogi");
    e.send("position startpos");
    e.go("go depth 3");
    e.send("d");
    e.sync();
    assert!(e.lines.iter().any(|l| l == &format!("SFEN: {}", engine::START_SFEN)));
    e.finish();
}

#[test]
fn shoshogi_plays_over_usi() {
    let mut e = Engine::ready();
    e.human_output = true;
    e.send("setoption name USI_Variant value shoshogi");
    e.send("position startpos");
    e.send("perft 2");
    let (line, _) = e.expect("Nodes searched:", LIVE);
    assert_eq!(line, "Nodes searched: 676");
    assert_eq!(play_from_start(&mut e, 6, "go depth 4").len(), 6, "{}", e.transcript());
    // A prince beside the king, shown as +E; the search and `go mate` (not implemented for
    // Sho shogi: a legal USI answer) work there.
    e.send("position sfen lnsgkgsnl/1r2e2b1/pppp+Epppp/9/9/4p4/PPPP1PPPP/1B5R1/LNSGKGSNL w - 12");
    e.send("d");
    e.sync();
    assert!(e.lines.iter().any(|l| l.contains("+E")), "{}", e.transcript());
    e.go("go byoyomi 200");
    e.send("go mate 1000");
    let (line, _) = e.expect("checkmate", LIVE);
    assert_eq!(line, "checkmate notimplemented");
    // No drops in Sho shogi.
    let before = e.lines.len();
    e.send_raw(b"position startpos moves P*5e\n");
    e.sync();
    let errs: Vec<String> = errors(&e.lines[before..]).into_iter().cloned().collect();
    assert!(errs.len() == 1 && errs[0].contains("no drops"), "{errs:?}");
    e.finish();
}

#[test]
fn unknown_variant_is_refused() {
    let mut e = Engine::ready();
    e.send("setoption name USI_Variant value chushogi");
    e.sync();
    let errs = errors(&e.lines);
    assert_eq!(errs.len(), 1, "{}", e.transcript());
    e.send("position startpos");
    e.go("go depth 2");
    e.finish();
}
