//! The dense part of a YaneuraOu net, from the two accumulators to the output, exactly as
//! YaneuraOu computes it (`nnue_feature_transformer.h:352-443`, `affine_transform.h`,
//! `affine_transform_sparse_input.h`, `clipped_relu.h`):
//!
//! 1. the side to move's accumulator, then the other side's, each clipped to 0..=127 as u8;
//! 2. `2 * L1 -> L2`: `bias + sum(w * x)` in i32, then `>> 6` (arithmetic) clipped to 0..=127;
//! 3. `L2 -> L3`, the same;
//! 4. `L3 -> 1`: `bias + sum(w * x)`, the output (divided by `FV_SCALE` later).
//!
//! The AVX2 path multiplies with `maddubs` (u8 x i8 pairs summed in i16) and widens every pair
//! sum at once (`madd` with ones), as YaneuraOu's does: with inputs <= 127 and weights in
//! -128..=127 a pair is at most 2 * 127 * 128 = 32512 in size, so nothing saturates and both
//! paths compute the exact integers. Like YaneuraOu's, the first layer skips the 4-byte
//! input chunks that are all zero (after the clip most of the accumulator is).

use super::network::{Layer, Simd, YoNet};

/// Widest accumulator (L1) of a supported shape.
pub(crate) const MAX_L1: usize = 1024;
/// Widest second layer (L3).
const MAX_L3: usize = 96;

/// A first-layer output clipped to 0..=127.
#[inline(always)]
fn clip(v: i16) -> u8 {
    v.clamp(0, 127) as u8
}

/// A dense layer's sum at activation scale (`>> 6`, floors), clipped to 0..=127.
#[inline(always)]
fn activate(sum: i32) -> u8 {
    (sum >> 6).clamp(0, 127) as u8
}

fn dense(layer: &Layer, input: &[u8], out: &mut [u8]) {
    for (o, y) in out.iter_mut().enumerate() {
        *y = activate(layer.biases[o] + dot(input, &layer.rows[o * layer.inputs..(o + 1) * layer.inputs]));
    }
}

#[inline(always)]
fn dot(input: &[u8], w: &[i8]) -> i32 {
    input.iter().zip(w).map(|(&x, &w)| x as i32 * w as i32).sum()
}

/// The net's output for the accumulators `us` (side to move) and `them`, portable code.
pub fn propagate_portable(net: &YoNet, us: &[i16], them: &[i16]) -> i32 {
    let [l1, l2, out] = &net.layers;
    let half = us.len();
    let mut input = [0u8; 2 * MAX_L1];
    for (d, &s) in input.iter_mut().zip(us.iter().chain(them)) {
        *d = clip(s);
    }
    let mut h1 = [0u8; 32];
    dense(l1, &input[..2 * half], &mut h1[..l1.outputs]);
    let mut h2 = [0u8; MAX_L3];
    dense(l2, &h1[..l1.outputs], &mut h2[..l2.outputs]);
    out.biases[0] + dot(&h2[..l2.outputs], &out.rows)
}

/// The net's output for `us` and `them` (each `L1` lanes), on the fastest path this machine
/// runs.
#[inline]
pub fn propagate(net: &YoNet, us: &[i16], them: &[i16]) -> i32 {
    match net.simd {
        // SAFETY (both): `YoNet` sets a path only when the CPU reported its instructions
        // (`Simd::detect`).
        #[cfg(target_arch = "x86_64")]
        Simd::Vnni => unsafe { x86::vnni::propagate(net, us, them) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { x86::avx2::propagate(net, us, them) },
        _ => propagate_portable(net, us, them),
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use std::arch::x86_64::*;

    /// A cache-line aligned buffer.
    #[repr(C, align(64))]
    pub(super) struct Aligned<T>(pub(super) T);

    /// For each 8-bit mask, the positions of its set bits (then zeros): the nonzero-chunk
    /// finder stores one row per 8 chunks and keeps as many entries as the mask has bits.
    static NNZ_TABLE: [[u16; 8]; 256] = {
        let mut t = [[0u16; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if m & (1 << bit) != 0 {
                    t[m][n] = bit as u16;
                    n += 1;
                }
                bit += 1;
            }
            m += 1;
        }
        t
    };

    /// `src` clipped to 0..=127 as u8, 32 lanes at a time (`src.len()` a multiple of 32).
    #[target_feature(enable = "avx2")]
    pub(super) fn clip32(src: &[i16], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(32));
        let zero = _mm256_setzero_si256();
        for i in (0..src.len()).step_by(32) {
            // SAFETY: i + 32 <= the length of both (asserted above); unaligned forms.
            unsafe {
                let a = _mm256_loadu_si256(src.as_ptr().add(i).cast());
                let b = _mm256_loadu_si256(src.as_ptr().add(i + 16).cast());
                // Saturate to i8, then max with 0: the clip to 0..=127. `packs` interleaves
                // the 128-bit lanes; the permute restores the order.
                let packed = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                _mm256_storeu_si256(dst.as_mut_ptr().add(i).cast(), ordered);
            }
        }
    }

    /// The indices of the nonzero 4-byte chunks of `input` (a multiple of 32 bytes) into
    /// `out`, in order; returns how many.
    #[target_feature(enable = "avx2")]
    pub(super) fn find_nnz(input: &[u8], out: &mut [u16]) -> usize {
        assert!(input.len().is_multiple_of(32) && out.len() >= input.len() / 4);
        let zero = _mm256_setzero_si256();
        let mut count = 0;
        for (g, start) in (0..input.len()).step_by(32).enumerate() {
            // SAFETY: start + 32 <= input.len(); unaligned load.
            let v = unsafe { _mm256_loadu_si256(input.as_ptr().add(start).cast()) };
            // A chunk's bytes are 0..=127, so it is nonzero exactly when it is > 0 as an i32.
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero))) as usize;
            let base = _mm_set1_epi16(8 * g as i16);
            // SAFETY: the table row is 16 bytes; the store writes out[count..count + 8], and
            // count + 8 <= 8 * (g + 1) <= input.len() / 4 <= out.len().
            unsafe {
                let idx = _mm_loadu_si128(NNZ_TABLE[mask].as_ptr().cast());
                _mm_storeu_si128(out.as_mut_ptr().add(count).cast(), _mm_add_epi16(base, idx));
            }
            count += mask.count_ones() as usize;
        }
        count
    }

    /// `acc + sum of the u8 x i8 products of each 4-byte group`, per i32 lane, with AVX2:
    /// `maddubs` sums pairs in i16 (exact: a pair is within 2 * 127 * 128 = 32512) and `madd`
    /// with ones widens the pair sums.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot4_avx2(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
        _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), _mm256_set1_epi16(1)))
    }

    /// The same in one instruction with AVX-VNNI (`vpdpbusd`, no saturation).
    #[target_feature(enable = "avx2,avxvnni")]
    #[inline]
    fn dot4_vnni(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, x, w)
    }

    /// The dense part for one instruction set: `propagate`, its layers and the output dot,
    /// written once and compiled for AVX2 and for AVX-VNNI.
    macro_rules! dense_path {
        ($name:ident, $features:literal, $dot4:ident) => {
            pub(crate) mod $name {
                use super::super::*;
                use super::{clip32, find_nnz, $dot4, Aligned};
                use std::arch::x86_64::*;

                /// `super::super::propagate` on this path.
                ///
                /// # Safety
                /// The CPU must support this path's instructions.
                #[target_feature(enable = $features)]
                pub(crate) unsafe fn propagate(net: &YoNet, us: &[i16], them: &[i16]) -> i32 {
                    let half = us.len();
                    assert!(them.len() == half && half.is_multiple_of(32) && half <= MAX_L1);
                    let mut input = Aligned([0u8; 2 * MAX_L1]);
                    clip32(us, &mut input.0[..half]);
                    clip32(them, &mut input.0[half..2 * half]);
                    let input = &input.0[..2 * half];
                    let [l1, l2, out] = &net.layers;
                    let mut nnz = Aligned([0u16; 2 * MAX_L1 / 4]);
                    let count = find_nnz(input, &mut nnz.0);
                    let mut h1 = Aligned([0u8; 32]);
                    match l1.outputs {
                        8 => affine::<1>(l1, input, &nnz.0[..count], &mut h1.0),
                        16 => affine::<2>(l1, input, &nnz.0[..count], &mut h1.0),
                        _ => affine::<4>(l1, input, &nnz.0[..count], &mut h1.0),
                    }
                    let chunks: [u16; 8] = std::array::from_fn(|k| k as u16);
                    let h1 = &h1.0[..l1.outputs];
                    let all = &chunks[..l1.outputs / 4];
                    let mut h2 = Aligned([0u8; MAX_L3]);
                    match l2.outputs {
                        32 => affine::<4>(l2, h1, all, &mut h2.0),
                        64 => affine::<8>(l2, h1, all, &mut h2.0),
                        _ => affine::<12>(l2, h1, all, &mut h2.0),
                    }
                    out.biases[0] + dot(&h2.0[..l2.outputs], &out.rows)
                }

                /// A dense layer of `8 * R` outputs over the input chunks `chunks` (the
                /// others are zero), clipped into `out`: each chunk's 4 bytes are broadcast
                /// and multiplied with all outputs' weights for it (`layer.chunked`), R
                /// registers of 8 i32 sums.
                #[target_feature(enable = $features)]
                pub(crate) fn affine<const R: usize>(layer: &Layer, input: &[u8], chunks: &[u16], out: &mut [u8]) {
                    assert!(layer.outputs == 8 * R && out.len() >= 8 * R);
                    assert!(input.len().is_multiple_of(4) && layer.chunked.len() == input.len() / 4 * 8 * R * 4);
                    // SAFETY: the biases are 8 * R i32, R 32-byte loads; unaligned.
                    let mut acc: [__m256i; R] =
                        std::array::from_fn(|r| unsafe { _mm256_loadu_si256(layer.biases.as_ptr().add(8 * r).cast()) });
                    let w = layer.chunked.as_ptr();
                    let chunk = |k: u16| -> (__m256i, usize) {
                        let k = k as usize;
                        assert!(k < input.len() / 4);
                        // SAFETY: k < chunks of the input (asserted), so its 4 bytes are in
                        // `input`; unaligned read.
                        (_mm256_set1_epi32(unsafe { input.as_ptr().add(4 * k).cast::<i32>().read_unaligned() }), k)
                    };
                    // Two chunks at a time into two sets of sums (added at the end): twice the
                    // independent additions in flight, so the loop is not bound by the latency
                    // of one register's chain (`vpdpbusd` takes several cycles).
                    let mut odd = [_mm256_setzero_si256(); R];
                    let mut pairs = chunks.chunks_exact(2);
                    for pair in &mut pairs {
                        let ((x0, k0), (x1, k1)) = (chunk(pair[0]), chunk(pair[1]));
                        for r in 0..R {
                            // SAFETY: k < chunks of the input, so the 32 * R weight bytes at
                            // (k * 8R) * 4 are in `layer.chunked` (asserted length); unaligned.
                            let (y0, y1) = unsafe {
                                (
                                    _mm256_loadu_si256(w.add((k0 * R + r) * 32).cast()),
                                    _mm256_loadu_si256(w.add((k1 * R + r) * 32).cast()),
                                )
                            };
                            acc[r] = $dot4(acc[r], x0, y0);
                            odd[r] = $dot4(odd[r], x1, y1);
                        }
                    }
                    for &k in pairs.remainder() {
                        let (x, k) = chunk(k);
                        for (r, a) in acc.iter_mut().enumerate() {
                            // SAFETY: as above.
                            let y = unsafe { _mm256_loadu_si256(w.add((k * R + r) * 32).cast()) };
                            *a = $dot4(*a, x, y);
                        }
                    }
                    for (a, o) in acc.iter_mut().zip(odd) {
                        *a = _mm256_add_epi32(*a, o);
                    }
                    let mut sums = [0i32; 96];
                    for (r, a) in acc.iter().enumerate() {
                        // SAFETY: 8 * (r + 1) <= 8 * R <= 96; unaligned store.
                        unsafe { _mm256_storeu_si256(sums.as_mut_ptr().add(8 * r).cast(), *a) };
                    }
                    for (y, &s) in out.iter_mut().zip(&sums[..8 * R]) {
                        *y = activate(s);
                    }
                }

                /// `super::super::dot` 32 bytes at a time (lengths a multiple of 32).
                #[target_feature(enable = $features)]
                pub(crate) fn dot(input: &[u8], w: &[i8]) -> i32 {
                    assert!(input.len() == w.len() && input.len().is_multiple_of(32));
                    let mut acc = _mm256_setzero_si256();
                    for i in (0..input.len()).step_by(32) {
                        // SAFETY: i + 32 <= the length of both (asserted); unaligned loads.
                        let (x, y) = unsafe {
                            (
                                _mm256_loadu_si256(input.as_ptr().add(i).cast()),
                                _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                            )
                        };
                        acc = $dot4(acc, x, y);
                    }
                    let s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256::<1>(acc));
                    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
                    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
                    _mm_cvtsi128_si32(s)
                }
            }
        };
    }

    dense_path!(avx2, "avx2", dot4_avx2);
    dense_path!(vnni, "avx2,avxvnni", dot4_vnni);

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn nnz_finds_the_nonzero_chunks() {
            if !std::is_x86_feature_detected!("avx2") {
                return;
            }
            let mut rng = crate::rng::Rng::new(3);
            for len in [64usize, 512, 2048] {
                for _ in 0..200 {
                    let input: Vec<u8> = (0..len)
                        .map(|_| if rng.next_u64().is_multiple_of(5) { (rng.next_u64() % 128) as u8 } else { 0 })
                        .collect();
                    let want: Vec<u16> = (0..len / 4)
                        .filter(|&k| input[4 * k..4 * k + 4].iter().any(|&b| b != 0))
                        .map(|k| k as u16)
                        .collect();
                    let mut out = vec![0u16; len / 4];
                    // SAFETY: AVX2 was detected above.
                    let n = unsafe { find_nnz(&input, &mut out) };
                    assert_eq!(&out[..n], &want[..]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yo::shape::{FeatureSet, SUPPORTED};
    use crate::yo::{random, Simd};

    /// Every SIMD path gives the portable path's output for every dense shape, on random
    /// accumulators, extreme ones (clipping to all 0 or all 127) and mixes.
    #[test]
    fn every_path_matches_portable() {
        let mut rng = crate::rng::Rng::new(11);
        let paths: Vec<Simd> = [Simd::Avx2, Simd::Vnni].into_iter().filter(|s| s.available()).collect();
        // One net per (L2, L3) at L1 = 256, and one per L1: every dense shape, every width.
        let shapes =
            SUPPORTED.iter().filter(|s| s.features == FeatureSet::HalfKP && (s.l1 == 256 || (s.l2, s.l3) == (8, 32)));
        for (i, &shape) in shapes.enumerate() {
            let net = YoNet::new(random::params(shape, 500 + i as u64));
            let nets: Vec<YoNet> = paths.iter().map(|&p| net.clone().with_simd(p)).collect();
            for round in 0..300 {
                let (lo, hi) = [(-200, 300), (i16::MIN as i64, i16::MAX as i64), (-300, 0), (127, 400)][round % 4];
                let mut acc = || (0..shape.l1).map(|_| rng.range(lo, hi) as i16).collect::<Vec<i16>>();
                let (us, them) = (acc(), acc());
                let want = propagate_portable(&net, &us, &them);
                for n in &nets {
                    assert_eq!(propagate(n, &us, &them), want, "{shape} {:?} round {round}", n.simd());
                }
            }
        }
        if paths.is_empty() {
            eprintln!("no SIMD here: only the portable path ran");
        }
    }
}
