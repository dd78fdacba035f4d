//! USI move text (`7g7f`, `8h2b+`, `P*5e`) parsed against a position, with the reason a move
//! is rejected.

use crate::attacks::attacks_of;
use crate::movegen::{generate_legal, is_pawn_drop_mate, pawn_drop_squares};
use crate::{Color, Move, MoveList, PieceType, Position, Square};
use std::fmt;

/// Why a USI move was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not USI move syntax.
    Syntax(String),
    /// No piece on the origin square.
    NoPiece(Square),
    /// The piece on the origin square belongs to the opponent.
    NotYourPiece(Square),
    /// The piece cannot reach the destination (or a piece is in the way).
    CannotReach(String),
    /// The destination holds one of the mover's own pieces.
    OwnPieceOnTarget(Square),
    /// `+` on a move that may not promote.
    CannotPromote(String),
    /// A pawn, lance or knight moved where it could never move again without promoting.
    MustPromote(String),
    /// Drop of a piece not in hand.
    NotInHand(PieceType),
    /// Drop on an occupied square.
    Occupied(Square),
    /// Drop where the piece could never move.
    DeadDrop(String),
    /// Second unpromoted pawn on a file.
    Nifu(Square),
    /// A pawn drop that gives checkmate.
    PawnDropMate(Square),
    /// The move leaves or puts the mover's king in check.
    KingInCheck(String),
    /// A square that is not on the variant's board (`6a` in Minishogi).
    OffBoard(Square),
    /// A drop in a variant without drops (Sho shogi).
    NoDrops,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "'{s}' is not a USI move"),
            MoveError::NoPiece(sq) => write!(f, "no piece on {sq}"),
            MoveError::NotYourPiece(sq) => write!(f, "the piece on {sq} belongs to the opponent"),
            MoveError::CannotReach(m) => write!(f, "{m}: the piece cannot move there"),
            MoveError::OwnPieceOnTarget(sq) => write!(f, "own piece on {sq}"),
            MoveError::CannotPromote(m) => write!(f, "{m}: this move cannot promote"),
            MoveError::MustPromote(m) => write!(f, "{m}: the piece must promote"),
            MoveError::NotInHand(pt) => write!(f, "no {pt:?} in hand"),
            MoveError::Occupied(sq) => write!(f, "cannot drop on occupied square {sq}"),
            MoveError::DeadDrop(m) => write!(f, "{m}: the dropped piece could never move"),
            MoveError::Nifu(sq) => write!(f, "nifu: a pawn of the same side is already on the file of {sq}"),
            MoveError::PawnDropMate(sq) => {
                write!(f, "pawn drop on {sq} would be checkmate (uchifuzume)")
            }
            MoveError::KingInCheck(m) => write!(f, "{m} leaves the king in check"),
            MoveError::OffBoard(sq) => write!(f, "{sq} is not on the board"),
            MoveError::NoDrops => write!(f, "this variant has no drops"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// Parses a USI move and checks that it is legal here.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, MoveError> {
        let syntax = || MoveError::Syntax(text.chars().take(32).collect());
        let b = text.as_bytes();
        let us = self.side_to_move();
        let mut legal = MoveList::new();
        generate_legal(self, &mut legal);
        if b.len() == 4 && b[1] == b'*' {
            let pt = PieceType::from_letter(b[0] as char)
                .filter(|p| p.is_hand_type() && b[0].is_ascii_uppercase())
                .ok_or_else(syntax)?;
            let to: Square = text[2..].parse().map_err(|_| syntax())?;
            self.on_board(to)?;
            if let Some(&m) = legal.iter().find(|m| m.is_drop() && m.to() == to && m.dropped() == pt) {
                return Ok(m);
            }
            return Err(self.explain_drop(pt, to, text));
        }
        if (b.len() == 4 || (b.len() == 5 && b[4] == b'+')) && text.is_char_boundary(2) && text.is_char_boundary(4) {
            let from: Square = text[0..2].parse().map_err(|_| syntax())?;
            let to: Square = text[2..4].parse().map_err(|_| syntax())?;
            self.on_board(from)?;
            self.on_board(to)?;
            let promote = b.len() == 5;
            if let Some(&m) =
                legal.iter().find(|m| !m.is_drop() && m.from() == from && m.to() == to && m.is_promotion() == promote)
            {
                return Ok(m);
            }
            return Err(self.explain_board_move(from, to, promote, text, us));
        }
        Err(syntax())
    }

    /// `OffBoard` for a square past the edge of a smaller board.
    fn on_board(&self, sq: Square) -> Result<(), MoveError> {
        if self.variant().on_board(sq) {
            Ok(())
        } else {
            Err(MoveError::OffBoard(sq))
        }
    }

    fn explain_drop(&self, pt: PieceType, to: Square, text: &str) -> MoveError {
        if !self.variant().desc().drops {
            return MoveError::NoDrops;
        }
        let us = self.side_to_move();
        if !self.hand(us).has(pt) {
            return MoveError::NotInHand(pt);
        }
        if !self.piece_on(to).is_empty() {
            return MoveError::Occupied(to);
        }
        let far = self.variant().desc().far[us.index()];
        if (pt == PieceType::Pawn || pt == PieceType::Lance) && far[1].contains(to)
            || pt == PieceType::Knight && far[2].contains(to)
        {
            return MoveError::DeadDrop(text.to_string());
        }
        if pt == PieceType::Pawn && !pawn_drop_squares(self, us).contains(to) {
            return MoveError::Nifu(to);
        }
        if pt == PieceType::Pawn
            && is_pawn_drop_mate(self, to)
            && crate::attacks::pawn_attacks(us, to).contains(self.king_square(!us))
        {
            return MoveError::PawnDropMate(to);
        }
        MoveError::KingInCheck(text.to_string())
    }

    fn explain_board_move(&self, from: Square, to: Square, promote: bool, text: &str, us: Color) -> MoveError {
        let pc = self.piece_on(from);
        let Some(pt) = pc.kind_opt() else {
            return MoveError::NoPiece(from);
        };
        if pc.color() != us {
            return MoveError::NotYourPiece(from);
        }
        let dest = self.piece_on(to);
        if !dest.is_empty() && dest.color() == us {
            return MoveError::OwnPieceOnTarget(to);
        }
        if !attacks_of(us, pt, from, self.occupied()).contains(to) {
            return MoveError::CannotReach(text.to_string());
        }
        let desc = self.variant().desc();
        let zone = desc.zone[us.index()];
        if promote && (!pt.can_promote() || !(zone.contains(from) || zone.contains(to))) {
            return MoveError::CannotPromote(text.to_string());
        }
        if !promote {
            let far = desc.far[us.index()];
            if matches!(pt, PieceType::Pawn | PieceType::Lance) && far[1].contains(to)
                || pt == PieceType::Knight && far[2].contains(to)
            {
                return MoveError::MustPromote(text.to_string());
            }
        }
        MoveError::KingInCheck(text.to_string())
    }
}
