//! The input features of Kaname's network, "HalfKB": for each side's point of view (its
//! *perspective*), every piece on the board and in hand, placed relative to that side, within
//! one of `KING_BUCKETS` coarse regions of that side's own king.
//!
//! - **Orientation.** A perspective sees the board as Black does: for White the board is
//!   rotated 180 degrees and the colours are exchanged, so "own" pieces always move up the
//!   board. Both perspectives therefore share one weight table.
//! - **Mirroring.** Shogi's rules are left-right symmetric, so when the perspective's king
//!   stands on files 6-9 (file index > 4) the board is mirrored (file index f -> 8 - f) and the
//!   king always stands on files 1-5 of its view. That halves the king placements the data
//!   must fill.
//! - **King buckets.** The mirrored king's file (1-2, 3-4, 5) times its rank (home rank, the
//!   rank above it, anywhere else): 9 buckets. HalfKP's 81 king squares would need far more
//!   positions than a first round of self-play gives (1.45 M); a castle's king rarely leaves
//!   these regions, and within a bucket the exact king square is still seen through the own
//!   king's own board feature. The trainer also learns a bucket-independent copy of every
//!   weight (a factor) and folds it into each bucket when the net is written, so a bucket the
//!   data rarely reaches still gets the shared knowledge.
//! - **Board pieces.** 28 planes (own and enemy, 14 kinds each, the perspective's own king
//!   included) of 81 squares.
//! - **Pieces in hand.** One feature per piece held: "the k-th pawn in own hand" for k = 1..n
//!   when n pawns are held (a thermometer by count), so every one of the 40 pieces of the game
//!   activates exactly one feature, and a capture or a drop changes exactly one hand feature.
//!
//! So every position activates exactly 40 features per perspective (`ACTIVE_FEATURES`); a
//! handicap game fewer, and a tsume without the attacker's king 39 (the missing king has no
//! board feature, and its side's view is that of a king on its home centre square, `View::of`).

use engine::{Color, Piece, PieceType, Position, Square};

/// Number of king buckets.
pub const KING_BUCKETS: usize = 9;
/// Board-piece planes: own and enemy, 14 kinds each.
const BOARD_PLANES: usize = 28;
/// Board features per bucket.
const BOARD_FEATURES: usize = BOARD_PLANES * 81;
/// Most pieces of each hand kind one side can hold, in `PieceType::HAND` order (P L N S B R G).
pub const HAND_MAX: [usize; 7] = [18, 4, 4, 4, 2, 2, 4];
/// Hand features of one colour: the sum of `HAND_MAX`.
const HAND_FEATURES_PER_COLOR: usize = 38;
/// Features per king bucket: board pieces, then own hand, then enemy hand.
pub const FEATURES_PER_BUCKET: usize = BOARD_FEATURES + 2 * HAND_FEATURES_PER_COLOR;
/// All features (the rows of the first layer).
pub const NUM_FEATURES: usize = KING_BUCKETS * FEATURES_PER_BUCKET;
/// Features active in every position, per perspective: one per piece of the game.
pub const ACTIVE_FEATURES: usize = 40;

/// Start of each hand kind's features within one colour's hand block (`PieceType::HAND` order).
const HAND_OFFSET: [usize; 7] = {
    let mut t = [0; 7];
    let mut i = 1;
    while i < 7 {
        t[i] = t[i - 1] + HAND_MAX[i - 1];
        i += 1;
    }
    t
};

/// Position of each hand kind in `PieceType::HAND` (indexed by `PieceType as usize`).
const HAND_SLOT: [usize; 16] = {
    let mut t = [usize::MAX; 16];
    let mut i = 0;
    while i < 7 {
        t[PieceType::HAND[i] as usize] = i;
        i += 1;
    }
    t
};

/// How one perspective sees the board: its colour, whether its view is mirrored, and the
/// feature offset of its king bucket. Fixed while that side's king stays in the same bucket
/// on the same side of the board, so incremental updates only need it recomputed after a
/// king move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct View {
    /// The perspective.
    pub color: Color,
    /// Whether files are mirrored in this view.
    pub mirrored: bool,
    /// `bucket * FEATURES_PER_BUCKET`.
    pub base: usize,
}

impl View {
    /// The view of `color` with its king on `king` (a board square).
    #[inline]
    pub fn new(color: Color, king: Square) -> View {
        let k = orient(color, king);
        let mirrored = k.file() > 4;
        let k = if mirrored { mirror(k) } else { k };
        // File index 0-1 -> 0, 2-3 -> 1, 4 -> 2; rank index 8 (home) -> 0, 7 -> 1, else 2.
        let fg = [0, 0, 1, 1, 2][k.file() as usize];
        let rg = match k.rank() {
            8 => 0,
            7 => 1,
            _ => 2,
        };
        View { color, mirrored, base: (fg * 3 + rg) * FEATURES_PER_BUCKET }
    }

    /// The view of `color` in `pos`. A side without a king (a tsume's attacker) is seen as if
    /// its king stood on its home centre square (`HOME_KING`), so that its view is a fixed,
    /// ordinary one (bucket "file 5, home rank", not mirrored); it has no king feature.
    #[inline]
    pub fn of(pos: &Position, color: Color) -> View {
        View::new(color, pos.king_square_opt(color).unwrap_or(HOME_KING[color.index()]))
    }

    /// The king bucket (0..KING_BUCKETS).
    pub fn bucket(self) -> usize {
        self.base / FEATURES_PER_BUCKET
    }

    /// The feature of piece `pc` standing on `sq`.
    #[inline(always)]
    pub fn board(self, pc: Piece, sq: Square) -> usize {
        let s = orient(self.color, sq);
        let s = if self.mirrored { mirror(s) } else { s };
        let own = (pc.color() == self.color) as usize;
        let plane = (1 - own) * 14 + (pc.kind() as usize - 1);
        self.base + plane * 81 + s.index()
    }

    /// The feature of the `nth` (1-based) piece of kind `pt` in `owner`'s hand.
    #[inline(always)]
    pub fn hand(self, owner: Color, pt: PieceType, nth: u32) -> usize {
        debug_assert!(nth >= 1);
        let slot = HAND_SLOT[pt as usize];
        let block = if owner == self.color { 0 } else { HAND_FEATURES_PER_COLOR };
        self.base + BOARD_FEATURES + block + HAND_OFFSET[slot] + nth as usize - 1
    }
}

/// Where a missing king is taken to stand for its side's view: 5i for Black, 5a for White,
/// the home centre square (5i in either side's own view). The net was never trained on such
/// positions; this picks the view of a king at home, the commonest in training, so the other
/// pieces' weights are those the net knows best.
pub const HOME_KING: [Square; 2] = [Square::from_coords(4, 8), Square::from_coords(4, 0)];

/// `sq` as seen by `c` (rotated for White).
#[inline(always)]
fn orient(c: Color, sq: Square) -> Square {
    if c == Color::Black {
        sq
    } else {
        sq.flip()
    }
}

/// `sq` mirrored left-right.
#[inline(always)]
fn mirror(sq: Square) -> Square {
    Square::from_coords(8 - sq.file(), sq.rank())
}

/// Calls `f` with every active feature of `pos` from `color`'s perspective (exactly
/// `ACTIVE_FEATURES` of them in a position with all 40 pieces).
pub fn for_each_active(pos: &Position, color: Color, mut f: impl FnMut(usize)) {
    let view = View::of(pos, color);
    for sq in pos.occupied() {
        f(view.board(pos.piece_on(sq), sq));
    }
    for owner in Color::ALL {
        let hand = pos.hand(owner);
        for pt in PieceType::HAND {
            for nth in 1..=hand.count(pt) {
                f(view.hand(owner, pt, nth));
            }
        }
    }
}

/// The active features of `pos` from `color`'s perspective, as a vector (tests, training).
pub fn active(pos: &Position, color: Color) -> Vec<usize> {
    let mut v = Vec::with_capacity(ACTIVE_FEATURES);
    for_each_active(pos, color, |f| v.push(f));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(HAND_MAX.iter().sum::<usize>(), HAND_FEATURES_PER_COLOR);
        assert_eq!(FEATURES_PER_BUCKET, 2344);
        assert_eq!(NUM_FEATURES, 21096);
    }

    #[test]
    fn every_piece_is_one_distinct_feature() {
        for sfen in [
            engine::START_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            for c in Color::ALL {
                let mut f = active(&pos, c);
                assert_eq!(f.len(), ACTIVE_FEATURES, "{sfen}");
                assert!(f.iter().all(|&i| i < NUM_FEATURES));
                f.sort();
                f.dedup();
                assert_eq!(f.len(), ACTIVE_FEATURES, "{sfen}");
            }
        }
    }

    /// A side without a king (a tsume's attacker) sees the board from a king on its home
    /// centre square, and neither view has a feature for the missing king: 39 of a tsume's
    /// 39 pieces.
    #[test]
    fn a_missing_king_is_seen_at_home() {
        for (sfen, kingless) in [
            ("7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1", Color::Black),
            ("4K4/9/9/9/9/9/9/9/9 w 2r2b4g4s4n4l18p 1", Color::White),
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let home = HOME_KING[kingless.index()];
            assert_eq!(orient(kingless, home), Square::from_coords(4, 8), "5i in its own view");
            let view = View::of(&pos, kingless);
            assert_eq!(view, View::new(kingless, home));
            assert!(!view.mirrored);
            assert_eq!(view.bucket(), 6, "file 5, home rank");
            for c in Color::ALL {
                let mut f = active(&pos, c);
                assert_eq!(f.len(), 39, "{sfen}");
                f.sort();
                f.dedup();
                assert_eq!(f.len(), 39, "{sfen}");
                let king = Piece::new(kingless, PieceType::King);
                let own_view = View::of(&pos, c);
                assert!(Square::ALL.iter().all(|&s| !f.contains(&own_view.board(king, s))));
            }
        }
    }

    /// The start position is symmetric: both sides see the same features.
    #[test]
    fn perspectives_agree_on_a_symmetric_position() {
        let pos = Position::startpos();
        let mut b = active(&pos, Color::Black);
        let mut w = active(&pos, Color::White);
        b.sort();
        w.sort();
        assert_eq!(b, w);
    }

    /// A position and its left-right mirror image have the same features.
    #[test]
    fn mirror_images_share_features() {
        let a = Position::from_sfen("4k4/9/4G4/9/9/9/9/9/2K6 b P 1").unwrap();
        let b = Position::from_sfen("4k4/9/4G4/9/9/9/9/9/6K2 b P 1").unwrap();
        let (mut fa, mut fb) = (active(&a, Color::Black), active(&b, Color::Black));
        fa.sort();
        fb.sort();
        assert_eq!(fa, fb);
    }
}
