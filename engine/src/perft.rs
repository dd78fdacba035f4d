//! Perft: counting the leaves of the legal-move tree, the standard proof of a move generator.

use crate::attacks::*;
use crate::{generate_legal, is_pawn_drop_mate, pawn_drop_squares};
use crate::{Bitboard, Color, Move, MoveList, PieceType, Position, Square, VariantId};

/// How perft counts its last ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastPly {
    /// Popcounts per target bitboard, without writing the moves (the fast default).
    Count,
    /// Generate the legal moves and take the list's length, as YaneuraOu's perft does: the
    /// like-for-like figure when comparing generators.
    Generate,
}

/// Number of leaf positions `depth` plies below `pos`; the last ply is counted in bulk (the
/// number of legal moves), without generating the moves.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    perft_with(pos, depth, LastPly::Count)
}

/// `perft` with the last ply counted as `last` says.
pub fn perft_with(pos: &mut Position, depth: u32, last: LastPly) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        // The bulk count knows the 9x9 board only; the variants generate their last ply.
        return match last {
            LastPly::Count if pos.variant() == VariantId::Shogi => count_legal(pos),
            _ => count_generated(pos),
        };
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in list.iter() {
        pos.do_move(m);
        nodes += perft_with(pos, depth - 1, last);
        pos.undo_move(m);
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    perft_divide_with(pos, depth, LastPly::Count)
}

/// `perft_divide` with the last ply counted as `last` says.
pub fn perft_divide_with(pos: &mut Position, depth: u32, last: LastPly) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list.iter()
        .map(|&m| {
            pos.do_move(m);
            let n = if depth <= 1 { 1 } else { perft_with(pos, depth - 1, last) };
            pos.undo_move(m);
            (m, n)
        })
        .collect()
}

/// The number of legal moves, generated.
fn count_generated(pos: &Position) -> u64 {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list.len() as u64
}

/// The number of legal moves, exactly what `generate_legal` would list, counted per target
/// bitboard with popcounts instead of writing each move: the bulk count of perft's last ply,
/// where writing the moves cost more than everything else. Evasions (rare) are generated.
fn count_legal(pos: &Position) -> u64 {
    if pos.in_check() {
        count_evasions(pos)
    } else if pos.side_to_move() == Color::Black {
        count_quiet::<true>(pos)
    } else {
        count_quiet::<false>(pos)
    }
}

/// The number of evasions, generated: rare enough not to need counting.
#[cold]
#[inline(never)]
fn count_evasions(pos: &Position) -> u64 {
    count_generated(pos)
}

/// `count_legal` out of check, for Black to move (`BLACK`) or White: one copy per colour, so
/// that the colour's masks and table rows are constants.
fn count_quiet<const BLACK: bool>(pos: &Position) -> u64 {
    let us = if BLACK { Color::Black } else { Color::White };
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let target = !pos.pieces_of(us);
    let pinned = pos.pinned(us);
    let zone = Bitboard::zone(us);
    let last = Bitboard::far(us, 1);
    let last2 = Bitboard::far(us, 2);
    // Moves into the zone short of the last rank (pawn, lance) or the last two ranks (knight)
    // may promote or not; into the last rank(s) they must promote; elsewhere they cannot.
    let zone_short1 = zone.and_not(last);
    let zone_short2 = zone.and_not(last2);
    let mut n = 0u32;

    // A tsume's attacker has no king (and so no pins).
    if pos.has_king(us) {
        n += pos.king_flights(us, king_attacks(ksq) & target).count();
    }

    // Pinned pieces, one by one along their pin line; then the free ones by kind.
    if pinned.any() {
        n += count_pinned(pos, us, pinned);
    }
    let free = pos.pieces_of(us).and_not(pinned);

    let pawns = pos.pieces_of_type(PieceType::Pawn) & free;
    let pushed = if us == Color::Black { pawns.shift_north() } else { pawns.shift_south() } & target;
    n += pushed.count() + (pushed & zone_short1).count();
    for from in pos.pieces_of_type(PieceType::Lance) & free {
        let t = lance_attacks(us, from, occ) & target;
        n += t.count() + (t & zone_short1).count();
    }
    for from in pos.pieces_of_type(PieceType::Knight) & free {
        let t = knight_attacks(us, from) & target;
        n += t.count() + (t & zone_short2).count();
    }
    let silvers = pos.pieces_of_type(PieceType::Silver) & free;
    n += promotable_moves(silvers, zone, target, |from| silver_attacks(us, from));
    let bishops = pos.pieces_of_type(PieceType::Bishop) & free;
    n += promotable_moves(bishops, zone, target, |from| bishop_attacks(from, occ));
    let rooks = pos.pieces_of_type(PieceType::Rook) & free;
    n += promotable_moves(rooks, zone, target, |from| rook_attacks(from, occ));
    for from in pos.golds() & free {
        n += (gold_attacks(us, from) & target).count();
    }
    for from in pos.pieces_of_type(PieceType::Horse) & free {
        n += (horse_attacks(from, occ) & target).count();
    }
    for from in pos.pieces_of_type(PieceType::Dragon) & free {
        n += (dragon_attacks(from, occ) & target).count();
    }

    n += count_drops(pos, us, !occ, last, last2);
    n as u64
}

/// The moves of the promotable `pieces` (silvers, bishops or rooks) onto `target`: two choices
/// (promote or not) for a move into the zone or from inside it, one otherwise. Pieces inside
/// and outside the zone are counted apart, so no piece needs a zone test of its own.
#[inline(always)]
fn promotable_moves(pieces: Bitboard, zone: Bitboard, target: Bitboard, attacks: impl Fn(Square) -> Bitboard) -> u32 {
    let mut n = 0;
    for from in pieces & zone {
        n += 2 * (attacks(from) & target).count();
    }
    for from in pieces.and_not(zone) {
        let t = attacks(from) & target;
        n += t.count() + (t & zone).count();
    }
    n
}

/// The moves of the pinned pieces `pinned` of `us`: along their pin line only.
#[cold]
#[inline(never)]
fn count_pinned(pos: &Position, us: Color, pinned: Bitboard) -> u32 {
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let target = !pos.pieces_of(us);
    let zone = Bitboard::zone(us);
    let zone_short1 = zone.and_not(Bitboard::far(us, 1));
    let zone_short2 = zone.and_not(Bitboard::far(us, 2));
    let mut n = 0;
    for from in pinned {
        let pt = pos.piece_on(from).kind();
        let t = attacks_of(us, pt, from, occ) & target & line(ksq, from);
        n += match pt {
            PieceType::Pawn | PieceType::Lance => t.count() + (t & zone_short1).count(),
            PieceType::Knight => t.count() + (t & zone_short2).count(),
            PieceType::Silver | PieceType::Bishop | PieceType::Rook => {
                t.count() + if zone.contains(from) { t } else { t & zone }.count()
            }
            _ => t.count(),
        };
    }
    n
}

/// The legal drops onto `empty` when not in check: every kind held times the squares it may
/// use, less a pawn drop that would be mate.
fn count_drops(pos: &Position, us: Color, empty: Bitboard, last: Bitboard, last2: Bitboard) -> u32 {
    let hand = pos.hand(us);
    if hand.is_empty() {
        return 0;
    }
    let mut n = 0;
    if hand.has(PieceType::Pawn) {
        let t = empty & pawn_drop_squares(pos, us);
        n += t.count();
        // Pawn-drop mate needs an enemy king.
        if pos.has_king(!us) {
            let front = pawn_attacks(!us, pos.king_square(!us));
            if (t & front).any() && is_pawn_drop_mate(pos, front.lsb()) {
                n -= 1;
            }
        }
    }
    let anywhere = [PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook]
        .iter()
        .filter(|&&pt| hand.has(pt))
        .count() as u32;
    n += anywhere * empty.count();
    if hand.has(PieceType::Lance) {
        n += empty.and_not(last).count();
    }
    if hand.has(PieceType::Knight) {
        n += empty.and_not(last2).count();
    }
    n
}
