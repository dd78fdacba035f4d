//! Legal move generation, in the stages a search needs. Every generated move is legal: pins
//! and king safety are resolved here, so callers never test legality afterwards.

use crate::attacks::*;
use crate::variant::{dispatch, Variant};
use crate::{Bitboard, Color, Move, MoveList, MoveSink, Piece, PieceType, Position, Square};

/// Which part of the legal moves to generate. `Captures` and `Quiets` partition `All`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenKind {
    /// Captures (with and without promotion) and pawn pushes that promote.
    Captures,
    /// Everything else: non-capturing board moves (a pawn push into the zone only unpromoted)
    /// and drops.
    Quiets,
    /// Every legal move, non-promotions included.
    All,
}

/// Appends the legal moves of the given kind to `list` (a `MoveList`, or any other sink such
/// as the search's scored list, which then needs no copy). In check these are evasions.
pub fn generate<S: MoveSink>(pos: &Position, kind: GenKind, list: &mut S) {
    dispatch!(pos.variant(), V => generate_in::<V, S>(pos, kind, list))
}

/// `generate` in the variant `V`.
#[inline(always)]
fn generate_in<V: Variant, S: MoveSink>(pos: &Position, kind: GenKind, list: &mut S) {
    // One copy per kind and colour: the kind's targets and the colour's table rows become
    // constants, and each piece kind's attack lookup is inlined.
    match (kind, pos.side_to_move()) {
        (GenKind::Captures, Color::Black) => generate_of::<V, CAPTURES, true, S>(pos, list),
        (GenKind::Captures, Color::White) => generate_of::<V, CAPTURES, false, S>(pos, list),
        (GenKind::Quiets, Color::Black) => generate_of::<V, QUIETS, true, S>(pos, list),
        (GenKind::Quiets, Color::White) => generate_of::<V, QUIETS, false, S>(pos, list),
        (GenKind::All, Color::Black) => generate_of::<V, ALL, true, S>(pos, list),
        (GenKind::All, Color::White) => generate_of::<V, ALL, false, S>(pos, list),
    }
}

/// `GenKind` as a const generic parameter.
const CAPTURES: u8 = 0;
const QUIETS: u8 = 1;
const ALL: u8 = 2;

/// `generate` for one variant (`V`), kind (`KIND`, see the constants above) and side to move
/// (`BLACK`).
fn generate_of<V: Variant, const KIND: u8, const BLACK: bool, S: MoveSink>(pos: &Position, list: &mut S) {
    let kind = match KIND {
        CAPTURES => GenKind::Captures,
        QUIETS => GenKind::Quiets,
        _ => GenKind::All,
    };
    let us = if BLACK { Color::Black } else { Color::White };
    let ksq = pos.king_square(us);
    let own = pos.pieces_of(us);
    let enemy = pos.pieces_of(!us);
    // The one complement of the generator: masked, every target below is on the board.
    let empty = V::mask(!pos.occupied());
    let checkers = pos.checkers();

    let (capture_target, quiet_target) = if checkers.any() {
        if checkers.more_than_one() {
            king_moves::<V, S>(pos, us, kind, enemy, empty, list);
            return;
        }
        let checker = checkers.lsb();
        (checkers, between(ksq, checker))
    } else {
        (enemy, empty)
    };
    king_moves::<V, S>(pos, us, kind, enemy, empty, list);
    let board_target = match kind {
        GenKind::Captures => capture_target,
        GenKind::Quiets => quiet_target,
        GenKind::All => capture_target | quiet_target,
    };
    let pinned = pos.pinned(us);
    pawn_moves::<V, S>(pos, us, kind, capture_target, quiet_target, pinned, list);
    let occ = pos.occupied();
    let at = Targets { us, ksq, occ, board_target, pinned };
    piece_moves::<V, S>(pos, &at, PieceType::Lance, list);
    piece_moves::<V, S>(pos, &at, PieceType::Knight, list);
    piece_moves::<V, S>(pos, &at, PieceType::Silver, list);
    piece_moves::<V, S>(pos, &at, PieceType::Bishop, list);
    piece_moves::<V, S>(pos, &at, PieceType::Rook, list);
    piece_moves::<V, S>(pos, &at, PieceType::Horse, list);
    piece_moves::<V, S>(pos, &at, PieceType::Dragon, list);
    if V::DESC.elephant {
        piece_moves::<V, S>(pos, &at, PieceType::Elephant, list);
    }
    for from in pos.golds() & own {
        let mut t = gold_attacks(us, from) & board_target;
        if pinned.any() && pinned.contains(from) {
            t &= line(ksq, from);
        }
        let pc = pos.piece_on(from);
        t.for_each(|to| list.push(Move::normal(from, to, pc)));
    }
    if V::DESC.drops && kind != GenKind::Captures {
        drops::<V, S>(pos, us, quiet_target, list);
    }
}

/// What the board moves of every non-king piece share.
struct Targets {
    us: Color,
    ksq: Square,
    occ: Bitboard,
    board_target: Bitboard,
    pinned: Bitboard,
}

/// The board moves of `us`'s pieces of kind `pt` (not king, not gold-movers) to the targets.
#[inline(always)]
fn piece_moves<V: Variant, S: MoveSink>(pos: &Position, at: &Targets, pt: PieceType, list: &mut S) {
    for from in pos.pieces(at.us, pt) {
        let mut t = piece_attacks(at.us, pt, from, at.occ) & at.board_target;
        // Most positions pin nothing: one loop-invariant test spares the square lookup.
        if at.pinned.any() && at.pinned.contains(from) {
            t &= line(at.ksq, from);
        }
        push_board_moves::<V, S>(list, at.us, pt, from, t);
    }
}

/// Appends every legal move.
pub fn generate_legal(pos: &Position, list: &mut MoveList) {
    generate(pos, GenKind::All, list);
}

/// King moves to squares the enemy does not attack (the king itself removed from the board,
/// so it cannot hide behind itself from a slider). A Sho shogi side with two royals is bound by
/// nothing: each of them steps anywhere (docs of `variant`).
#[inline(always)]
fn king_moves<V: Variant, S: MoveSink>(
    pos: &Position,
    us: Color,
    kind: GenKind,
    enemy: Bitboard,
    empty: Bitboard,
    list: &mut S,
) {
    let ksq = pos.king_square(us);
    let target = match kind {
        GenKind::Captures => enemy,
        GenKind::Quiets => empty,
        GenKind::All => enemy | empty,
    };
    let pc = Piece::new(us, PieceType::King);
    // A tsume's attacker has no king to move.
    if !pos.has_king(us) {
        return;
    }
    if V::DESC.pseudo_royal && !pos.bound(us) {
        for from in pos.pieces(us, PieceType::King) {
            (king_attacks(from) & target).for_each(|to| list.push(Move::normal(from, to, pc)));
        }
        return;
    }
    for to in pos.king_flights(us, king_attacks(ksq) & target) {
        list.push(Move::normal(ksq, to, pc));
    }
}

/// Pawn pushes, all at once by shifting the pawn bitboard one rank forward.
#[inline(always)]
fn pawn_moves<V: Variant, S: MoveSink>(
    pos: &Position,
    us: Color,
    kind: GenKind,
    capture_target: Bitboard,
    quiet_target: Bitboard,
    pinned: Bitboard,
    list: &mut S,
) {
    let ksq = pos.king_square(us);
    let pawns = pos.pieces(us, PieceType::Pawn);
    let pushed = if us == Color::Black { pawns.shift_north() } else { pawns.shift_south() };
    let zone = V::DESC.zone[us.index()];
    let last = V::DESC.far[us.index()][1];
    let pc = Piece::new(us, PieceType::Pawn);
    let from_of = |to: Square| {
        if us == Color::Black {
            Square::new(to.index() as u8 + 1)
        } else {
            Square::new(to.index() as u8 - 1)
        }
    };
    let pin_ok = |from: Square, to: Square| pinned.is_empty() || !pinned.contains(from) || aligned(ksq, from, to);
    // Promotions (and forced promotions) into the zone count as captures-stage moves.
    let (promo_target, plain_target) = match kind {
        GenKind::Captures => (capture_target | quiet_target, capture_target),
        GenKind::Quiets => (Bitboard::EMPTY, quiet_target),
        GenKind::All => (capture_target | quiet_target, capture_target | quiet_target),
    };
    for to in pushed & promo_target & zone {
        let from = from_of(to);
        if pin_ok(from, to) {
            list.push(Move::promotion(from, to, pc));
        }
    }
    for to in (pushed & plain_target).and_not(last) {
        let from = from_of(to);
        if pin_ok(from, to) {
            list.push(Move::normal(from, to, pc));
        }
    }
}

/// Emits the board moves of the piece on `from` to every square of `targets`, with the
/// promotion choices the rules allow: forced promotion where the piece could never move again,
/// optional promotion for a move into, out of or inside the zone. Works on whole bitboards so
/// that no per-move rank arithmetic is needed.
#[inline(always)]
fn push_board_moves<V: Variant, S: MoveSink>(list: &mut S, us: Color, pt: PieceType, from: Square, targets: Bitboard) {
    let pc = Piece::new(us, pt);
    let zone = V::DESC.zone[us.index()];
    let (promote_only, promote_both, plain) = match pt {
        PieceType::Lance => {
            let last = V::DESC.far[us.index()][1];
            (targets & last, targets & zone.and_not(last), targets.and_not(zone))
        }
        PieceType::Knight => {
            let last2 = V::DESC.far[us.index()][2];
            (targets & last2, targets & zone.and_not(last2), targets.and_not(zone))
        }
        PieceType::Silver | PieceType::Bishop | PieceType::Rook | PieceType::Elephant => {
            if zone.contains(from) {
                (Bitboard::EMPTY, targets, Bitboard::EMPTY)
            } else {
                (Bitboard::EMPTY, targets & zone, targets.and_not(zone))
            }
        }
        _ => (Bitboard::EMPTY, Bitboard::EMPTY, targets),
    };
    promote_only.for_each(|to| list.push(Move::promotion(from, to, pc)));
    promote_both.for_each(|to| {
        list.push(Move::promotion(from, to, pc));
        list.push(Move::normal(from, to, pc));
    });
    plain.for_each(|to| list.push(Move::normal(from, to, pc)));
}

/// The squares where `us` may drop a pawn: not the last rank and not a file holding one of
/// `us`'s unpromoted pawns (nifu). Tokin do not count.
pub fn pawn_drop_squares(pos: &Position, us: Color) -> Bitboard {
    dispatch!(pos.variant(), V => pawn_drop_squares_in::<V>(pos, us))
}

/// `pawn_drop_squares` in the variant `V`.
#[inline(always)]
pub(crate) fn pawn_drop_squares_in<V: Variant>(pos: &Position, us: Color) -> Bitboard {
    let mut allowed = V::mask(!V::DESC.far[us.index()][1]);
    for p in pos.pieces(us, PieceType::Pawn) {
        allowed = allowed.and_not(Bitboard::file_mask(p.file()));
    }
    allowed
}

/// Drops onto `target` (empty squares, or interposition squares in check).
#[inline(always)]
fn drops<V: Variant, S: MoveSink>(pos: &Position, us: Color, target: Bitboard, list: &mut S) {
    let hand = pos.hand(us);
    if hand.is_empty() || target.is_empty() {
        return;
    }
    if hand.has(PieceType::Pawn) {
        let mut t = target & pawn_drop_squares_in::<V>(pos, us);
        // Only a drop in front of the enemy king can be pawn-drop mate (none without a king).
        if pos.has_king(!us) {
            let front = pawn_attacks(!us, pos.king_square(!us));
            if (t & front).any() && is_pawn_drop_mate_in::<V>(pos, front.lsb()) {
                t = t.and_not(front);
            }
        }
        let pc = Piece::new(us, PieceType::Pawn);
        t.for_each(|to| list.push(Move::drop(pc, to)));
    }
    // Group the other held kinds by where they may be dropped (YaneuraOu's idea: knights and
    // lances are dead on the far ranks), then emit square by square.
    let mut all = [Piece::EMPTY; 6];
    let mut n_all = 0;
    let mut n_no_knight = 0; // kinds allowed on the second-to-last rank: all but knights
    let mut n_far = 0; // kinds allowed on the last rank: neither knights nor lances
    for pt in [PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook] {
        if hand.has(pt) {
            all[n_all] = Piece::new(us, pt);
            n_all += 1;
        }
    }
    n_far += n_all;
    n_no_knight += n_all;
    if hand.has(PieceType::Lance) {
        all[n_all] = Piece::new(us, PieceType::Lance);
        n_all += 1;
        n_no_knight += 1;
    }
    if hand.has(PieceType::Knight) {
        all[n_all] = Piece::new(us, PieceType::Knight);
        n_all += 1;
    }
    if n_all == 0 {
        return;
    }
    let last = V::DESC.far[us.index()][1];
    let last2 = V::DESC.far[us.index()][2];
    let emit = |list: &mut S, squares: Bitboard, kinds: &[Piece]| {
        squares.for_each(|to| {
            for &pc in kinds {
                list.push(Move::drop(pc, to));
            }
        })
    };
    emit(list, target & last, &all[..n_far]);
    emit(list, target & last2.and_not(last), &all[..n_no_knight]);
    emit(list, target.and_not(last2), &all[..n_all]);
}

/// Uchifuzume: would a pawn dropped by the side to move on `to` (the square in front of the
/// enemy king) give checkmate? Such a drop is illegal. The pawn checks; it is mate when the
/// king cannot take it (we defend `to`), no other defender can take it (pinned defenders may
/// not, except along the pawn's own file, where the pawn itself now blocks the pin), and
/// every flight square is attacked. Never against a side without a king: the rule is about a
/// pawn checking the king.
pub fn is_pawn_drop_mate(pos: &Position, to: Square) -> bool {
    dispatch!(pos.variant(), V => is_pawn_drop_mate_in::<V>(pos, to))
}

/// `is_pawn_drop_mate` in the variant `V`.
pub(crate) fn is_pawn_drop_mate_in<V: Variant>(pos: &Position, to: Square) -> bool {
    let us = pos.side_to_move();
    let them = !us;
    if !pos.has_king(them) {
        return false;
    }
    let ksq = pos.king_square(them);
    let occ = pos.occupied() | to;
    if !pos.is_attacked(us, to, occ) {
        return false;
    }
    let defenders = pos.attackers_to(them, to, occ).and_not(Bitboard::from_square(ksq));
    let pinned = pos.pinned(them);
    if defenders.and_not(pinned.and_not(Bitboard::file_mask(to.file()))).any() {
        return false;
    }
    let occ_without_king = occ ^ ksq;
    // Masked: on a small board a square past the edge is no flight.
    for flight in V::mask(king_attacks(ksq).and_not(pos.pieces_of(them))) {
        if flight != to && !pos.is_attacked(us, flight, occ_without_king) {
            return false;
        }
    }
    true
}

impl Position {
    /// Whether the side to move has any legal move (no legal move means the game is lost).
    pub fn has_legal_move(&self) -> bool {
        if self.in_check() {
            return self.has_evasion();
        }
        let mut list = MoveList::new();
        generate(self, GenKind::All, &mut list);
        !list.is_empty()
    }

    /// Whether the side to move, in check, can escape: the mate test of mate-in-one search,
    /// done square by square with early exits instead of generating every evasion.
    pub fn has_evasion(&self) -> bool {
        dispatch!(self.variant(), V => self.has_evasion_in::<V>())
    }

    /// `has_evasion` in the variant `V`.
    fn has_evasion_in<V: Variant>(&self) -> bool {
        let us = self.side_to_move();
        let ksq = self.king_square(us);
        let occ = self.occupied();
        let own = self.pieces_of(us);
        let far = V::DESC.far[us.index()];
        for to in V::mask(king_attacks(ksq).and_not(own)) {
            if !self.is_attacked(!us, to, occ ^ ksq) {
                return true;
            }
        }
        let checkers = self.checkers();
        if checkers.more_than_one() {
            return false;
        }
        let checker = checkers.lsb();
        let pinned = self.pinned(us);
        let can_reach = |sq: Square| {
            let movers = self.attackers_to(us, sq, occ).and_not(Bitboard::from_square(ksq));
            movers.iter().any(|from| !pinned.contains(from) || aligned(ksq, from, sq))
        };
        if can_reach(checker) {
            return true;
        }
        let hand = self.hand(us);
        for sq in between(ksq, checker) {
            if can_reach(sq) {
                return true;
            }
            if hand.has(PieceType::Silver)
                || hand.has(PieceType::Gold)
                || hand.has(PieceType::Bishop)
                || hand.has(PieceType::Rook)
            {
                return true;
            }
            if (hand.has(PieceType::Lance) && !far[1].contains(sq))
                || (hand.has(PieceType::Knight) && !far[2].contains(sq))
            {
                return true;
            }
            if hand.has(PieceType::Pawn)
                && pawn_drop_squares_in::<V>(self, us).contains(sq)
                && !(self.has_king(!us)
                    && pawn_attacks(us, sq).contains(self.king_square(!us))
                    && is_pawn_drop_mate_in::<V>(self, sq))
            {
                return true;
            }
        }
        false
    }

    /// Rebuilds a full move from its low 16 bits (as stored in a transposition table) using the
    /// piece now on the origin square. The result may be illegal or malformed: check it with
    /// `is_legal` before use.
    pub fn move_from_u16(&self, m16: u16) -> Move {
        let raw = m16 as u32;
        let us = self.side_to_move();
        let kind_or_from = ((raw >> 7) & 0x7f) as u8;
        let piece = if raw & (1 << 14) != 0 {
            match PieceType::from_u8(kind_or_from) {
                Some(pt) => Piece::new(us, pt),
                None => return Move::NONE,
            }
        } else if kind_or_from < 81 {
            let pc = self.piece_on(Square::new(kind_or_from));
            if pc.is_empty() {
                return Move::NONE;
            }
            if raw & (1 << 15) != 0 {
                if !pc.kind().can_promote() {
                    return Move::NONE;
                }
                pc.promoted()
            } else {
                pc
            }
        } else {
            return Move::NONE;
        };
        Move::from_raw(raw | (piece.index() as u32) << 16)
    }

    /// Whether `m` is a legal move here. Works for any bit pattern (e.g. a move read from the
    /// transposition table, possibly written by another thread for another position).
    pub fn is_legal(&self, m: Move) -> bool {
        dispatch!(self.variant(), V => self.is_legal_in::<V>(m))
    }

    /// `is_legal` in the variant `V`.
    fn is_legal_in<V: Variant>(&self, m: Move) -> bool {
        if !m.is_well_formed() {
            return false;
        }
        if !V::FULL_BOARD && !V::DESC.board.contains(m.to()) {
            return false;
        }
        let us = self.side_to_move();
        let pc = m.piece_after();
        if pc.color() != us {
            return false;
        }
        let to = m.to();
        let dest = self.piece_on(to);
        let ksq = self.king_square(us);
        let checkers = self.checkers();
        let far = V::DESC.far[us.index()];
        if m.is_drop() {
            let pt = m.dropped();
            if !V::DESC.drops || !pt.is_hand_type() || pc.kind() != pt || !self.hand(us).has(pt) || !dest.is_empty() {
                return false;
            }
            let rank_ok = match pt {
                PieceType::Pawn => pawn_drop_squares_in::<V>(self, us).contains(to),
                PieceType::Lance => !far[1].contains(to),
                PieceType::Knight => !far[2].contains(to),
                _ => true,
            };
            if !rank_ok {
                return false;
            }
            if checkers.any() && (checkers.more_than_one() || !between(ksq, checkers.lsb()).contains(to)) {
                return false;
            }
            return pt != PieceType::Pawn
                || !self.has_king(!us)
                || pawn_attacks(us, to) != Bitboard::from_square(self.king_square(!us))
                || !is_pawn_drop_mate_in::<V>(self, to);
        }
        let from = m.from();
        let mover = self.piece_on(from);
        if mover.is_empty() || mover.color() != us || (!dest.is_empty() && dest.color() == us) {
            return false;
        }
        let pt = mover.kind();
        if m.is_promotion() {
            let zone = V::DESC.zone[us.index()];
            if !pt.can_promote() || pc != mover.promoted() || !(zone.contains(from) || zone.contains(to)) {
                return false;
            }
        } else {
            if pc != mover {
                return false;
            }
            let forced = match pt {
                PieceType::Pawn | PieceType::Lance => far[1].contains(to),
                PieceType::Knight => far[2].contains(to),
                _ => false,
            };
            if forced {
                return false;
            }
        }
        let occ = self.occupied();
        if !attacks_of(us, pt, from, occ).contains(to) {
            return false;
        }
        if pt == PieceType::King {
            // A Sho shogi side with two royals may step anywhere.
            return (V::DESC.pseudo_royal && !self.bound(us)) || !self.is_attacked(!us, to, occ ^ from);
        }
        if checkers.any() {
            if checkers.more_than_one() {
                return false;
            }
            let c = checkers.lsb();
            if to != c && !between(ksq, c).contains(to) {
                return false;
            }
        }
        !self.pinned(us).contains(from) || aligned(ksq, from, to)
    }
}
