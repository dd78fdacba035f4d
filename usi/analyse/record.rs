//! Game records for `kaname analyse`: KIF, KI2 and CSA read by the `rsshogi` crate (board
//! diagrams, handicaps, comments and variations as the formats define them), USI `position`
//! lines and bare SFENs read here. Text may be UTF-8, with or without a BOM, or Shift_JIS.
//!
//! A record with an illegal or unreadable move is not thrown away: the moves before it are
//! kept, and the problem (its line and ply) travels with them in [`Game::problem`].

use engine::{Move, Position};
use rsshogi::records::formats::{csa, kif};
use rsshogi::records::{MoveEntry, Record, SpecialMove};
use std::fmt;
use std::path::Path;

/// The record formats `kaname analyse` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Kakinoki's KIF: numbered moves with their source squares.
    Kif,
    /// KI2: Japanese moves without source squares, several to a line.
    Ki2,
    /// The CSA standard format (`+7776FU`).
    Csa,
    /// A USI `position` line, or a bare SFEN with optional `moves`.
    Usi,
}

impl Format {
    /// The lower-case name used in messages and in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Format::Kif => "kif",
            Format::Ki2 => "ki2",
            Format::Csa => "csa",
            Format::Usi => "usi",
        }
    }

    /// The format a file extension names, if any.
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext.to_ascii_lowercase().as_str() {
            "kif" | "kifu" => Some(Format::Kif),
            "ki2" | "ki2u" => Some(Format::Ki2),
            "csa" => Some(Format::Csa),
            "usi" | "sfen" => Some(Format::Usi),
            _ => None,
        }
    }
}

/// The text encodings records come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark.
    Utf8,
    /// UTF-8 that starts with a byte-order mark.
    Utf8Bom,
    /// Shift_JIS (what most KIF and CSA files on the web use).
    ShiftJis,
}

impl Encoding {
    /// The name used in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf8Bom => "utf-8-bom",
            Encoding::ShiftJis => "shift_jis",
        }
    }
}

/// Why a record could not be read, or where it stopped making sense.
#[derive(Debug)]
pub enum RecordError {
    /// The file could not be read.
    Io(std::io::Error),
    /// The bytes are neither UTF-8 nor Shift_JIS text (a binary file, say).
    NotText,
    /// The text is none of KIF, KI2, CSA or USI.
    UnknownFormat,
    /// The record's header or layout is broken; nothing of it can be used.
    Parse {
        /// The 1-based line, when it could be found.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A move that cannot be played (illegal, unreadable, or by the wrong side). The moves
    /// before it are usable.
    IllegalMove {
        /// The 1-based ply of the bad move.
        ply: usize,
        /// The 1-based line it is on, when known.
        line: Option<usize>,
        /// The move as written.
        text: String,
        /// Why it cannot be played.
        reason: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Io(e) => write!(f, "cannot read the file: {e}"),
            RecordError::NotText => write!(f, "not a text file (neither UTF-8 nor Shift_JIS)"),
            RecordError::UnknownFormat => {
                write!(f, "unknown record format (expected KIF, KI2, CSA, or a USI position line or SFEN)")
            }
            RecordError::Parse { line: Some(l), message } => write!(f, "line {l}: {message}"),
            RecordError::Parse { line: None, message } => write!(f, "{message}"),
            RecordError::IllegalMove { ply, line, text, reason } => {
                if let Some(l) = line {
                    write!(f, "line {l}: ")?;
                }
                write!(f, "ply {ply} '{text}': {reason}")
            }
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// A game record ready for analysis.
pub struct Game {
    /// The format it was read as.
    pub format: Format,
    /// The text encoding of the file.
    pub encoding: Encoding,
    /// The start position (standard, handicap or a board diagram).
    pub start: Position,
    /// The main line's moves, each legal after the ones before it.
    pub moves: Vec<Move>,
    /// The record as `rsshogi` holds it, main line cut to `moves`: the base of the annotated
    /// KIF/CSA copies (it keeps the header, comments and times of the original).
    pub record: Record,
    /// The player names, when the record gives them.
    pub players: [Option<String>; 2],
    /// How the game ended, when the record says (`resign`, `mate`, ...).
    pub result: Option<String>,
    /// The problem that cut the main line short (`RecordError::IllegalMove`).
    pub problem: Option<RecordError>,
}

/// Reads a record file: decodes it, detects the format (by content, the extension deciding
/// between formats the content fits equally) and parses it.
pub fn read_file(path: &Path) -> Result<Game, RecordError> {
    let bytes = std::fs::read(path).map_err(RecordError::Io)?;
    let (text, encoding) = decode(&bytes)?;
    let ext = path.extension().and_then(|e| e.to_str()).and_then(Format::from_extension);
    let format = detect(&text, ext)?;
    let mut game = parse(&text, format)?;
    game.encoding = encoding;
    Ok(game)
}

/// Decodes record bytes: UTF-8 (a BOM is dropped) when they are valid UTF-8, else Shift_JIS.
pub fn decode(bytes: &[u8]) -> Result<(String, Encoding), RecordError> {
    if bytes.contains(&0) {
        return Err(RecordError::NotText);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return std::str::from_utf8(rest).map(|s| (s.to_string(), Encoding::Utf8Bom)).map_err(|_| RecordError::NotText);
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok((s.to_string(), Encoding::Utf8));
    }
    let (text, had_errors) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(bytes);
    if had_errors {
        return Err(RecordError::NotText);
    }
    Ok((text.into_owned(), Encoding::ShiftJis))
}

/// The formats whose marks the text carries. A reader accepts almost any text as an empty
/// game, so a format is only used when its own marks are there.
fn plausible_formats(text: &str) -> Vec<Format> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut formats = Vec::new();
    if lines.iter().find(|l| !l.starts_with('#')).is_some_and(|l| looks_like_usi(l)) {
        formats.push(Format::Usi);
    }
    if lines.iter().any(|l| l.starts_with("手数----") || looks_like_kif_move(l)) {
        formats.push(Format::Kif);
    }
    if lines.iter().any(|l| l.starts_with(['▲', '△', '☗', '☖'])) {
        formats.push(Format::Ki2);
    }
    if lines.iter().any(|l| looks_like_csa(l)) {
        formats.push(Format::Csa);
    }
    // A header alone (`手合割：平手`, a board diagram) is a KIF or KI2 record without moves.
    if formats.is_empty() && lines.iter().any(|l| l.starts_with("手合割") || l.starts_with("+---")) {
        formats.extend([Format::Kif, Format::Ki2]);
    }
    formats
}

fn looks_like_usi(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    matches!(first, "position" | "startpos" | "sfen")
        || Position::from_sfen(
            &line.split(" moves").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "),
        )
        .is_ok()
}

/// `   12 ７六歩(77)   ( 0:01/00:00:01)`: a number, then a move or an ending word.
fn looks_like_kif_move(line: &str) -> bool {
    let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.len() < line.len() && rest.starts_with([' ', '\u{3000}'])
}

/// `PI`, `P1...`, a lone `+`/`-`, or a move such as `+7776FU`.
fn looks_like_csa(line: &str) -> bool {
    let b = line.as_bytes();
    let csa_move = b.len() >= 7
        && (b[0] == b'+' || b[0] == b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase);
    csa_move || line == "+" || line == "-" || line.starts_with("PI") || line.starts_with("P1") || line.starts_with("V2")
}

/// Picks the format: the one the text fits, the extension's when it fits several.
pub fn detect(text: &str, ext: Option<Format>) -> Result<Format, RecordError> {
    let formats = plausible_formats(text);
    match ext {
        Some(f) if formats.contains(&f) => Ok(f),
        _ => formats.first().copied().ok_or(RecordError::UnknownFormat),
    }
}

/// Parses a decoded record of a known format (the encoding is set to UTF-8; `read_file` sets
/// the real one).
pub fn parse(text: &str, format: Format) -> Result<Game, RecordError> {
    match format {
        Format::Usi => parse_usi(text),
        _ => parse_rsshogi(text, format),
    }
}

/// One of `rsshogi`'s readers; the error is split into whether it is about a move (the moves
/// before it are good) and its message.
fn rsshogi_parse(text: &str, format: Format) -> Result<Record, (bool, String)> {
    match format {
        Format::Kif => kif::parse_kif_str(text).map_err(|e| {
            (matches!(e, kif::KifError::IllegalMove { .. } | kif::KifError::InvalidMove(_)), e.to_string())
        }),
        Format::Ki2 => kif::parse_ki2_str(text).map_err(|e| {
            (matches!(e, kif::Ki2Error::IllegalMove { .. } | kif::Ki2Error::InvalidMove(_)), e.to_string())
        }),
        Format::Csa => csa::parse_csa_str(text).map_err(|e| {
            let about_move = matches!(
                e,
                csa::CsaError::IllegalMove { .. } | csa::CsaError::InvalidMove(_) | csa::CsaError::MoveSideMismatch(_)
            );
            (about_move, e.to_string())
        }),
        Format::Usi => unreachable!("USI records are read by parse_usi"),
    }
}

fn parse_rsshogi(text: &str, format: Format) -> Result<Game, RecordError> {
    let (about_move, message) = match rsshogi_parse(text, format) {
        Ok(record) => return from_record(record, format, None),
        Err(e) => e,
    };
    let lines: Vec<&str> = text.lines().collect();
    if !about_move {
        return Err(RecordError::Parse { line: find_line(&lines, &message), message: cut(&message, 200) });
    }
    let (record, line, token) = longest_good_prefix(&lines, format)
        .ok_or_else(|| RecordError::Parse { line: find_line(&lines, &message), message: cut(&message, 200) })?;
    let problem = RecordError::IllegalMove {
        ply: record.move_count() + 1,
        line: Some(line + 1),
        text: cut(token.trim(), 40),
        reason: move_reason(&message),
    };
    from_record(record, format, Some(problem))
}

/// The record made of the lines before the bad move (and, in KI2 and CSA, which put several
/// moves on a line, of the good moves on its line), with the bad line's index and the bad
/// move's text. Errors about moves come from the move list, so the header is whole in every
/// prefix tried; the longest prefix that reads is the one that stops just before the bad move.
fn longest_good_prefix(lines: &[&str], format: Format) -> Option<(Record, usize, String)> {
    let (good, record) =
        (0..lines.len()).rev().find_map(|k| rsshogi_parse(&lines[..k].join("\n"), format).ok().map(|r| (k, r)))?;
    let bad = lines.get(good)?;
    let tokens: Vec<&str> = match format {
        Format::Ki2 => bad.split_whitespace().collect(),
        Format::Csa => bad.split(',').collect(),
        // `   5 ５五飛(28)   ( 0:01/00:00:03)`: the move is the word after the number.
        _ => vec![bad.split_whitespace().find(|w| !w.chars().all(|c| c.is_ascii_digit())).unwrap_or(bad.trim())],
    };
    for j in (1..tokens.len()).rev() {
        let sep = if format == Format::Csa { "," } else { " " };
        let text = format!("{}\n{}", lines[..good].join("\n"), tokens[..j].join(sep));
        if let Ok(r) = rsshogi_parse(&text, format) {
            return Some((r, good, tokens[j].to_string()));
        }
    }
    Some((record, good, tokens[0].to_string()))
}

/// The 1-based line whose text an `rsshogi` message quotes (`invalid KIF line: <text>`).
fn find_line(lines: &[&str], message: &str) -> Option<usize> {
    let quoted = message.split_once(": ")?.1.trim();
    if quoted.is_empty() {
        return None;
    }
    lines.iter().position(|l| l.trim() == quoted || l.contains(quoted)).map(|i| i + 1)
}

/// At most `max` characters of `text` (`...` marks a cut); the record's own script is kept.
fn cut(text: &str, max: usize) -> String {
    let mut s: String = text.chars().take(max).collect();
    if text.chars().nth(max).is_some() {
        s.push_str("...");
    }
    s
}

/// Why a move of the record cannot be played, in words.
fn move_reason(message: &str) -> String {
    if message.contains("illegal move") {
        "illegal move".into()
    } else if message.contains("does not match the side") {
        "move by the side not to move".into()
    } else {
        "unreadable or impossible move".into()
    }
}

/// Builds the game from an `rsshogi` record, replaying its moves on Kaname's board.
fn from_record(mut record: Record, format: Format, problem: Option<RecordError>) -> Result<Game, RecordError> {
    let sfen = record.init_position_sfen().to_string();
    let start = Position::from_sfen(&sfen)
        .map_err(|e| RecordError::Parse { line: None, message: format!("start position '{sfen}': {e}") })?;
    let usi: Vec<String> = record.main_moves().map(|m| m.mv().to_usi()).collect();
    let (moves, mut problem) = match replay(&start, &usi) {
        Ok(moves) => (moves, problem),
        // Kaname's rules and rsshogi's disagree: trust the board the search will use.
        Err((moves, e)) => (moves, Some(e)),
    };
    if moves.len() < usi.len() {
        record = truncated(&record, &sfen, moves.len())?;
        problem = problem.or(Some(RecordError::Parse { line: None, message: "record cut short".into() }));
    }
    let meta = record.metadata();
    let players = [meta.black_player().map(str::to_string), meta.white_player().map(str::to_string)];
    let result = if problem.is_none() { record.main_terminal().map(|t| special_name(t.kind())) } else { None };
    Ok(Game { format, encoding: Encoding::Utf8, start, moves, record, players, result, problem })
}

/// Plays USI moves from `start`; on a move Kaname finds illegal, the moves before it and the
/// problem.
fn replay(start: &Position, usi: &[String]) -> Result<Vec<Move>, (Vec<Move>, RecordError)> {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(usi.len());
    for (i, text) in usi.iter().enumerate() {
        match pos.parse_usi_move(text) {
            Ok(m) => {
                pos.do_move(m);
                moves.push(m);
            }
            Err(e) => {
                let problem =
                    RecordError::IllegalMove { ply: i + 1, line: None, text: text.clone(), reason: e.to_string() };
                return Err((moves, problem));
            }
        }
    }
    Ok(moves)
}

/// A copy of `record` (header kept) whose main line is its first `n` moves.
fn truncated(record: &Record, sfen: &str, n: usize) -> Result<Record, RecordError> {
    let moves: Vec<MoveEntry> = record.main_moves().take(n).cloned().collect();
    let mut r = Record::from_main_line(sfen.to_string(), moves, None)
        .map_err(|e| RecordError::Parse { line: None, message: e.to_string() })?;
    r.set_metadata(record.metadata().clone());
    Ok(r)
}

/// The name of a record's ending, as the JSON output gives it.
fn special_name(kind: &SpecialMove) -> String {
    let name = match kind {
        SpecialMove::Interrupt => "interrupt",
        SpecialMove::Resign => "resign",
        SpecialMove::MaxMoves => "max_moves",
        SpecialMove::Impasse => "impasse",
        SpecialMove::Draw => "draw",
        SpecialMove::RepetitionDraw => "repetition_draw",
        SpecialMove::Mate => "mate",
        SpecialMove::NoMate => "no_mate",
        SpecialMove::Timeout => "timeout",
        SpecialMove::WinByIllegalMove => "win_by_illegal_move",
        SpecialMove::LoseByIllegalMove => "lose_by_illegal_move",
        SpecialMove::WinByDeclaration => "win_by_declaration",
        SpecialMove::WinByDefault => "win_by_default",
        SpecialMove::LoseByDefault => "lose_by_default",
        SpecialMove::Try => "try",
        SpecialMove::Unknown(s) => return s.clone(),
    };
    name.to_string()
}

/// Reads `position startpos|sfen <sfen> [moves ...]`, `startpos ...` or a bare SFEN with
/// optional `moves` (the first line that is not empty or a `#` comment). `resign` and `win`
/// end the move list.
fn parse_usi(text: &str) -> Result<Game, RecordError> {
    let (index, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .ok_or(RecordError::UnknownFormat)?;
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let tokens = tokens.strip_prefix(&["position"]).unwrap_or(&tokens);
    let moves_at = tokens.iter().position(|t| *t == "moves").unwrap_or(tokens.len());
    let head = &tokens[..moves_at];
    let parse_error = |message: String| RecordError::Parse { line: Some(index + 1), message };
    let start = match head {
        ["startpos"] => Position::startpos(),
        ["sfen", sfen @ ..] | sfen => {
            Position::from_sfen(&sfen.join(" ")).map_err(|e| parse_error(format!("bad SFEN: {e}")))?
        }
    };
    let mut pos = start.clone();
    let (mut moves, mut problem, mut result) = (Vec::new(), None, None);
    for (i, text) in tokens.iter().skip(moves_at + 1).enumerate() {
        if matches!(*text, "resign" | "win") {
            result = Some(if *text == "win" { "win_by_declaration" } else { "resign" }.to_string());
            break;
        }
        match pos.parse_usi_move(text) {
            Ok(m) => {
                pos.do_move(m);
                moves.push(m);
            }
            Err(e) => {
                let reason = e.to_string();
                problem = Some(RecordError::IllegalMove {
                    ply: i + 1,
                    line: Some(index + 1),
                    text: text.to_string(),
                    reason,
                });
                break;
            }
        }
    }
    let record = usi_record(&start, &moves)?;
    Ok(Game {
        format: Format::Usi,
        encoding: Encoding::Utf8,
        start,
        moves,
        record,
        players: [None, None],
        result,
        problem,
    })
}

/// An `rsshogi` record of a USI game, for the annotated copies.
fn usi_record(start: &Position, moves: &[Move]) -> Result<Record, RecordError> {
    let entries = moves
        .iter()
        .map(|m| rsshogi::types::Move::from_usi(&m.to_string()).map(MoveEntry::new))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| RecordError::Parse { line: None, message: "move not understood by the record writer".into() })?;
    Record::from_main_line(start.to_sfen(), entries, None)
        .map_err(|e| RecordError::Parse { line: None, message: e.to_string() })
}

/// The moves in Japanese (KI2 notation, `▲７六歩`), played one after another from `pos`;
/// a move the notation cannot express is given in USI.
pub fn japanese(pos: &Position, moves: &[Move]) -> Vec<String> {
    let Ok(mut p) = rsshogi::board::position_from_sfen(&pos.to_sfen()) else {
        return moves.iter().map(Move::to_string).collect();
    };
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        let usi = m.to_string();
        match rsshogi::board::move_from_usi(&p, &usi).filter(|&mv| p.is_legal_move32(mv)) {
            Some(mv) => {
                out.push(mv.to_ki2(&p).unwrap_or(usi));
                p.apply_move32(mv);
            }
            None => {
                // Not legal on rsshogi's board (the caller's line was not checked): the rest stays USI.
                out.extend(moves[out.len()..].iter().map(Move::to_string));
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "7g7f 3c3d 2g2f 2b8h+ 2f2e 8h9i 7i8h 3a2b 2e2d 2c2d 2h2d P*2c";

    fn data(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/records").join(name)
    }

    fn usi_moves(g: &Game) -> String {
        g.moves.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_same_game_in_every_format_and_encoding() {
        for (file, format, encoding) in [
            ("game.kif", Format::Kif, Encoding::Utf8),
            ("game_sjis.kif", Format::Kif, Encoding::ShiftJis),
            ("game_bom.ki2", Format::Ki2, Encoding::Utf8Bom),
            ("game.csa", Format::Csa, Encoding::ShiftJis),
            ("game.usi", Format::Usi, Encoding::Utf8),
        ] {
            let g = read_file(&data(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!((g.format, g.encoding), (format, encoding), "{file}");
            assert_eq!(usi_moves(&g), GAME, "{file}");
            assert_eq!(g.start.to_sfen(), engine::START_SFEN, "{file}");
            assert!(g.problem.is_none(), "{file}");
            assert_eq!(g.record.move_count(), 12, "{file}");
            if format != Format::Usi {
                assert_eq!(g.players[0].as_deref(), Some("先手太郎"), "{file}");
                assert_eq!(g.result.as_deref(), Some("resign"), "{file}");
            }
        }
    }

    #[test]
    fn board_diagram_and_handicap_starts() {
        let g = read_file(&data("diagram.kif")).unwrap();
        assert_eq!(g.start.to_sfen(), "4k4/9/9/9/9/9/4p3P/9/4K4 w g 1");
        assert_eq!(usi_moves(&g), "5a4b 1g1f G*5h");
        let g = read_file(&data("handicap.kif")).unwrap();
        assert_eq!(g.start.to_sfen(), "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert_eq!(usi_moves(&g), "3c3d 7g7f 4c4d 2g2f 8b4b 3i4h");
        assert_eq!(g.players[1].as_deref(), Some("上手次郎"));
    }

    #[test]
    fn an_illegal_move_keeps_the_moves_before_it() {
        let g = read_file(&data("illegal.kif")).unwrap();
        assert_eq!(usi_moves(&g), "7g7f 3c3d 2g2f 4c4d");
        assert_eq!(g.record.move_count(), 4);
        let p = g.problem.expect("problem");
        assert!(matches!(p, RecordError::IllegalMove { ply: 5, line: Some(9), .. }), "{p:?}");
        assert_eq!(p.to_string(), "line 9: ply 5 '５五飛(28)': illegal move");
        // KI2 and CSA put several moves on a line: the good ones on the bad line are kept.
        let ki2 = "手合割：平手\n▲７六歩 △３四歩 ▲５五飛 △４四歩\n";
        let g = parse(ki2, Format::Ki2).unwrap();
        assert_eq!(usi_moves(&g), "7g7f 3c3d");
        assert!(matches!(g.problem, Some(RecordError::IllegalMove { ply: 3, line: Some(2), .. })), "{:?}", g.problem);
        let csa = "V2.2\nPI\n+\n+7776FU,T1,-3334FU\n+2855HI\n-4344FU\n%TORYO\n";
        let g = parse(csa, Format::Csa).unwrap();
        assert_eq!(usi_moves(&g), "7g7f 3c3d");
        assert!(matches!(g.problem, Some(RecordError::IllegalMove { ply: 3, line: Some(5), .. })), "{:?}", g.problem);
        let g = parse("position startpos moves 7g7f 3c3d 9a9b 2g2f", Format::Usi).unwrap();
        assert_eq!(usi_moves(&g), "7g7f 3c3d");
        assert!(matches!(g.problem, Some(RecordError::IllegalMove { ply: 3, line: Some(1), .. })));
    }

    #[test]
    fn usi_lines_and_sfens() {
        let g = parse("# a comment\nstartpos moves 7g7f 3c3d resign\n", Format::Usi).unwrap();
        assert_eq!((usi_moves(&g).as_str(), g.result.as_deref()), ("7g7f 3c3d", Some("resign")));
        let g = parse("sfen 4k4/9/9/9/9/9/4p3P/9/4K4 w g 1 moves G*5h", Format::Usi).unwrap();
        assert_eq!(usi_moves(&g), "G*5h");
        let g = parse("4k4/9/9/9/9/9/4p3P/9/4K4 w g 1", Format::Usi).unwrap();
        assert!(g.moves.is_empty());
        assert!(matches!(parse("sfen 4k4/9 w - 1", Format::Usi), Err(RecordError::Parse { line: Some(1), .. })));
    }

    #[test]
    fn formats_are_detected_by_content_then_extension() {
        let kif = std::fs::read_to_string(data("game.kif")).unwrap();
        assert_eq!(detect(&kif, None).unwrap(), Format::Kif);
        assert_eq!(detect(&kif, Some(Format::Csa)).unwrap(), Format::Kif);
        assert_eq!(detect("V2.2\nPI\n+\n+7776FU\n", None).unwrap(), Format::Csa);
        assert_eq!(detect("▲７六歩 △３四歩\n", None).unwrap(), Format::Ki2);
        assert_eq!(detect("position startpos moves 7g7f\n", Some(Format::Kif)).unwrap(), Format::Usi);
        assert_eq!(detect("手合割：平手\n", Some(Format::Ki2)).unwrap(), Format::Ki2);
        assert!(matches!(detect("Dear diary,\nI lost.\n", Some(Format::Kif)), Err(RecordError::UnknownFormat)));
    }

    #[test]
    fn encodings() {
        assert_eq!(decode("７六歩".as_bytes()).unwrap(), ("７六歩".to_string(), Encoding::Utf8));
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("７六歩");
        assert_eq!(decode(&sjis).unwrap(), ("７六歩".to_string(), Encoding::ShiftJis));
        assert!(matches!(decode(b"\x89PNG\r\n\x1a\n\0\0"), Err(RecordError::NotText)));
    }

    #[test]
    fn japanese_notation() {
        let pos = Position::startpos();
        let moves: Vec<Move> = {
            let mut p = pos.clone();
            ["7g7f", "3c3d", "8h2b+"]
                .iter()
                .map(|t| {
                    let m = p.parse_usi_move(t).unwrap();
                    p.do_move(m);
                    m
                })
                .collect()
        };
        assert_eq!(japanese(&pos, &moves), ["▲７六歩", "△３四歩", "▲２二角成"]);
        // A line that goes wrong (here: Black moves twice) stays in USI from there on.
        let twice = [moves[0], moves[2]];
        assert_eq!(japanese(&pos, &twice), ["▲７六歩", "8h2b+"]);
    }
}
