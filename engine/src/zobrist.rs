//! Zobrist keys. The board key XORs one key per (piece, square) and carries the side to move in
//! bit 0; the hand key *adds* one key per piece held. Keeping the two apart lets repetition
//! detection see "same board, different hands" (superior/inferior positions) cheaply.

use crate::{Color, Piece, PieceType, PIECE_NB, SQUARE_COUNT};

/// The key bit that is set when White is to move.
pub const SIDE_KEY: u64 = 1;

struct Keys {
    psq: [[u64; SQUARE_COUNT]; PIECE_NB],
    hand: [[u64; 8]; 2],
}

/// One step of splitmix64: the next state and its key (bit 0 cleared for the side to move).
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, (z ^ (z >> 31)) & !SIDE_KEY)
}

/// The keys, computed at compile time (a lazily initialised table cost an atomic check on
/// every lookup in `do_move`). splitmix64 with a fixed seed: identical on every run and
/// platform; the piece-square keys first, then the hand keys.
static KEYS: Keys = {
    let mut state = 0x4B41_4E41_4D45_u64;
    let mut psq = [[0; SQUARE_COUNT]; PIECE_NB];
    let mut p = 0;
    while p < PIECE_NB {
        let mut sq = 0;
        while sq < SQUARE_COUNT {
            let (s, k) = splitmix(state);
            state = s;
            psq[p][sq] = k;
            sq += 1;
        }
        p += 1;
    }
    let mut hand = [[0; 8]; 2];
    let mut c = 0;
    while c < 2 {
        let mut pt = 0;
        while pt < 8 {
            let (s, k) = splitmix(state);
            state = s;
            hand[c][pt] = k;
            pt += 1;
        }
        c += 1;
    }
    Keys { psq, hand }
};

/// The key of `piece` standing on square index `sq`.
#[inline(always)]
pub fn psq(piece: Piece, sq: usize) -> u64 {
    KEYS.psq[piece.index()][sq]
}

/// The amount one piece of kind `pt` in `c`'s hand adds to the hand key.
#[inline(always)]
pub fn hand(c: Color, pt: PieceType) -> u64 {
    KEYS.hand[c.index()][pt.index()]
}
