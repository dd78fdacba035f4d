//! `kaname train`: a CPU trainer, in Rust, for two families of nets (`arch::Arch`,
//! `TrainConfig::arch`):
//!
//! - `halfkb9`: Kaname's own `HalfKB9-2344x256x2-32-32-1+PSQT` (`nnue` module doc), written
//!   as a `.knn` file;
//! - a YaneuraOu HalfKP shape, e.g. `halfkp_256x2-32-32` (any `yo::Shape` with HalfKP
//!   features: L1 256-1024, L2 8-32, L3 32-96), written as a YaneuraOu `nn.bin` that
//!   YaneuraOu loads and evaluates exactly as the trainer's integer check does (its value at
//!   `FV_SCALE` 16 is the net's logit times `OUTPUT_SCALE`, in Kaname's units). K-P is not
//!   trained.
//!
//! Everything below is shared; the architecture only sets the sizes, the feature rows, the
//! factor period, the PSQT term and the output's scale and file.
//!
//! - **Data** (`data`): YaneuraOu PSV records; positions in check, beyond `--max-score` or
//!   (optionally) whose best move captures are dropped; the features of both perspectives
//!   (side to move first) are computed once, as 16-bit numbers (HalfKP: the 38 BonaPieces and
//!   the king square, 166 bytes a position either way). Whole blocks of consecutive records,
//!   chosen by their index in the files (so every filter setting holds out the same games),
//!   are held out for validation (`--val-fraction`); the rest is shuffled every epoch with
//!   `--seed`.
//! - **Target**: p = lambda * sigmoid(score / K) + (1 - lambda) * (result + 1) / 2, where K,
//!   the logistic scale of the teacher's scores, is fitted to the data at start (the K of
//!   P(win) = sigmoid(score / K) that best predicts the game results, printed every run,
//!   overridable with `--scale`). On the shared classical self-play data (|score| <= 3000)
//!   K = 1197: the shallow teacher's scores are far from decisive. Since the net's win rate
//!   is sigmoid(eval / OUTPUT_SCALE) with OUTPUT_SCALE = 1200, its evaluations come out at
//!   about 1200 / K (about one) times the teacher's scores for the same win rate. lambda
//!   defaults to 0.75: mostly the teacher's score, which is far less noisy than one game's
//!   result, with enough of the result to correct the teacher's systematic errors.
//! - **Loss**: cross-entropy between sigmoid(y) and p, y being the net's output logit (the
//!   evaluation is y * OUTPUT_SCALE). Its gradient with respect to y is simply
//!   sigmoid(y) - p, which does not vanish when the net is confidently wrong, unlike MSE on
//!   win rates (whose gradient carries a factor q(1 - q)). Printed losses are nats per
//!   position; the target's own entropy (the least reachable loss) and the loss of the best
//!   constant prediction (what a net that learned nothing has) are printed beside them.
//! - **Model** (`model`): the float twin of the quantised net plus a factor table folded in
//!   on export: row `r` of the first layer is trained as `w[r] + factor[r % period]`, the
//!   period being a king bucket's 2,344 features (HalfKB9) or the 1,548 BonaPieces
//!   (HalfKP: every king square's row of a piece shares the piece's "P" weights, the
//!   factorisation YaneuraOu's own trainer used), so rarely seen buckets or king squares
//!   still start from what the others learned. Weights are clipped after every step to what
//!   the quantisation can hold.
//! - **Optimiser** (`optim`): Adam, lazily on touched first-layer rows; learning rate
//!   `--lr` times `--lr-decay` per epoch.
//! - **Parallelism**: each batch is cut into one slice per thread; every thread accumulates
//!   its own gradients (first layer sparsely), and they are summed in thread order; sums over
//!   positions (losses, the fit of K) add fixed chunks in order (`par_sum`). So a run repeats
//!   exactly for a given seed and thread count.
//! - **Output**: the quantised net of the epoch with the best validation loss so far
//!   (training may overfit: 1.45 M positions come from only about 20,000 games) and the
//!   latest epoch's (`last_path`: `<out>.last.knn`, `<out>.last.bin`), a float checkpoint
//!   per epoch (`--checkpoint-dir`, for `--resume`; it names its architecture), and a CSV of
//!   the loss curve beside the net. Every epoch the exported net is also evaluated with the
//!   integer forward pass (`model::quant_forward`, the engine's arithmetic and YaneuraOu's) on
//!   the validation set, so the file written is the file checked.
//! - **Export** (`Trainer::export_model`): rounding to integers, then bias correction
//!   (`model::calibrate`) on 20,000 training positions, which removes the constant part of the
//!   rounding error (nn-004: a +54-unit bonus for the side to move; halves the mean error).
//!   Scales: first-layer weights and biases x127 as int16, hidden weights x64 as int8, hidden
//!   biases x(127 x 64) as int32; the output layer x64 / x(127 x 64) for Kaname's file,
//!   x(1200 x 16 / 127) / x(1200 x 16) for YaneuraOu's (so its output weights are clipped
//!   to 127 x 127 / 19200 = 0.84 in training). First-layer weights are clipped so that 40
//!   features and the bias never overflow the int16 accumulator.
//!
//! What the command line calls: `TrainConfig` (with `arch` parsed by `Arch::from_str` from
//! `halfkb9` or a shape name) and `run`; `run` writes `out` in the architecture's format
//! (`Arch::format`) whatever its name.

pub mod arch;
pub mod data;
pub mod model;
pub mod optim;

use crate::nnue::netfile::{self, NetFileError};
use crate::nnue::QuantNet;
pub use arch::{Arch, NetFormat, UnknownArch};
use data::{DataError, Filter, LoadStats, Rng, Sample};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use model::{quant_forward, Activations, FloatNet, QuantModel, Quantised, Touched};
use optim::Adam;
use rayon::prelude::*;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Everything `kaname train` can be told.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// The architecture to learn; it decides the format of `out` (`Arch::format`).
    pub arch: Arch,
    /// PSV files, read in order.
    pub data: Vec<PathBuf>,
    /// Where the quantised net goes (the loss curve goes beside it, `.csv`): a `.knn` file
    /// for `Arch::HalfKB9`, an `nn.bin` for a YaneuraOu architecture, whatever its name.
    pub out: PathBuf,
    /// Epochs to train (in total, counting those of a resumed checkpoint).
    pub epochs: usize,
    /// Positions per batch.
    pub batch: usize,
    /// Adam's learning rate in the first epoch.
    pub lr: f32,
    /// Learning-rate factor per epoch.
    pub lr_decay: f32,
    /// Weight of the teacher's score in the target (the rest is the game result).
    pub lambda: f32,
    /// Decoupled weight decay (AdamW) per unit of learning rate.
    pub weight_decay: f32,
    /// Worker threads.
    pub threads: usize,
    /// Which records to keep.
    pub filter: Filter,
    /// Share of the data held out for validation.
    pub val_fraction: f64,
    /// Seed of the shuffles, the split and the initial weights.
    pub seed: u64,
    /// Start from this net (`.knn` or YaneuraOu `nn.bin`, dequantised) or float checkpoint,
    /// of `arch`.
    pub init: Option<PathBuf>,
    /// Resume this checkpoint (weights, optimiser, epoch count, scale).
    pub resume: Option<PathBuf>,
    /// Where checkpoints go (none written without it).
    pub checkpoint_dir: Option<PathBuf>,
    /// Read only the first this many records.
    pub limit: Option<u64>,
    /// The logistic scale K of the scores; fitted to the data when `None`.
    pub scale: Option<f32>,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            arch: Arch::HalfKB9,
            data: Vec::new(),
            out: PathBuf::from("net.knn"),
            epochs: 3,
            batch: 1024,
            lr: 1.5e-4,
            lr_decay: 0.7,
            lambda: 0.75,
            weight_decay: 0.0,
            threads: 1,
            filter: Filter::default(),
            val_fraction: 0.02,
            seed: 1,
            init: None,
            resume: None,
            checkpoint_dir: None,
            limit: None,
            scale: None,
            progress: true,
        }
    }
}

/// Why training stopped.
#[derive(Debug)]
pub enum TrainError {
    /// The training data could not be read.
    Data(DataError),
    /// No position survived the filters (or none is left for training).
    NoData,
    /// A net file could not be read or written.
    NetFile(PathBuf, NetFileError),
    /// A checkpoint or output file could not be read or written.
    Io(PathBuf, std::io::Error),
    /// A checkpoint is damaged or of another shape.
    BadCheckpoint(PathBuf, String),
    /// The thread pool could not be built.
    Threads(String),
    /// A YaneuraOu net could not be read (`--init`).
    YoNet(PathBuf, crate::yo::YoNetError),
    /// A starting net or checkpoint is of another architecture than the one asked for (the
    /// file, its architecture, the one asked for).
    ArchMismatch(PathBuf, Arch, Arch),
    /// A YaneuraOu net of a shape the trainer does not learn (K-P).
    Untrainable(PathBuf, crate::yo::Shape),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Data(e) => write!(f, "training data: {e}"),
            TrainError::NoData => write!(f, "no training positions left after filtering"),
            TrainError::NetFile(p, e) => write!(f, "{}: {e}", p.display()),
            TrainError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TrainError::BadCheckpoint(p, why) => write!(f, "{}: bad checkpoint: {why}", p.display()),
            TrainError::Threads(e) => write!(f, "thread pool: {e}"),
            TrainError::YoNet(p, e) => write!(f, "{}: {e}", p.display()),
            TrainError::ArchMismatch(p, found, wanted) => {
                write!(f, "{}: a {found} net, but the architecture to train is {wanted}", p.display())
            }
            TrainError::Untrainable(p, shape) => {
                write!(f, "{}: a {shape} net; kaname train learns halfkb9 and HalfKP nets only", p.display())
            }
        }
    }
}

impl std::error::Error for TrainError {}

/// How the quantised net compares with the float one on a set of positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantCheck {
    /// Mean loss of the quantised net.
    pub loss: f64,
    /// Largest |float - quantised| evaluation, Kaname units.
    pub max_eval_error: f64,
    /// Mean |float - quantised| evaluation, Kaname units.
    pub mean_eval_error: f64,
    /// Mean quantised - float evaluation, Kaname units: the part of the error that bias
    /// correction (`model::calibrate`) removes.
    pub mean_eval_offset: f64,
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochStats {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training loss over the epoch (with the weights as they moved).
    pub train_loss: f64,
    /// Validation loss of the float net after the epoch.
    pub val_loss: f64,
    /// Validation loss of the exported, quantised net.
    pub val_loss_quant: f64,
    /// Largest |float - quantised| evaluation over the validation set, Kaname units.
    pub max_eval_error: f64,
    /// Mean |float - quantised| evaluation over the validation set, Kaname units.
    pub mean_eval_error: f64,
    /// Learning rate used.
    pub lr: f32,
    /// Seconds spent training (not validating).
    pub seconds: f64,
    /// Training positions per second.
    pub positions_per_second: f64,
}

/// A numerically stable cross-entropy of sigmoid(y) against p: softplus(y) - p * y.
#[inline(always)]
pub fn cross_entropy(y: f32, p: f32) -> f32 {
    y.max(0.0) + (-y.abs()).exp().ln_1p() - p * y
}

/// The logistic function.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of `s` (see the module doc).
#[inline(always)]
pub fn target(s: &Sample, scale: f32, lambda: f32) -> f32 {
    lambda * sigmoid(s.score as f32 / scale) + (1.0 - lambda) * (s.result as f32 + 1.0) * 0.5
}

/// Mean cross-entropy of predicting the results with sigmoid(score / k).
fn result_loss(samples: &[Sample], k: f32) -> f64 {
    let sum = par_sum(samples, |s| cross_entropy(s.score as f32 / k, (s.result as f32 + 1.0) * 0.5) as f64);
    sum / samples.len().max(1) as f64
}

/// Positions summed in one piece by `par_sum`.
const SUM_CHUNK: usize = 1024;

/// The sum of `f` over `items`, in parallel but always in the same order: fixed chunks, each
/// summed in order, then the chunks' sums in order. A rayon `sum` of floats adds in an order
/// that depends on how the work was split and stolen, so its last bits vary from run to run;
/// `fit_scale` compares such sums, and one flipped comparison changes K and with it the whole
/// run: two runs of the same data and seed could then differ (a resumed run keeps the K of its
/// checkpoint, an uninterrupted one fits its own).
fn par_sum<T: Sync>(items: &[T], f: impl Fn(&T) -> f64 + Sync + Send) -> f64 {
    par_chunk_sums(items, |c| c.iter().map(&f).sum::<f64>()).iter().sum()
}

/// `f` of each fixed chunk of `SUM_CHUNK` items, in parallel, in the chunks' order (for
/// `par_sum`'s reason: the caller adds them up in this order).
fn par_chunk_sums<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync + Send) -> Vec<R> {
    items.par_chunks(SUM_CHUNK).map(f).collect()
}

/// The logistic scale K that best predicts the game results from the scores (golden-section
/// search on ln K over 10..100000; the loss is unimodal in K).
pub fn fit_scale(samples: &[Sample]) -> f32 {
    let (mut a, mut b) = (10f64.ln(), 100_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let f = |x: f64| result_loss(samples, x.exp() as f32);
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp() as f32
}

/// The loss of predicting sigmoid(score / K) itself: what mimicking the teacher exactly gives.
pub fn teacher_loss(samples: &[Sample], scale: f32, lambda: f32) -> f64 {
    let sum = par_sum(samples, |s| cross_entropy(s.score as f32 / scale, target(s, scale, lambda)) as f64);
    sum / samples.len().max(1) as f64
}

/// One thread's gradient accumulator.
struct Worker {
    grad: FloatNet,
    touched: Touched,
    act: Activations,
}

impl Worker {
    /// A worker for Kaname's architecture.
    #[cfg(test)]
    fn new() -> Worker {
        Worker::for_arch(Arch::HalfKB9)
    }

    fn for_arch(arch: Arch) -> Worker {
        Worker { grad: FloatNet::zeros_for(arch), touched: Touched::new(arch), act: Activations::new(arch) }
    }

    /// Forward and backward over `batch`; returns the summed loss.
    fn accumulate(&mut self, net: &FloatNet, batch: &[Sample], scale: f32, lambda: f32) -> f64 {
        let mut loss = 0.0f64;
        for s in batch {
            let y = net.forward(s, &mut self.act);
            let p = target(s, scale, lambda);
            loss += cross_entropy(y, p) as f64;
            net.backward(s, &mut self.act, sigmoid(y) - p, &mut self.grad, &mut self.touched);
        }
        loss
    }

    /// Adds this worker's gradients into `main` and clears them.
    fn drain_into(&mut self, main: &mut Worker) {
        let l1 = self.grad.arch.l1();
        let g = &mut self.grad;
        for &r in &self.touched.rows {
            let r = r as usize * l1..(r as usize + 1) * l1;
            main.grad.l1_w[r.clone()].iter_mut().zip(&g.l1_w[r.clone()]).for_each(|(a, b)| *a += b);
            g.l1_w[r].fill(0.0);
        }
        for &r in &self.touched.factor_rows {
            let r = r as usize * l1..(r as usize + 1) * l1;
            main.grad.factor[r.clone()].iter_mut().zip(&g.factor[r.clone()]).for_each(|(a, b)| *a += b);
            g.factor[r].fill(0.0);
        }
        self.touched.rows.iter().for_each(|&r| main.touched.mark_row(r as usize));
        self.touched.factor_rows.iter().for_each(|&r| main.touched.mark_factor_row(r as usize));
        self.touched.clear();
        for (a, b) in main.grad.tensors_mut().into_iter().zip(g.tensors_mut()).skip(2) {
            a.iter_mut().zip(b.iter_mut()).for_each(|(x, y)| {
                *x += *y;
                *y = 0.0;
            });
        }
    }

    /// Clears the gradients after a step.
    fn clear(&mut self) {
        let l1 = self.grad.arch.l1();
        for &r in &self.touched.rows {
            self.grad.l1_w[r as usize * l1..(r as usize + 1) * l1].fill(0.0);
        }
        for &r in &self.touched.factor_rows {
            self.grad.factor[r as usize * l1..(r as usize + 1) * l1].fill(0.0);
        }
        self.touched.clear();
        for t in self.grad.tensors_mut().into_iter().skip(2) {
            t.fill(0.0);
        }
    }
}

/// The state that training changes: weights, optimiser, epochs done, the target's constants.
pub struct Trainer {
    /// The float net.
    pub net: FloatNet,
    /// The optimiser's state.
    pub adam: Adam,
    /// Epochs completed.
    pub epoch: usize,
    /// Logistic scale K of the scores.
    pub scale: f32,
    /// Weight of the score in the target.
    pub lambda: f32,
    workers: Vec<Worker>,
}

impl Trainer {
    /// A trainer for `net` (fresh optimiser), of the net's architecture.
    pub fn new(net: FloatNet, scale: f32, lambda: f32) -> Trainer {
        Trainer { adam: Adam::new(net.arch), net, epoch: 0, scale, lambda, workers: Vec::new() }
    }

    /// The architecture being trained.
    pub fn arch(&self) -> Arch {
        self.net.arch
    }

    /// Mean loss of the float net over `samples`.
    pub fn loss(&self, samples: &[Sample]) -> f64 {
        let sum: f64 = par_chunk_sums(samples, |c| {
            let mut act = Activations::new(self.net.arch);
            c.iter()
                .map(|s| cross_entropy(self.net.forward(s, &mut act), target(s, self.scale, self.lambda)) as f64)
                .sum::<f64>()
        })
        .iter()
        .sum();
        sum / samples.len().max(1) as f64
    }

    /// The quantised net `q` (of this trainer's architecture) over `samples`: its mean loss,
    /// and how far its evaluations are from the float net's (Kaname units).
    pub fn quant_loss(&self, q: &(impl Quantised + Sync + ?Sized), samples: &[Sample]) -> QuantCheck {
        let arch = q.arch();
        assert_eq!(arch, self.net.arch, "checking a net of another architecture");
        let out_scale = arch.out_scale();
        let (sum, max, abs, signed) = par_chunk_sums(samples, |c| {
            let mut act = Activations::new(arch);
            c.iter().fold((0.0f64, 0.0f64, 0.0f64, 0.0f64), |(sum, max, abs, signed), s| {
                let raw = quant_forward(q, s);
                let yq = raw as f32 / out_scale;
                let yf = self.net.forward(s, &mut act);
                let diff = arch.raw_to_eval(raw) - yf as f64 * crate::nnue::OUTPUT_SCALE as f64;
                let loss = cross_entropy(yq, target(s, self.scale, self.lambda)) as f64;
                (sum + loss, max.max(diff.abs()), abs + diff.abs(), signed + diff)
            })
        })
        .into_iter()
        .fold((0.0f64, 0.0f64, 0.0f64, 0.0f64), |a, b| (a.0 + b.0, a.1.max(b.1), a.2 + b.2, a.3 + b.3));
        let n = samples.len().max(1) as f64;
        QuantCheck { loss: sum / n, max_eval_error: max, mean_eval_error: abs / n, mean_eval_offset: signed / n }
    }

    /// The net as the engine (Kaname, or YaneuraOu for its architectures) will run it, in
    /// its architecture's format: quantised, then bias-corrected (`model::calibrate`) on up
    /// to `CALIBRATION_SAMPLES` training positions spread evenly over `train` (never the
    /// validation positions, so the validation figures stay honest).
    pub fn export_model(&self, train: &[Sample]) -> QuantModel {
        let mut q = self.net.to_model();
        let step = train.len().div_ceil(CALIBRATION_SAMPLES).max(1);
        let picked: Vec<Sample> = train.iter().step_by(step).cloned().collect();
        model::calibrate(&mut q, &self.net, &picked);
        q
    }

    /// `export_model` for Kaname's architecture: the `.knn` net. Panics for another.
    pub fn export(&self, train: &[Sample]) -> QuantNet {
        match self.export_model(train) {
            QuantModel::Knn(q) => q,
            QuantModel::Yo(_) => panic!("Trainer::export makes .knn nets; use export_model"),
        }
    }

    /// The loss of the best constant prediction (the mean target): what a net that learned
    /// nothing about positions would have.
    pub fn constant_loss(&self, samples: &[Sample]) -> f64 {
        let n = samples.len().max(1) as f64;
        let p = samples.iter().map(|s| target(s, self.scale, self.lambda) as f64).sum::<f64>() / n;
        let p = p.clamp(1e-7, 1.0 - 1e-7);
        -(p * p.ln() + (1.0 - p) * (1.0 - p).ln())
    }

    /// Mean entropy of the targets: the loss a perfect net would have.
    pub fn target_entropy(&self, samples: &[Sample]) -> f64 {
        let sum: f64 = samples
            .iter()
            .map(|s| {
                let p = target(s, self.scale, self.lambda).clamp(1e-7, 1.0 - 1e-7) as f64;
                -(p * p.ln() + (1.0 - p) * (1.0 - p).ln())
            })
            .sum();
        sum / samples.len().max(1) as f64
    }

    /// One pass over `train` in batches of `batch`, in an order drawn from `seed` and the
    /// epoch number alone (not from earlier epochs), so a resumed run repeats the epochs an
    /// uninterrupted one would have trained; returns the mean training loss. Runs on the
    /// current rayon pool.
    pub fn train_epoch(&mut self, train: &[Sample], batch: usize, lr: f32, seed: u64, bar: &ProgressBar) -> f64 {
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        let epoch_seed = seed ^ (self.epoch as u64 + 1).wrapping_mul(0xd6e8_feb8_6659_fd93);
        data::shuffle(&mut order, &mut Rng::new(epoch_seed));
        let mut buf: Vec<Sample> = Vec::with_capacity(batch.max(1));
        let threads = rayon::current_num_threads().max(1);
        let arch = self.net.arch;
        self.workers.retain(|w| w.grad.arch == arch);
        while self.workers.len() < threads {
            self.workers.push(Worker::for_arch(arch));
        }
        let mut total = 0.0;
        let mut clipped = false;
        for idx in order.chunks(batch.max(1)) {
            buf.clear();
            buf.extend(idx.iter().map(|&i| train[i as usize]));
            let b = &buf[..];
            let per = b.len().div_ceil(threads);
            let (net, scale, lambda) = (&self.net, self.scale, self.lambda);
            let losses: Vec<f64> = self.workers[..threads]
                .par_iter_mut()
                .zip(b.par_chunks(per.max(1)))
                .map(|(w, chunk)| w.accumulate(net, chunk, scale, lambda))
                .collect();
            total += losses.iter().sum::<f64>();
            let (main, rest) = self.workers.split_first_mut().expect("one worker at least");
            for w in rest.iter_mut() {
                if !w.touched.rows.is_empty() {
                    w.drain_into(main);
                }
            }
            self.adam.step(&mut self.net, &main.grad, &main.touched, b.len(), lr);
            // The whole net once per epoch (it may have been set from outside since the last
            // one), then only what the step moved.
            if clipped {
                self.net.clip_touched(&main.touched);
            } else {
                self.net.clip();
                clipped = true;
            }
            main.clear();
            bar.inc(b.len() as u64);
        }
        self.epoch += 1;
        total / train.len().max(1) as f64
    }
}

/// Training positions the exported net's biases are corrected on (`Trainer::export`): the
/// mean sums settle to well under one integer step long before this.
pub const CALIBRATION_SAMPLES: usize = 20_000;

/// Checkpoint magic.
const CKPT_MAGIC: &[u8; 8] = b"KANAMECK";
/// Checkpoint format version: 2 adds the architecture's name after the header (version 1,
/// which has none, is Kaname's architecture).
const CKPT_VERSION: u32 = 2;
/// Values written or read at a time (a HalfKP tensor is 32 M values).
const CKPT_CHUNK: usize = 1 << 20;

/// Writes the float state (architecture, net, Adam moments, counters, target constants) to
/// `path`.
pub fn save_checkpoint(t: &Trainer, path: &Path) -> Result<(), TrainError> {
    let io = |e| TrainError::Io(path.to_path_buf(), e);
    let tmp = path.with_extension("tmp");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
    let mut head = Vec::new();
    head.extend_from_slice(CKPT_MAGIC);
    head.extend_from_slice(&CKPT_VERSION.to_le_bytes());
    head.extend_from_slice(&(t.epoch as u64).to_le_bytes());
    head.extend_from_slice(&t.adam.t.to_le_bytes());
    head.extend_from_slice(&t.scale.to_le_bytes());
    head.extend_from_slice(&t.lambda.to_le_bytes());
    let arch = t.net.arch.to_string();
    head.extend_from_slice(&(arch.len() as u32).to_le_bytes());
    head.extend_from_slice(arch.as_bytes());
    w.write_all(&head).map_err(io)?;
    for tensor in t.net.tensors().into_iter().chain(t.adam.m.tensors()).chain(t.adam.v.tensors()) {
        w.write_all(&(tensor.len() as u64).to_le_bytes()).map_err(io)?;
        for chunk in tensor.chunks(CKPT_CHUNK) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
            w.write_all(&bytes).map_err(io)?;
        }
    }
    w.flush().map_err(io)?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(io)
}

/// Reads a checkpoint written by `save_checkpoint` (or by a version-1 trainer).
pub fn load_checkpoint(path: &Path) -> Result<Trainer, TrainError> {
    let bad = |why: &str| TrainError::BadCheckpoint(path.to_path_buf(), why.to_string());
    let mut r = std::io::BufReader::new(std::fs::File::open(path).map_err(|e| TrainError::Io(path.to_path_buf(), e))?);
    let mut head = [0u8; 8 + 4 + 8 + 8 + 4 + 4];
    r.read_exact(&mut head).map_err(|_| bad("truncated header"))?;
    if &head[..8] != CKPT_MAGIC {
        return Err(bad("bad magic"));
    }
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let arch = match u32_at(8) {
        1 => Arch::HalfKB9,
        2 => {
            let mut len = [0u8; 4];
            r.read_exact(&mut len).map_err(|_| bad("truncated header"))?;
            let len = u32::from_le_bytes(len);
            if len > 256 {
                return Err(bad("bad architecture name"));
            }
            let mut name = vec![0u8; len as usize];
            r.read_exact(&mut name).map_err(|_| bad("truncated header"))?;
            String::from_utf8_lossy(&name).parse::<Arch>().map_err(|e| bad(&e.to_string()))?
        }
        _ => return Err(bad("unsupported version")),
    };
    let mut t = Trainer::new(FloatNet::zeros_for(arch), f32::from_bits(u32_at(28)), f32::from_bits(u32_at(32)));
    t.epoch = u64_at(12) as usize;
    t.adam.t = u64_at(20);
    let Trainer { net, adam, .. } = &mut t;
    let tensors = net.tensors_mut().into_iter().chain(adam.m.tensors_mut()).chain(adam.v.tensors_mut());
    let mut bytes = Vec::new();
    for tensor in tensors {
        let mut len = [0u8; 8];
        r.read_exact(&mut len).map_err(|_| bad("truncated"))?;
        if u64::from_le_bytes(len) != tensor.len() as u64 {
            return Err(bad("tensor of the wrong size"));
        }
        for chunk in tensor.chunks_mut(CKPT_CHUNK) {
            bytes.resize(chunk.len() * 4, 0);
            r.read_exact(&mut bytes).map_err(|_| bad("truncated"))?;
            for (x, b) in chunk.iter_mut().zip(bytes.chunks_exact(4)) {
                *x = f32::from_le_bytes(b.try_into().expect("4 bytes"));
            }
        }
    }
    if r.read(&mut [0u8; 1]).map_err(|e| TrainError::Io(path.to_path_buf(), e))? != 0 {
        return Err(bad("trailing data"));
    }
    Ok(t)
}

/// The float net stored in `path`: a `.knn` net file or a YaneuraOu `nn.bin` (dequantised,
/// factor zero), or a checkpoint. Its architecture is the file's (`FloatNet::arch`).
pub fn load_init(path: &Path) -> Result<FloatNet, TrainError> {
    let mut magic = [0u8; 8];
    let mut f = std::fs::File::open(path).map_err(|e| TrainError::Io(path.to_path_buf(), e))?;
    f.read_exact(&mut magic).map_err(|e| TrainError::Io(path.to_path_buf(), e))?;
    if &magic == CKPT_MAGIC {
        Ok(load_checkpoint(path)?.net)
    } else if crate::yo::file::is_yo_net(&magic) {
        let file = crate::yo::file::load(path).map_err(|e| TrainError::YoNet(path.to_path_buf(), e))?;
        FloatNet::dequantize_yo(&file.params).ok_or(TrainError::Untrainable(path.to_path_buf(), file.params.shape))
    } else {
        let q = netfile::load(path).map_err(|e| TrainError::NetFile(path.to_path_buf(), e))?;
        Ok(FloatNet::dequantize(&q))
    }
}

/// Writes the quantised net `q` to `path` in its format: `.knn` (`nnue::netfile`) or
/// YaneuraOu's `nn.bin` (`yo::file::save`).
pub fn save_net(q: &QuantModel, path: &Path) -> Result<(), TrainError> {
    match q {
        QuantModel::Knn(q) => netfile::save(q, path).map_err(|e| TrainError::NetFile(path.to_path_buf(), e)),
        QuantModel::Yo(p) => crate::yo::file::save(p, path).map_err(|e| TrainError::Io(path.to_path_buf(), e)),
    }
}

/// The loss curve's CSV path: the net's path with `.csv`.
pub fn csv_path(out: &Path) -> PathBuf {
    out.with_extension("csv")
}

fn progress_bar(len: u64, show: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if !show {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} positions, {per_sec}, ETA {eta} {msg}") {
        bar.set_style(style);
    }
    bar
}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// Loading statistics.
    pub stats: LoadStats,
    /// Training and validation positions.
    pub sizes: (usize, usize),
    /// The logistic scale used.
    pub scale: f32,
    /// Every epoch trained in this run.
    pub epochs: Vec<EpochStats>,
}

/// Runs a whole training as configured, logging lines through `log`.
pub fn run(cfg: &TrainConfig, log: &mut (dyn FnMut(&str) + Send)) -> Result<TrainReport, TrainError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .map_err(|e| TrainError::Threads(e.to_string()))?;
    pool.install(|| run_in_pool(cfg, log))
}

fn run_in_pool(cfg: &TrainConfig, log: &mut (dyn FnMut(&str) + Send)) -> Result<TrainReport, TrainError> {
    let t0 = Instant::now();
    let holdout = data::Holdout { fraction: cfg.val_fraction, seed: cfg.seed };
    let (train, val, stats) =
        data::load(&cfg.data, cfg.arch, &cfg.filter, cfg.limit, &holdout).map_err(TrainError::Data)?;
    log(&format!("data: {stats} ({:.1} s)", t0.elapsed().as_secs_f64()));
    if train.is_empty() {
        return Err(TrainError::NoData);
    }
    log(&format!("split: {} training, {} validation positions", train.len(), val.len()));
    let fitted = fit_scale(&train);
    log(&format!(
        "logistic fit of the game result on the score: K = {fitted:.1} (P(win) = sigmoid(score / K)), \
         result loss {:.4} at K",
        result_loss(&train, fitted)
    ));
    // A starting net or checkpoint must be of the architecture the samples were made for.
    let same_arch = |p: &Path, found: Arch| {
        if found == cfg.arch {
            Ok(())
        } else {
            Err(TrainError::ArchMismatch(p.to_path_buf(), found, cfg.arch))
        }
    };
    let mut trainer = match &cfg.resume {
        Some(p) => {
            let t = load_checkpoint(p)?;
            same_arch(p, t.arch())?;
            log(&format!("resumed {} after epoch {} (K = {:.1})", p.display(), t.epoch, t.scale));
            t
        }
        None => {
            let net = match &cfg.init {
                Some(p) => {
                    log(&format!("initial weights from {}", p.display()));
                    let net = load_init(p)?;
                    same_arch(p, net.arch)?;
                    net
                }
                None => FloatNet::random_for(cfg.arch, &mut Rng::new(cfg.seed)),
            };
            Trainer::new(net, cfg.scale.unwrap_or(fitted), cfg.lambda)
        }
    };
    log(&format!(
        "architecture {} ({} first-layer rows, factor period {}, {}x2-{}-{}{}), written as {}",
        cfg.arch,
        cfg.arch.inputs(),
        cfg.arch.factor_period(),
        cfg.arch.l1(),
        cfg.arch.l2(),
        cfg.arch.l3(),
        if cfg.arch.has_psqt() { " + PSQT" } else { "" },
        match cfg.arch.format() {
            NetFormat::Knn => "a Kaname .knn net",
            NetFormat::YoBin => "a YaneuraOu nn.bin (FV_SCALE 16)",
        }
    ));
    if let Some(k) = cfg.scale {
        trainer.scale = k;
    }
    trainer.adam.weight_decay = cfg.weight_decay;
    log(&format!(
        "target: lambda {} x sigmoid(score / {:.1}) + result; validation target entropy {:.5}, \
         best constant prediction {:.5}",
        trainer.lambda,
        trainer.scale,
        trainer.target_entropy(&val),
        trainer.constant_loss(&val)
    ));
    // The starting net as the engine would run it: checked below, and written out when there
    // is nothing to train.
    let start = trainer.export_model(&train);
    if !val.is_empty() {
        let check = trainer.quant_loss(&start, &val);
        let rounded = trainer.quant_loss(&trainer.net.to_model(), &val);
        log(&format!(
            "epoch {} validation loss {:.5} (quantised {:.5}, |eval error| mean {:.1} max {:.1}, offset {:+.1}; \
             rounded only: {:.5}, |eval error| mean {:.1}, offset {:+.1}); \
             a net reproducing the teacher's scores exactly would have {:.5}",
            trainer.epoch,
            trainer.loss(&val),
            check.loss,
            check.mean_eval_error,
            check.max_eval_error,
            check.mean_eval_offset,
            rounded.loss,
            rounded.mean_eval_error,
            rounded.mean_eval_offset,
            teacher_loss(&val, trainer.scale, trainer.lambda)
        ));
    }
    let csv = csv_path(&cfg.out);
    let mut rows =
        vec!["epoch,train_loss,val_loss,val_loss_quant,max_eval_error,mean_eval_error,lr,seconds,positions_per_s"
            .to_string()];
    let mut epochs = Vec::new();
    if trainer.epoch >= cfg.epochs && (cfg.init.is_some() || cfg.resume.is_some()) {
        save_net(&start, &cfg.out)?;
        log(&format!("no epoch to run: the starting net re-exported to {}", cfg.out.display()));
    }
    while trainer.epoch < cfg.epochs {
        let lr = cfg.lr * cfg.lr_decay.powi(trainer.epoch as i32);
        let bar = progress_bar(train.len() as u64, cfg.progress);
        bar.set_message(format!("epoch {}", trainer.epoch + 1));
        let start = Instant::now();
        let train_loss = trainer.train_epoch(&train, cfg.batch, lr, cfg.seed, &bar);
        let seconds = start.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let q = trainer.export_model(&train);
        let val_loss = trainer.loss(&val);
        let check = trainer.quant_loss(&q, &val);
        let e = EpochStats {
            epoch: trainer.epoch,
            train_loss,
            val_loss,
            val_loss_quant: check.loss,
            max_eval_error: check.max_eval_error,
            mean_eval_error: check.mean_eval_error,
            lr,
            seconds,
            positions_per_second: train.len() as f64 / seconds.max(1e-9),
        };
        log(&format!(
            "epoch {} train {:.5} val {:.5} val(quantised) {:.5} |eval error| mean {:.1} max {:.1} lr {:.2e} {:.1} s {:.0} pos/s",
            e.epoch,
            e.train_loss,
            e.val_loss,
            e.val_loss_quant,
            e.mean_eval_error,
            e.max_eval_error,
            e.lr,
            e.seconds,
            e.positions_per_second
        ));
        rows.push(format!(
            "{},{:.6},{:.6},{:.6},{:.2},{:.2},{:.3e},{:.1},{:.0}",
            e.epoch,
            e.train_loss,
            e.val_loss,
            e.val_loss_quant,
            e.max_eval_error,
            e.mean_eval_error,
            e.lr,
            e.seconds,
            e.positions_per_second
        ));
        // The net file keeps the epoch with the best quantised validation loss (later epochs
        // may overfit); `last_path` is always the latest.
        let best = val.is_empty() || epochs.iter().all(|b: &EpochStats| e.val_loss_quant < b.val_loss_quant);
        epochs.push(e);
        if best {
            log(&format!("epoch {} is the best so far: written to {}", e.epoch, cfg.out.display()));
        }
        write_outputs(cfg, &trainer, &q, best, &csv, &rows)?;
    }
    Ok(TrainReport { stats, sizes: (train.len(), val.len()), scale: trainer.scale, epochs })
}

/// The path of the latest epoch's net: `<out>.last.knn`, or `<out>.last.bin` for a
/// YaneuraOu architecture (`nn.bin` -> `nn.last.bin`).
pub fn last_path(out: &Path, arch: Arch) -> PathBuf {
    out.with_extension(format!("last.{}", arch.extension()))
}

/// Writes the nets (the best one if `best`), the loss curve and (if asked) a checkpoint after
/// an epoch.
fn write_outputs(
    cfg: &TrainConfig,
    t: &Trainer,
    q: &QuantModel,
    best: bool,
    csv: &Path,
    rows: &[String],
) -> Result<(), TrainError> {
    save_net(q, &last_path(&cfg.out, cfg.arch))?;
    if best {
        save_net(q, &cfg.out)?;
    }
    std::fs::write(csv, rows.join("\n") + "\n").map_err(|e| TrainError::Io(csv.to_path_buf(), e))?;
    if let Some(dir) = &cfg.checkpoint_dir {
        std::fs::create_dir_all(dir).map_err(|e| TrainError::Io(dir.clone(), e))?;
        save_checkpoint(t, &dir.join(format!("epoch-{}.ckpt", t.epoch)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::QB;
    use engine::{Color, MoveList, Position};

    /// Positions from random playouts, labelled with the material balance (side to move's
    /// view) and a result that agrees with its sign: a label a net can learn quickly.
    fn material_positions(n: usize, seed: u64) -> Vec<(Position, i16, i8)> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let mut pos = Position::startpos();
            for _ in 0..120 {
                let mut list = MoveList::new();
                engine::generate_legal(&pos, &mut list);
                if list.as_slice().is_empty() || out.len() >= n {
                    break;
                }
                let m = list.as_slice()[rng.below(list.as_slice().len())];
                pos.do_move(m);
                if pos.in_check() {
                    continue;
                }
                let black = crate::material(&pos);
                let v = if pos.side_to_move() == Color::Black { black } else { -black };
                let v = v.clamp(-3000, 3000);
                out.push((pos.clone(), v as i16, v.signum() as i8));
            }
        }
        out
    }

    /// `material_positions` as samples for `arch` (every playout position holds all 40 pieces).
    fn material_samples_for(arch: Arch, n: usize, seed: u64) -> Vec<Sample> {
        material_positions(n, seed).iter().map(|(pos, v, r)| Sample::for_arch(arch, pos, *v, *r).unwrap()).collect()
    }

    /// `material_positions` as samples for Kaname's net.
    fn material_samples(n: usize, seed: u64) -> Vec<Sample> {
        material_samples_for(Arch::HalfKB9, n, seed)
    }

    fn quiet_bar() -> ProgressBar {
        ProgressBar::hidden()
    }

    /// Training and validation losses both fall within a few epochs on a small synthetic set.
    #[test]
    fn training_loss_falls() {
        let samples = material_samples(6000, 5);
        let (train, val) = data::split(samples, 0.1, 1);
        let mut t = Trainer::new(FloatNet::random(&mut Rng::new(1)), 400.0, 0.75);
        let (train_before, val_before) = (t.loss(&train), t.loss(&val));
        for _ in 0..3 {
            t.train_epoch(&train, 256, 1e-3, 2, &quiet_bar());
        }
        let (train_after, val_after) = (t.loss(&train), t.loss(&val));
        eprintln!("train {train_before:.4} -> {train_after:.4}, validation {val_before:.4} -> {val_after:.4}");
        assert!(train_after < train_before - 0.05, "training loss {train_before} -> {train_after}");
        assert!(val_after < val_before - 0.01, "validation loss {val_before} -> {val_after}");
    }

    /// Same seed, same thread count, same net.
    #[test]
    fn training_is_deterministic() {
        let samples = material_samples(600, 9);
        let run = || {
            let mut t = Trainer::new(FloatNet::random(&mut Rng::new(3)), 400.0, 0.75);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            pool.install(|| t.train_epoch(&samples, 64, 1e-3, 4, &quiet_bar()));
            t.net
        };
        assert!(run() == run());
    }

    /// The losses and K are the same bits whatever the pool and however its work was split:
    /// `fit_scale` compares losses, so a sum in a varying order (a rayon float `sum`) can
    /// change K, and with it a whole run. The mixed sum fails with a rayon `sum` (checked).
    #[test]
    fn sums_do_not_depend_on_the_pool() {
        let samples = material_samples(5000, 21);
        let t = Trainer::new(FloatNet::random(&mut Rng::new(8)), 400.0, 0.75);
        let figures = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let k = fit_scale(&samples);
                let losses = [result_loss(&samples, 700.0), teacher_loss(&samples, 700.0, 0.75), t.loss(&samples)];
                // Terms of very different sizes, whose sum depends on the order of adding.
                let mixed =
                    par_sum(&(0..50_000).collect::<Vec<u64>>(), |&i| (i % 7) as f64 * 10f64.powi((i % 23) as i32 - 11));
                (k.to_bits(), losses.map(f64::to_bits), mixed.to_bits())
            })
        };
        let one = figures(1);
        for threads in [2, 3, 4, 2, 3, 4] {
            assert_eq!(figures(threads), one, "{threads} threads");
        }
    }

    /// Two epochs in one go, or one, a checkpoint, and one more: the same net.
    #[test]
    fn resuming_repeats_an_uninterrupted_run() {
        let samples = material_samples(400, 17);
        let mut a = Trainer::new(FloatNet::random(&mut Rng::new(5)), 400.0, 0.75);
        a.train_epoch(&samples, 64, 1e-3, 9, &quiet_bar());
        a.train_epoch(&samples, 64, 1e-3, 9, &quiet_bar());
        let mut b = Trainer::new(FloatNet::random(&mut Rng::new(5)), 400.0, 0.75);
        b.train_epoch(&samples, 64, 1e-3, 9, &quiet_bar());
        let dir = std::env::temp_dir().join(format!("kaname-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        save_checkpoint(&b, &dir.join("b.ckpt")).unwrap();
        let mut b = load_checkpoint(&dir.join("b.ckpt")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        b.train_epoch(&samples, 64, 1e-3, 9, &quiet_bar());
        assert_eq!(b.epoch, 2);
        assert!(a.net == b.net && a.adam == b.adam);
    }

    /// The analytic gradient agrees with finite differences.
    #[test]
    fn gradient_matches_finite_differences() {
        let samples = material_samples(8, 11);
        let mut net = FloatNet::random(&mut Rng::new(6));
        // Move the factor off zero so its gradient path is exercised too.
        net.factor.iter_mut().enumerate().for_each(|(i, x)| *x = ((i % 7) as f32 - 3.0) * 0.01);
        let (scale, lambda) = (400.0, 0.75);
        let loss = |net: &FloatNet| -> f64 {
            let mut act = Activations::default();
            samples.iter().map(|s| cross_entropy(net.forward(s, &mut act), target(s, scale, lambda)) as f64).sum()
        };
        let mut w = Worker::new();
        w.accumulate(&net, &samples, scale, lambda);
        let f = samples[0].stm[3] as usize;
        let fr = f % crate::nnue::features::FEATURES_PER_BUCKET;
        let probes: [(usize, usize); 6] =
            [(8, 0), (7, 5), (5, 100), (3, 7), (0, f * crate::nnue::L1 + 9), (1, fr * crate::nnue::L1 + 9)];
        for (tensor, i) in probes {
            let analytic = w.grad.tensors()[tensor][i] as f64;
            let h = 1e-3f32;
            let mut plus = net.clone();
            plus.tensors_mut()[tensor][i] += h;
            let mut minus = net.clone();
            minus.tensors_mut()[tensor][i] -= h;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * h as f64);
            assert!(
                (analytic - numeric).abs() <= 0.02 * numeric.abs().max(analytic.abs()) + 2e-3,
                "tensor {tensor} index {i}: analytic {analytic} numeric {numeric}"
            );
        }
    }

    /// The exported net survives the net file unchanged, and its integer forward pass
    /// follows the float net closely.
    #[test]
    fn bias_correction_removes_the_offset_rounding_leaves() {
        // Dense weights just below a half step all round down: the integer net's sums, and
        // so its output, drift below the float net's by the same amount in every position.
        let mut t = Trainer::new(FloatNet::random(&mut Rng::new(8)), 400.0, 0.75);
        let half_down = |w: &mut f32| *w = ((*w * QB as f32).floor() + 0.45) / QB as f32;
        t.net.l2_w.iter_mut().for_each(half_down);
        t.net.l3_w.iter_mut().for_each(half_down);
        t.net.out_w.iter_mut().for_each(half_down);
        let calibration = material_samples(400, 13);
        let check = material_samples(400, 14);
        let rounded = t.quant_loss(&t.net.quantize(), &check);
        let corrected = t.quant_loss(&t.export(&calibration), &check);
        assert!(rounded.mean_eval_offset.abs() > 10.0, "the setup makes an offset: {rounded:?}");
        assert!(corrected.mean_eval_offset.abs() < 2.0, "{corrected:?} (rounded only: {rounded:?})");
        assert!(corrected.mean_eval_error < rounded.mean_eval_error, "{corrected:?} against {rounded:?}");
        // The correction moves biases only.
        let (a, b) = (t.net.quantize(), t.export(&calibration));
        assert_eq!(
            (&a.l1_weights, &a.l2_weights, &a.l3_weights, &a.out_weights),
            (&b.l1_weights, &b.l2_weights, &b.l3_weights, &b.out_weights)
        );
        assert_eq!((&a.l1_bias, &a.psqt), (&b.l1_bias, &b.psqt));
        assert_ne!((a.l2_bias, a.l3_bias, a.out_bias), (b.l2_bias, b.l3_bias, b.out_bias));
    }

    #[test]
    fn quantised_export_round_trips() {
        let samples = material_samples(200, 13);
        let mut t = Trainer::new(FloatNet::random(&mut Rng::new(8)), 400.0, 0.75);
        t.net.factor.iter_mut().enumerate().for_each(|(i, x)| *x = ((i % 5) as f32 - 2.0) * 0.02);
        let q = t.net.quantize();
        let mut bytes = Vec::new();
        netfile::write(&q, &mut bytes).unwrap();
        let back = netfile::read(&bytes[..]).unwrap();
        assert_eq!(back, q);
        let QuantCheck { loss: ql, max_eval_error: max_err, mean_eval_error: mean_err, .. } =
            t.quant_loss(&back, &samples);
        assert!(mean_err < 10.0, "mean eval error {mean_err}");
        let fl = t.loss(&samples);
        assert!((ql - fl).abs() < 0.01, "float {fl} quantised {ql}");
        assert!(max_err < 30.0, "max eval error {max_err}");
        // Dequantising and quantising again gives the same integers.
        assert_eq!(FloatNet::dequantize(&q).quantize(), q);
    }

    #[test]
    fn checkpoint_round_trip() {
        let mut t = Trainer::new(FloatNet::random(&mut Rng::new(2)), 321.0, 0.5);
        t.epoch = 3;
        t.adam.t = 77;
        t.adam.m.l2_w[5] = 0.125;
        let dir = std::env::temp_dir().join(format!("kaname-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.ckpt");
        save_checkpoint(&t, &p).unwrap();
        let back = load_checkpoint(&p).unwrap();
        assert_eq!((back.epoch, back.adam.t, back.scale, back.lambda), (3, 77, 321.0, 0.5));
        assert!(back.net == t.net && back.adam == t.adam);
        assert!(load_init(&p).unwrap() == t.net);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&p, &bytes).unwrap();
        assert!(matches!(load_checkpoint(&p), Err(TrainError::BadCheckpoint(..))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn scale_fit_recovers_a_known_k() {
        let mut rng = Rng::new(21);
        let pos = Position::startpos();
        let base = Sample::new(&pos, 0, 0).unwrap();
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let score = (rng.next_f32() * 3000.0 - 1500.0) as i16;
                let win = rng.next_f32() < sigmoid(score as f32 / 450.0);
                Sample { stm: base.stm, nstm: base.nstm, kings: base.kings, score, result: if win { 1 } else { -1 } }
            })
            .collect();
        let k = fit_scale(&samples);
        assert!((k - 450.0).abs() < 30.0, "fitted K {k}");
    }

    /// The HalfKP trainer's gradients agree with finite differences too (the factor, the
    /// rows of `1548 * king + BonaPiece`, the output layer of its own scale).
    #[test]
    fn halfkp_gradient_matches_finite_differences() {
        let arch = Arch::HALFKP_256;
        let samples = material_samples_for(arch, 8, 11);
        let mut net = FloatNet::random_for(arch, &mut Rng::new(6));
        net.factor.iter_mut().enumerate().for_each(|(i, x)| *x = ((i % 7) as f32 - 3.0) * 0.01);
        let (scale, lambda) = (400.0, 0.75);
        let loss = |net: &FloatNet| -> f64 {
            let mut act = Activations::new(arch);
            samples.iter().map(|s| cross_entropy(net.forward(s, &mut act), target(s, scale, lambda)) as f64).sum()
        };
        let mut w = Worker::for_arch(arch);
        w.accumulate(&net, &samples, scale, lambda);
        let (s, p) = (&samples[0], 1);
        let bp = s.nstm[3] as usize;
        let row = s.kings[p] as usize * 1548 + bp;
        let l1 = arch.l1();
        // In each tensor the entry of the largest gradient (in the first layer, within the row
        // of one active feature and its factor row), so that no probe checks a zero.
        let largest = |t: usize, range: std::ops::Range<usize>| {
            let g = &w.grad.tensors()[t][range.clone()];
            range.start + (0..g.len()).max_by(|&a, &b| g[a].abs().total_cmp(&g[b].abs())).unwrap()
        };
        let mut probes = vec![(0, largest(0, row * l1..(row + 1) * l1)), (1, largest(1, bp * l1..(bp + 1) * l1))];
        probes.extend((2..9).map(|t| (t, largest(t, 0..w.grad.tensors()[t].len()))));
        for (tensor, i) in probes {
            let analytic = w.grad.tensors()[tensor][i] as f64;
            assert!(analytic != 0.0, "tensor {tensor} index {i} has a gradient to check");
            // Moved in place and put back: copying the 128 MB net per probe is slow.
            let h = 1e-3f32;
            let x = net.tensors()[tensor][i];
            net.tensors_mut()[tensor][i] = x + h;
            let plus = loss(&net);
            net.tensors_mut()[tensor][i] = x - h;
            let minus = loss(&net);
            net.tensors_mut()[tensor][i] = x;
            let numeric = (plus - minus) / (2.0 * h as f64);
            assert!(
                (analytic - numeric).abs() <= 0.02 * numeric.abs().max(analytic.abs()) + 2e-3,
                "tensor {tensor} index {i}: analytic {analytic} numeric {numeric}"
            );
        }
    }

    /// A HalfKP net trained a few hundred steps, exported and written as `nn.bin`, reads back
    /// unchanged, and YaneuraOu's evaluation of it (`YoNet::evaluate_full` at FV_SCALE 16) is
    /// the trainer's integer forward pass on every position, and close to the float net.
    #[test]
    fn halfkp_export_is_what_yaneuraou_evaluates() {
        use crate::yo::network::to_value;
        let arch = Arch::HALFKP_256;
        let recs = material_positions(4000, 31);
        let samples: Vec<Sample> =
            recs.iter().map(|(pos, v, r)| Sample::for_arch(arch, pos, *v, *r).unwrap()).collect();
        let (train, val) = data::split(samples, 0.1, 1);
        let mut t = Trainer::new(FloatNet::random_for(arch, &mut Rng::new(4)), 400.0, 0.75);
        let before = t.loss(&val);
        // 3,600 positions in batches of 32, twice: 226 steps.
        for _ in 0..2 {
            t.train_epoch(&train, 32, 1e-3, 3, &quiet_bar());
        }
        let after = t.loss(&val);
        assert!(after < before - 0.01, "validation loss {before} -> {after}");
        let exported = t.export_model(&train);
        let QuantModel::Yo(params) = &exported else { panic!("a HalfKP net exports as nn.bin") };
        let check = t.quant_loss(params, &val);
        eprintln!("validation loss {before:.4} -> {after:.4}, quantised {:.4}, {check:?}", check.loss);
        assert!(check.mean_eval_error < 30.0 && (check.loss - after).abs() < 0.01, "{check:?}");
        let dir = std::env::temp_dir().join(format!("kaname-yo-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("nn.bin");
        save_net(&exported, &path).unwrap();
        let file = crate::yo::file::load(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        assert_eq!(&file.params, params);
        let net = crate::yo::YoNet::new(file.params);
        let mut values = Vec::new();
        for (pos, _, _) in recs.iter().step_by(3) {
            let s = Sample::for_arch(arch, pos, 0, 0).unwrap();
            let want = to_value(quant_forward(params, &s), arch::FV_SCALE);
            assert_eq!(net.evaluate_full(pos, arch::FV_SCALE), want, "{}", pos.to_sfen());
            values.push(want);
        }
        // The net learned material, so its values spread: the comparison is not of constants.
        values.sort();
        let spread = values[values.len() * 9 / 10] - values[values.len() / 10];
        assert!(spread > 100, "values from {} to {}", values[0], values[values.len() - 1]);
    }

    /// `run` with a HalfKP architecture writes `nn.bin` files (the best and `.last.bin`),
    /// the loss curve and a checkpoint that remembers the architecture; resuming it repeats
    /// an uninterrupted run byte for byte; a checkpoint or net of another architecture is
    /// refused.
    #[test]
    fn halfkp_run_writes_nn_bin_and_resumes() {
        let dir = std::env::temp_dir().join(format!("kaname-yo-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("d.psv");
        let mut bytes = Vec::new();
        for (pos, v, r) in material_positions(3000, 33) {
            let rec = engine::PackedSfenValue {
                sfen: engine::pack(&pos).unwrap(),
                score: v,
                move16: 0,
                game_ply: 1,
                game_result: r,
                padding: 0,
            };
            bytes.extend_from_slice(&rec.to_bytes());
        }
        std::fs::write(&data, &bytes).unwrap();
        let cfg = |out: &str, epochs: usize| TrainConfig {
            arch: Arch::HALFKP_256,
            data: vec![data.clone()],
            out: dir.join(out),
            epochs,
            batch: 64,
            lr: 1e-3,
            threads: 2,
            val_fraction: 0.1,
            progress: false,
            ..TrainConfig::default()
        };
        let mut quiet = |_: &str| {};
        // One epoch with a checkpoint, then a second one resumed from it.
        let first = TrainConfig { checkpoint_dir: Some(dir.join("ck")), ..cfg("a.bin", 1) };
        let r = run(&first, &mut quiet).unwrap();
        assert_eq!(r.epochs.len(), 1);
        let ckpt = dir.join("ck").join("epoch-1.ckpt");
        assert_eq!(load_checkpoint(&ckpt).unwrap().arch(), Arch::HALFKP_256);
        let resumed =
            TrainConfig { resume: Some(ckpt.clone()), checkpoint_dir: Some(dir.join("ra")), ..cfg("a.bin", 2) };
        run(&resumed, &mut quiet).unwrap();
        let straight = TrainConfig { checkpoint_dir: Some(dir.join("rb")), ..cfg("b.bin", 2) };
        let straight = run(&straight, &mut quiet).unwrap();
        assert!(straight.epochs[1].val_loss < straight.epochs[0].val_loss + 0.05, "{:?}", straight.epochs);
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        // The float states first: where they differ says more than the files' bytes would.
        let (ta, tb) = (
            load_checkpoint(&dir.join("ra/epoch-2.ckpt")).unwrap(),
            load_checkpoint(&dir.join("rb/epoch-2.ckpt")).unwrap(),
        );
        assert_eq!((ta.epoch, ta.adam.t, ta.scale.to_bits()), (tb.epoch, tb.adam.t, tb.scale.to_bits()));
        for (i, (x, y)) in ta.net.tensors().into_iter().zip(tb.net.tensors()).enumerate() {
            let differ = x.iter().zip(y).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            assert!(
                differ == 0,
                "resumed and uninterrupted runs differ in {differ} of {} values of tensor {i}",
                x.len()
            );
        }
        assert!(ta.adam == tb.adam, "the optimisers' moments differ");
        assert!(read("a.last.bin") == read("b.last.bin"), "resumed and uninterrupted runs differ");
        for name in ["a.bin", "b.bin", "b.last.bin"] {
            let f = crate::yo::file::load(dir.join(name)).unwrap();
            assert_eq!((f.params.shape, f.warnings.len()), (crate::yo::Shape::HALFKP_256, 0), "{name}");
        }
        assert!(String::from_utf8(read("b.csv")).unwrap().lines().count() == 3);
        // A YaneuraOu net is a starting point of its own architecture only.
        assert_eq!(load_init(&dir.join("b.bin")).unwrap().arch, Arch::HALFKP_256);
        let wrong = TrainConfig { arch: Arch::HalfKB9, init: Some(dir.join("b.bin")), ..cfg("c.knn", 0) };
        assert!(matches!(run(&wrong, &mut quiet), Err(TrainError::ArchMismatch(..))));
        let wrong = TrainConfig { arch: Arch::HalfKB9, resume: Some(ckpt), ..cfg("c.knn", 2) };
        assert!(matches!(run(&wrong, &mut quiet), Err(TrainError::ArchMismatch(..))));
        // --epochs 0 re-exports a starting nn.bin: quantising its dequantised weights gives
        // back the same integers, the biases moved by the calibration at most.
        let again = TrainConfig { init: Some(dir.join("b.bin")), ..cfg("c.bin", 0) };
        run(&again, &mut quiet).unwrap();
        let (b, c) =
            (crate::yo::file::load(dir.join("b.bin")).unwrap(), crate::yo::file::load(dir.join("c.bin")).unwrap());
        assert!(b.params.ft_weights == c.params.ft_weights && b.params.ft_biases == c.params.ft_biases);
        for (x, y) in b.params.dense.iter().zip(&c.params.dense) {
            assert_eq!(x.weights, y.weights);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
