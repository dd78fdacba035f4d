//! Property tests over seeded random playouts: incremental state against recomputation,
//! do/undo symmetry, `key_after`, `gives_check`, `is_legal` against the generator on
//! exhaustively enumerated candidate moves, and sanity properties of `see_ge`.
//! Deterministic (a fixed xorshift seed); no external crates.

use engine::{generate, see_value, GenKind, Move, MoveList, Piece, PieceType, Position, Square};

const PERFT_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/perft.txt");

/// xorshift64*: small, deterministic, good enough to pick moves.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    generate(pos, GenKind::All, &mut list);
    list.as_slice().to_vec()
}

/// The start SFENs: the start position and the positions of `perft.txt`.
fn start_positions() -> Vec<String> {
    let text = std::fs::read_to_string(PERFT_FILE).expect("read perft.txt");
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').nth(1).expect("sfen field").to_string())
        .collect();
    v.dedup();
    v
}

/// Picks a move, preferring captures and drops a little so hands fill up and games vary.
fn pick(rng: &mut Rng, pos: &Position, moves: &[Move]) -> Move {
    if rng.below(3) == 0 {
        let caps: Vec<Move> = moves.iter().copied().filter(|&m| pos.is_capture(m)).collect();
        if !caps.is_empty() {
            return caps[rng.below(caps.len())];
        }
    }
    moves[rng.below(moves.len())]
}

/// Runs `f` on every position of seeded random playouts; returns the number of plies visited.
fn playouts(seed: u64, plies_per_game: usize, mut f: impl FnMut(&mut Position, &mut Rng)) -> usize {
    let mut rng = Rng(seed);
    let mut visited = 0;
    for sfen in start_positions() {
        for _game in 0..2 {
            let mut pos = Position::from_sfen(&sfen).unwrap();
            let root_sfen = pos.to_sfen();
            let root_key = pos.key();
            let mut played = Vec::new();
            for _ in 0..plies_per_game {
                f(&mut pos, &mut rng);
                visited += 1;
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                let m = pick(&mut rng, &pos, &moves);
                pos.do_move(m);
                played.push(m);
            }
            // Unwinding the whole game restores the root exactly.
            while let Some(m) = played.pop() {
                pos.undo_move(m);
                pos.is_consistent().unwrap();
            }
            assert_eq!(pos.to_sfen(), root_sfen);
            assert_eq!(pos.key(), root_key);
            assert_eq!(pos.history_len(), 0);
        }
    }
    visited
}

/// Incremental state equals recomputation; do/undo, key_after and gives_check agree.
#[test]
fn do_undo_keys_and_checks() {
    let mut moves_checked = 0usize;
    let visited = playouts(0x9e37_79b9_7f4a_7c15, 120, |pos, _rng| {
        pos.is_consistent().unwrap_or_else(|e| panic!("{}: {e}", pos.to_sfen()));
        assert_eq!(pos.in_check(), pos.checkers().any());
        let sfen = pos.to_sfen();
        let key = pos.key();
        let board_key = pos.board_key();
        let us = pos.side_to_move();
        // The checkers really attack our king, and only they do.
        let king = pos.king_square(us);
        assert_eq!(pos.checkers(), pos.attackers_to(!us, king, pos.occupied()), "{sfen}");
        for m in legal_moves(pos) {
            let predicted = pos.key_after(m);
            let check = pos.gives_check(m);
            pos.do_move(m);
            assert_eq!(pos.key(), predicted, "{sfen}: key_after({m})");
            assert_eq!(pos.in_check(), check, "{sfen}: gives_check({m})");
            assert_eq!(pos.side_to_move(), !us);
            assert_eq!(pos.last_move(), m);
            // The mover's king is never left attacked.
            assert!(!pos.is_attacked(!us, pos.king_square(us), pos.occupied()), "{sfen}: {m} leaves the king attacked");
            pos.is_consistent().unwrap_or_else(|e| panic!("{sfen} after {m}: {e}"));
            pos.undo_move(m);
            assert_eq!(pos.to_sfen(), sfen, "undo of {m}");
            assert_eq!(pos.key(), key, "{sfen}: key after undo of {m}");
            assert_eq!(pos.board_key(), board_key);
            moves_checked += 1;
        }
        pos.is_consistent().unwrap();
        // Null move: flips the side in the key, keeps the board, undoes exactly.
        if !pos.in_check() {
            pos.do_null_move();
            assert_ne!(pos.key(), key);
            assert_eq!(pos.side_to_move(), !us);
            assert!(!pos.in_check(), "{sfen}: the side that passed was giving check");
            pos.is_consistent().unwrap_or_else(|e| panic!("{sfen} after null move: {e}"));
            pos.undo_null_move();
            assert_eq!(pos.to_sfen(), sfen);
            assert_eq!(pos.key(), key);
        }
    });
    println!("{visited} positions, {moves_checked} moves made and taken back");
    assert!(visited > 2000, "only {visited} positions visited");
}

/// `is_legal` agrees with the generator on every move the constructors can express for the
/// pieces on the board and every drop, including the illegal ones: wrong promotion flags,
/// moves the piece cannot make, the opponent's pieces, drops of pieces not in hand, moves
/// from the previous position, and moves whose encoded piece is not the one on the square.
#[test]
fn is_legal_agrees_with_generator() {
    let mut candidates = 0usize;
    let mut prev_moves: Vec<Move> = Vec::new();
    let visited = playouts(0x1234_5678_9abc_def1, 60, |pos, rng| {
        let legal = legal_moves(pos);
        let us = pos.side_to_move();
        let sfen = pos.to_sfen();
        let mut check = |m: Move, pos: &Position| {
            let expected = legal.contains(&m);
            assert_eq!(pos.is_legal(m), expected, "{sfen}: is_legal({m} / {:#x})", m.raw());
            candidates += 1;
        };
        for from in Square::ALL {
            let pc = pos.piece_on(from);
            let Some(pt) = pc.kind_opt() else { continue };
            for to in Square::ALL {
                if to == from {
                    continue;
                }
                // Our piece, as it is; and promoting when its kind has a promoted form.
                check(Move::normal(from, to, pc), pos);
                if pt.can_promote() {
                    check(Move::promotion(from, to, pc), pos);
                }
                if pc.color() == us {
                    // The same move claiming another piece stands on `from`.
                    let other = if pt == PieceType::Silver { PieceType::Gold } else { PieceType::Silver };
                    let m = Move::normal(from, to, Piece::new(us, other));
                    assert!(!pos.is_legal(m), "{sfen}: is_legal({m}) with a wrong piece");
                } else {
                    // The opponent's piece, encoded as if it were ours.
                    let m = Move::normal(from, to, Piece::new(us, pt));
                    assert!(!pos.is_legal(m), "{sfen}: {m} moves the opponent's piece");
                }
            }
        }
        for to in Square::ALL {
            for pt in PieceType::HAND {
                check(Move::drop(Piece::new(us, pt), to), pos);
                // A drop by the opponent is never legal for us.
                assert!(!pos.is_legal(Move::drop(Piece::new(!us, pt), to)));
                // Kings and promoted pieces cannot be dropped.
                let promoted = if pt.can_promote() { pt.promoted() } else { PieceType::King };
                assert!(!pos.is_legal(Move::drop(Piece::new(us, promoted), to)));
            }
        }
        // Moves of the position one ply earlier (a stale transposition-table move).
        for &m in &prev_moves {
            check(m, pos);
        }
        assert!(!pos.is_legal(Move::NONE));
        assert!(!pos.is_legal(Move::NULL));
        // USI text: some random candidates parse exactly when they are legal.
        for _ in 0..8 {
            let from = Square::ALL[rng.below(81)];
            let to = Square::ALL[rng.below(81)];
            let text = if rng.below(4) == 0 {
                let pt = PieceType::HAND[rng.below(7)];
                format!("{}*{to}", pt.letter())
            } else {
                format!("{from}{to}{}", if rng.below(2) == 0 { "+" } else { "" })
            };
            let parsed = pos.parse_usi_move(&text);
            let listed = legal.iter().find(|m| m.to_string() == text);
            assert_eq!(parsed.as_ref().ok(), listed, "{sfen}: parse_usi_move({text})");
        }
        prev_moves = legal;
    });
    println!("{visited} positions, {candidates} candidate moves compared");
}

/// Sanity properties of the static exchange evaluation.
#[test]
fn see_properties() {
    let mut undefended = 0;
    let mut pawn_caps = 0;
    playouts(0xdead_beef_cafe_f00d, 120, |pos, _rng| {
        let us = pos.side_to_move();
        let sfen = pos.to_sfen();
        for m in legal_moves(pos) {
            let to = m.to();
            // Monotone in the threshold.
            let mut prev = true;
            for t in [-2000, -500, -1, 0, 1, 90, 500, 1000, 2000] {
                let r = pos.see_ge(m, t);
                assert!(prev || !r, "{sfen}: see_ge({m}, {t}) true but a lower threshold false");
                prev = r;
            }
            // Losing nothing is always at least as good as -(value of the moved piece).
            assert!(pos.see_ge(m, -see_value(m.piece_after().kind())), "{sfen}: see_ge({m}, -value of mover)");
            let mut occ = pos.occupied() | to;
            if !m.is_drop() {
                occ ^= m.from();
            }
            let defended = pos.attackers_to(!us, to, occ).any();
            let gain = if pos.is_capture(m) { see_value(pos.piece_on(to).kind()) } else { 0 };
            if !defended {
                // Nothing can take back: the exchange is worth exactly the captured piece.
                assert!(pos.see_ge(m, gain), "{sfen}: see_ge({m}, {gain}) undefended");
                assert!(!pos.see_ge(m, gain + 1), "{sfen}: see_ge({m}, {gain}+1) undefended");
                undefended += 1;
            }
            if pos.is_capture(m) && m.piece_after().kind() == PieceType::Pawn {
                // A pawn is the cheapest piece: taking anything with it never loses. (Not so
                // for a promoting capture: SEE then risks the tokin, valued as a gold, and does
                // not credit the promotion, as in YaneuraOu.)
                assert!(pos.see_ge(m, 0), "{sfen}: pawn capture {m} has see < 0");
                pawn_caps += 1;
            }
            if !pos.is_capture(m) && defended {
                // A quiet move to an attacked square gains nothing.
                assert!(!pos.see_ge(m, 1), "{sfen}: quiet {m} gains material");
            }
        }
    });
    println!("{undefended} undefended targets, {pawn_caps} pawn captures");
    assert!(undefended > 1000 && pawn_caps > 20);
}

/// Hand-made SEE cases whose values follow from the piece values.
#[test]
fn see_hand_cases() {
    // Black pawn 5e takes the undefended white gold on 5d.
    let pos = Position::from_sfen("4k4/9/9/4g4/4P4/9/9/9/4K4 b - 1").unwrap();
    let m = pos.parse_usi_move("5e5d").unwrap();
    assert!(pos.see_ge(m, see_value(PieceType::Gold)));
    assert!(!pos.see_ge(m, see_value(PieceType::Gold) + 1));
    // Rook takes a pawn defended by a gold: loses rook for pawn.
    let pos = Position::from_sfen("4k4/9/4g4/4p4/9/9/9/4R4/4K4 b - 1").unwrap();
    let m = pos.parse_usi_move("5h5d").unwrap();
    let v = see_value(PieceType::Pawn) - see_value(PieceType::Rook);
    assert!(pos.see_ge(m, v));
    assert!(!pos.see_ge(m, v + 1));
    assert!(!pos.see_ge(m, 0));
    // X-ray: two black rooks on the file against one defending gold; the second rook
    // recaptures: pawn - rook + gold.
    let pos = Position::from_sfen("4k4/9/4g4/4p4/9/9/4R4/4R4/4K4 b - 1").unwrap();
    let m = pos.parse_usi_move("5g5d").unwrap();
    let v = see_value(PieceType::Pawn) - see_value(PieceType::Rook) + see_value(PieceType::Gold);
    assert!(pos.see_ge(m, v));
    assert!(!pos.see_ge(m, v + 1));
    // Lance behind a lance (x-ray along the file); white king recapture is illegal while
    // the second lance still attacks: gold 5b defended only by the king.
    let pos = Position::from_sfen("4k4/4g4/9/9/4L4/4L4/9/9/4K4 b - 1").unwrap();
    let m = pos.parse_usi_move("5e5b+").unwrap();
    assert!(pos.see_ge(m, see_value(PieceType::Gold)));
    let m = pos.parse_usi_move("5e5b").unwrap();
    assert!(pos.see_ge(m, see_value(PieceType::Gold)));
    assert!(!pos.see_ge(m, see_value(PieceType::Gold) + 1));
}

/// `is_legal` promises an answer for any bit pattern; the public constructors can build a
/// "promoting" gold or king move (there is no such piece), which must be rejected, not panic.
///
/// ENGINE BUG (reported): `Move::promotion(from, to, gold)` encodes piece code 15, and
/// `is_legal` calls `Move::piece_after`, which indexes `PieceType::ALL[14]` and panics.
#[test]
fn is_legal_rejects_promoting_gold_and_king() {
    let pos = Position::from_sfen("4k4/9/9/9/9/9/9/4G4/4K4 b - 1").unwrap();
    let g = pos.piece_on("5h".parse().unwrap());
    let k = pos.piece_on("5i".parse().unwrap());
    let to: Square = "5g".parse().unwrap();
    assert!(pos.is_legal(Move::normal("5h".parse().unwrap(), to, g)));
    let r = std::panic::catch_unwind(|| pos.is_legal(Move::promotion("5h".parse().unwrap(), to, g)));
    assert_eq!(r.ok(), Some(false), "is_legal(promoting gold) must be false, not panic");
    let r = std::panic::catch_unwind(|| pos.is_legal(Move::promotion("5i".parse().unwrap(), "4i".parse().unwrap(), k)));
    assert_eq!(r.ok(), Some(false), "is_legal(promoting king) must be false, not panic");
}
