//! Fuzzing of the text parsers with property tests over seeded random input (approach: plain
//! deterministic property tests, splitmix64 with fixed seeds and no external crate, like
//! `properties.rs`; not `cargo fuzz`, which needs a nightly toolchain and runs outside the test
//! suite). `KANAME_PARSER_FUZZ_CASES=N` runs N cases per test instead of the default.
//!
//! - `Position::from_sfen` never panics, whatever the text (random bytes and Unicode, random
//!   strings over the SFEN alphabet, random boards, valid SFENs with corrupted characters,
//!   fields or move numbers); a position it accepts is consistent, round-trips (`to_sfen`,
//!   then `from_sfen`, gives the same text and key), and is playable: every legal move (and a
//!   null move when not in check) can be made and taken back, and the position after it
//!   round-trips too (past `MAX_MOVE_NUMBER`, up to the move number, which reads back as that).
//! - `Position::parse_usi_move` never panics; a move it accepts is legal and prints back as
//!   exactly the text given; the text of every legal move is accepted as that move.

use engine::{generate_legal, Move, MoveList, Position, MAX_MOVE_NUMBER, START_SFEN};
use std::panic::{catch_unwind, AssertUnwindSafe};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

fn cases(default: usize) -> usize {
    std::env::var("KANAME_PARSER_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list.as_slice().to_vec()
}

/// Valid SFENs: a sample of `tests/data/legal_moves.txt`, the perft and mate positions.
fn sample_sfens() -> Vec<String> {
    let data = |f: &str| {
        std::fs::read_to_string(format!("{}/../tests/data/{f}", env!("CARGO_MANIFEST_DIR"))).expect("test data")
    };
    let mut v: Vec<String> = data("legal_moves.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .step_by(50)
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    v.extend(
        data("perft.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| l.split('\t').nth(1).unwrap().to_string()),
    );
    v.extend(
        data("tsume.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .step_by(10)
            .map(|l| l.split('\t').next().unwrap().to_string()),
    );
    v.push(START_SFEN.to_string());
    v
}

const SFEN_ALPHABET: &[char] = &[
    'p', 'l', 'n', 's', 'g', 'k', 'r', 'b', 'P', 'L', 'N', 'S', 'G', 'K', 'R', 'B', '+', '/', ' ', '-', '1', '2', '3',
    '4', '5', '6', '7', '8', '9', '0', 'b', 'w',
];
const ODD_CHARS: &[char] =
    &['\0', '\t', '\r', '\u{3000}', '\u{a0}', '\u{ff10}', '\u{0663}', '\u{5c07}', '\u{fffd}', 'é'];
const MOVE_NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "256",
    "2147483647",
    "2147483648",
    "4294967294",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "-1",
    "+1",
    "01",
    "1.0",
    "x",
];

/// A character-level corruption of `s`.
fn mutate(rng: &mut Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let n = c.len();
        match rng.below(8) {
            0 => c.truncate(rng.below(n + 1)),
            1 if n > 0 => c[rng.below(n)] = rng.pick(SFEN_ALPHABET),
            2 => c.insert(rng.below(n + 1), rng.pick(SFEN_ALPHABET)),
            3 if n > 0 => {
                c.remove(rng.below(n));
            }
            4 if n > 1 => {
                let i = rng.below(n - 1);
                c.swap(i, i + 1);
            }
            5 => c.insert(rng.below(n + 1), rng.pick(ODD_CHARS)),
            6 => {
                // Replace the move number (or add one).
                let text: String = c.iter().collect();
                let head: Vec<&str> = text.split(' ').take(3).collect();
                c = format!("{} {}", head.join(" "), rng.pick(MOVE_NUMBERS)).chars().collect();
            }
            _ => {
                let text: String = c.iter().collect();
                let mut f: Vec<&str> = text.split(' ').collect();
                let i = rng.below(f.len());
                let dup = f[i];
                f.insert(rng.below(f.len() + 1), dup);
                c = f.join(" ").chars().collect();
            }
        }
    }
    c.into_iter().collect()
}

/// A board of random pieces, hands, side and move number (mostly invalid, sometimes not).
fn random_board(rng: &mut Rng) -> String {
    let mut ranks = Vec::new();
    let density = [0.05, 0.15, 0.4][rng.below(3)];
    for _ in 0..9 {
        let mut r = String::new();
        let mut empty = 0;
        for _ in 0..9 {
            if (rng.next() % 1000) as f64 / 1000.0 < density {
                if empty > 0 {
                    r.push_str(&empty.to_string());
                    empty = 0;
                }
                if rng.below(5) == 0 {
                    r.push('+');
                }
                r.push(rng.pick(&['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K', 'p', 'l', 'n', 's', 'g', 'b', 'r', 'k']));
            } else {
                empty += 1;
            }
        }
        if empty > 0 {
            r.push_str(&empty.to_string());
        }
        ranks.push(r);
    }
    // Usually exactly one king each, so that more boards get past the king count.
    if rng.below(4) != 0 {
        ranks[0] = "4k4".into();
        ranks[8] = "4K4".into();
    }
    let hands =
        rng.pick(&["-", "P", "2p", "RBGSNLP", "rbgsnlp", "18P", "19P", "2K", "0P", "p2", "S2s", "10G", "4G", ""]);
    format!("{} {} {hands} {}", ranks.join("/"), rng.pick(&["b", "w", "B", "x"]), rng.pick(MOVE_NUMBERS))
}

/// Random text: bytes (lossily decoded), SFEN-alphabet strings, or Unicode.
fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(100);
    match rng.below(3) {
        0 => String::from_utf8_lossy(&(0..n).map(|_| rng.next() as u8).collect::<Vec<_>>()).into_owned(),
        1 => (0..n).map(|_| rng.pick(SFEN_ALPHABET)).collect(),
        _ => (0..n).map(|_| if rng.below(4) == 0 { rng.pick(ODD_CHARS) } else { rng.pick(SFEN_ALPHABET) }).collect(),
    }
}

fn parse_sfen(text: &str) -> Option<Position> {
    catch_unwind(|| Position::from_sfen(text)).unwrap_or_else(|_| panic!("from_sfen panicked on {text:?}")).ok()
}

/// The properties of an accepted position (see the module doc).
fn check_accepted(text: &str, pos: &mut Position) {
    pos.is_consistent().unwrap_or_else(|e| panic!("{text:?} accepted, inconsistent: {e}"));
    let round_trip = |pos: &Position, what: &str| {
        let s = pos.to_sfen();
        let again = Position::from_sfen(&s).unwrap_or_else(|e| panic!("{what}: to_sfen gave {s:?}, rejected: {e}"));
        if pos.game_ply() <= MAX_MOVE_NUMBER {
            assert_eq!(again.to_sfen(), s, "{what}");
        } else {
            // Played on past the largest move number an SFEN gives: read back as that.
            assert_eq!(again.game_ply(), MAX_MOVE_NUMBER, "{what}: {s}");
            assert_eq!(again.to_sfen().rsplit_once(' ').unwrap().0, s.rsplit_once(' ').unwrap().0, "{what}");
        }
        assert_eq!(again.key(), pos.key(), "{what}: key of {s}");
    };
    round_trip(pos, &format!("{text:?}"));
    let sfen = pos.to_sfen();
    for m in legal_moves(pos) {
        let r = catch_unwind(AssertUnwindSafe(|| {
            pos.do_move(m);
            pos.is_consistent().unwrap_or_else(|e| panic!("{e}"));
            round_trip(pos, &format!("{sfen} after {m}"));
            pos.undo_move(m);
        }));
        assert!(r.is_ok(), "{sfen}: making and taking back {m} panicked");
        assert_eq!(pos.to_sfen(), sfen);
    }
    if !pos.in_check() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            pos.do_null_move();
            round_trip(pos, &format!("{sfen} after a null move"));
            pos.undo_null_move();
        }));
        assert!(r.is_ok(), "{sfen}: a null move panicked");
    }
}

#[test]
fn sfen_parser_never_panics_and_what_it_accepts_round_trips() {
    let mut rng = Rng(0x5f3e_2d1c_0b0a_0908);
    let valid = sample_sfens();
    let mut accepted = 0usize;
    let n = cases(20_000);
    for i in 0..n {
        let text = match i % 5 {
            0 => random_text(&mut rng),
            1 => random_board(&mut rng),
            2 | 3 => {
                let s = valid[rng.below(valid.len())].clone();
                mutate(&mut rng, &s)
            }
            _ => valid[rng.below(valid.len())].clone(),
        };
        if let Some(mut pos) = parse_sfen(&text) {
            accepted += 1;
            // Checking every move of every accepted position is slow; a sample suffices.
            if i % 5 != 4 || rng.below(10) == 0 {
                check_accepted(&text, &mut pos);
            }
        }
    }
    println!("{n} SFEN texts, {accepted} accepted");
    assert!(accepted > n / 5, "too few accepted: {accepted} of {n}");
}

#[test]
fn sfen_move_numbers_at_the_edges() {
    let board = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
    for n in MOVE_NUMBERS {
        let text = format!("{board} {n}");
        if let Some(mut pos) = parse_sfen(&text) {
            check_accepted(&text, &mut pos);
        }
    }
}

const MOVE_ALPHABET: &[char] = &[
    '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'P', 'L', 'N',
    'S', 'G', 'B', 'R', 'K', 'p', 'r', '*', '+', ' ', 'A', 'I',
];

#[test]
fn move_parser_never_panics_and_accepted_moves_print_back() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let sfens = sample_sfens();
    let n = cases(20_000);
    let (mut accepted, mut positions) = (0usize, 0usize);
    let mut i = 0;
    while i < n {
        let pos = Position::from_sfen(&sfens[rng.below(sfens.len())]).unwrap();
        positions += 1;
        let legal = legal_moves(&pos);
        for m in &legal {
            let text = m.to_string();
            assert_eq!(pos.parse_usi_move(&text), Ok(*m), "{}: the text of legal move {text}", pos.to_sfen());
        }
        for _ in 0..50 {
            i += 1;
            let text: String = match rng.below(5) {
                0 => {
                    let len = rng.below(7);
                    (0..len).map(|_| rng.pick(MOVE_ALPHABET)).collect()
                }
                1 if !legal.is_empty() => {
                    let m = legal[rng.below(legal.len())].to_string();
                    let mut c: Vec<char> = m.chars().collect();
                    let k = rng.below(c.len());
                    match rng.below(4) {
                        0 => c[k] = rng.pick(MOVE_ALPHABET),
                        1 => c.insert(k, rng.pick(MOVE_ALPHABET)),
                        2 => c.insert(k, rng.pick(ODD_CHARS)),
                        _ => c.truncate(k),
                    }
                    c.into_iter().collect()
                }
                2 => {
                    // A well-formed move that is mostly illegal here.
                    let sq = |rng: &mut Rng| format!("{}{}", 1 + rng.below(9), (b'a' + rng.below(9) as u8) as char);
                    match rng.below(3) {
                        0 => format!("{}*{}", rng.pick(&['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K', 'p']), sq(&mut rng)),
                        1 => format!("{}{}+", sq(&mut rng), sq(&mut rng)),
                        _ => format!("{}{}", sq(&mut rng), sq(&mut rng)),
                    }
                }
                3 => String::from_utf8_lossy(&(0..rng.below(8)).map(|_| rng.next() as u8).collect::<Vec<_>>())
                    .into_owned(),
                _ => (0..rng.below(6)).map(|_| rng.pick(ODD_CHARS)).collect(),
            };
            let r = catch_unwind(|| pos.parse_usi_move(&text))
                .unwrap_or_else(|_| panic!("{}: parse_usi_move panicked on {text:?}", pos.to_sfen()));
            if let Ok(m) = r {
                accepted += 1;
                assert!(legal.contains(&m), "{}: {text:?} accepted as {m}, which is not legal", pos.to_sfen());
                assert_eq!(m.to_string(), text, "{}: accepted {text:?} prints as {m}", pos.to_sfen());
            }
        }
    }
    println!("{n} move texts in {positions} positions, {accepted} accepted");
    assert!(accepted > n / 200, "too few accepted: {accepted}");
}
