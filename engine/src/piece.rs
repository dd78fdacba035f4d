//! Piece kinds and coloured pieces: the one place the set of shogi pieces is defined.

use crate::Color;
use std::fmt;

/// A kind of piece. Promoted kinds are the unpromoted kind plus `PROMOTED` (8), as in YaneuraOu,
/// so promotion is one bit; the kinds that can be held in hand are `Pawn..=Gold` minus none.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    /// Fuhyo; promotes to tokin.
    Pawn = 1,
    /// Kyosha.
    Lance = 2,
    /// Keima.
    Knight = 3,
    /// Ginsho.
    Silver = 4,
    /// Kakugyo; promotes to horse.
    Bishop = 5,
    /// Hisha; promotes to dragon.
    Rook = 6,
    /// Kinsho; does not promote.
    Gold = 7,
    /// Gyoku/Osho; does not promote.
    King = 8,
    /// Tokin.
    ProPawn = 9,
    /// Narikyo.
    ProLance = 10,
    /// Narikei.
    ProKnight = 11,
    /// Narigin.
    ProSilver = 12,
    /// Ryuma.
    Horse = 13,
    /// Ryuo.
    Dragon = 14,
    /// Suizo, Sho shogi's drunk elephant (`E`): one step in every direction but straight back.
    /// Promotes to the crown prince, which is a king-kind piece (`King` on the board; `Position`
    /// remembers which king-kind pieces are princes). Code 15, the one code shogi leaves free.
    Elephant = 15,
}

/// Size of arrays indexed by `PieceType as usize` (index 0 unused).
pub const PIECE_TYPE_NB: usize = 16;
/// Promotion flag inside a piece type.
pub const PROMOTED: u8 = 8;

impl PieceType {
    /// All kinds, unpromoted first.
    pub const ALL: [PieceType; 14] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
        PieceType::King,
        PieceType::ProPawn,
        PieceType::ProLance,
        PieceType::ProKnight,
        PieceType::ProSilver,
        PieceType::Horse,
        PieceType::Dragon,
    ];

    /// The kinds that can be held in hand, in SFEN hand order (R B G S N L P).
    pub const HAND_ORDER: [PieceType; 7] = [
        PieceType::Rook,
        PieceType::Bishop,
        PieceType::Gold,
        PieceType::Silver,
        PieceType::Knight,
        PieceType::Lance,
        PieceType::Pawn,
    ];

    /// The kinds that can be held in hand, in index order (P L N S B R G).
    pub const HAND: [PieceType; 7] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
    ];

    /// The kind of each 4-bit code, for decoding without a bounds check or an offset. Code 0
    /// names no kind; it decodes as a pawn, and callers never pass it.
    const BY_CODE: [PieceType; 16] = {
        let mut t = [PieceType::Pawn; 16];
        let mut i = 0;
        while i < 14 {
            t[i + 1] = PieceType::ALL[i];
            i += 1;
        }
        t[15] = PieceType::Elephant;
        t
    };

    /// The code of each kind's promoted form (`promoted`), by code: +8 for the six kinds of
    /// shogi that promote, the king (prince) for the elephant, the kind itself otherwise.
    const PROMOTED_CODE: [u8; 16] = [0, 9, 10, 11, 12, 13, 14, 7, 8, 9, 10, 11, 12, 13, 14, 8];

    /// The kind with 4-bit code `code` (1..=15; 0 decodes as a pawn). Cheaper than `from_u8`
    /// where the code is known to be valid.
    #[inline(always)]
    pub const fn from_code(code: u8) -> PieceType {
        debug_assert!(code >= 1 && code <= 15);
        PieceType::BY_CODE[(code & 15) as usize]
    }

    /// The kind with this number, if any.
    pub const fn from_u8(v: u8) -> Option<PieceType> {
        if v >= 1 && v <= 15 {
            Some(PieceType::BY_CODE[v as usize])
        } else {
            None
        }
    }

    /// The kind as an array index.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether this kind has a promoted form (pawn, lance, knight, silver, bishop, rook and
    /// the elephant).
    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (0b1000_0000_0111_1110u16 >> self as u8) & 1 != 0
    }

    /// Whether this is a promoted kind of shogi (tokin .. dragon; a prince is a king-kind piece
    /// and not one of these).
    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8).wrapping_sub(PieceType::ProPawn as u8) < 6
    }

    /// The promoted form; only valid when `can_promote` (the elephant's is the king kind: the
    /// crown prince).
    #[inline(always)]
    pub const fn promoted(self) -> PieceType {
        PieceType::from_code(PieceType::PROMOTED_CODE[self as usize])
    }

    /// The kind a captured piece of this kind turns into in hand (kings map to themselves).
    #[inline(always)]
    pub const fn unpromoted(self) -> PieceType {
        if self.is_promoted() {
            PieceType::from_code(self as u8 & !PROMOTED)
        } else {
            self
        }
    }

    /// The kind that promoted into this one, for the piece a promoting move leaves on its
    /// destination: the unpromoted kind, and the elephant for the king kind (only an elephant
    /// promotes into a king-kind piece).
    #[inline(always)]
    pub const fn demoted(self) -> PieceType {
        match self {
            PieceType::King => PieceType::Elephant,
            pt => pt.unpromoted(),
        }
    }

    /// Whether this kind moves like a gold (gold and the promoted minor pieces).
    #[inline(always)]
    pub const fn moves_as_gold(self) -> bool {
        matches!(
            self,
            PieceType::Gold | PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver
        )
    }

    /// Whether this kind can be dropped from hand.
    #[inline(always)]
    pub const fn is_hand_type(self) -> bool {
        (self as u8) <= PieceType::Gold as u8
    }

    /// The SFEN letter of the unpromoted kind, upper case (`P`, `L`, ... `K`).
    pub const fn letter(self) -> char {
        match self.unpromoted() {
            PieceType::Pawn => 'P',
            PieceType::Lance => 'L',
            PieceType::Knight => 'N',
            PieceType::Silver => 'S',
            PieceType::Bishop => 'B',
            PieceType::Rook => 'R',
            PieceType::Gold => 'G',
            PieceType::Elephant => 'E',
            _ => 'K',
        }
    }

    /// The unpromoted kind named by an SFEN letter of either case.
    pub fn from_letter(c: char) -> Option<PieceType> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceType::Pawn,
            'L' => PieceType::Lance,
            'N' => PieceType::Knight,
            'S' => PieceType::Silver,
            'B' => PieceType::Bishop,
            'R' => PieceType::Rook,
            'G' => PieceType::Gold,
            'K' => PieceType::King,
            'E' => PieceType::Elephant,
            _ => return None,
        })
    }

    /// How many pieces of this unpromoted kind one full set holds (both sides together).
    pub const fn set_count(self) -> u8 {
        match self.unpromoted() {
            PieceType::Pawn => 18,
            PieceType::Bishop | PieceType::Rook | PieceType::King => 2,
            _ => 4,
        }
    }
}

/// A coloured piece, or `Piece::EMPTY`. Encoding: kind + 16 for White.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Piece(u8);

/// Size of arrays indexed by `Piece::index`.
pub const PIECE_NB: usize = 32;

impl Piece {
    /// No piece.
    pub const EMPTY: Piece = Piece(0);

    /// The piece of this colour and kind.
    #[inline(always)]
    pub const fn new(c: Color, pt: PieceType) -> Piece {
        Piece(pt as u8 | ((c as u8) << 4))
    }

    /// The piece with this index (`index` inverted); `v` must be below `PIECE_NB`.
    #[inline(always)]
    pub const fn from_index(v: u8) -> Piece {
        debug_assert!(v < PIECE_NB as u8);
        Piece(v)
    }

    /// Whether this is `EMPTY`.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The piece as an array index (0..32).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The kind; must not be called on `EMPTY`.
    #[inline(always)]
    pub const fn kind(self) -> PieceType {
        PieceType::from_code(self.0 & 15)
    }

    /// The kind, or `None` for an empty square.
    #[inline(always)]
    pub const fn kind_opt(self) -> Option<PieceType> {
        PieceType::from_u8(self.0 & 15)
    }

    /// The colour; meaningless on `EMPTY`.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 & 16 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The same piece promoted (only if its kind can promote; an elephant becomes a king-kind
    /// piece, the prince).
    #[inline(always)]
    pub const fn promoted(self) -> Piece {
        Piece((self.0 & 16) | PieceType::PROMOTED_CODE[(self.0 & 15) as usize])
    }
}

impl fmt::Display for Piece {
    /// SFEN text: `+P`, `k`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind_opt() {
            None => write!(f, "."),
            Some(pt) => {
                let l = pt.letter();
                let l = if self.color() == Color::White { l.to_ascii_lowercase() } else { l };
                if pt.is_promoted() {
                    write!(f, "+{l}")
                } else {
                    write!(f, "{l}")
                }
            }
        }
    }
}
