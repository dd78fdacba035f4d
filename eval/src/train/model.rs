//! The float network trained in place of the quantised one: the same architecture
//! (`nnue` module doc), plus a king-bucket-independent factor table added to every bucket's
//! first-layer row during training and folded into the rows on export. Forward and backward
//! passes, quantisation to a `QuantNet` and back, and the integer forward that checks the
//! exported net.

use super::data::{Rng, Sample};
use crate::nnue::features::{FEATURES_PER_BUCKET, NUM_FEATURES};
use crate::nnue::{QuantNet, L1, L2, L3, OUTPUT_SCALE, QA, QB, WEIGHT_SHIFT};

/// Largest |weight| of a dense layer: the int8 range at scale `QB`.
pub const DENSE_CLIP: f32 = 127.0 / QB as f32;
/// Largest |value| of a first-layer weight or of a factor weight. A folded weight (the sum)
/// is then at most 3.0, 381 as an int16, and 40 active features plus a bias stay far inside
/// the int16 accumulator (40 x 381 + 381 < 32767) whatever the position.
pub const L1_CLIP: f32 = 1.5;
/// Largest |first-layer bias| (same reason).
pub const L1_BIAS_CLIP: f32 = 3.0;

/// The trainable parameters (and, with the same shapes, their gradients). Dense weights are
/// stored output-major like `QuantNet`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// First-layer weights, `NUM_FEATURES * L1`, row `f` at `f * L1`.
    pub l1_w: Vec<f32>,
    /// Factor weights shared by all king buckets, `FEATURES_PER_BUCKET * L1`.
    pub factor: Vec<f32>,
    /// First-layer biases, `L1`.
    pub l1_b: Vec<f32>,
    /// First dense layer weights, `L2 * 2 * L1`.
    pub l2_w: Vec<f32>,
    /// First dense layer biases, `L2`.
    pub l2_b: Vec<f32>,
    /// Second dense layer weights, `L3 * L2`.
    pub l3_w: Vec<f32>,
    /// Second dense layer biases, `L3`.
    pub l3_b: Vec<f32>,
    /// Output weights, `L3`.
    pub out_w: Vec<f32>,
    /// Output bias, one value.
    pub out_b: Vec<f32>,
    /// PSQT weights, `NUM_FEATURES` (in output logits).
    pub psqt: Vec<f32>,
    /// PSQT factor shared by all king buckets, `FEATURES_PER_BUCKET`.
    pub psqt_factor: Vec<f32>,
}

/// The activations of one forward pass, kept for the backward pass.
#[derive(Clone, Debug)]
pub struct Activations {
    /// First-layer sums: side to move, then the other side.
    pub acc: [[f32; L1]; 2],
    /// Clipped first-layer outputs, side to move's first.
    pub h: [f32; 2 * L1],
    /// First dense layer sums.
    pub z2: [f32; L2],
    /// Its clipped outputs.
    pub a2: [f32; L2],
    /// Second dense layer sums.
    pub z3: [f32; L3],
    /// Its clipped outputs.
    pub a3: [f32; L3],
}

impl Default for Activations {
    fn default() -> Self {
        Activations {
            acc: [[0.0; L1]; 2],
            h: [0.0; 2 * L1],
            z2: [0.0; L2],
            a2: [0.0; L2],
            z3: [0.0; L3],
            a3: [0.0; L3],
        }
    }
}

/// The derivative of clip(x, 0, 1): 1 inside, 0 outside.
#[inline(always)]
fn pass(x: f32) -> f32 {
    if x > 0.0 && x < 1.0 {
        1.0
    } else {
        0.0
    }
}

/// `out[o] = b[o] + sum_i w[o * n + i] * x[i]`.
#[inline(always)]
fn dense(w: &[f32], b: &[f32], x: &[f32], out: &mut [f32]) {
    let n = x.len();
    for (o, y) in out.iter_mut().enumerate() {
        let row = &w[o * n..(o + 1) * n];
        *y = b[o] + row.iter().zip(x).map(|(a, b)| a * b).sum::<f32>();
    }
}

impl FloatNet {
    /// A net of zeros (the gradient accumulator's shape).
    pub fn zeros() -> FloatNet {
        FloatNet {
            l1_w: vec![0.0; NUM_FEATURES * L1],
            factor: vec![0.0; FEATURES_PER_BUCKET * L1],
            l1_b: vec![0.0; L1],
            l2_w: vec![0.0; L2 * 2 * L1],
            l2_b: vec![0.0; L2],
            l3_w: vec![0.0; L3 * L2],
            l3_b: vec![0.0; L3],
            out_w: vec![0.0; L3],
            out_b: vec![0.0; 1],
            psqt: vec![0.0; NUM_FEATURES],
            psqt_factor: vec![0.0; FEATURES_PER_BUCKET],
        }
    }

    /// A freshly initialised net. First-layer weights are small so the 40-feature sums start
    /// in the clipped ReLU's linear range around the bias 0.25 (the factor starts at zero and
    /// learns the shared part); dense weights are uniform in +-1/sqrt(fan-in).
    pub fn random(rng: &mut Rng) -> FloatNet {
        let mut n = FloatNet::zeros();
        let mut fill = |v: &mut [f32], a: f32| v.iter_mut().for_each(|x| *x = (rng.next_f32() * 2.0 - 1.0) * a);
        fill(&mut n.l1_w, 0.05);
        fill(&mut n.l2_w, 1.0 / ((2 * L1) as f32).sqrt());
        fill(&mut n.l3_w, 1.0 / (L2 as f32).sqrt());
        fill(&mut n.out_w, 1.0 / (L3 as f32).sqrt());
        n.l1_b.fill(0.25);
        n.l2_b.fill(0.1);
        n.l3_b.fill(0.1);
        n
    }

    /// All parameter tensors in a fixed order (checkpoints, the optimiser).
    pub fn tensors(&self) -> [&Vec<f32>; 11] {
        [
            &self.l1_w,
            &self.factor,
            &self.l1_b,
            &self.l2_w,
            &self.l2_b,
            &self.l3_w,
            &self.l3_b,
            &self.out_w,
            &self.out_b,
            &self.psqt,
            &self.psqt_factor,
        ]
    }

    /// All parameter tensors, mutable, in the order of `tensors`.
    pub fn tensors_mut(&mut self) -> [&mut Vec<f32>; 11] {
        [
            &mut self.l1_w,
            &mut self.factor,
            &mut self.l1_b,
            &mut self.l2_w,
            &mut self.l2_b,
            &mut self.l3_w,
            &mut self.l3_b,
            &mut self.out_w,
            &mut self.out_b,
            &mut self.psqt,
            &mut self.psqt_factor,
        ]
    }

    /// Adds the first-layer row of every feature (and its factor row) to `acc`.
    #[inline(always)]
    fn accumulate(&self, feats: &[u16], acc: &mut [f32; L1]) {
        acc.copy_from_slice(&self.l1_b);
        for &f in feats {
            let f = f as usize;
            let row = &self.l1_w[f * L1..(f + 1) * L1];
            let fr = f % FEATURES_PER_BUCKET;
            let frow = &self.factor[fr * L1..(fr + 1) * L1];
            for ((a, w), v) in acc.iter_mut().zip(row).zip(frow) {
                *a += w + v;
            }
        }
    }

    /// The output logit y of `s` (the evaluation is `y * OUTPUT_SCALE`), filling `act`.
    pub fn forward(&self, s: &Sample, act: &mut Activations) -> f32 {
        self.accumulate(&s.stm, &mut act.acc[0]);
        self.accumulate(&s.nstm, &mut act.acc[1]);
        for (p, acc) in act.acc.iter().enumerate() {
            for (h, a) in act.h[p * L1..(p + 1) * L1].iter_mut().zip(acc) {
                *h = a.clamp(0.0, 1.0);
            }
        }
        dense(&self.l2_w, &self.l2_b, &act.h, &mut act.z2);
        for (a, z) in act.a2.iter_mut().zip(&act.z2) {
            *a = z.clamp(0.0, 1.0);
        }
        dense(&self.l3_w, &self.l3_b, &act.a2, &mut act.z3);
        for (a, z) in act.a3.iter_mut().zip(&act.z3) {
            *a = z.clamp(0.0, 1.0);
        }
        let psqt = (self.psqt_sum(&s.stm) - self.psqt_sum(&s.nstm)) / 2.0;
        self.out_b[0] + self.out_w.iter().zip(&act.a3).map(|(w, a)| w * a).sum::<f32>() + psqt
    }

    /// One perspective's PSQT sum (with the factor).
    #[inline(always)]
    fn psqt_sum(&self, feats: &[u16]) -> f32 {
        feats.iter().map(|&f| self.psqt[f as usize] + self.psqt_factor[f as usize % FEATURES_PER_BUCKET]).sum()
    }

    /// Adds the gradient of the loss for `s` (whose derivative with respect to the output is
    /// `dy`) to `g`; first-layer rows touched are recorded in `touched`.
    pub fn backward(&self, s: &Sample, act: &Activations, dy: f32, g: &mut FloatNet, touched: &mut Touched) {
        g.out_b[0] += dy;
        for (feats, sign) in [(&s.stm, 0.5f32), (&s.nstm, -0.5)] {
            for &f in feats.iter() {
                g.psqt[f as usize] += sign * dy;
                g.psqt_factor[f as usize % FEATURES_PER_BUCKET] += sign * dy;
            }
        }
        let mut dz3 = [0.0f32; L3];
        for (i, d) in dz3.iter_mut().enumerate() {
            g.out_w[i] += dy * act.a3[i];
            *d = dy * self.out_w[i] * pass(act.z3[i]);
        }
        let mut dz2 = [0.0f32; L2];
        for (o, &d) in dz3.iter().enumerate() {
            if d == 0.0 {
                continue;
            }
            g.l3_b[o] += d;
            let row = &self.l3_w[o * L2..(o + 1) * L2];
            for (i, gw) in g.l3_w[o * L2..(o + 1) * L2].iter_mut().enumerate() {
                *gw += d * act.a2[i];
                dz2[i] += d * row[i];
            }
        }
        let mut dh = [0.0f32; 2 * L1];
        for (o, d) in dz2.iter_mut().enumerate() {
            *d *= pass(act.z2[o]);
            if *d == 0.0 {
                continue;
            }
            g.l2_b[o] += *d;
            let row = &self.l2_w[o * 2 * L1..(o + 1) * 2 * L1];
            let grow = &mut g.l2_w[o * 2 * L1..(o + 1) * 2 * L1];
            for i in 0..2 * L1 {
                grow[i] += *d * act.h[i];
                dh[i] += *d * row[i];
            }
        }
        for (p, feats) in [&s.stm, &s.nstm].into_iter().enumerate() {
            let mut dacc = [0.0f32; L1];
            for j in 0..L1 {
                dacc[j] = dh[p * L1 + j] * pass(act.acc[p][j]);
            }
            for (b, d) in g.l1_b.iter_mut().zip(&dacc) {
                *b += d;
            }
            for &f in feats.iter() {
                let f = f as usize;
                let fr = f % FEATURES_PER_BUCKET;
                touched.mark(f, fr);
                for (w, d) in g.l1_w[f * L1..(f + 1) * L1].iter_mut().zip(&dacc) {
                    *w += d;
                }
                for (w, d) in g.factor[fr * L1..(fr + 1) * L1].iter_mut().zip(&dacc) {
                    *w += d;
                }
            }
        }
    }

    /// Keeps every weight where the quantised net can hold it.
    pub fn clip(&mut self) {
        let clamp = |v: &mut [f32], c: f32| v.iter_mut().for_each(|x| *x = x.clamp(-c, c));
        clamp(&mut self.l1_w, L1_CLIP);
        clamp(&mut self.factor, L1_CLIP);
        clamp(&mut self.l1_b, L1_BIAS_CLIP);
        clamp(&mut self.l2_w, DENSE_CLIP);
        clamp(&mut self.l3_w, DENSE_CLIP);
        clamp(&mut self.out_w, DENSE_CLIP);
    }

    /// The quantised net: factor folded into every bucket's rows, values rounded to nearest
    /// and clamped to their integer type (the scales are in the `nnue` module doc).
    pub fn quantize(&self) -> QuantNet {
        let qa = QA as f32;
        let qab = (QA * QB) as f32;
        let i16q = |x: f32| (x * qa).round().clamp(-32767.0, 32767.0) as i16;
        let i8q = |x: f32| (x * QB as f32).round().clamp(-127.0, 127.0) as i8;
        let i32q = |x: f32| (x * qab).round().clamp(-2.0e9, 2.0e9) as i32;
        let l1_weights = (0..NUM_FEATURES * L1)
            .map(|k| {
                let (f, j) = (k / L1, k % L1);
                i16q(self.l1_w[k] + self.factor[(f % FEATURES_PER_BUCKET) * L1 + j])
            })
            .collect();
        QuantNet {
            l1_bias: self.l1_b.iter().map(|&x| i16q(x)).collect(),
            l1_weights,
            l2_bias: self.l2_b.iter().map(|&x| i32q(x)).collect(),
            l2_weights: self.l2_w.iter().map(|&x| i8q(x)).collect(),
            l3_bias: self.l3_b.iter().map(|&x| i32q(x)).collect(),
            l3_weights: self.l3_w.iter().map(|&x| i8q(x)).collect(),
            out_bias: i32q(self.out_b[0]),
            out_weights: self.out_w.iter().map(|&x| i8q(x)).collect(),
            psqt: (0..NUM_FEATURES).map(|f| i32q(self.psqt[f] + self.psqt_factor[f % FEATURES_PER_BUCKET])).collect(),
        }
    }

    /// The float net a quantised net stands for (factor zero): training from an existing net.
    pub fn dequantize(q: &QuantNet) -> FloatNet {
        let qa = QA as f32;
        let qb = QB as f32;
        let qab = (QA * QB) as f32;
        FloatNet {
            l1_w: q.l1_weights.iter().map(|&x| x as f32 / qa).collect(),
            factor: vec![0.0; FEATURES_PER_BUCKET * L1],
            l1_b: q.l1_bias.iter().map(|&x| x as f32 / qa).collect(),
            l2_w: q.l2_weights.iter().map(|&x| x as f32 / qb).collect(),
            l2_b: q.l2_bias.iter().map(|&x| x as f32 / qab).collect(),
            l3_w: q.l3_weights.iter().map(|&x| x as f32 / qb).collect(),
            l3_b: q.l3_bias.iter().map(|&x| x as f32 / qab).collect(),
            out_w: q.out_weights.iter().map(|&x| x as f32 / qb).collect(),
            out_b: vec![q.out_bias as f32 / qab],
            psqt: q.psqt.iter().map(|&x| x as f32 / qab).collect(),
            psqt_factor: vec![0.0; FEATURES_PER_BUCKET],
        }
    }
}

/// First-layer rows (and factor rows) a batch touched, so only they are summed, updated and
/// cleared.
#[derive(Clone, Debug)]
pub struct Touched {
    /// Touched feature rows, in first-touch order.
    pub rows: Vec<u32>,
    /// Touched factor rows.
    pub factor_rows: Vec<u32>,
    seen: Vec<bool>,
    factor_seen: Vec<bool>,
}

impl Default for Touched {
    fn default() -> Self {
        Touched {
            rows: Vec::new(),
            factor_rows: Vec::new(),
            seen: vec![false; NUM_FEATURES],
            factor_seen: vec![false; FEATURES_PER_BUCKET],
        }
    }
}

impl Touched {
    /// Records feature row `f` and factor row `fr`.
    #[inline(always)]
    pub fn mark(&mut self, f: usize, fr: usize) {
        self.mark_row(f);
        self.mark_factor_row(fr);
    }

    /// Records feature row `f`.
    #[inline(always)]
    pub fn mark_row(&mut self, f: usize) {
        if !self.seen[f] {
            self.seen[f] = true;
            self.rows.push(f as u32);
        }
    }

    /// Records factor row `fr`.
    #[inline(always)]
    pub fn mark_factor_row(&mut self, fr: usize) {
        if !self.factor_seen[fr] {
            self.factor_seen[fr] = true;
            self.factor_rows.push(fr as u32);
        }
    }

    /// Whether feature row `f` was touched.
    #[inline(always)]
    pub fn row_touched(&self, f: usize) -> bool {
        self.seen[f]
    }

    /// Whether factor row `fr` was touched.
    #[inline(always)]
    pub fn factor_row_touched(&self, fr: usize) -> bool {
        self.factor_seen[fr]
    }

    /// Forgets every row.
    pub fn clear(&mut self) {
        self.rows.iter().for_each(|&r| self.seen[r as usize] = false);
        self.factor_rows.iter().for_each(|&r| self.factor_seen[r as usize] = false);
        self.rows.clear();
        self.factor_rows.clear();
    }
}

/// The quantised net's raw output for `s`, computed as the engine's integer inference is
/// specified (`nnue` module doc): int16 sums clipped to 0..=127, dense layers shifted right
/// by `WEIGHT_SHIFT` and clipped, output int32. The output logit is `raw / (QA * QB)` and the
/// evaluation `raw * OUTPUT_SCALE / (QA * QB)`.
pub fn quant_forward(q: &QuantNet, s: &Sample) -> i32 {
    quant_layers(q, s).out
}

/// The integer net's sums, layer by layer: what bias correction compares with the float net.
#[derive(Clone, Copy, Debug)]
pub struct QuantSums {
    /// First dense layer sums (bias included, before `>> WEIGHT_SHIFT`).
    pub s2: [i32; L2],
    /// Second dense layer sums (likewise).
    pub s3: [i32; L3],
    /// The raw output (scale `QA * QB`).
    pub out: i32,
}

/// The integer forward pass, exactly as the engine computes it, keeping the dense sums.
pub fn quant_layers(q: &QuantNet, s: &Sample) -> QuantSums {
    let mut h = [0i32; 2 * L1];
    for (p, feats) in [&s.stm, &s.nstm].into_iter().enumerate() {
        let mut acc: Vec<i32> = q.l1_bias.iter().map(|&b| b as i32).collect();
        for &f in feats.iter() {
            let row = &q.l1_weights[f as usize * L1..(f as usize + 1) * L1];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += w as i32;
            }
        }
        for j in 0..L1 {
            // The engine keeps int16 accumulators; the clipping of the weights keeps these
            // sums in range, which the debug assertion checks.
            debug_assert!(acc[j].abs() <= i16::MAX as i32);
            h[p * L1 + j] = acc[j].clamp(0, QA);
        }
    }
    fn layer<const N: usize>(w: &[i8], b: &[i32], x: &[i32]) -> [i32; N] {
        let n = x.len();
        std::array::from_fn(|o| b[o] + w[o * n..(o + 1) * n].iter().zip(x).map(|(&w, &x)| w as i32 * x).sum::<i32>())
    }
    let act = |sum: i32| (sum >> WEIGHT_SHIFT).clamp(0, QA);
    let s2: [i32; L2] = layer(&q.l2_weights, &q.l2_bias, &h);
    let s3: [i32; L3] = layer(&q.l3_weights, &q.l3_bias, &s2.map(act));
    let psqt = |feats: &[u16]| feats.iter().fold(0i32, |s, &f| s.wrapping_add(q.psqt[f as usize]));
    // Half the difference, truncated toward zero, as the engine's `layers::to_units` does.
    let half = psqt(&s.stm).wrapping_sub(psqt(&s.nstm)) / 2;
    let out = q.out_bias + q.out_weights.iter().zip(s3.map(act)).map(|(&w, a)| w as i32 * a).sum::<i32>() + half;
    QuantSums { s2, s3, out }
}

/// Bias correction after rounding (the idea of Nagel et al., "Data-Free Quantization", 2019).
/// Rounding the weights moves each dense sum by an amount that hardly varies between
/// positions, and `>> WEIGHT_SHIFT` floors: in nn-004 the integer output sat 54 Kaname units
/// above the float net's on average (a bonus for the side to move that the float net never
/// learned, so positions a ply apart were judged on different scales), against about 20 units
/// of noise per position. Layer by layer, in the order the integer net computes, each bias
/// absorbs the mean difference between the float net's sums and the integer net's over
/// `samples`, plus half a step on the dense layers so that their shift rounds instead of flooring.
pub fn calibrate(q: &mut QuantNet, f: &FloatNet, samples: &[Sample]) {
    if samples.is_empty() {
        return;
    }
    let mut act = Activations::default();
    // The float net's dense sums and output of each sample.
    let float: Vec<([f32; L2], [f32; L3], f32)> = samples
        .iter()
        .map(|s| {
            let y = f.forward(s, &mut act);
            (act.z2, act.z3, y)
        })
        .collect();
    let half_step = (1 << (WEIGHT_SHIFT - 1)) as f64;
    let gap2 = mean_gap(q, samples, |i| float[i].0, |sums| sums.s2);
    for (b, g) in q.l2_bias.iter_mut().zip(gap2) {
        *b += (g + half_step).round() as i32;
    }
    let gap3 = mean_gap(q, samples, |i| float[i].1, |sums| sums.s3);
    for (b, g) in q.l3_bias.iter_mut().zip(gap3) {
        *b += (g + half_step).round() as i32;
    }
    let [gap_out] = mean_gap(q, samples, |i| [float[i].2], |sums| [sums.out]);
    q.out_bias += gap_out.round() as i32;
}

/// The mean of (float sum at integer scale - integer sum) of `N` sums over `samples`: `float`
/// gives sample `i`'s float sums, `int` picks the same sums out of the integer pass.
fn mean_gap<const N: usize>(
    q: &QuantNet,
    samples: &[Sample],
    float: impl Fn(usize) -> [f32; N],
    int: impl Fn(&QuantSums) -> [i32; N],
) -> [f64; N] {
    let qab = (QA * QB) as f64;
    let mut gap = [0f64; N];
    for (i, s) in samples.iter().enumerate() {
        for ((g, f), x) in gap.iter_mut().zip(float(i)).zip(int(&quant_layers(q, s))) {
            *g += f as f64 * qab - x as f64;
        }
    }
    gap.map(|g| g / samples.len() as f64)
}

/// Kaname units of a raw quantised output.
pub fn raw_to_eval(raw: i32) -> f64 {
    raw as f64 * OUTPUT_SCALE as f64 / (QA * QB) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::Network;

    /// The trainer's integer forward pass (what the validation loss of the written net is
    /// computed with) and the engine's inference agree exactly on every position: two
    /// independent readings of the same net layout and quantisation.
    #[test]
    fn trainer_and_engine_compute_the_same_integers() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).unwrap();
        for seed in [5, 6] {
            let q = QuantNet::random(seed);
            let net = Network::from_quant(&q);
            let mut n = 0;
            for line in text.lines().filter(|l| !l.starts_with('#')).take(3000) {
                let pos = engine::Position::from_sfen(line.split('\t').next().unwrap()).unwrap();
                let Some(s) = Sample::new(&pos, 0, 0) else { continue };
                let raw = quant_forward(&q, &s) as i64;
                let want = (raw * OUTPUT_SCALE as i64 / (QA * QB) as i64) as i32;
                assert_eq!(net.evaluate_full(&pos), want, "{}", pos.to_sfen());
                n += 1;
            }
            assert!(n > 200, "{n} positions with 40 pieces");
        }
    }

    /// A float net and its quantised copy agree within the rounding of the quantisation.
    #[test]
    fn float_and_quantised_forward_agree() {
        let mut rng = Rng::new(3);
        let mut f = FloatNet::random(&mut rng);
        for (i, p) in f.psqt.iter_mut().enumerate() {
            *p = ((i * 7919) % 200) as f32 / 1000.0 - 0.1;
        }
        let q = f.quantize();
        let pos = engine::Position::startpos();
        let s = Sample::new(&pos, 0, 0).unwrap();
        let y = f.forward(&s, &mut Activations::default());
        let yq = quant_forward(&q, &s) as f32 / (QA * QB) as f32;
        assert!((y - yq).abs() < 0.05, "float {y} quantised {yq}");
    }
}
