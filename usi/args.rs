//! What the commands' arguments share, for clap: whole and decimal numbers within a range, the
//! `--variant` and `--eval`/`--eval-file` flags, a usage error found after parsing (in clap's
//! form, exit status 2), and the overview of every command that `kaname help` prints, drawn
//! from the commands' own definitions.
//!
//! May use: `protocol` (the option table's defaults, the net of `EvalFile`); no other room.

use crate::protocol::options::{self, Settings};
use clap::builder::{PossibleValuesParser, RangedU64ValueParser, TypedValueParser};
use engine::VariantId;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// A clap parser of whole numbers in `range`, read as `T`.
pub fn whole<T>(range: RangeInclusive<u64>) -> RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: Send + Sync + 'static + std::error::Error + ToString,
{
    RangedU64ValueParser::new().range(range)
}

/// A clap parser of decimal numbers in `lo..=hi`.
pub fn decimal<T>(lo: T, hi: T) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    move |s| match s.parse::<T>() {
        Ok(x) if lo <= x && x <= hi => Ok(x),
        _ => Err(format!("not a number in {lo}..={hi}")),
    }
}

/// The machine's cores: the default of the commands that search in parallel.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The names of the games (`VariantId::ALL`), read as a `VariantId`.
fn variant_names() -> impl clap::builder::TypedValueParser<Value = VariantId> {
    PossibleValuesParser::new(VariantId::ALL.map(VariantId::name)).map(|s| s.parse().expect("a game's own name"))
}

/// `--variant`: the game of `bench` and `perft`.
#[derive(clap::Args, Clone, Debug)]
pub struct VariantArg {
    /// The game
    #[arg(long, value_name = "name", default_value_t = VariantId::Shogi, ignore_case = true, value_parser = variant_names())]
    pub variant: VariantId,
}

/// `--eval` and `--eval-file`: the evaluation of the commands that search.
#[derive(clap::Args, Clone, Debug)]
pub struct EvalArgs {
    /// The evaluation: net (the net of --eval-file) or classical
    #[arg(long, value_name = "net|classical", default_value_t = Settings::default().search.eval)]
    pub eval: eval::EvalKind,
    /// Net file (.knn) for --eval net [default: the net built into the binary]
    #[arg(long, value_name = "F", default_value = "", hide_default_value = true)]
    pub eval_file: String,
}

impl EvalArgs {
    /// The net of `--eval-file` (the built-in one without it), as `EvalFile` loads it.
    pub fn load_net(&self) -> Result<Option<eval::Net>, String> {
        options::load_net(&self.eval_file)
    }
}

/// A usage error found after parsing (a bad SFEN, an illegal move, flags that disagree): the
/// message and the usage of `kaname <name>` in clap's form, exit status 2.
pub fn usage_error<A: clap::Args>(name: &'static str, msg: impl Display) -> ! {
    let mut cmd = A::augment_args(clap::Command::new(name).bin_name(format!("kaname {name}")));
    cmd.error(clap::error::ErrorKind::ValueValidation, msg).exit()
}

/// The overview of the command line (`kaname help`, `help` in a session): for each command of
/// `cli`, its arguments as it declares them and the first line of its help; then `session`,
/// the commands of a USI session.
pub fn overview(cli: &clap::Command, session: &[&str]) -> Vec<String> {
    let mut lines = vec![
        format!("Kaname {}, a USI shogi engine.", env!("CARGO_PKG_VERSION")),
        String::new(),
        "Command line:".to_string(),
    ];
    let mut entry = |synopsis: String, about: &str| {
        const COLUMN: usize = 28;
        if synopsis.len() + 2 < COLUMN {
            lines.push(format!("  {synopsis:<w$}{about}", w = COLUMN - 2));
        } else {
            lines.push(format!("  {synopsis}"));
            lines.push(format!("{:COLUMN$}{about}", ""));
        }
    };
    entry("kaname".into(), "Speak USI on stdin/stdout (for GUIs)");
    for a in cli.get_arguments().filter(|a| a.get_long().is_some_and(|l| l != "help" && l != "version")) {
        let about = a.get_help().map_or(String::new(), |h| h.to_string());
        entry(format!("kaname --{}", a.get_long().unwrap_or_default()), &about);
    }
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        let mut synopsis = format!("kaname {}", sub.get_name());
        let mut options = false;
        for a in sub.get_arguments().filter(|a| !matches!(a.get_long(), Some("help" | "version"))) {
            let names = a.get_value_names().map_or(a.get_id().to_string(), |n| n.join(" "));
            let many = if a.get_num_args().is_some_and(|n| n.max_values() > 1) { "..." } else { "" };
            match (a.is_positional(), a.is_required_set()) {
                (true, true) => synopsis.push_str(&format!(" <{names}>{many}")),
                (true, false) => synopsis.push_str(&format!(" [{names}]{many}")),
                (false, true) => synopsis.push_str(&format!(" --{} <{names}>{many}", a.get_long().unwrap_or_default())),
                (false, false) => options = true,
            }
        }
        if options {
            synopsis.push_str(" [options]");
        }
        let about = sub.get_about().map_or(String::new(), |h| h.to_string());
        entry(synopsis, &about);
    }
    entry("kaname help | --help".into(), "This text");
    entry("kaname <command> --help".into(), "The command's arguments, their defaults and ranges");
    lines.push(String::new());
    lines.extend(session.iter().map(|s| s.to_string()));
    lines
}

/// Parses `words` as the arguments of a command with the flags `A` (tests).
#[cfg(test)]
pub fn parse<A: clap::Args + clap::FromArgMatches>(words: &str) -> Result<A, clap::Error> {
    let cmd = A::augment_args(clap::Command::new("kaname"));
    let m = cmd.try_get_matches_from(std::iter::once("kaname").chain(words.split_whitespace()))?;
    A::from_arg_matches(&m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Args, Debug)]
    struct Numbers {
        #[arg(long, value_parser = whole::<u32>(1..=12))]
        depth: Option<u32>,
        #[arg(long, value_parser = decimal(0.0f32, 1.0))]
        lambda: Option<f32>,
        #[command(flatten)]
        eval: EvalArgs,
    }

    #[test]
    fn ranges_and_defaults() {
        let n: Numbers = parse("--depth 12 --lambda 0.5").unwrap();
        assert_eq!((n.depth, n.lambda), (Some(12), Some(0.5)));
        assert_eq!(n.eval.eval, Settings::default().search.eval);
        assert!(n.eval.eval_file.is_empty());
        for bad in ["--depth 0", "--depth 13", "--depth x", "--lambda 1.5", "--lambda nan", "--eval magic"] {
            let e = parse::<Numbers>(bad).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{bad}");
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
    }
}
