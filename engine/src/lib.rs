//! Kaname's rules core: everything that knows the rules of shogi (and of the variants in
//! `variant`) and nothing else.
//!
//! Squares and pieces (`square`, `piece`, `hand`, `color`), moves (`moves`), the 81-square
//! bitboard and attack tables (`bitboard`, `attacks`), the position with do/undo and keys
//! (`position`, `zobrist`), SFEN and USI move text (`sfen`, `notation`),
//! YaneuraOu's packed training records (`packed_sfen`), legal move generation
//! (`movegen`), static exchange (`see`), game-end rules (`rules`) and perft.
//!
//! One module is not about shogi: `hugemem`, the huge-page memory of the big tables (the
//! search's hash tables, a YaneuraOu net's weights). It lives here, the bottom layer, so
//! every crate above can reach it without importing sideways.

#![deny(missing_docs)]

pub mod attacks;
mod bitboard;
mod checks;
mod color;
mod hand;
pub mod hugemem;
mod mate1;
mod movegen;
mod moves;
mod notation;
mod packed_sfen;
mod perft;
mod piece;
mod position;
mod rules;
mod see;
mod sfen;
mod square;
mod variant;
pub mod zobrist;

pub use bitboard::{Bitboard, BitboardIter};
pub use checks::{generate_checks, generate_contact_checks};
pub use color::Color;
pub use hand::Hand;
pub use mate1::{
    contact_mate_in_1, find_mate_in_1, first_mating_check, flights_left, free_flights, is_mate_after_check,
};
pub use movegen::{generate, generate_legal, is_pawn_drop_mate, pawn_drop_squares, GenKind};
pub use moves::{Move, MoveList, MoveSink, StackList, FROM_OR_DROP_NB, MAX_MOVES};
pub use notation::MoveError;
pub use packed_sfen::{
    move16, move_from_move16, pack, unpack, PackError, PackedSfenError, PackedSfenValue, PACKED_SFEN_BYTES, PSV_BYTES,
};
pub use perft::{perft, perft_divide, perft_divide_with, perft_with, LastPly};
pub use piece::{Piece, PieceType, PIECE_NB, PIECE_TYPE_NB, PROMOTED};
pub use position::{Position, StateInfo, START_SFEN};
pub use rules::{EnteringKingRule, Repetition};
pub use see::see_value;
pub use sfen::{SfenError, MAX_MOVE_NUMBER};
pub use square::{ParseSquareError, Square, BOARD_SIZE, SQUARE_COUNT};
pub use variant::{Desc, Minishogi, ShoShogi, Shogi, UnknownVariant, Variant, VariantId};
