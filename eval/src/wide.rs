//! The board as one `u128` (bit = square index, file * 9 + rank), so a whole set of pieces
//! steps one way with a single shift: the positional term counts the attacks of all step
//! pieces at once instead of piece by piece.

use engine::Bitboard;

/// An 81-square set as one integer; bits 81 and up may hold squares shifted off the board
/// (the zone masks they are intersected with never contain them).
pub type Wide = u128;

/// The set of a bitboard (word 0 holds squares 0-62, word 1 squares 63-80).
#[inline(always)]
pub fn wide(b: Bitboard) -> Wide {
    let [w0, w1] = b.words();
    w0 as Wide | (w1 as Wide) << 63
}

/// Squares of one rank (0 = rank a) on every file.
const fn rank_mask(rank: u32) -> Wide {
    let mut m = 0;
    let mut f = 0;
    while f < 9 {
        m |= 1 << (f * 9 + rank);
        f += 1;
    }
    m
}

/// Each square of `set` moved `df` files and `dr` ranks (|dr| <= 2); squares that would
/// leave the board across a rank edge are dropped, those leaving across a file edge fall
/// outside the 81 board bits.
#[inline(always)]
pub fn step(set: Wide, df: i32, dr: i32) -> Wide {
    let src = match dr {
        -2 => set & !(rank_mask(0) | rank_mask(1)),
        -1 => set & !rank_mask(0),
        1 => set & !rank_mask(8),
        2 => set & !(rank_mask(7) | rank_mask(8)),
        _ => set,
    };
    let d = 9 * df + dr;
    if d >= 0 {
        src << d
    } else {
        src >> -d
    }
}

/// Number of squares in a set.
#[inline(always)]
pub fn count(set: Wide) -> i32 {
    set.count_ones() as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Square;

    #[test]
    fn steps_match_square_offsets() {
        for i in 0..81u8 {
            let sq = Square::new(i);
            let set = wide(Bitboard::from_square(sq));
            for df in -1..=1 {
                for dr in -2..=2 {
                    let want = sq.offset(df, dr).map_or(0, |s| wide(Bitboard::from_square(s)));
                    let board = wide(Bitboard::ALL);
                    assert_eq!(step(set, df, dr) & board, want, "{i} {df} {dr}");
                }
            }
        }
    }
}
