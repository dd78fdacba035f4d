//! Checking moves: the attacker's moves in a mate search.
//!
//! `generate_checks` emits every legal move of the side to move that gives check, and nothing
//! else, without generating the other moves. A direct check lands a piece on a square from
//! which it attacks the enemy king; those squares are, per kind, the attacks of a piece of the
//! *enemy's* colour standing on the king's square (attacks are symmetric under a colour swap).
//! A discovered check moves one of our pieces off the line between the enemy king and one of
//! our sliders; the candidates are our pieces among `blockers_for_king(them)`.

use crate::attacks::*;
use crate::movegen::{is_pawn_drop_mate_in, pawn_drop_squares_in};
use crate::variant::{dispatch, Variant};
use crate::{generate, Bitboard, Color, GenKind, Move, MoveList, Piece, PieceType, Position, Square, VariantId};

/// Appends every legal checking move of the side to move to `list` (promotions and legal
/// non-promotions both; never an illegal pawn-drop mate). When the side to move is itself in
/// check, these are the evasions that give check.
pub fn generate_checks(pos: &Position, list: &mut MoveList) {
    dispatch!(pos.variant(), V => checks_in::<V, false>(pos, list, None, Limit::NONE));
}

/// The moves of `generate_checks` that land next to the enemy king, plus the unpromoted knight
/// moves (a knight checks from two ranks away), in the same order, generated without producing
/// the distant checks first: what `contact_mate_in_1` tries (it lists fewer, with `Limit`).
pub fn generate_contact_checks(pos: &Position, list: &mut MoveList) {
    dispatch!(pos.variant(), V => checks_in::<V, true>(pos, list, None, Limit::NONE));
}

/// Where the moves of `generate_contact_checks` may come from and land: a restriction that
/// leaves out whole groups of checks without generating them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    /// The squares next to the king a contact check by a board move may land on (knight
    /// checks two ranks away are not limited).
    pub land: Bitboard,
    /// The squares next to the king a contact check by a drop may land on (knight drops are
    /// not limited).
    pub drop_land: Bitboard,
    /// The board pieces that may move (drops are not limited).
    pub movers: Bitboard,
}

impl Limit {
    /// No restriction.
    pub const NONE: Limit = Limit { land: Bitboard::ALL, drop_land: Bitboard::ALL, movers: Bitboard::ALL };
}

/// `generate_contact_checks` restricted to `limit`, and without the drops that leave one of
/// the `free` flights unattacked (as `mating_candidates`; pawn drops are left out, a mating
/// one being illegal). In check or in Sho shogi, the restrictions are not applied.
pub(crate) fn contact_mating_candidates(pos: &Position, free: Bitboard, limit: Limit, list: &mut MoveList) {
    dispatch!(pos.variant(), V => checks_in::<V, true>(pos, list, Some(free), limit));
}

/// Whether `generate_contact_checks` keeps `m` (`near`: the squares next to the enemy king).
#[inline(always)]
fn is_contact(m: Move, near: Bitboard) -> bool {
    near.contains(m.to()) || m.piece_after().kind() == PieceType::Knight
}

/// The checks of the side to move (not in check) that may mate: like `generate_checks`, but
/// without pawn drops (a mating one is illegal) and without drops that leave one of the king's
/// `free` flights (`free_flights`) unattacked; those are not listed, only noticed. Returns
/// whether any legal check at all exists (the listed ones included).
pub fn mating_candidates(pos: &Position, free: Bitboard, list: &mut MoveList) -> bool {
    debug_assert!(!pos.in_check());
    dispatch!(pos.variant(), V => checks_in::<V, false>(pos, list, Some(free), Limit::NONE))
}

/// `checks_into`, inlined for standard shogi only: the variants' instances stay out of line, so
/// that the entry points remain small enough for the search to inline (with all three inlined,
/// `generate_contact_checks` was called out of line and the mate-in-one screens of `bench` took
/// 18M more instructions; callgrind, 2026-11-24).
#[inline(always)]
fn checks_in<V: Variant, const CONTACT: bool>(
    pos: &Position,
    list: &mut MoveList,
    screen: Option<Bitboard>,
    limit: Limit,
) -> bool {
    if V::ID == VariantId::Shogi {
        checks_into::<V, CONTACT>(pos, list, screen, limit)
    } else {
        checks_out_of_line::<V, CONTACT>(pos, list, screen, limit)
    }
}

#[inline(never)]
fn checks_out_of_line<V: Variant, const CONTACT: bool>(
    pos: &Position,
    list: &mut MoveList,
    screen: Option<Bitboard>,
    limit: Limit,
) -> bool {
    checks_into::<V, CONTACT>(pos, list, screen, limit)
}

/// `generate_checks` (`screen == None`) or `mating_candidates` (`screen == Some(free)`) in the
/// variant `V`; with `CONTACT`, only the moves `is_contact` keeps (`generate_contact_checks`),
/// and of those only the ones `limit` allows.
#[inline(always)]
fn checks_into<V: Variant, const CONTACT: bool>(
    pos: &Position,
    list: &mut MoveList,
    screen: Option<Bitboard>,
    limit: Limit,
) -> bool {
    // No move checks a side without a king (a tsume's attacker, when the defender is to move).
    if !pos.has_king(!pos.side_to_move()) {
        return false;
    }
    // In check (rare in a mate search: the root only) filter the evasions. In Sho shogi always
    // filter the legal moves: with two royals on one side the direct-check squares and the
    // discovered checks of a single king do not describe checks.
    if pos.in_check() || V::DESC.pseudo_royal {
        let contact = king_attacks(pos.king_square(!pos.side_to_move()));
        let mut evasions = MoveList::new();
        generate(pos, GenKind::All, &mut evasions);
        for &m in evasions.iter() {
            if (!CONTACT || is_contact(m, contact)) && pos.gives_check(m) {
                list.push(m);
            }
        }
        return !list.is_empty();
    }
    let us = pos.side_to_move();
    let them = !us;
    let ksq = pos.king_square(them);
    // Only read when `us` has a king: a tsume's attacker has none (and so no pins).
    let our_ksq = pos.king_square(us);
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let target = V::mask(!own); // empty squares and enemy pieces
    let pinned = pos.pinned(us);
    let discoverers = pos.blockers_for_king(them) & own;

    // Squares from which a piece of each kind would attack the enemy king.
    let gold_sq = gold_attacks(them, ksq);
    let silver_sq = silver_attacks(them, ksq);
    let knight_sq = knight_attacks(them, ksq);
    let pawn_sq = pawn_attacks(them, ksq);
    let lance_sq = lance_attacks(them, ksq, occ);
    let bishop_sq = bishop_attacks(ksq, occ);
    let rook_sq = rook_attacks(ksq, occ);
    let king_sq = king_attacks(ksq);
    // With CONTACT, the squares kept for moves of a piece that is not an unpromoted knight.
    let contact = if CONTACT { king_sq & limit.land } else { Bitboard::ALL };
    let drop_contact = if CONTACT { king_sq & limit.drop_land } else { Bitboard::ALL };
    let check_squares = |pt: PieceType| -> Bitboard {
        match pt {
            PieceType::Pawn => pawn_sq,
            PieceType::Lance => lance_sq,
            PieceType::Knight => knight_sq,
            PieceType::Silver => silver_sq,
            PieceType::Bishop => bishop_sq,
            PieceType::Rook => rook_sq,
            PieceType::Horse => bishop_sq | king_sq,
            PieceType::Dragon => rook_sq | king_sq,
            PieceType::King => Bitboard::EMPTY,
            _ => gold_sq,
        }
    };

    // Board moves of every piece but the king. A step piece other than a knight checks
    // directly only from a square next to the king, so it must stand within two squares of it
    // (`near`); far ones can only discover a check. Sliders, lances and knights (few, and with
    // a longer reach) are always tried.
    let far_reach = pos.pieces_of_type(PieceType::Bishop)
        | pos.pieces_of_type(PieceType::Rook)
        | pos.pieces_of_type(PieceType::Horse)
        | pos.pieces_of_type(PieceType::Dragon)
        | pos.pieces_of_type(PieceType::Lance)
        | pos.pieces_of_type(PieceType::Knight);
    // A far step piece discovering a check cannot land next to the king: no contact check.
    let far_discoverers = if CONTACT { Bitboard::EMPTY } else { discoverers };
    let movers = own.and_not(pos.pieces(us, PieceType::King)) & (far_reach | near(ksq) | far_discoverers);
    let movers = if CONTACT { movers & limit.movers } else { movers };
    for from in movers {
        let pc = pos.piece_on(from);
        let pt = pc.kind();
        let mut to_bb = piece_attacks(us, pt, from, occ) & target;
        if pinned.contains(from) {
            to_bb &= line(our_ksq, from);
        }
        if to_bb.is_empty() {
            continue;
        }
        let discovers = discoverers.contains(from);
        if CONTACT {
            if pt != PieceType::Knight {
                to_bb &= contact;
            }
            if to_bb.is_empty() {
                continue;
            }
        }
        let plain = check_squares(pt);
        let promo = if pt.can_promote() { check_squares(pt.promoted()) & contact } else { Bitboard::EMPTY };
        if discovers {
            // Every move off the king's line checks; moves along it need a direct check.
            let off_line = to_bb.and_not(line(ksq, from));
            emit::<V>(list, us, pt, pc, from, off_line, off_line & contact);
            let on_line = to_bb & line(ksq, from);
            emit::<V>(list, us, pt, pc, from, on_line & plain, on_line & promo);
        } else {
            emit::<V>(list, us, pt, pc, from, to_bb & plain, to_bb & promo);
        }
    }

    // King moves: only discovered checks.
    if pos.has_king(us) && discoverers.contains(our_ksq) {
        let pc = Piece::new(us, PieceType::King);
        let occ_k = occ ^ our_ksq;
        for to in (king_attacks(our_ksq) & target & contact).and_not(line(ksq, our_ksq)) {
            if !pos.is_attacked(them, to, occ_k) {
                list.push(Move::normal(our_ksq, to, pc));
            }
        }
    }

    // Drops.
    let hand = pos.hand(us);
    if hand.is_empty() {
        return !list.is_empty();
    }
    let empty = V::mask(!occ);
    // Screening: a drop leaves a free flight free unless it attacks it, so it must stand on a
    // square from which its kind attacks every free flight (attacks are symmetric under a
    // colour swap; the king is off the board as it would be after fleeing).
    let occ_no_king = occ ^ ksq;
    let mut unlisted = false;
    let mut drops = |pt: PieceType, t: Bitboard| {
        let mut t = t;
        if let Some(free) = screen {
            let all = t;
            for f in free {
                if t.is_empty() {
                    break;
                }
                t &= match pt {
                    PieceType::Lance => lance_attacks(them, f, occ_no_king),
                    PieceType::Knight => knight_attacks(them, f),
                    PieceType::Silver => silver_attacks(them, f),
                    PieceType::Gold => gold_attacks(them, f),
                    PieceType::Bishop => bishop_attacks(f, occ_no_king),
                    _ => rook_attacks(f, occ_no_king), // pawns are not screened but left out
                };
            }
            unlisted |= t != all;
        }
        push_drops(list, Piece::new(us, pt), t);
    };
    let pawn_targets =
        if hand.has(PieceType::Pawn) { pawn_sq & empty & pawn_drop_squares_in::<V>(pos, us) } else { Bitboard::EMPTY };
    if screen.is_none() && pawn_targets.any() && !is_pawn_drop_mate_in::<V>(pos, pawn_targets.lsb()) {
        drops(PieceType::Pawn, Bitboard::from_square(pawn_targets.lsb()));
    }
    if hand.has(PieceType::Lance) {
        // Lance check squares are in front of the king from our side, never on our last rank
        // unless the king stands beyond it, which cannot happen.
        drops(PieceType::Lance, (lance_sq & empty & drop_contact).and_not(V::DESC.far[us.index()][1]));
    }
    if hand.has(PieceType::Knight) {
        drops(PieceType::Knight, (knight_sq & empty).and_not(V::DESC.far[us.index()][2]));
    }
    for (pt, sq) in [
        (PieceType::Silver, silver_sq),
        (PieceType::Gold, gold_sq),
        (PieceType::Bishop, bishop_sq),
        (PieceType::Rook, rook_sq),
    ] {
        if hand.has(pt) {
            drops(pt, sq & empty & drop_contact);
        }
    }
    if unlisted || !list.is_empty() {
        return true;
    }
    // Only a pawn drop may be left: a check unless it is the illegal pawn-drop mate.
    screen.is_some() && pawn_targets.any() && !is_pawn_drop_mate_in::<V>(pos, pawn_targets.lsb())
}

#[inline(always)]
fn push_drops(list: &mut MoveList, pc: Piece, targets: Bitboard) {
    for to in targets {
        list.push(Move::drop(pc, to));
    }
}

/// Emits the board moves of `pc` from `from`: unpromoted to `plain` squares where the rules
/// allow staying unpromoted, promoted to `promo` squares where promotion is allowed.
#[inline(always)]
fn emit<V: Variant>(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    pc: Piece,
    from: Square,
    plain: Bitboard,
    promo: Bitboard,
) {
    let zone = V::DESC.zone[us.index()];
    let far = V::DESC.far[us.index()];
    match pt {
        PieceType::Pawn | PieceType::Lance => {
            for to in promo & zone {
                list.push(Move::promotion(from, to, pc));
            }
            for to in plain.and_not(far[1]) {
                list.push(Move::normal(from, to, pc));
            }
        }
        PieceType::Knight => {
            for to in promo & zone {
                list.push(Move::promotion(from, to, pc));
            }
            for to in plain.and_not(far[2]) {
                list.push(Move::normal(from, to, pc));
            }
        }
        PieceType::Silver | PieceType::Bishop | PieceType::Rook => {
            let promo = if zone.contains(from) { promo } else { promo & zone };
            for to in promo {
                list.push(Move::promotion(from, to, pc));
            }
            for to in plain {
                list.push(Move::normal(from, to, pc));
            }
        }
        _ => {
            for to in plain {
                list.push(Move::normal(from, to, pc));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compares with filtering all legal moves; false when the SFEN is rejected (the fixture
    /// holds a few positions reached by an illegal move, with the side not to move in check).
    fn check_position(sfen: &str) -> bool {
        let pos = match Position::from_sfen(sfen) {
            Ok(pos) => pos,
            Err(crate::SfenError::OpponentInCheck) => return false,
            Err(e) => panic!("{sfen}: {e}"),
        };
        let mut all = MoveList::new();
        generate(&pos, GenKind::All, &mut all);
        let mut want: Vec<u32> = all.iter().filter(|&&m| pos.gives_check(m)).map(|m| m.raw()).collect();
        let mut checks = MoveList::new();
        generate_checks(&pos, &mut checks);
        let mut got: Vec<u32> = checks.iter().map(|m| m.raw()).collect();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            let show = |v: &[u32], other: &[u32]| -> Vec<String> {
                all.iter()
                    .chain(checks.iter())
                    .filter(|m| v.contains(&m.raw()) && !other.contains(&m.raw()))
                    .map(|m| m.to_string())
                    .collect()
            };
            panic!(
                "{sfen}: missing {:?}, extra {:?} (extra moves may be illegal)",
                show(&want, &got),
                show(&got, &want)
            );
        }
        true
    }

    #[test]
    fn fixed_positions() {
        for sfen in [
            crate::START_SFEN,
            // Pawn in front of a boxed king: the drop would be mate, hence illegal.
            "k8/9/1G7/9/9/9/9/9/8K b P 1",
            "4k4/9/4P4/9/9/9/9/9/4K4 b GSNLBR 1",
            // Discovered checks by a rook behind a silver, and a bishop behind a knight.
            "4k4/9/9/9/4S4/9/9/9/4RK3 b - 1",
            "8k/9/9/9/9/9/2N6/1B7/K8 b - 1",
            // King as the discovering piece.
            "4k4/9/9/9/9/9/9/4K4/4R4 b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        ] {
            assert!(check_position(sfen));
        }
    }

    #[test]
    fn fixture_positions() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves.txt");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            n += check_position(line.split('\t').next().unwrap()) as usize;
        }
        assert!(n >= 29_000, "only {n} positions compared");
    }

    /// The children of every 7th fixture position: many more discovered checks and pins.
    /// `generate_contact_checks` is `generate_checks` filtered, in the same order.
    #[test]
    fn contact_checks_are_the_filtered_checks() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves.txt");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).step_by(3) {
            let Ok(mut pos) = Position::from_sfen(line.split('\t').next().unwrap()) else {
                continue;
            };
            let mut all = MoveList::new();
            generate(&pos, GenKind::All, &mut all);
            for &m in all.iter().take(12) {
                pos.do_move(m);
                let near = king_attacks(pos.king_square(!pos.side_to_move()));
                let mut checks = MoveList::new();
                generate_checks(&pos, &mut checks);
                let want: Vec<Move> = checks.iter().copied().filter(|&c| is_contact(c, near)).collect();
                let mut contact = MoveList::new();
                generate_contact_checks(&pos, &mut contact);
                assert_eq!(contact.as_slice(), &want[..], "{}", pos.to_sfen());
                pos.undo_move(m);
                n += 1;
            }
        }
        assert!(n > 50_000, "only {n} positions compared");
    }

    /// The children of every 7th fixture position: many more discovered checks and pins.
    #[test]
    fn fixture_children() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves.txt");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')).step_by(7) {
            let Ok(mut pos) = Position::from_sfen(line.split('\t').next().unwrap()) else {
                continue;
            };
            let mut all = MoveList::new();
            generate(&pos, GenKind::All, &mut all);
            for &m in all.iter() {
                pos.do_move(m);
                assert!(check_position(&pos.to_sfen()));
                pos.undo_move(m);
                n += 1;
            }
        }
        assert!(n > 100_000, "only {n} positions compared");
    }
}
