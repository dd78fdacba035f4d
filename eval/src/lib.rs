//! Kaname's static evaluation. For now: material on the board and in hand (Apery's values),
//! kept incrementally by the search through `move_gain`. The interface is deliberately narrow
//! (`evaluate`, `material`, `move_gain`) so a stronger evaluation can replace it.

#![deny(missing_docs)]

use engine::{Color, Move, Piece, PieceType, Position};

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

/// The static evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Value {
    let v = material(pos);
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
