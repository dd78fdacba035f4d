//! The feature transformer's outputs ("accumulator") of a YaneuraOu net, `L1` lanes per
//! perspective: a refresh from the position, and the update from a parent's accumulator by
//! the rows of the inputs a move removes and adds. Sums wrap in i16, as YaneuraOu's SIMD adds
//! do (`vec_add_16`), so every order of adding the same rows gives the same lanes.

use super::network::YoNet;

/// One perspective's lanes, aligned to a cache line.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lanes<const L1: usize>(pub [i16; L1]);

/// `dst = src - rows(removed) + rows(added)`.
#[inline]
pub fn add_sub<const L1: usize>(net: &YoNet, dst: &mut [i16; L1], src: &[i16; L1], removed: &[usize], added: &[usize]) {
    #[cfg(target_arch = "x86_64")]
    if net.avx2 {
        // SAFETY: `net.avx2` is set only when the CPU reported AVX2 (`YoNet::new`).
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
