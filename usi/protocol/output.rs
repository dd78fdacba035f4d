//! stdout, which carries USI lines only: each line is written whole under a lock and flushed.
//! The optional `UsiLog` file receives every line in and out with a timestamp (and the
//! session's log records, through `diag`).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Printable ASCII only (anything else becomes `?`), at most `max` characters (`...` marks a
/// cut): how a word of the input, a file name or a message is echoed on a line.
pub fn ascii(text: &str, max: usize) -> String {
    let mut s: String = text.chars().take(max).map(|c| if (' '..='~').contains(&c) { c } else { '?' }).collect();
    if text.chars().nth(max).is_some() {
        s.push_str("...");
    }
    s
}

/// The shared writer of protocol lines (cheap to share in an `Arc`).
pub struct Output {
    inner: Mutex<Inner>,
}

struct Inner {
    out: Box<dyn Write + Send>,
    log: Option<(String, File)>,
    broken: bool,
}

impl Output {
    /// Writes to the process's stdout.
    pub fn stdout() -> Output {
        Output::new(Box::new(io::stdout()))
    }

    /// Writes to any sink.
    pub fn new(out: Box<dyn Write + Send>) -> Output {
        Output { inner: Mutex::new(Inner { out, log: None, broken: false }) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves nothing half-done worth refusing over.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line and flushes it.
    pub fn line(&self, text: &str) {
        let mut g = self.lock();
        let r = g.out.write_all(text.as_bytes()).and_then(|_| g.out.write_all(b"\n")).and_then(|_| g.out.flush());
        if let Err(e) = r {
            if !g.broken {
                log::error!("cannot write to stdout: {e}");
                g.broken = true;
            }
        }
        g.log_line('<', text);
    }

    /// Several lines written together (nothing else interleaves).
    pub fn lines<I: IntoIterator<Item = S>, S: AsRef<str>>(&self, lines: I) {
        for l in lines {
            self.line(l.as_ref());
        }
    }

    /// `info string <text>`, forced to printable ASCII.
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {}", ascii(text, 400)));
    }

    /// `info string error: <text>`: the one report of a problem with the input.
    pub fn error(&self, text: &str) {
        log::info!("input error: {text}");
        self.info_string(&format!("error: {text}"));
    }

    /// Records a line received from the GUI in the log file.
    pub fn log_input(&self, text: &str) {
        let mut g = self.lock();
        g.log_line('>', text);
    }

    /// Starts (or with an empty path, stops) logging to a file.
    pub fn set_log(&self, path: &str) -> io::Result<()> {
        let mut g = self.lock();
        if path.is_empty() {
            g.log = None;
            crate::protocol::diag::set_log_file(None);
            return Ok(());
        }
        if g.log.as_ref().is_some_and(|(p, _)| p == path) {
            return Ok(());
        }
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        // The session's log records go to the file too (a handle of their own).
        crate::protocol::diag::set_log_file(f.try_clone().ok());
        g.log = Some((path.to_string(), f));
        Ok(())
    }
}

impl Inner {
    fn log_line(&mut self, dir: char, text: &str) {
        if let Some((_, f)) = &mut self.log {
            let r = writeln!(f, "{} {dir} {text}", timestamp());
            if let Err(e) = r {
                log::error!("UsiLog: {e}; logging stopped");
                self.log = None;
            }
        }
    }
}

/// UTC wall-clock time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn timestamp() -> String {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn ascii_cleans_and_cuts() {
        assert_eq!(ascii("ab\u{3042}\tc", 10), "ab??c");
        assert_eq!(ascii("abcdef", 3), "abc...");
    }

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn info_string_is_ascii() {
        let b = Buf::default();
        let o = Output::new(Box::new(b.clone()));
        o.error("bad \u{3042} byte\r");
        let s = String::from_utf8(b.0.lock().unwrap().clone()).unwrap();
        assert_eq!(s, "info string error: bad ? byte?\n");
    }

    #[test]
    fn timestamp_shape() {
        let t = timestamp();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }
}
