//! The feature transformer's outputs ("accumulator") of a YaneuraOu net, `L1` lanes per
//! perspective: a refresh from the position, and the update from a parent's accumulator by
//! the rows of the inputs a move removes and adds. Sums wrap in i16, as YaneuraOu's SIMD adds
//! do (`vec_add_16`), so every order of adding the same rows gives the same lanes.

use super::network::YoNet;
use engine::{Bitboard, Color, Hand, Piece, PieceType, Position};

/// One perspective's lanes, aligned to a cache line.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lanes<const L1: usize>(pub [i16; L1]);

/// `dst = src - rows(removed) + rows(added)`.
#[inline]
pub fn add_sub<const L1: usize>(net: &YoNet, dst: &mut [i16; L1], src: &[i16; L1], removed: &[usize], added: &[usize]) {
    #[cfg(target_arch = "x86_64")]
    if net.simd != super::network::Simd::Portable {
        // SAFETY: both SIMD paths are set only when the CPU reported AVX2 (`Simd::detect`).
        unsafe { add_sub_avx2(net, dst, src, removed, added) };
        return;
    }
    add_sub_portable(net, dst, src, removed, added);
}

/// `add_sub` in portable code.
pub fn add_sub_portable<const L1: usize>(
    net: &YoNet,
    dst: &mut [i16; L1],
    src: &[i16; L1],
    removed: &[usize],
    added: &[usize],
) {
    *dst = *src;
    for &f in removed {
        for (d, &w) in dst.iter_mut().zip(net.row(f)) {
            *d = d.wrapping_sub(w);
        }
    }
    for &f in added {
        for (d, &w) in dst.iter_mut().zip(net.row(f)) {
            *d = d.wrapping_add(w);
        }
    }
}

/// Lanes `add_sub_avx2` keeps in registers at a time: eight registers of 16 i16, half of
/// AVX2's sixteen, so nothing spills.
#[cfg(target_arch = "x86_64")]
const TILE: usize = 128;

/// `add_sub` with AVX2, a tile of `TILE` lanes at a time: the tile of `src` is loaded into
/// registers, every row's tile added or subtracted there, and the tile stored to `dst`.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2<const L1: usize>(
    net: &YoNet,
    dst: &mut [i16; L1],
    src: &[i16; L1],
    removed: &[usize],
    added: &[usize],
) {
    use std::arch::x86_64::*;
    const { assert!(L1.is_multiple_of(TILE)) };
    for t in (0..L1).step_by(TILE) {
        // SAFETY (all loads and stores): t + TILE <= L1 and j < TILE / 16, so the 32 bytes at
        // lane t + 16 j are inside `src`, `dst` or a row (`YoNet::row` slices exactly L1
        // lanes, checked by its bounds); unaligned forms.
        let mut acc: [__m256i; TILE / 16] =
            std::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.as_ptr().add(t + 16 * j).cast()) });
        for &f in removed {
            let row = net.row(f);
            assert!(row.len() == L1);
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_sub_epi16(*a, unsafe { _mm256_loadu_si256(row.as_ptr().add(t + 16 * j).cast()) });
            }
        }
        for &f in added {
            let row = net.row(f);
            assert!(row.len() == L1);
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_epi16(*a, unsafe { _mm256_loadu_si256(row.as_ptr().add(t + 16 * j).cast()) });
            }
        }
        for (j, a) in acc.iter().enumerate() {
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(t + 16 * j).cast(), *a) };
        }
    }
}

/// The last accumulator computed for each perspective and own-king square, with the
/// position it was computed for (Stockfish's "Finny tables", which Kaname's own nets use too):
/// a HalfKP refresh, needed whenever a king moves (every input depends on its square),
/// starts from the cached accumulator of the king's new square and applies only the pieces
/// that differ, usually a few, instead of adding 38 rows to the biases. YaneuraOu refreshes
/// from the biases. An entry is empty until its square's first refresh, which is a full one.
///
/// One per search thread: 2 perspectives x 81 squares x (2 L1 + 470) bytes, 0.16 MB for
/// L1 = 256, 0.41 MB for 1024.
pub struct RefreshCache<const L1: usize> {
    entries: Vec<CacheEntry<L1>>,
}

/// One perspective's accumulator for one king square, and the pieces it was computed for.
#[derive(Clone, Copy)]
struct CacheEntry<const L1: usize> {
    lanes: Lanes<L1>,
    /// `pieces[c][i]`: the squares of `c`'s pieces of kind `PieceType::ALL[i]` (kings unused).
    pieces: [[Bitboard; 14]; 2],
    hands: [Hand; 2],
    /// Inputs of missing pieces (`BONA_PIECE_ZERO`) included.
    zeros: u8,
    valid: bool,
}

impl<const L1: usize> Default for RefreshCache<L1> {
    fn default() -> Self {
        let empty = CacheEntry {
            lanes: Lanes([0; L1]),
            pieces: [[Bitboard::EMPTY; 14]; 2],
            hands: [Hand::EMPTY; 2],
            zeros: 0,
            valid: false,
        };
        RefreshCache { entries: vec![empty; 2 * 81] }
    }
}

impl<const L1: usize> RefreshCache<L1> {
    /// `dst` = the HalfKP accumulator of `view` in `pos`, through the cache.
    pub fn refresh(&mut self, net: &YoNet, pos: &Position, view: Color, dst: &mut [i16; L1]) {
        use super::features::{self as f, Features, HalfKP, PIECE_SLOTS};
        let base = HalfKP::base(pos, view);
        let e = &mut self.entries[view.index() * 81 + base / super::shape::FE_END];
        let (mut removed, mut added) = ([0usize; 2 * PIECE_SLOTS], [0usize; 2 * PIECE_SLOTS]);
        let (mut nr, mut na) = (0, 0);
        if !e.valid {
            let biases: &[i16; L1] = net.biases().try_into().expect("L1 biases");
            e.lanes.0 = *biases;
            *e =
                CacheEntry { pieces: [[Bitboard::EMPTY; 14]; 2], hands: [Hand::EMPTY; 2], zeros: 0, valid: true, ..*e };
        }
        for c in Color::ALL {
            for (i, pt) in PieceType::ALL.into_iter().enumerate() {
                let (old, new) = (e.pieces[c.index()][i], pos.pieces(c, pt));
                if pt == PieceType::King || old == new {
                    continue;
                }
                let pc = Piece::new(c, pt);
                for sq in old.and_not(new) {
                    removed[nr] = base + f::board(view, pc, sq) as usize;
                    nr += 1;
                }
                for sq in new.and_not(old) {
                    added[na] = base + f::board(view, pc, sq) as usize;
                    na += 1;
                }
                e.pieces[c.index()][i] = new;
            }
        }
        for owner in Color::ALL {
            let (old, new) = (e.hands[owner.index()], pos.hand(owner));
            if old == new {
                continue;
            }
            for pt in PieceType::HAND {
                // A thermometer: from a held to b held removes b+1..=a or adds a+1..=b.
                let (a, b) = (old.count(pt), new.count(pt));
                for nth in b + 1..=a {
                    removed[nr] = base + f::hand(view, owner, pt, nth) as usize;
                    nr += 1;
                }
                for nth in a + 1..=b {
                    added[na] = base + f::hand(view, owner, pt, nth) as usize;
                    na += 1;
                }
            }
            e.hands[owner.index()] = new;
        }
        // The empty slots of missing pieces: one input `base + BONA_PIECE_ZERO` each.
        let zeros = PIECE_SLOTS.saturating_sub(f::piece_count(pos)) as u8;
        for _ in zeros..e.zeros {
            removed[nr] = base;
            nr += 1;
        }
        for _ in e.zeros..zeros {
            added[na] = base;
            na += 1;
        }
        e.zeros = zeros;
        let src = e.lanes.0;
        add_sub(net, &mut e.lanes.0, &src, &removed[..nr], &added[..na]);
        *dst = e.lanes.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yo::{random, Shape};

    /// A cached refresh equals the full accumulator along random playouts that move kings
    /// often, with one cache for all of them (entries from other games, handicap games with
    /// missing pieces among them), on the AVX2 and the portable paths.
    #[test]
    fn cached_refresh_matches_full() {
        let fast = YoNet::new(random::params(Shape::HALFKP_256, 41));
        let slow = fast.clone().portable();
        let starts = [
            engine::START_SFEN,
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "4k4/9/9/9/9/9/9/9/4K4 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
            "1n1gkg1n1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            // Tsume without the attacker's king (Black's, then White's): its view is the home one.
            "7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1",
            "l6nl/5+P1g1/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ];
        let mut rng = crate::rng::Rng::new(7);
        let (mut checks, mut king_moves) = (0, 0);
        for net in [&fast, &slow] {
            let mut cache = RefreshCache::<256>::default();
            for _ in 0..6 {
                for sfen in starts {
                    let mut pos = Position::from_sfen(sfen).unwrap();
                    for _ in 0..40 {
                        for view in Color::ALL {
                            let mut got = [0i16; 256];
                            cache.refresh(net, &pos, view, &mut got);
                            assert_eq!(got.to_vec(), net.accumulate_full(&pos, view), "{}", pos.to_sfen());
                            checks += 1;
                        }
                        let mut list = engine::MoveList::new();
                        engine::generate_legal(&pos, &mut list);
                        if list.is_empty() {
                            break;
                        }
                        let kings: Vec<engine::Move> = list
                            .iter()
                            .copied()
                            .filter(|m| !m.is_drop() && pos.piece_on(m.from()).kind() == PieceType::King)
                            .collect();
                        let m = if !kings.is_empty() && rng.next_u64().is_multiple_of(2) {
                            king_moves += 1;
                            kings[(rng.next_u64() % kings.len() as u64) as usize]
                        } else {
                            list.as_slice()[(rng.next_u64() % list.len() as u64) as usize]
                        };
                        pos.do_move(m);
                    }
                }
            }
        }
        assert!(checks > 2000 && king_moves > 200, "{checks} checks, {king_moves} king moves");
    }
}
