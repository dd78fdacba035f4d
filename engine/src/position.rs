//! The position: board, hands, side to move, and the state stack that makes `undo_move` cheap.

use crate::attacks::*;
use crate::{zobrist, Bitboard, Color, Hand, Move, Piece, PieceType, Square, VariantId, PIECE_TYPE_NB, SQUARE_COUNT};

/// What `do_move` computes and `undo_move` throws away: one entry per ply.
#[derive(Clone, Copy, Debug)]
pub struct StateInfo {
    /// Board key, with the side to move in bit 0.
    pub board_key: u64,
    /// Sum of the hand keys of both sides.
    pub hand_key: u64,
    /// Pieces giving check to the side to move.
    pub checkers: Bitboard,
    /// For each colour, the pieces (of either colour) that alone shield its king from a slider.
    pub blockers: [Bitboard; 2],
    /// The piece the move leading here captured.
    pub captured: Piece,
    /// The move leading here.
    pub last_move: Move,
    /// Per colour: plies during which that colour has given check with every move (+2 a move).
    pub continuous_check: [u16; 2],
    /// Plies since the last null move (or since the start): how far repetitions may reach back.
    pub plies_from_null: u16,
    /// The hand of the side to move here.
    pub hand: Hand,
    /// Sho shogi: the piece the move leading here captured was a prince.
    pub captured_prince: bool,
}

/// A shogi position (or one of a variant's) with its history.
#[derive(Clone)]
pub struct Position {
    board: [Piece; SQUARE_COUNT],
    by_type: [Bitboard; PIECE_TYPE_NB],
    by_color: [Bitboard; 2],
    hands: [Hand; 2],
    side: Color,
    variant: VariantId,
    game_ply: u32,
    /// Each side's king; in Sho shogi its sole royal when bound, else its king (`refresh_royals`).
    /// `Square::NONE` for a side without a king (a tsume's attacker, see `has_king`).
    king_sq: [Square; 2],
    /// Whether `do_move` and `gives_check` leave their incremental shortcuts for the general
    /// path: in Sho shogi (royals) and when a side has no king (its checks and pins are none,
    /// and the shortcuts read both kings' squares). Fixed for a game: no move adds or removes a
    /// king (a king is never captured; in Sho shogi the flag is set anyway). One byte tested
    /// where the variant was tested before, so a game with both kings pays nothing for it.
    slow: bool,
    /// Sho shogi: the king-kind pieces that are princes (promoted elephants).
    princes: Bitboard,
    states: Vec<StateInfo>,
}

/// The SFEN of the even-game start position.
pub const START_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    /// The even-game start position.
    pub fn startpos() -> Position {
        Position::from_sfen(START_SFEN).expect("start SFEN is valid")
    }

    /// The start position of `variant`.
    pub fn startpos_in(variant: VariantId) -> Position {
        Position::from_sfen_in(variant, variant.desc().start_sfen).expect("start SFEN is valid")
    }

    /// An empty board builder; used by the SFEN parser, which places pieces and then calls `finish`.
    pub(crate) fn empty() -> Position {
        Position {
            board: [Piece::EMPTY; SQUARE_COUNT],
            by_type: [Bitboard::EMPTY; PIECE_TYPE_NB],
            by_color: [Bitboard::EMPTY; 2],
            hands: [Hand::EMPTY; 2],
            side: Color::Black,
            variant: VariantId::Shogi,
            game_ply: 1,
            king_sq: [Square::NONE; 2],
            slow: false,
            princes: Bitboard::EMPTY,
            states: Vec::with_capacity(256),
        }
    }

    pub(crate) fn put_piece(&mut self, pc: Piece, sq: Square) {
        self.board[sq.index()] = pc;
        let b = Bitboard::from_square(sq);
        self.by_type[pc.kind().index()] ^= b;
        self.by_color[pc.color().index()] ^= b;
        if pc.kind() == PieceType::King {
            self.king_sq[pc.color().index()] = sq;
        }
    }

    pub(crate) fn set_hand(&mut self, c: Color, h: Hand) {
        self.hands[c.index()] = h;
    }

    pub(crate) fn set_variant(&mut self, variant: VariantId) {
        self.variant = variant;
    }

    /// Marks the king-kind piece on `sq` as a prince (SFEN `+E`).
    pub(crate) fn add_prince(&mut self, sq: Square) {
        self.princes |= sq;
    }

    pub(crate) fn set_side_and_ply(&mut self, side: Color, ply: u32) {
        self.side = side;
        self.game_ply = ply;
    }

    /// Computes the root state from scratch (after the board has been set up).
    pub(crate) fn finish(&mut self) {
        self.states.clear();
        let mut st = StateInfo {
            board_key: self.compute_board_key(),
            hand_key: self.compute_hand_key(),
            checkers: Bitboard::EMPTY,
            blockers: [Bitboard::EMPTY; 2],
            captured: Piece::EMPTY,
            last_move: Move::NONE,
            continuous_check: [0; 2],
            plies_from_null: 0,
            hand: self.hands[self.side.index()],
            captured_prince: false,
        };
        if self.pseudo_royal() {
            self.refresh_royals();
        }
        self.slow = self.pseudo_royal() || !self.has_king(Color::Black) || !self.has_king(Color::White);
        st.checkers = self.checkers_now();
        st.blockers = [self.blockers_now(Color::Black), self.blockers_now(Color::White)];
        self.states.push(st);
    }

    /// Whether the royal rule of Sho shogi applies (two royals unbind a side).
    #[inline(always)]
    fn pseudo_royal(&self) -> bool {
        self.variant == VariantId::ShoShogi
    }

    /// Whether side `c` is bound by check: in shogi and Minishogi when it has a king (a tsume's
    /// attacker has none: it is never in check and has no pins); in Sho shogi when it has
    /// exactly one royal (king or prince).
    #[inline(always)]
    pub fn bound(&self, c: Color) -> bool {
        self.has_king(c) && (!self.pseudo_royal() || !self.pieces(c, PieceType::King).more_than_one())
    }

    /// Whether side `c` has a king (or, in Sho shogi, a royal). A shogi or Minishogi position
    /// may leave out one side's king, as a tsume (mate problem) leaves out the attacker's: that
    /// side is never in check, none of its pieces is pinned, it may not declare an entering
    /// king, and no move of the other side checks it (so no pawn drop is pawn-drop mate against
    /// it, and no perpetual check is charged against it). `king_square` must not be asked for it.
    #[inline(always)]
    pub fn has_king(&self, c: Color) -> bool {
        self.king_sq[c.index()] != Square::NONE
    }

    /// The square of `c`'s king, or `None` when `c` has none (`has_king`).
    #[inline(always)]
    pub fn king_square_opt(&self, c: Color) -> Option<Square> {
        self.has_king(c).then(|| self.king_sq[c.index()])
    }

    /// Sho shogi: sets each side's `king_sq` to its sole royal, or to its king when it has two
    /// royals (the prince is the other).
    fn refresh_royals(&mut self) {
        for c in Color::ALL {
            let royals = self.pieces(c, PieceType::King);
            let pick = if royals.more_than_one() { royals.and_not(self.princes) } else { royals };
            if pick.any() {
                self.king_sq[c.index()] = pick.lsb();
            }
        }
    }

    /// The pieces checking the side to move, from scratch: none when it is not bound.
    fn checkers_now(&self) -> Bitboard {
        if !self.bound(self.side) {
            return Bitboard::EMPTY;
        }
        self.attackers_to(!self.side, self.king_square(self.side), self.occupied())
    }

    /// `c`'s blockers from scratch: none when it is not bound (it has no pins).
    fn blockers_now(&self, c: Color) -> Bitboard {
        if !self.bound(c) {
            return Bitboard::EMPTY;
        }
        self.compute_blockers(c)
    }

    /// The board key computed from scratch (side to move included).
    pub fn compute_board_key(&self) -> u64 {
        let mut k = if self.side == Color::White { zobrist::SIDE_KEY } else { 0 };
        for sq in Square::ALL {
            let pc = self.board[sq.index()];
            if !pc.is_empty() {
                k ^= zobrist::psq(pc, sq.index());
            }
        }
        k
    }

    /// The hand key computed from scratch.
    pub fn compute_hand_key(&self) -> u64 {
        let mut k = 0u64;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                k = k.wrapping_add(zobrist::hand(c, pt).wrapping_mul(self.hands[c.index()].count(pt) as u64));
            }
        }
        k
    }

    // ---- queries ----

    /// The piece on `sq` (possibly `Piece::EMPTY`).
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }

    /// All pieces of colour `c`.
    #[inline(always)]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// All pieces of kind `pt`, both colours.
    #[inline(always)]
    pub fn pieces_of_type(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    /// Pieces of colour `c` and kind `pt`.
    #[inline(always)]
    pub fn pieces(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[c.index()]
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Pieces (both colours) that move like a gold.
    #[inline(always)]
    pub fn golds(&self) -> Bitboard {
        self.by_type[PieceType::Gold.index()]
            | self.by_type[PieceType::ProPawn.index()]
            | self.by_type[PieceType::ProLance.index()]
            | self.by_type[PieceType::ProKnight.index()]
            | self.by_type[PieceType::ProSilver.index()]
    }

    /// Bishops and horses, both colours.
    #[inline(always)]
    pub fn bishops_horses(&self) -> Bitboard {
        self.by_type[PieceType::Bishop.index()] | self.by_type[PieceType::Horse.index()]
    }

    /// Rooks and dragons, both colours.
    #[inline(always)]
    pub fn rooks_dragons(&self) -> Bitboard {
        self.by_type[PieceType::Rook.index()] | self.by_type[PieceType::Dragon.index()]
    }

    /// Kings, horses and dragons: the pieces with a king's one-step attacks.
    #[inline(always)]
    pub fn kings_horses_dragons(&self) -> Bitboard {
        self.by_type[PieceType::King.index()]
            | self.by_type[PieceType::Horse.index()]
            | self.by_type[PieceType::Dragon.index()]
    }

    /// The hand of colour `c`.
    #[inline(always)]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Sho shogi: the king-kind pieces that are princes (promoted elephants).
    #[inline(always)]
    pub fn princes(&self) -> Bitboard {
        self.princes
    }

    /// The game this position belongs to.
    #[inline(always)]
    pub fn variant(&self) -> VariantId {
        self.variant
    }

    /// The ply number of the next move, as in SFEN (1 at the start of a game).
    #[inline(always)]
    pub fn game_ply(&self) -> u32 {
        self.game_ply
    }

    /// The square of `c`'s king. `c` must have one (`has_king`): for a side without a king this
    /// is `Square::NONE`, no square of the board, and any table lookup with it panics.
    #[inline(always)]
    pub fn king_square(&self, c: Color) -> Square {
        self.king_sq[c.index()]
    }

    /// The current state.
    #[inline(always)]
    pub fn state(&self) -> &StateInfo {
        // The stack always holds the root state.
        self.states.last().expect("state stack is never empty")
    }

    /// The states from the root of the history (index 0) to now.
    pub fn states(&self) -> &[StateInfo] {
        &self.states
    }

    /// Pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.state().checkers
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.state().checkers.any()
    }

    /// The full position key (board, side and hands).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        let st = self.state();
        st.board_key ^ st.hand_key
    }

    /// The board key (board and side to move, not hands).
    #[inline(always)]
    pub fn board_key(&self) -> u64 {
        self.state().board_key
    }

    /// The pieces (either colour) that alone block a slider's line to `c`'s king.
    #[inline(always)]
    pub fn blockers_for_king(&self, c: Color) -> Bitboard {
        self.state().blockers[c.index()]
    }

    /// `c`'s pieces pinned to `c`'s king.
    #[inline(always)]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.state().blockers[c.index()] & self.by_color[c.index()]
    }

    /// The move that led to this position (`Move::NONE` at the root).
    #[inline(always)]
    pub fn last_move(&self) -> Move {
        self.state().last_move
    }

    /// The piece captured by the move that led here.
    #[inline(always)]
    pub fn captured_piece(&self) -> Piece {
        self.state().captured
    }

    /// Number of moves made since the position was set up.
    pub fn history_len(&self) -> usize {
        self.states.len() - 1
    }

    /// Pieces of colour `c` that attack `sq`, given the occupancy. Always inlined: called
    /// out of line it cost the mate-in-one screens of the search 51M instructions of `bench`
    /// (callgrind, 2026-11-24).
    #[inline(always)]
    pub fn attackers_to(&self, c: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        let them = !c;
        let own = self.by_color[c.index()];
        ((pawn_attacks(them, sq) & self.by_type[PieceType::Pawn.index()])
            | (knight_attacks(them, sq) & self.by_type[PieceType::Knight.index()])
            | (silver_attacks(them, sq) & self.by_type[PieceType::Silver.index()])
            | (gold_attacks(them, sq) & self.golds())
            | (king_attacks(sq) & self.kings_horses_dragons())
            | (lance_attacks(them, sq, occupied) & self.by_type[PieceType::Lance.index()])
            | (bishop_attacks(sq, occupied) & self.bishops_horses())
            | (rook_attacks(sq, occupied) & self.rooks_dragons())
            | self.elephants_attacking(them, sq))
            & own
    }

    /// The elephants (of either colour) that would attack `sq` if they were of colour `!them`
    /// (Sho shogi; nothing elsewhere, tested without a table lookup).
    #[inline(always)]
    fn elephants_attacking(&self, them: Color, sq: Square) -> Bitboard {
        let elephants = self.by_type[PieceType::Elephant.index()];
        if elephants.is_empty() {
            return Bitboard::EMPTY;
        }
        elephant_attacks(them, sq) & elephants
    }

    /// Pieces of both colours that attack `sq`, given the occupancy. The colour-blind
    /// attackers (kings, horses, dragons, bishops, rooks) are looked up once for both sides.
    #[inline]
    pub fn attackers_to_all(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        // A piece of colour c attacks `sq` from the squares a piece of the other colour on `sq`
        // would attack.
        let by_black = (pawn_attacks(Color::White, sq) & self.by_type[PieceType::Pawn.index()])
            | (knight_attacks(Color::White, sq) & self.by_type[PieceType::Knight.index()])
            | (silver_attacks(Color::White, sq) & self.by_type[PieceType::Silver.index()])
            | (gold_attacks(Color::White, sq) & self.golds())
            | (lance_attacks(Color::White, sq, occupied) & self.by_type[PieceType::Lance.index()]);
        let by_white = (pawn_attacks(Color::Black, sq) & self.by_type[PieceType::Pawn.index()])
            | (knight_attacks(Color::Black, sq) & self.by_type[PieceType::Knight.index()])
            | (silver_attacks(Color::Black, sq) & self.by_type[PieceType::Silver.index()])
            | (gold_attacks(Color::Black, sq) & self.golds())
            | (lance_attacks(Color::Black, sq, occupied) & self.by_type[PieceType::Lance.index()]);
        let by_black = by_black | self.elephants_attacking(Color::White, sq);
        let by_white = by_white | self.elephants_attacking(Color::Black, sq);
        let either = (king_attacks(sq) & self.kings_horses_dragons())
            | (bishop_attacks(sq, occupied) & self.bishops_horses())
            | (rook_attacks(sq, occupied) & self.rooks_dragons());
        (by_black & self.by_color[0]) | (by_white & self.by_color[1]) | either
    }

    /// Whether any piece of colour `c` attacks `sq`; cheap step pieces are tried first.
    #[inline]
    pub fn is_attacked(&self, c: Color, sq: Square, occupied: Bitboard) -> bool {
        self.is_attacked_by(c, self.by_color[c.index()], sq, occupied)
    }

    /// Whether any of `own` (pieces of colour `c`, say all but one that is about to move)
    /// attacks `sq` given the occupancy; cheap step pieces are tried first.
    #[inline(always)]
    pub fn is_attacked_by(&self, c: Color, own: Bitboard, sq: Square, occupied: Bitboard) -> bool {
        let them = !c;
        if ((pawn_attacks(them, sq) & self.by_type[PieceType::Pawn.index()])
            | (knight_attacks(them, sq) & self.by_type[PieceType::Knight.index()])
            | (silver_attacks(them, sq) & self.by_type[PieceType::Silver.index()])
            | (gold_attacks(them, sq) & self.golds())
            | (king_attacks(sq) & self.kings_horses_dragons())
            | self.elephants_attacking(them, sq))
            & own
            != Bitboard::EMPTY
        {
            return true;
        }
        let bishops = self.bishops_horses() & own;
        if (bishop_pseudo(sq) & bishops).any() && (bishop_attacks(sq, occupied) & bishops).any() {
            return true;
        }
        let rooks = self.rooks_dragons() & own;
        if (rook_pseudo(sq) & rooks).any() && (rook_attacks(sq, occupied) & rooks).any() {
            return true;
        }
        let lances = self.by_type[PieceType::Lance.index()] & own;
        (forward_ray(them, sq) & lances).any() && (lance_attacks(them, sq, occupied) & lances).any()
    }

    /// The squares of `targets` (squares next to `c`'s king) to which that king may step: those
    /// no enemy piece attacks once the king has left its square. Unlike `is_attacked` per
    /// square, the enemy's step attacks are gathered once: the pawns' in one shift, the other
    /// step pieces' only for the few standing near the king.
    pub fn king_flights(&self, c: Color, targets: Bitboard) -> Bitboard {
        // Common when generating captures: no enemy piece next to the king.
        if targets.is_empty() {
            return Bitboard::EMPTY;
        }
        if c == Color::Black {
            self.king_flights_of::<true>(targets)
        } else {
            self.king_flights_of::<false>(targets)
        }
    }

    /// `king_flights` for Black's king (`BLACK`) or White's: one copy per colour, so that the
    /// colour's table rows are constants.
    fn king_flights_of<const BLACK: bool>(&self, targets: Bitboard) -> Bitboard {
        let c = if BLACK { Color::Black } else { Color::White };
        let them = !c;
        let ksq = self.king_sq[c.index()];
        let enemy = self.by_color[them.index()];
        let pawns = self.by_type[PieceType::Pawn.index()] & enemy;
        let mut attacked = if them == Color::Black { pawns.shift_north() } else { pawns.shift_south() };
        // Most of the time no enemy piece stands near the king at all.
        for from in (enemy & near(ksq)).and_not(pawns | self.by_type[PieceType::Lance.index()]) {
            attacked |= match self.board[from.index()].kind() {
                PieceType::Knight => knight_attacks(them, from),
                PieceType::Silver => silver_attacks(them, from),
                PieceType::Bishop | PieceType::Rook => Bitboard::EMPTY,
                PieceType::King | PieceType::Horse | PieceType::Dragon => king_attacks(from),
                PieceType::Elephant => elephant_attacks(them, from),
                _ => gold_attacks(them, from),
            };
        }
        let occ = self.occupied() ^ ksq;
        let bishops = self.bishops_horses() & enemy;
        let rooks = self.rooks_dragons() & enemy;
        let lances = self.by_type[PieceType::Lance.index()] & enemy;
        let mut flights = Bitboard::EMPTY;
        for sq in targets.and_not(attacked) {
            let attacked = ((bishop_pseudo(sq) & bishops).any() && (bishop_attacks(sq, occ) & bishops).any())
                || ((rook_pseudo(sq) & rooks).any() && (rook_attacks(sq, occ) & rooks).any())
                || ((forward_ray(c, sq) & lances).any() && (lance_attacks(c, sq, occ) & lances).any());
            if !attacked {
                flights |= sq;
            }
        }
        flights
    }

    /// The pieces that alone stand between `c`'s king and an enemy slider aimed at it.
    fn compute_blockers(&self, c: Color) -> Bitboard {
        let ksq = self.king_sq[c.index()];
        let them = self.by_color[(!c).index()];
        let snipers = ((bishop_pseudo(ksq) & self.bishops_horses())
            | (rook_pseudo(ksq) & self.rooks_dragons())
            | (forward_ray(c, ksq) & self.by_type[PieceType::Lance.index()]))
            & them;
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.any() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// `c`'s blockers after `m` was played, given those before (`prev`). A move that neither
    /// leaves nor lands on a line through `c`'s king (and is not that king's move) changes
    /// neither the occupancy of those lines nor the sliders on them, so the blockers stay.
    #[inline(always)]
    fn blockers_after(&self, c: Color, m: Move, prev: Bitboard) -> Bitboard {
        let ksq = self.king_sq[c.index()];
        let lines = rook_pseudo(ksq) | bishop_pseudo(ksq);
        let touched =
            if m.is_drop() { Bitboard::from_square(m.to()) } else { Bitboard::from_square(m.to()) | m.from() };
        if (lines & touched).is_empty() && m.piece_after() != Piece::new(c, PieceType::King) {
            prev
        } else {
            self.compute_blockers(c)
        }
    }

    // ---- making and unmaking moves ----

    /// Plays a legal move. `m` must be legal here (from the generator or `parse_usi_move`).
    pub fn do_move(&mut self, m: Move) {
        if self.slow {
            return self.do_move_slow(m);
        }
        self.do_move_std::<false>(m);
    }

    /// `do_move` off the fast path: Sho shogi's, or shogi's with a side that has no king.
    #[cold]
    #[inline(never)]
    fn do_move_slow(&mut self, m: Move) {
        if self.pseudo_royal() {
            self.do_move_sho(m)
        } else {
            self.do_move_std::<true>(m)
        }
    }

    /// `do_move` in shogi and Minishogi. `KINGLESS`: a side has no king, so the checkers and
    /// pins are computed from scratch (`checkers_now`, `blockers_now`: none for that side)
    /// rather than by the shortcuts that read both kings' squares.
    #[inline(always)]
    fn do_move_std<const KINGLESS: bool>(&mut self, m: Move) {
        let us = self.side;
        let prev = *self.state();
        let mut st = prev;
        st.captured = Piece::EMPTY;
        st.last_move = m;
        st.plies_from_null = prev.plies_from_null.saturating_add(1);
        let to = m.to();
        let moved = m.piece_after();
        if m.is_drop() {
            let pt = m.dropped();
            self.hands[us.index()].remove(pt);
            st.hand_key = st.hand_key.wrapping_sub(zobrist::hand(us, pt));
            self.put_piece(moved, to);
            st.board_key ^= zobrist::psq(moved, to.index());
        } else {
            let from = m.from();
            let before = self.board[from.index()];
            let captured = self.board[to.index()];
            if !captured.is_empty() {
                let hpt = captured.kind().unpromoted();
                self.remove_piece(captured, to);
                self.hands[us.index()].add(hpt);
                st.hand_key = st.hand_key.wrapping_add(zobrist::hand(us, hpt));
                st.board_key ^= zobrist::psq(captured, to.index());
                st.captured = captured;
            }
            self.remove_piece(before, from);
            self.put_piece(moved, to);
            st.board_key ^= zobrist::psq(before, from.index()) ^ zobrist::psq(moved, to.index());
        }
        st.board_key ^= zobrist::SIDE_KEY;
        self.side = !us;
        self.game_ply += 1;
        let them = self.side;
        st.checkers = if KINGLESS { self.checkers_now() } else { self.checkers_after(m, prev.blockers[them.index()]) };
        st.continuous_check[us.index()] =
            if st.checkers.any() { prev.continuous_check[us.index()].saturating_add(2) } else { 0 };
        st.blockers = if KINGLESS {
            [self.blockers_now(Color::Black), self.blockers_now(Color::White)]
        } else {
            [
                self.blockers_after(Color::Black, m, prev.blockers[0]),
                self.blockers_after(Color::White, m, prev.blockers[1]),
            ]
        };
        st.hand = self.hands[them.index()];
        self.states.push(st);
    }

    /// `do_move` in Sho shogi: no hands, princes carried along, and the royal state (royal
    /// squares, checkers, pins) computed from scratch. Not the incremental shortcuts: a capture
    /// that leaves the opponent one royal can put it in check from anywhere, even twice. Sho's
    /// speed matters less than plain correctness here.
    #[cold]
    #[inline(never)]
    fn do_move_sho(&mut self, m: Move) {
        let us = self.side;
        let prev = *self.state();
        let mut st = prev;
        st.captured = Piece::EMPTY;
        st.captured_prince = false;
        st.last_move = m;
        st.plies_from_null = prev.plies_from_null.saturating_add(1);
        let (from, to, moved) = (m.from(), m.to(), m.piece_after());
        let before = self.board[from.index()];
        let captured = self.board[to.index()];
        if !captured.is_empty() {
            self.remove_piece(captured, to);
            st.board_key ^= zobrist::psq(captured, to.index());
            st.captured = captured;
            if self.princes.contains(to) {
                self.princes ^= to;
                st.captured_prince = true;
            }
        }
        self.remove_piece(before, from);
        self.put_piece(moved, to);
        st.board_key ^= zobrist::psq(before, from.index()) ^ zobrist::psq(moved, to.index());
        if self.princes.contains(from) {
            self.princes = (self.princes ^ from) | to;
        } else if m.is_promotion() && moved.kind() == PieceType::King {
            self.princes |= to;
        }
        st.board_key ^= zobrist::SIDE_KEY;
        self.side = !us;
        self.game_ply += 1;
        self.refresh_royals();
        st.checkers = self.checkers_now();
        st.continuous_check[us.index()] =
            if st.checkers.any() { prev.continuous_check[us.index()].saturating_add(2) } else { 0 };
        st.blockers = [self.blockers_now(Color::Black), self.blockers_now(Color::White)];
        st.hand = self.hands[self.side.index()];
        self.states.push(st);
    }

    /// `undo_move` in Sho shogi.
    #[cold]
    #[inline(never)]
    fn undo_move_sho(&mut self, m: Move) {
        let st = self.states.pop().expect("undo_move without a move");
        debug_assert!(st.last_move == m);
        self.side = !self.side;
        self.game_ply -= 1;
        let us = self.side;
        let (from, to, moved) = (m.from(), m.to(), m.piece_after());
        self.remove_piece(moved, to);
        let before = if m.is_promotion() { Piece::new(us, moved.kind().demoted()) } else { moved };
        self.put_piece(before, from);
        if self.princes.contains(to) {
            // Our prince moved back to `from`, or our promotion is taken back.
            self.princes ^= to;
            if !m.is_promotion() {
                self.princes |= from;
            }
        }
        if !st.captured.is_empty() {
            self.put_piece(st.captured, to);
            if st.captured_prince {
                self.princes |= to;
            }
        }
        self.refresh_royals();
    }

    /// The pieces checking the side to move right after `m` was played (`them_blockers`: the
    /// blockers of that side's king before the move). Only the moved piece can check directly
    /// and only a slider it uncovered can check otherwise; the full attacker scan is kept for
    /// the rare uncovering move.
    #[inline(always)]
    fn checkers_after(&self, m: Move, them_blockers: Bitboard) -> Bitboard {
        let us = !self.side;
        let ksq = self.king_sq[self.side.index()];
        let occ = self.occupied();
        let to = m.to();
        if !m.is_drop() && them_blockers.contains(m.from()) && !aligned(ksq, m.from(), to) {
            return self.attackers_to(us, ksq, occ);
        }
        // A piece checks from near the king or from one of its lines; most moves land elsewhere.
        let reach = near(ksq) | rook_pseudo(ksq) | bishop_pseudo(ksq);
        if reach.contains(to) && attacks_of(us, m.piece_after().kind(), to, occ).contains(ksq) {
            Bitboard::from_square(to)
        } else {
            Bitboard::EMPTY
        }
    }

    /// Takes back `m`, which must be the last move played.
    pub fn undo_move(&mut self, m: Move) {
        if self.pseudo_royal() {
            return self.undo_move_sho(m);
        }
        let st = self.states.pop().expect("undo_move without a move");
        debug_assert!(st.last_move == m);
        self.side = !self.side;
        self.game_ply -= 1;
        let us = self.side;
        let to = m.to();
        let moved = m.piece_after();
        self.remove_piece(moved, to);
        if m.is_drop() {
            self.hands[us.index()].add(m.dropped());
        } else {
            let before = if m.is_promotion() { Piece::new(us, moved.kind().unpromoted()) } else { moved };
            self.put_piece(before, m.from());
            if !st.captured.is_empty() {
                self.put_piece(st.captured, to);
                self.hands[us.index()].remove(st.captured.kind().unpromoted());
            }
        }
    }

    /// Passes the turn (for null-move pruning); the side to move must not be in check.
    pub fn do_null_move(&mut self) {
        let mut st = *self.state();
        st.board_key ^= zobrist::SIDE_KEY;
        st.captured = Piece::EMPTY;
        st.last_move = Move::NULL;
        st.plies_from_null = 0;
        st.checkers = Bitboard::EMPTY;
        self.side = !self.side;
        self.game_ply += 1;
        st.hand = self.hands[self.side.index()];
        self.states.push(st);
    }

    /// Takes back a null move.
    pub fn undo_null_move(&mut self) {
        self.states.pop();
        self.side = !self.side;
        self.game_ply -= 1;
    }

    #[inline(always)]
    fn remove_piece(&mut self, pc: Piece, sq: Square) {
        self.board[sq.index()] = Piece::EMPTY;
        let b = Bitboard::from_square(sq);
        self.by_type[pc.kind().index()] ^= b;
        self.by_color[pc.color().index()] ^= b;
    }

    /// The key the position would have after `m` (for prefetching the transposition table).
    pub fn key_after(&self, m: Move) -> u64 {
        let us = self.side;
        let st = self.state();
        let mut bk = st.board_key ^ zobrist::SIDE_KEY;
        let mut hk = st.hand_key;
        let to = m.to();
        if m.is_drop() {
            hk = hk.wrapping_sub(zobrist::hand(us, m.dropped()));
            bk ^= zobrist::psq(m.piece_after(), to.index());
        } else {
            let from = m.from();
            let captured = self.board[to.index()];
            if !captured.is_empty() {
                // Sho shogi has no hands.
                if !self.pseudo_royal() {
                    hk = hk.wrapping_add(zobrist::hand(us, captured.kind().unpromoted()));
                }
                bk ^= zobrist::psq(captured, to.index());
            }
            bk ^= zobrist::psq(self.board[from.index()], from.index()) ^ zobrist::psq(m.piece_after(), to.index());
        }
        bk ^ hk
    }

    /// Whether `m` (legal here) gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        if self.slow {
            return self.gives_check_slow(m);
        }
        self.gives_check_std(m)
    }

    /// `gives_check` off the fast path: Sho shogi's, or no check at all against a side without
    /// a king.
    #[cold]
    #[inline(never)]
    fn gives_check_slow(&self, m: Move) -> bool {
        if self.pseudo_royal() {
            self.gives_check_sho(m)
        } else {
            self.has_king(!self.side) && self.gives_check_std(m)
        }
    }

    /// `gives_check` in shogi and Minishogi, the opponent having a king.
    #[inline(always)]
    fn gives_check_std(&self, m: Move) -> bool {
        let us = self.side;
        let ksq = self.king_sq[(!us).index()];
        let to = m.to();
        let pc = m.piece_after();
        // A piece checks from near the king or from one of its lines; most moves land elsewhere.
        let reach = near(ksq) | rook_pseudo(ksq) | bishop_pseudo(ksq);
        if m.is_drop() {
            let occ = self.occupied() | to;
            return reach.contains(to) && attacks_of(us, pc.kind(), to, occ).contains(ksq);
        }
        let from = m.from();
        let occ = (self.occupied() ^ from) | to;
        if reach.contains(to) && attacks_of(us, pc.kind(), to, occ).contains(ksq) {
            return true;
        }
        // Discovered check: the mover uncovered one of our sliders aimed at their king.
        (self.blockers_for_king(!us) & self.by_color[us.index()]).contains(from) && !aligned(from, to, ksq)
    }

    /// `gives_check` in Sho shogi: after `m` the opponent is bound (it had one royal, or `m`
    /// takes one of its two) and its royal is attacked, by the moved piece or by any other
    /// (a capture that binds it can expose it to pieces that never moved).
    #[cold]
    #[inline(never)]
    fn gives_check_sho(&self, m: Move) -> bool {
        let us = self.side;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        let royals = self.pieces(them, PieceType::King).and_not(Bitboard::from_square(to));
        if royals.is_empty() || royals.more_than_one() {
            return false;
        }
        let royal = royals.lsb();
        let occ = (self.occupied() ^ from) | to;
        let others = self.attackers_to(us, royal, occ).and_not(Bitboard::from_square(from));
        others.any() || attacks_of(us, m.piece_after().kind(), to, occ).contains(royal)
    }

    /// Whether a move of the side to move captures something or promotes.
    #[inline(always)]
    pub fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && !self.board[m.to().index()].is_empty()
    }

    /// Checks the internal consistency of the position; used by tests.
    pub fn is_consistent(&self) -> Result<(), String> {
        let mut by_type = [Bitboard::EMPTY; PIECE_TYPE_NB];
        let mut by_color = [Bitboard::EMPTY; 2];
        for sq in Square::ALL {
            let pc = self.board[sq.index()];
            if !pc.is_empty() {
                by_type[pc.kind().index()] |= Bitboard::from_square(sq);
                by_color[pc.color().index()] |= Bitboard::from_square(sq);
            }
        }
        if by_type != self.by_type || by_color != self.by_color {
            return Err("bitboards disagree with the board".into());
        }
        if self.occupied().and_not(self.variant.desc().board).any() {
            return Err(format!("a piece stands off the {} board", self.variant));
        }
        for c in Color::ALL {
            if !self.has_king(c) {
                if self.pseudo_royal() || self.pieces(c, PieceType::King).any() {
                    return Err("a king on the board is recorded as missing".into());
                }
                continue;
            }
            if self.board[self.king_sq[c.index()].index()] != Piece::new(c, PieceType::King) {
                return Err("king square is stale".into());
            }
            let royals = self.pieces(c, PieceType::King);
            if self.pseudo_royal() && royals.more_than_one() && self.princes.contains(self.king_sq[c.index()]) {
                return Err("with two royals the king square is the prince's".into());
            }
        }
        if self.princes.and_not(self.by_type[PieceType::King.index()]).any() {
            return Err("a prince that is not a king-kind piece".into());
        }
        let st = self.state();
        if st.board_key != self.compute_board_key() || st.hand_key != self.compute_hand_key() {
            return Err("incremental key differs from the key computed from scratch".into());
        }
        if st.checkers != self.checkers_now() {
            return Err("checkers are stale".into());
        }
        if st.blockers != [self.blockers_now(Color::Black), self.blockers_now(Color::White)] {
            return Err("blockers are stale".into());
        }
        let slow = self.pseudo_royal() || !self.has_king(Color::Black) || !self.has_king(Color::White);
        if self.slow != slow {
            return Err("the slow-path flag is stale".into());
        }
        Ok(())
    }
}
