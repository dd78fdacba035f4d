//! The games Kaname plays besides shogi, each a description the rules core reads, not a fork of
//! it (issue 14; the design, with the reasons, is `docs/variants-plan.md`).
//!
//! **Minishogi** (5x5, Fairy-Stockfish's `minishogi`; `../shared/reference/usi.md`, "Variants"):
//! the board is files 1-5 and ranks a-e, start `rbsgk/4p/5/P4/KGSBR b - 1`; no knights or
//! lances; the promotion zone is the last rank only; drops, nifu, pawn-drop mate, dead pieces
//! and forced promotion as in shogi.
//!
//! **Sho shogi** (Fairy-Stockfish's `shoshogi`; `../shared/reference/sho-shogi.md`): shogi's
//! board, pieces and zone plus a drunk elephant (`E`) in front of each king, start
//! `lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1`. No drops: captured
//! pieces leave the game. The elephant steps one square any way but straight back and promotes
//! (optionally, into, out of or inside the zone) to the crown prince (`+E`), which moves like a
//! king and is a second royal piece. **The royal rule, exactly Fairy-Stockfish's**
//! (`extinctionPseudoRoyal` with `extinctionPieceCount = 0`, `Position::legal` in its
//! `position.cpp`, and the probes in `docs/variants-plan.md` section 1.3): a side's royals are
//! its king-kind pieces (king and prince), and it is *bound* when it has exactly one. A bound
//! side may not leave its royal attacked, judged before the move (promoting the elephant does
//! not lift a check on the same move); a side with two royals may make any pseudo-legal move,
//! even leave both attacked; a side is in check only when bound and its royal is attacked; a
//! side with no legal move loses.
//!
//! **How a 5x5 board lives in the 9x9 bitboard.** It is the corner files 1-5, ranks a-e, so square
//! names and indices stay those of shogi (5e is still `Square::from_coords(4, 4)`), Black still
//! starts at the bottom (rank e) and promotes on rank a, and White promotes on rank e. The area
//! is convex and a corner of the 9x9 grid: a ray that leaves it never comes back. So the slider
//! tables and magics serve unchanged, masked with the board; the only thing a kernel must do
//! is never make an empty square of the complement of a bitboard without masking it
//! (`Variant::mask`).
//!
//! **Why generic kernels.** The rules kernels (move generation, legality, perft, SFEN) take the
//! variant as a type parameter and read its description as constants: for `Shogi` every mask
//! and test folds away, so standard shogi runs the code it ran before. `Position` stays one
//! type carrying a `VariantId`; each public entry point matches on it once.

use crate::{Bitboard, Color, PieceType, Square};
use std::fmt;
use std::str::FromStr;

/// Which game a position belongs to (one byte in `Position`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(u8)]
pub enum VariantId {
    /// Standard shogi (9x9).
    #[default]
    Shogi = 0,
    /// Minishogi (5x5).
    Minishogi = 1,
    /// Sho shogi (9x9 with the drunk elephant, no drops).
    ShoShogi = 2,
}

/// Everything the rules core needs to know about a game.
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    /// The name used by `USI_Variant` (Fairy-Stockfish's).
    pub name: &'static str,
    /// Number of files (the board is files 1..=files).
    pub files: u8,
    /// Number of ranks (a..).
    pub ranks: u8,
    /// The squares on the board.
    pub board: Bitboard,
    /// `far[c][n]`: `c`'s far `n` ranks (n = 0..=3), on the board.
    pub far: [[Bitboard; 4]; 2],
    /// `c`'s promotion zone.
    pub zone: [Bitboard; 2],
    /// The kinds that may be held in hand, in SFEN hand order (R B G S N L P).
    pub hand_kinds: &'static [PieceType],
    /// How many pieces of each unpromoted kind a full set holds (both sides), by kind index
    /// (a prince counts as an elephant); 0 for a kind the variant lacks.
    pub set_count: [u8; 16],
    /// The SFEN of the start position.
    pub start_sfen: &'static str,
    /// Captured pieces go to the captor's hand and may be dropped (not in Sho shogi).
    pub drops: bool,
    /// The drunk elephant and its prince exist (Sho shogi).
    pub elephant: bool,
    /// The royal rule of Sho shogi: a side with two royals (king and prince) is not bound by
    /// check (the module's documentation).
    pub pseudo_royal: bool,
}

/// The squares of a board of `files` x `ranks` in the corner of the 9x9 grid.
const fn board_squares(files: u8, ranks: u8) -> Bitboard {
    Bitboard::far_ranks_on(Color::Black, ranks, files, ranks)
}

const fn far_table(files: u8, ranks: u8) -> [[Bitboard; 4]; 2] {
    let mut t = [[Bitboard::EMPTY; 4]; 2];
    let mut n = 0;
    while n < 4 {
        t[0][n] = Bitboard::far_ranks_on(Color::Black, n as u8, files, ranks);
        t[1][n] = Bitboard::far_ranks_on(Color::White, n as u8, files, ranks);
        n += 1;
    }
    t
}

/// What a variant has besides its geometry.
#[derive(Clone, Copy)]
struct Rules {
    drops: bool,
    elephant: bool,
    pseudo_royal: bool,
}

const SHOGI_RULES: Rules = Rules { drops: true, elephant: false, pseudo_royal: false };

impl Desc {
    #[allow(clippy::too_many_arguments)]
    const fn new(
        name: &'static str,
        files: u8,
        ranks: u8,
        zone_ranks: u8,
        hand_kinds: &'static [PieceType],
        set_count: [u8; 16],
        start_sfen: &'static str,
        rules: Rules,
    ) -> Desc {
        let far = far_table(files, ranks);
        Desc {
            name,
            files,
            ranks,
            board: board_squares(files, ranks),
            far,
            zone: [
                Bitboard::far_ranks_on(Color::Black, zone_ranks, files, ranks),
                Bitboard::far_ranks_on(Color::White, zone_ranks, files, ranks),
            ],
            hand_kinds,
            set_count,
            start_sfen,
            drops: rules.drops,
            elephant: rules.elephant,
            pseudo_royal: rules.pseudo_royal,
        }
    }
}

/// Index order: -, P, L, N, S, B, R, G, K, then the promoted kinds (never counted), then E.
const SHOGI_SET: [u8; 16] = [0, 18, 4, 4, 4, 2, 2, 4, 2, 0, 0, 0, 0, 0, 0, 0];
/// Minishogi: one of each kind per side, and no lances or knights.
const MINISHOGI_SET: [u8; 16] = [0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0];
/// Sho shogi: shogi's set and two elephants.
const SHO_SHOGI_SET: [u8; 16] = [0, 18, 4, 4, 4, 2, 2, 4, 2, 0, 0, 0, 0, 0, 0, 2];

const SHOGI_DESC: Desc = Desc::new(
    "shogi",
    9,
    9,
    3,
    &PieceType::HAND_ORDER,
    SHOGI_SET,
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    SHOGI_RULES,
);
const MINISHOGI_DESC: Desc = Desc::new(
    "minishogi",
    5,
    5,
    1,
    &[PieceType::Rook, PieceType::Bishop, PieceType::Gold, PieceType::Silver, PieceType::Pawn],
    MINISHOGI_SET,
    "rbsgk/4p/5/P4/KGSBR b - 1",
    SHOGI_RULES,
);
const SHO_SHOGI_DESC: Desc = Desc::new(
    "shoshogi",
    9,
    9,
    3,
    &[],
    SHO_SHOGI_SET,
    "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1",
    Rules { drops: false, elephant: true, pseudo_royal: true },
);

/// A game as a type: the kernels are generic over it, and its description is a constant.
pub trait Variant: Copy + 'static {
    /// Its id (what `Position` stores).
    const ID: VariantId;
    /// Its description.
    const DESC: Desc;
    /// Whether the board is the full 9x9 (then no mask is ever needed).
    const FULL_BOARD: bool = Self::DESC.files == 9 && Self::DESC.ranks == 9;

    /// `b` restricted to the board: the identity for 9x9 (folded away), an AND otherwise. Every
    /// complement (`!occupied`, `!own`) and every step set that may reach past the edge of a
    /// smaller board goes through this.
    #[inline(always)]
    fn mask(b: Bitboard) -> Bitboard {
        if Self::FULL_BOARD {
            b
        } else {
            b & Self::DESC.board
        }
    }
}

/// Standard shogi.
#[derive(Clone, Copy, Debug)]
pub struct Shogi;
/// Minishogi.
#[derive(Clone, Copy, Debug)]
pub struct Minishogi;
/// Sho shogi.
#[derive(Clone, Copy, Debug)]
pub struct ShoShogi;

impl Variant for Shogi {
    const ID: VariantId = VariantId::Shogi;
    const DESC: Desc = SHOGI_DESC;
}
impl Variant for Minishogi {
    const ID: VariantId = VariantId::Minishogi;
    const DESC: Desc = MINISHOGI_DESC;
}
impl Variant for ShoShogi {
    const ID: VariantId = VariantId::ShoShogi;
    const DESC: Desc = SHO_SHOGI_DESC;
}

/// Runs `$e` with the type `$V` bound to the variant `$id` names: the one runtime-to-type
/// dispatch of a public entry point. The variants' arms are marked cold, so that the compiler
/// keeps standard shogi's arm small enough to inline where the entry point was inlined before
/// the variants existed.
macro_rules! dispatch {
    ($id:expr, $V:ident => $e:expr) => {
        match $id {
            $crate::VariantId::Shogi => {
                type $V = $crate::variant::Shogi;
                $e
            }
            $crate::VariantId::Minishogi => {
                ::core::hint::cold_path();
                type $V = $crate::variant::Minishogi;
                $e
            }
            $crate::VariantId::ShoShogi => {
                ::core::hint::cold_path();
                type $V = $crate::variant::ShoShogi;
                $e
            }
        }
    };
}
pub(crate) use dispatch;

impl VariantId {
    /// Every variant, in option order.
    pub const ALL: [VariantId; 3] = [VariantId::Shogi, VariantId::Minishogi, VariantId::ShoShogi];

    /// The description.
    pub const fn desc(self) -> &'static Desc {
        match self {
            VariantId::Shogi => &SHOGI_DESC,
            VariantId::Minishogi => &MINISHOGI_DESC,
            VariantId::ShoShogi => &SHO_SHOGI_DESC,
        }
    }

    /// The name (`USI_Variant`'s value).
    pub const fn name(self) -> &'static str {
        self.desc().name
    }

    /// Whether `sq` is on this variant's board.
    #[inline]
    pub fn on_board(self, sq: Square) -> bool {
        self.desc().board.contains(sq)
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not one of `VariantId::ALL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = VariantId::ALL.iter().map(|v| v.name()).collect();
        write!(f, "unknown variant '{}' (known: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for VariantId {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<VariantId, UnknownVariant> {
        VariantId::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shogi_description_equals_the_shogi_tables() {
        let d = Shogi::DESC;
        assert_eq!(d.board, Bitboard::ALL);
        for c in Color::ALL {
            assert_eq!(d.zone[c.index()], Bitboard::zone(c));
            for n in 1..=3 {
                assert_eq!(d.far[c.index()][n], Bitboard::far(c, n), "{c:?} {n}");
            }
        }
        for pt in PieceType::HAND {
            assert_eq!(d.set_count[pt.index()], pt.set_count(), "{pt:?}");
        }
        assert_eq!(d.start_sfen, crate::START_SFEN);
        const { assert!(Shogi::FULL_BOARD && !Minishogi::FULL_BOARD) };
    }

    #[test]
    fn minishogi_board_is_the_corner_five_by_five() {
        let d = Minishogi::DESC;
        assert_eq!(d.board.count(), 25);
        for sq in Square::ALL {
            assert_eq!(d.board.contains(sq), sq.file() < 5 && sq.rank() < 5, "{sq}");
        }
        // The board is word 0 only (squares 0..=40).
        assert_eq!(d.board.words()[1], 0);
        // Black promotes on rank a, White on rank e: the last rank only.
        let rank_a: Bitboard = (0..5).fold(Bitboard::EMPTY, |b, f| b | Square::from_coords(f, 0));
        let rank_e: Bitboard = (0..5).fold(Bitboard::EMPTY, |b, f| b | Square::from_coords(f, 4));
        assert_eq!(d.zone, [rank_a, rank_e]);
        assert_eq!(d.far[0][1], rank_a);
        assert_eq!(d.far[1][1], rank_e);
        assert_eq!(d.far[1][5 - 4], rank_e);
    }

    #[test]
    fn names_round_trip() {
        for v in VariantId::ALL {
            assert_eq!(v.name().parse::<VariantId>(), Ok(v));
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!("MiniShogi".parse::<VariantId>(), Ok(VariantId::Minishogi));
        let err = "chess".parse::<VariantId>().unwrap_err();
        assert!(err.to_string().contains("minishogi"), "{err}");
    }
}
