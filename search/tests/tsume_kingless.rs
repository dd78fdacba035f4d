//! Real, public tsume without the attacker's king (`tests/data/tsume_kingless.txt`, made by
//! `scripts/gen_tsume_kingless.py` from antma/tsumeshogi-check, Marken-Foo/tsumemi and
//! YaneuraOu's mate3/mate5 collections, every one a mate verified by cshogi): the mate solver
//! behind `go mate` solves every one, and its line is replayed here move by move: legal, every
//! attacker move a check, the last position checkmate, and exactly the minimal length the
//! file records.

use engine::{generate_legal, Color, MoveList, Position};
use search::{verify_line, MateQuery, MateResult};

/// Node budget of the search proper per position.
const NODES: u64 = 2_000_000;
/// Table size per position, MiB.
const HASH_MB: usize = 16;

#[test]
fn go_mate_solves_every_kingless_tsume() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/tsume_kingless.txt"))
        .expect("tests/data/tsume_kingless.txt");
    let (mut solved, mut failures) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (sfen, length, source) = (f[0], f[1], f[3]);
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{source}: {e}: {sfen}"));
        let attacker = pos.side_to_move();
        assert!(!pos.has_king(attacker) && pos.has_king(!attacker), "{source}: not a kingless tsume");
        let rep = MateQuery::new(HASH_MB).nodes(NODES).solve(&pos, None);
        let MateResult::Mate(moves) = rep.result else {
            failures.push(format!("{source}: {:?}: {sfen}", rep.result));
            continue;
        };
        assert!(verify_line(&pos, &moves), "{source}: verify_line refuses {moves:?}");
        // The replay, spelled out: legal, checks by the attacker, mate at the end.
        let mut p = pos.clone();
        for (i, &m) in moves.iter().enumerate() {
            let mut legal = MoveList::new();
            generate_legal(&p, &mut legal);
            assert!(legal.contains(m), "{source}: {m} illegal in {moves:?}");
            p.do_move(m);
            if i % 2 == 0 {
                assert!(p.in_check(), "{source}: {m} does not check in {moves:?}");
                assert_eq!(p.side_to_move(), !attacker);
            }
        }
        assert!(moves.len() % 2 == 1 && !p.has_legal_move(), "{source}: {moves:?} does not end in mate");
        assert!(p.has_king(Color::Black) != p.has_king(Color::White));
        if let Ok(k) = length.parse::<usize>() {
            assert_eq!(moves.len(), k, "{source}: mate {} for the minimal {k}: {moves:?}", moves.len());
        }
        solved += 1;
    }
    assert!(failures.is_empty(), "{} unsolved:\n{}", failures.len(), failures.join("\n"));
    assert!(solved >= 70, "{solved} solved");
}
