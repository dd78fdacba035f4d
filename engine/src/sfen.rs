//! SFEN: parsing with a typed error for every malformed or impossible input, and printing.

use crate::{Bitboard, Color, Desc, Hand, Piece, PieceType, Position, Square, VariantId};
use std::fmt;

/// Why an SFEN string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// Fewer than three fields (board, side, hands).
    MissingField(&'static str),
    /// More than four fields.
    TrailingText(String),
    /// The board does not have the variant's number of ranks (nine in shogi).
    RankCount {
        /// How many ranks the SFEN has.
        found: usize,
        /// How many the variant's board has.
        expected: u8,
    },
    /// A rank does not describe exactly the variant's number of files (nine in shogi).
    RankLength {
        /// The rank letter.
        rank: char,
        /// How many squares it described.
        squares: usize,
        /// How many files the variant's board has.
        expected: u8,
    },
    /// A piece in hand in a variant without drops (Sho shogi).
    NoHands(VariantId),
    /// A piece the variant does not have (a lance or knight in Minishogi), on the board or in
    /// hand.
    PieceNotInVariant {
        /// The SFEN letter.
        letter: char,
        /// The variant.
        variant: VariantId,
    },
    /// A character that is not a piece letter, digit or `+`.
    UnknownPiece(char),
    /// `+` before a piece that cannot promote, or at the end of a rank.
    BadPromotion(String),
    /// The side to move is not `b` or `w`.
    BadSide(String),
    /// The hands field is malformed.
    BadHand(String),
    /// The move number is not an integer 1..=4294967295.
    BadMoveNumber(String),
    /// More pieces of a kind than one set holds.
    TooManyPieces(PieceType),
    /// A side has more than one king (or, in Sho shogi, no royal or a bad set of royals).
    KingCount(Color, usize),
    /// Neither side has a king. One side without a king is a tsume (mate problem: the attacker
    /// has none); with neither, no move could ever check or mate, so there is no game to play.
    NoKings,
    /// A pawn, lance or knight stands where it could never move.
    DeadPiece(Square),
    /// Two unpromoted pawns of one side on a file.
    Nifu(Color, u8),
    /// The side not to move is in check (it would be captured).
    OpponentInCheck,
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::MissingField(what) => write!(f, "missing {what}"),
            SfenError::TrailingText(t) => write!(f, "unexpected text after the SFEN: '{t}'"),
            SfenError::RankCount { found, expected } => write!(f, "the board has {found} ranks, not {expected}"),
            SfenError::RankLength { rank, squares, expected } => {
                write!(f, "rank {rank} describes {squares} squares, not {expected}")
            }
            SfenError::PieceNotInVariant { letter, variant } => {
                write!(f, "{variant} has no piece '{letter}'")
            }
            SfenError::NoHands(variant) => write!(f, "{variant} has no pieces in hand (no drops)"),
            SfenError::UnknownPiece(c) => write!(f, "unknown piece letter '{c}'"),
            SfenError::BadPromotion(s) => write!(f, "bad promotion '{s}'"),
            SfenError::BadSide(s) => write!(f, "side to move '{s}' is neither b nor w"),
            SfenError::BadHand(s) => write!(f, "bad pieces in hand '{s}'"),
            SfenError::BadMoveNumber(s) => write!(f, "bad move number '{s}'"),
            SfenError::TooManyPieces(pt) => write!(f, "more {pt:?} pieces than one set holds"),
            SfenError::KingCount(c, n) if *n > 1 => write!(f, "{c:?} has {n} kings, not at most 1"),
            SfenError::KingCount(c, n) => write!(f, "{c:?} has {n} kings, not 1"),
            SfenError::NoKings => write!(f, "neither side has a king (a tsume leaves out only the attacker's)"),
            SfenError::DeadPiece(sq) => write!(f, "the piece on {sq} could never move"),
            SfenError::Nifu(c, file) => {
                write!(f, "{c:?} has two unpromoted pawns on file {}", file + 1)
            }
            SfenError::OpponentInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SfenError {}

/// The largest move number a position gets from an SFEN: a larger one is read as this, which
/// leaves the ply counter room for any game played on from it (2^31 more plies).
pub const MAX_MOVE_NUMBER: u32 = i32::MAX as u32;

impl Position {
    /// Parses a shogi SFEN (`<board> <b|w> <hands> [<move number>]`; a move number above
    /// `MAX_MOVE_NUMBER` is read as `MAX_MOVE_NUMBER`).
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        Position::from_sfen_in(VariantId::Shogi, sfen)
    }

    /// Parses an SFEN of the variant `variant` (its board size, pieces and hands;
    /// Fairy-Stockfish's conventions).
    pub fn from_sfen_in(variant: VariantId, sfen: &str) -> Result<Position, SfenError> {
        let desc = variant.desc();
        let mut fields = sfen.split_whitespace();
        let board = fields.next().ok_or(SfenError::MissingField("board"))?;
        let side = fields.next().ok_or(SfenError::MissingField("side to move"))?;
        let hands = fields.next().ok_or(SfenError::MissingField("pieces in hand"))?;
        let ply = match fields.next() {
            None => 1,
            Some(n) => match n.parse::<u32>() {
                Ok(v) if v >= 1 => v.min(MAX_MOVE_NUMBER),
                _ => return Err(SfenError::BadMoveNumber(n.to_string())),
            },
        };
        let rest: Vec<&str> = fields.collect();
        if !rest.is_empty() {
            return Err(SfenError::TrailingText(rest.join(" ")));
        }
        let mut pos = Position::empty();
        pos.set_variant(variant);
        parse_board(&mut pos, board, desc, variant)?;
        let side = match side {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(SfenError::BadSide(s.to_string())),
        };
        pos.set_side_and_ply(side, ply);
        let parsed = parse_hands(hands, desc, variant)?;
        pos.set_hand(Color::Black, parsed[0]);
        pos.set_hand(Color::White, parsed[1]);
        validate(&pos)?;
        pos.finish();
        if pos.bound(!side) && pos.is_attacked(side, pos.king_square(!side), pos.occupied()) {
            return Err(SfenError::OpponentInCheck);
        }
        Ok(pos)
    }

    /// The SFEN of this position, hands in canonical order, with the move number.
    pub fn to_sfen(&self) -> String {
        let desc = self.variant().desc();
        let mut s = String::with_capacity(96);
        for rank in 0..desc.ranks {
            let mut empty = 0;
            for file in (0..desc.files).rev() {
                let sq = Square::from_coords(file, rank);
                let pc = self.piece_on(sq);
                if pc.is_empty() {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                if self.princes().contains(sq) {
                    s.push_str(if pc.color() == Color::Black { "+E" } else { "+e" });
                } else {
                    s.push_str(&pc.to_string());
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank + 1 < desc.ranks {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side_to_move().sfen_char());
        s.push(' ');
        let mut hands = String::new();
        for c in Color::ALL {
            for &pt in desc.hand_kinds {
                let n = self.hand(c).count(pt);
                if n > 1 {
                    hands.push_str(&n.to_string());
                }
                if n > 0 {
                    let l = pt.letter();
                    hands.push(if c == Color::White { l.to_ascii_lowercase() } else { l });
                }
            }
        }
        s.push_str(if hands.is_empty() { "-" } else { &hands });
        s.push(' ');
        s.push_str(&self.game_ply().to_string());
        s
    }
}

/// Whether the variant has the unpromoted kind `pt` at all.
fn has_kind(desc: &Desc, pt: PieceType) -> bool {
    desc.set_count[pt.unpromoted().index()] > 0
}

fn parse_board(pos: &mut Position, board: &str, desc: &Desc, variant: VariantId) -> Result<(), SfenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != desc.ranks as usize {
        return Err(SfenError::RankCount { found: ranks.len(), expected: desc.ranks });
    }
    let files = desc.files as usize;
    for (r, text) in ranks.iter().enumerate() {
        let rank_char = (b'a' + r as u8) as char;
        let mut file: i32 = files as i32 - 1;
        let mut promote = false;
        let mut squares = 0usize;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promote || d == 0 {
                    return Err(SfenError::BadPromotion(text.to_string()));
                }
                file -= d as i32;
                squares += d as usize;
                continue;
            }
            if ch == '+' {
                if promote {
                    return Err(SfenError::BadPromotion(text.to_string()));
                }
                promote = true;
                continue;
            }
            let pt = PieceType::from_letter(ch).ok_or(SfenError::UnknownPiece(ch))?;
            if !has_kind(desc, pt) {
                return Err(SfenError::PieceNotInVariant { letter: ch, variant });
            }
            let pt = if promote {
                if !pt.can_promote() {
                    return Err(SfenError::BadPromotion(format!("+{ch}")));
                }
                pt.promoted()
            } else {
                pt
            };
            promote = false;
            squares += 1;
            if file < 0 {
                return Err(SfenError::RankLength { rank: rank_char, squares, expected: desc.files });
            }
            let color = if ch.is_ascii_uppercase() { Color::Black } else { Color::White };
            let sq = Square::from_coords(file as u8, r as u8);
            pos.put_piece(Piece::new(color, pt), sq);
            if pt == PieceType::King && ch.eq_ignore_ascii_case(&'E') {
                pos.add_prince(sq); // `+E`: the elephant's promoted form, a king-kind piece
            }
            file -= 1;
        }
        if promote {
            return Err(SfenError::BadPromotion(text.to_string()));
        }
        if squares != files {
            return Err(SfenError::RankLength { rank: rank_char, squares, expected: desc.files });
        }
    }
    Ok(())
}

fn parse_hands(text: &str, desc: &Desc, variant: VariantId) -> Result<[Hand; 2], SfenError> {
    let mut hands = [Hand::EMPTY; 2];
    if text == "-" {
        return Ok(hands);
    }
    let bad = || SfenError::BadHand(text.to_string());
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        if let Some(d) = ch.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > 18 {
                return Err(bad());
            }
            count = Some(n);
            continue;
        }
        let pt = PieceType::from_letter(ch).ok_or_else(bad)?;
        if pt == PieceType::King {
            return Err(bad());
        }
        if !has_kind(desc, pt) {
            return Err(SfenError::PieceNotInVariant { letter: ch, variant });
        }
        if !desc.hand_kinds.contains(&pt) {
            return Err(if desc.drops { bad() } else { SfenError::NoHands(variant) });
        }
        let n = count.take().unwrap_or(1);
        if n == 0 {
            return Err(bad());
        }
        let c = if ch.is_ascii_uppercase() { Color::Black } else { Color::White };
        for _ in 0..n {
            if hands[c.index()].count(pt) >= desc.set_count[pt.index()] as u32 {
                return Err(SfenError::TooManyPieces(pt));
            }
            hands[c.index()].add(pt);
        }
    }
    if count.is_some() {
        return Err(bad());
    }
    Ok(hands)
}

/// Rejects positions that cannot arise: too many pieces, wrong king count, dead pieces, nifu.
/// In shogi and Minishogi a side may have no king (a tsume's attacker), but not both sides.
pub(crate) fn validate(pos: &Position) -> Result<(), SfenError> {
    let desc = pos.variant().desc();
    let mut counts = [0u32; 16];
    for sq in desc.board {
        let pc = pos.piece_on(sq);
        if let Some(pt) = pc.kind_opt() {
            // A prince counts as the elephant it was.
            let set_kind = if pos.princes().contains(sq) { PieceType::Elephant } else { pt.unpromoted() };
            counts[set_kind.index()] += 1;
            let far = desc.far[pc.color().index()];
            let dead = match pt {
                PieceType::Pawn | PieceType::Lance => far[1].contains(sq),
                PieceType::Knight => far[2].contains(sq),
                _ => false,
            };
            if dead {
                return Err(SfenError::DeadPiece(sq));
            }
        }
    }
    for c in Color::ALL {
        for pt in PieceType::HAND {
            counts[pt.index()] += pos.hand(c).count(pt);
        }
    }
    if !desc.pseudo_royal && pos.pieces_of_type(PieceType::King).is_empty() {
        return Err(SfenError::NoKings);
    }
    for pt in PieceType::HAND.into_iter().chain([PieceType::Elephant]) {
        if counts[pt.index()] > desc.set_count[pt.index()] as u32 {
            return Err(SfenError::TooManyPieces(pt));
        }
    }
    for c in Color::ALL {
        let royals = pos.pieces(c, PieceType::King);
        let kings = royals.and_not(pos.princes()).count() as usize;
        // Sho shogi: at most one king, and one or two royals (king and prince). Elsewhere at most
        // one king: none is a tsume's attacker.
        let ok = if desc.pseudo_royal { kings <= 1 && royals.any() && royals.count() <= 2 } else { kings <= 1 };
        if !ok {
            return Err(SfenError::KingCount(c, kings));
        }
        // One elephant a side, promoted or not: without drops a side never gets a second.
        if (pos.pieces(c, PieceType::Elephant) | (royals & pos.princes())).more_than_one() {
            return Err(SfenError::TooManyPieces(PieceType::Elephant));
        }
        for file in 0..desc.files {
            if (pos.pieces(c, PieceType::Pawn) & Bitboard::file_mask(file)).more_than_one() {
                return Err(SfenError::Nifu(c, file));
            }
        }
    }
    Ok(())
}
