//! Static exchange evaluation: does a move win at least a given amount of material once every
//! capture on its destination has been played out, least valuable attacker first?

use crate::attacks::*;
use crate::{Bitboard, Color, Move, PieceType, Position};

/// Exchange value of each kind (Apery's piece values; a captured piece also joins the captor's
/// hand, but SEE compares trades, where that symmetric term cancels out to first order).
pub const fn see_value(pt: PieceType) -> i32 {
    match pt {
        PieceType::Pawn => 90,
        PieceType::Lance => 315,
        PieceType::Knight => 405,
        PieceType::Silver => 495,
        PieceType::Gold | PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver => 540,
        PieceType::Bishop => 855,
        PieceType::Rook => 990,
        PieceType::Horse => 945,
        PieceType::Dragon => 1395,
        PieceType::King => 15000,
        // Sho shogi's drunk elephant: a little more than a gold (docs/variants-plan.md).
        PieceType::Elephant => 560,
    }
}

/// Attackers in the order SEE spends them.
const SEE_ORDER: [PieceType; 15] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::ProPawn,
    PieceType::ProLance,
    PieceType::ProKnight,
    PieceType::Silver,
    PieceType::ProSilver,
    PieceType::Gold,
    PieceType::Elephant,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Horse,
    PieceType::Dragon,
    PieceType::King,
];

impl Position {
    /// Whether the exchange started by `m` gains at least `threshold` (Stockfish's `see_ge`).
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        let to = m.to();
        let captured = if m.is_drop() { 0 } else { self.piece_on(to).kind_opt().map_or(0, see_value) };
        let mut swap = captured - threshold;
        if swap < 0 {
            return false;
        }
        swap = see_value(m.piece_after().kind()) - swap;
        if swap <= 0 {
            return true;
        }
        let mut occ = self.occupied();
        if !m.is_drop() {
            occ ^= Bitboard::from_square(m.from());
        }
        occ |= to;
        let mut stm = self.side_to_move();
        let mut attackers = self.attackers_to_all(to, occ) & occ;
        let mut res = true;
        loop {
            stm = !stm;
            attackers &= occ;
            let stm_attackers = attackers & self.pieces_of(stm);
            if stm_attackers.is_empty() {
                break;
            }
            res = !res;
            let Some((pt, bb)) = SEE_ORDER.iter().find_map(|&pt| {
                let b = stm_attackers & self.pieces_of_type(pt);
                b.any().then_some((pt, b))
            }) else {
                break;
            };
            if pt == PieceType::King {
                return if (attackers & self.pieces_of(!stm)).any() { !res } else { res };
            }
            swap = see_value(pt) - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= Bitboard::from_square(bb.lsb());
            // Sliders behind the piece that just captured join in.
            attackers |= (bishop_attacks(to, occ) & self.bishops_horses())
                | (rook_attacks(to, occ) & self.rooks_dragons())
                | (lance_attacks(Color::White, to, occ) & self.pieces(Color::Black, PieceType::Lance))
                | (lance_attacks(Color::Black, to, occ) & self.pieces(Color::White, PieceType::Lance));
        }
        res
    }
}
