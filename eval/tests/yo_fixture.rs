//! Kaname's values of YaneuraOu nets against YaneuraOu's own: `tests/data/yo_nnue_evals.txt`
//! holds what YaneuraOu's `e` command printed (made by `scripts/gen_yo_nnue_fixture.py` with
//! YaneuraOu built from its source) for seeded random nets of every supported shape, which
//! this test regenerates (`eval::yo::random`) and checks byte for byte by their SHA-256.
//! Every value must be equal to the unit: the portable full evaluation, the evaluator's on
//! every path the machine runs (AVX-VNNI, AVX2, portable), and, after random moves and
//! unmoves from each position, the incremental value against a refresh.

use engine::{MoveList, Position};
use eval::yo::{random, Shape, Simd, YoNet};
use eval::{Evaluator, Net};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// One net's block of the fixture.
struct Block {
    shape: Shape,
    seed: u64,
    bytes: u64,
    sha256: String,
    /// (FV_SCALE, YaneuraOu's value, SFEN).
    evals: Vec<(i32, i32, String)>,
}

fn fixture() -> Vec<Block> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/yo_nnue_evals.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/yo_nnue_evals.txt");
    let mut blocks: Vec<Block> = Vec::new();
    let mut fv = 16;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (kind, rest) = line.split_once(' ').expect("a fixture line");
        match kind {
            "net" => {
                let mut words = rest.split_whitespace();
                let shape: Shape = words.next().unwrap().parse().unwrap();
                let field = |w: Option<&str>, key: &str| w.unwrap().strip_prefix(key).unwrap().to_string();
                let seed = field(words.next(), "seed=").parse().unwrap();
                let bytes = field(words.next(), "bytes=").parse().unwrap();
                let sha256 = field(words.next(), "sha256=");
                blocks.push(Block { shape, seed, bytes, sha256, evals: Vec::new() });
            }
            "fv" => fv = rest.trim().parse().unwrap(),
            "e" => {
                let (v, sfen) = rest.split_once(' ').unwrap();
                blocks.last_mut().unwrap().evals.push((fv, v.parse().unwrap(), sfen.to_string()));
            }
            _ => panic!("unknown fixture line: {line}"),
        }
    }
    blocks
}

/// Counts and hashes what is written.
struct Sink(Sha256, u64);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.update(b);
        self.1 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Random moves and unmoves from `pos`, the evaluator's value against the full one at every
/// step.
fn walk(ev: &mut Evaluator, net: &YoNet, fv: i32, start: &Position, seed: &mut u64) {
    let mut pos = start.clone();
    ev.reset(&pos);
    let mut line = Vec::new();
    for _ in 0..24 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let mut list = MoveList::new();
        engine::generate_legal(&pos, &mut list);
        if list.is_empty() || (seed.is_multiple_of(5) && !line.is_empty()) {
            let Some(m) = line.pop() else { break };
            pos.undo_move(m);
            ev.pop();
        } else {
            let m = list.as_slice()[(*seed >> 8) as usize % list.len()];
            ev.push(&pos, m);
            pos.do_move(m);
            line.push(m);
        }
        assert_eq!(ev.evaluate(&pos), net.evaluate_full(&pos, fv), "{} after {line:?}", start.to_sfen());
    }
}

#[test]
fn kaname_evaluates_yaneuraou_nets_as_yaneuraou_does() {
    let blocks = fixture();
    let mut shapes: Vec<Shape> = blocks.iter().map(|b| b.shape).collect();
    shapes.sort_by_key(|s| s.to_string());
    shapes.dedup();
    assert_eq!(shapes.len(), eval::yo::shape::SUPPORTED.len(), "every supported shape has a fixture");
    let (mut checked, mut walks) = (0, 0);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for b in &blocks {
        let params = random::params(b.shape, b.seed);
        let mut sink = Sink(Sha256::new(), 0);
        eval::yo::file::write(&params, &mut sink).unwrap();
        let sha: String = sink.0.finalize().iter().map(|x| format!("{x:02x}")).collect();
        assert_eq!((sink.1, sha.as_str()), (b.bytes, b.sha256.as_str()), "{} seed {}", b.shape, b.seed);
        let fast = Arc::new(YoNet::new(params));
        // Every path this machine runs (VNNI, AVX2, portable), each in its own evaluator.
        let mut evs: Vec<Evaluator> = [Simd::Vnni, Simd::Avx2, Simd::Portable]
            .into_iter()
            .filter(|s| s.available())
            .map(|s| Evaluator::with_net(64, Net::Yo(Arc::new((*fast).clone().with_simd(s)))))
            .collect();
        for (i, (fv, want, sfen)) in b.evals.iter().enumerate() {
            let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            assert_eq!(fast.evaluate_full(&pos, *fv), *want, "{} fv {fv}: {sfen}", b.shape);
            for ev in &mut evs {
                ev.set_fv_scale(*fv);
                ev.reset(&pos);
                assert_eq!(ev.evaluate(&pos), *want, "{} fv {fv}: {sfen}", b.shape);
            }
            if i % 4 == 0 {
                let k = i / 4 % evs.len();
                walk(&mut evs[k], &fast, *fv, &pos, &mut seed);
                walks += 1;
            }
            checked += 1;
        }
    }
    assert!(checked >= 3000, "{checked} values checked");
    assert!(walks >= 700, "{walks} walks");
}
