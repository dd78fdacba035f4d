//! The stdin reader: bytes in, one line at a time out, whatever the GUI or a person sends
//! (any bytes, `\r\n` or `\n`, lines of any length, end of input anywhere).

use std::io::BufRead;

/// Longest line kept; the rest of a longer line is discarded and the line reported.
pub const MAX_LINE: usize = 16 << 20;

/// Reads stdin as bytes on its own thread and hands each line to `on_line`, then `None` at
/// the end of input (or a read error); `on_line` returns `false` when nobody listens any more.
pub fn spawn(mut on_line: impl FnMut(Option<String>) -> bool + Send + 'static) {
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut r = stdin.lock();
            loop {
                match read_line(&mut r, MAX_LINE) {
                    Ok(Some(line)) => {
                        if !on_line(Some(line)) {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        log::error!("reading stdin: {e}");
                        break;
                    }
                }
            }
            on_line(None);
        })
        .expect("spawning the stdin thread");
}

/// One line as lossy UTF-8 without `\n`/`\r\n`; `None` at end of input. Bytes past `max` are
/// dropped and the line gets a marker the session reports.
pub fn read_line(r: &mut impl BufRead, max: usize) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    let mut dropped = 0usize;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (chunk, used, end) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], i + 1, true),
            None => (avail, avail.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        let take = room.min(chunk.len());
        buf.extend_from_slice(&chunk[..take]);
        dropped += chunk.len() - take;
        r.consume(used);
        if end {
            break;
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let mut s = String::from_utf8_lossy(&buf).into_owned();
    if dropped > 0 {
        s = format!("{TOO_LONG} {dropped}");
    }
    Ok(Some(s))
}

/// What a line too long to keep becomes (followed by the number of bytes dropped): the session
/// reports it instead of reading it.
pub const TOO_LONG: &str = "\u{0}line-too-long";

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_are_split_and_cleaned() {
        let mut r = Cursor::new(b"usi\r\nis\xffready\n\nlast".to_vec());
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "usi");
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "is\u{fffd}ready");
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "");
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "last");
        assert_eq!(read_line(&mut r, 100).unwrap(), None);
        let mut r = Cursor::new(b"0123456789\nok\n".to_vec());
        let l = read_line(&mut r, 4).unwrap().unwrap();
        assert!(l.starts_with(TOO_LONG) && l.ends_with(" 6"), "{l:?}");
        assert_eq!(read_line(&mut r, 4).unwrap().unwrap(), "ok");
    }
}
