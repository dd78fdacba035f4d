//! `kaname analyse` end to end: the built binary on the record fixtures of
//! `tests/data/records/` (the same short game as KIF in UTF-8 and Shift_JIS, KI2 with a BOM,
//! CSA and a USI line; a board-diagram start, a handicap start, a record with an illegal move,
//! and text that is no record), with a tiny node budget per position.

mod common;

use engine::Position;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The game in every `game*` fixture: Black fails to retake the bishop at ply 5.
const GAME: [&str; 12] =
    ["7g7f", "3c3d", "2g2f", "2b8h+", "2f2e", "8h9i", "7i8h", "3a2b", "2e2d", "2c2d", "2h2d", "P*2c"];

/// One thread and a node budget: fast, and the same result on every run.
const BUDGET: [&str; 7] = ["--nodes", "1500", "--threads", "1", "--hash", "4", "--no-progress"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/records").join(name)
}

/// A fresh directory for one test's outputs.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kaname-analyse-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn analyse(record: &Path, extra: &[&str]) -> Output {
    common::kaname().arg("analyse").arg(record).args(BUDGET).args(extra).output().expect("running kaname")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

/// Analyses `record` into `dir/name.json` and returns the report.
fn report(record: &Path, dir: &Path, name: &str, extra: &[&str]) -> Value {
    let out = dir.join(format!("{name}.json"));
    let o = analyse(record, &[&["--json", out.to_str().unwrap()], extra].concat());
    assert!(o.status.success(), "{name}: {:?}\n{}", o.status, stderr(&o));
    json(&out)
}

fn score_present(s: &Value) -> bool {
    s["cp"].is_i64() || s["mate"].is_i64()
}

fn flip(s: &Value) -> Value {
    match (s["cp"].as_i64(), s["mate"].as_i64()) {
        (Some(c), _) => serde_json::json!({ "cp": -c }),
        (_, Some(n)) => serde_json::json!({ "mate": -n }),
        _ => panic!("no score in {s}"),
    }
}

/// Every ply of a report against the record's moves and the report's own rules: the position
/// and side before each move, legal best moves and lines, both views of each score, losses
/// that follow from the win rates, and marks exactly where a loss reaches a threshold.
fn check_plies(r: &Value, start: &str, moves: &[&str]) {
    let marks: Vec<f64> = r["settings"]["marks"].as_array().unwrap().iter().map(|m| m.as_f64().unwrap()).collect();
    let plies = r["plies"].as_array().unwrap();
    let from = r["settings"]["from"].as_u64().unwrap() as usize;
    assert_eq!(plies.len(), moves.len() + 1 - from, "{r}");
    let mut pos = Position::from_sfen(start).unwrap();
    for (i, m) in moves.iter().enumerate() {
        let ply = i + 1;
        let mv = pos.parse_usi_move(m).unwrap();
        if ply >= from {
            let p = &plies[ply - from];
            let ctx = format!("ply {ply}: {p}");
            assert_eq!(p["ply"], ply, "{ctx}");
            assert_eq!(p["move"], *m, "{ctx}");
            assert_eq!(p["sfen"], pos.to_sfen(), "{ctx}");
            let black = pos.side_to_move() == engine::Color::Black;
            assert_eq!(p["side"], if black { "black" } else { "white" }, "{ctx}");
            assert!(p["move_ja"].as_str().unwrap().starts_with(if black { '▲' } else { '△' }), "{ctx}");
            for key in ["score_black", "score_mover", "best_score_black", "best_score_mover"] {
                assert!(score_present(&p[key]), "{key} in {ctx}");
            }
            let view = |s: &Value| if black { s.clone() } else { flip(s) };
            assert_eq!(p["score_black"], view(&p["score_mover"]), "{ctx}");
            assert_eq!(p["best_score_black"], view(&p["best_score_mover"]), "{ctx}");
            let best = pos.parse_usi_move(p["best"].as_str().unwrap()).expect("legal best move");
            assert_eq!(p["best_is_played"], best == mv, "{ctx}");
            assert_eq!(p["pv"][0], p["best"], "{ctx}");
            let mut line = pos.clone();
            for m in p["pv"].as_array().unwrap() {
                let m = line.parse_usi_move(m.as_str().unwrap()).expect("legal PV move");
                line.do_move(m);
            }
            let loss = p["loss_winrate"].as_f64().unwrap();
            let expected = (p["winrate_best"].as_f64().unwrap() - p["winrate_played"].as_f64().unwrap()).max(0.0);
            assert!((loss - if best == mv { 0.0 } else { expected }).abs() < 1e-9, "{ctx}");
            assert!(p["loss_cp"].as_i64().unwrap() >= 0, "{ctx}");
            let mark = match loss {
                l if l >= marks[2] => "blunder",
                l if l >= marks[1] => "mistake",
                l if l >= marks[0] => "dubious",
                _ => "",
            };
            assert_eq!(p["mark"].as_str().unwrap_or(""), mark, "{ctx}");
        }
        pos.do_move(mv);
    }
}

#[test]
fn the_same_game_in_every_format_and_encoding() {
    let dir = scratch("formats");
    for (file, format, encoding) in [
        ("game.kif", "kif", "utf-8"),
        ("game_sjis.kif", "kif", "shift_jis"),
        ("game_bom.ki2", "ki2", "utf-8-bom"),
        ("game.csa", "csa", "shift_jis"),
        ("game.usi", "usi", "utf-8"),
    ] {
        let r = report(&fixture(file), &dir, file, &[]);
        assert_eq!((r["record"]["format"].as_str(), r["record"]["encoding"].as_str()), (Some(format), Some(encoding)));
        assert_eq!(r["record"]["moves"], 12, "{file}");
        assert_eq!(r["record"]["start_sfen"], engine::START_SFEN, "{file}");
        assert!(r["error"].is_null(), "{file}");
        check_plies(&r, engine::START_SFEN, &GAME);
        // Leaving the bishop's promoted killer in the camp loses a bishop: a blunder.
        assert_eq!(r["plies"][4]["mark"], "blunder", "{file}: {}", r["plies"][4]);
        assert_eq!(r["summary"]["black"]["moves"], 6);
        assert_eq!(r["summary"]["white"]["moves"], 6);
        let blunders = r["plies"].as_array().unwrap().iter().filter(|p| p["mark"] == "blunder").count() as u64;
        let counted =
            r["summary"]["black"]["blunder"].as_u64().unwrap() + r["summary"]["white"]["blunder"].as_u64().unwrap();
        assert_eq!(blunders, counted, "{file}");
        if format != "usi" {
            assert_eq!(
                (r["record"]["black"].as_str(), r["record"]["result"].as_str()),
                (Some("先手太郎"), Some("resign"))
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without output options the report, a record copy and the graph land beside the record.
#[test]
fn default_outputs_beside_the_record() {
    let dir = scratch("defaults");
    for (fixture_name, copy_ext, comment) in
        [("game.kif", "kif", "*Kaname 評価値"), ("game.csa", "csa", "'*Kaname 評価値")]
    {
        let record = dir.join(fixture_name);
        std::fs::copy(fixture(fixture_name), &record).unwrap();
        let o = analyse(&record, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
        let summary = String::from_utf8(o.stdout).unwrap();
        assert!(summary.contains("black") && summary.contains("blunder") && summary.contains("written: "), "{summary}");
        assert!(summary.lines().any(|l| l.trim_start().starts_with("5  ▲２五歩")), "the blunder is listed:\n{summary}");
        let r = json(&dir.join("game.analysis.json"));
        assert_eq!(r["plies"].as_array().unwrap().len(), 12);
        let svg = std::fs::read_to_string(dir.join("game.analysis.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{}", &svg[..svg.len().min(200)]);
        assert!(svg.contains("<polyline") && svg.contains("blunder"), "a line and the legend");
        // The copy is Shift_JIS (what GUIs expect of .kif and .csa), with two comment lines a move.
        let bytes = std::fs::read(dir.join(format!("game.analysis.{copy_ext}"))).unwrap();
        let (copy, _, bad) = encoding_rs::SHIFT_JIS.decode(&bytes);
        assert!(!bad);
        assert_eq!(copy.lines().filter(|l| l.starts_with(comment)).count(), 12, "{copy}");
        assert!(copy.contains("大悪手"), "{copy}");
        let other = if copy_ext == "kif" { "csa" } else { "kif" };
        assert!(!dir.join(format!("game.analysis.{other}")).exists());
        if copy_ext == "kif" {
            assert!(
                copy.contains("*序盤の一局") && copy.contains("まで12手で後手の勝ち"),
                "kept from the original:\n{copy}"
            );
            // The copy reads back as the same game.
            let g = common::kaname()
                .args(["analyse", dir.join("game.analysis.kif").to_str().unwrap(), "--to", "1"])
                .args(BUDGET)
                .args(["--json", dir.join("again.json").to_str().unwrap()])
                .output()
                .unwrap();
            assert!(g.status.success(), "{}", stderr(&g));
            assert_eq!(json(&dir.join("again.json"))["record"]["moves"], 12);
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            std::fs::remove_file(f.unwrap().path()).unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn board_diagram_and_handicap_starts() {
    let dir = scratch("starts");
    let start = "4k4/9/9/9/9/9/4p3P/9/4K4 w g 1";
    let r = report(&fixture("diagram.kif"), &dir, "diagram", &[]);
    assert_eq!(r["record"]["start_sfen"], start);
    check_plies(&r, start, &["5a4b", "1g1f", "G*5h"]);
    assert_eq!(r["plies"][0]["side"], "white");
    // White could mate at once (G*5h), and does at ply 3.
    assert_eq!(
        (&r["plies"][0]["best"], &r["plies"][0]["best_score_mover"]),
        (&"G*5h".into(), &serde_json::json!({"mate": 1}))
    );
    assert_eq!(r["plies"][2]["score_mover"], serde_json::json!({"mate": 1}));
    assert_eq!(r["plies"][2]["score_black"], serde_json::json!({"mate": -1}));
    assert_eq!(r["record"]["result"], "mate");
    let handicap = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let r = report(&fixture("handicap.kif"), &dir, "handicap", &[]);
    assert_eq!(r["record"]["start_sfen"], handicap);
    check_plies(&r, handicap, &["3c3d", "7g7f", "4c4d", "2g2f", "8b4b", "3i4h"]);
    assert_eq!(r["record"]["white"], "上手次郎");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ply_range_and_multipv() {
    let dir = scratch("range");
    let r = report(
        &fixture("game.kif"),
        &dir,
        "range",
        &["--from", "3", "--to", "5", "--multipv", "3", "--marks", "0.02,0.3,0.6"],
    );
    assert_eq!(
        (&r["settings"]["from"], &r["settings"]["to"], &r["settings"]["multipv"]),
        (&3.into(), &5.into(), &3.into())
    );
    check_plies(&r, engine::START_SFEN, &GAME[..5]);
    for p in r["plies"].as_array().unwrap() {
        let lines = p["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 3, "{p}");
        assert_eq!(lines[0]["move"], p["best"]);
        assert_eq!(lines[0]["score_mover"], p["best_score_mover"]);
    }
    // A --to beyond the record stops at its end; a --from beyond it is an error.
    let r = report(&fixture("game.usi"), &dir, "tail", &["--from", "11", "--to", "99"]);
    assert_eq!(r["plies"].as_array().unwrap().len(), 2);
    let o = analyse(&fixture("game.usi"), &["--from", "13", "--json", dir.join("x.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("beyond the record's 12 moves"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An illegal move: the error names its line and ply, the plies before it are analysed and
/// written, and the exit status is 1.
#[test]
fn an_illegal_move_keeps_the_plies_before_it() {
    let dir = scratch("illegal");
    let record = dir.join("illegal.kif");
    std::fs::copy(fixture("illegal.kif"), &record).unwrap();
    let o = analyse(&record, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("line 9: ply 5 '５五飛(28)': illegal move"), "{err}");
    let r = json(&dir.join("illegal.analysis.json"));
    assert_eq!(r["record"]["moves"], 4);
    check_plies(&r, engine::START_SFEN, &["7g7f", "3c3d", "2g2f", "4c4d"]);
    assert_eq!((&r["error"]["line"], &r["error"]["ply"]), (&9.into(), &5.into()));
    assert!(dir.join("illegal.analysis.svg").exists());
    let bytes = std::fs::read(dir.join("illegal.analysis.kif")).unwrap();
    let (copy, _, _) = encoding_rs::SHIFT_JIS.decode(&bytes);
    assert!(copy.contains("   4 ４四歩(43)") && !copy.contains("５五飛"), "{copy}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records that cannot be read: a clear message naming the file, status 1, nothing written.
#[test]
fn unreadable_records_are_refused() {
    let dir = scratch("bad");
    let png = dir.join("picture.kif");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let diary = dir.join("diary.txt");
    std::fs::copy(fixture("notarecord.txt"), &diary).unwrap();
    let broken = dir.join("broken.kif");
    std::fs::write(
        &broken,
        "手合割：平手\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n| ・ ・ ・|一\n",
    )
    .unwrap();
    for (path, message) in [
        (dir.join("missing.kif"), "cannot read the file"),
        (dir.clone(), "cannot read the file"),
        (png, "not a text file"),
        (diary, "unknown record format"),
        (broken, "line "),
    ] {
        let o = analyse(&path, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{}: {err}", path.display());
        assert!(err.contains(&path.display().to_string()) && err.contains(message), "{}: {err}", path.display());
        assert!(o.stdout.is_empty());
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().file_name()).collect();
    assert!(left.iter().all(|f| !f.to_string_lossy().contains(".analysis.")), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage() {
    let kaname = |args: &[&str]| common::kaname().args(args).output().unwrap();
    let o = kaname(&["analyse", "--help"]);
    assert!(o.status.success());
    let usage = String::from_utf8(o.stdout).unwrap();
    for flag in [
        "--movetime",
        "--nodes",
        "--depth",
        "--multipv",
        "--from",
        "--to",
        "--json",
        "--kif",
        "--csa",
        "--graph",
        "--marks",
    ] {
        assert!(usage.contains(flag), "{flag} in {usage}");
    }
    // Usage errors in clap's form: status 2, naming what is missing or which flag is wrong.
    for (bad, named) in [
        (&["analyse"][..], "Usage: kaname analyse"),
        (&["analyse", "a.kif", "--graph", "g.png"], "'--graph <OUT.svg>'"),
        (&["analyse", "a.kif", "--marks", "1,2"], "'--marks <A,B,C>'"),
    ] {
        let o = kaname(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: ") && err.contains(named), "{bad:?}: {err}");
        assert!(o.stdout.is_empty());
    }
}
