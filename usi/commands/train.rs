//! `kaname train`: the command-line front end of `eval::train` (argument parsing only).

use crate::protocol::ascii;
use eval::train::{TrainConfig, TrainError};
use std::path::PathBuf;

/// The usage text of `kaname train`.
pub const USAGE: &str = "\
usage: kaname train --data FILE... --out NET.knn [options]
  --data FILE...        YaneuraOu PackedSfenValue (.psv/.bin) files and shogiarena
                        self-play records (.sbinpack), read in order
  --out PATH            the net to write: the epoch with the best validation loss
                        (the latest epoch goes to PATH.last.knn, the loss curve to PATH.csv)
  --epochs N            epochs in total (default 3; 0 measures the --init net and
                        writes it to --out, quantised and bias-corrected)
  --batch N             positions per batch (default 1024)
  --lr X                Adam learning rate of the first epoch (default 0.00015)
  --lr-decay X          learning-rate factor per epoch (default 0.7)
  --lambda X            weight of the score in the target, 0..1 (default 0.75)
  --weight-decay X      decoupled (AdamW) weight decay per unit of learning rate (default 0)
  --scale K             logistic scale of the scores (default: fitted to the data)
  --threads N           worker threads (default 1)
  --max-score N         skip positions with |score| above N (default 3000)
  --quiet-only          skip positions whose recorded best move captures
  --val-fraction X      share held out for validation, 0..0.5 (default 0.02)
  --seed N              seed of shuffles, split and initial weights (default 1)
  --init PATH           start from a net (.knn) or a checkpoint's weights
  --resume PATH         continue a checkpoint (weights, optimiser, epoch count)
  --checkpoint-dir DIR  write a checkpoint after every epoch
  --limit N             read only the first N records
  --no-progress         no progress bar";

/// Parses a number within `lo..=hi`.
fn num<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    flag: &str,
    vals: &[&str],
    lo: T,
    hi: T,
) -> Result<T, String> {
    match vals {
        [v] => match v.parse::<T>() {
            Ok(n) if n >= lo && n <= hi => Ok(n),
            _ => Err(format!("{flag} must be a number in {lo}..={hi}, not '{}'", ascii(v, 20))),
        },
        _ => Err(format!("{flag} takes one value")),
    }
}

fn path(flag: &str, vals: &[&str]) -> Result<PathBuf, String> {
    match vals {
        [v] => Ok(PathBuf::from(v)),
        _ => Err(format!("{flag} takes one path")),
    }
}

fn no_value(flag: &str, vals: &[&str]) -> Result<(), String> {
    if vals.is_empty() {
        Ok(())
    } else {
        Err(format!("{flag} takes no value"))
    }
}

/// Parses the arguments after `train`.
pub fn parse_args(args: &[&str]) -> Result<TrainConfig, String> {
    let mut cfg = TrainConfig::default();
    let mut out = None;
    for (flag, vals) in crate::args::flag_groups(args) {
        match flag {
            "--data" if !vals.is_empty() => cfg.data.extend(vals.iter().map(PathBuf::from)),
            "--data" => return Err("--data needs at least one file".into()),
            "--out" => out = Some(path(flag, vals)?),
            "--epochs" => cfg.epochs = num(flag, vals, 0, 100_000)?,
            "--batch" => cfg.batch = num(flag, vals, 1, 1 << 22)?,
            "--lr" => cfg.lr = num(flag, vals, 1e-9, 1.0)?,
            "--lr-decay" => cfg.lr_decay = num(flag, vals, 0.0, 1.0)?,
            "--lambda" => cfg.lambda = num(flag, vals, 0.0, 1.0)?,
            "--weight-decay" => cfg.weight_decay = num(flag, vals, 0.0, 1000.0)?,
            "--scale" => cfg.scale = Some(num(flag, vals, 1.0, 100_000.0)?),
            "--threads" => cfg.threads = num(flag, vals, 1, 256)?,
            "--max-score" => cfg.filter.max_score = num(flag, vals, 0, 32_767)?,
            "--quiet-only" => no_value(flag, vals).map(|_| cfg.filter.quiet_only = true)?,
            "--val-fraction" => cfg.val_fraction = num(flag, vals, 0.0, 0.5)?,
            "--seed" => cfg.seed = num(flag, vals, 0, u64::MAX)?,
            "--init" => cfg.init = Some(path(flag, vals)?),
            "--resume" => cfg.resume = Some(path(flag, vals)?),
            "--checkpoint-dir" => cfg.checkpoint_dir = Some(path(flag, vals)?),
            "--limit" => cfg.limit = Some(num(flag, vals, 1, u64::MAX)?),
            "--no-progress" => no_value(flag, vals).map(|_| cfg.progress = false)?,
            other => return Err(format!("unknown argument '{}'", ascii(other, 40))),
        }
    }
    if cfg.data.is_empty() {
        return Err("--data is required".into());
    }
    if cfg.init.is_some() && cfg.resume.is_some() {
        return Err("--init and --resume exclude each other".into());
    }
    cfg.out = out.ok_or("--out is required")?;
    Ok(cfg)
}

/// Runs `kaname train`: progress and results on stderr; exit status 1 on failure, 2 on bad
/// arguments.
pub fn cli(args: &[&str]) {
    let cfg = match parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kaname train: {e}");
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
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
        let v: Vec<&str> = args.split_whitespace().collect();
        let c = parse_args(&v).unwrap();
        assert_eq!(c.data, vec![PathBuf::from("a.psv"), PathBuf::from("b.psv")]);
        assert_eq!((c.epochs, c.batch, c.threads, c.seed, c.limit), (3, 100, 2, 9, Some(1000)));
        assert_eq!((c.lr, c.lambda, c.val_fraction, c.scale, c.lr_decay), (0.01, 0.5, 0.1, Some(400.0), 0.9));
        assert_eq!((c.filter.max_score, c.filter.quiet_only, c.progress), (2000, true, false));
        assert_eq!(c.init, Some(PathBuf::from("x.knn")));
        assert_eq!(c.weight_decay, 0.5);
        assert_eq!(c.checkpoint_dir, Some(PathBuf::from("ck")));
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
        ] {
            let v: Vec<&str> = bad.split_whitespace().collect();
            assert!(parse_args(&v).is_err(), "{bad}");
        }
    }
}
