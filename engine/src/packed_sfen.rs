//! YaneuraOu's training-data formats: the 32-byte Huffman-coded position (`PackedSfen`), the
//! 40-byte record of a position with its score, best move and game result (`PackedSfenValue`,
//! "PSV"), and the 16-bit move those records store (`move16`).
//!
//! **PackedSfen** (256 bits, written least significant bit of each byte first):
//! 1. side to move, 1 bit (0 = Black);
//! 2. Black's king square then White's, 7 bits each (YaneuraOu's square index, which is
//!    Kaname's: file-major, 1a = 0, 1b = 1, ..., 9i = 80);
//! 3. the 81 squares in index order, kings skipped, each as a Huffman code of the unpromoted
//!    kind read least significant bit first (empty `0`, pawn `01`, lance `0011`, knight
//!    `1011`, silver `0111`, gold `01111`, bishop `011111`, rook `111111`), then for a piece a
//!    promotion bit (not for golds) and a colour bit (1 = White);
//! 4. the pieces in hand, Black's then White's, kinds in the order pawn, lance, knight, silver,
//!    gold, bishop, rook (not Kaname's `PieceType::HAND` order: cshogi writes this one), one
//!    code per piece held: the board code without its lowest bit (a hand piece is never
//!    empty), then a promotion bit (0, not for golds) and the colour bit, until bit 256. A
//!    hand code with the promotion bit set marks a piece in the box (on neither the board
//!    nor a hand: handicap games); `unpack` skips those.
//!
//! With all 40 pieces on the board and in hand this is exactly 256 bits whatever the position
//! (a captured piece frees a 1-bit empty square and costs one bit less in hand). `pack`
//! refuses positions with fewer pieces (handicaps) rather than write piece-box codes, which
//! training data never needs.
//!
//! **Move16**: destination square in bits 0-6; origin square in bits 7-13 for a board move, or
//! the dropped kind (pawn 1 .. gold 7) with bit 14 set for a drop; bit 15 promotes. That is
//! exactly the low 16 bits of Kaname's `Move` (`Move::to_u16`), checked against cshogi's
//! `move16_to_psv` by the fixture test.
//!
//! The format was checked against cshogi 1.1.0 (`Board.to_psfen`/`set_psfen`) by
//! `scripts/gen_psv_fixture.py` and `tests/data/psv_fixture.txt`.

use crate::{Color, Hand, Move, Piece, PieceType, Position, SfenError, Square, VariantId, SQUARE_COUNT};
use std::fmt;

/// Bytes of a packed position.
pub const PACKED_SFEN_BYTES: usize = 32;
/// Bytes of a `PackedSfenValue` record.
pub const PSV_BYTES: usize = 40;
/// The hand kinds in the order the format writes them.
const HAND_ORDER: [PieceType; 7] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Rook,
];
/// Bits of a packed position.
const BITS: usize = PACKED_SFEN_BYTES * 8;

/// Huffman code and length of each unpromoted kind on the board, indexed by
/// `PieceType as usize` (0 = empty square; the king, 8, is never coded).
const BOARD_CODE: [(u32, u32); 8] =
    [(0x00, 1), (0x01, 2), (0x03, 4), (0x0b, 4), (0x07, 4), (0x1f, 6), (0x3f, 6), (0x0f, 5)];

/// Why a packed position or record was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackedSfenError {
    /// A king square field is 81 or more (YaneuraOu writes 81 for a missing king).
    BadKingSquare(Color, u8),
    /// Both kings are given the same square.
    KingsOnOneSquare,
    /// The codes run past bit 256.
    Overrun,
    /// A bit pattern that is no piece code (cannot happen with this complete prefix code;
    /// kept so a reader never panics).
    BadCode,
    /// More pieces of a kind in hand than a set holds.
    HandOverflow(PieceType),
    /// The decoded position is impossible (too many pieces, nifu, dead piece, ...).
    Invalid(SfenError),
}

impl fmt::Display for PackedSfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackedSfenError::BadKingSquare(c, sq) => write!(f, "{c:?}'s king square {sq} is off the board"),
            PackedSfenError::KingsOnOneSquare => write!(f, "both kings on one square"),
            PackedSfenError::Overrun => write!(f, "piece codes run past 256 bits"),
            PackedSfenError::BadCode => write!(f, "a bit pattern that codes no piece"),
            PackedSfenError::HandOverflow(pt) => write!(f, "too many {pt:?}s in hand"),
            PackedSfenError::Invalid(e) => write!(f, "impossible position: {e}"),
        }
    }
}

impl std::error::Error for PackedSfenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PackedSfenError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// Writes bits least significant first into a zeroed buffer.
struct BitWriter {
    data: [u8; PACKED_SFEN_BYTES],
    cursor: usize,
}

impl BitWriter {
    /// Writes the low `n` bits of `value`; returns false (writing nothing) past bit 256.
    fn write(&mut self, value: u32, n: u32) -> bool {
        if self.cursor + n as usize > BITS {
            return false;
        }
        for i in 0..n {
            if value >> i & 1 != 0 {
                self.data[self.cursor / 8] |= 1 << (self.cursor % 8);
            }
            self.cursor += 1;
        }
        true
    }
}

/// Reads bits least significant first.
struct BitReader<'a> {
    data: &'a [u8; PACKED_SFEN_BYTES],
    cursor: usize,
}

impl BitReader<'_> {
    fn bit(&mut self) -> Result<u32, PackedSfenError> {
        if self.cursor >= BITS {
            return Err(PackedSfenError::Overrun);
        }
        let b = (self.data[self.cursor / 8] >> (self.cursor % 8)) & 1;
        self.cursor += 1;
        Ok(b as u32)
    }

    fn bits(&mut self, n: u32) -> Result<u32, PackedSfenError> {
        let mut v = 0;
        for i in 0..n {
            v |= self.bit()? << i;
        }
        Ok(v)
    }

    /// Reads one Huffman code; `hand` reads the hand variant (the board code shifted
    /// right by one). Returns the unpromoted kind's index (0 = empty, board only).
    fn kind(&mut self, hand: bool) -> Result<usize, PackedSfenError> {
        let (mut code, mut len) = (0u32, 0u32);
        // Codes are at most 6 bits long (5 in hand).
        while len < 6 {
            code |= self.bit()? << len;
            len += 1;
            let first = if hand { 1 } else { 0 };
            for (k, &(c, n)) in BOARD_CODE.iter().enumerate().skip(first) {
                let (c, n) = if hand { (c >> 1, n - 1) } else { (c, n) };
                if n == len && c == code {
                    return Ok(k);
                }
            }
        }
        Err(PackedSfenError::BadCode)
    }
}

/// Why `pack` could not pack a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackError {
    /// The position does not hold exactly the 40 pieces of a set (a handicap position): the
    /// format would read its unused bits as pawns.
    NotFortyPieces(u32),
    /// The format is standard shogi's.
    NotShogi(VariantId),
    /// A side has no king (a tsume): the format stores both kings' squares first, as 7 bits
    /// each, and has no code for a missing one.
    NoKing(Color),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::NotFortyPieces(n) => write!(f, "{n} pieces instead of 40 cannot be packed"),
            PackError::NotShogi(v) => write!(f, "a {v} position cannot be packed (the format is shogi's)"),
            PackError::NoKing(c) => {
                write!(f, "{c:?} has no king: a position without both kings cannot be packed (the format stores both)")
            }
        }
    }
}

impl std::error::Error for PackError {}

/// Packs `pos` (board, hands, side to move; not the move number) into YaneuraOu's 32 bytes.
pub fn pack(pos: &Position) -> Result<[u8; PACKED_SFEN_BYTES], PackError> {
    if pos.variant() != VariantId::Shogi {
        return Err(PackError::NotShogi(pos.variant()));
    }
    // Before the piece count: a tsume (39 pieces) is refused for its missing king, the reason
    // that matters.
    if let Some(c) = Color::ALL.into_iter().find(|&c| !pos.has_king(c)) {
        return Err(PackError::NoKing(c));
    }
    let pieces = pos.occupied().count() + pos.hand(Color::Black).total() + pos.hand(Color::White).total();
    if pieces != 40 {
        return Err(PackError::NotFortyPieces(pieces));
    }
    let mut w = BitWriter { data: [0; PACKED_SFEN_BYTES], cursor: 0 };
    // Every write fits: 40 pieces take exactly 256 bits (see the module doc).
    let mut ok = w.write(pos.side_to_move() as u32, 1);
    for c in Color::ALL {
        ok &= w.write(pos.king_square(c).index() as u32, 7);
    }
    for sq in Square::ALL {
        let pc = pos.piece_on(sq);
        match pc.kind_opt() {
            None => ok &= w.write(BOARD_CODE[0].0, BOARD_CODE[0].1),
            Some(PieceType::King) => {}
            Some(pt) => {
                let (code, n) = BOARD_CODE[pt.unpromoted().index()];
                ok &= w.write(code, n);
                if pt.unpromoted() != PieceType::Gold {
                    ok &= w.write(pt.is_promoted() as u32, 1);
                }
                ok &= w.write(pc.color() as u32, 1);
            }
        }
    }
    for c in Color::ALL {
        for pt in HAND_ORDER {
            let (code, n) = BOARD_CODE[pt.index()];
            for _ in 0..pos.hand(c).count(pt) {
                ok &= w.write(code >> 1, n - 1);
                if pt != PieceType::Gold {
                    ok &= w.write(0, 1);
                }
                ok &= w.write(c as u32, 1);
            }
        }
    }
    debug_assert!(ok && w.cursor == BITS, "40 pieces pack into exactly 256 bits");
    Ok(w.data)
}

/// Reads the promotion and colour bits after a kind's code.
fn read_flags(r: &mut BitReader, kind: usize) -> Result<(bool, Color), PackedSfenError> {
    let promoted = kind != PieceType::Gold as usize && r.bit()? != 0;
    let color = if r.bit()? == 0 { Color::Black } else { Color::White };
    Ok((promoted, color))
}

/// Unpacks YaneuraOu's 32 bytes into a position (move number 1), rejecting anything that is
/// not a well-formed, possible position.
pub fn unpack(data: &[u8; PACKED_SFEN_BYTES]) -> Result<Position, PackedSfenError> {
    let mut r = BitReader { data, cursor: 0 };
    let side = if r.bit()? == 0 { Color::Black } else { Color::White };
    let mut pos = Position::empty();
    let mut kings = [0u8; 2];
    for c in Color::ALL {
        let sq = r.bits(7)? as u8;
        if sq as usize >= SQUARE_COUNT {
            return Err(PackedSfenError::BadKingSquare(c, sq));
        }
        kings[c.index()] = sq;
    }
    if kings[0] == kings[1] {
        return Err(PackedSfenError::KingsOnOneSquare);
    }
    for c in Color::ALL {
        pos.put_piece(Piece::new(c, PieceType::King), Square::new(kings[c.index()]));
    }
    for sq in Square::ALL {
        if kings.contains(&(sq.index() as u8)) {
            continue;
        }
        let kind = r.kind(false)?;
        if kind == 0 {
            continue;
        }
        let (promoted, color) = read_flags(&mut r, kind)?;
        let pt = PieceType::from_code(kind as u8);
        let pt = if promoted { pt.promoted() } else { pt };
        pos.put_piece(Piece::new(color, pt), sq);
    }
    let mut counts = [[0u32; 8]; 2];
    while r.cursor < BITS {
        let kind = r.kind(true)?;
        let (promoted, color) = read_flags(&mut r, kind)?;
        if promoted {
            // A piece in the box.
            continue;
        }
        let pt = PieceType::from_code(kind as u8);
        counts[color.index()][kind] += 1;
        // Checked before adding so the packed hand's bit fields never overflow.
        if counts[color.index()][kind] > pt.set_count() as u32 {
            return Err(PackedSfenError::HandOverflow(pt));
        }
    }
    for c in Color::ALL {
        let mut hand = Hand::EMPTY;
        for pt in PieceType::HAND {
            for _ in 0..counts[c.index()][pt.index()] {
                hand.add(pt);
            }
        }
        pos.set_hand(c, hand);
    }
    pos.set_side_and_ply(side, 1);
    crate::sfen::validate(&pos).map_err(PackedSfenError::Invalid)?;
    pos.finish();
    if pos.is_attacked(side, pos.king_square(!side), pos.occupied()) {
        return Err(PackedSfenError::Invalid(SfenError::OpponentInCheck));
    }
    Ok(pos)
}

/// The move `m16` (YaneuraOu's move16) stands for in `pos`, if it is legal there.
pub fn move_from_move16(pos: &Position, m16: u16) -> Option<Move> {
    let m = pos.move_from_u16(m16);
    if pos.is_legal(m) {
        Some(m)
    } else {
        None
    }
}

/// YaneuraOu's move16 of `m`: the low 16 bits, whose layout is the same (see the module doc).
pub fn move16(m: Move) -> u16 {
    m.to_u16()
}

/// One training record as YaneuraOu's learner writes it (40 bytes, little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedSfenValue {
    /// The packed position.
    pub sfen: [u8; PACKED_SFEN_BYTES],
    /// The search score from the side to move's point of view.
    pub score: i16,
    /// The best move found, as a move16.
    pub move16: u16,
    /// The position's ply in its game.
    pub game_ply: u16,
    /// The game's result from the side to move's point of view: 1 win, 0 draw, -1 loss.
    pub game_result: i8,
    /// The padding byte (kept so records round-trip bit for bit).
    pub padding: u8,
}

impl PackedSfenValue {
    /// Reads a record from its 40 bytes.
    pub fn from_bytes(b: &[u8; PSV_BYTES]) -> PackedSfenValue {
        let mut sfen = [0u8; PACKED_SFEN_BYTES];
        sfen.copy_from_slice(&b[..32]);
        PackedSfenValue {
            sfen,
            score: i16::from_le_bytes([b[32], b[33]]),
            move16: u16::from_le_bytes([b[34], b[35]]),
            game_ply: u16::from_le_bytes([b[36], b[37]]),
            game_result: b[38] as i8,
            padding: b[39],
        }
    }

    /// The record's 40 bytes.
    pub fn to_bytes(&self) -> [u8; PSV_BYTES] {
        let mut b = [0u8; PSV_BYTES];
        b[..32].copy_from_slice(&self.sfen);
        b[32..34].copy_from_slice(&self.score.to_le_bytes());
        b[34..36].copy_from_slice(&self.move16.to_le_bytes());
        b[36..38].copy_from_slice(&self.game_ply.to_le_bytes());
        b[38] = self.game_result as u8;
        b[39] = self.padding;
        b
    }

    /// The record's position, with its move number set from `game_ply` (at least 1).
    pub fn position(&self) -> Result<Position, PackedSfenError> {
        let mut pos = unpack(&self.sfen)?;
        let side = pos.side_to_move();
        pos.set_side_and_ply(side, (self.game_ply as u32).max(1));
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/data/psv_fixture.txt");

    fn hex32(s: &str) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, byte) in b.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }

    /// The SFEN without its move number.
    fn sfen3(pos: &Position) -> String {
        pos.to_sfen().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    }

    /// cshogi's packed positions unpack to the SFEN cshogi decodes, pack back to the same bytes,
    /// and cshogi's move16 converts both ways.
    #[test]
    fn matches_cshogi_fixture() {
        let mut n = 0;
        for line in FIXTURE.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            let data = hex32(f[0]);
            let pos = unpack(&data).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(sfen3(&pos), f[1]);
            assert_eq!(pack(&pos).unwrap(), data, "{line}");
            let m16 = u16::from_str_radix(f[2], 16).unwrap();
            let m = move_from_move16(&pos, m16).unwrap_or_else(|| panic!("{line}: move16 illegal"));
            assert_eq!(m.to_string(), f[3], "{line}");
            assert_eq!(move16(pos.parse_usi_move(f[3]).unwrap()), m16, "{line}");
            n += 1;
        }
        assert_eq!(n, 500);
    }

    #[test]
    fn record_round_trip() {
        let mut b = [0u8; PSV_BYTES];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i * 37 + 11) as u8;
        }
        let r = PackedSfenValue::from_bytes(&b);
        assert_eq!(r.to_bytes(), b);
        assert_eq!(r.score, i16::from_le_bytes([b[32], b[33]]));
        assert_eq!(r.game_result, b[38] as i8);
    }

    /// Arbitrary bytes are rejected or decode to a consistent position, never a panic.
    #[test]
    fn garbage_never_panics() {
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut ok = 0;
        for _ in 0..20_000 {
            let mut data = [0u8; 32];
            for b in data.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = state as u8;
            }
            if let Ok(pos) = unpack(&data) {
                assert!(pos.is_consistent().is_ok());
                ok += 1;
            }
        }
        assert!(ok < 20_000);
        // Flipping single bits of a real position mostly fails cleanly.
        let start = pack(&Position::startpos()).unwrap();
        for bit in 0..256 {
            let mut d = start;
            d[bit / 8] ^= 1 << (bit % 8);
            let _ = unpack(&d);
        }
    }

    #[test]
    fn handicap_is_refused() {
        let pos = Position::from_sfen("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        assert_eq!(pack(&pos), Err(PackError::NotFortyPieces(39)));
    }

    /// Reads the first 2,000 records of the shared self-play data (`KANAME_PSV`, default
    /// /work/data/classical.psv): every one unpacks and its move is legal.
    #[test]
    #[ignore]
    fn shared_data_decodes() {
        let path = std::env::var("KANAME_PSV").unwrap_or_else(|_| "/work/data/classical.psv".into());
        let bytes = std::fs::read(&path).expect("PSV file");
        for (i, rec) in bytes.chunks_exact(PSV_BYTES).take(2000).enumerate() {
            let r = PackedSfenValue::from_bytes(rec.try_into().unwrap());
            let pos = r.position().unwrap_or_else(|e| panic!("record {i}: {e}"));
            assert!(move_from_move16(&pos, r.move16).is_some(), "record {i}: illegal move {:04x}", r.move16);
            assert_eq!(pack(&pos).unwrap(), r.sfen, "record {i}");
            assert!((-1..=1).contains(&r.game_result));
        }
    }
}
