//! Parsing the arguments of `position`, `go` and `ponderhit`. Problems are returned as
//! sentences; the caller reports them as one `info string error:` line per command.

use crate::protocol::ascii;
use engine::{Color, Position, VariantId};
use search::Limits;

/// Applies a USI move list to `pos`. Stops quietly at `resign`/`win`; `pass`, `0000` and `null`
/// are null moves (refused when the side to move is in check). On an illegal move the problem
/// is returned (the legal prefix is applied: what the caller does with it is its choice).
pub fn apply_moves<'a>(pos: &mut Position, moves: impl IntoIterator<Item = &'a str>) -> Option<String> {
    for (i, text) in moves.into_iter().enumerate() {
        let ply = i + 1;
        if text.eq_ignore_ascii_case("resign") || text.eq_ignore_ascii_case("win") {
            log::debug!("move list ends at '{text}'");
            return None;
        }
        if ["pass", "0000", "null"].iter().any(|t| text.eq_ignore_ascii_case(t)) {
            if pos.in_check() {
                return Some(format!("move {ply} '{}': cannot pass while in check", ascii(text, 16)));
            }
            pos.do_null_move();
            continue;
        }
        match pos.parse_usi_move(text) {
            Ok(m) => pos.do_move(m),
            Err(e) => {
                return Some(format!("move {ply} '{}' is illegal: {}", ascii(text, 16), ascii(&e.to_string(), 100)))
            }
        }
    }
    None
}

/// Parses `position`'s arguments in the game `variant`. `Err` when the position is refused: no
/// SFEN, a bad one, or a move of the list that is illegal where it is played (the legal prefix
/// is not the GUI's position: a move found for it would be a move of another position);
/// `Ok((pos, Some(problem)))` when the position came with a harmless problem (text after
/// `startpos`).
pub fn position(args: &[&str], variant: VariantId) -> Result<(Position, Option<String>), String> {
    let moves_at = args.iter().position(|t| *t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let mut problems = Vec::new();
    let mut pos = match head.first() {
        None => return Err("position: expected startpos or sfen <sfen>".into()),
        Some(&"startpos") => {
            if head.len() > 1 {
                problems.push(format!(
                    "position: unexpected '{}' after startpos (ignored)",
                    ascii(&head[1..].join(" "), 40)
                ));
            }
            Position::startpos_in(variant)
        }
        Some(first) => {
            let sfen = if *first == "sfen" { &head[1..] } else { head };
            Position::from_sfen_in(variant, &sfen.join(" ")).map_err(|e| {
                format!("position: bad SFEN '{}': {}", ascii(&sfen.join(" "), 100), ascii(&e.to_string(), 100))
            })?
        }
    };
    if let Some(p) = apply_moves(&mut pos, moves.iter().copied()) {
        return Err(format!("position: {p}"));
    }
    Ok((pos, join_problems(problems)))
}

/// Several problems of one command as one sentence.
pub fn join_problems(problems: Vec<String>) -> Option<String> {
    match problems.len() {
        0 => None,
        _ => Some(problems.join("; ")),
    }
}

/// What `go` asks for.
#[derive(Debug, Default)]
pub struct Go {
    /// The limits of a normal search.
    pub limits: Limits,
    /// `go mate <ms>|infinite`: `Some(None)` is infinite.
    pub mate: Option<Option<u64>>,
}

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

fn number(args: &[&str], i: usize, key: &str, problems: &mut Vec<String>) -> Option<u64> {
    let Some(t) = args.get(i) else {
        problems.push(format!("{key} needs a number"));
        return None;
    };
    if let Ok(n) = t.parse::<u64>() {
        return Some(n);
    }
    if let Ok(n) = t.parse::<i64>() {
        // Negative clocks happen (HGM: "negative times are reset to 0"); not worth an error.
        log::debug!("{key} {n} taken as 0");
        return Some(0);
    }
    problems.push(format!("{key} needs a number, not '{}'", ascii(t, 20)));
    None
}

/// Parses `go`'s arguments against the position it will search.
pub fn go(args: &[&str], pos: &Position) -> (Go, Option<String>) {
    let mut g = Go::default();
    let mut problems = Vec::new();
    let mut unknown = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        let l = &mut g.limits;
        match key {
            "ponder" => l.ponder = true,
            "infinite" => l.infinite = true,
            "btime" | "wtime" | "binc" | "winc" | "byoyomi" | "bbyoyomi" | "wbyoyomi" | "movetime" | "movestogo"
            | "nodes" => {
                let Some(n) = number(args, i, key, &mut problems) else {
                    // Skip the bad value unless it is the next keyword.
                    if args.get(i).is_some_and(|t| !GO_KEYWORDS.contains(t)) {
                        i += 1;
                    }
                    continue;
                };
                i += 1;
                let (b, w) = (Color::Black.index(), Color::White.index());
                match key {
                    "btime" => l.time[b] = Some(n),
                    "wtime" => l.time[w] = Some(n),
                    "binc" => l.inc[b] = n,
                    "winc" => l.inc[w] = n,
                    "byoyomi" => l.byoyomi = [n, n],
                    "bbyoyomi" => l.byoyomi[b] = n,
                    "wbyoyomi" => l.byoyomi[w] = n,
                    "movetime" => l.movetime = Some(n),
                    "nodes" => l.nodes = Some(n),
                    _ => {} // movestogo: not used in shogi
                }
            }
            "depth" => match args.get(i).map(|t| t.parse::<i32>()) {
                Some(Ok(d)) if d >= 1 => {
                    l.depth = Some(d);
                    i += 1;
                }
                _ => {
                    problems.push(format!(
                        "depth needs a number >= 1, not '{}'",
                        ascii(args.get(i).copied().unwrap_or(""), 20)
                    ));
                    if args.get(i).is_some_and(|t| !GO_KEYWORDS.contains(t)) {
                        i += 1;
                    }
                }
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
                other => {
                    problems.push(format!(
                        "mate needs a time in ms or infinite, not '{}'; searching until stop",
                        ascii(other.copied().unwrap_or(""), 20)
                    ));
                    g.mate = Some(None);
                    if other.is_some_and(|t| !GO_KEYWORDS.contains(t)) {
                        i += 1;
                    }
                }
            },
            "searchmoves" => {
                let mut bad = Vec::new();
                while let Some(t) = args.get(i).filter(|t| !GO_KEYWORDS.contains(*t)) {
                    i += 1;
                    match pos.parse_usi_move(t) {
                        Ok(m) => {
                            if !l.searchmoves.contains(&m) {
                                l.searchmoves.push(m)
                            }
                        }
                        Err(e) => bad.push(format!("'{}' ({e})", ascii(t, 16))),
                    }
                }
                if !bad.is_empty() {
                    problems.push(format!("searchmoves: ignored {}", bad.join(", ")));
                }
            }
            other => unknown.push(ascii(other, 20)),
        }
    }
    if !unknown.is_empty() {
        let n = unknown.len();
        unknown.truncate(3);
        problems.push(format!(
            "unknown go parameter{} '{}'{}",
            if n > 1 { "s" } else { "" },
            unknown.join("' '"),
            if n > 3 { format!(" and {} more", n - 3) } else { String::new() }
        ));
    }
    let problem = join_problems(problems).map(|p| format!("go: {p}"));
    (g, problem)
}

/// Parses YaneuraOu's `ponderhit btime .. wtime .. byoyomi ..`: `None` when no clock is given.
pub fn ponderhit(args: &[&str], pos: &Position) -> (Option<Limits>, Option<String>) {
    if args.is_empty() {
        return (None, None);
    }
    let (g, problem) = go(args, pos);
    let problem = problem.map(|p| p.replacen("go:", "ponderhit:", 1));
    (Some(g.limits), problem)
}

/// The text after the `n`-th (0-based) whitespace-separated token of `line` (a `setoption`
/// value may contain spaces: a file path, say).
pub fn rest_after_token(line: &str, n: usize) -> &str {
    let mut rest = line;
    for _ in 0..=n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_keep_spaces() {
        let l = "setoption  name UsiLog value /tmp/my logs/usi.log ";
        assert_eq!(rest_after_token(l, 3).trim(), "/tmp/my logs/usi.log");
    }

    fn split(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn positions() {
        let (p, e) = position(&split("startpos"), VariantId::Shogi).unwrap();
        assert_eq!(p.to_sfen(), engine::START_SFEN);
        assert!(e.is_none());
        let (p, e) = position(&split("startpos moves 7g7f 3c3d"), VariantId::Shogi).unwrap();
        assert!(e.is_none());
        assert_eq!(p.game_ply(), 3);
        let bare = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a6b 7g7f";
        let (p, e) = position(&split(bare), VariantId::Shogi).unwrap();
        assert!(e.is_none());
        assert_eq!(p.side_to_move(), Color::White);
        // An illegal move refuses the whole position: its legal prefix is another position.
        let e = position(&split("startpos moves 7g7f 3c3d 7f7e 9i9h 2g2f"), VariantId::Shogi).err().unwrap();
        assert!(e.contains("move 4 '9i9h' is illegal"), "{e}");
        let (p, e) = position(&split("startpos moves 7g7f 3c3d resign 2g2f"), VariantId::Shogi).unwrap();
        assert!(e.is_none());
        assert_eq!(p.game_ply(), 3);
        let (p, e) = position(&split("startpos moves 7g7f pass 2g2f"), VariantId::Shogi).unwrap();
        assert!(e.is_none());
        assert_eq!(p.side_to_move(), Color::White);
        let e = position(&split("sfen 4k4/9/9/9/9/9/9/4r4/4K4 b - 1 moves 0000"), VariantId::Shogi).err().unwrap();
        assert!(e.contains("in check"), "{e}");
        let (_, e) = position(&split("startpos 7g7f"), VariantId::Shogi).unwrap();
        assert!(e.unwrap().contains("after startpos"));
        assert!(position(&split("sfen lnsgkgsnl/9 b - 1"), VariantId::Shogi).is_err());
        assert!(position(&[], VariantId::Shogi).is_err());
        assert!(position(&split("sfen"), VariantId::Shogi).is_err());
    }

    /// Fuzzing `position`, `go` and `ponderhit` with a property test over seeded random token
    /// lists (no external crate; the end-to-end USI fuzzer is tests/fuzz_usi.rs): they never
    /// panic; their problems are one line each (the session prints them as `info string`, which
    /// also makes them ASCII); an accepted position is consistent; `go`'s depth is at least 1
    /// and its `searchmoves` are distinct legal moves.
    #[test]
    fn position_and_go_never_panic() {
        let mut state = 0x0070_6172_7365_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut words: Vec<String> = split(engine::START_SFEN).iter().map(|w| w.to_string()).collect();
        words.extend(GO_KEYWORDS.iter().map(|w| w.to_string()));
        for w in [
            "startpos",
            "sfen",
            "moves",
            "7g7f",
            "3c3d",
            "2g2f",
            "8c8d",
            "P*5e",
            "8h2b+",
            "resign",
            "WIN",
            "pass",
            "0000",
            "null",
            "b",
            "w",
            "-",
            "1",
            "0",
            "-1",
            "18446744073709551616",
            "4294967295",
            "2147483648",
            "infinite",
            "x",
            "",
            "4k4/9/9/9/9/9/9/9/4K4",
            "4k4/9/9/9/9/9/9/4r4/4K4",
            "\u{3042}",
            "+",
            "*",
        ] {
            words.push(w.to_string());
        }
        let pos = Position::startpos();
        for i in 0..20_000 {
            let n = (next() % 14) as usize;
            let mut args: Vec<String> = (0..n).map(|_| words[(next() % words.len() as u64) as usize].clone()).collect();
            if i % 3 == 0 {
                args.insert(0, if i % 2 == 0 { "startpos".into() } else { "sfen".into() });
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let r = std::panic::catch_unwind(|| position(&args, VariantId::Shogi))
                .unwrap_or_else(|_| panic!("position {args:?} panicked"));
            let searched = match r {
                Ok((p, problem)) => {
                    p.is_consistent().unwrap_or_else(|e| panic!("position {args:?}: {e}"));
                    assert!(problem.is_none_or(|p| !p.contains(['\n', '\r'])), "{args:?}");
                    p
                }
                Err(e) => {
                    assert!(!e.contains(['\n', '\r']), "{args:?}: {e}");
                    pos.clone()
                }
            };
            let (g, problem) =
                std::panic::catch_unwind(|| go(&args, &searched)).unwrap_or_else(|_| panic!("go {args:?} panicked"));
            assert!(problem.is_none_or(|p| !p.contains(['\n', '\r'])), "{args:?}");
            assert!(g.limits.depth.is_none_or(|d| d >= 1), "{args:?}");
            let sm = &g.limits.searchmoves;
            assert!(sm.iter().all(|&m| searched.is_legal(m)), "{args:?}");
            assert!(sm.iter().enumerate().all(|(i, m)| !sm[..i].contains(m)), "{args:?}");
            let (_, problem) = std::panic::catch_unwind(|| ponderhit(&args, &searched))
                .unwrap_or_else(|_| panic!("ponderhit {args:?} panicked"));
            assert!(problem.is_none_or(|p| !p.contains(['\n', '\r'])), "{args:?}");
        }
    }

    #[test]
    fn go_parameters() {
        let pos = Position::startpos();
        let (g, e) = go(&split("btime 1000 wtime 2000 byoyomi 300"), &pos);
        assert!(e.is_none());
        assert_eq!(g.limits.time, [Some(1000), Some(2000)]);
        assert_eq!(g.limits.byoyomi, [300, 300]);
        let (g, e) = go(&split("ponder btime 0 wtime 0 binc 10 winc 20"), &pos);
        assert!(e.is_none() && g.limits.ponder);
        assert_eq!(g.limits.inc, [10, 20]);
        let (g, e) = go(&split("mate 1000"), &pos);
        assert!(e.is_none());
        assert_eq!(g.mate, Some(Some(1000)));
        let (g, _) = go(&split("mate infinite"), &pos);
        assert_eq!(g.mate, Some(None));
        let (g, e) = go(&split("searchmoves 7g7f 1a1b 2g2f depth 3"), &pos);
        assert!(e.unwrap().contains("1a1b"));
        assert_eq!(g.limits.searchmoves.len(), 2);
        assert_eq!(g.limits.depth, Some(3));
        let (g, e) = go(&split("btime abc wtime 5 bogus"), &pos);
        let e = e.unwrap();
        assert!(e.contains("btime") && e.contains("bogus"), "{e}");
        assert_eq!(g.limits.time, [None, Some(5)]);
        let (g, e) = go(&split("btime wtime 5"), &pos);
        assert!(e.is_some());
        assert_eq!(g.limits.time, [None, Some(5)]);
        let (_, e) = go(&split("infinite"), &pos);
        assert!(e.is_none());
    }
}
