//! The float network trained in place of the quantised one: the same architecture
//! (`nnue` module doc, or a YaneuraOu shape's, `yo` module doc; `Arch` says which), plus a
//! factor table shared by every king bucket (Kaname) or king square (HalfKP), added to every
//! first-layer row during training and folded into the rows on export. Forward and backward
//! passes, quantisation to a `QuantNet` or a YaneuraOu `Params` and back, and the integer
//! forward that checks the exported net.
//!
//! The widths come from the `Arch` at run time; buffers are sized once per thread
//! (`Activations`), so the passes allocate nothing per position.

use super::arch::{Arch, MAX_L2, MAX_L3};
use super::data::{Rng, Sample};
use crate::nnue::features::ACTIVE_FEATURES;
use crate::nnue::{QuantNet, OUTPUT_SCALE, QA, QB, WEIGHT_SHIFT};
use crate::yo::file::{Dense, FtWeights, Params, BLOCK};
use rayon::prelude::*;

/// Largest |weight| of a hidden dense layer: the int8 range at scale `QB` (the output layer's
/// is `Arch::out_clip`).
pub const DENSE_CLIP: f32 = 127.0 / QB as f32;
/// Largest |value| of a first-layer weight or of a factor weight. A folded weight (the sum)
/// is then at most 3.0, 381 as an int16, and 40 active features (HalfKP: 38) plus a bias
/// stay far inside the int16 accumulator (40 x 381 + 381 < 32767) whatever the position.
pub const L1_CLIP: f32 = 1.5;
/// Largest |first-layer bias| (same reason).
pub const L1_BIAS_CLIP: f32 = 3.0;

/// The trainable parameters (and, with the same shapes, their gradients). Dense weights are
/// stored output-major like `QuantNet`'s. Widths below are the architecture's (`Arch::l1`,
/// `Arch::inputs`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The architecture: the shapes of the tensors below.
    pub arch: Arch,
    /// First-layer weights, `inputs * L1`, row `f` at `f * L1`.
    pub l1_w: Vec<f32>,
    /// Factor weights shared by all king buckets or squares, `factor_period * L1`.
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
    /// PSQT weights, `inputs` (in output logits); empty without a PSQT term.
    pub psqt: Vec<f32>,
    /// PSQT factor shared by all king buckets, `factor_period`; empty without a PSQT term.
    pub psqt_factor: Vec<f32>,
}

/// The activations of one forward pass, kept for the backward pass, and the backward pass's
/// scratch. Sized for one architecture; `FloatNet::forward` resizes them for its own.
#[derive(Clone, Debug)]
pub struct Activations {
    /// First-layer sums: side to move, then the other side (`L1` each).
    pub acc: [Vec<f32>; 2],
    /// Clipped first-layer outputs, side to move's first (`2 * L1`).
    pub h: Vec<f32>,
    /// First dense layer sums (`L2`).
    pub z2: Vec<f32>,
    /// Its clipped outputs.
    pub a2: Vec<f32>,
    /// Second dense layer sums (`L3`).
    pub z3: Vec<f32>,
    /// Its clipped outputs.
    pub a3: Vec<f32>,
    /// First-layer rows of each perspective's active features (`Sample::rows`).
    pub rows: [[u32; ACTIVE_FEATURES]; 2],
    /// Their factor rows.
    pub factor_rows: [[u32; ACTIVE_FEATURES]; 2],
    /// The architecture the buffers are sized for.
    arch: Arch,
    // The backward pass's gradients with respect to the layers' sums and outputs, kept here
    // so that it allocates nothing per position.
    dz3: Vec<f32>,
    dz2: Vec<f32>,
    dh: Vec<f32>,
    dacc: Vec<f32>,
}

impl Activations {
    /// Buffers for `arch`.
    pub fn new(arch: Arch) -> Activations {
        let (l1, l2, l3) = (arch.l1(), arch.l2(), arch.l3());
        Activations {
            acc: [vec![0.0; l1], vec![0.0; l1]],
            h: vec![0.0; 2 * l1],
            z2: vec![0.0; l2],
            a2: vec![0.0; l2],
            z3: vec![0.0; l3],
            a3: vec![0.0; l3],
            rows: [[0; ACTIVE_FEATURES]; 2],
            factor_rows: [[0; ACTIVE_FEATURES]; 2],
            arch,
            dz3: vec![0.0; l3],
            dz2: vec![0.0; l2],
            dh: vec![0.0; 2 * l1],
            dacc: vec![0.0; l1],
        }
    }

    /// Makes the buffers fit `arch`.
    #[inline(always)]
    fn fit(&mut self, arch: Arch) {
        if self.arch != arch {
            *self = Activations::new(arch);
        }
    }
}

impl Default for Activations {
    /// Buffers for Kaname's net (any other architecture resizes them on first use).
    fn default() -> Self {
        Activations::new(Arch::HalfKB9)
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
    /// A net of Kaname's architecture of zeros (the gradient accumulator's shape).
    pub fn zeros() -> FloatNet {
        FloatNet::zeros_for(Arch::HalfKB9)
    }

    /// A net of `arch` of zeros.
    pub fn zeros_for(arch: Arch) -> FloatNet {
        let (inputs, period, l1, l2, l3) = (arch.inputs(), arch.factor_period(), arch.l1(), arch.l2(), arch.l3());
        let psqt = |n: usize| if arch.has_psqt() { vec![0.0; n] } else { Vec::new() };
        FloatNet {
            arch,
            l1_w: vec![0.0; inputs * l1],
            factor: vec![0.0; period * l1],
            l1_b: vec![0.0; l1],
            l2_w: vec![0.0; l2 * 2 * l1],
            l2_b: vec![0.0; l2],
            l3_w: vec![0.0; l3 * l2],
            l3_b: vec![0.0; l3],
            out_w: vec![0.0; l3],
            out_b: vec![0.0; 1],
            psqt: psqt(inputs),
            psqt_factor: psqt(period),
        }
    }

    /// A freshly initialised net of Kaname's architecture (`random_for`).
    pub fn random(rng: &mut Rng) -> FloatNet {
        FloatNet::random_for(Arch::HalfKB9, rng)
    }

    /// A freshly initialised net of `arch`. First-layer weights are small so the 38-40
    /// feature sums start in the clipped ReLU's linear range around the bias 0.25 (the factor
    /// starts at zero and learns the shared part); dense weights are uniform in
    /// +-1/sqrt(fan-in).
    pub fn random_for(arch: Arch, rng: &mut Rng) -> FloatNet {
        let mut n = FloatNet::zeros_for(arch);
        let mut fill = |v: &mut [f32], a: f32| v.iter_mut().for_each(|x| *x = (rng.next_f32() * 2.0 - 1.0) * a);
        fill(&mut n.l1_w, 0.05);
        fill(&mut n.l2_w, 1.0 / ((2 * arch.l1()) as f32).sqrt());
        fill(&mut n.l3_w, 1.0 / (arch.l2() as f32).sqrt());
        fill(&mut n.out_w, 1.0 / (arch.l3() as f32).sqrt());
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

    /// The biases plus the first-layer row of every feature (and its factor row), into `acc`.
    #[inline(always)]
    fn accumulate(&self, rows: &[u32], factor_rows: &[u32], acc: &mut [f32]) {
        let l1 = acc.len();
        acc.copy_from_slice(&self.l1_b);
        for (&f, &fr) in rows.iter().zip(factor_rows) {
            let (f, fr) = (f as usize, fr as usize);
            let row = &self.l1_w[f * l1..(f + 1) * l1];
            let frow = &self.factor[fr * l1..(fr + 1) * l1];
            for ((a, w), v) in acc.iter_mut().zip(row).zip(frow) {
                *a += w + v;
            }
        }
    }

    /// The output logit y of `s` (the evaluation is `y * OUTPUT_SCALE`), filling `act`.
    /// `s` must have been made for this net's architecture.
    pub fn forward(&self, s: &Sample, act: &mut Activations) -> f32 {
        let arch = self.arch;
        act.fit(arch);
        let (n, l1) = (arch.active(), arch.l1());
        for p in 0..2 {
            s.rows(arch, p, &mut act.rows[p], &mut act.factor_rows[p]);
            self.accumulate(&act.rows[p][..n], &act.factor_rows[p][..n], &mut act.acc[p]);
        }
        for (p, acc) in act.acc.iter().enumerate() {
            for (h, a) in act.h[p * l1..(p + 1) * l1].iter_mut().zip(acc) {
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
        let psqt = if arch.has_psqt() {
            let sum = |p: usize| self.psqt_sum(&act.rows[p][..n], &act.factor_rows[p][..n]);
            (sum(0) - sum(1)) / 2.0
        } else {
            0.0
        };
        self.out_b[0] + self.out_w.iter().zip(&act.a3).map(|(w, a)| w * a).sum::<f32>() + psqt
    }

    /// One perspective's PSQT sum (with the factor).
    #[inline(always)]
    fn psqt_sum(&self, rows: &[u32], factor_rows: &[u32]) -> f32 {
        rows.iter().zip(factor_rows).map(|(&f, &fr)| self.psqt[f as usize] + self.psqt_factor[fr as usize]).sum()
    }

    /// Adds the gradient of the loss for `s` (whose derivative with respect to the output is
    /// `dy`) to `g`, from the activations of `forward(s, act)`; first-layer rows touched are
    /// recorded in `touched`.
    pub fn backward(&self, s: &Sample, act: &mut Activations, dy: f32, g: &mut FloatNet, touched: &mut Touched) {
        let arch = self.arch;
        // The rows come from `act`, where `forward` put them; they must be `s`'s.
        debug_assert!((0..2).all(|p| {
            let (mut rows, mut factor_rows) = ([0; ACTIVE_FEATURES], [0; ACTIVE_FEATURES]);
            s.rows(arch, p, &mut rows, &mut factor_rows);
            rows[..arch.active()] == act.rows[p][..arch.active()]
        }));
        let (n, l1, l2) = (arch.active(), arch.l1(), arch.l2());
        let Activations { acc, h, z2, a2, z3, a3, rows, factor_rows, dz3, dz2, dh, dacc, .. } = act;
        g.out_b[0] += dy;
        if arch.has_psqt() {
            for (p, sign) in [(0, 0.5f32), (1, -0.5)] {
                for (&f, &fr) in rows[p][..n].iter().zip(&factor_rows[p][..n]) {
                    g.psqt[f as usize] += sign * dy;
                    g.psqt_factor[fr as usize] += sign * dy;
                }
            }
        }
        for (i, d) in dz3.iter_mut().enumerate() {
            g.out_w[i] += dy * a3[i];
            *d = dy * self.out_w[i] * pass(z3[i]);
        }
        dz2.fill(0.0);
        for (o, &d) in dz3.iter().enumerate() {
            if d == 0.0 {
                continue;
            }
            g.l3_b[o] += d;
            let row = &self.l3_w[o * l2..(o + 1) * l2];
            for (((gw, dz), &a), &w) in g.l3_w[o * l2..(o + 1) * l2].iter_mut().zip(dz2.iter_mut()).zip(&*a2).zip(row) {
                *gw += d * a;
                *dz += d * w;
            }
        }
        dh.fill(0.0);
        for (o, d) in dz2.iter_mut().enumerate() {
            *d *= pass(z2[o]);
            if *d == 0.0 {
                continue;
            }
            g.l2_b[o] += *d;
            let row = &self.l2_w[o * 2 * l1..(o + 1) * 2 * l1];
            let grow = &mut g.l2_w[o * 2 * l1..(o + 1) * 2 * l1];
            for (((gw, dhi), &x), &w) in grow.iter_mut().zip(dh.iter_mut()).zip(&*h).zip(row) {
                *gw += *d * x;
                *dhi += *d * w;
            }
        }
        for p in 0..2 {
            for ((da, &d), &a) in dacc.iter_mut().zip(&dh[p * l1..(p + 1) * l1]).zip(&acc[p]) {
                *da = d * pass(a);
            }
            for (b, d) in g.l1_b.iter_mut().zip(&*dacc) {
                *b += d;
            }
            for (&f, &fr) in rows[p][..n].iter().zip(&factor_rows[p][..n]) {
                let (f, fr) = (f as usize, fr as usize);
                touched.mark(f, fr);
                for (w, d) in g.l1_w[f * l1..(f + 1) * l1].iter_mut().zip(&*dacc) {
                    *w += d;
                }
                for (w, d) in g.factor[fr * l1..(fr + 1) * l1].iter_mut().zip(&*dacc) {
                    *w += d;
                }
            }
        }
    }

    /// Keeps every weight where the quantised net can hold it.
    pub fn clip(&mut self) {
        clamp(&mut self.l1_w, L1_CLIP);
        clamp(&mut self.factor, L1_CLIP);
        self.clip_dense();
    }

    /// `clip` of the first-layer rows and factor rows in `touched` only, and of every
    /// other tensor. After a step it is `clip` when the other rows are already clipped: a
    /// lazy step leaves them as they were, and clamping HalfKP's 32 M first-layer weights
    /// (128 MB) after every batch took a third of its training time.
    pub fn clip_touched(&mut self, touched: &Touched) {
        let l1 = self.arch.l1();
        for &r in &touched.rows {
            clamp(&mut self.l1_w[r as usize * l1..(r as usize + 1) * l1], L1_CLIP);
        }
        for &r in &touched.factor_rows {
            clamp(&mut self.factor[r as usize * l1..(r as usize + 1) * l1], L1_CLIP);
        }
        self.clip_dense();
    }

    /// `clip` of everything but the first-layer weights and the factor.
    fn clip_dense(&mut self) {
        clamp(&mut self.l1_b, L1_BIAS_CLIP);
        clamp(&mut self.l2_w, DENSE_CLIP);
        clamp(&mut self.l3_w, DENSE_CLIP);
        clamp(&mut self.out_w, self.arch.out_clip());
    }

    /// The first-layer weights with the factor folded into every row, rounded to int16 at
    /// scale `QA`, into `out` (`inputs * L1`).
    fn fold_l1(&self, out: &mut [i16]) {
        let (l1, period) = (self.arch.l1(), self.arch.factor_period());
        out.par_chunks_mut(l1).zip(self.l1_w.par_chunks(l1)).enumerate().for_each(|(f, (o, w))| {
            let frow = &self.factor[(f % period) * l1..(f % period + 1) * l1];
            for ((o, &w), &v) in o.iter_mut().zip(w).zip(frow) {
                *o = i16q(w + v);
            }
        });
    }

    /// The quantised net of Kaname's architecture: factor folded into every bucket's rows,
    /// values rounded to nearest and clamped to their integer type (the scales are in the
    /// `nnue` module doc). Panics for another architecture (`to_model` takes any).
    pub fn quantize(&self) -> QuantNet {
        assert_eq!(self.arch, Arch::HalfKB9, "a .knn net is Kaname's architecture");
        let period = self.arch.factor_period();
        let mut l1_weights = vec![0i16; self.l1_w.len()];
        self.fold_l1(&mut l1_weights);
        QuantNet {
            l1_bias: self.l1_b.iter().map(|&x| i16q(x)).collect(),
            l1_weights,
            l2_bias: self.l2_b.iter().map(|&x| i32q(x)).collect(),
            l2_weights: self.l2_w.iter().map(|&x| i8q(x)).collect(),
            l3_bias: self.l3_b.iter().map(|&x| i32q(x)).collect(),
            l3_weights: self.l3_w.iter().map(|&x| i8q(x)).collect(),
            out_bias: i32q(self.out_b[0]),
            out_weights: self.out_w.iter().map(|&x| i8q(x)).collect(),
            psqt: (0..self.psqt.len()).map(|f| i32q(self.psqt[f] + self.psqt_factor[f % period])).collect(),
        }
    }

    /// The quantised net of a YaneuraOu architecture, as its `nn.bin` holds it: the factor
    /// folded into every king square's rows, first-layer values x127 as int16, hidden weights
    /// x64 as int8, hidden biases x(127 x 64) as int32, the output weights at
    /// `Arch::out_weight_scale` and its bias at `Arch::out_scale` (so that YaneuraOu's value
    /// at `FV_SCALE` 16 is the logit times `OUTPUT_SCALE`). Panics for Kaname's architecture.
    pub fn quantize_yo(&self) -> Params {
        let Arch::Yo(shape) = self.arch else { panic!("nn.bin holds YaneuraOu architectures only") };
        let (l1, l2, l3) = (shape.l1, shape.l2, shape.l3);
        let mut ft_weights = FtWeights::zeroed(self.l1_w.len() / BLOCK).expect("memory for the net's weights");
        self.fold_l1(ft_weights.lanes_mut());
        let (ows, obs) = (self.arch.out_weight_scale(), self.arch.out_scale());
        Params {
            shape,
            ft_biases: self.l1_b.iter().map(|&x| i16q(x)).collect(),
            ft_weights,
            dense: [
                Dense {
                    inputs: 2 * l1,
                    biases: self.l2_b.iter().map(|&x| i32q(x)).collect(),
                    weights: self.l2_w.iter().map(|&x| i8q(x)).collect(),
                },
                Dense {
                    inputs: l2,
                    biases: self.l3_b.iter().map(|&x| i32q(x)).collect(),
                    weights: self.l3_w.iter().map(|&x| i8q(x)).collect(),
                },
                Dense {
                    inputs: l3,
                    biases: vec![(self.out_b[0] * obs).round().clamp(-2.0e9, 2.0e9) as i32],
                    weights: self.out_w.iter().map(|&x| (x * ows).round().clamp(-127.0, 127.0) as i8).collect(),
                },
            ],
        }
    }

    /// The quantised net in its architecture's format (rounded only: `Trainer::export_model`
    /// also corrects the biases).
    pub fn to_model(&self) -> QuantModel {
        match self.arch {
            Arch::HalfKB9 => QuantModel::Knn(self.quantize()),
            Arch::Yo(_) => QuantModel::Yo(self.quantize_yo()),
        }
    }

    /// The float net a quantised net stands for (factor zero): training from an existing net.
    pub fn dequantize(q: &QuantNet) -> FloatNet {
        let qa = QA as f32;
        let qb = QB as f32;
        let qab = (QA * QB) as f32;
        FloatNet {
            arch: Arch::HalfKB9,
            l1_w: q.l1_weights.iter().map(|&x| x as f32 / qa).collect(),
            factor: vec![0.0; Arch::HalfKB9.factor_period() * Arch::HalfKB9.l1()],
            l1_b: q.l1_bias.iter().map(|&x| x as f32 / qa).collect(),
            l2_w: q.l2_weights.iter().map(|&x| x as f32 / qb).collect(),
            l2_b: q.l2_bias.iter().map(|&x| x as f32 / qab).collect(),
            l3_w: q.l3_weights.iter().map(|&x| x as f32 / qb).collect(),
            l3_b: q.l3_bias.iter().map(|&x| x as f32 / qab).collect(),
            out_w: q.out_weights.iter().map(|&x| x as f32 / qb).collect(),
            out_b: vec![q.out_bias as f32 / qab],
            psqt: q.psqt.iter().map(|&x| x as f32 / qab).collect(),
            psqt_factor: vec![0.0; Arch::HalfKB9.factor_period()],
        }
    }

    /// The float net a YaneuraOu net stands for (factor zero), or `None` for a shape the
    /// trainer does not learn (K-P). Training from it fine-tunes an existing `nn.bin`; its
    /// weights are clipped to the trainer's ranges at the first step.
    pub fn dequantize_yo(p: &Params) -> Option<FloatNet> {
        let arch = Arch::yo(p.shape)?;
        let (qa, qb, qab) = (QA as f32, QB as f32, (QA * QB) as f32);
        let [d2, d3, out] = &p.dense;
        let ft: &[i16] = p.ft_weights.lanes();
        Some(FloatNet {
            arch,
            l1_w: ft.iter().map(|&x| x as f32 / qa).collect(),
            factor: vec![0.0; arch.factor_period() * arch.l1()],
            l1_b: p.ft_biases.iter().map(|&x| x as f32 / qa).collect(),
            l2_w: d2.weights.iter().map(|&x| x as f32 / qb).collect(),
            l2_b: d2.biases.iter().map(|&x| x as f32 / qab).collect(),
            l3_w: d3.weights.iter().map(|&x| x as f32 / qb).collect(),
            l3_b: d3.biases.iter().map(|&x| x as f32 / qab).collect(),
            out_w: out.weights.iter().map(|&x| x as f32 / arch.out_weight_scale()).collect(),
            out_b: vec![out.biases[0] as f32 / arch.out_scale()],
            psqt: Vec::new(),
            psqt_factor: Vec::new(),
        })
    }
}

/// Every value of `v` into -c..=c.
#[inline(always)]
fn clamp(v: &mut [f32], c: f32) {
    v.iter_mut().for_each(|x| *x = x.clamp(-c, c));
}

/// A first-layer value as int16 at scale `QA`.
#[inline(always)]
fn i16q(x: f32) -> i16 {
    (x * QA as f32).round().clamp(-32767.0, 32767.0) as i16
}

/// A hidden weight as int8 at scale `QB`.
#[inline(always)]
fn i8q(x: f32) -> i8 {
    (x * QB as f32).round().clamp(-127.0, 127.0) as i8
}

/// A hidden bias (Kaname: also the output bias and PSQT) as int32 at scale `QA * QB`.
#[inline(always)]
fn i32q(x: f32) -> i32 {
    (x * (QA * QB) as f32).round().clamp(-2.0e9, 2.0e9) as i32
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
    /// For Kaname's architecture.
    fn default() -> Self {
        Touched::new(Arch::HalfKB9)
    }
}

impl Touched {
    /// Nothing touched yet, for the rows of `arch`.
    pub fn new(arch: Arch) -> Touched {
        Touched {
            rows: Vec::new(),
            factor_rows: Vec::new(),
            seen: vec![false; arch.inputs()],
            factor_seen: vec![false; arch.factor_period()],
        }
    }

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

/// The integer parameters as the integer forward pass reads them, laid out alike for
/// Kaname's `QuantNet` and YaneuraOu's `Params`.
#[derive(Clone, Copy, Debug)]
pub struct IntLayers<'a> {
    /// First-layer biases, `L1`.
    pub ft_biases: &'a [i16],
    /// First-layer weights, row `f` at `f * L1`.
    pub ft_weights: &'a [i16],
    /// The dense layers, `2 * L1 -> L2`, `L2 -> L3`, `L3 -> 1`: biases and output-major
    /// weights.
    pub dense: [(&'a [i32], &'a [i8]); 3],
    /// PSQT weights (empty without a PSQT term).
    pub psqt: &'a [i32],
}

/// An integer net the trainer runs, checks and bias-corrects: Kaname's `QuantNet`, a
/// YaneuraOu `Params`, or either (`QuantModel`).
pub trait Quantised {
    /// Its architecture.
    fn arch(&self) -> Arch;
    /// Its parameters.
    fn layers(&self) -> IntLayers<'_>;
    /// The biases of dense layer `i` (0 and 1 the hidden layers, 2 the output).
    fn dense_biases_mut(&mut self, i: usize) -> &mut [i32];
}

impl Quantised for QuantNet {
    fn arch(&self) -> Arch {
        Arch::HalfKB9
    }

    fn layers(&self) -> IntLayers<'_> {
        IntLayers {
            ft_biases: &self.l1_bias,
            ft_weights: &self.l1_weights,
            dense: [
                (&self.l2_bias, &self.l2_weights),
                (&self.l3_bias, &self.l3_weights),
                (std::slice::from_ref(&self.out_bias), &self.out_weights),
            ],
            psqt: &self.psqt,
        }
    }

    fn dense_biases_mut(&mut self, i: usize) -> &mut [i32] {
        match i {
            0 => &mut self.l2_bias,
            1 => &mut self.l3_bias,
            _ => std::slice::from_mut(&mut self.out_bias),
        }
    }
}

impl Quantised for Params {
    fn arch(&self) -> Arch {
        Arch::Yo(self.shape)
    }

    fn layers(&self) -> IntLayers<'_> {
        let [a, b, c] = &self.dense;
        IntLayers {
            ft_biases: &self.ft_biases,
            ft_weights: self.ft_weights.lanes(),
            dense: [(&a.biases, &a.weights), (&b.biases, &b.weights), (&c.biases, &c.weights)],
            psqt: &[],
        }
    }

    fn dense_biases_mut(&mut self, i: usize) -> &mut [i32] {
        &mut self.dense[i.min(2)].biases
    }
}

/// A quantised net in its architecture's format.
#[derive(Clone, Debug, PartialEq)]
pub enum QuantModel {
    /// Kaname's net, written as `.knn`.
    Knn(QuantNet),
    /// A YaneuraOu net, written as `nn.bin`.
    Yo(Params),
}

impl Quantised for QuantModel {
    fn arch(&self) -> Arch {
        match self {
            QuantModel::Knn(q) => q.arch(),
            QuantModel::Yo(p) => p.arch(),
        }
    }

    fn layers(&self) -> IntLayers<'_> {
        match self {
            QuantModel::Knn(q) => q.layers(),
            QuantModel::Yo(p) => p.layers(),
        }
    }

    fn dense_biases_mut(&mut self, i: usize) -> &mut [i32] {
        match self {
            QuantModel::Knn(q) => q.dense_biases_mut(i),
            QuantModel::Yo(p) => p.dense_biases_mut(i),
        }
    }
}

/// The quantised net's raw output for `s`, computed as the engine's integer inference is
/// specified (`nnue` module doc; YaneuraOu's is the same arithmetic without the PSQT term):
/// int16 sums clipped to 0..=127, dense layers shifted right by `WEIGHT_SHIFT` and clipped,
/// output int32. The output logit is `raw / arch.out_scale()`; Kaname's evaluation is
/// `raw * OUTPUT_SCALE / (QA * QB)`, YaneuraOu's value `raw / FV_SCALE`.
pub fn quant_forward(q: &(impl Quantised + ?Sized), s: &Sample) -> i32 {
    quant_layers(q, s).out
}

/// The integer net's sums, layer by layer: what bias correction compares with the float net.
#[derive(Clone, Copy, Debug)]
pub struct QuantSums {
    /// First dense layer sums (bias included, before `>> WEIGHT_SHIFT`); the first `L2`.
    pub s2: [i32; MAX_L2],
    /// Second dense layer sums (likewise); the first `L3`.
    pub s3: [i32; MAX_L3],
    /// The raw output (scale `Arch::out_scale`).
    pub out: i32,
}

/// The integer forward pass, exactly as the engine computes it, keeping the dense sums.
pub fn quant_layers(q: &(impl Quantised + ?Sized), s: &Sample) -> QuantSums {
    let arch = q.arch();
    let (n, l1, l2, l3) = (arch.active(), arch.l1(), arch.l2(), arch.l3());
    let v = q.layers();
    let mut h = vec![0i32; 2 * l1];
    let (mut rows, mut factor_rows) = ([[0u32; ACTIVE_FEATURES]; 2], [[0u32; ACTIVE_FEATURES]; 2]);
    for p in 0..2 {
        s.rows(arch, p, &mut rows[p], &mut factor_rows[p]);
        let mut acc: Vec<i32> = v.ft_biases.iter().map(|&b| b as i32).collect();
        for &f in &rows[p][..n] {
            let row = &v.ft_weights[f as usize * l1..(f as usize + 1) * l1];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += w as i32;
            }
        }
        for j in 0..l1 {
            // The engines keep int16 accumulators; the clipping of the weights keeps these
            // sums in range, which the debug assertion checks.
            debug_assert!(acc[j].abs() <= i16::MAX as i32);
            h[p * l1 + j] = acc[j].clamp(0, QA);
        }
    }
    fn layer(w: &[i8], b: &[i32], x: &[i32], out: &mut [i32]) {
        let n = x.len();
        for (o, y) in out.iter_mut().enumerate() {
            *y = b[o] + w[o * n..(o + 1) * n].iter().zip(x).map(|(&w, &x)| w as i32 * x).sum::<i32>();
        }
    }
    let act = |sum: &i32| (sum >> WEIGHT_SHIFT).clamp(0, QA);
    let mut sums = QuantSums { s2: [0; MAX_L2], s3: [0; MAX_L3], out: 0 };
    let [(b2, w2), (b3, w3), (bo, wo)] = v.dense;
    layer(w2, b2, &h, &mut sums.s2[..l2]);
    let a2: Vec<i32> = sums.s2[..l2].iter().map(act).collect();
    layer(w3, b3, &a2, &mut sums.s3[..l3]);
    let half = if v.psqt.is_empty() {
        0
    } else {
        let psqt = |feats: &[u32]| feats.iter().fold(0i32, |s, &f| s.wrapping_add(v.psqt[f as usize]));
        // Half the difference, truncated toward zero, as the engine's `layers::to_units` does.
        psqt(&rows[0][..n]).wrapping_sub(psqt(&rows[1][..n])) / 2
    };
    sums.out = bo[0] + wo.iter().zip(sums.s3[..l3].iter().map(act)).map(|(&w, a)| w as i32 * a).sum::<i32>() + half;
    sums
}

/// Bias correction after rounding (the idea of Nagel et al., "Data-Free Quantization", 2019).
/// Rounding the weights moves each dense sum by an amount that hardly varies between
/// positions, and `>> WEIGHT_SHIFT` floors: in nn-004 the integer output sat 54 Kaname units
/// above the float net's on average (a bonus for the side to move that the float net never
/// learned, so positions a ply apart were judged on different scales), against about 20 units
/// of noise per position. Layer by layer, in the order the integer net computes, each bias
/// absorbs the mean difference between the float net's sums and the integer net's over
/// `samples`, plus half a step on the hidden layers so that their shift rounds instead of
/// flooring. The same holds for YaneuraOu's arithmetic, whose output is then divided by
/// `FV_SCALE` toward zero (at most one Kaname unit, and symmetric, so not corrected).
pub fn calibrate(q: &mut (impl Quantised + ?Sized), f: &FloatNet, samples: &[Sample]) {
    if samples.is_empty() {
        return;
    }
    let arch = f.arch;
    assert_eq!(q.arch(), arch, "calibrating a net of another architecture");
    let (l2, l3) = (arch.l2(), arch.l3());
    let mut act = Activations::new(arch);
    // The float net's dense sums and output of each sample.
    let float: Vec<(Vec<f32>, Vec<f32>, f32)> = samples
        .iter()
        .map(|s| {
            let y = f.forward(s, &mut act);
            (act.z2.clone(), act.z3.clone(), y)
        })
        .collect();
    let half_step = (1 << (WEIGHT_SHIFT - 1)) as f64;
    let qab = (QA * QB) as f64;
    let gap2 = mean_gap(q, samples, qab, |i| float[i].0.clone(), |sums| sums.s2[..l2].to_vec());
    for (b, g) in q.dense_biases_mut(0).iter_mut().zip(gap2) {
        *b += (g + half_step).round() as i32;
    }
    let gap3 = mean_gap(q, samples, qab, |i| float[i].1.clone(), |sums| sums.s3[..l3].to_vec());
    for (b, g) in q.dense_biases_mut(1).iter_mut().zip(gap3) {
        *b += (g + half_step).round() as i32;
    }
    let gap_out = mean_gap(q, samples, arch.out_scale() as f64, |i| vec![float[i].2], |sums| vec![sums.out]);
    q.dense_biases_mut(2)[0] += gap_out[0].round() as i32;
}

/// The mean of (float sum at integer scale `scale` - integer sum) of some sums over
/// `samples`: `float` gives sample `i`'s float sums, `int` picks the same sums out of the
/// integer pass.
fn mean_gap(
    q: &(impl Quantised + ?Sized),
    samples: &[Sample],
    scale: f64,
    float: impl Fn(usize) -> Vec<f32>,
    int: impl Fn(&QuantSums) -> Vec<i32>,
) -> Vec<f64> {
    let mut gap: Vec<f64> = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let (fl, it) = (float(i), int(&quant_layers(q, s)));
        gap.resize(fl.len(), 0.0);
        for ((g, f), x) in gap.iter_mut().zip(fl).zip(it) {
            *g += f as f64 * scale - x as f64;
        }
    }
    gap.iter().map(|g| g / samples.len() as f64).collect()
}

/// Kaname units of a raw quantised output of Kaname's net (`Arch::raw_to_eval` for any).
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

    /// The trainer's integer forward pass of a YaneuraOu net is YaneuraOu's evaluation
    /// (`YoNet::evaluate_full`) on every position, over seeded random nets whose activations
    /// use the whole 0..=127 range and whose hidden weights include -128 and 127.
    #[test]
    fn trainer_and_yaneuraou_compute_the_same_integers() {
        use crate::yo::network::to_value;
        use crate::yo::{random, Shape, YoNet};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/legal_moves.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let small = Shape { l2: 8, l3: 96, ..Shape::HALFKP_256 };
        for (shape, seed) in [(Shape::HALFKP_256, 5), (small, 6)] {
            let p = random::params(shape, seed);
            let net = YoNet::new(p.clone());
            let mut n = 0;
            for line in text.lines().filter(|l| !l.starts_with('#')).take(3000) {
                let pos = engine::Position::from_sfen(line.split('\t').next().unwrap()).unwrap();
                let Some(s) = Sample::for_arch(Arch::Yo(shape), &pos, 0, 0) else { continue };
                for fv_scale in [16, 1] {
                    let want = to_value(quant_forward(&p, &s), fv_scale);
                    assert_eq!(net.evaluate_full(&pos, fv_scale), want, "{shape} {}", pos.to_sfen());
                }
                n += 1;
            }
            assert!(n > 200, "{n} positions with 40 pieces");
        }
    }

    /// A HalfKP float net and its `nn.bin` integers agree within the rounding, and
    /// dequantising and quantising again gives the same integers.
    #[test]
    fn halfkp_float_and_quantised_agree() {
        let arch = Arch::HALFKP_256;
        let mut f = FloatNet::random_for(arch, &mut Rng::new(3));
        f.factor.iter_mut().enumerate().for_each(|(i, x)| *x = ((i % 5) as f32 - 2.0) * 0.02);
        f.out_b[0] = 0.1;
        f.clip();
        let q = f.quantize_yo();
        let s = Sample::for_arch(arch, &engine::Position::startpos(), 0, 0).unwrap();
        let y = f.forward(&s, &mut Activations::new(arch));
        let yq = quant_forward(&q, &s) as f32 / arch.out_scale();
        assert!((y - yq).abs() < 0.02, "float {y} quantised {yq}");
        assert_eq!(FloatNet::dequantize_yo(&q).unwrap().quantize_yo(), q);
        // The output layer's scale: the largest weight allowed is 127 as an integer.
        f.out_w[0] = 10.0;
        f.clip();
        assert_eq!(f.quantize_yo().dense[2].weights[0], 127);
    }
}
