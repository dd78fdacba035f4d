//! The command line for people and scripts, and the documentation that describes it.

mod common;

use std::process::Output;

fn kaname(args: &[&str]) -> Output {
    common::kaname().args(args).output().expect("running kaname")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "status {:?}, stderr: {}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn help() {
    for a in ["help", "--help"] {
        let s = stdout(&kaname(&[a]));
        assert!(s.contains("kaname bench") && s.contains("kaname perft") && s.contains("kaname go"));
        assert!(s.contains("kaname analyse <record>"));
    }
    // Every command answers --help (gensfen once read it as a file name, bench as a depth).
    for cmd in ["bench", "perft", "go", "gensfen", "psv-dump", "train", "analyse", "makebook", "options-markdown"] {
        for a in ["--help", "-h"] {
            let s = stdout(&kaname(&[cmd, a]));
            assert!(s.contains(&format!("kaname {cmd}")), "{cmd} {a}: {s}");
        }
    }
    let o = kaname(&["--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

/// The command line is clap's: each command's help comes from its arguments' definitions
/// (every flag, with its default), `kaname help <command>` and `kaname <command> help` print it
/// too, and a value out of range or of the wrong kind exits with 2, naming the argument, with
/// nothing on stdout.
#[test]
fn command_help_and_usage_errors() {
    for (cmd, shown) in [
        ("bench", &["[depth]", "[threads]", "[hash]", "--variant", "[default: 10]"][..]),
        ("perft", &["<depth>", "[sfen]", "--generate", "--variant"]),
        ("go", &["--sfen", "--moves", "--movetime", "[default: 3000]"]),
        ("analyse", &["<record>", "--movetime", "--marks", "--graph", "--eval-file", "--no-progress"]),
        ("gensfen", &["--out", "--positions", "--nodes", "--random-plies", "--max-plies", "--eval"]),
        ("psv-dump", &["<file>", "[n]"]),
        ("makebook", &["--openings", "--psv", "--plies", "--expand", "--limit", "[default: 16]"]),
        ("train", &["--data", "--out", "--lambda", "--init", "--resume", "[default: 0.75]"]),
        ("options-markdown", &[]),
    ] {
        for args in [&[cmd, "--help"][..], &["help", cmd], &[cmd, "help"]] {
            let s = stdout(&kaname(args));
            assert!(s.contains(&format!("Usage: kaname {cmd}")), "{args:?}: {s}");
            for x in shown {
                assert!(s.contains(x), "{args:?} shows {x}: {s}");
            }
        }
    }
    assert!(stdout(&kaname(&["analyze", "--help"])).contains("<record>"), "analyze is analyse");
    for (args, named) in [
        (&["bench", "0"][..], "[depth]"),
        (&["bench", "1", "257"], "[threads]"),
        (&["bench", "--variant", "chess"], "--variant"),
        (&["perft", "13"], "<depth>"),
        (&["go", "--movetime", "x"], "--movetime"),
        (&["analyse", "g.kif", "--multipv", "601"], "--multipv"),
        (&["analyse", "g.kif", "--eval", "magic"], "--eval"),
        (&["gensfen", "--random-plies", "5-2"], "--random-plies"),
        (&["psv-dump", "x.psv", "many"], "[n]"),
        (&["makebook", "--plies", "0"], "--plies"),
        (&["train", "--data", "a", "--out", "b", "--lambda", "2"], "--lambda"),
    ] {
        let o = kaname(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: invalid value") && err.contains(named), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // Unknown commands and flags, one record too many, --tune with a command, --init with
    // --resume: status 2 too.
    for args in [
        &["frobnicate"][..],
        &["bench", "--bogus"],
        &["analyse", "a.kif", "b.kif"],
        &["--tune", "bench"],
        &["train", "--data", "a", "--out", "b", "--init", "x", "--resume", "y"],
    ] {
        let o = kaname(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: "), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn perft_command() {
    let s = stdout(&kaname(&["perft", "3"]));
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 30 + 3, "{s}");
    assert!(lines.contains(&"Nodes searched: 25470"), "{s}");
    assert!(lines.iter().take(30).all(|l| l.split(": ").count() == 2));
    let s = stdout(&kaname(&["perft", "2", "7lk/9/8S/9/9/9/9/7L1/8K", "b", "P", "1"]));
    assert!(s.contains("Nodes searched: 639"), "{s}");
    let s = stdout(&kaname(&["perft", "1", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"]));
    assert!(s.contains("Nodes searched: 207"), "{s}");
    assert_eq!(kaname(&["perft"]).status.code(), Some(2));
    assert_eq!(kaname(&["perft", "2", "bad sfen"]).status.code(), Some(2));
    // The generating count of the last ply gives the same numbers as the popcount one.
    let s = stdout(&kaname(&["perft", "3", "--generate"]));
    assert!(s.contains("Nodes searched: 25470"), "{s}");
    let s = stdout(&kaname(&["perft", "3", "--generate", "7lk/9/8S/9/9/9/9/7L1/8K", "b", "P", "1"]));
    assert!(s.contains("Nodes searched: 10786"), "{s}");
}

fn check_go_output(s: &str, pos: &engine::Position) {
    let lines: Vec<&str> = s.lines().collect();
    let last = lines.last().expect("output");
    assert!(lines[..lines.len() - 1].iter().all(|l| l.starts_with("info ")), "{s}");
    let t: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(t[0], "bestmove", "{s}");
    pos.parse_usi_move(t[1]).unwrap_or_else(|e| panic!("{last}: {e}"));
}

#[test]
fn go_command() {
    let s = stdout(&kaname(&["go", "--movetime", "200"]));
    check_go_output(&s, &engine::Position::startpos());
    let s = stdout(&kaname(&["go", "--moves", "7g7f", "3c3d", "--movetime", "100"]));
    let mut pos = engine::Position::startpos();
    for m in ["7g7f", "3c3d"] {
        let mv = pos.parse_usi_move(m).unwrap();
        pos.do_move(mv);
    }
    check_go_output(&s, &pos);
    let sfen = "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124";
    let s = stdout(&kaname(&["go", "--sfen", sfen, "--movetime", "100"]));
    check_go_output(&s, &engine::Position::from_sfen(sfen).unwrap());
    let s = stdout(&kaname(&["go", "--sfen", "4k4/4G4/4P4/9/9/9/9/9/4K4", "w", "-", "1"]));
    assert_eq!(s.trim(), "bestmove resign");
    assert_eq!(kaname(&["go", "--moves", "1a1b"]).status.code(), Some(2));
    assert_eq!(kaname(&["go", "--movetime"]).status.code(), Some(2));
}

#[test]
fn bench_command() {
    let s = stdout(&kaname(&["bench", "2", "1", "16"]));
    let per_position = s.lines().filter(|l| l.starts_with("position ") && l.contains("Nodes searched: ")).count();
    assert!(per_position >= 10, "{s}");
    assert!(s.lines().any(|l| l.starts_with("Nodes searched: ")), "{s}");
    assert!(s.lines().any(|l| l.starts_with("Nodes/second: ")), "{s}");
    assert_eq!(kaname(&["bench", "zero"]).status.code(), Some(2));
}

#[test]
fn readme_options_table_is_generated_from_the_option_list() {
    let table = stdout(&kaname(&["options-markdown"]));
    let readme = repo_file("README.md");
    assert!(
        readme.contains(&table),
        "README.md's options table is out of date; replace it with the output of \
         `cargo run --release -- options-markdown`:\n{table}"
    );
}

#[test]
fn ci_runs_exactly_the_readme_test_command() {
    let readme = repo_file("README.md");
    let ci = repo_file(".ci/run");
    let cmd = "cargo test --release --workspace";
    assert!(readme.contains(cmd));
    assert!(readme.contains("cargo run --release -- go"));
    assert!(ci.starts_with("#!/usr/bin/env bash") || ci.starts_with("#!/bin/bash"));
    assert!(ci.contains("set -euo pipefail"));
    let commands: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("set ") && !l.starts_with("cd "))
        .collect();
    assert_eq!(commands.first(), Some(&cmd), ".ci/run runs something else first");
    // Then the Windows part, which README's "Windows" and "Continuous integration" describe.
    let windows = "bash scripts/test_windows.sh";
    assert!(readme.contains(windows), "README names {windows}");
    let runs: Vec<&&str> = commands.iter().filter(|l| l.contains("cargo ") || l.contains("scripts/")).collect();
    assert_eq!(runs, vec![&cmd, &"bash scripts/test_windows.sh || rc=$?"], ".ci/run runs something else");
}

/// `gensfen` writes whole PackedSfenValue records that decode to legal positions with legal
/// best moves and consistent results, and a second run resumes instead of starting over.
#[test]
fn gensfen_writes_records_that_parse_back_and_resumes() {
    let dir = std::env::temp_dir().join(format!("kaname-gensfen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("data.psv");
    let path = out.to_str().unwrap();
    let run = |n: &str| {
        let o =
            kaname(&["gensfen", "--out", path, "--positions", n, "--nodes", "300", "--threads", "2", "--hash", "2"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout.is_empty(), "gensfen prints progress on stderr only");
    };
    run("150");
    let first = std::fs::read(&out).unwrap();
    assert_eq!(first.len(), 150 * engine::PSV_BYTES);
    run("300");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len(), 300 * engine::PSV_BYTES);
    assert_eq!(&bytes[..first.len()], &first[..], "a resumed run appends");
    let mut results = [0; 3];
    for chunk in bytes.chunks(engine::PSV_BYTES) {
        let rec = engine::PackedSfenValue::from_bytes(chunk.try_into().unwrap());
        let pos = rec.position().expect("record unpacks");
        assert!(engine::move_from_move16(&pos, rec.move16).is_some(), "{}", pos.to_sfen());
        assert!(rec.score.abs() < 30000);
        results[(rec.game_result + 1) as usize] += 1;
    }
    assert!(results[0] > 0 && results[2] > 0, "{results:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small PSV file of playout positions labelled with the material balance.
fn write_psv(path: &std::path::Path, n: usize) {
    let mut bytes = Vec::new();
    let mut seed = 7u64;
    while bytes.len() < n * engine::PSV_BYTES {
        let mut pos = engine::Position::startpos();
        for ply in 0..100 {
            let mut list = engine::MoveList::new();
            engine::generate_legal(&pos, &mut list);
            let moves = list.as_slice();
            if moves.is_empty() {
                break;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = moves[(seed >> 33) as usize % moves.len()];
            let black = eval::material(&pos);
            let v = if pos.side_to_move() == engine::Color::Black { black } else { -black };
            let rec = engine::PackedSfenValue {
                sfen: engine::pack(&pos).unwrap(),
                score: v.clamp(-3000, 3000) as i16,
                move16: engine::move16(m),
                game_ply: ply,
                game_result: v.signum() as i8,
                padding: 0,
            };
            bytes.extend(rec.to_bytes());
            pos.do_move(m);
        }
    }
    bytes.truncate(n * engine::PSV_BYTES);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn train_command() {
    let dir = std::env::temp_dir().join(format!("kaname-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("d.psv");
    write_psv(&data, 3000);
    let out = dir.join("n.knn");
    let (d, o) = (data.to_str().unwrap(), out.to_str().unwrap());
    let args =
        ["train", "--data", d, "--out", o, "--epochs", "2", "--batch", "128", "--limit", "2000", "--no-progress"];
    let r = kaname(&args);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains("read 2000") && err.contains("K = ") && err.contains("epoch 2 train"), "{err}");
    let net = eval::nnue::netfile::load(&out).unwrap();
    assert_eq!(net.l1_weights.len(), eval::nnue::features::NUM_FEATURES * eval::nnue::L1);
    assert!(eval::nnue::netfile::load(dir.join("n.last.knn")).is_ok());
    let csv = std::fs::read_to_string(dir.join("n.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("epoch,train_loss,val_loss,val_loss_quant"));
    // A missing file fails with status 1, bad arguments with 2; neither writes to stdout.
    let r = kaname(&["train", "--data", "/nonexistent/x.psv", "--out", o, "--no-progress"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("/nonexistent/x.psv"));
    let r = kaname(&["train", "--data", d]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.stdout.is_empty() && err.contains("Usage: kaname train") && err.contains("--out"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
