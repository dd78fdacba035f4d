fn main() {
    let d: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(6);
    let mut pos = engine::Position::startpos();
    engine::attacks::init();
    let t = std::time::Instant::now();
    let n = engine::perft(&mut pos, d);
    let e = t.elapsed().as_secs_f64();
    println!("{n} {e:.3}s {:.1} M/s", n as f64 / e / 1e6);
}
