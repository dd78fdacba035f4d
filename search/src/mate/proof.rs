//! Proof pieces (Nagai): the part of the attacker's hand a proof really needs.
//!
//! A mate proved with hand `h` also holds with any hand containing the proof pieces `p ⊆ h`, so
//! the table stores a proof under `p`: lines that drop the same pieces in another order, or
//! keep different spare pieces, then meet the stored proof. The rules:
//!
//! * an OR node proved by move `m`: the child's proof pieces, plus the piece `m` drops, minus
//!   the piece `m` captures (the capture supplies it);
//! * an AND node proved: the union of its children's proof pieces, and, when the check can be
//!   blocked, all the attacker's pieces of every kind the defender lacks: with fewer of them the
//!   defender would hold some, and could drop one in the way.
//!
//! Hands are raw `Hand::bits` here (the layout documented in engine/src/hand.rs), as in the
//! table.

use engine::attacks::{aligned, attacks_of, between};
use engine::{Move, PieceType, Position};

/// (kind, shift, mask) of each count in `Hand::bits`.
const FIELDS: [(PieceType, u32, u32); 7] = [
    (PieceType::Pawn, 0, 0x1f),
    (PieceType::Lance, 8, 7),
    (PieceType::Knight, 12, 7),
    (PieceType::Silver, 16, 7),
    (PieceType::Bishop, 20, 3),
    (PieceType::Rook, 24, 3),
    (PieceType::Gold, 28, 7),
];

#[inline(always)]
fn shift(pt: PieceType) -> u32 {
    FIELDS[pt as usize - 1].1
}

/// Whether every count of `proof` is at most the one in `hand`.
pub fn within(proof: u32, hand: u32) -> bool {
    FIELDS.iter().all(|&(_, s, m)| (proof >> s) & m <= (hand >> s) & m)
}

/// The per-kind maximum of two hands.
#[inline]
pub fn union(a: u32, b: u32) -> u32 {
    let mut r = 0;
    for (_, s, m) in FIELDS {
        r |= ((a >> s) & m).max((b >> s) & m) << s;
    }
    r
}

/// The proof pieces of an OR node proved by `m` (played from `pos`) whose child needs `child`.
#[inline]
pub fn before_move(pos: &Position, m: Move, child: u32) -> u32 {
    if m.is_drop() {
        return child + (1 << shift(m.dropped()));
    }
    let captured = pos.piece_on(m.to());
    if captured.is_empty() {
        return child;
    }
    let (_, s, mask) = FIELDS[captured.kind().unpromoted() as usize - 1];
    if (child >> s) & mask != 0 {
        child - (1 << s)
    } else {
        child
    }
}

/// What an AND node needs besides its children's proof pieces: when `blockable`, the attacker's
/// whole count (`attacker`) of every kind the defender (`defender`) lacks.
#[inline]
pub fn blocking_guard(attacker: u32, defender: u32, blockable: bool) -> u32 {
    if !blockable {
        return 0;
    }
    let mut r = 0;
    for (_, s, m) in FIELDS {
        if (defender >> s) & m == 0 {
            r |= attacker & (m << s);
        }
    }
    r
}

/// Whether the check the defender to move in `pos` faces could be blocked by a drop.
#[inline]
pub fn blockable_now(pos: &Position) -> bool {
    let checkers = pos.checkers();
    if checkers.more_than_one() || checkers.is_empty() {
        return false;
    }
    between(pos.king_square(pos.side_to_move()), checkers.lsb()).any()
}

/// The proof pieces of the AND node after the mating check `m` (played from `pos`, not yet).
#[inline]
pub fn mated_after(pos: &Position, m: Move) -> u32 {
    let us = pos.side_to_move();
    let them = !us;
    let ksq = pos.king_square(them);
    let to = m.to();
    let occ = if m.is_drop() { pos.occupied() | to } else { (pos.occupied() ^ m.from()) | to };
    let direct = attacks_of(us, m.piece_after().kind(), to, occ).contains(ksq);
    let discovered = !m.is_drop()
        && (pos.blockers_for_king(them) & pos.pieces_of(us)).contains(m.from())
        && !aligned(m.from(), to, ksq);
    let blockable = match (direct, discovered) {
        (true, false) => between(ksq, to).any(),
        (false, true) => true, // the uncovered slider is not located here: assume a gap
        _ => false,            // double check
    };
    let mut hand = pos.hand(us).bits();
    if m.is_drop() {
        hand -= 1 << shift(m.dropped());
    } else {
        let captured = pos.piece_on(to);
        if !captured.is_empty() {
            hand += 1 << shift(captured.kind().unpromoted());
        }
    }
    blocking_guard(hand, pos.hand(them).bits(), blockable)
}

/// Proof pieces of an AND node reached by `m` where the defender has no legal move, from the
/// position after `m` (the defender to move).
#[inline]
pub fn mated_now(pos: &Position) -> u32 {
    let them = pos.side_to_move();
    blocking_guard(pos.hand(!them).bits(), pos.hand(them).bits(), blockable_now(pos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Color;

    #[test]
    fn fields_match_hand() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2P1L1N1S1B1R1G2p 1").unwrap();
        let h = pos.hand(Color::Black);
        for (pt, s, m) in FIELDS {
            assert_eq!((h.bits() >> s) & m, h.count(pt), "{pt:?}");
        }
        assert_eq!(union(h.bits(), pos.hand(Color::White).bits()), h.bits());
    }
}
