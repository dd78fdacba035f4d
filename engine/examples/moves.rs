fn main() {
    let sfen = std::env::args().nth(1).unwrap();
    let pos = engine::Position::from_sfen(&sfen).unwrap();
    let mut l = engine::MoveList::new();
    engine::generate_legal(&pos, &mut l);
    let mut v: Vec<String> = l.iter().map(|m| m.to_string()).collect();
    v.sort();
    println!("{}", v.join(" "));
}
