//! The dense part of the net: both accumulators clipped to u8, two clipped dense layers and
//! the output. A portable path and an AVX2 path compute exactly the same integers (see
//! `Network` for why `maddubs` cannot saturate); `propagate` picks the one the machine runs.

use super::network::Network;
use super::{L1, L2, L3, OUTPUT_SCALE, QA, QB, WEIGHT_SHIFT};
use crate::Value;

/// The evaluation in Kaname units, from the side to move's point of view, of the first-layer
/// outputs `stm` (side to move's perspective) and `nstm` (the other side's), and `psqt`, the
/// side to move's PSQT sum minus the other side's.
///
/// The output `out` (scale `QA * QB`) becomes `out * OUTPUT_SCALE / (QA * QB)` rounded toward
/// zero, so a position and its colour-swapped image get exactly opposite values.
#[inline]
pub fn propagate(net: &Network, stm: &[i16; L1], nstm: &[i16; L1], psqt: i32) -> Value {
    #[cfg(target_arch = "x86_64")]
    if net.avx2 {
        // SAFETY: `net.avx2` is set only when the CPU reported AVX2 (`Network::from_quant`).
        return unsafe { avx2::propagate(net, stm, nstm, psqt) };
    }
    propagate_portable(net, stm, nstm, psqt)
}

/// `propagate` in portable scalar code.
pub fn propagate_portable(net: &Network, stm: &[i16; L1], nstm: &[i16; L1], psqt: i32) -> Value {
    let mut input = [0u8; 2 * L1];
    crelu(stm, &mut input[..L1]);
    crelu(nstm, &mut input[L1..]);
    let mut h2 = [0u8; L2];
    dense(&input, &net.l2_weights.0, &net.l2_bias, &mut h2);
    let mut h3 = [0u8; L3];
    dense(&h2, &net.l3_weights.0, &net.l3_bias, &mut h3);
    to_units(net.out_bias + dot(&h3, &net.out_weights.0), psqt)
}

/// The output layer's integer plus half the PSQT difference, in Kaname units (see
/// `propagate`). Both divisions truncate toward zero, so negating the inputs negates the
/// value.
#[inline(always)]
fn to_units(out: i32, psqt: i32) -> Value {
    // i64: a pathological net's output times OUTPUT_SCALE could leave i32.
    let total = out as i64 + psqt as i64 / 2;
    (total * OUTPUT_SCALE as i64 / (QA * QB) as i64) as Value
}

/// A first-layer output clipped to 0..=127.
#[inline(always)]
fn crelu(src: &[i16], dst: &mut [u8]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s.clamp(0, 127) as u8;
    }
}

/// A dense layer: `out[o] = clamp((bias[o] + sum_i input[i] * w[o * n + i]) >> WEIGHT_SHIFT, 0, 127)`.
fn dense(input: &[u8], w: &[i8], bias: &[i32], out: &mut [u8]) {
    let n = input.len();
    for (o, (y, &b)) in out.iter_mut().zip(bias).enumerate() {
        *y = activate(b + dot(input, &w[o * n..(o + 1) * n]));
    }
}

/// A dense layer's sum back at activation scale (arithmetic shift: floors), clipped.
#[inline(always)]
fn activate(sum: i32) -> u8 {
    (sum >> WEIGHT_SHIFT).clamp(0, 127) as u8
}

#[inline(always)]
fn dot(input: &[u8], w: &[i8]) -> i32 {
    input.iter().zip(w).map(|(&x, &w)| x as i32 * w as i32).sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::network::Aligned;
    use super::*;
    use std::arch::x86_64::*;

    /// `propagate` with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn propagate(net: &Network, stm: &[i16; L1], nstm: &[i16; L1], psqt: i32) -> Value {
        let mut input = Aligned([0u8; 2 * L1]);
        let (lo, hi) = input.0.split_at_mut(L1);
        crelu(stm, lo.try_into().unwrap());
        crelu(nstm, hi.try_into().unwrap());
        let mut h2 = Aligned([0u8; L2]);
        dense(&input.0, &net.l2_weights.0, &net.l2_bias, &mut h2.0);
        let mut h3 = Aligned([0u8; L3]);
        dense(&h2.0, &net.l3_weights.0, &net.l3_bias, &mut h3.0);
        to_units(net.out_bias + dot(&h3.0, &net.out_weights.0), psqt)
    }

    /// 256 i16 clipped to 0..=127 as u8, 32 at a time.
    #[target_feature(enable = "avx2")]
    fn crelu(src: &[i16; L1], dst: &mut [u8; L1]) {
        let zero = _mm256_setzero_si256();
        for i in (0..L1).step_by(32) {
            // SAFETY: i + 32 <= L1, so both 16-lane loads and the 32-byte store stay inside
            // the arrays; the unaligned forms need no alignment.
            unsafe {
                let a = _mm256_loadu_si256(src.as_ptr().add(i).cast());
                let b = _mm256_loadu_si256(src.as_ptr().add(i + 16).cast());
                // Saturating to i8 then max with 0 is the clamp to 0..=127; packs interleaves
                // the 128-bit lanes (a0-7 b0-7 a8-15 b8-15), the permute restores order.
                let packed = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                _mm256_storeu_si256(dst.as_mut_ptr().add(i).cast(), ordered);
            }
        }
    }

    /// `super::dense` with AVX2: four outputs at a time, so each 32-input chunk is loaded
    /// once for four rows and the four sums are reduced together.
    #[target_feature(enable = "avx2")]
    fn dense(input: &[u8], w: &[i8], bias: &[i32], out: &mut [u8]) {
        let n = input.len();
        assert!(n.is_multiple_of(32) && out.len().is_multiple_of(4) && w.len() == n * out.len());
        assert!(bias.len() == out.len());
        for o in (0..out.len()).step_by(4) {
            let sums = dot4(input, &w[o * n..(o + 4) * n]);
            for k in 0..4 {
                out[o + k] = activate(bias[o + k] + sums[k]);
            }
        }
    }

    /// The dot products of `input` with four consecutive rows of `w` (`4 * input.len()`).
    #[target_feature(enable = "avx2")]
    fn dot4(input: &[u8], w: &[i8]) -> [i32; 4] {
        let n = input.len();
        assert!(n.is_multiple_of(32) && w.len() == 4 * n);
        let ones = _mm256_set1_epi16(1);
        let mut acc = [_mm256_setzero_si256(); 4];
        for i in (0..n).step_by(32) {
            // SAFETY: i + 32 <= n, and row k's chunk ends at k * n + i + 32 <= 4 * n = w.len()
            // (asserted above); unaligned loads.
            let x = unsafe { _mm256_loadu_si256(input.as_ptr().add(i).cast()) };
            for (k, a) in acc.iter_mut().enumerate() {
                let y = unsafe { _mm256_loadu_si256(w.as_ptr().add(k * n + i).cast()) };
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones));
            }
        }
        // hadd pairs lanes of two rows at a time; after two rounds each 128-bit half holds
        // the four rows' partial sums in order, and adding the halves completes them.
        let s = _mm256_hadd_epi32(_mm256_hadd_epi32(acc[0], acc[1]), _mm256_hadd_epi32(acc[2], acc[3]));
        let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        let mut sums = [0i32; 4];
        // SAFETY: `sums` is 16 bytes, the size of the store; unaligned store.
        unsafe { _mm_storeu_si128(sums.as_mut_ptr().cast(), s) };
        sums
    }

    /// `super::dot` 32 inputs at a time; exact because `maddubs` cannot saturate (inputs
    /// <= 127, |weights| <= 127, see `Network`).
    #[target_feature(enable = "avx2")]
    pub(super) fn dot(input: &[u8], w: &[i8]) -> i32 {
        assert!(input.len() == w.len() && input.len().is_multiple_of(32));
        let ones = _mm256_set1_epi16(1);
        let mut acc = _mm256_setzero_si256();
        for i in (0..input.len()).step_by(32) {
            // SAFETY: i + 32 <= len of both slices (asserted above); unaligned loads.
            let (x, y) = unsafe {
                (_mm256_loadu_si256(input.as_ptr().add(i).cast()), _mm256_loadu_si256(w.as_ptr().add(i).cast()))
            };
            let pairs = _mm256_maddubs_epi16(x, y);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
        }
        hsum(acc)
    }

    /// The sum of the eight i32 lanes.
    #[target_feature(enable = "avx2")]
    fn hsum(v: __m256i) -> i32 {
        let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
        _mm_cvtsi128_si32(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::QuantNet;
    use crate::rng::Rng;

    fn random_acc(rng: &mut Rng, lo: i32, hi: i32) -> [i16; L1] {
        std::array::from_fn(|_| rng.range(lo as i64, hi as i64) as i16)
    }

    /// AVX2 and portable layers agree on random inputs, including extreme accumulators and
    /// nets whose dense weights are all at the limits (-128 clamped, 127).
    #[test]
    fn simd_layers_match_portable() {
        let net = Network::from_quant(&QuantNet::random(11));
        if !net.uses_avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut extreme = QuantNet::random(12);
        let mut rng = Rng::new(5);
        for w in extreme.l2_weights.iter_mut().chain(&mut extreme.l3_weights).chain(&mut extreme.out_weights) {
            *w = [-128, 127, 0][(rng.next_u64() % 3) as usize];
        }
        let extreme = Network::from_quant(&extreme);
        for net in [&net, &extreme] {
            for round in 0..2000 {
                let (lo, hi) = if round % 2 == 0 { (-200, 300) } else { (i16::MIN as i32, i16::MAX as i32) };
                let (a, b) = (random_acc(&mut rng, lo, hi), random_acc(&mut rng, lo, hi));
                // SAFETY: uses_avx2() said the CPU has AVX2.
                let psqt = rng.range(-100_000, 100_000) as i32;
                let fast = unsafe { avx2::propagate(net, &a, &b, psqt) };
                assert_eq!(fast, propagate_portable(net, &a, &b, psqt));
            }
        }
    }

    #[test]
    fn simd_dot_matches_portable() {
        if !Network::from_quant(&QuantNet::random(1)).uses_avx2() {
            return;
        }
        let mut rng = Rng::new(9);
        for n in [32, 64, 512] {
            for _ in 0..200 {
                let x: Vec<u8> = (0..n).map(|_| rng.range(0, 127) as u8).collect();
                let w: Vec<i8> = (0..n).map(|_| rng.range(-127, 127) as i8).collect();
                // SAFETY: the net above detected AVX2.
                assert_eq!(unsafe { avx2::dot(&x, &w) }, dot(&x, &w));
            }
        }
    }

    /// Rounding toward zero keeps the sign symmetric.
    #[test]
    fn output_rounds_toward_zero() {
        assert_eq!(to_units(QA * QB, 0), OUTPUT_SCALE);
        assert_eq!(to_units(0, 2 * QA * QB), OUTPUT_SCALE);
        assert_eq!(to_units(3, 0), 0);
        assert_eq!(to_units(-3, 0), 0);
        assert_eq!(to_units(100, 0), -to_units(-100, 0));
        assert_eq!(to_units(100, 333), -to_units(-100, -333));
    }
}
