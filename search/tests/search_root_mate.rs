//! The budgeted df-pn at the root: a long forced mate is played under a normal clock and
//! reported as `score mate N`, with a mating line.

#[path = "search_common.rs"]
mod common;

use common::*;
use search::{BestMove, Limits, Score};

/// Mates in 13 plies from tests/data/tsume.txt (minimal length verified by gen_tsume.py).
const MATE_IN_13: &[&str] = &[
    "+P3g3s/2+Pl5/lng1R1ppn/1pS2k3/2s5+b/1Np1PKb1P/2+n3RP1/+p1s3P1L/3+p1G2g w 5Pp 159",
    "G3G2k1/2+N2S3/6P1p/4NG1p1/5s1r1/5p2+b/KS5PL/1pP1p2g1/4+p2L1 b S6P3p 228",
];

#[test]
fn long_mate_is_played_under_byoyomi_and_scored_as_mate() {
    for s in MATE_IN_13 {
        let pos = sfen(s);
        let limits = Limits { time: [Some(0), Some(0)], byoyomi: [1000, 1000], ..Default::default() };
        let out = run(&mut searcher(&options()), &pos, limits);
        let BestMove::Move(m) = out.result.best else { panic!("{s}: {:?}", out.result) };
        let info = out.last_info();
        let Score::Mate(n) = info.score else { panic!("{s}: score {:?}", info.score) };
        assert!(n > 0 && n % 2 == 1, "{s}: mate {n}");
        assert_eq!(info.pv.first(), Some(&m), "{s}");
        // Alpha-beta may find the mate before df-pn: its line need not check on every move,
        // but it is legal, as long as the score says, and ends in checkmate.
        let mut p = pos.clone();
        for &mv in &info.pv {
            assert!(p.is_legal(mv), "{s}: illegal {mv} in {:?}", info.pv);
            p.do_move(mv);
        }
        assert_eq!(info.pv.len() as i32, n, "{s}: PV {:?}", info.pv);
        assert!(!p.has_legal_move(), "{s}: PV {:?} does not end in mate", info.pv);
        println!("{s}: mate {n} in {} ms", out.elapsed.as_millis());
    }
}
