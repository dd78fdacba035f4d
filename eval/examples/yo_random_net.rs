//! Writes a seeded random YaneuraOu net (KRN1, `eval::yo::random`) of any supported shape:
//! the nets of the fixtures and the speed comparisons, made without Python.
//! `cargo run --release -p eval --example yo_random_net -- halfkp_256x2-32-32 SEED OUT.bin`

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [shape, seed, out] = &args[..] else {
        eprintln!("usage: yo_random_net <shape, e.g. halfkp_256x2-32-32> <seed> <out.bin>");
        std::process::exit(2);
    };
    let shape: eval::yo::Shape = shape.parse().unwrap_or_else(|e| panic!("{e}"));
    let seed: u64 = seed.parse().expect("a seed");
    eval::yo::file::save(&eval::yo::random::params(shape, seed), out).expect("writing the net");
}
