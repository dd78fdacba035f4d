//! What a Windows user of ShogiGUI or Shogidokoro meets, run against the binary under test:
//! on Linux the `kaname` cargo built, and under `scripts/test_windows.sh` `kaname.exe` under
//! Wine (`KANAME_TEST_WINE=1`), where the paths are Windows' own (`C:\...`, `Z:\...`,
//! `book\...`, with spaces and Japanese), the engine sits in its folder beside its book and net
//! and is started there, as the GUIs do, and `bench` is compared with the Linux build's.
//! Input lines end in CRLF, as a Windows GUI sends them.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// Sends `line` ending in CRLF (recorded like `send`, the position followed).
fn send_crlf(e: &mut Engine, line: &str) {
    if line.starts_with("position") {
        e.pos = position_from_command(line);
    }
    e.send_raw(format!("{line}\r\n").as_bytes());
    e.record_sent(line);
}

/// The separator of paths the engine is told: Windows' under Wine.
fn sep() -> &'static str {
    if under_wine() {
        "\\"
    } else {
        "/"
    }
}

/// An engine's folder as a user lays it out: a name with spaces and Japanese, the binary under
/// test copied in, `book\定跡 1.db` (the tiny book) and `eval\nn 1.bin` (a random YaneuraOu
/// net) beside it. Under Wine in `C:\` (the Wine prefix's drive_c), on Linux in the temp dir.
struct Folder {
    /// The folder as the test sees it.
    unix: PathBuf,
    /// The folder as the engine is told it (`C:\将棋 エンジン ...\Kaname 1` under Wine).
    engine: String,
    /// The copied binary.
    exe: PathBuf,
    /// What to remove at the end.
    top: PathBuf,
}

impl Folder {
    fn new(test: &str) -> Folder {
        // 表 and ソ end in byte 0x5C (a backslash) in Shift_JIS: a trap for code that splits bytes.
        let name = format!("将棋 エンジン 表ソ {test} {}", std::process::id());
        let (top, engine) = if under_wine() {
            let prefix = std::env::var_os("WINEPREFIX")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME or WINEPREFIX")).join(".wine"));
            (prefix.join("drive_c").join(&name), format!("C:\\{name}\\Kaname 1"))
        } else {
            let top = std::env::temp_dir().join(&name);
            let engine = top.join("Kaname 1").to_str().unwrap().to_string();
            (top, engine)
        };
        let unix = top.join("Kaname 1");
        let _ = std::fs::remove_dir_all(&top);
        std::fs::create_dir_all(unix.join("book")).unwrap();
        std::fs::create_dir_all(unix.join("eval")).unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::copy(repo.join("tests/data/books/tiny.db"), unix.join("book/定跡 1.db")).unwrap();
        let shape: eval::yo::Shape = "halfkp_256x2-32-32".parse().unwrap();
        eval::yo::file::save(&eval::yo::random::params(shape, 5), unix.join("eval/nn 1.bin")).unwrap();
        let (from, exe) = if under_wine() {
            (PathBuf::from(std::env::var_os("KANAME_EXE").expect("KANAME_EXE under Wine")), unix.join("kaname.exe"))
        } else {
            (PathBuf::from(env!("CARGO_BIN_EXE_kaname")), unix.join("kaname"))
        };
        std::fs::copy(from, &exe).unwrap();
        Folder { unix, engine, exe, top }
    }

    /// `rel` (written with `/`) inside the folder, as the engine is told it.
    fn engine_path(&self, rel: &str) -> String {
        format!("{}{}{}", self.engine, sep(), rel.replace('/', sep()))
    }

    /// The copied binary started in `cwd` (a GUI starts it in its own folder).
    fn spawn_in(&self, cwd: &Path) -> Engine {
        let mut cmd = if under_wine() {
            let mut c = kaname();
            c.env("KANAME_EXE", &self.exe);
            c
        } else {
            Command::new(&self.exe)
        };
        cmd.current_dir(cwd);
        Engine::spawn_command(cmd)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.top);
    }
}

/// Sends `isready` and returns the `info string` lines it printed.
fn ready_infos(e: &mut Engine) -> Vec<String> {
    send_crlf(e, "isready");
    let (_, lines) = e.expect("readyok", LIVE);
    lines.into_iter().filter(|l| l.starts_with("info string")).collect()
}

/// The tiny book was read (its summary) and nothing was reported wrong.
fn book_read(infos: &[String], what: &str) {
    assert!(infos.iter().any(|l| l.contains("book '") && l.contains("4 positions")), "{what}: {infos:?}");
    assert!(infos.iter().all(|l| !l.contains("error")), "{what}: {infos:?}");
}

/// A GUI's game and analysis session, every line ending in CRLF: options, `isready`, a move
/// on a byoyomi clock, pondering with `ponderhit` and with `stop` (a miss), analysis with
/// `go infinite` at `MultiPV` 3 until `stop`, `go mate`, `gameover`, and the end of input
/// (the GUI closing the pipe), on which the engine exits cleanly.
#[test]
fn a_gui_session_in_crlf_lines_to_the_end_of_input() {
    let mut e = Engine::spawn();
    send_crlf(&mut e, "usi");
    e.expect("usiok", LIVE);
    for (name, value) in [("USI_Hash", "64"), ("USI_Ponder", "true"), ("Threads", "2"), ("NetworkDelay2", "300")] {
        send_crlf(&mut e, &format!("setoption name {name} value {value}"));
    }
    assert!(ready_infos(&mut e).iter().all(|l| !l.contains("error")));
    send_crlf(&mut e, "usinewgame");
    send_crlf(&mut e, "position startpos moves 7g7f");
    send_crlf(&mut e, "go btime 0 wtime 0 byoyomi 1000");
    let best = e.expect_bestmove(LIVE);
    let t: Vec<&str> = best.split_whitespace().collect();
    assert_eq!(t.len(), 4, "a ponder move with USI_Ponder: {best}");
    // Ponder on the expected reply, then the opponent plays it.
    let line = format!("position startpos moves 7g7f {} {}", t[1], t[3]);
    send_crlf(&mut e, &line);
    send_crlf(&mut e, "go ponder btime 0 wtime 0 byoyomi 1000");
    assert!(e.collect_for(Duration::from_millis(300)).iter().all(|l| !l.starts_with("bestmove")));
    send_crlf(&mut e, "ponderhit");
    e.expect_bestmove(LIVE);
    // A ponder miss: stop, then the real move.
    send_crlf(&mut e, "go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(200));
    send_crlf(&mut e, "stop");
    e.expect_bestmove(LIVE);
    // Analysis (ShogiGUI's 検討): three lines until stop.
    send_crlf(&mut e, "setoption name MultiPV value 3");
    send_crlf(&mut e, "position startpos moves 2g2f 8c8d");
    send_crlf(&mut e, "go infinite");
    let lines = e.read_until(|l| l.contains(" multipv 3 "), LIVE);
    assert!(lines.iter().any(|l| l.contains(" multipv 3 ")), "{lines:?}");
    std::thread::sleep(Duration::from_millis(200));
    send_crlf(&mut e, "stop");
    e.expect_bestmove(LIVE);
    send_crlf(&mut e, "setoption name MultiPV value 1");
    // Tsume: mate in 3 (tests/data/tsume.txt, playout:14926).
    send_crlf(&mut e, "position sfen sb3p3/1s1PR3+P/g2G+N1k1+L/p1+P6/4P4/P1N2nG1L/2+b5P/+s5P2/g4N1KS b RL7P2p 220");
    send_crlf(&mut e, "go mate 10000");
    let (answer, _) = e.expect("checkmate", LIVE);
    assert_eq!(answer.split_whitespace().count(), 4, "three plies: {answer}");
    send_crlf(&mut e, "gameover win");
    e.close_stdin();
    let status = e.wait_exit(LIVE);
    assert!(status.success(), "{status:?}\n{}", e.transcript());
    e.check_protocol();
}

fn nodes_per_position(o: &Output) -> Vec<u64> {
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}\n{}", String::from_utf8_lossy(&o.stderr));
    text.lines()
        .filter_map(|l| l.split("Nodes searched: ").nth(1))
        .map(|n| n.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// `bench` is the search's signature: the binary under test counts the same nodes as the
/// Linux build, position by position. Under Wine, once more with AVX2 and AVX-VNNI reported
/// absent (`RUST_STD_DETECT_UNSTABLE`, std's own switch, built into kaname.exe by
/// scripts/build_windows.sh): the net's portable code, what a CPU without AVX2 runs, again
/// with the same nodes.
#[test]
fn bench_counts_the_nodes_of_the_linux_build() {
    let linux = nodes_per_position(&Command::new(env!("CARGO_BIN_EXE_kaname")).arg("bench").output().unwrap());
    assert_eq!(linux.len(), 11, "ten positions and the total: {linux:?}");
    let o = kaname().arg("bench").output().unwrap();
    assert_eq!(nodes_per_position(&o), linux);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let simd = if std::is_x86_feature_detected!("avx2") { "on AVX2" } else { "on portable" };
    assert!(text.lines().any(|l| l.starts_with("bench: eval net ") && l.contains(simd)), "{text}");
    if !under_wine() {
        return; // The Linux build assumes AVX2 (x86-64-v3): it has no portable path to force.
    }
    // The Windows build's own tables: VirtualAlloc's pages, not Linux's advice.
    assert!(text.contains("tables in ordinary pages") || text.contains("tables in large pages"), "{text}");
    let o = kaname().arg("bench").env("RUST_STD_DETECT_UNSTABLE", "avx2 avxvnni").output().unwrap();
    assert_eq!(nodes_per_position(&o), linux, "the portable path");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.lines().any(|l| l.starts_with("bench: eval net ") && l.contains("on portable")), "{text}");
}

/// The engine in its own folder, started there as ShogiGUI and Shogidokoro start it: a
/// relative `BookFile` (`book\定跡 1.db`) and `EvalFile` (`eval\nn 1.bin`) are found from the
/// working directory; the same files by absolute paths (`C:\将棋 エンジン ...\book\定跡 1.db`),
/// with `/` instead of `\`, in Shift_JIS bytes, through `BookDir`, and under Wine by the Unix
/// path's drive (`Z:\`).
/// The net is the one read: `bench` in the session names its YaneuraOu shape.
#[test]
fn book_and_net_by_windows_paths_from_the_engines_folder() {
    let f = Folder::new("paths");
    let mut e = f.spawn_in(&f.unix);
    e.human_output = true;
    send_crlf(&mut e, "usi");
    e.expect("usiok", LIVE);
    send_crlf(&mut e, "setoption name USI_Hash value 16");
    send_crlf(&mut e, &format!("setoption name BookFile value book{}定跡 1.db", sep()));
    send_crlf(&mut e, &format!("setoption name EvalFile value eval{}nn 1.bin", sep()));
    send_crlf(&mut e, "setoption name BookEvalDiff value 0"); // the best book move only: 7g7f
    book_read(&ready_infos(&mut e), "relative to the working directory");
    send_crlf(&mut e, "position startpos");
    send_crlf(&mut e, "go btime 0 wtime 0 byoyomi 10000");
    let (best, lines) = e.expect("bestmove", LIVE);
    assert_eq!(best, "bestmove 7g7f ponder 3c3d", "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string book ")), "{lines:?}");
    send_crlf(&mut e, "bench 1");
    let (_, lines) = e.expect("Nodes/second:", LIVE);
    assert!(
        lines.iter().any(|l| l.starts_with("bench: eval net halfkp_256x2-32-32 ")),
        "the net of EvalFile: {lines:?}"
    );

    let mut absolute = vec![f.engine_path("book/定跡 1.db")];
    if under_wine() {
        absolute.push(f.engine_path("book/定跡 1.db").replace('\\', "/"));
        absolute.push(format!("Z:{}", f.unix.join("book/定跡 1.db").to_str().unwrap().replace('/', "\\")));
    }
    for path in absolute {
        send_crlf(&mut e, "setoption name BookFile value none.db");
        assert!(ready_infos(&mut e).iter().any(|l| l.contains("error")), "a missing book is reported");
        send_crlf(&mut e, &format!("setoption name BookFile value {path}"));
        book_read(&ready_infos(&mut e), &path);
    }
    // The path in Shift_JIS bytes, as a GUI on Japanese Windows writing in the system's code
    // page sends it.
    send_crlf(&mut e, "setoption name BookFile value none.db");
    assert!(ready_infos(&mut e).iter().any(|l| l.contains("error")));
    let line = format!("setoption name BookFile value {}\r\n", f.engine_path("book/定跡 1.db"));
    let (sjis, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&line);
    assert!(!unmappable && std::str::from_utf8(&sjis).is_err());
    e.send_raw(&sjis);
    book_read(&ready_infos(&mut e), "a path in Shift_JIS");
    send_crlf(&mut e, &format!("setoption name BookDir value {}", f.engine_path("book")));
    send_crlf(&mut e, "setoption name BookFile value 定跡 1.db");
    book_read(&ready_infos(&mut e), "BookDir");
    send_crlf(&mut e, &format!("setoption name EvalFile value {}", f.engine_path("eval/nn 1.bin")));
    assert!(ready_infos(&mut e).iter().all(|l| !l.contains("error")));
    e.finish();
}

/// ShogiGUI and Shogidokoro start the engine in its folder; started anywhere else, a relative
/// `BookFile` or `EvalFile` not found from the working directory is looked for in the
/// executable's folder (`options::locate`). The net is the one read: `bench` names its shape.
#[test]
fn a_relative_book_and_net_are_found_beside_the_executable_from_elsewhere() {
    let f = Folder::new("exe-folder");
    let elsewhere = f.top.clone();
    let mut e = f.spawn_in(&elsewhere);
    send_crlf(&mut e, "usi");
    e.expect("usiok", LIVE);
    send_crlf(&mut e, &format!("setoption name BookFile value book{}定跡 1.db", sep()));
    send_crlf(&mut e, &format!("setoption name EvalFile value eval{}nn 1.bin", sep()));
    book_read(&ready_infos(&mut e), "beside the executable");
    e.human_output = true;
    send_crlf(&mut e, "bench 1");
    let (_, lines) = e.expect("Nodes/second:", LIVE);
    assert!(
        lines.iter().any(|l| l.starts_with("bench: eval net halfkp_256x2-32-32 ")),
        "the net of EvalFile: {lines:?}"
    );
    e.finish();
}

/// `kaname analyse` of a Shift_JIS KIF whose name has spaces and Japanese: by its absolute
/// path (under Wine a `C:\` path, which reaches the program as a UTF-16 command line) and by
/// its bare name in its folder; the report and the annotated Shift_JIS copy land beside it.
#[test]
fn analyse_a_shift_jis_kif_with_a_japanese_name() {
    let f = Folder::new("analyse");
    let kif = f.unix.join("対局 一.kif");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/records/game_sjis.kif"), &kif).unwrap();
    let budget = ["--nodes", "1500", "--threads", "1", "--hash", "4", "--no-progress"];
    for record in [f.engine_path("対局 一.kif"), "対局 一.kif".to_string()] {
        let mut cmd = kaname();
        let o = cmd.current_dir(&f.unix).arg("analyse").arg(&record).args(budget).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{record}: {err}");
        let summary = String::from_utf8(o.stdout).unwrap();
        assert!(summary.contains("written: "), "{summary}");
        let report = std::fs::read_to_string(f.unix.join("対局 一.analysis.json")).unwrap();
        let report: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["plies"].as_array().unwrap().len(), 12, "{record}");
        let copy = std::fs::read(f.unix.join("対局 一.analysis.kif")).unwrap();
        let (copy, _, bad) = encoding_rs::SHIFT_JIS.decode(&copy);
        assert!(!bad && copy.contains("*Kaname 評価値"), "{record}: a Shift_JIS copy with the values");
        assert!(f.unix.join("対局 一.analysis.svg").exists());
        for out in ["json", "kif", "svg"] {
            std::fs::remove_file(f.unix.join(format!("対局 一.analysis.{out}"))).unwrap();
        }
    }
}

/// A book of more than 8 MB, sorted by SFEN, is not read but looked up on disk (bisected by
/// seeks): from a folder with Japanese in its name, in CRLF lines as a Windows tool writes them.
#[test]
fn a_book_over_8_mb_is_looked_up_on_disk() {
    let f = Folder::new("big-book");
    let mut positions: Vec<(String, String, String)> = Vec::new();
    let mut pos = engine::Position::startpos();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while positions.len() < 100_000 {
        let mut legal = engine::MoveList::new();
        engine::generate_legal(&pos, &mut legal);
        if legal.is_empty() || pos.game_ply() > 80 {
            pos = engine::Position::startpos();
            continue;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = legal.as_slice()[(x % legal.len() as u64) as usize];
        let sfen = pos.to_sfen();
        let key = sfen.rsplit_once(' ').unwrap().0.to_string();
        positions.push((key, sfen, m.to_string()));
        pos.do_move(m);
    }
    positions.sort();
    positions.dedup_by(|a, b| a.0 == b.0);
    let mut text = String::from("#YANEURAOU-DB2016 1.00\r\n");
    for (i, (_, sfen, m)) in positions.iter().enumerate() {
        text.push_str(&format!("sfen {sfen}\r\n{m} none {} 20 1\r\n", i % 100));
    }
    assert!(text.len() > 9 << 20, "{} bytes", text.len());
    std::fs::write(f.unix.join("book/大きい定跡.db"), &text).unwrap();

    let mut e = f.spawn_in(&f.unix);
    send_crlf(&mut e, "usi");
    e.expect("usiok", LIVE);
    send_crlf(&mut e, &format!("setoption name BookFile value {}", f.engine_path("book/大きい定跡.db")));
    send_crlf(&mut e, "setoption name BookMoves value 1000");
    let infos = ready_infos(&mut e);
    assert!(infos.iter().any(|l| l.contains("sorted by SFEN, looked up on disk")), "{infos:?}");
    for (_, sfen, m) in positions.iter().step_by(positions.len() / 7) {
        send_crlf(&mut e, &format!("position sfen {sfen}"));
        send_crlf(&mut e, "go btime 0 wtime 0 byoyomi 10000");
        let (best, lines) = e.expect("bestmove", LIVE);
        assert!(lines.iter().any(|l| l.starts_with("info string book ")), "{sfen}: {lines:?}");
        assert_eq!(best.split_whitespace().nth(1), Some(m.as_str()), "{sfen}");
    }
    e.finish();
}
