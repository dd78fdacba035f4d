//! A USI session with the built `kaname` binary over pipes, for end-to-end tests.
//!
//! Liveness waits are generous (a loaded 2-core machine must not make the tests flaky); the
//! protocol checks are strict: every `bestmove` is legal in the position the test sent, every
//! `go` gets exactly one `bestmove` (one `checkmate` for `go mate`), and every stdout line
//! starts with a USI keyword.

#![allow(dead_code)]

use crossbeam_channel::{Receiver, RecvTimeoutError};
use engine::Position;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous bound for anything that must merely happen.
pub const LIVE: Duration = Duration::from_secs(20);

/// The first words stdout lines may start with (the empty line is the `isready` keep-alive).
pub const USI_KEYWORDS: &[&str] =
    &["id", "option", "usiok", "readyok", "info", "bestmove", "checkmate", "usi_tunablesok"];

/// The binary under test: `KANAME_TEST_BIN` when it is set (a command; `scripts/wine_kaname.sh`
/// runs `kaname.exe` under Wine, see `scripts/test_windows.sh`), else the `kaname` cargo built.
pub fn kaname_bin() -> std::ffi::OsString {
    std::env::var_os("KANAME_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_kaname").into())
}

/// A command running the binary under test (`kaname_bin`).
pub fn kaname() -> Command {
    Command::new(kaname_bin())
}

/// Whether the binary under test is `kaname.exe` under Wine (`KANAME_TEST_WINE=1`, set by
/// `scripts/test_windows.sh`): the few tests that need Linux itself say so and pass.
pub fn under_wine() -> bool {
    std::env::var_os("KANAME_TEST_WINE").is_some_and(|v| v == "1")
}

/// Under Wine, notes on stderr that the test `name` checks Linux only (`why`) and returns true.
pub fn linux_only(name: &str, why: &str) -> bool {
    if under_wine() {
        eprintln!("{name}: not run under Wine: {why}");
    }
    under_wine()
}

/// `wait`, or four times it under Wine, where every write to a pipe goes through the Wine
/// server: the 176,000 `info` lines of a depth-1 search at `MultiPV` 600 take 13 s there and
/// under a second on Linux.
pub fn patience(wait: Duration) -> Duration {
    if under_wine() {
        wait * 4
    } else {
        wait
    }
}

/// `text` with Windows' path separators as `/`: a path the engine joined on Windows
/// (`dir\file`) compares with the test's (`dir/file`).
pub fn slashes(text: &str) -> String {
    text.replace('\\', "/")
}

/// A running engine.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Option<String>>,
    stderr: Arc<Mutex<String>>,
    /// stderr as a pipe nobody reads (`spawn_with_stderr_unread`), as GUIs leave it.
    unread_stderr: Option<ChildStderr>,
    /// Every stdout line so far.
    pub lines: Vec<String>,
    /// Every line sent.
    pub sent: Vec<String>,
    /// Lines read and not yet consumed by a wait.
    cursor: usize,
    eof: bool,
    /// The position the test believes the engine has (for legality checks).
    pub pos: Position,
    /// Allow non-USI stdout lines (after `d`, `perft`, `help` ...).
    pub human_output: bool,
    /// The `EnteringKingRule` a `bestmove win` is checked under.
    pub entering_king_rule: engine::EnteringKingRule,
    /// The game `USI_Variant` selected (followed by `send`).
    pub variant: engine::VariantId,
}

/// `position ...` arguments applied the way the protocol defines them (`resign`/`win` end the
/// list, `pass`/`0000`/`null` are null moves), panicking on anything the test did not mean.
pub fn position_from_command(cmd: &str) -> Position {
    position_from_command_in(cmd, engine::VariantId::Shogi)
}

/// `position_from_command` in the game `variant`.
pub fn position_from_command_in(cmd: &str, variant: engine::VariantId) -> Position {
    let t: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(t[0], "position");
    let moves_at = t.iter().position(|x| *x == "moves").unwrap_or(t.len());
    let mut pos = match t[1] {
        "startpos" => Position::startpos_in(variant),
        "sfen" => Position::from_sfen_in(variant, &t[2..moves_at].join(" ")).expect("test SFEN"),
        _ => Position::from_sfen_in(variant, &t[1..moves_at].join(" ")).expect("test SFEN"),
    };
    for m in t.iter().skip(moves_at + 1) {
        match *m {
            "resign" | "win" => break,
            "pass" | "0000" | "null" => pos.do_null_move(),
            _ => {
                let mv = pos.parse_usi_move(m).expect("test move");
                pos.do_move(mv);
            }
        }
    }
    pos
}

impl Engine {
    /// Starts the binary with a USI session on pipes.
    pub fn spawn() -> Engine {
        Engine::spawn_with_args(&[])
    }

    /// Starts the binary with arguments.
    pub fn spawn_with_args(args: &[&str]) -> Engine {
        Engine::spawn_in(None, args)
    }

    /// Starts the binary with arguments in the working directory `dir` (where relative paths
    /// the session opens, such as a `UsiLog` file, land).
    pub fn spawn_in(dir: Option<&std::path::Path>, args: &[&str]) -> Engine {
        let mut cmd = kaname();
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        cmd.args(args);
        Engine::spawn_command(cmd)
    }

    /// Starts the binary with its address space limited to `mib` MiB (`ulimit -v`): a machine
    /// that cannot map more, whatever the memory of the machine the test runs on.
    pub fn spawn_with_address_space(mib: u64) -> Engine {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!("ulimit -v {} && exec \"$0\"", mib * 1024)).arg(kaname_bin());
        Engine::spawn_command(cmd)
    }

    /// Starts the binary with environment variables `env` and stderr a pipe nobody reads
    /// while it runs, as GUIs leave it (ShogiHome attaches no reader): a write that fills it
    /// blocks the engine. `unread_stderr` reads it once the process has ended.
    pub fn spawn_with_stderr_unread(env: &[(&str, &str)]) -> Engine {
        let mut cmd = kaname();
        cmd.envs(env.iter().copied());
        Engine::spawn_command_with(cmd, false)
    }

    /// What the process wrote to a stderr nobody read (`spawn_with_stderr_unread`): read to
    /// its end, so call it after the process has ended.
    pub fn unread_stderr(&mut self) -> Vec<u8> {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = self.unread_stderr.take() {
            pipe.read_to_end(&mut bytes).expect("reading stderr");
        }
        bytes
    }

    /// Starts `cmd` (the binary under test, set up by the caller) with a USI session on pipes.
    pub fn spawn_command(cmd: Command) -> Engine {
        Engine::spawn_command_with(cmd, true)
    }

    fn spawn_command_with(mut cmd: Command, read_stderr: bool) -> Engine {
        let mut child =
            cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawning kaname");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(None);
                        return;
                    }
                    Ok(_) => {
                        assert!(buf.ends_with(b"\n"), "stdout line without newline");
                        buf.pop();
                        let s = String::from_utf8(buf).expect("stdout is UTF-8 (ASCII)");
                        if tx.send(Some(s)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().unwrap();
        let unread_stderr = if read_stderr {
            let err_store = stderr.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err_pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    err_store.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
            None
        } else {
            Some(err_pipe)
        };
        Engine {
            unread_stderr,
            stdin: child.stdin.take(),
            child,
            rx,
            stderr,
            lines: Vec::new(),
            sent: Vec::new(),
            cursor: 0,
            eof: false,
            pos: Position::startpos(),
            human_output: false,
            entering_king_rule: engine::EnteringKingRule::Csa27,
            variant: engine::VariantId::Shogi,
        }
    }

    /// The whole conversation so far, for failure messages.
    pub fn transcript(&self) -> String {
        let mut s = String::from("--- sent:\n");
        for l in &self.sent {
            s.push_str(&format!("> {}\n", l.chars().take(200).collect::<String>()));
        }
        s.push_str("--- received:\n");
        for l in &self.lines {
            s.push_str(&format!("< {}\n", l.chars().take(200).collect::<String>()));
        }
        s.push_str("--- stderr:\n");
        s.push_str(&self.stderr.lock().unwrap());
        s
    }

    /// Sends one line (a `position` line also updates the test's idea of the position).
    pub fn send(&mut self, line: &str) {
        if line.starts_with("position") {
            self.pos = position_from_command_in(line, self.variant);
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if let ["setoption", "name", name, "value", value] = t[..] {
            if name.eq_ignore_ascii_case("USI_Variant") || name.eq_ignore_ascii_case("UCI_Variant") {
                self.variant = value.parse().unwrap_or_default();
                self.pos = Position::startpos_in(self.variant);
            }
        }
        self.send_raw(format!("{line}\n").as_bytes());
        self.sent.push(line.to_string());
    }

    /// Sends bytes as they are (no newline added; not recorded as a command).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("writing to the engine");
        stdin.flush().unwrap();
    }

    /// Sends bytes as they are, returning the error (a closed pipe) instead of panicking.
    pub fn try_send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(bytes).and_then(|_| stdin.flush()),
            None => Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed")),
        }
    }

    /// The next stdout line not yet consumed by a wait, waiting up to `timeout` for one;
    /// `None` on timeout or at the end of output.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        if self.cursor == self.lines.len() && !self.pull(timeout) {
            return None;
        }
        self.cursor += 1;
        Some(self.lines[self.cursor - 1].clone())
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether stdout has ended (the process closed it or exited).
    pub fn stdout_ended(&self) -> bool {
        self.eof
    }

    /// The exit status, if the process has ended.
    pub fn try_exit(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// Everything the process wrote to stderr so far.
    pub fn stderr_text(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Records a command sent with `send_raw` (for the bestmove count).
    pub fn record_sent(&mut self, line: &str) {
        self.sent.push(line.to_string());
    }

    /// Closes stdin (EOF for the engine).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn pull(&mut self, timeout: Duration) -> bool {
        if self.eof {
            return false;
        }
        match self.rx.recv_timeout(timeout) {
            Ok(Some(l)) => {
                self.lines.push(l);
                true
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
        }
    }

    /// Reads until a line satisfies `pred`; returns the lines read (the matching one last).
    /// Panics with the transcript on timeout.
    pub fn read_until(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        loop {
            while self.cursor < self.lines.len() {
                let i = self.cursor;
                self.cursor += 1;
                if pred(&self.lines[i]) {
                    return self.lines[..=i].to_vec();
                }
            }
            let now = Instant::now();
            if now >= deadline || self.eof {
                panic!("timed out after {timeout:?} waiting for a line\n{}", self.transcript());
            }
            self.pull(deadline - now);
        }
    }

    /// Reads until a line starting with `prefix` (as a whole word); returns that line and the
    /// lines read since the previous wait.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> (String, Vec<String>) {
        let start = self.cursor;
        let p = prefix.to_string();
        let all = self.read_until(move |l| l == p || l.starts_with(&format!("{p} ")), timeout);
        let last = all.last().unwrap().clone();
        (last, all[start..all.len() - 1].to_vec())
    }

    /// Everything that arrives during `dur` (consumed).
    pub fn collect_for(&mut self, dur: Duration) -> Vec<String> {
        let deadline = Instant::now() + dur;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            if !self.pull(left) && self.eof {
                break;
            }
        }
        let start = self.cursor;
        self.cursor = self.lines.len();
        self.lines[start..].to_vec()
    }

    /// Waits for `bestmove` and checks that its move (and ponder move) is legal in the test's
    /// position. Returns the line.
    pub fn expect_bestmove(&mut self, timeout: Duration) -> String {
        let (line, _) = self.expect("bestmove", timeout);
        self.check_bestmove(&line);
        line
    }

    /// Checks a `bestmove` line against the test's position.
    pub fn check_bestmove(&self, line: &str) {
        let t: Vec<&str> = line.split_whitespace().collect();
        assert!(t.len() == 2 || (t.len() == 4 && t[2] == "ponder"), "malformed: {line}");
        let mut legal = engine::MoveList::new();
        engine::generate_legal(&self.pos, &mut legal);
        match t[1] {
            "resign" => {
                assert!(legal.is_empty(), "resigned with legal moves in {}\n{}", self.pos.to_sfen(), self.transcript())
            }
            "win" => assert!(
                self.pos.declaration_win(self.entering_king_rule)
                    && self.entering_king_rule != engine::EnteringKingRule::Try,
                "bestmove win in {} under {:?}\n{}",
                self.pos.to_sfen(),
                self.entering_king_rule,
                self.transcript()
            ),
            m => {
                let mv = self.pos.parse_usi_move(m).unwrap_or_else(|e| {
                    panic!("illegal bestmove {m} in {}: {e}\n{}", self.pos.to_sfen(), self.transcript())
                });
                if t.len() == 4 {
                    let mut after = self.pos.clone();
                    after.do_move(mv);
                    after.parse_usi_move(t[3]).unwrap_or_else(|e| panic!("illegal ponder move in {line}: {e}"));
                }
            }
        }
    }

    /// Sends `go ...` and returns its `bestmove`, checked.
    pub fn go(&mut self, go: &str) -> String {
        self.send(go);
        self.expect_bestmove(LIVE)
    }

    /// Spawns, reads the `usi` answer, sets a small hash and waits for `readyok`.
    pub fn ready() -> Engine {
        let mut e = Engine::spawn();
        e.send("usi");
        e.expect("usiok", LIVE);
        e.send("setoption name USI_Hash value 16");
        e.sync();
        e
    }

    /// Sends `isready` and waits for `readyok`.
    pub fn sync(&mut self) {
        self.send("isready");
        self.expect("readyok", LIVE);
    }

    /// Waits for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the engine did not exit within {timeout:?}\n{}", self.transcript());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sends `quit`, waits for the exit, reads the rest of stdout and checks the protocol rules
    /// over the whole session. Returns all stdout lines.
    pub fn finish(mut self) -> Vec<String> {
        if self.stdin.is_some() {
            self.send("quit");
        }
        let st = self.wait_exit(LIVE);
        while self.pull(Duration::from_secs(5)) {}
        assert!(st.success(), "exit status {st:?}\n{}", self.transcript());
        self.check_protocol();
        self.lines.clone()
    }

    /// Every `go` answered by exactly one `bestmove` (`go mate`: one `checkmate`), stdout lines
    /// all USI, `info` lines with `pv` last and only ASCII.
    pub fn check_protocol(&self) {
        let gos = self.sent.iter().filter(|l| l.split_whitespace().next() == Some("go")).collect::<Vec<_>>();
        let mates = gos.iter().filter(|l| l.split_whitespace().any(|t| t == "mate")).count();
        let count = |k: &str| self.lines.iter().filter(|l| l.split_whitespace().next() == Some(k)).count();
        assert_eq!(count("bestmove"), gos.len() - mates, "bestmove count\n{}", self.transcript());
        assert_eq!(count("checkmate"), mates, "checkmate count\n{}", self.transcript());
        for l in &self.lines {
            assert!(l.is_ascii(), "non-ASCII output: {l:?}");
            let first = l.split_whitespace().next().unwrap_or("");
            if !self.human_output {
                assert!(
                    l.is_empty() || USI_KEYWORDS.contains(&first),
                    "non-USI stdout line {l:?}\n{}",
                    self.transcript()
                );
            }
            let t: Vec<&str> = l.split_whitespace().collect();
            if first == "info" && t.get(1) != Some(&"string") {
                if let Some(i) = t.iter().position(|x| *x == "pv") {
                    assert!(t[i + 1..].iter().all(|m| m.len() == 4 || m.len() == 5), "pv not last: {l}");
                }
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `info string error:` lines among `lines`.
pub fn errors(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.starts_with("info string error:")).collect()
}
