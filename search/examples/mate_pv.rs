//! Prints Kaname's mating line for one SFEN, or with `moves` its legal moves (debugging aid).
fn main() {
    let sfen = std::env::args().nth(1).expect("SFEN");
    let pos = engine::Position::from_sfen(&sfen).unwrap();
    if std::env::args().nth(2).as_deref() == Some("moves") {
        let mut l = engine::MoveList::new();
        engine::generate(&pos, engine::GenKind::All, &mut l);
        let mut v: Vec<String> = l.iter().map(|m| m.to_string()).collect();
        v.sort();
        println!("{v:?}");
        return;
    }
    let rep = search::MateQuery::new(16).nodes(1_000_000).solve(&pos, None);
    match rep.result {
        search::MateResult::Mate(l) => {
            println!("{}", l.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "))
        }
        r => println!("{r:?}"),
    }
}
