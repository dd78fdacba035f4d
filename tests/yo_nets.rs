//! End-to-end tests of YaneuraOu nets (`nn.bin`) through the built binary: `EvalFile` and
//! `EvalDir` (YaneuraOu's `nn.bin` in it), `FV_SCALE`, the `eval` and `d` lines that name the
//! net, `score cp` on YaneuraOu's scale, and every kind of bad file (each reported once by
//! `info string error` naming the file and what was found, the net in use staying in use).
//! The nets are small seeded random K-P nets (`eval::yo::random`, 0.9 MB), written by the
//! test itself; their values come from `eval::yo::YoNet::evaluate_full`, which
//! `eval/tests/yo_fixture.rs` checks against YaneuraOu's own.

mod common;

use common::{errors, Engine, LIVE};
use eval::yo::{random, Shape, YoNet};
use std::path::{Path, PathBuf};

const SFEN: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kaname-yo-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the K-P net of `seed` to `path` and returns its bytes.
fn write_net(path: &Path, seed: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    eval::yo::file::write(&random::params(Shape::KP_256, seed), &mut bytes).unwrap();
    std::fs::write(path, &bytes).unwrap();
    bytes
}

/// The `Net: v` value of the `eval` command.
fn net_value(e: &mut Engine) -> (i32, Vec<String>) {
    e.human_output = true;
    e.send("eval");
    let (line, lines) = e.expect("Evaluation in use:", LIVE);
    let net = lines.iter().find(|l| l.starts_with("Net: ")).unwrap_or_else(|| panic!("no Net line: {lines:?}"));
    let v = net.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut all = lines.clone();
    all.push(line);
    (v, all)
}

/// `isready`'s lines.
fn ready(e: &mut Engine) -> Vec<String> {
    e.send("isready");
    e.expect("readyok", LIVE).1
}

#[test]
fn a_yaneuraou_net_by_eval_file_and_by_eval_dir() {
    let dir = scratch("load");
    let net = dir.join("kp.bin");
    write_net(&net, 1);
    let want = YoNet::new(random::params(Shape::KP_256, 1));
    let pos = engine::Position::from_sfen(SFEN).unwrap();

    let mut e = Engine::ready();
    e.send(&format!("setoption name EvalFile value {}", net.display()));
    let lines = ready(&mut e);
    assert!(
        lines.iter().any(|l| l.contains("EvalFile") && l.contains("YaneuraOu net kp_256x2-32-32, FV_SCALE 16")),
        "the loaded net is named: {lines:?}"
    );
    e.send(&format!("position sfen {SFEN}"));
    let (v, lines) = net_value(&mut e);
    assert_eq!(v, want.evaluate_full(&pos, 16), "{lines:?}");
    assert!(lines.last().unwrap().contains("kp_256x2-32-32, FV_SCALE 16, file"), "{lines:?}");
    // FV_SCALE divides the same output.
    e.send("setoption name FV_SCALE value 40");
    let (v40, _) = net_value(&mut e);
    assert_eq!(v40, want.evaluate_full(&pos, 40));
    // `d` names the net too.
    e.send("d");
    let (line, _) = e.expect("Evaluation in use:", LIVE);
    assert!(line.contains("YaneuraOu net kp_256x2-32-32, FV_SCALE 40"), "{line}");
    // YaneuraOu's users set EvalDir to their eval folder: its nn.bin is the net.
    let eval_dir = dir.join("eval");
    std::fs::create_dir_all(&eval_dir).unwrap();
    write_net(&eval_dir.join("nn.bin"), 2);
    e.send("setoption name EvalFile value ");
    e.send(&format!("setoption name EvalDir value {}", eval_dir.display()));
    e.send("setoption name FV_SCALE value 16");
    let lines = ready(&mut e);
    assert!(lines.iter().any(|l| l.contains("nn.bin") && l.contains("kp_256x2-32-32")), "{lines:?}");
    let (v2, _) = net_value(&mut e);
    assert_eq!(v2, YoNet::new(random::params(Shape::KP_256, 2)).evaluate_full(&pos, 16));
    // A folder without nn.bin: the built-in net, no error.
    e.send(&format!("setoption name EvalDir value {}", dir.display()));
    let lines = ready(&mut e);
    assert!(errors(&lines).is_empty(), "{lines:?}");
    let (_, lines) = net_value(&mut e);
    assert!(lines.last().unwrap().contains("Kaname net") && lines.last().unwrap().contains("built into"), "{lines:?}");
    e.send("position startpos moves 7g7f");
    e.go("go depth 4");
    e.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// With a YaneuraOu net, `score cp` is YaneuraOu's conversion of the search value
/// (`100 v / 90`): a depth-1 search of a position with one legal move reports the static
/// value of the position after it, from the mover's side.
#[test]
fn scores_are_on_yaneuraou_s_scale() {
    let dir = scratch("cp");
    let net = dir.join("kp.bin");
    write_net(&net, 3);
    let yo = YoNet::new(random::params(Shape::KP_256, 3));
    // Black's king on 1i is checked by an unsupported white gold on 2h: its one legal move is
    // to take it, after which White has no capture.
    let sfen = "4k4/9/9/9/9/9/9/7g1/8K b - 1";
    let pos = engine::Position::from_sfen(sfen).unwrap();
    let mut legal = engine::MoveList::new();
    engine::generate_legal(&pos, &mut legal);
    let mut e = Engine::ready();
    e.send(&format!("setoption name EvalFile value {}", net.display()));
    e.send("setoption name MultiPV value 1");
    assert!(errors(&ready(&mut e)).is_empty());
    e.send("usinewgame");
    e.send(&format!("position sfen {sfen}"));
    e.send("go depth 1");
    let (_, lines) = e.expect("bestmove", LIVE);
    let info = lines.iter().rev().find(|l| l.contains(" score cp ")).expect("a score line");
    let t: Vec<&str> = info.split_whitespace().collect();
    let cp: i32 = t[t.iter().position(|&w| w == "cp").unwrap() + 1].parse().unwrap();
    let pv = t[t.iter().position(|&w| w == "pv").unwrap() + 1];
    let m = pos.parse_usi_move(pv).unwrap();
    let mut after = pos.clone();
    after.do_move(m);
    // Depth 1 searches the move's quiescence: with no capture left the value is the child's
    // static value, negated.
    let mut replies = engine::MoveList::new();
    engine::generate_legal(&after, &mut replies);
    assert_eq!(legal.len(), 1);
    assert!(!replies.iter().any(|&r| after.is_capture(r)));
    assert_eq!(cp, eval::yo::to_cp(-yo.evaluate_full(&after, 16)), "{info}");
    e.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every kind of bad file: reported once, naming the file and what was found, and the net
/// in use stays in use (its values unchanged); a hash or string that disagrees with the size
/// is a warning and the file loads.
#[test]
fn bad_net_files_are_reported_and_the_net_in_use_stays() {
    let dir = scratch("bad");
    let good = dir.join("good.bin");
    let bytes = write_net(&good, 4);
    let arch_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let write = |name: &str, b: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    let truncated = write("truncated.bin", &bytes[..bytes.len() - 1000]);
    let mut v = bytes.clone();
    v[0] ^= 0x40;
    let version = write("version.bin", &v);
    let mut odd = bytes.clone();
    odd.extend_from_slice(&[0; 12]);
    let odd_size = write("odd-size.bin", &odd);
    // A HalfKPE9 file: HalfKP's header and hashes, 578 MB (sparse: nothing is read).
    let e9 = dir.join("halfkpe9.bin");
    {
        let head = &bytes[..12 + arch_len];
        let f = std::fs::File::create(&e9).unwrap();
        std::io::Write::write_all(&mut &f, head).unwrap();
        f.set_len((12 + arch_len) as u64 + eval::yo::shape::HALFKPE9_PAYLOAD).unwrap();
    }
    let mut h = bytes.clone();
    h[4] ^= 1;
    let hash = write("hash.bin", &h);
    let missing = dir.join("missing.bin");
    let folder = dir.join("a-folder");
    std::fs::create_dir_all(&folder).unwrap();

    let mut e = Engine::ready();
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    assert!(errors(&ready(&mut e)).is_empty());
    e.send(&format!("position sfen {SFEN}"));
    let (v0, _) = net_value(&mut e);
    for (file, found) in [
        (&truncated, "match no shape"),
        (&version, "version word"),
        (&odd_size, "match no shape"),
        (&e9, "HalfKPE9"),
        (&missing, "cannot read"),
        (&folder, "directory"),
    ] {
        e.send(&format!("setoption name EvalFile value {}", file.display()));
        let lines = ready(&mut e);
        let errs = errors(&lines);
        assert_eq!(errs.len(), 1, "{file:?}: {lines:?}");
        assert!(errs[0].contains(&file.display().to_string()) && errs[0].contains(found), "{}", errs[0]);
        assert!(errs[0].contains("still using YaneuraOu net kp_256x2-32-32"), "{}", errs[0]);
        let (v, lines) = net_value(&mut e);
        assert_eq!(v, v0, "the net in use stays: {lines:?}");
        assert!(lines.last().unwrap().contains(&good.display().to_string()), "{lines:?}");
    }
    e.send(&format!("setoption name EvalFile value {}", hash.display()));
    let lines = ready(&mut e);
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string warning") && l.contains("hash")), "{lines:?}");
    e.send("position startpos moves 2g2f");
    e.go("go depth 3");
    e.finish();
    let _ = std::fs::remove_dir_all(&dir);
}
