//! Diagnostics in a USI session: the `log` records (`RUST_LOG`) and panic messages.
//!
//! GUIs never read an engine's stderr: ShogiHome spawns it with a stderr pipe and attaches no
//! reader (`src/background/usi/process.ts`), and a pipe nobody reads fills (64 KiB on Linux,
//! 4 KiB for a default Windows pipe) and then blocks the next write for good, freezing the
//! engine in the middle of a game. So in a session nothing writes to stderr without bound, at
//! any `RUST_LOG` level: stderr gets at most `STDERR_BUDGET` bytes over the whole session
//! (less than the smallest pipe buffer), then one line saying the rest is dropped; every record
//! also goes, whole and without bound, to the `UsiLog` file when one is set, as a line
//! `<time> ! <LEVEL> <module>: <message>` among the USI lines.

use std::fs::File;
use std::io::{self, Write};
use std::sync::Mutex;

/// Bytes a session writes to stderr at most: below a default Windows pipe's 4 KiB, so a
/// pipe nobody reads never fills.
pub const STDERR_BUDGET: usize = 3000;

/// The line that ends stderr's share.
const SUPPRESSED: &str = "kaname: further diagnostics are not written to stderr (set UsiLog to keep them)\n";

struct Sinks {
    /// Bytes stderr may still take.
    stderr_left: usize,
    /// `SUPPRESSED` was written.
    noted: bool,
    /// The `UsiLog` file (a handle of its own, appending).
    log: Option<File>,
}

static SINKS: Mutex<Sinks> = Mutex::new(Sinks { stderr_left: STDERR_BUDGET, noted: false, log: None });

fn sinks() -> std::sync::MutexGuard<'static, Sinks> {
    SINKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `UsiLog` file records go to as well (`None`: none).
pub fn set_log_file(file: Option<File>) {
    sinks().log = file;
}

/// Writes one diagnostic record (a whole line): to the `UsiLog` file if set, and to stderr
/// while the budget lasts.
pub fn write_record(text: &[u8]) {
    sinks().record(text, &mut io::stderr());
}

impl Sinks {
    fn record(&mut self, text: &[u8], stderr: &mut dyn Write) {
        if let Some(f) = &mut self.log {
            let _ = f.write_all(text);
        }
        if text.len() <= self.stderr_left {
            self.stderr_left -= text.len();
            let _ = stderr.write_all(text);
        } else if !self.noted {
            self.noted = true;
            self.stderr_left = 0;
            let _ = stderr.write_all(SUPPRESSED.as_bytes());
        }
    }
}

/// The writer `env_logger` formats records into (one write per record).
struct Records;

impl Write for Records {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_record(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A session's logging: `RUST_LOG` (default `warn`) through `write_record`, and panic messages
/// the same way (the session catches a panic per command: each one must not reach stderr
/// unbounded either).
pub fn init_session() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|buf, record| {
            writeln!(
                buf,
                "{} ! {} {}: {}",
                crate::protocol::output::timestamp(),
                record.level(),
                record.target(),
                record.args()
            )
        })
        .target(env_logger::Target::Pipe(Box::new(Records)))
        .init();
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let text = format!(
            "{} ! PANIC thread '{}' panicked at {info}\n",
            crate::protocol::output::timestamp(),
            thread.name().unwrap_or("<unnamed>")
        );
        write_record(text.as_bytes());
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_takes_the_budget_then_one_line_and_the_log_file_everything() {
        let dir = std::env::temp_dir().join(format!("kaname-diag-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("usi.log");
        let mut s = Sinks { stderr_left: STDERR_BUDGET, noted: false, log: Some(File::create(&path).unwrap()) };
        let mut stderr = Vec::new();
        let mut line = vec![b'x'; 99];
        line.push(b'\n');
        for _ in 0..1000 {
            s.record(&line, &mut stderr);
        }
        assert_eq!(stderr.len(), STDERR_BUDGET / 100 * 100 + SUPPRESSED.len());
        assert!(stderr.ends_with(SUPPRESSED.as_bytes()));
        assert!(stderr.len() < 4096, "a default Windows pipe holds it");
        assert_eq!(std::fs::read(&path).unwrap().len(), 100_000, "the UsiLog file has every record");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
