//! `eval::train::run` with an architecture, until `kaname train` has the flag:
//! `cargo run --release -p eval --example train_arch -- ARCH OUT DATA... [--limit N]
//! [--epochs N] [--threads N] [--batch N] [--lr X] [--checkpoint-dir DIR] [--init PATH]`,
//! ARCH `halfkb9` or a HalfKP shape (`halfkp_256x2-32-32`, written as `nn.bin`).
use eval::train::{run, Arch, TrainConfig};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: train_arch ARCH OUT DATA... [--limit N] [--epochs N] [--threads N] [--batch N] [--lr X] \
                 [--checkpoint-dir DIR] [--init PATH]";
    let (Some(arch), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mut cfg = TrainConfig {
        arch: arch.parse::<Arch>().unwrap_or_else(|e| panic!("{e}")),
        out: PathBuf::from(out),
        progress: false,
        ..TrainConfig::default()
    };
    let mut rest = args[2..].iter();
    while let Some(a) = rest.next() {
        let mut value = || rest.next().unwrap_or_else(|| panic!("{a} needs a value")).clone();
        match a.as_str() {
            "--limit" => cfg.limit = Some(value().parse().expect("--limit N")),
            "--epochs" => cfg.epochs = value().parse().expect("--epochs N"),
            "--threads" => cfg.threads = value().parse().expect("--threads N"),
            "--batch" => cfg.batch = value().parse().expect("--batch N"),
            "--lr" => cfg.lr = value().parse().expect("--lr X"),
            "--checkpoint-dir" => cfg.checkpoint_dir = Some(PathBuf::from(value())),
            "--init" => cfg.init = Some(PathBuf::from(value())),
            _ if a.starts_with("--") => panic!("unknown flag {a}; {usage}"),
            _ => cfg.data.push(PathBuf::from(a)),
        }
    }
    let mut log = |line: &str| eprintln!("{line}");
    if let Err(e) = run(&cfg, &mut log) {
        eprintln!("train_arch: {e}");
        std::process::exit(1);
    }
}
