//! Kaname's static evaluation: material on the board and in hand (Apery's values), kept
//! incrementally by the search through `move_gain`, plus a small positional term (`positional`)
//! computed per node: how hard each side's pieces press on the enemy king's surroundings and
//! guard their own (the idea of YaneuraOu's material-level "effect near the king" terms), and
//! where the kings stand. The interface is deliberately narrow (`evaluate`, `material`,
//! `positional`, `move_gain`) so a stronger evaluation can replace it.

#![deny(missing_docs)]

use engine::attacks::{
    attacks_of, gold_attacks, king_attacks, knight_attacks, lance_attacks, pawn_attacks, silver_attacks,
};
use engine::{Bitboard, Color, Move, Piece, PieceType, Position, Square};

/// An evaluation in centipawn-like units (a pawn is 90).
pub type Value = i32;

/// Value of a piece on the board, by kind (Apery / YaneuraOu material values).
pub const fn piece_value(pt: PieceType) -> Value {
    match pt {
        PieceType::Pawn => 90,
        PieceType::Lance => 315,
        PieceType::Knight => 405,
        PieceType::Silver => 495,
        PieceType::Gold => 540,
        PieceType::Bishop => 855,
        PieceType::Rook => 990,
        PieceType::King => 0,
        PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver => 540,
        PieceType::Horse => 945,
        PieceType::Dragon => 1395,
    }
}

/// Value of a piece held in hand (the same as on the board, for a hand kind).
pub const fn hand_value(pt: PieceType) -> Value {
    piece_value(pt)
}

/// Material balance from Black's point of view: board pieces plus hands.
pub fn material(pos: &Position) -> Value {
    let mut v = 0;
    for pt in PieceType::ALL {
        let n = pos.pieces(Color::Black, pt).count() as Value - pos.pieces(Color::White, pt).count() as Value;
        v += n * piece_value(pt);
    }
    for pt in PieceType::HAND {
        v += (pos.hand(Color::Black).count(pt) as Value - pos.hand(Color::White).count(pt) as Value) * hand_value(pt);
    }
    v
}

/// How much `m` changes the material balance in favour of the side making it (to be called
/// before the move is made).
#[inline]
pub fn move_gain(pos: &Position, m: Move) -> Value {
    if m.is_drop() {
        return piece_value(m.dropped()) - hand_value(m.dropped());
    }
    let captured = pos.piece_on(m.to());
    let mut gain = if captured.is_empty() { 0 } else { capture_gain(captured) };
    if m.is_promotion() {
        let after = m.piece_after().kind();
        gain += piece_value(after) - piece_value(after.unpromoted());
    }
    gain
}

/// Material won by capturing `captured`: its value on the board plus its value in our hand.
#[inline]
pub fn capture_gain(captured: Piece) -> Value {
    let pt = captured.kind();
    piece_value(pt) + hand_value(pt.unpromoted())
}

/// The squares at Chebyshev distance exactly 2 from each square (the king's outer ring).
static OUTER_RING: [Bitboard; 81] = {
    let mut t = [Bitboard::EMPTY; 81];
    let mut i = 0;
    while i < 81 {
        let sq = Square::new(i as u8);
        let mut df = -2;
        while df <= 2 {
            let mut dr = -2;
            while dr <= 2 {
                if df == -2 || df == 2 || dr == -2 || dr == 2 {
                    if let Some(s) = sq.offset(df, dr) {
                        t[i] = t[i].or(Bitboard::from_square(s));
                    }
                }
                dr += 1;
            }
            df += 1;
        }
        i += 1;
    }
    t
};

/// Tunable weights of the positional term.
pub mod weights {
    use super::Value;
    /// Per attacked square next to the enemy king.
    pub const ATTACK_NEAR: Value = 16;
    /// Per attacked square two steps from the enemy king.
    pub const ATTACK_RING: Value = 6;
    /// Per defended square next to the own king.
    pub const DEFEND_NEAR: Value = 9;
    /// King placement by rank, from the far rank (0) to the home rank (8).
    pub const KING_RANK: [Value; 9] = [-20, -50, -80, -100, -95, -70, -35, -10, 0];
}

/// The positional term from Black's point of view (material excluded).
pub fn positional(pos: &Position) -> Value {
    let occ = pos.occupied();
    let mut v = 0;
    for c in Color::ALL {
        let own_king = pos.king_square(c);
        let enemy_king = pos.king_square(!c);
        let near_enemy = king_attacks(enemy_king);
        let ring_enemy = OUTER_RING[enemy_king.index()];
        let near_own = king_attacks(own_king);
        let mut s = weights::KING_RANK[own_king.relative_rank(c) as usize];
        let zones = near_enemy | ring_enemy | near_own;
        let mut count = |att: Bitboard| {
            let att = att & zones;
            if att.any() {
                s += weights::ATTACK_NEAR * (att & near_enemy).count() as Value
                    + weights::ATTACK_RING * (att & ring_enemy).count() as Value
                    + weights::DEFEND_NEAR * (att & near_own).count() as Value;
            }
        };
        // One loop per kind, so each uses its attack function directly.
        for sq in pos.pieces(c, PieceType::Pawn) {
            count(pawn_attacks(c, sq));
        }
        for sq in pos.pieces(c, PieceType::Lance) {
            count(lance_attacks(c, sq, occ));
        }
        for sq in pos.pieces(c, PieceType::Knight) {
            count(knight_attacks(c, sq));
        }
        for sq in pos.pieces(c, PieceType::Silver) {
            count(silver_attacks(c, sq));
        }
        for sq in pos.golds() & pos.pieces_of(c) {
            count(gold_attacks(c, sq));
        }
        for sq in pos.bishops_horses() & pos.pieces_of(c) {
            count(attacks_of(c, pos.piece_on(sq).kind(), sq, occ));
        }
        for sq in pos.rooks_dragons() & pos.pieces_of(c) {
            count(attacks_of(c, pos.piece_on(sq).kind(), sq, occ));
        }
        v += if c == Color::Black { s } else { -s };
    }
    v
}

/// The static evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Value {
    let v = material(pos) + positional(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

/// The positional term from the side to move's point of view.
#[inline]
pub fn positional_stm(pos: &Position) -> Value {
    let v = positional(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(evaluate(&Position::startpos()), 0);
        assert_eq!(material(&Position::startpos()), 0);
    }

    /// The SFEN of the same position with colours exchanged and the board rotated.
    fn flipped(sfen: &str) -> String {
        let f: Vec<&str> = sfen.split(' ').collect();
        let swap = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
        let ranks: Vec<String> = f[0]
            .split('/')
            .rev()
            .map(|r| {
                // Reverse the tokens of a rank (a token is "+X", "X" or a digit).
                let mut toks: Vec<String> = Vec::new();
                let mut plus = false;
                for ch in r.chars() {
                    if ch == '+' {
                        plus = true;
                        continue;
                    }
                    toks.push(if plus { format!("+{}", swap(ch)) } else { swap(ch).to_string() });
                    plus = false;
                }
                toks.reverse();
                toks.concat()
            })
            .collect();
        let side = if f[1] == "b" { "w" } else { "b" };
        let hands: String = if f[2] == "-" { "-".into() } else { f[2].chars().map(swap).collect() };
        format!("{} {side} {hands} {}", ranks.join("/"), f[3])
    }

    #[test]
    fn evaluation_is_symmetric_under_colour_flip() {
        for sfen in [
            "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ] {
            let a = Position::from_sfen(sfen).unwrap();
            let b = Position::from_sfen(&flipped(sfen)).unwrap();
            assert_eq!(evaluate(&a), evaluate(&b), "{sfen} vs {}", flipped(sfen));
            assert_ne!(positional(&a), 0);
        }
    }

    #[test]
    fn pressure_on_the_enemy_king_counts() {
        // A gold next to the enemy king is worth more than the same gold far away.
        let near = Position::from_sfen("4k4/9/4G4/9/9/9/9/9/4K4 b - 1").unwrap();
        let far = Position::from_sfen("4k4/9/9/9/9/9/9/G8/4K4 b - 1").unwrap();
        assert!(positional(&near) > positional(&far));
    }

    #[test]
    fn move_gain_matches_material_difference() {
        let mut pos = Position::from_sfen("4k4/9/4p4/4P4/9/9/9/1B7/4K4 b Gp 1").unwrap();
        for text in ["5d5c+", "8h5e", "G*5b"] {
            let m = pos.parse_usi_move(text).unwrap();
            let before = material(&pos);
            let gain = move_gain(&pos, m);
            pos.do_move(m);
            assert_eq!(material(&pos) - before, gain, "{text}");
            pos.undo_move(m);
        }
        let m = pos.parse_usi_move("5d5c+").unwrap();
        assert_eq!(move_gain(&pos, m), 90 + 90 + 540 - 90);
    }
}
