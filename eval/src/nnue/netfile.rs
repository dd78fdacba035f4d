//! The net file (`.knn`): a versioned, self-checking container for a `QuantNet`.
//!
//! Layout (all integers little-endian):
//!
//! | Field | Type | Value |
//! |---|---|---|
//! | magic | 8 bytes | `KANAMENN` |
//! | format version | u32 | `VERSION` (2) |
//! | architecture length | u32 | at most `MAX_ARCH_LEN` |
//! | architecture | bytes | `ARCH` (`HalfKB9-2344x256x2-32-32-1+PSQT`), UTF-8 |
//! | king buckets | u32 | `features::KING_BUCKETS` (9) |
//! | features per bucket | u32 | `features::FEATURES_PER_BUCKET` (2344) |
//! | L1, L2, L3 | 3 x u32 | 256, 32, 32 |
//! | QA, QB, OUTPUT_SCALE | 3 x i32 | 127, 64, 1200 |
//! | payload length | u64 | bytes of the payload (`payload_len()`) |
//! | payload hash | u64 | FNV-1a (64-bit) of the payload |
//! | payload | bytes | the `QuantNet` fields in declaration order |
//!
//! The payload is `l1_bias` (i16 x L1), `l1_weights` (i16 x NUM_FEATURES x L1, feature-major),
//! `l2_bias` (i32 x L2), `l2_weights` (i8 x L2 x 2 L1, output-major), `l3_bias` (i32 x L3),
//! `l3_weights` (i8 x L3 x L2), `out_bias` (i32), `out_weights` (i8 x L3), `psqt` (i32 x
//! NUM_FEATURES). Nothing may follow
//! it. Every header field is checked on reading, so a net trained for another feature set,
//! size or quantisation is refused rather than evaluated wrongly; the hash catches a damaged
//! payload. A change of layout bumps `VERSION`.

use super::features::{FEATURES_PER_BUCKET, KING_BUCKETS, NUM_FEATURES};
use super::{QuantNet, ARCH, L1, L2, L3, OUTPUT_SCALE, QA, QB};
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"KANAMENN";
/// The format version this code writes and reads.
///
/// History: 1, the first nets (no PSQT term, OUTPUT_SCALE 600); 2, the PSQT term.
pub const VERSION: u32 = 2;
/// Longest architecture string accepted (a guard against reading a huge length from a
/// damaged file).
pub const MAX_ARCH_LEN: u32 = 256;

/// Why a net file was refused.
#[derive(Debug)]
pub enum NetFileError {
    /// The file could not be opened or read (other than ending early).
    Io(io::Error),
    /// The file does not start with `KANAMENN`.
    BadMagic,
    /// A format version this code does not read.
    UnsupportedVersion(u32),
    /// The architecture string differs from `ARCH`.
    WrongArchitecture(String),
    /// A size or quantisation constant differs from this build's: (field, file's value,
    /// expected value).
    BadSize(&'static str, i64, i64),
    /// The file ends before the header or payload does.
    Truncated,
    /// The payload's hash does not match the header's.
    HashMismatch {
        /// The hash the header records.
        expected: u64,
        /// The hash of the payload read.
        found: u64,
    },
    /// Bytes follow the payload.
    TrailingData,
    /// A `QuantNet` to write has a vector of the wrong length: (field, length, expected).
    BadNet(&'static str, usize, usize),
}

impl fmt::Display for NetFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetFileError::Io(e) => write!(f, "i/o error: {e}"),
            NetFileError::BadMagic => write!(f, "not a Kaname net file (bad magic)"),
            NetFileError::UnsupportedVersion(v) => write!(f, "net file format version {v}, expected {VERSION}"),
            NetFileError::WrongArchitecture(a) => write!(f, "net architecture '{a}', expected '{ARCH}'"),
            NetFileError::BadSize(what, got, want) => write!(f, "net {what} is {got}, expected {want}"),
            NetFileError::Truncated => write!(f, "net file is truncated"),
            NetFileError::HashMismatch { expected, found } => {
                write!(f, "net payload hash {found:016x} does not match the header's {expected:016x}")
            }
            NetFileError::TrailingData => write!(f, "unexpected data after the net payload"),
            NetFileError::BadNet(what, got, want) => write!(f, "net field {what} has {got} values, expected {want}"),
        }
    }
}

impl std::error::Error for NetFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NetFileError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for NetFileError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            NetFileError::Truncated
        } else {
            NetFileError::Io(e)
        }
    }
}

/// FNV-1a, 64-bit: simple, dependency-free, and enough to catch damage (not tampering).
pub fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Bytes of the payload of this architecture.
pub const fn payload_len() -> usize {
    L1 * 2 + NUM_FEATURES * L1 * 2 + L2 * 4 + L2 * 2 * L1 + L3 * 4 + L3 * L2 + 4 + L3 + NUM_FEATURES * 4
}

/// The size and quantisation fields of the header, in order, with their names.
fn header_constants() -> [(&'static str, i64); 8] {
    [
        ("king buckets", KING_BUCKETS as i64),
        ("features per bucket", FEATURES_PER_BUCKET as i64),
        ("L1", L1 as i64),
        ("L2", L2 as i64),
        ("L3", L3 as i64),
        ("QA", QA as i64),
        ("QB", QB as i64),
        ("OUTPUT_SCALE", OUTPUT_SCALE as i64),
    ]
}

/// Checks every vector of `net` has this architecture's length.
fn check_lengths(net: &QuantNet) -> Result<(), NetFileError> {
    let lens = [
        ("l1_bias", net.l1_bias.len(), L1),
        ("l1_weights", net.l1_weights.len(), NUM_FEATURES * L1),
        ("l2_bias", net.l2_bias.len(), L2),
        ("l2_weights", net.l2_weights.len(), L2 * 2 * L1),
        ("l3_bias", net.l3_bias.len(), L3),
        ("l3_weights", net.l3_weights.len(), L3 * L2),
        ("out_weights", net.out_weights.len(), L3),
        ("psqt", net.psqt.len(), NUM_FEATURES),
    ];
    for (what, got, want) in lens {
        if got != want {
            return Err(NetFileError::BadNet(what, got, want));
        }
    }
    Ok(())
}

/// The payload bytes of `net` (lengths already checked).
fn payload(net: &QuantNet) -> Vec<u8> {
    let mut p = Vec::with_capacity(payload_len());
    net.l1_bias.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()));
    net.l1_weights.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()));
    net.l2_bias.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()));
    net.l2_weights.iter().for_each(|v| p.push(*v as u8));
    net.l3_bias.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()));
    net.l3_weights.iter().for_each(|v| p.push(*v as u8));
    p.extend_from_slice(&net.out_bias.to_le_bytes());
    net.out_weights.iter().for_each(|v| p.push(*v as u8));
    net.psqt.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()));
    debug_assert_eq!(p.len(), payload_len());
    p
}

/// Writes `net` as a net file.
pub fn write(net: &QuantNet, mut out: impl Write) -> Result<(), NetFileError> {
    check_lengths(net)?;
    let p = payload(net);
    let mut h = Vec::with_capacity(96);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&(ARCH.len() as u32).to_le_bytes());
    h.extend_from_slice(ARCH.as_bytes());
    for (_, v) in header_constants() {
        // The first five are u32 sizes, the last three i32 scales: the same 4 bytes for
        // these small non-negative values.
        h.extend_from_slice(&(v as u32).to_le_bytes());
    }
    h.extend_from_slice(&(p.len() as u64).to_le_bytes());
    h.extend_from_slice(&fnv1a64(&p).to_le_bytes());
    out.write_all(&h)?;
    out.write_all(&p)?;
    out.flush()?;
    Ok(())
}

/// Writes `net` to the file `path` (through a temporary file renamed into place, so a
/// reader never sees half a net).
pub fn save(net: &QuantNet, path: impl AsRef<Path>) -> Result<(), NetFileError> {
    let path = path.as_ref();
    let tmp = path.with_extension("knn.tmp");
    {
        let f = std::fs::File::create(&tmp)?;
        write(net, io::BufWriter::new(f))?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

fn read_array<const N: usize>(r: &mut impl Read) -> Result<[u8; N], NetFileError> {
    let mut b = [0u8; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn read_u32(r: &mut impl Read) -> Result<u32, NetFileError> {
    Ok(u32::from_le_bytes(read_array(r)?))
}

fn read_u64(r: &mut impl Read) -> Result<u64, NetFileError> {
    Ok(u64::from_le_bytes(read_array(r)?))
}

/// Reads and checks the header; returns the payload's length and hash.
fn read_header(r: &mut impl Read) -> Result<(u64, u64), NetFileError> {
    if &read_array::<8>(r)? != MAGIC {
        return Err(NetFileError::BadMagic);
    }
    let version = read_u32(r)?;
    if version != VERSION {
        return Err(NetFileError::UnsupportedVersion(version));
    }
    let len = read_u32(r)?;
    if len > MAX_ARCH_LEN {
        return Err(NetFileError::BadSize("architecture length", len as i64, ARCH.len() as i64));
    }
    let mut arch = vec![0u8; len as usize];
    r.read_exact(&mut arch)?;
    let arch = String::from_utf8_lossy(&arch).into_owned();
    if arch != ARCH {
        return Err(NetFileError::WrongArchitecture(arch));
    }
    for (what, want) in header_constants() {
        let got = read_u32(r)? as i32 as i64;
        if got != want {
            return Err(NetFileError::BadSize(what, got, want));
        }
    }
    let payload_len = read_u64(r)?;
    if payload_len != self::payload_len() as u64 {
        return Err(NetFileError::BadSize("payload length", payload_len as i64, self::payload_len() as i64));
    }
    Ok((payload_len, read_u64(r)?))
}

/// Splits the front `n` bytes off `p`.
fn take<'a>(p: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (a, b) = p.split_at(n);
    *p = b;
    a
}

fn i16s(p: &mut &[u8], n: usize) -> Vec<i16> {
    take(p, 2 * n).chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
}

fn i32s(p: &mut &[u8], n: usize) -> Vec<i32> {
    take(p, 4 * n).chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn i8s(p: &mut &[u8], n: usize) -> Vec<i8> {
    take(p, n).iter().map(|&b| b as i8).collect()
}

/// Decodes a payload of exactly `payload_len()` bytes.
fn decode(mut p: &[u8]) -> QuantNet {
    let p = &mut p;
    QuantNet {
        l1_bias: i16s(p, L1),
        l1_weights: i16s(p, NUM_FEATURES * L1),
        l2_bias: i32s(p, L2),
        l2_weights: i8s(p, L2 * 2 * L1),
        l3_bias: i32s(p, L3),
        l3_weights: i8s(p, L3 * L2),
        out_bias: i32s(p, 1)[0],
        out_weights: i8s(p, L3),
        psqt: i32s(p, NUM_FEATURES),
    }
}

/// Reads a net file, checking everything the format records; the reader must end with it.
pub fn read(mut r: impl Read) -> Result<QuantNet, NetFileError> {
    let (len, hash) = read_header(&mut r)?;
    let mut p = vec![0u8; len as usize];
    r.read_exact(&mut p)?;
    let found = fnv1a64(&p);
    if found != hash {
        return Err(NetFileError::HashMismatch { expected: hash, found });
    }
    let mut extra = [0u8; 1];
    loop {
        match r.read(&mut extra) {
            Ok(0) => break,
            Ok(_) => return Err(NetFileError::TrailingData),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(NetFileError::Io(e)),
        }
    }
    Ok(decode(&p))
}

/// Reads the net file at `path`.
pub fn load(path: impl AsRef<Path>) -> Result<QuantNet, NetFileError> {
    let f = std::fs::File::open(path)?;
    read(io::BufReader::new(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A net whose every value differs from its neighbours', with extremes included.
    fn sample_net() -> QuantNet {
        let mut s = 12345u32;
        let mut next = move || {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
            s >> 8
        };
        QuantNet {
            l1_bias: (0..L1).map(|_| next() as i16).collect(),
            l1_weights: (0..NUM_FEATURES * L1).map(|_| next() as i16).collect(),
            l2_bias: (0..L2).map(|_| next() as i32 - (1 << 23)).collect(),
            l2_weights: (0..L2 * 2 * L1).map(|_| next() as i8).collect(),
            l3_bias: (0..L3).map(|i| if i == 0 { i32::MIN } else { next() as i32 }).collect(),
            l3_weights: (0..L3 * L2).map(|i| if i == 0 { -128 } else { next() as i8 }).collect(),
            out_bias: -77,
            out_weights: (0..L3).map(|_| next() as i8).collect(),
            psqt: (0..NUM_FEATURES).map(|_| next() as i32 - (1 << 23)).collect(),
        }
    }

    fn bytes_of(net: &QuantNet) -> Vec<u8> {
        let mut v = Vec::new();
        write(net, &mut v).unwrap();
        v
    }

    /// Offset of the field after the architecture string.
    fn after_arch() -> usize {
        8 + 4 + 4 + ARCH.len()
    }

    #[test]
    fn round_trip() {
        let net = sample_net();
        let b = bytes_of(&net);
        assert_eq!(b.len(), after_arch() + 8 * 4 + 16 + payload_len());
        assert_eq!(read(&b[..]).unwrap(), net);
    }

    #[test]
    fn save_and_load() {
        let dir = std::env::temp_dir().join(format!("kaname-netfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.knn");
        let net = sample_net();
        save(&net, &path).unwrap();
        assert_eq!(load(&path).unwrap(), net);
        assert!(matches!(load(dir.join("missing.knn")), Err(NetFileError::Io(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn truncated_anywhere() {
        let b = bytes_of(&sample_net());
        for cut in [0, 5, 8, 13, after_arch() - 3, after_arch() + 10, after_arch() + 40, b.len() / 2, b.len() - 1] {
            assert!(matches!(read(&b[..cut]), Err(NetFileError::Truncated)), "cut at {cut}");
        }
    }

    #[test]
    fn damaged_headers() {
        let b = bytes_of(&sample_net());
        let mut m = b.clone();
        m[0] = b'X';
        assert!(matches!(read(&m[..]), Err(NetFileError::BadMagic)));
        let mut m = b.clone();
        m[8] = 1;
        assert!(matches!(read(&m[..]), Err(NetFileError::UnsupportedVersion(1))), "a net of format 1 is refused");
        let mut m = b.clone();
        m[16] = b'X';
        assert!(matches!(read(&m[..]), Err(NetFileError::WrongArchitecture(_))));
        let mut m = b.clone();
        m[12] = 255;
        m[13] = 255;
        assert!(matches!(read(&m[..]), Err(NetFileError::BadSize("architecture length", ..))));
        let mut m = b.clone();
        m[after_arch() + 9] = 0; // L1: 256 -> 0
        assert!(matches!(read(&m[..]), Err(NetFileError::BadSize("L1", 0, 256))));
        let mut m = b.clone();
        m[after_arch() + 24] = 100; // QB
        assert!(matches!(read(&m[..]), Err(NetFileError::BadSize("QB", 100, 64))));
        let mut m = b.clone();
        m[after_arch() + 32] ^= 1; // payload length
        assert!(matches!(read(&m[..]), Err(NetFileError::BadSize("payload length", ..))));
    }

    #[test]
    fn damaged_payload_and_trailing_data() {
        let b = bytes_of(&sample_net());
        for at in [b.len() - payload_len(), b.len() - payload_len() / 3, b.len() - 1] {
            let mut m = b.clone();
            m[at] ^= 0x10;
            assert!(matches!(read(&m[..]), Err(NetFileError::HashMismatch { .. })), "byte {at}");
        }
        let mut m = b.clone();
        m.push(0);
        assert!(matches!(read(&m[..]), Err(NetFileError::TrailingData)));
    }

    #[test]
    fn wrong_lengths_are_not_written() {
        let mut net = sample_net();
        net.l3_weights.pop();
        assert!(matches!(write(&net, Vec::new()), Err(NetFileError::BadNet("l3_weights", ..))));
    }
}
