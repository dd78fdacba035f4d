//! Adam, with the first layer updated lazily: only rows a batch touched are stepped (their
//! moments included), so a step costs what the batch touched, not the 5.4 M first-layer
//! weights. An untouched row's moments simply wait (TensorFlow's "LazyAdam"); with 40 of
//! 2,344 features per bucket active (HalfKP: 38 of 1,548 per king square), most rows are idle
//! in any one batch.

use super::arch::Arch;
use super::model::{FloatNet, Touched};
use rayon::prelude::*;

/// Adam's hyper-parameters and moments for every tensor of a `FloatNet`.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// First moments, shaped like the net.
    pub m: FloatNet,
    /// Second moments, shaped like the net.
    pub v: FloatNet,
    /// Steps taken (for the bias correction).
    pub t: u64,
    /// Decay of the first moment.
    pub beta1: f32,
    /// Decay of the second moment.
    pub beta2: f32,
    /// Added to the root of the second moment.
    pub eps: f32,
    /// Decoupled weight decay (AdamW) of the weights (not the biases), per unit of learning
    /// rate: it keeps rarely seen first-layer rows from memorising their few positions.
    pub weight_decay: f32,
}

impl Default for Adam {
    /// For Kaname's architecture.
    fn default() -> Self {
        Adam::new(Arch::HalfKB9)
    }
}

impl Adam {
    /// A fresh optimiser for a net of `arch`.
    pub fn new(arch: Arch) -> Adam {
        Adam {
            m: FloatNet::zeros_for(arch),
            v: FloatNet::zeros_for(arch),
            t: 0,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
        }
    }
}

/// The constants of one step.
#[derive(Clone, Copy)]
struct Hyper {
    /// Step size with the bias correction folded in.
    lr_t: f32,
    b1: f32,
    b2: f32,
    eps: f32,
    /// Decoupled weight decay of this tensor for this step (learning rate x decay; 0 for
    /// biases).
    decay: f32,
}

/// One Adam update of `w` from the gradient sum `g` (averaged here: times `scale`).
#[inline(always)]
fn step_slice(w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], scale: f32, h: Hyper) {
    let n = w.len();
    let (g, m, v) = (&g[..n], &mut m[..n], &mut v[..n]);
    for i in 0..n {
        let g = g[i] * scale;
        m[i] = h.b1 * m[i] + (1.0 - h.b1) * g;
        v[i] = h.b2 * v[i] + (1.0 - h.b2) * g * g;
        w[i] -= h.lr_t * m[i] / (v[i].sqrt() + h.eps) + h.decay * w[i];
    }
}

impl Adam {
    /// One step: `grad` holds gradient sums over `batch` samples; the first layer's rows are
    /// those in `touched`. The net is clipped afterwards by the caller.
    pub fn step(&mut self, net: &mut FloatNet, grad: &FloatNet, touched: &Touched, batch: usize, lr: f32) {
        self.t += 1;
        let (b1, b2, eps) = (self.beta1, self.beta2, self.eps);
        // Bias correction folded into the step size.
        let t = self.t as i32;
        let lr_t = lr * (1.0 - b2.powi(t)).sqrt() / (1.0 - b1.powi(t));
        let weights = Hyper { lr_t, b1, b2, eps, decay: lr * self.weight_decay };
        let biases = Hyper { decay: 0.0, ..weights };
        let scale = 1.0 / batch as f32;
        let l1 = net.arch.l1();
        // Rows are disjoint, so the touched ones are stepped in parallel (this is most of a
        // step's cost with small batches).
        let sparse =
            |w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], touched: &(dyn Fn(usize) -> bool + Sync)| {
                w.par_chunks_mut(l1)
                    .zip(g.par_chunks(l1))
                    .zip(m.par_chunks_mut(l1))
                    .zip(v.par_chunks_mut(l1))
                    .enumerate()
                    .filter(|(r, _)| touched(*r))
                    .for_each(|(_, (((w, g), m), v))| step_slice(w, g, m, v, scale, weights));
            };
        sparse(&mut net.l1_w, &grad.l1_w, &mut self.m.l1_w, &mut self.v.l1_w, &|r| touched.row_touched(r));
        sparse(&mut net.factor, &grad.factor, &mut self.m.factor, &mut self.v.factor, &|r| {
            touched.factor_row_touched(r)
        });
        let dense =
            net.tensors_mut().into_iter().zip(grad.tensors()).zip(self.m.tensors_mut()).zip(self.v.tensors_mut());
        // The first two tensors (first layer and factor) were stepped above.
        for (i, (((w, g), m), v)) in dense.enumerate().skip(2) {
            // Tensors 3, 5 and 7 are the dense weights (weight decay); 2, 4, 6 and 8 biases, and
            // 9 and 10 the PSQT weights (empty without PSQT), which are piece values: no decay
            // pulls them to 0.
            step_slice(w, g, m, v, scale, if i % 2 == 1 && i < 9 { weights } else { biases });
        }
    }
}
