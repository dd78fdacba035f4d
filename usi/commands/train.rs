//! `kaname train`: the command-line front end of `eval::train` (its arguments only).

use crate::args::{decimal, whole};
use eval::train::data::Filter;
use eval::train::{Arch, TrainConfig, TrainError};
use std::path::PathBuf;

/// The trainer's defaults, shown in the help.
fn defaults() -> TrainConfig {
    TrainConfig::default()
}

/// Train the NNUE net from self-play data
///
/// Reads the training positions, fits the logistic scale of the scores (unless --scale is
/// given), trains for --epochs epochs with Adam and writes the epoch with the best validation
/// loss to --out (the latest epoch to OUT.last.knn or OUT.last.bin, the loss curve to OUT.csv).
/// With --arch halfkp_<L1>x2-<L2>-<L3> the net is a YaneuraOu HalfKP net written as nn.bin
/// (FV_SCALE 16), which Kaname and YaneuraOu load. Progress and results go to stderr; exit
/// status 1 on failure, 2 on bad arguments or no data.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// YaneuraOu PackedSfenValue (.psv/.bin) files and shogiarena self-play records
    /// (.sbinpack), read in order
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// The net to write: the epoch with the best validation loss
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// The architecture: halfkb9 (Kaname's own, .knn) or a YaneuraOu HalfKP shape such as
    /// halfkp_256x2-32-32 (nn.bin)
    #[arg(long, value_name = "NAME", default_value = "halfkb9", value_parser = |s: &str| s.parse::<Arch>().map_err(|e| e.to_string()))]
    pub arch: Arch,
    /// Epochs in total (0 measures the --init net and writes it to --out, quantised and
    /// bias-corrected)
    #[arg(long, value_name = "N", default_value_t = defaults().epochs, value_parser = whole::<usize>(0..=100_000))]
    pub epochs: usize,
    /// Positions per batch
    #[arg(long, value_name = "N", default_value_t = defaults().batch, value_parser = whole::<usize>(1..=1 << 22))]
    pub batch: usize,
    /// Adam learning rate of the first epoch
    #[arg(long, value_name = "X", default_value_t = defaults().lr, value_parser = decimal(1e-9f32, 1.0))]
    pub lr: f32,
    /// Learning-rate factor per epoch
    #[arg(long, value_name = "X", default_value_t = defaults().lr_decay, value_parser = decimal(0f32, 1.0))]
    pub lr_decay: f32,
    /// Weight of the score in the target, against the game result
    #[arg(long, value_name = "X", default_value_t = defaults().lambda, value_parser = decimal(0f32, 1.0))]
    pub lambda: f32,
    /// Decoupled (AdamW) weight decay per unit of learning rate
    #[arg(long, value_name = "X", default_value_t = defaults().weight_decay, value_parser = decimal(0f32, 1000.0))]
    pub weight_decay: f32,
    /// Logistic scale of the scores [default: fitted to the data]
    #[arg(long, value_name = "K", value_parser = decimal(1f32, 100_000.0))]
    pub scale: Option<f32>,
    /// Worker threads
    #[arg(long, value_name = "N", default_value_t = defaults().threads, value_parser = whole::<usize>(1..=256))]
    pub threads: usize,
    /// Skip positions whose |score| is above N
    #[arg(long, value_name = "N", default_value_t = defaults().filter.max_score, value_parser = whole::<i32>(0..=32_767))]
    pub max_score: i32,
    /// Skip positions whose recorded best move captures
    #[arg(long)]
    pub quiet_only: bool,
    /// Share held out for validation
    #[arg(long, value_name = "X", default_value_t = defaults().val_fraction, value_parser = decimal(0f64, 0.5))]
    pub val_fraction: f64,
    /// Seed of shuffles, split and initial weights
    #[arg(long, value_name = "N", default_value_t = defaults().seed)]
    pub seed: u64,
    /// Start from a net (.knn) or a checkpoint's weights
    #[arg(long, value_name = "PATH", conflicts_with = "resume")]
    pub init: Option<PathBuf>,
    /// Continue a checkpoint (weights, optimiser, epoch count)
    #[arg(long, value_name = "PATH")]
    pub resume: Option<PathBuf>,
    /// Write a checkpoint after every epoch
    #[arg(long, value_name = "DIR")]
    pub checkpoint_dir: Option<PathBuf>,
    /// Read only the first N records
    #[arg(long, value_name = "N", value_parser = whole::<u64>(1..=u64::MAX))]
    pub limit: Option<u64>,
    /// No progress bar
    #[arg(long)]
    pub no_progress: bool,
}

impl Args {
    /// The trainer's configuration.
    pub fn config(&self) -> TrainConfig {
        TrainConfig {
            data: self.data.clone(),
            out: self.out.clone(),
            arch: self.arch,
            epochs: self.epochs,
            batch: self.batch,
            lr: self.lr,
            lr_decay: self.lr_decay,
            lambda: self.lambda,
            weight_decay: self.weight_decay,
            threads: self.threads,
            filter: Filter { max_score: self.max_score, quiet_only: self.quiet_only },
            val_fraction: self.val_fraction,
            seed: self.seed,
            init: self.init.clone(),
            resume: self.resume.clone(),
            checkpoint_dir: self.checkpoint_dir.clone(),
            limit: self.limit,
            scale: self.scale,
            progress: !self.no_progress,
        }
    }
}

/// Runs `kaname train`: progress and results on stderr; exit status 1 on failure, 2 on bad
/// arguments.
pub fn cli(a: &Args) {
    let cfg = a.config();
    let mut log = |line: &str| eprintln!("{line}");
    match eval::train::run(&cfg, &mut log) {
        Ok(r) => {
            let last = r.epochs.last();
            eprintln!(
                "done: {} training / {} validation positions, K = {:.1}, final val loss {}, net {}",
                r.sizes.0,
                r.sizes.1,
                r.scale,
                last.map_or("-".to_string(), |e| format!("{:.5} (quantised {:.5})", e.val_loss, e.val_loss_quant)),
                cfg.out.display()
            );
        }
        Err(e) => {
            eprintln!("kaname train: {e}");
            std::process::exit(if matches!(e, TrainError::NoData) { 2 } else { 1 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_flag() {
        let args = "--data a.psv b.psv --out n.knn --epochs 3 --batch 100 --lr 0.01 --lambda 0.5 --threads 2 \
                    --max-score 2000 --quiet-only --val-fraction 0.1 --seed 9 --init x.knn --checkpoint-dir ck \
                    --limit 1000 --scale 400 --lr-decay 0.9 --no-progress --weight-decay 0.5";
        let c = crate::args::parse::<Args>(args).unwrap().config();
        assert_eq!(c.data, vec![PathBuf::from("a.psv"), PathBuf::from("b.psv")]);
        assert_eq!((c.epochs, c.batch, c.threads, c.seed, c.limit), (3, 100, 2, 9, Some(1000)));
        assert_eq!((c.lr, c.lambda, c.val_fraction, c.scale, c.lr_decay), (0.01, 0.5, 0.1, Some(400.0), 0.9));
        assert_eq!((c.filter.max_score, c.filter.quiet_only, c.progress), (2000, true, false));
        assert_eq!(c.init, Some(PathBuf::from("x.knn")));
        assert_eq!(c.weight_decay, 0.5);
        assert_eq!(c.checkpoint_dir, Some(PathBuf::from("ck")));
        assert_eq!(c.arch, Arch::HalfKB9, "Kaname's own architecture by default");
        let c = crate::args::parse::<Args>("--data a --out nn.bin --arch HalfKP_256x2-32-32").unwrap().config();
        assert_eq!(c.arch, Arch::Yo(eval::yo::Shape::HALFKP_256));
    }

    #[test]
    fn rejects_bad_arguments() {
        for bad in [
            "",
            "--out n.knn",
            "--data a.psv",
            "--data --out n.knn",
            "--data a --out n.knn --epochs -1",
            "--data a --out n.knn --lambda 2",
            "--data a --out n.knn --threads x",
            "--data a --out n.knn --bogus",
            "--data a --out n.knn --quiet-only yes",
            "--data a --out n.knn --init a --resume b",
            "--data a --out n.knn --epochs 1 2",
            "--data a --out n.knn --arch kp_256x2-32-32",
            "--data a --out n.knn --arch halfkp_128x2-32-32",
            "--data a --out n.knn --arch",
        ] {
            assert!(crate::args::parse::<Args>(bad).is_err(), "{bad}");
        }
    }
}
