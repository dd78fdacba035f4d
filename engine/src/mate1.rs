//! Mate after a check, decided without playing the check.
//!
//! Mate-in-one search and the mate solver's look-ahead ask, for many checks, whether the
//! opponent is left without a legal move. Playing each check costs a full `do_move` (keys,
//! checkers, pins of both kings) and most checks are refuted by the first king flight, so
//! `is_mate_after_check` reasons about the board as it would be after the check instead: the
//! moved piece is on its new square, its old square is empty, a captured piece is gone. It
//! answers exactly what `!has_legal_move()` would after `do_move`.

use crate::attacks::*;
use crate::checks::{contact_mating_candidates, mating_candidates, Limit};
use crate::variant::{dispatch, Variant};
use crate::{generate_checks, Bitboard, Color, Move, MoveList, PieceType, Position, Square};

/// Whether the checking move `m` (legal in `pos`, and giving check) leaves the opponent with
/// no legal move. Exact: the one case not decided statically (an interposing pawn drop that
/// would itself check, where the pawn-drop-mate ban may apply) plays the move.
pub fn is_mate_after_check(pos: &mut Position, m: Move) -> bool {
    match dispatch!(pos.variant(), V => static_mate::<V>(pos, m)) {
        Some(mated) => mated,
        None => {
            pos.do_move(m);
            let mated = !pos.has_legal_move();
            pos.undo_move(m);
            mated
        }
    }
}

/// The enemy king's flights that no piece of the side to move attacks now.
pub fn free_flights(pos: &Position) -> Bitboard {
    dispatch!(pos.variant(), V => free_flights_in::<V>(pos))
}

/// `free_flights` in the variant `V`.
fn free_flights_in<V: Variant>(pos: &Position) -> Bitboard {
    // Sho shogi: a check that takes one of two royals binds the other, whose flights are not
    // these; no flight is taken as surely free, so every check is tried.
    // No flights without a king (a tsume's attacker): no move checks it either.
    if V::DESC.pseudo_royal || !pos.has_king(!pos.side_to_move()) {
        return Bitboard::EMPTY;
    }
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us);
    let occ_no_king = pos.occupied() ^ ksq;
    let mut free = Bitboard::EMPTY;
    for s in V::mask(king_attacks(ksq).and_not(pos.pieces_of(!us))) {
        if !pos.is_attacked(us, s, occ_no_king) {
            free |= Bitboard::from_square(s);
        }
    }
    free
}

/// Of the `free` flights (`free_flights(pos)`), those that surely stay free after `m`: a drop
/// only adds a blocker, and a board move can uncover a line only through the square it leaves,
/// so a free flight not covered by the moved piece and not on a line through its origin stays
/// free. The moved piece's own square counts (the king may take it).
#[inline]
pub fn flights_left(pos: &Position, free: Bitboard, m: Move) -> Bitboard {
    let us = pos.side_to_move();
    // `m` checks, so the opponent has a king.
    debug_assert!(pos.has_king(!us));
    let occ_no_king = pos.occupied() ^ pos.king_square(!us);
    let to = m.to();
    if m.is_drop() {
        free.and_not(attacks_of(us, m.dropped(), to, occ_no_king | to))
    } else {
        let from = m.from();
        let occ = (occ_no_king ^ from) | to;
        free.and_not(rook_pseudo(from) | bishop_pseudo(from)).and_not(attacks_of(us, m.piece_after().kind(), to, occ))
    }
}

/// The first of `checks` (checking moves legal in `pos`) that leaves the opponent with no
/// legal move; checks that leave a flight surely free (`flights_left`) are skipped unplayed.
/// Same answer as testing each check with `is_mate_after_check`.
pub fn first_mating_check(pos: &mut Position, checks: &[Move]) -> Option<Move> {
    if checks.is_empty() {
        return None;
    }
    let free = free_flights(pos);
    first_mating_check_with(pos, free, checks)
}

/// `first_mating_check` with the `free` flights already known.
#[inline]
fn first_mating_check_with(pos: &mut Position, free: Bitboard, checks: &[Move]) -> Option<Move> {
    for &m in checks {
        if flights_left(pos, free, m).any() {
            continue;
        }
        if is_mate_after_check(pos, m) {
            return Some(m);
        }
    }
    None
}

/// A mate in one for the side to move, if any, and whether it has any check at all. Same
/// answer as `first_mating_check` over `generate_checks`, but checks that cannot mate are
/// mostly not listed at all (`mating_candidates`).
pub fn find_mate_in_1(pos: &mut Position) -> (Option<Move>, bool) {
    let mut list = MoveList::new();
    if pos.in_check() {
        generate_checks(pos, &mut list);
        return (first_mating_check(pos, list.as_slice()), !list.is_empty());
    }
    let free = free_flights(pos);
    let any = mating_candidates(pos, free, &mut list);
    (first_mating_check_with(pos, free, list.as_slice()), any)
}

/// A mate in one by a check landing next to the enemy king, or by a knight check: YaneuraOu's
/// `mate_1ply`, the cheap test the search runs at interior and quiescence nodes (distant
/// checks rarely mate; `find_mate_in_1` tries them too). A check next to the king that no
/// other piece of the mover's side supports counts as refuted (the king takes it), even when
/// it is a discovered check. The side to move must not be in check.
///
/// Most positions have no such mate, and most of them show it before any check is listed:
/// the squares next to the king are looked at once each, and only the ones the mover's side
/// already attacks can hold a supported checker; only the pieces attacking them can move
/// there. Without such a square and without a knight check, the answer is none.
pub fn contact_mate_in_1(pos: &mut Position) -> Option<Move> {
    debug_assert!(!pos.in_check());
    let (limit, free) = dispatch!(pos.variant(), V => contact_screen::<V>(pos))?;
    let mut checks = MoveList::new();
    contact_mating_candidates(pos, free, limit, &mut checks);
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us);
    let near = king_attacks(ksq);
    for &m in checks.iter() {
        // A contact checker the king can take gives no mate; cheaper to see than the rest. A
        // drop is listed only where the screen found a supporter, and a drop blocks no line
        // to its own square: only board moves need the test.
        if !m.is_drop() && near.contains(m.to()) && !supported_after(pos, m, ksq) {
            continue;
        }
        if flights_left(pos, free, m).any() {
            continue;
        }
        if is_mate_after_check(pos, m) {
            return Some(m);
        }
    }
    None
}

/// What `contact_mate_in_1` may try in the variant `V`: the limit on the contact checks worth
/// listing, and the enemy king's free flights; `None` when no contact or knight check can be
/// supported. A check next to the king needs another piece of the mover's side on that
/// square: one more for a drop, and for a board move a second attacker or a slider behind the
/// mover. The attacks on the king's flights are gathered piece by piece, one table lookup each
/// (for a slider two): the step pieces that can reach them stand near the king.
#[inline(always)]
fn contact_screen<V: Variant>(pos: &Position) -> Option<(Limit, Bitboard)> {
    // Sho shogi: a check that takes one of two royals binds the other; no flight is surely
    // free and no check is left out.
    if V::DESC.pseudo_royal {
        return Some((Limit::NONE, Bitboard::EMPTY));
    }
    let us = pos.side_to_move();
    let them = !us;
    // No check, hence no mate, against a side without a king (a tsume's attacker).
    if !pos.has_king(them) {
        return None;
    }
    let ksq = pos.king_square(them);
    let own = pos.pieces_of(us);
    let occ = pos.occupied();
    // The king is off the board, as it would be after stepping aside or taking the checker.
    let occ_no_king = occ ^ ksq;
    let flights = V::mask(king_attacks(ksq));
    let sliders = own
        & (pos.pieces_of_type(PieceType::Lance)
            | pos.pieces_of_type(PieceType::Bishop)
            | pos.pieces_of_type(PieceType::Rook)
            | pos.pieces_of_type(PieceType::Horse)
            | pos.pieces_of_type(PieceType::Dragon));
    let (mut once, mut twice, mut behind, mut movers) =
        (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    for p in own & (near(ksq) | sliders) {
        let kind = pos.piece_on(p).kind();
        let a = attacks_of(us, kind, p, occ_no_king) & flights;
        if sliders.contains(p) {
            // What it would reach through its own side's pieces: a lone attacker stepping onto
            // such a square leaves this slider supporting it.
            behind |= (attacks_of(us, kind, p, occ_no_king.and_not(own)) & flights).and_not(a);
        }
        if a.any() {
            twice |= once & a;
            once |= a;
            movers |= Bitboard::from_square(p);
        }
    }
    let free = flights.and_not(pos.pieces_of(them)).and_not(once);
    let target = (flights & once).and_not(own);
    let land = target & (twice | behind);
    let hand = pos.hand(us);
    let contact_drops = [PieceType::Lance, PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook]
        .into_iter()
        .any(|pt| hand.has(pt));
    let drop_land = if contact_drops { target.and_not(occ) } else { Bitboard::EMPTY };
    // A knight checks from two ranks away and covers none of the king's flights: a free one
    // stays free after a knight drop, and after a knight move unless it lies on a line
    // through the square the knight leaves.
    let knights = pos.pieces(us, PieceType::Knight);
    let knight_squares = knight_attacks(them, ksq).and_not(own);
    let knight_checks = (hand.has(PieceType::Knight) && free.is_empty())
        || knights.iter().any(|k| {
            (knight_attacks(us, k) & knight_squares).any() && free.and_not(rook_pseudo(k) | bishop_pseudo(k)).is_empty()
        });
    if land.is_empty() && drop_land.is_empty() && !knight_checks {
        return None;
    }
    Some((Limit { land, drop_land, movers: movers | knights }, free))
}

/// Whether, after `m`, another piece of the mover's side attacks `m.to()` with the enemy king
/// (on `ksq`) gone from its square: whether the king could not take the piece on `m.to()`.
#[inline]
fn supported_after(pos: &Position, m: Move, ksq: Square) -> bool {
    let to = Bitboard::from_square(m.to());
    let from = if m.is_drop() { Bitboard::EMPTY } else { Bitboard::from_square(m.from()) };
    let occ = ((pos.occupied() & !from) | to) & !Bitboard::from_square(ksq);
    (pos.attackers_to(pos.side_to_move(), m.to(), occ) & !from).any()
}

/// The board after `m` as seen by the defender: occupancy, the attacker's moved piece, and
/// the attacker's other pieces.
struct After {
    us: Color,
    occ: Bitboard,
    from: Bitboard,
    to: Square,
    kind: PieceType,
    /// The attacker's pieces but the moved one.
    others: Bitboard,
}

impl After {
    /// Whether the attacker's pieces other than the moved one attack `sq` (occupancy `occ`);
    /// cheap step pieces first.
    #[inline(always)]
    fn others_attack(&self, pos: &Position, sq: Square, occ: Bitboard) -> bool {
        pos.is_attacked_by(self.us, self.others, sq, occ)
    }
}

/// `Some(mated)`, or `None` when only playing the move can tell (in the variant `V`).
#[inline]
fn static_mate<V: Variant>(pos: &Position, m: Move) -> Option<bool> {
    // Sho shogi is decided by playing the check (the static reasoning knows one royal).
    if V::DESC.pseudo_royal {
        return None;
    }
    let us = pos.side_to_move();
    let them = !us;
    let ksq = pos.king_square(them);
    let to = m.to();
    let to_bb = Bitboard::from_square(to);
    let (from, occ) = if m.is_drop() {
        (Bitboard::EMPTY, pos.occupied() | to)
    } else {
        let f = m.from();
        (Bitboard::from_square(f), (pos.occupied() ^ f) | to)
    };
    let after = After { us, occ, from, to, kind: m.piece_after().kind(), others: pos.pieces_of(us).and_not(from) };
    // The defender's pieces after the move (a captured one is gone).
    let defenders = pos.pieces_of(them).and_not(to_bb);

    // King flights (capturing an unprotected checker included): most checks end here.
    let occ_no_king = occ ^ ksq;
    let flights = V::mask(king_attacks(ksq).and_not(defenders).and_not(attacks_of(us, after.kind, to, occ_no_king)));
    for s in flights {
        if !after.others_attack(pos, s, occ_no_king) {
            return Some(false);
        }
    }

    // Checkers: the moved piece, and sliders it uncovered (nothing attacked the king before).
    let mut checkers = if attacks_of(us, after.kind, to, occ).contains(ksq) { to_bb } else { Bitboard::EMPTY };
    if from.any() && pos.blockers_for_king(them).contains(m.from()) {
        checkers |= pos.attackers_to(us, ksq, occ).and_not(from);
    }
    if checkers.more_than_one() {
        return Some(true);
    }
    let checker = checkers.lsb();
    let pinned = pinned_after(pos, &after, ksq, defenders);
    let can_reach = |sq: Square| {
        let movers = (pos.attackers_to(them, sq, occ) & defenders).and_not(Bitboard::from_square(ksq));
        movers.iter().any(|q| !pinned.contains(q) || aligned(ksq, q, sq))
    };
    if can_reach(checker) {
        return Some(false);
    }
    let gap = between(ksq, checker);
    if gap.is_empty() {
        return Some(true);
    }
    let hand = pos.hand(them);
    let other_drop = hand.has(PieceType::Silver)
        || hand.has(PieceType::Gold)
        || hand.has(PieceType::Bishop)
        || hand.has(PieceType::Rook);
    let mut pawn_files = Bitboard::EMPTY;
    if hand.has(PieceType::Pawn) {
        // Nifu counts the defender's pawns after the move: a captured one no longer blocks.
        pawn_files = V::mask(!V::DESC.far[them.index()][1]);
        for p in pos.pieces(them, PieceType::Pawn).and_not(to_bb) {
            pawn_files = pawn_files.and_not(Bitboard::file_mask(p.file()));
        }
    }
    // A tsume's attacker has no king: then no interposed pawn checks back.
    let our_king = pos.king_square_opt(us);
    let far = V::DESC.far[them.index()];
    for sq in gap {
        if other_drop || can_reach(sq) {
            return Some(false);
        }
        if (hand.has(PieceType::Lance) && !far[1].contains(sq)) || (hand.has(PieceType::Knight) && !far[2].contains(sq))
        {
            return Some(false);
        }
        if pawn_files.contains(sq) {
            if our_king.is_some_and(|k| pawn_attacks(them, sq).contains(k)) {
                return None; // the drop checks back: it may be an illegal pawn-drop mate
            }
            return Some(false);
        }
    }
    Some(true)
}

/// The defender's pieces pinned to its king on the board after the move.
#[inline]
fn pinned_after(pos: &Position, after: &After, ksq: Square, defenders: Bitboard) -> Bitboard {
    let them = !after.us;
    let mut snipers = ((bishop_pseudo(ksq) & pos.bishops_horses())
        | (rook_pseudo(ksq) & pos.rooks_dragons())
        | (forward_ray(them, ksq) & pos.pieces_of_type(PieceType::Lance)))
        & pos.pieces_of(after.us).and_not(after.from);
    let aimed = match after.kind {
        PieceType::Bishop | PieceType::Horse => bishop_pseudo(ksq).contains(after.to),
        PieceType::Rook | PieceType::Dragon => rook_pseudo(ksq).contains(after.to),
        PieceType::Lance => forward_ray(them, ksq).contains(after.to),
        _ => false,
    };
    if aimed {
        snipers |= Bitboard::from_square(after.to);
    }
    let mut pinned = Bitboard::EMPTY;
    for s in snipers {
        let b = between(ksq, s) & after.occ;
        if b.any() && !b.more_than_one() {
            pinned |= b & defenders;
        }
    }
    pinned
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compares with playing every check, in `sfen` and in the positions one move later.
    fn compare(pos: &mut Position) -> (usize, usize) {
        let mut checks = MoveList::new();
        generate_checks(pos, &mut checks);
        let mut mates = 0;
        for &m in checks.iter() {
            pos.do_move(m);
            let want = !pos.has_legal_move();
            pos.undo_move(m);
            assert_eq!(is_mate_after_check(pos, m), want, "{} {m}", pos.to_sfen());
            mates += want as usize;
        }
        let first = checks.iter().copied().find(|&m| {
            pos.do_move(m);
            let mated = !pos.has_legal_move();
            pos.undo_move(m);
            mated
        });
        assert_eq!(first_mating_check(pos, checks.as_slice()), first, "{}", pos.to_sfen());
        assert_eq!(find_mate_in_1(pos), (first, !checks.is_empty()), "{}", pos.to_sfen());
        (checks.len(), mates)
    }

    /// Calls `visit` on every position of `tests/data/legal_moves.txt` and on every child (after
    /// each pseudo-legal move) of every fifth one: the fixture's positions are mostly quiet, the
    /// children hold the checks and mates.
    fn for_fixture_positions_and_children(mut visit: impl FnMut(&mut Position)) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves.txt");
        for (i, line) in text.lines().filter(|l| !l.starts_with('#')).enumerate() {
            let Ok(mut pos) = Position::from_sfen(line.split('\t').next().unwrap()) else {
                continue;
            };
            visit(&mut pos);
            if i % 5 == 0 {
                let mut all = MoveList::new();
                crate::generate(&pos, crate::GenKind::All, &mut all);
                for &mv in all.iter() {
                    pos.do_move(mv);
                    visit(&mut pos);
                    pos.undo_move(mv);
                }
            }
        }
    }

    /// `contact_mate_in_1` against its definition: a check of `generate_contact_checks` that
    /// leaves no legal move when played (a mating checker next to the king is supported, since
    /// the king cannot take it). Returns whether there was one.
    fn compare_contact(pos: &mut Position) -> bool {
        let mut checks = MoveList::new();
        crate::generate_contact_checks(pos, &mut checks);
        let want: Vec<Move> = checks
            .iter()
            .copied()
            .filter(|&m| {
                pos.do_move(m);
                let mated = !pos.has_legal_move();
                pos.undo_move(m);
                mated
            })
            .collect();
        match contact_mate_in_1(pos) {
            Some(m) => assert!(want.contains(&m), "{}: {m} is not among {want:?}", pos.to_sfen()),
            None => assert!(want.is_empty(), "{}: missed {want:?}", pos.to_sfen()),
        }
        !want.is_empty()
    }

    #[test]
    fn contact_mate_in_1_finds_exactly_the_supported_contact_and_knight_mates() {
        for (sfen, mate) in [
            // A gold drop supported by a pawn; the same gold unsupported; a knight drop.
            ("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", true),
            ("4k4/9/9/9/9/9/9/9/4K4 b G 1", false),
            ("7lk/7nl/9/9/9/9/9/9/K8 b N 1", true),
            // The promoted lance on 7c steps to 8b, supported only by the horse on 5e behind it.
            ("k5+b2/4p4/2+L2pP2/9/3G+B2N1/g6G1/3R2pP1/1+l2P4/P+s1P2K2 b 2S5Prgs3nl5p 166", true),
        ] {
            let mut pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(compare_contact(&mut pos), mate, "{sfen}");
        }
        let (mut positions, mut mates) = (0, 0);
        for_fixture_positions_and_children(|pos| {
            if !pos.in_check() {
                mates += compare_contact(pos) as usize;
                positions += 1;
            }
        });
        assert!(positions > 100_000 && mates > 1_000, "only {positions} positions, {mates} with a mate");
    }

    #[test]
    fn fixed_positions() {
        for sfen in [
            "k8/9/1G7/9/9/9/9/9/8K b GP 1",
            "4k4/9/4P4/9/9/9/9/9/4K4 b GSNLBR 1",
            "4k4/9/9/9/4S4/9/9/9/4RK3 b - 1",
            "8k/9/9/9/9/9/2N6/1B7/K8 b - 1",
            "4k4/9/9/9/9/9/9/4K4/4R4 b - 1",
            // Interposing pawn drops that check back (the attacker's king stands behind).
            "4k4/9/9/4K4/9/9/9/9/9 b R 1",
            "3rk4/9/3K5/9/9/9/9/9/9 b RB 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        ] {
            let mut pos = Position::from_sfen(sfen).unwrap();
            compare(&mut pos);
        }
    }

    #[test]
    fn fixture_positions_and_children() {
        let (mut checks, mut mates) = (0, 0);
        for_fixture_positions_and_children(|pos| {
            let (c, m) = compare(pos);
            checks += c;
            mates += m;
        });
        assert!(checks > 100_000 && mates > 1_000, "only {checks} checks, {mates} mates compared");
    }
}
