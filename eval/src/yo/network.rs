//! `YoNet`: a YaneuraOu net's parameters laid out for inference, shared by every search
//! thread, and `evaluate_full`, the slow, obviously correct reference the incremental and
//! SIMD paths are tested against.

use super::features::{self, Features};
use super::file::{Block, Dense, FtWeights, Params, BLOCK};
use super::layers;
use super::shape::{FeatureSet, Shape};
use crate::Value;
use engine::{Color, Position};

/// `FV_SCALE`'s default (`evaluate_nnue.cpp:155`): the net's output is divided by it.
pub const DEFAULT_FV_SCALE: i32 = 16;
/// YaneuraOu's bound on an evaluation (`VALUE_MAX_EVAL` = `VALUE_MATE - MAX_PLY - 1` =
/// 32000 - 246 - 1, `types.h:477-495`, `config.h:347`).
pub const VALUE_MAX_EVAL: Value = 31_753;

/// The instruction set the net's hot paths use, chosen when the net is built from what
/// the CPU reports (one binary runs everywhere; tests compare every path).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Simd {
    /// Scalar Rust.
    Portable,
    /// AVX2 (YaneuraOu's `TARGET_CPU=AVX2` path).
    Avx2,
    /// AVX2 with AVX-VNNI's `vpdpbusd` in the dense layers: one instruction for AVX2's three
    /// per 32 products (the same integers).
    Vnni,
}

impl Simd {
    /// The path to use: the fastest this CPU runs, or a slower one named by the environment
    /// variable `KANAME_SIMD` (`portable`, `avx2`, `vnni`: to compare the paths, or to run the
    /// portable code on a machine that has AVX2; a path the CPU lacks is not taken).
    pub fn detect() -> Simd {
        let best = Simd::best();
        let asked = std::env::var("KANAME_SIMD").ok().and_then(|v| match v.to_ascii_lowercase().as_str() {
            "portable" => Some(Simd::Portable),
            "avx2" => Some(Simd::Avx2),
            "vnni" => Some(Simd::Vnni),
            _ => None,
        });
        match asked {
            Some(s) if (s as u8) <= (best as u8) => s,
            _ => best,
        }
    }

    /// The fastest path this CPU runs.
    fn best() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("avxvnni") {
                return Simd::Vnni;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Portable
    }

    /// Whether this CPU runs `self`.
    pub fn available(self) -> bool {
        match self {
            Simd::Portable => true,
            Simd::Avx2 => Simd::best() != Simd::Portable,
            Simd::Vnni => Simd::best() == Simd::Vnni,
        }
    }
}

/// A dense layer in the two orders the code reads.
#[derive(Clone, Debug)]
pub(crate) struct Layer {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    pub(crate) biases: Vec<i32>,
    /// `w[o * inputs + i]` (the portable path).
    pub(crate) rows: Vec<i8>,
    /// Input-chunk-major: for each chunk of 4 inputs, every output's 4 weights in output
    /// order, `w[(k * outputs + o) * 4 + j]` (the AVX2 path: one broadcast chunk meets all
    /// outputs' weights, one output per i32 lane).
    pub(crate) chunked: Vec<i8>,
}

impl Layer {
    fn new(d: &Dense) -> Layer {
        let (inputs, outputs) = (d.inputs, d.outputs());
        let chunks = inputs.div_ceil(4);
        let mut chunked = vec![0i8; chunks * outputs * 4];
        for o in 0..outputs {
            for i in 0..inputs {
                chunked[((i / 4) * outputs + o) * 4 + i % 4] = d.weights[o * inputs + i];
            }
        }
        Layer { inputs, outputs, biases: d.biases.clone(), rows: d.weights.clone(), chunked }
    }
}

/// A YaneuraOu net ready to evaluate. Its weights are read only, so one copy serves every
/// thread (behind an `Arc`).
#[derive(Clone)]
pub struct YoNet {
    shape: Shape,
    /// Feature-transformer biases (one row).
    pub(crate) ft_biases: Vec<Block>,
    /// Feature-transformer weights, input `f`'s row at blocks `f * L1 / 32 ..`.
    pub(crate) ft_weights: FtWeights,
    /// `2 * L1 -> L2`, `L2 -> L3`, `L3 -> 1`.
    pub(crate) layers: [Layer; 3],
    /// The instruction set of the hot paths (detected when the net is built).
    pub(crate) simd: Simd,
}

impl YoNet {
    /// The inference layout of `p`.
    pub fn new(p: Params) -> YoNet {
        let mut ft_biases = vec![Block([0; BLOCK]); p.shape.l1 / BLOCK];
        bytemuck::cast_slice_mut::<Block, i16>(&mut ft_biases).copy_from_slice(&p.ft_biases);
        let layers = [Layer::new(&p.dense[0]), Layer::new(&p.dense[1]), Layer::new(&p.dense[2])];
        YoNet { shape: p.shape, ft_biases, ft_weights: p.ft_weights, layers, simd: Simd::detect() }
    }

    /// The net's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The instruction set in use.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The same net on another path (tests compare them; `simd` must be `available`).
    pub fn with_simd(mut self, simd: Simd) -> YoNet {
        assert!(simd.available(), "{simd:?} is not available on this CPU");
        self.simd = simd;
        self
    }

    /// The same net with the SIMD paths switched off.
    pub fn portable(self) -> YoNet {
        self.with_simd(Simd::Portable)
    }

    /// Input `f`'s row of feature-transformer weights (L1 values).
    #[inline(always)]
    pub(crate) fn row(&self, f: usize) -> &[i16] {
        let blocks = self.shape.l1 / BLOCK;
        bytemuck::cast_slice(&self.ft_weights[f * blocks..(f + 1) * blocks])
    }

    /// The biases of the feature transformer.
    #[inline(always)]
    pub(crate) fn biases(&self) -> &[i16] {
        bytemuck::cast_slice(&self.ft_biases)
    }

    /// YaneuraOu's static value of `pos` (`Eval::evaluate`: the output divided by `fv_scale`,
    /// rounded toward zero, within `VALUE_MAX_EVAL`), from the side to move's point of view,
    /// computed from scratch by the portable code alone: what YaneuraOu's `e` command prints.
    pub fn evaluate_full(&self, pos: &Position, fv_scale: i32) -> Value {
        let stm = pos.side_to_move();
        let (us, them) = (self.accumulate_full(pos, stm), self.accumulate_full(pos, !stm));
        to_value(layers::propagate_portable(self, &us, &them), fv_scale)
    }

    /// YaneuraOu's static value of `pos` computed from scratch on the fastest path (both
    /// accumulators summed from the biases, no cache, then the dense layers): what YaneuraOu's
    /// `compute_eval` does, for speed measurements (`evaluate_full` is the reference).
    pub fn evaluate_fresh(&self, pos: &Position, fv_scale: i32) -> Value {
        match self.shape.l1 {
            256 => self.fresh::<256>(pos, fv_scale),
            512 => self.fresh::<512>(pos, fv_scale),
            768 => self.fresh::<768>(pos, fv_scale),
            _ => self.fresh::<1024>(pos, fv_scale),
        }
    }

    fn fresh<const L1: usize>(&self, pos: &Position, fv_scale: i32) -> Value {
        let biases: &[i16; L1] = self.biases().try_into().expect("L1 biases");
        let mut acc = [super::accumulator::Lanes([0i16; L1]); 2];
        for (a, view) in acc.iter_mut().zip([pos.side_to_move(), !pos.side_to_move()]) {
            let mut active = [0usize; 40];
            let mut n = 0;
            let mut push = |f: usize| {
                active[n] = f;
                n += 1;
            };
            match self.shape.features {
                FeatureSet::HalfKP => features::HalfKP::for_each_active(pos, view, &mut push),
                FeatureSet::KP => features::KP::for_each_active(pos, view, &mut push),
            }
            super::accumulator::add_sub(self, &mut a.0, biases, &[], &active[..n]);
        }
        to_value(layers::propagate(self, &acc[0].0, &acc[1].0), fv_scale)
    }

    /// The accumulator of `view`: the biases plus the rows of its active inputs, wrapping
    /// in i16 as YaneuraOu's SIMD adds do.
    pub(crate) fn accumulate_full(&self, pos: &Position, view: Color) -> Vec<i16> {
        let mut acc = self.biases().to_vec();
        let mut add = |f: usize| {
            for (a, &w) in acc.iter_mut().zip(self.row(f)) {
                *a = a.wrapping_add(w);
            }
        };
        match self.shape.features {
            FeatureSet::HalfKP => features::HalfKP::for_each_active(pos, view, &mut add),
            FeatureSet::KP => features::KP::for_each_active(pos, view, &mut add),
        }
        acc
    }
}

/// The net's output as a value: divided by `fv_scale` toward zero (C++'s integer division)
/// and kept within `VALUE_MAX_EVAL` (`evaluate_nnue.cpp:742-746`).
#[inline(always)]
pub fn to_value(output: i32, fv_scale: i32) -> Value {
    (output / fv_scale.max(1)).clamp(-VALUE_MAX_EVAL, VALUE_MAX_EVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_to_value() {
        assert_eq!(to_value(31, 16), 1);
        assert_eq!(to_value(-31, 16), -1);
        assert_eq!(to_value(-15, 16), 0);
        assert_eq!(to_value(i32::MAX, 1), VALUE_MAX_EVAL);
        assert_eq!(to_value(i32::MIN + 1, 1), -VALUE_MAX_EVAL);
        assert_eq!(to_value(100, 0), 100, "FV_SCALE is at least 1");
    }

    #[test]
    fn chunked_layout() {
        let d = Dense { inputs: 8, biases: vec![0; 2], weights: (0..16).collect() };
        let l = Layer::new(&d);
        // Chunk 0: output 0's inputs 0-3, output 1's inputs 0-3; chunk 1: the same for 4-7.
        assert_eq!(l.chunked, vec![0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]);
    }
}
