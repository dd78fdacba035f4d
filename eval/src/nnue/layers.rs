//! The dense part of the net: both accumulators clipped to u8, two clipped dense layers and
//! the output. A portable path and an AVX2 path compute exactly the same integers (see
//! `Network` for why `maddubs` cannot saturate); `propagate` picks the one the machine runs.
//! Also `Network::evaluate_full`, the whole net from scratch in portable code: the reference
//! the incremental and SIMD paths are tested against. This module uses `network`, never the
//! other way round.

use super::features;
use super::network::Network;
use super::{L1, L2, L3, OUTPUT_SCALE, QA, QB, WEIGHT_SHIFT};
use crate::Value;
use engine::{Color, Position};

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

impl Network {
    /// The value of `pos` in Kaname units from the side to move's point of view, computed
    /// from scratch with the portable code only: slow and obviously correct, the reference the
    /// incremental and SIMD paths are tested against.
    pub fn evaluate_full(&self, pos: &Position) -> Value {
        let stm = pos.side_to_move();
        let us = self.accumulate_full(pos, stm);
        let them = self.accumulate_full(pos, !stm);
        let psqt = self.psqt_full(pos, stm).wrapping_sub(self.psqt_full(pos, !stm));
        propagate_portable(self, &us, &them, psqt)
    }

    /// The sum of `color`'s perspective's PSQT weights.
    fn psqt_full(&self, pos: &Position, color: Color) -> i32 {
        let mut sum = 0i32;
        features::for_each_active(pos, color, |f| sum = sum.wrapping_add(self.psqt[f]));
        sum
    }

    /// The first layer's outputs for `color`'s perspective: biases plus the active rows.
    fn accumulate_full(&self, pos: &Position, color: Color) -> [i16; L1] {
        let mut acc = self.l1_bias.0;
        features::for_each_active(pos, color, |f| {
            for (a, w) in acc.iter_mut().zip(self.row(f)) {
                // Wrapping, as the SIMD adds do: a trained net keeps the sums in range.
                *a = a.wrapping_add(*w);
            }
        });
        acc
    }
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
    use super::super::network::{Aligned, CHUNK};
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
        h2.0 = dense32(&input.0, &net.l2_chunked.0, &net.l2_bias, net.l2_block);
        let h3 = Aligned(dense32(&h2.0, &net.l3_chunked.0, &net.l3_bias, net.l3_block));
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

    /// `super::dense` for 32 outputs with the weights `w` input-chunk-major
    /// (`network::chunk_major`): each 4-byte input chunk is broadcast and multiplied with
    /// the 32 outputs' weights for it (four registers of eight outputs), so every i32 lane
    /// ends up holding one output's sum. The `maddubs` pair sums of `block` consecutive
    /// chunks are added in i16 before being widened (`network::i16_block` says which
    /// `block` is exact for these weights). Inputs must be within 0..=127.
    #[target_feature(enable = "avx2")]
    pub(super) fn dense32(input: &[u8], w: &[i8], bias: &[i32; 32], block: usize) -> [u8; 32] {
        let chunks = input.len() / CHUNK;
        assert!(input.len().is_multiple_of(CHUNK) && w.len() == chunks * 32 * CHUNK);
        assert!(block > 0 && chunks.is_multiple_of(block));
        let ones = _mm256_set1_epi16(1);
        // SAFETY: `bias` holds 32 i32, four 32-byte loads; unaligned loads.
        let mut acc: [__m256i; 4] =
            std::array::from_fn(|r| unsafe { _mm256_loadu_si256(bias.as_ptr().add(8 * r).cast()) });
        for start in (0..chunks).step_by(block) {
            let mut sums = [_mm256_setzero_si256(); 4];
            for k in start..start + block {
                // SAFETY: k < chunks, so the 4 input bytes at k * CHUNK are in `input` and the
                // 128 weight bytes at k * 128 (four 32-byte loads) are in `w` (asserted
                // above); unaligned reads.
                let x = _mm256_set1_epi32(unsafe { input.as_ptr().add(k * CHUNK).cast::<i32>().read_unaligned() });
                for (r, s) in sums.iter_mut().enumerate() {
                    let y = unsafe { _mm256_loadu_si256(w.as_ptr().add((k * 4 + r) * 32).cast()) };
                    *s = _mm256_add_epi16(*s, _mm256_maddubs_epi16(x, y));
                }
            }
            for (a, s) in acc.iter_mut().zip(sums) {
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(s, ones));
            }
        }
        // Shift, then saturate to i16 and to i8 (order-preserving, so with the max against
        // zero it is the clamp to 0..=127). The packs interleave: the 4-output groups come out
        // as acc0[0..4] acc1[0..4] acc2[0..4] acc3[0..4] acc0[4..8] ...; the permute restores
        // output order.
        let [a, b, c, d] = acc.map(|a| _mm256_srai_epi32::<{ WEIGHT_SHIFT as i32 }>(a));
        let packed = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
        let clipped = _mm256_max_epi8(packed, _mm256_setzero_si256());
        let ordered = _mm256_permutevar8x32_epi32(clipped, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        let mut out = [0u8; 32];
        // SAFETY: `out` is 32 bytes, the size of the store; unaligned store.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), ordered) };
        out
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
    use crate::nnue::network::tests::fixture_positions;
    use crate::nnue::QuantNet;
    use crate::rng::Rng;

    fn random_acc(rng: &mut Rng, lo: i32, hi: i32) -> [i16; L1] {
        std::array::from_fn(|_| rng.range(lo as i64, hi as i64) as i16)
    }

    /// AVX2 and portable layers agree on random inputs, including extreme accumulators (and
    /// ones whose activations are all 0 or all 127), on nets whose dense weights are all at
    /// the limits (-128 clamped, 127) and on the other dense-layer test nets.
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
        let nets: Vec<Network> = [net, extreme].into_iter().chain(dense_test_nets()).collect();
        for net in &nets {
            for round in 0..1000 {
                // Random accumulators, and ones that clip to all 0 or all 127 on either side.
                let (lo, hi) = match round % 6 {
                    0 | 1 => (-200, 300),
                    2 | 3 => (i16::MIN as i32, i16::MAX as i32),
                    4 => (-300, 0),
                    _ => (127, 400),
                };
                let (a, b) = (random_acc(&mut rng, lo, hi), random_acc(&mut rng, lo, hi));
                // Sometimes one side all 127, the other all 0.
                let (a, b) = if round % 12 == 5 { (b, random_acc(&mut rng, -300, 0)) } else { (a, b) };
                let psqt = rng.range(-100_000, 100_000) as i32;
                // SAFETY: uses_avx2() said the CPU has AVX2.
                let fast = unsafe { avx2::propagate(net, &a, &b, psqt) };
                assert_eq!(fast, propagate_portable(net, &a, &b, psqt));
            }
        }
    }

    /// Nets whose dense weights exercise every i16 run length of the AVX2 dense layers:
    /// the random test nets, weights all +-1 and +-2 (runs at the limit: an all-127 input puts
    /// 127 * 256 = 32512 in every lane), the extremes -128 (clamped), 0 and 127 (runs of 1),
    /// and +-15 like the trained nets.
    fn dense_test_nets() -> Vec<Network> {
        let mut rng = Rng::new(17);
        let mut nets = vec![Network::from_quant(&QuantNet::random(11))];
        let fills: [&dyn Fn(&mut Rng) -> i8; 7] = [
            &|_| 1,
            &|_| -1,
            &|_| 2,
            &|_| -2,
            &|r| [-128, 127, 0][(r.next_u64() % 3) as usize],
            &|r| r.range(-15, 15) as i8,
            &|r| if r.next_u64().is_multiple_of(2) { 3 } else { r.range(-40, 40) as i8 },
        ];
        for fill in fills {
            let mut q = QuantNet::random(12);
            for w in q.l2_weights.iter_mut().chain(&mut q.l3_weights).chain(&mut q.out_weights) {
                *w = fill(&mut rng);
            }
            nets.push(Network::from_quant(&q));
        }
        nets
    }

    /// Dense-layer inputs: random activations, all 0, all 127, and random mixes of 0 and 127.
    fn dense_test_inputs(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
        let mut inputs = vec![vec![0u8; n], vec![127u8; n]];
        for round in 0..200 {
            inputs.push(
                (0..n)
                    .map(|_| match round % 3 {
                        0 => rng.range(0, 127) as u8,
                        1 => [0, 127][(rng.next_u64() % 2) as usize],
                        _ => [0, 0, 0, 1, 64, 127][(rng.next_u64() % 6) as usize],
                    })
                    .collect(),
            );
        }
        inputs
    }

    /// The AVX2 dense layers (chunk-major weights, i16 runs) give exactly the portable
    /// layers' outputs, for both hidden layers of every test net.
    #[test]
    fn simd_dense_matches_portable() {
        if !Network::from_quant(&QuantNet::random(1)).uses_avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut rng = Rng::new(23);
        let mut blocks = std::collections::BTreeSet::new();
        for net in dense_test_nets() {
            blocks.insert((net.l2_block, net.l3_block));
            for input in dense_test_inputs(&mut rng, 2 * L1) {
                let mut want = [0u8; L2];
                dense(&input, &net.l2_weights.0, &net.l2_bias, &mut want);
                // SAFETY: the net above detected AVX2.
                let got = unsafe { avx2::dense32(&input, &net.l2_chunked.0, &net.l2_bias, net.l2_block) };
                assert_eq!(got, want, "l2_block {}", net.l2_block);
            }
            for input in dense_test_inputs(&mut rng, L2) {
                let mut want = [0u8; L3];
                dense(&input, &net.l3_weights.0, &net.l3_bias, &mut want);
                // SAFETY: as above.
                let got = unsafe { avx2::dense32(&input, &net.l3_chunked.0, &net.l3_bias, net.l3_block) };
                assert_eq!(got, want, "l3_block {}", net.l3_block);
            }
        }
        // Long runs, runs of 1 and some in between were all exercised.
        assert!(blocks.iter().any(|&(b2, b3)| b2 == 128 && b3 == 8), "{blocks:?}");
        assert!(blocks.iter().any(|&(b2, b3)| b2 == 1 && b3 == 1), "{blocks:?}");
        assert!(blocks.iter().any(|&(b2, _)| b2 > 1 && b2 < 128), "{blocks:?}");
    }

    /// `i16_block` picks the longest exact run: with every weight w, a lane of a run of r
    /// chunks sums 2r products of at most 127 * |w|.
    #[test]
    fn i16_runs_are_the_longest_exact_ones() {
        use crate::nnue::network::i16_block;
        for (w, l2, l3) in [(1, 128, 8), (-1, 128, 8), (2, 64, 8), (-2, 64, 8), (15, 8, 8), (127, 1, 1), (-127, 1, 1)] {
            assert_eq!(i16_block(&vec![w; L2 * 2 * L1], 2 * L1), l2, "weight {w}");
            assert_eq!(i16_block(&vec![w; L3 * L2], L2), l3, "weight {w}");
        }
        // One 127 per lane and chunk (the other three weights 0).
        let mut w = vec![0i8; L3 * L2];
        for o in 0..L3 {
            for k in 0..L2 / 4 {
                w[o * L2 + 4 * k] = 127;
            }
        }
        assert_eq!(i16_block(&w, L2), 2, "two 127s per lane fit, four do not");
        // The built-in net gets long runs (its dense weights are small).
        let net = crate::nnue::embedded().unwrap();
        assert!(net.l2_block >= 8 && net.l3_block >= 4, "{} {}", net.l2_block, net.l3_block);
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

    /// The random net's clipped ReLUs are neither dead nor saturated on real positions.
    #[test]
    fn random_net_activations_are_plausible() {
        let net = Network::from_quant(&QuantNet::random(7));
        let (mut zero, mut full, mut total) = (0, 0, 0);
        let mut values = Vec::new();
        for pos in fixture_positions(50) {
            let acc = net.accumulate_full(&pos, Color::Black);
            zero += acc.iter().filter(|&&a| a <= 0).count();
            full += acc.iter().filter(|&&a| a >= 127).count();
            total += L1;
            values.push(net.evaluate_full(&pos));
        }
        assert!(zero * 20 > total && zero * 2 < total, "{zero} of {total} clipped at 0");
        assert!(full * 50 > total && full * 2 < total, "{full} of {total} clipped at 127");
        let spread = values.iter().max().unwrap() - values.iter().min().unwrap();
        assert!(spread > 50, "evaluations hardly vary: {values:?}");
    }

    /// Worst-case distance between the quantised and the float evaluation of `q`.
    ///
    /// The accumulator is exact in both (integer sums, exactly representable in f32). Each
    /// dense layer's `>>` floors, losing less than one activation step (1 / QA) per output;
    /// clipping does not increase a difference. Layer 2's error reaches layer 3 scaled by at
    /// most `sum |w3| / QB` per output, and layer 3's error reaches the output scaled by
    /// `sum |w_out| / QB`, times `OUTPUT_SCALE`; the final integer division loses < 1 unit.
    fn rounding_bound(q: &QuantNet) -> f64 {
        let step = 1.0 / QA as f64;
        let row_gain = |w: &[i8]| w.iter().map(|&w| (w as f64).abs()).sum::<f64>() / QB as f64;
        let gain3 = q.l3_weights.chunks(L2).map(row_gain).fold(0.0, f64::max);
        let e3 = gain3 * step + step;
        row_gain(&q.out_weights) * e3 * OUTPUT_SCALE as f64 + 1.0
    }

    /// Quantised evaluation against the float reference, over 300 fixture positions and two
    /// random nets. Tolerances:
    /// - every position within the worst-case rounding bound (`rounding_bound`, about 180-240
    ///   units for these random nets, whose dense weights are larger than a trained net's);
    /// - in practice the floors' errors mostly cancel through zero-mean weights (observed: mean
    ///   about 3 units, worst about 10), so each position must also be within 30 units (a third
    ///   of a pawn, far below what matters to play) and the mean error within 6 units.
    #[test]
    fn quantised_is_close_to_float() {
        for seed in [3, 4] {
            let q = QuantNet::random(seed);
            let net = Network::from_quant(&q);
            let bound = rounding_bound(&q);
            let (mut err_sum, mut mag_sum, mut n, mut worst) = (0.0, 0.0, 0.0, 0.0f64);
            for pos in fixture_positions(300) {
                let (i, f) = (net.evaluate_full(&pos) as f64, q.evaluate_float(&pos) as f64);
                assert!((i - f).abs() <= bound, "{} int {i} float {f} bound {bound}", pos.to_sfen());
                err_sum += (i - f).abs();
                worst = worst.max((i - f).abs());
                mag_sum += f.abs();
                n += 1.0;
            }
            let (err, mag) = (err_sum / n, mag_sum / n);
            assert!(worst <= 30.0 && err <= 6.0, "worst error {worst}, mean {err} (mean magnitude {mag})");
        }
    }
}
