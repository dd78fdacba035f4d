//! Attack tables: step pieces from precomputed tables, the lance and the rook's file by the
//! file's 7-bit occupancy, the rook's rank and the bishop by magic bitboards over the merged
//! 81-square board. Every table is computed at compile time (`const fn`), so there is no
//! start-up cost and no lazy-initialisation check on the hot path.

use crate::{Bitboard, Color, PieceType, Square, SQUARE_COUNT};

include!("magics.in");

/// Kept for callers that want to warm tables up; the tables are compile-time constants.
pub fn init() {}

type Dirs = [(i32, i32)];
const KING_DIRS: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
const ROOK_FILE_DIRS: [(i32, i32); 2] = [(0, -1), (0, 1)];
const ROOK_RANK_DIRS: [(i32, i32); 2] = [(-1, 0), (1, 0)];
const PAWN_DIRS: [(i32, i32); 1] = [(0, -1)];
const KNIGHT_DIRS: [(i32, i32); 2] = [(-1, -2), (1, -2)];
const SILVER_DIRS: [(i32, i32); 5] = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD_DIRS: [(i32, i32); 6] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
/// Sho shogi's drunk elephant, Betza `FsfW` (Fairy-Stockfish's definition): the four diagonals,
/// straight forward and the two sideways steps; everything but straight back.
const ELEPHANT_DIRS: [(i32, i32); 7] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)];

/// Slider attacks by walking rays (a blocker is included, squares behind it are not).
pub const fn sliding_attacks_slow(sq: Square, occupied: Bitboard, dirs: &Dirs) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    let mut d = 0;
    while d < dirs.len() {
        let (df, dr) = dirs[d];
        let mut s = sq;
        while let Some(n) = s.offset(df, dr) {
            b = b.or(Bitboard::from_square(n));
            if occupied.contains(n) {
                break;
            }
            s = n;
        }
        d += 1;
    }
    b
}

/// The relevant-occupancy mask of a slider: its empty-board rays without the last square of
/// each ray (a piece on the edge never changes the attack set).
const fn relevant_mask(sq: Square, dirs: &Dirs) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    let mut d = 0;
    while d < dirs.len() {
        let (df, dr) = dirs[d];
        let mut s = sq;
        while let Some(n) = s.offset(df, dr) {
            if n.offset(df, dr).is_none() {
                break;
            }
            b = b.or(Bitboard::from_square(n));
            s = n;
        }
        d += 1;
    }
    b
}

/// Step attacks for Black's direction set; White mirrors the rank.
const fn step_table(dirs: &Dirs) -> [[Bitboard; SQUARE_COUNT]; 2] {
    let mut t = [[Bitboard::EMPTY; SQUARE_COUNT]; 2];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        let mut d = 0;
        while d < dirs.len() {
            let (df, dr) = dirs[d];
            if let Some(n) = sq.offset(df, dr) {
                t[0][i] = t[0][i].or(Bitboard::from_square(n));
            }
            if let Some(n) = sq.offset(df, -dr) {
                t[1][i] = t[1][i].or(Bitboard::from_square(n));
            }
            d += 1;
        }
        i += 1;
    }
    t
}

static PAWN: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&PAWN_DIRS);
static KNIGHT: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&KNIGHT_DIRS);
static SILVER: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&SILVER_DIRS);
static GOLD: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&GOLD_DIRS);
static KING: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&KING_DIRS);
static ELEPHANT: [[Bitboard; SQUARE_COUNT]; 2] = step_table(&ELEPHANT_DIRS);

/// Attacks along the file for each 7-bit inner-file occupancy.
static FILE: [[Bitboard; 128]; SQUARE_COUNT] = {
    let mut t = [[Bitboard::EMPTY; 128]; SQUARE_COUNT];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        let mut idx = 0;
        while idx < 128 {
            let mut occ = Bitboard::EMPTY;
            let mut r = 0u8;
            while r < 7 {
                if idx >> r & 1 != 0 {
                    occ = occ.or(Bitboard::from_square(Square::from_coords(sq.file(), r + 1)));
                }
                r += 1;
            }
            t[i][idx] = sliding_attacks_slow(sq, occ, &ROOK_FILE_DIRS);
            idx += 1;
        }
        i += 1;
    }
    t
};

/// Squares ahead of a square on its file, from each colour's point of view.
static FORWARD: [[Bitboard; SQUARE_COUNT]; 2] = {
    let mut t = [[Bitboard::EMPTY; SQUARE_COUNT]; 2];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        t[0][i] = sliding_attacks_slow(sq, Bitboard::EMPTY, &[(0, -1)]);
        t[1][i] = sliding_attacks_slow(sq, Bitboard::EMPTY, &[(0, 1)]);
        i += 1;
    }
    t
};

/// One square's magic: `(((occupied & mask).merge()) * magic) >> shift` indexes the table from
/// `offset`. The mask is applied before the two words are merged: unmasked, file 1 would alias
/// file 8.
#[derive(Clone, Copy)]
struct Magic {
    mask: [u64; 2],
    magic: u64,
    shift: u32,
    offset: u32,
}

/// The magics of one slider direction set, and the total table size they need.
const fn magics(dirs: &Dirs, numbers: &[u64; SQUARE_COUNT]) -> ([Magic; SQUARE_COUNT], usize) {
    let mut m = [Magic { mask: [0, 0], magic: 0, shift: 0, offset: 0 }; SQUARE_COUNT];
    let mut offset = 0usize;
    let mut i = 0;
    while i < SQUARE_COUNT {
        let mask = relevant_mask(Square::new(i as u8), dirs);
        let bits = mask.count();
        m[i] = Magic { mask: mask.words(), magic: numbers[i], shift: 64 - bits, offset: offset as u32 };
        offset += 1 << bits;
        i += 1;
    }
    (m, offset)
}

/// Fills a magic attack table; a colliding magic number fails the build (const panic).
const fn magic_table<const N: usize>(dirs: &Dirs, m: &[Magic; SQUARE_COUNT]) -> [Bitboard; N] {
    let mut t = [Bitboard::EMPTY; N];
    let mut filled = [false; N];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        let [m0, m1] = m[i].mask;
        let mask = m0 | m1;
        let mut s = 0u64;
        loop {
            let occ = Bitboard::from_words(s & m0, s & m1);
            let att = sliding_attacks_slow(sq, occ, dirs);
            let idx = m[i].offset as usize + (s.wrapping_mul(m[i].magic) >> m[i].shift) as usize;
            if filled[idx] {
                let [a0, a1] = att.words();
                let [b0, b1] = t[idx].words();
                assert!(a0 == b0 && a1 == b1, "magic number collision");
            }
            filled[idx] = true;
            t[idx] = att;
            s = s.wrapping_sub(mask) & mask;
            if s == 0 {
                break;
            }
        }
        i += 1;
    }
    t
}

const BISHOP_MAGICS_AND_SIZE: ([Magic; SQUARE_COUNT], usize) = magics(&BISHOP_DIRS, &BISHOP_MAGIC_NUMBERS);
const RANK_MAGICS_AND_SIZE: ([Magic; SQUARE_COUNT], usize) = magics(&ROOK_RANK_DIRS, &RANK_MAGIC_NUMBERS);
static BISHOP_MAGIC: [Magic; SQUARE_COUNT] = BISHOP_MAGICS_AND_SIZE.0;
static RANK_MAGIC: [Magic; SQUARE_COUNT] = RANK_MAGICS_AND_SIZE.0;
static BISHOP_TABLE: [Bitboard; BISHOP_MAGICS_AND_SIZE.1] = magic_table(&BISHOP_DIRS, &BISHOP_MAGICS_AND_SIZE.0);
static RANK_TABLE: [Bitboard; RANK_MAGICS_AND_SIZE.1] = magic_table(&ROOK_RANK_DIRS, &RANK_MAGICS_AND_SIZE.0);

static BISHOP_EMPTY: [Bitboard; SQUARE_COUNT] = {
    let mut t = [Bitboard::EMPTY; SQUARE_COUNT];
    let mut i = 0;
    while i < SQUARE_COUNT {
        t[i] = sliding_attacks_slow(Square::new(i as u8), Bitboard::EMPTY, &BISHOP_DIRS);
        i += 1;
    }
    t
};

static ROOK_EMPTY: [Bitboard; SQUARE_COUNT] = {
    let mut t = [Bitboard::EMPTY; SQUARE_COUNT];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        t[i] = sliding_attacks_slow(sq, Bitboard::EMPTY, &ROOK_FILE_DIRS).or(sliding_attacks_slow(
            sq,
            Bitboard::EMPTY,
            &ROOK_RANK_DIRS,
        ));
        i += 1;
    }
    t
};

/// Squares within two files and three ranks of a square: where a step piece (a knight
/// included) must stand to attack any square next to it.
static NEAR: [Bitboard; SQUARE_COUNT] = {
    let mut t = [Bitboard::EMPTY; SQUARE_COUNT];
    let mut i = 0;
    while i < SQUARE_COUNT {
        let sq = Square::new(i as u8);
        let mut df = -2;
        while df <= 2 {
            let mut dr = -3;
            while dr <= 3 {
                if let Some(n) = sq.offset(df, dr) {
                    t[i] = t[i].or(Bitboard::from_square(n));
                }
                dr += 1;
            }
            df += 1;
        }
        i += 1;
    }
    t
};

/// `[0][a][b]`: squares strictly between `a` and `b`; `[1][a][b]`: the whole line through both.
static BETWEEN_LINE: [[[Bitboard; SQUARE_COUNT]; SQUARE_COUNT]; 2] = {
    let mut t = [[[Bitboard::EMPTY; SQUARE_COUNT]; SQUARE_COUNT]; 2];
    let mut a = 0;
    while a < SQUARE_COUNT {
        let sa = Square::new(a as u8);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = KING_DIRS[d];
            let ray = sliding_attacks_slow(sa, Bitboard::EMPTY, &[(df, dr)]);
            let back = sliding_attacks_slow(sa, Bitboard::EMPTY, &[(-df, -dr)]);
            let full = ray.or(back).or(Bitboard::from_square(sa));
            let mut s = sa;
            while let Some(n) = s.offset(df, dr) {
                let towards = sliding_attacks_slow(n, Bitboard::EMPTY, &[(-df, -dr)]);
                t[0][a][n.index()] = ray.and(towards).and_not(Bitboard::from_square(n));
                t[1][a][n.index()] = full;
                s = n;
            }
            d += 1;
        }
        a += 1;
    }
    t
};

#[inline(always)]
fn magic_lookup(m: &Magic, table: &[Bitboard], occupied: Bitboard) -> Bitboard {
    let [o0, o1] = occupied.words();
    let merged = (o0 & m.mask[0]) | (o1 & m.mask[1]);
    table[m.offset as usize + (merged.wrapping_mul(m.magic) >> m.shift) as usize]
}

/// Squares a pawn of colour `c` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    PAWN[c.index()][sq.index()]
}

/// Squares a knight of colour `c` on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    KNIGHT[c.index()][sq.index()]
}

/// Squares a silver of colour `c` on `sq` attacks.
#[inline(always)]
pub fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    SILVER[c.index()][sq.index()]
}

/// Squares a gold (or tokin, promoted lance/knight/silver) of colour `c` on `sq` attacks.
#[inline(always)]
pub fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    GOLD[c.index()][sq.index()]
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING[0][sq.index()]
}

/// Squares a drunk elephant (Sho shogi) of colour `c` on `sq` attacks.
#[inline(always)]
pub fn elephant_attacks(c: Color, sq: Square) -> Bitboard {
    ELEPHANT[c.index()][sq.index()]
}

/// Squares a lance of colour `c` on `sq` attacks given the occupancy.
#[inline(always)]
pub fn lance_attacks(c: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    FILE[sq.index()][occupied.file_index(sq)] & FORWARD[c.index()][sq.index()]
}

/// Squares ahead of `sq` on its file for colour `c` (a lance's attacks on an empty board).
#[inline(always)]
pub fn forward_ray(c: Color, sq: Square) -> Bitboard {
    FORWARD[c.index()][sq.index()]
}

/// Squares a bishop on `sq` attacks given the occupancy.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGIC[sq.index()], &BISHOP_TABLE, occupied)
}

/// Squares a rook on `sq` attacks given the occupancy.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    FILE[sq.index()][occupied.file_index(sq)] | magic_lookup(&RANK_MAGIC[sq.index()], &RANK_TABLE, occupied)
}

/// Squares a horse (promoted bishop) on `sq` attacks.
#[inline(always)]
pub fn horse_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    bishop_attacks(sq, occupied) | king_attacks(sq)
}

/// Squares a dragon (promoted rook) on `sq` attacks.
#[inline(always)]
pub fn dragon_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | king_attacks(sq)
}

/// Squares within two files and three ranks of `sq`: every step piece (knights included)
/// that attacks a square next to `sq` stands here.
#[inline(always)]
pub fn near(sq: Square) -> Bitboard {
    NEAR[sq.index()]
}

/// Bishop attacks on an empty board.
#[inline(always)]
pub fn bishop_pseudo(sq: Square) -> Bitboard {
    BISHOP_EMPTY[sq.index()]
}

/// Rook attacks on an empty board.
#[inline(always)]
pub fn rook_pseudo(sq: Square) -> Bitboard {
    ROOK_EMPTY[sq.index()]
}

/// Squares strictly between `a` and `b` when they share a line, else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN_LINE[0][a.index()][b.index()]
}

/// The whole line through `a` and `b` (both included) when they share one, else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    BETWEEN_LINE[1][a.index()][b.index()]
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline(always)]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

/// Squares a piece of colour `c` and kind `pt` on `sq` attacks given the occupancy.
#[inline]
pub fn attacks_of(c: Color, pt: PieceType, sq: Square, occupied: Bitboard) -> Bitboard {
    piece_attacks(c, pt, sq, occupied)
}

/// `attacks_of`, always inlined: for callers whose `pt` (and `c`) are constants, so that the
/// dispatch on the kind disappears.
#[inline(always)]
pub fn piece_attacks(c: Color, pt: PieceType, sq: Square, occupied: Bitboard) -> Bitboard {
    match pt {
        PieceType::Pawn => pawn_attacks(c, sq),
        PieceType::Lance => lance_attacks(c, sq, occupied),
        PieceType::Knight => knight_attacks(c, sq),
        PieceType::Silver => silver_attacks(c, sq),
        PieceType::Bishop => bishop_attacks(sq, occupied),
        PieceType::Rook => rook_attacks(sq, occupied),
        PieceType::King => king_attacks(sq),
        PieceType::Horse => horse_attacks(sq, occupied),
        PieceType::Dragon => dragon_attacks(sq, occupied),
        PieceType::Elephant => elephant_attacks(c, sq),
        _ => gold_attacks(c, sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic xorshift generator (magic search, random occupancies).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn sparse(&mut self) -> u64 {
            self.next() & self.next() & self.next()
        }
    }

    /// Searches a magic number for every square (how `magics.in` was made).
    fn find_magics(dirs: &Dirs, seed: u64) -> Vec<u64> {
        let mut rng = Rng(seed);
        Square::ALL
            .iter()
            .map(|&sq| {
                let [m0, m1] = relevant_mask(sq, dirs).words();
                let mask = m0 | m1;
                let bits = mask.count_ones();
                let mut occs = Vec::new();
                let mut s = 0u64;
                loop {
                    occs.push((s, sliding_attacks_slow(sq, Bitboard::from_words(s & m0, s & m1), dirs)));
                    s = s.wrapping_sub(mask) & mask;
                    if s == 0 {
                        break;
                    }
                }
                loop {
                    let magic = rng.sparse();
                    let mut slot = vec![None; 1 << bits];
                    let ok = occs.iter().all(|&(occ, att)| {
                        let e = &mut slot[(occ.wrapping_mul(magic) >> (64 - bits)) as usize];
                        *e.get_or_insert(att) == att
                    });
                    if ok {
                        return magic;
                    }
                }
            })
            .collect()
    }

    #[test]
    #[ignore = "prints fresh magic numbers for magics.in"]
    fn print_magics() {
        for (name, dirs, seed) in [
            ("BISHOP", &BISHOP_DIRS[..], 0x9E37_79B9_7F4A_7C15u64),
            ("RANK", &ROOK_RANK_DIRS[..], 0xD1B5_4A32_D192_ED03),
        ] {
            let m = find_magics(dirs, seed);
            println!("{name} {}", m.iter().map(|x| format!("{x:#018x}")).collect::<Vec<_>>().join(", "));
        }
    }

    fn random_occupancy(rng: &mut Rng) -> Bitboard {
        let [a, b] = Bitboard::ALL.words();
        Bitboard::from_words(rng.next() & rng.next() & a, rng.next() & rng.next() & b)
    }

    #[test]
    fn magic_sliders_match_ray_walking() {
        let mut rng = Rng(12345);
        for _ in 0..300 {
            let occ = random_occupancy(&mut rng);
            for sq in Square::ALL {
                let rook_dirs = [ROOK_FILE_DIRS, ROOK_RANK_DIRS].concat();
                assert_eq!(bishop_attacks(sq, occ), sliding_attacks_slow(sq, occ, &BISHOP_DIRS));
                assert_eq!(rook_attacks(sq, occ), sliding_attacks_slow(sq, occ, &rook_dirs));
                assert_eq!(lance_attacks(Color::Black, sq, occ), sliding_attacks_slow(sq, occ, &[(0, -1)]));
                assert_eq!(lance_attacks(Color::White, sq, occ), sliding_attacks_slow(sq, occ, &[(0, 1)]));
            }
        }
    }

    #[test]
    fn step_tables_have_expected_sizes() {
        let e5: Square = "5e".parse().unwrap();
        assert_eq!(king_attacks(e5).count(), 8);
        assert_eq!(gold_attacks(Color::Black, e5).count(), 6);
        assert_eq!(silver_attacks(Color::White, e5).count(), 5);
        assert_eq!(
            knight_attacks(Color::Black, e5),
            Bitboard::from_square("4c".parse().unwrap()) | "6c".parse::<Square>().unwrap()
        );
        assert!(knight_attacks(Color::Black, "5b".parse().unwrap()).is_empty());
        // The elephant: all eight king steps but straight back (5f for Black, 5d for White).
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(elephant_attacks(Color::Black, e5), king_attacks(e5).and_not(Bitboard::from_square(sq("5f"))));
        assert_eq!(elephant_attacks(Color::White, e5), king_attacks(e5).and_not(Bitboard::from_square(sq("5d"))));
    }

    #[test]
    fn between_and_line() {
        let a: Square = "1a".parse().unwrap();
        let b: Square = "5e".parse().unwrap();
        assert_eq!(between(a, b).count(), 3);
        assert!(aligned(a, b, "9i".parse().unwrap()));
        assert!(between(a, "2c".parse().unwrap()).is_empty());
        assert!(line(a, "2c".parse().unwrap()).is_empty());
    }
}
