//! The raw cost of a YaneuraOu net in Kaname: full evaluations per second (both accumulators
//! summed from the biases, then the dense layers, as YaneuraOu's `compute_eval`) and
//! incremental ones (for every legal move of each position, REPEATS times: make it, evaluate
//! from the parent's accumulators, unmake it, as YaneuraOu's `evaluate` after `do_move`; the
//! position's own set-up is not timed), over the SFENs of a file. Single thread.
//! `cargo run --release -p eval --example yo_eval_speed -- NET.bin SFENS.txt [REPEATS]`

use eval::yo::{file, YoNet};
use eval::{Evaluator, Net};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (net, sfens) = (&args[0], &args[1]);
    let repeats: usize = args.get(2).map_or(20, |r| r.parse().expect("a repeat count"));
    let net = Arc::new(YoNet::new(file::load(net).expect("a YaneuraOu net").params));
    let positions: Vec<engine::Position> = std::fs::read_to_string(sfens)
        .expect("the SFEN file")
        .lines()
        .filter_map(|l| engine::Position::from_sfen(l.trim()).ok())
        .collect();
    eprintln!("{} positions, shape {}, {:?}", positions.len(), net.shape(), net.simd());
    let mut sum = 0i64;
    let start = Instant::now();
    for pos in &positions {
        for _ in 0..repeats {
            sum += net.evaluate_fresh(pos, 16) as i64;
        }
    }
    let full = (repeats * positions.len()) as f64 / start.elapsed().as_secs_f64();
    let mut ev = Evaluator::with_net(64, Net::Yo(net.clone()));
    let (mut n, mut secs) = (0u64, 0.0f64);
    for pos in &positions {
        let mut pos = pos.clone();
        ev.reset(&pos);
        sum += ev.evaluate(&pos) as i64;
        let mut list = engine::MoveList::new();
        engine::generate_legal(&pos, &mut list);
        let start = Instant::now();
        for _ in 0..repeats {
            for &m in list.iter() {
                ev.push(&pos, m);
                pos.do_move(m);
                sum += ev.evaluate(&pos) as i64;
                pos.undo_move(m);
                ev.pop();
            }
        }
        secs += start.elapsed().as_secs_f64();
        n += (repeats * list.len()) as u64;
    }
    let inc = n as f64 / secs;
    println!(
        "kaname {} full {:.0} evals/s, incremental {:.0} move+evals/s ({} moves, checksum {sum})",
        net.shape(),
        full,
        inc,
        n / repeats as u64
    );
}
