//! The inputs of a YaneuraOu net: Bonanza's piece numbering (`BonaPiece`) and the HalfKP and
//! K-P feature indexes built on it, exactly as YaneuraOu numbers them (`evaluate.h:150-226`,
//! `evaluate_bona_piece.cpp:67-149`, `features/half_kp.cpp`, `k.cpp`, `p.cpp`).
//!
//! - **Perspectives.** Each side sees the board from its own seat: Black as it is, White
//!   rotated 180 degrees (`Square::flip`, YaneuraOu's `Inv`) with "own" and "enemy" swapped.
//! - **BonaPiece.** A piece on the board is its plane (own or enemy, by kind; promoted pawn,
//!   lance, knight and silver share the gold planes) plus the square in that view. The i-th
//!   piece (1-based) of a kind in a hand is that hand's block start plus i - 1: a thermometer.
//!   Kings are `F_KING`/`E_KING` plus the square (HalfKP uses them only for the king square).
//! - **HalfKP.** `FE_END * king + bp` for the 38 non-king pieces, `king` being the
//!   perspective's own king square in its view. A game with fewer pieces (a handicap) leaves
//!   the missing pieces' slots at `BONA_PIECE_ZERO`, and YaneuraOu still adds their rows: the
//!   feature `FE_END * king + 0` once for every missing piece.
//! - **K-P.** The BonaPiece itself, kings included: `F_KING + sq` for the own king and
//!   `E_KING + sq` for the enemy's (`feature_set.h` puts K after P's 1548 inputs).
//! - **A missing king** (a tsume's attacker; Kaname's convention, the nets' format has none):
//!   HalfKP takes it to stand on its home centre square (`home_king`), 38 inputs
//!   as ever; K-P gives it no input, so 39 are active instead of 40. Placing it anywhere in K-P
//!   would tell the net of a king that is not there; leaving its row out is the net's reading
//!   of "no king" closest to its training, where the row is always one king's.

use super::shape::FE_END;
use engine::{Color, Piece, PieceType, Position, Square};

/// A piece's Bonanza number in one perspective's view.
pub type BonaPiece = u16;

/// The empty slot of a missing piece.
pub const BONA_PIECE_ZERO: BonaPiece = 0;
/// Non-king pieces of a full game: the slots of YaneuraOu's piece list (`PIECE_NUMBER_KING`).
pub const PIECE_SLOTS: usize = 38;
/// The own king's plane (`f_king`).
pub const F_KING: BonaPiece = FE_END as BonaPiece;
/// The enemy king's plane (`e_king`).
pub const E_KING: BonaPiece = F_KING + 81;

/// `(own, enemy)` start of each kind's board plane, by `PieceType as usize`
/// (`kpp_board_index`; promoted minor pieces use the gold planes).
const BOARD_PLANE: [(u16, u16); 16] = {
    let mut t = [(0, 0); 16];
    let (pawn, lance, knight, silver, gold, bishop, horse, rook, dragon) = (
        (90, 171),
        (252, 333),
        (414, 495),
        (576, 657),
        (738, 819),
        (900, 981),
        (1062, 1143),
        (1224, 1305),
        (1386, 1467),
    );
    t[PieceType::Pawn as usize] = pawn;
    t[PieceType::Lance as usize] = lance;
    t[PieceType::Knight as usize] = knight;
    t[PieceType::Silver as usize] = silver;
    t[PieceType::Gold as usize] = gold;
    t[PieceType::Bishop as usize] = bishop;
    t[PieceType::Rook as usize] = rook;
    t[PieceType::King as usize] = (F_KING, E_KING);
    t[PieceType::ProPawn as usize] = gold;
    t[PieceType::ProLance as usize] = gold;
    t[PieceType::ProKnight as usize] = gold;
    t[PieceType::ProSilver as usize] = gold;
    t[PieceType::Horse as usize] = horse;
    t[PieceType::Dragon as usize] = dragon;
    t
};

/// `(own, enemy)` start of each kind's hand block, by `PieceType as usize`
/// (`kpp_hand_index`; the first piece held is the start itself).
const HAND_BLOCK: [(u16, u16); 16] = {
    let mut t = [(0, 0); 16];
    t[PieceType::Pawn as usize] = (1, 20);
    t[PieceType::Lance as usize] = (39, 44);
    t[PieceType::Knight as usize] = (49, 54);
    t[PieceType::Silver as usize] = (59, 64);
    t[PieceType::Gold as usize] = (69, 74);
    t[PieceType::Bishop as usize] = (79, 82);
    t[PieceType::Rook as usize] = (85, 88);
    t
};

/// Where HalfKP takes a missing king (a tsume's attacker) to stand: its home centre square,
/// 5i for Black and 5a for White, 5i in its own view. The format has no place for a missing
/// king, so this is Kaname's choice: the commonest king square of the positions nets are
/// trained on, so the pieces' weights are those the net knows best.
#[inline(always)]
pub fn home_king(c: Color) -> Square {
    orient(c, Square::from_coords(4, 8))
}

/// `sq` in `view`'s seat.
#[inline(always)]
pub fn orient(view: Color, sq: Square) -> Square {
    if view == Color::Black {
        sq
    } else {
        sq.flip()
    }
}

/// The BonaPiece of `pc` on `sq` seen by `view` (kings included).
#[inline(always)]
pub fn board(view: Color, pc: Piece, sq: Square) -> BonaPiece {
    let (own, enemy) = BOARD_PLANE[pc.kind() as usize];
    let plane = if pc.color() == view { own } else { enemy };
    plane + orient(view, sq).index() as u16
}

/// The BonaPiece of the `nth` (1-based) piece of kind `pt` in `owner`'s hand, seen by `view`.
#[inline(always)]
pub fn hand(view: Color, owner: Color, pt: PieceType, nth: u32) -> BonaPiece {
    debug_assert!(nth >= 1);
    let (own, enemy) = HAND_BLOCK[pt as usize];
    (if owner == view { own } else { enemy }) + nth as u16 - 1
}

/// Calls `f` with the BonaPiece, seen by `view`, of every non-king piece of `pos` (board,
/// then hands), and returns how many there were.
#[inline]
pub fn for_each_piece(pos: &Position, view: Color, mut f: impl FnMut(BonaPiece)) -> usize {
    let mut n = 0;
    let kings = pos.pieces_of_type(PieceType::King);
    for sq in pos.occupied().and_not(kings) {
        f(board(view, pos.piece_on(sq), sq));
        n += 1;
    }
    for owner in Color::ALL {
        let h = pos.hand(owner);
        for pt in PieceType::HAND {
            for nth in 1..=h.count(pt) {
                f(hand(view, owner, pt, nth));
                n += 1;
            }
        }
    }
    n
}

/// Non-king pieces of `pos`, on the board and in hand (38 in a full game).
#[inline]
pub fn piece_count(pos: &Position) -> usize {
    let on_board = pos.occupied().and_not(pos.pieces_of_type(PieceType::King)).count() as usize;
    let in_hand: u32 =
        Color::ALL.iter().map(|&c| PieceType::HAND.iter().map(|&pt| pos.hand(c).count(pt)).sum::<u32>()).sum();
    on_board + in_hand as usize
}

/// How a feature set turns a perspective's BonaPieces into input indexes.
pub trait Features: Copy + Send + Sync + 'static {
    /// Most active inputs of one perspective.
    const MAX_ACTIVE: usize;
    /// Whether a move of the perspective's own king changes every input (HalfKP: the king
    /// square is part of every index), so the accumulator is recomputed rather than updated.
    const KING_REFRESH: bool;

    /// The base added to a BonaPiece for perspective `view` of `pos`.
    fn base(pos: &Position, view: Color) -> usize;

    /// Calls `f` with every active input of `view` in `pos`: each piece's index, an index for
    /// each missing piece's empty slot, and (K-P) the kings'.
    fn for_each_active(pos: &Position, view: Color, f: impl FnMut(usize));
}

/// HalfKP(Friend).
#[derive(Clone, Copy, Debug)]
pub struct HalfKP;

impl Features for HalfKP {
    const MAX_ACTIVE: usize = PIECE_SLOTS;
    const KING_REFRESH: bool = true;

    /// A perspective without a king (a tsume's attacker) takes it to stand on its home centre
    /// square, 5i in its own view (`home_king`).
    #[inline(always)]
    fn base(pos: &Position, view: Color) -> usize {
        FE_END * orient(view, pos.king_square_opt(view).unwrap_or(home_king(view))).index()
    }

    #[inline]
    fn for_each_active(pos: &Position, view: Color, mut f: impl FnMut(usize)) {
        let base = Self::base(pos, view);
        let n = for_each_piece(pos, view, |bp| f(base + bp as usize));
        for _ in n..PIECE_SLOTS {
            f(base + BONA_PIECE_ZERO as usize);
        }
    }
}

/// K-P: a piece's index is its BonaPiece, and the two kings are inputs too.
#[derive(Clone, Copy, Debug)]
pub struct KP;

impl Features for KP {
    const MAX_ACTIVE: usize = PIECE_SLOTS + 2;
    const KING_REFRESH: bool = false;

    #[inline(always)]
    fn base(_: &Position, _: Color) -> usize {
        0
    }

    #[inline]
    fn for_each_active(pos: &Position, view: Color, mut f: impl FnMut(usize)) {
        let n = for_each_piece(pos, view, |bp| f(bp as usize));
        for _ in n..PIECE_SLOTS {
            f(BONA_PIECE_ZERO as usize);
        }
        // A missing king (a tsume's attacker) is no input: 39 active then, not 40.
        for c in Color::ALL {
            if let Some(k) = pos.king_square_opt(c) {
                f(board(view, Piece::new(c, PieceType::King), k) as usize);
            }
        }
    }
}

/// The BonaPiece changes of a move, recorded before it is made (both views at once): at
/// most two pieces change, each from an old to a new BonaPiece (a capture: the mover, and the
/// captured piece going to the capturer's hand). A king's own move is one of them for K-P;
/// HalfKP leaves kings out and refreshes the mover's view instead.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Changes {
    /// `old[i][view]`, `new[i][view]` for the `n` changed pieces.
    pub old: [[BonaPiece; 2]; 2],
    /// The pieces' BonaPieces after the move.
    pub new: [[BonaPiece; 2]; 2],
    /// Pieces changed (0 for a null move).
    pub n: u8,
    /// Whether the move was the mover's king's (for HalfKP its view must be recomputed).
    pub king_moved: bool,
}

impl Changes {
    /// No change (a null move).
    pub const NONE: Changes = Changes { old: [[0; 2]; 2], new: [[0; 2]; 2], n: 0, king_moved: false };

    /// The changes of `m`, about to be made in `pos`. `with_kings`: whether a king's
    /// move is itself a change (K-P) or not (HalfKP).
    #[inline]
    pub fn of_move(pos: &Position, m: engine::Move, with_kings: bool) -> Changes {
        let us = pos.side_to_move();
        let to = m.to();
        let mut c = Changes::NONE;
        let both = |f: &dyn Fn(Color) -> BonaPiece| [f(Color::Black), f(Color::White)];
        if m.is_drop() {
            let pt = m.dropped();
            let nth = pos.hand(us).count(pt);
            c.push(both(&|v| hand(v, us, pt, nth)), both(&|v| board(v, Piece::new(us, pt), to)));
            return c;
        }
        let from = m.from();
        let moved = pos.piece_on(from);
        c.king_moved = moved.kind() == PieceType::King;
        if !c.king_moved || with_kings {
            let after = m.piece_after();
            c.push(both(&|v| board(v, moved, from)), both(&|v| board(v, after, to)));
        }
        let captured = pos.piece_on(to);
        if !captured.is_empty() {
            let pt = captured.kind().unpromoted();
            let nth = pos.hand(us).count(pt) + 1;
            c.push(both(&|v| board(v, captured, to)), both(&|v| hand(v, us, pt, nth)));
        }
        c
    }

    fn push(&mut self, old: [BonaPiece; 2], new: [BonaPiece; 2]) {
        self.old[self.n as usize] = old;
        self.new[self.n as usize] = new;
        self.n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbering's fixed points, against `evaluate.h`'s enumeration.
    #[test]
    fn bona_piece_numbering() {
        let b = Color::Black;
        let w = Color::White;
        // 1a is square 0, 9i square 80; White sees them rotated.
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(board(b, Piece::new(b, PieceType::Pawn), sq("1a")), 90);
        assert_eq!(board(w, Piece::new(b, PieceType::Pawn), sq("1a")), 171 + 80);
        assert_eq!(board(b, Piece::new(w, PieceType::Dragon), sq("9i")), 1467 + 80);
        assert_eq!(board(w, Piece::new(w, PieceType::Dragon), sq("9i")), 1386);
        assert_eq!(board(b, Piece::new(b, PieceType::ProSilver), sq("5e")), 738 + 40);
        assert_eq!(board(b, Piece::new(b, PieceType::King), sq("5i")), 1548 + 44);
        assert_eq!(board(b, Piece::new(w, PieceType::King), sq("5a")), 1629 + 36);
        assert_eq!(hand(b, b, PieceType::Pawn, 1), 1);
        assert_eq!(hand(b, b, PieceType::Pawn, 18), 18);
        assert_eq!(hand(w, b, PieceType::Pawn, 1), 20);
        assert_eq!(hand(b, w, PieceType::Rook, 2), 89);
        assert_eq!(hand(w, w, PieceType::Gold, 4), 72);
        // The last BonaPiece of a board piece is the last input below the kings.
        assert_eq!(board(b, Piece::new(w, PieceType::Dragon), sq("9i")) as usize, FE_END - 1);
    }

    /// A missing king (a tsume's attacker): HalfKP sees its side from a king on its home centre
    /// square (38 inputs as ever), K-P has no input for it (39, not 40).
    #[test]
    fn a_missing_king() {
        let pos = engine::Position::from_sfen("7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1").unwrap();
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(home_king(Color::Black), sq("5i"));
        assert_eq!(home_king(Color::White), sq("5a"));
        assert_eq!(HalfKP::base(&pos, Color::Black), FE_END * sq("5i").index());
        assert_eq!(HalfKP::base(&pos, Color::White), FE_END * orient(Color::White, sq("2c")).index());
        for view in Color::ALL {
            let mut h = Vec::new();
            HalfKP::for_each_active(&pos, view, |f| h.push(f));
            assert_eq!(h.len(), 38);
            let mut k = Vec::new();
            KP::for_each_active(&pos, view, |f| k.push(f));
            assert_eq!(k.len(), 39);
            // The only king input is White's king on 2c.
            let kings: Vec<usize> = k.iter().copied().filter(|&f| f >= F_KING as usize).collect();
            assert_eq!(kings, vec![board(view, Piece::new(Color::White, PieceType::King), sq("2c")) as usize]);
        }
    }

    /// A full game activates 38 distinct HalfKP inputs and 40 K-P inputs per view; a handicap
    /// game repeats the empty slot's input once per missing piece.
    #[test]
    fn active_inputs() {
        let full = engine::Position::startpos();
        let two_piece =
            engine::Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        for view in Color::ALL {
            let mut v = Vec::new();
            HalfKP::for_each_active(&full, view, |f| v.push(f));
            assert_eq!(v.len(), 38);
            v.sort();
            v.dedup();
            assert_eq!(v.len(), 38);
            let mut k = Vec::new();
            KP::for_each_active(&full, view, |f| k.push(f));
            assert_eq!(k.len(), 40);
            assert!(k.iter().all(|&f| f < 1710));
            let mut h = Vec::new();
            HalfKP::for_each_active(&two_piece, view, |f| h.push(f));
            let base = HalfKP::base(&two_piece, view);
            assert_eq!(h.len(), 38);
            assert_eq!(h.iter().filter(|&&f| f == base).count(), 2);
        }
    }
}
