//! The stdin reader: bytes in, one line at a time out, whatever the GUI or a person sends
//! (any bytes, `\r\n` or `\n`, lines of any length, end of input anywhere). A line is UTF-8,
//! or else Shift_JIS when it reads as that without a fault (`decode`).

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

/// One line (`decode`d) without `\n`/`\r\n`; `None` at end of input. Bytes past `max` are
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
    let mut s = decode(buf);
    if dropped > 0 {
        s = format!("{TOO_LONG} {dropped}");
    }
    Ok(Some(s))
}

/// A line's text: UTF-8; a line that is not, Shift_JIS (Windows' code page 932) when it is
/// that without a fault, as a GUI on Japanese Windows writes an option's value in the system's
/// code page (`setoption name BookFile value C:\将棋\定跡.db`); anything else lossy UTF-8.
pub fn decode(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| {
        let bytes = e.into_bytes();
        match encoding_rs::SHIFT_JIS.decode_without_bom_handling_and_without_replacement(&bytes) {
            Some(text) => text.into_owned(),
            None => String::from_utf8_lossy(&bytes).into_owned(),
        }
    })
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

    #[test]
    fn a_line_in_shift_jis_is_read_as_such() {
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("setoption name BookFile value C:\\将棋 表ソ\\定跡.db");
        let mut bytes = sjis.into_owned();
        // 表 and ソ end in 0x5C, the byte of '\': they stay characters, not separators.
        assert!(bytes.windows(2).any(|w| w == [0x95, 0x5c]));
        bytes.extend_from_slice(b"\r\nok \xe5\xb0\x86\n\x82\xa0\xff\n");
        let mut r = Cursor::new(bytes);
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "setoption name BookFile value C:\\将棋 表ソ\\定跡.db");
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "ok 将", "UTF-8 first");
        assert_eq!(read_line(&mut r, 100).unwrap().unwrap(), "\u{fffd}\u{fffd}\u{fffd}", "neither: lossy UTF-8");
    }
}
