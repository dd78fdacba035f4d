//! `Network`: a `QuantNet` laid out for inference, plus a slow reference the fast paths are
//! tested against (`QuantNet::evaluate_float`; the other, `Network::evaluate_full`, is in
//! `layers`, which uses this module and not the other way round) and random nets for those
//! tests (`QuantNet::random`).

use super::features::{self, NUM_FEATURES};
use super::{QuantNet, L1, L2, L3, OUTPUT_SCALE, QA, QB};
use engine::Position;

/// One first-layer row (a feature's weights, or the biases), aligned to a cache line so the
/// AVX2 accumulator code reads whole lines and never splits a 32-byte load.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Row(pub [i16; L1]);

/// A cache-line aligned array (the dense layers' weights and activations).
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Aligned<T>(pub T);

/// The quantised network in the layout the evaluation reads. The portable path reads dense
/// weights in the net file's row-major order (`w[o * inputs + i]`); the AVX2 path reads the
/// two hidden layers' weights input-chunk-major (`chunk_major`): for each chunk of `CHUNK`
/// inputs, every output's `CHUNK` weights in output order, so one broadcast input chunk meets
/// all 32 outputs' weights in four registers and the sums come out one output per i32 lane,
/// with no horizontal additions.
///
/// Dense weights are within -127..=127 (a stored -128 becomes -127): `_mm256_maddubs_epi16`
/// adds two u8 * i8 products with i16 saturation, and with activations <= 127 the pair sum
/// stays within 2 * 127 * 127 = 32258, so it never saturates and the AVX2 path computes
/// exactly the integers the portable path does. The AVX2 path also adds the pair sums of
/// `l2_block` (`l3_block`) consecutive chunks in i16 before widening them to i32: `i16_block`
/// picks the longest run for which no i16 lane can leave its range whatever the activations
/// (0..=127), so that is exact too.
#[derive(Clone)]
pub struct Network {
    /// First-layer biases (the accumulator of an empty board).
    pub(crate) l1_bias: Row,
    /// First-layer weights, one row per feature.
    pub(crate) l1_weights: Box<[Row]>,
    /// First dense layer biases.
    pub(crate) l2_bias: [i32; L2],
    /// First dense layer weights, `w[o * 2 * L1 + i]`.
    pub(crate) l2_weights: Box<Aligned<[i8; L2 * 2 * L1]>>,
    /// `l2_weights` input-chunk-major (`chunk_major`), for the AVX2 path.
    pub(crate) l2_chunked: Box<Aligned<[i8; L2 * 2 * L1]>>,
    /// Chunks of `l2_chunked` whose pair sums the AVX2 path adds in i16 (`i16_block`).
    pub(crate) l2_block: usize,
    /// Second dense layer biases.
    pub(crate) l3_bias: [i32; L3],
    /// Second dense layer weights, `w[o * L2 + i]`.
    pub(crate) l3_weights: Aligned<[i8; L3 * L2]>,
    /// `l3_weights` input-chunk-major, for the AVX2 path.
    pub(crate) l3_chunked: Aligned<[i8; L3 * L2]>,
    /// Chunks of `l3_chunked` whose pair sums the AVX2 path adds in i16.
    pub(crate) l3_block: usize,
    /// Output bias.
    pub(crate) out_bias: i32,
    /// Output weights.
    pub(crate) out_weights: Aligned<[i8; L3]>,
    /// PSQT weights, one per feature.
    pub(crate) psqt: Box<[i32]>,
    /// Whether this machine runs the AVX2 paths (detected once, when the net is built).
    pub(crate) avx2: bool,
}

impl Network {
    /// The inference layout of `q`.
    ///
    /// # Panics
    /// If a parameter vector of `q` does not have the architecture's length (the net file
    /// reader checks this before).
    pub fn from_quant(q: &QuantNet) -> Network {
        check_len("l1_bias", q.l1_bias.len(), L1);
        check_len("l1_weights", q.l1_weights.len(), NUM_FEATURES * L1);
        check_len("l2_bias", q.l2_bias.len(), L2);
        check_len("l2_weights", q.l2_weights.len(), L2 * 2 * L1);
        check_len("l3_bias", q.l3_bias.len(), L3);
        check_len("l3_weights", q.l3_weights.len(), L3 * L2);
        check_len("out_weights", q.out_weights.len(), L3);
        check_len("psqt", q.psqt.len(), NUM_FEATURES);
        let rows: Vec<Row> = q.l1_weights.chunks_exact(L1).map(|c| Row(c.try_into().unwrap())).collect();
        let mut l2_weights = Box::new(Aligned([0; L2 * 2 * L1]));
        copy_dense(&mut l2_weights.0, &q.l2_weights);
        let mut l2_chunked = Box::new(Aligned([0; L2 * 2 * L1]));
        chunk_major(&mut l2_chunked.0, &l2_weights.0, 2 * L1);
        let mut net = Network {
            l1_bias: Row(q.l1_bias[..].try_into().unwrap()),
            l1_weights: rows.into_boxed_slice(),
            l2_bias: q.l2_bias[..].try_into().unwrap(),
            l2_block: i16_block(&l2_weights.0, 2 * L1),
            l2_weights,
            l2_chunked,
            l3_bias: q.l3_bias[..].try_into().unwrap(),
            l3_weights: Aligned([0; L3 * L2]),
            l3_chunked: Aligned([0; L3 * L2]),
            l3_block: 1,
            out_bias: q.out_bias,
            out_weights: Aligned([0; L3]),
            psqt: q.psqt.clone().into_boxed_slice(),
            avx2: avx2_available(),
        };
        copy_dense(&mut net.l3_weights.0, &q.l3_weights);
        chunk_major(&mut net.l3_chunked.0, &net.l3_weights.0, L2);
        net.l3_block = i16_block(&net.l3_weights.0, L2);
        copy_dense(&mut net.out_weights.0, &q.out_weights);
        net
    }

    /// Whether the SIMD (AVX2) paths are in use on this machine.
    pub fn uses_avx2(&self) -> bool {
        self.avx2
    }

    /// The same net with the SIMD paths switched off (tests compare both).
    pub fn portable(mut self) -> Network {
        self.avx2 = false;
        self
    }

    /// The first-layer row of feature `f`.
    #[inline(always)]
    pub(crate) fn row(&self, f: usize) -> &[i16; L1] {
        &self.l1_weights[f].0
    }
}

/// Whether this machine has AVX2 (the caller keeps the answer in the `Network`).
fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn check_len(name: &str, len: usize, want: usize) {
    assert_eq!(len, want, "QuantNet::{name} has {len} entries, the architecture needs {want}");
}

/// Copies dense weights, turning -128 into -127 (see `Network`: maddubs must not saturate).
fn copy_dense(dst: &mut [i8], src: &[i8]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s.max(-127);
    }
}

/// Inputs per chunk of the AVX2 dense layers: the four bytes one i32 broadcast carries.
pub(crate) const CHUNK: usize = 4;

/// Reorders the row-major weights `w` of a dense layer with `inputs` inputs into `dst`
/// input-chunk-major: for input chunk `k`, output `o` and `j < CHUNK`,
/// `dst[(k * outputs + o) * CHUNK + j] = w[o * inputs + k * CHUNK + j]`.
fn chunk_major(dst: &mut [i8], w: &[i8], inputs: usize) {
    assert!(inputs.is_multiple_of(CHUNK) && w.len() == dst.len() && w.len().is_multiple_of(inputs));
    let outputs = w.len() / inputs;
    for k in 0..inputs / CHUNK {
        for o in 0..outputs {
            for j in 0..CHUNK {
                dst[(k * outputs + o) * CHUNK + j] = w[o * inputs + k * CHUNK + j];
            }
        }
    }
}

/// The longest run of input chunks (a power of two dividing the chunk count) whose
/// `maddubs` results the AVX2 path may add in i16 lanes exactly, for the row-major weights
/// `w` of a dense layer with `inputs` inputs.
///
/// An i16 lane of output `o` holds the pair sums of inputs `k * CHUNK + 2p` and
/// `k * CHUNK + 2p + 1` (p = 0 or 1) over the run's chunks `k`. With activations in 0..=127
/// its value lies between 127 times the sum of its negative weights and 127 times the sum of
/// its positive weights; when both ends are within i16 range, the wrapping i16 additions give
/// exactly that value. A run of 1 always qualifies (two products: at most 32258).
pub(crate) fn i16_block(w: &[i8], inputs: usize) -> usize {
    let chunks = inputs / CHUNK;
    let fits = |run: usize| {
        (0..w.len() / inputs).all(|o| {
            (0..chunks).step_by(run).all(|start| {
                (0..2).all(|p| {
                    let (mut pos, mut neg) = (0i32, 0i32);
                    for k in start..start + run {
                        for i in [k * CHUNK + 2 * p, k * CHUNK + 2 * p + 1] {
                            let v = w[o * inputs + i] as i32;
                            if v > 0 {
                                pos += v;
                            } else {
                                neg += v;
                            }
                        }
                    }
                    127 * pos <= i16::MAX as i32 && 127 * neg >= i16::MIN as i32
                })
            })
        })
    };
    let mut run = chunks;
    while run > 1 && !fits(run) {
        run /= 2;
    }
    run
}

impl QuantNet {
    /// A random net for tests, with magnitudes chosen so that every clipped ReLU sees values
    /// on both sides of its clip points (neither all 0 nor all 127):
    /// - first layer: weights +-16, biases 0..=64, so 40 active rows sum to about
    ///   N(32, 60^2) and stay far from i16 overflow (at most 64 + 40 * 16);
    /// - dense layers: weights small enough (+-6 over 512 inputs, +-24 over 32) that a sum's
    ///   spread is about 64 activations before the shift, biases centring it at about 25;
    /// - output: weights +-24, so evaluations spread over a few hundred units.
    pub fn random(seed: u64) -> QuantNet {
        let mut rng = crate::rng::Rng::new(seed);
        let mut v16 =
            |n: usize, lo: i32, hi: i32| (0..n).map(|_| rng.range(lo as i64, hi as i64) as i16).collect::<Vec<_>>();
        let l1_bias = v16(L1, 0, 64);
        let l1_weights = v16(NUM_FEATURES * L1, -16, 16);
        let mut v8 = |n: usize, k: i32| (0..n).map(|_| rng.range(-k as i64, k as i64) as i8).collect::<Vec<_>>();
        let l2_weights = v8(L2 * 2 * L1, 6);
        let l3_weights = v8(L3 * L2, 24);
        let out_weights = v8(L3, 24);
        let mut v32 =
            |n: usize, lo: i32, hi: i32| (0..n).map(|_| rng.range(lo as i64, hi as i64) as i32).collect::<Vec<_>>();
        let l2_bias = v32(L2, -1000, 4000);
        let l3_bias = v32(L3, -1000, 4000);
        let out_bias = v32(1, -500, 500)[0];
        // About a tenth of a pawn per feature, so the term matters without drowning the rest.
        let psqt = v32(NUM_FEATURES, -700, 700);
        QuantNet { l1_bias, l1_weights, l2_bias, l2_weights, l3_bias, l3_weights, out_bias, out_weights, psqt }
    }

    /// The value of `pos` (Kaname units, side to move's view) computed by the dequantised
    /// net in f32 (each parameter divided by its scale) with no integer rounding: what the
    /// quantised net approximates.
    pub fn evaluate_float(&self, pos: &Position) -> f32 {
        let stm = pos.side_to_move();
        let mut input = Vec::with_capacity(2 * L1);
        for color in [stm, !stm] {
            let mut acc: Vec<f32> = self.l1_bias.iter().map(|&b| b as f32).collect();
            features::for_each_active(pos, color, |f| {
                for (a, &w) in acc.iter_mut().zip(&self.l1_weights[f * L1..(f + 1) * L1]) {
                    *a += w as f32;
                }
            });
            input.extend(acc.iter().map(|&a| (a / QA as f32).clamp(0.0, 1.0)));
        }
        let h2 = dense_float(&input, &self.l2_weights, &self.l2_bias);
        let h3 = dense_float(&h2, &self.l3_weights, &self.l3_bias);
        let mut psqt = [0f32; 2];
        for (i, color) in [stm, !stm].into_iter().enumerate() {
            features::for_each_active(pos, color, |f| psqt[i] += self.psqt[f] as f32);
        }
        let y = linear_float(&h3, &self.out_weights, self.out_bias) + (psqt[0] - psqt[1]) / 2.0 / (QA * QB) as f32;
        y * OUTPUT_SCALE as f32
    }
}

/// One dense layer in float, clipped to 0..=1.
fn dense_float(input: &[f32], w: &[i8], bias: &[i32]) -> Vec<f32> {
    let n = input.len();
    bias.iter().enumerate().map(|(o, &b)| linear_float(input, &w[o * n..(o + 1) * n], b).clamp(0.0, 1.0)).collect()
}

/// One output of a dense layer in float, before clipping.
fn linear_float(input: &[f32], w: &[i8], bias: i32) -> f32 {
    let dot: f32 = input.iter().zip(w).map(|(&x, &w)| x * (w as f32 / QB as f32)).sum();
    bias as f32 / (QA * QB) as f32 + dot
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Positions from the legal-move fixture (the first `n`).
    /// Every `step`-th position of `tests/data/legal_moves_kingless.txt` (one side without a
    /// king, as in a tsume), `n` at most.
    pub(crate) fn kingless_fixture_positions(n: usize, step: usize) -> Vec<Position> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves_kingless.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves_kingless.txt");
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .step_by(step)
            .take(n)
            .map(|l| Position::from_sfen(l.split('\t').next().unwrap()).unwrap())
            .collect()
    }

    pub(crate) fn fixture_positions(n: usize) -> Vec<Position> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).expect("tests/data/legal_moves.txt");
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .take(n)
            .map(|l| Position::from_sfen(l.split('\t').next().unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn from_quant_clamps_minus_128() {
        let mut q = QuantNet::random(1);
        q.l2_weights[3] = -128;
        q.out_weights[0] = -128;
        let net = Network::from_quant(&q);
        assert_eq!(net.l2_weights.0[3], -127);
        assert_eq!(net.out_weights.0[0], -127);
        assert_eq!(net.l1_weights.len(), NUM_FEATURES);
        assert_eq!(net.row(5)[7], q.l1_weights[5 * L1 + 7]);
    }
}
