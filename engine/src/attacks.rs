//! Attack tables: step pieces from precomputed tables, the lance and the rook's file by the
//! file's 7-bit occupancy, the rook's rank and the bishop by magic bitboards over the merged
//! 81-square board. Every table is built once, on first use.

use crate::{Bitboard, Color, PieceType, Square, SQUARE_COUNT};
use std::sync::LazyLock;

/// One square's magic: `(((occupied & mask).merge()) * magic) >> shift` indexes `table[offset..]`.
/// The mask is applied before the two words are merged: unmasked, file 1 would alias file 8.
struct Magic {
    mask: [u64; 2],
    magic: u64,
    shift: u32,
    offset: u32,
}

struct Tables {
    /// Step attacks per colour for pawn, knight, silver, gold, king (indexed by kind).
    step: [[[Bitboard; SQUARE_COUNT]; 2]; 9],
    /// Attacks along the file for each 7-bit inner-file occupancy.
    file: Box<[[Bitboard; 128]; SQUARE_COUNT]>,
    /// Squares ahead of a square on its file, from each colour's point of view.
    forward: [[Bitboard; SQUARE_COUNT]; 2],
    bishop_magic: Vec<Magic>,
    bishop_table: Vec<Bitboard>,
    rank_magic: Vec<Magic>,
    rank_table: Vec<Bitboard>,
    bishop_empty: [Bitboard; SQUARE_COUNT],
    rook_empty: [Bitboard; SQUARE_COUNT],
    between: Box<[[Bitboard; SQUARE_COUNT]; SQUARE_COUNT]>,
    line: Box<[[Bitboard; SQUARE_COUNT]; SQUARE_COUNT]>,
}

include!("magics.in");

static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// Builds every table now (call at start-up of a search, so the first node pays nothing).
pub fn init() {
    LazyLock::force(&TABLES);
}

const KING_DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const BISHOP_DIRS: [(i32, i32); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
const ROOK_FILE_DIRS: [(i32, i32); 2] = [(0, -1), (0, 1)];
const ROOK_RANK_DIRS: [(i32, i32); 2] = [(-1, 0), (1, 0)];

/// Step directions (file, rank) for Black; rank -1 is forward. White mirrors the rank.
fn step_dirs(pt: PieceType) -> &'static [(i32, i32)] {
    match pt {
        PieceType::Pawn => &[(0, -1)],
        PieceType::Knight => &[(-1, -2), (1, -2)],
        PieceType::Silver => &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)],
        PieceType::Gold => &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)],
        _ => &KING_DIRS,
    }
}

/// Slider attacks by walking rays: slow, used only to build tables and in tests.
pub fn sliding_attacks_slow(sq: Square, occupied: Bitboard, dirs: &[(i32, i32)]) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let mut s = sq;
        while let Some(n) = s.offset(df, dr) {
            b |= Bitboard::from_square(n);
            if occupied.contains(n) {
                break;
            }
            s = n;
        }
    }
    b
}

/// The relevant-occupancy mask of a slider: its empty-board rays without the last square of
/// each ray (a piece on the edge never changes the attack set).
fn relevant_mask(sq: Square, dirs: &[(i32, i32)]) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let mut s = sq;
        while let Some(n) = s.offset(df, dr) {
            if n.offset(df, dr).is_none() {
                break;
            }
            b |= Bitboard::from_square(n);
            s = n;
        }
    }
    b
}

/// A deterministic xorshift generator for the magic search.
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

/// Finds a magic for every square and fills the shared attack table.
fn build_magics(
    dirs: &[(i32, i32)],
    seed: u64,
    known: Option<&[u64; SQUARE_COUNT]>,
) -> (Vec<Magic>, Vec<Bitboard>) {
    let mut rng = Rng(seed);
    let mut magics = Vec::with_capacity(SQUARE_COUNT);
    let mut table = Vec::new();
    for sq in Square::ALL {
        let mask_bb = relevant_mask(sq, dirs);
        let [m0, m1] = mask_bb.words();
        debug_assert_eq!(m0 & m1, 0, "mask words must not overlap when merged");
        let mask = m0 | m1;
        let bits = mask.count_ones();
        let size = 1usize << bits;
        // Enumerate every occupancy of the mask (carry-rippler) with its attack set.
        let mut occs = Vec::with_capacity(size);
        let mut s = 0u64;
        loop {
            let occ = Bitboard::from_words(s & m0, s & m1);
            occs.push((s, sliding_attacks_slow(sq, occ, dirs)));
            s = s.wrapping_sub(mask) & mask;
            if s == 0 {
                break;
            }
        }
        let shift = 64 - bits.max(1);
        let mut used = vec![0u32; size];
        let mut slot = vec![Bitboard::EMPTY; size];
        let mut epoch = 0u32;
        let mut candidates = known.map(|k| k[sq.index()]).into_iter();
        let magic = loop {
            let magic = candidates.next().unwrap_or_else(|| rng.sparse());
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 && bits > 8 {
                continue;
            }
            epoch += 1;
            let ok = occs.iter().all(|&(occ, att)| {
                let i = (occ.wrapping_mul(magic) >> shift) as usize;
                if used[i] != epoch {
                    used[i] = epoch;
                    slot[i] = att;
                    true
                } else {
                    slot[i] == att
                }
            });
            if ok {
                break magic;
            }
        };
        let offset = table.len() as u32;
        table.extend_from_slice(&slot);
        magics.push(Magic {
            mask: [m0, m1],
            magic,
            shift,
            offset,
        });
    }
    (magics, table)
}

impl Tables {
    fn build() -> Tables {
        let mut step = [[[Bitboard::EMPTY; SQUARE_COUNT]; 2]; 9];
        for pt in [
            PieceType::Pawn,
            PieceType::Knight,
            PieceType::Silver,
            PieceType::Gold,
            PieceType::King,
        ] {
            for c in Color::ALL {
                for sq in Square::ALL {
                    let mut b = Bitboard::EMPTY;
                    for &(df, dr) in step_dirs(pt) {
                        let dr = if c == Color::Black { dr } else { -dr };
                        if let Some(t) = sq.offset(df, dr) {
                            b |= Bitboard::from_square(t);
                        }
                    }
                    step[pt.index()][c.index()][sq.index()] = b;
                }
            }
        }
        let mut file = Box::new([[Bitboard::EMPTY; 128]; SQUARE_COUNT]);
        let mut forward = [[Bitboard::EMPTY; SQUARE_COUNT]; 2];
        for sq in Square::ALL {
            let fmask = Bitboard::file_mask(sq.file());
            for (idx, entry) in file[sq.index()].iter_mut().enumerate() {
                let mut occ = Bitboard::EMPTY;
                for r in 0..7u8 {
                    if idx >> r & 1 != 0 {
                        occ |= Bitboard::from_square(Square::from_coords(sq.file(), r + 1));
                    }
                }
                *entry = sliding_attacks_slow(sq, occ, &ROOK_FILE_DIRS);
            }
            let all = sliding_attacks_slow(sq, Bitboard::EMPTY, &ROOK_FILE_DIRS) & fmask;
            for s in all {
                let c = if s.rank() < sq.rank() {
                    Color::Black
                } else {
                    Color::White
                };
                forward[c.index()][sq.index()] |= Bitboard::from_square(s);
            }
        }
        let (bishop_magic, bishop_table) =
            build_magics(&BISHOP_DIRS, 0x9E37_79B9_7F4A_7C15, Some(&BISHOP_MAGICS));
        let (rank_magic, rank_table) =
            build_magics(&ROOK_RANK_DIRS, 0xD1B5_4A32_D192_ED03, Some(&RANK_MAGICS));
        let mut bishop_empty = [Bitboard::EMPTY; SQUARE_COUNT];
        let mut rook_empty = [Bitboard::EMPTY; SQUARE_COUNT];
        for sq in Square::ALL {
            bishop_empty[sq.index()] = sliding_attacks_slow(sq, Bitboard::EMPTY, &BISHOP_DIRS);
            rook_empty[sq.index()] = sliding_attacks_slow(sq, Bitboard::EMPTY, &ROOK_FILE_DIRS)
                | sliding_attacks_slow(sq, Bitboard::EMPTY, &ROOK_RANK_DIRS);
        }
        let mut between = Box::new([[Bitboard::EMPTY; SQUARE_COUNT]; SQUARE_COUNT]);
        let mut line = Box::new([[Bitboard::EMPTY; SQUARE_COUNT]; SQUARE_COUNT]);
        for a in Square::ALL {
            for &(df, dr) in &KING_DIRS {
                let ray = sliding_attacks_slow(a, Bitboard::EMPTY, &[(df, dr)]);
                let back = sliding_attacks_slow(a, Bitboard::EMPTY, &[(-df, -dr)]);
                for b in ray {
                    let b_bb = Bitboard::from_square(b);
                    between[a.index()][b.index()] =
                        ray & sliding_attacks_slow(b, Bitboard::EMPTY, &[(-df, -dr)]) & !b_bb;
                    line[a.index()][b.index()] = ray | back | Bitboard::from_square(a);
                }
            }
        }
        Tables {
            step,
            file,
            forward,
            bishop_magic,
            bishop_table,
            rank_magic,
            rank_table,
            bishop_empty,
            rook_empty,
            between,
            line,
        }
    }
}

#[inline(always)]
fn tables() -> &'static Tables {
    &TABLES
}

#[inline(always)]
fn magic_lookup(magics: &[Magic], table: &[Bitboard], sq: Square, occupied: Bitboard) -> Bitboard {
    let m = &magics[sq.index()];
    let [o0, o1] = occupied.words();
    let merged = (o0 & m.mask[0]) | (o1 & m.mask[1]);
    let i = (merged.wrapping_mul(m.magic) >> m.shift) as usize;
    table[m.offset as usize + i]
}

/// Squares a pawn of colour `c` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    tables().step[PieceType::Pawn as usize][c.index()][sq.index()]
}

/// Squares a knight of colour `c` on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    tables().step[PieceType::Knight as usize][c.index()][sq.index()]
}

/// Squares a silver of colour `c` on `sq` attacks.
#[inline(always)]
pub fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    tables().step[PieceType::Silver as usize][c.index()][sq.index()]
}

/// Squares a gold (or tokin, promoted lance/knight/silver) of colour `c` on `sq` attacks.
#[inline(always)]
pub fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    tables().step[PieceType::Gold as usize][c.index()][sq.index()]
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    tables().step[PieceType::King as usize][0][sq.index()]
}

/// Squares a lance of colour `c` on `sq` attacks given the occupancy.
#[inline(always)]
pub fn lance_attacks(c: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    let t = tables();
    t.file[sq.index()][occupied.file_index(sq)] & t.forward[c.index()][sq.index()]
}

/// Squares ahead of `sq` on its file for colour `c` (a lance's attacks on an empty board).
#[inline(always)]
pub fn forward_ray(c: Color, sq: Square) -> Bitboard {
    tables().forward[c.index()][sq.index()]
}

/// Squares a bishop on `sq` attacks given the occupancy.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = tables();
    magic_lookup(&t.bishop_magic, &t.bishop_table, sq, occupied)
}

/// Squares a rook on `sq` attacks given the occupancy.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = tables();
    t.file[sq.index()][occupied.file_index(sq)]
        | magic_lookup(&t.rank_magic, &t.rank_table, sq, occupied)
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

/// Bishop attacks on an empty board.
#[inline(always)]
pub fn bishop_pseudo(sq: Square) -> Bitboard {
    tables().bishop_empty[sq.index()]
}

/// Rook attacks on an empty board.
#[inline(always)]
pub fn rook_pseudo(sq: Square) -> Bitboard {
    tables().rook_empty[sq.index()]
}

/// Squares strictly between `a` and `b` when they share a line, else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    tables().between[a.index()][b.index()]
}

/// The whole line through `a` and `b` (both included) when they share one, else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    tables().line[a.index()][b.index()]
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline(always)]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

/// Squares a piece of colour `c` and kind `pt` on `sq` attacks given the occupancy.
#[inline]
pub fn attacks_of(c: Color, pt: PieceType, sq: Square, occupied: Bitboard) -> Bitboard {
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
        _ => gold_attacks(c, sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                assert_eq!(
                    bishop_attacks(sq, occ),
                    sliding_attacks_slow(sq, occ, &BISHOP_DIRS)
                );
                assert_eq!(
                    rook_attacks(sq, occ),
                    sliding_attacks_slow(sq, occ, &rook_dirs)
                );
                assert_eq!(
                    lance_attacks(Color::Black, sq, occ),
                    sliding_attacks_slow(sq, occ, &[(0, -1)])
                );
                assert_eq!(
                    lance_attacks(Color::White, sq, occ),
                    sliding_attacks_slow(sq, occ, &[(0, 1)])
                );
            }
        }
    }

    #[test]
    #[ignore = "prints the magic numbers to paste into MAGIC_SEEDS"]
    fn print_magics() {
        let (b, _) = build_magics(&BISHOP_DIRS, 0x9E37_79B9_7F4A_7C15, None);
        let (r, _) = build_magics(&ROOK_RANK_DIRS, 0xD1B5_4A32_D192_ED03, None);
        println!(
            "BISHOP {:?}",
            b.iter()
                .map(|m| format!("{:#018x}", m.magic))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
            "RANK {:?}",
            r.iter()
                .map(|m| format!("{:#018x}", m.magic))
                .collect::<Vec<_>>()
                .join(", ")
        );
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
