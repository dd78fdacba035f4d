//! YaneuraOu's net file (`nn.bin`), read and written as YaneuraOu does
//! (`evaluate_nnue.cpp:266-354`, `nnue_feature_transformer.h:199-201`,
//! `affine_transform.h:233-241`). All integers little-endian:
//!
//! | Field | Type |
//! |---|---|
//! | version | u32, `VERSION` (0x7AF32F16) |
//! | file hash | u32, `Shape::file_hash` |
//! | architecture string length, string | u32, bytes (not NUL-terminated) |
//! | feature transformer hash | u32, `Shape::ft_hash` |
//! | its biases, weights | i16 x L1, i16 x inputs x L1 (input-major) |
//! | network hash | u32, `Shape::network_hash` |
//! | each dense layer: biases, weights | i32 x out, i8 x out x padded(in) (output-major) |
//!
//! and nothing after. The shape is read off the size of what follows the header
//! (`Shape::of_payload`), never off the file's name or string; a hash or string that
//! disagrees with the size is reported as a warning and the file is read by its size, as
//! YaneuraOu (since 2026) reads a file whose hash differs. Nothing is allocated from a field
//! of the file before the file's real size has bounded it.

use super::shape::{padded, Shape, HALFKPE9_PAYLOAD, SUPPORTED};
use engine::hugemem::ZeroedArray;
use std::fmt;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

/// The version word every YaneuraOu NNUE file starts with (`nnue_common.h:62`).
pub const VERSION: u32 = 0x7AF3_2F16;
/// Longest architecture string accepted. YaneuraOu's own are under 300 bytes; anything far
/// longer is a damaged length field.
pub const MAX_ARCH_LEN: u32 = 1 << 16;
/// Bytes of the header before the architecture string.
const HEADER_LEN: u64 = 12;

/// Lanes of one aligned block of feature-transformer weights.
pub const BLOCK: usize = 32;

/// 32 weights of the feature transformer, aligned to a cache line: rows are whole blocks
/// (every L1 is a multiple of 32), so a row never straddles a line and the SIMD loads of
/// the accumulator code touch whole lines.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Block(pub [i16; BLOCK]);

/// The feature transformer's weights, in huge-page memory (`engine::hugemem`): 64-256 MB
/// read at random rows, so with 4 KiB pages nearly every row would also miss the TLB
/// (YaneuraOu allocates them the same way, `make_unique_large_page`).
pub struct FtWeights(ZeroedArray<Block>);

impl FtWeights {
    /// `blocks` zero blocks, or `None` when the machine cannot map them.
    pub fn zeroed(blocks: usize) -> Option<FtWeights> {
        // SAFETY: a `Block` of zero bits is a valid `Block` (it is `Zeroable`).
        unsafe { ZeroedArray::try_new(blocks) }.map(FtWeights)
    }

    /// The weights as lanes.
    pub fn lanes(&self) -> &[i16] {
        bytemuck::cast_slice(&self.0)
    }

    /// The weights as lanes, to fill.
    pub fn lanes_mut(&mut self) -> &mut [i16] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}

impl std::ops::Deref for FtWeights {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.0
    }
}

impl Clone for FtWeights {
    fn clone(&self) -> FtWeights {
        let mut c = FtWeights::zeroed(self.len()).expect("memory for a copy of the net's weights");
        c.0.copy_from_slice(&self.0);
        c
    }
}

impl PartialEq for FtWeights {
    fn eq(&self, other: &FtWeights) -> bool {
        self[..] == other[..]
    }
}

impl Eq for FtWeights {}

impl fmt::Debug for FtWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FtWeights({} blocks)", self.len())
    }
}

/// A dense layer: `weights[o * inputs + i]` links input `i` to output `o` (the file's
/// padding columns are not kept).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Dense {
    /// Inputs.
    pub inputs: usize,
    /// One bias per output.
    pub biases: Vec<i32>,
    /// `outputs x inputs`, output-major.
    pub weights: Vec<i8>,
}

impl Dense {
    /// Outputs.
    pub fn outputs(&self) -> usize {
        self.biases.len()
    }
}

/// Everything a YaneuraOu net file holds.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Params {
    /// The shape.
    pub shape: Shape,
    /// Feature-transformer biases, L1.
    pub ft_biases: Vec<i16>,
    /// Feature-transformer weights, inputs x L1 in blocks: input `f`'s row is blocks
    /// `f * L1 / 32 ..`.
    pub ft_weights: FtWeights,
    /// The dense layers: `2 * L1 -> L2`, `L2 -> L3`, `L3 -> 1`.
    pub dense: [Dense; 3],
}

impl Params {
    /// Input `f`'s row of feature-transformer weights.
    pub fn ft_row(&self, f: usize) -> &[i16] {
        let l1 = self.shape.l1;
        &self.ft_weights.lanes()[f * l1..(f + 1) * l1]
    }
}

/// Why a file was not read as a YaneuraOu net.
#[derive(Debug)]
pub enum YoNetError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// The path is a directory.
    Directory,
    /// The file is shorter than a header (its length).
    TooShort(u64),
    /// The first word is not `VERSION` (the word found).
    Version(u32),
    /// The header's string length is beyond `MAX_ARCH_LEN` or the file.
    ArchLength(u32),
    /// A HalfKPE9 file, recognised by its size.
    HalfKpe9,
    /// No supported shape has a payload of this many bytes (the payload length, the
    /// architecture string).
    UnknownSize(u64, String),
    /// The file ended early, or changed while it was read.
    Truncated,
    /// The machine could not map the weights (their size in bytes).
    OutOfMemory(u64),
}

impl fmt::Display for YoNetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YoNetError::Io(e) => write!(f, "cannot read it: {e}"),
            YoNetError::Directory => write!(f, "it is a directory, not a net file"),
            YoNetError::TooShort(n) => write!(f, "{n} bytes, too short for a net file"),
            YoNetError::Version(v) => {
                write!(f, "version word 0x{v:08X}, not YaneuraOu's NNUE 0x{VERSION:08X} (nor a Kaname net)")
            }
            YoNetError::ArchLength(n) => write!(f, "its header's architecture string length {n} is impossible"),
            YoNetError::HalfKpe9 => write!(
                f,
                "a HalfKPE9 net (its size, {} bytes of parameters): Kaname reads HalfKP and K-P nets, not HalfKPE9",
                HALFKPE9_PAYLOAD
            ),
            YoNetError::UnknownSize(n, arch) => {
                let short: String = arch.chars().take(48).collect();
                write!(
                    f,
                    "{n} bytes of parameters match no shape Kaname reads (halfkp_256x2-32-32 has {}; see \
                     the README for the shapes); its string begins '{short}'",
                    Shape::HALFKP_256.payload_len()
                )
            }
            YoNetError::Truncated => write!(f, "the file ended early (truncated, or changed while read)"),
            YoNetError::OutOfMemory(n) => write!(f, "the machine cannot hold its {} MB of weights", n >> 20),
        }
    }
}

impl std::error::Error for YoNetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            YoNetError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for YoNetError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            YoNetError::Truncated
        } else {
            YoNetError::Io(e)
        }
    }
}

/// A net read from a file, with what was odd about it.
#[derive(Debug)]
pub struct YoNetFile {
    /// The parameters.
    pub params: Params,
    /// The file's architecture string.
    pub arch: String,
    /// Disagreements that did not stop the reading (hashes, the string).
    pub warnings: Vec<String>,
}

/// Whether `head` (a file's first bytes) starts with YaneuraOu's version word.
pub fn is_yo_net(head: &[u8]) -> bool {
    head.len() >= 4 && u32::from_le_bytes(head[..4].try_into().unwrap()) == VERSION
}

/// Reads the net at `path`.
pub fn load(path: impl AsRef<Path>) -> Result<YoNetFile, YoNetError> {
    let path = path.as_ref();
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(YoNetError::Directory);
    }
    let file = std::fs::File::open(path)?;
    read(BufReader::with_capacity(1 << 20, file), meta.len())
}

/// Reads a net of `len` bytes from `r`.
pub fn read(mut r: impl Read, len: u64) -> Result<YoNetFile, YoNetError> {
    if len < HEADER_LEN {
        return Err(YoNetError::TooShort(len));
    }
    let version = read_u32(&mut r)?;
    if version != VERSION {
        return Err(YoNetError::Version(version));
    }
    let file_hash = read_u32(&mut r)?;
    let arch_len = read_u32(&mut r)?;
    if arch_len > MAX_ARCH_LEN || arch_len as u64 > len - HEADER_LEN {
        return Err(YoNetError::ArchLength(arch_len));
    }
    let mut arch = vec![0u8; arch_len as usize];
    r.read_exact(&mut arch)?;
    let arch = String::from_utf8_lossy(&arch).into_owned();
    let payload = len - HEADER_LEN - arch_len as u64;
    if payload == HALFKPE9_PAYLOAD {
        return Err(YoNetError::HalfKpe9);
    }
    let shape = Shape::of_payload(payload).ok_or_else(|| YoNetError::UnknownSize(payload, arch.clone()))?;
    let mut warnings = Vec::new();
    if file_hash != shape.file_hash() {
        warnings.push(format!(
            "the header's hash 0x{file_hash:08X} is not {shape}'s 0x{:08X}; read as {shape}, by its size",
            shape.file_hash()
        ));
    }
    if let Some(named) = arch_shape(&arch) {
        if named != shape {
            warnings.push(format!("the architecture string names {named}, but the size is {shape}'s: read as {shape}"));
        }
    }
    let params = read_params(&mut r, shape, &mut warnings)?;
    let mut extra = [0u8; 1];
    if r.read(&mut extra)? != 0 {
        // The size was checked before reading, so the file grew meanwhile.
        return Err(YoNetError::Truncated);
    }
    Ok(YoNetFile { params, arch, warnings })
}

/// The shape an architecture string names, if it names a supported one: its feature
/// transformer (`[125388->256x2]`) and its first two layers' widths (`[32<-512]`,
/// `[32<-32]`).
pub fn arch_shape(arch: &str) -> Option<Shape> {
    let ft = arch.split_once("->")?.1;
    let l1: usize = ft.split_once('x')?.0.parse().ok()?;
    let inputs: usize = arch.split_once('[')?.1.split_once("->")?.0.parse().ok()?;
    // Layers from the output inward: [1<-L3], [L3<-L2], [L2<-2 L1].
    let widths: Vec<usize> = arch
        .match_indices("<-")
        .filter_map(|(i, _)| arch[..i].rsplit_once('[').and_then(|(_, n)| n.parse().ok()))
        .collect();
    let [_, l3, l2] = widths[..] else { return None };
    SUPPORTED.into_iter().find(|s| s.features.inputs() == inputs && (s.l1, s.l2, s.l3) == (l1, l2, l3))
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Reads `out.len()` little-endian values of `N` bytes each, a buffer at a time.
fn read_values<T: Copy, const N: usize>(
    r: &mut impl Read,
    out: &mut [T],
    decode: impl Fn([u8; N]) -> T,
) -> io::Result<()> {
    let mut buf = vec![0u8; (1 << 16) * N];
    for chunk in out.chunks_mut(1 << 16) {
        let bytes = &mut buf[..chunk.len() * N];
        r.read_exact(bytes)?;
        for (v, b) in chunk.iter_mut().zip(bytes.chunks_exact(N)) {
            *v = decode(b.try_into().unwrap());
        }
    }
    Ok(())
}

/// The sections after the header: the feature transformer and the dense layers, each after
/// its hash.
fn read_params(r: &mut impl Read, shape: Shape, warnings: &mut Vec<String>) -> Result<Params, YoNetError> {
    let mut check_hash = |r: &mut dyn Read, what: &str, want: u32| -> io::Result<()> {
        let got = read_u32(&mut &mut *r)?;
        if got != want {
            warnings.push(format!("the {what} section's hash 0x{got:08X} is not {shape}'s 0x{want:08X}"));
        }
        Ok(())
    };
    check_hash(r, "feature transformer", shape.ft_hash())?;
    let mut ft_biases = vec![0i16; shape.l1];
    read_values(r, &mut ft_biases, i16::from_le_bytes)?;
    let blocks = shape.features.inputs() * shape.l1 / BLOCK;
    let mut ft_weights = FtWeights::zeroed(blocks).ok_or(YoNetError::OutOfMemory((blocks * 64) as u64))?;
    read_values(r, ft_weights.lanes_mut(), i16::from_le_bytes)?;
    check_hash(r, "network", shape.network_hash())?;
    let mut layer = |inputs: usize, outputs: usize| -> io::Result<Dense> {
        let mut biases = vec![0i32; outputs];
        read_values(r, &mut biases, i32::from_le_bytes)?;
        let mut stored = vec![0i8; outputs * padded(inputs)];
        read_values(r, &mut stored, i8::from_le_bytes)?;
        let weights = stored.chunks_exact(padded(inputs)).flat_map(|row| row[..inputs].iter().copied()).collect();
        Ok(Dense { inputs, biases, weights })
    };
    let dense = [layer(2 * shape.l1, shape.l2)?, layer(shape.l2, shape.l3)?, layer(shape.l3, 1)?];
    Ok(Params { shape, ft_biases, ft_weights, dense })
}

/// Writes `p` as YaneuraOu writes a net of its shape (its hashes and architecture string,
/// zeros in the padding columns).
pub fn write(p: &Params, mut out: impl Write) -> io::Result<()> {
    let s = p.shape;
    let arch = s.arch_string();
    let mut head = Vec::new();
    for v in [VERSION, s.file_hash(), arch.len() as u32] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    head.extend_from_slice(arch.as_bytes());
    head.extend_from_slice(&s.ft_hash().to_le_bytes());
    for b in &p.ft_biases {
        head.extend_from_slice(&b.to_le_bytes());
    }
    out.write_all(&head)?;
    let mut buf = Vec::with_capacity(1 << 20);
    for chunk in p.ft_weights.lanes().chunks(1 << 19) {
        buf.clear();
        for w in chunk {
            buf.extend_from_slice(&w.to_le_bytes());
        }
        out.write_all(&buf)?;
    }
    buf.clear();
    buf.extend_from_slice(&s.network_hash().to_le_bytes());
    for d in &p.dense {
        for b in &d.biases {
            buf.extend_from_slice(&b.to_le_bytes());
        }
        for row in d.weights.chunks_exact(d.inputs) {
            buf.extend(row.iter().map(|&w| w as u8));
            buf.resize(buf.len() + padded(d.inputs) - d.inputs, 0);
        }
    }
    out.write_all(&buf)
}

/// Writes `p` to `path`.
pub fn save(p: &Params, path: impl AsRef<Path>) -> io::Result<()> {
    let mut f = io::BufWriter::new(std::fs::File::create(path)?);
    write(p, &mut f)?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::super::random;
    use super::*;

    fn bytes_of(p: &Params) -> Vec<u8> {
        let mut v = Vec::new();
        write(p, &mut v).unwrap();
        v
    }

    fn read_bytes(b: &[u8]) -> Result<YoNetFile, YoNetError> {
        read(b, b.len() as u64)
    }

    #[test]
    fn round_trip_every_shape_size() {
        let p = random::params(Shape::KP_256, 5);
        let b = bytes_of(&p);
        assert_eq!(b.len() as u64, 12 + Shape::KP_256.arch_string().len() as u64 + Shape::KP_256.payload_len());
        let back = read_bytes(&b).unwrap();
        assert_eq!(back.params, p);
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(arch_shape(&back.arch), Some(Shape::KP_256));
        for s in SUPPORTED {
            assert_eq!(arch_shape(&s.arch_string()), Some(s));
        }
    }

    /// The classic 178-byte string of Suisho5-era files names the common shape.
    #[test]
    fn classic_arch_string() {
        let classic = "Features=HalfKP(Friend)[125388->256x2],Network=AffineTransform[1<-32](ClippedReLU[32](\
                       AffineTransform[32<-32](ClippedReLU[32](AffineTransform[32<-512](InputSlice[512(0:512)])))))";
        assert_eq!(classic.len(), 178);
        assert_eq!(arch_shape(classic), Some(Shape::HALFKP_256));
        assert_eq!(arch_shape("garbage"), None);
        assert_eq!(arch_shape("Features=HalfKP(Friend)[125388->256x2]"), None);
    }

    /// Cut anywhere, a file is refused without a panic.
    #[test]
    fn truncated_anywhere() {
        let b = bytes_of(&random::params(Shape::KP_256, 6));
        for cut in (0..b.len()).step_by(997).chain([b.len() - 1, 3, 11, 12]) {
            // The length claims the whole file, the reader gets less: truncated (or too
            // short for the header).
            assert!(read(&b[..cut], b.len() as u64).is_err(), "cut at {cut}");
            // A file that is really this short has a size no shape has.
            assert!(read_bytes(&b[..cut]).is_err(), "cut at {cut}");
        }
        assert!(matches!(read_bytes(&b[..b.len() - 1]), Err(YoNetError::UnknownSize(..))));
        assert!(matches!(read_bytes(&b[..5]), Err(YoNetError::TooShort(5))));
    }

    #[test]
    fn damaged_headers() {
        let good = bytes_of(&random::params(Shape::KP_256, 7));
        let mut b = good.clone();
        b[0] ^= 1;
        assert!(matches!(read_bytes(&b), Err(YoNetError::Version(_))));
        // A string length beyond the file.
        let mut b = good.clone();
        b[8..12].copy_from_slice(&(good.len() as u32).to_le_bytes());
        assert!(matches!(read_bytes(&b), Err(YoNetError::ArchLength(_))));
        let mut b = good.clone();
        b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(read_bytes(&b), Err(YoNetError::ArchLength(_))));
        // Trailing bytes: a size no shape has.
        let mut b = good.clone();
        b.push(0);
        assert!(matches!(read_bytes(&b), Err(YoNetError::UnknownSize(..))));
    }

    /// A wrong hash, or a string naming another shape, loads with a warning.
    #[test]
    fn hash_and_string_disagreements_warn() {
        let p = random::params(Shape::KP_256, 8);
        let mut b = bytes_of(&p);
        b[4] ^= 0xFF;
        let f = read_bytes(&b).unwrap();
        assert_eq!(f.params, p);
        assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
        assert!(f.warnings[0].contains("hash"));
        // The string of another shape with the same length: "256x2" -> "512x2" is not K-P, so
        // take a HalfKP string of the same length instead.
        let arch = Shape::KP_256.arch_string();
        let other = arch.replace("K+P[1710", "K+P[9999");
        assert_eq!(other.len(), arch.len());
        let mut b = bytes_of(&p);
        let at = b.windows(8).position(|w| w == b"K+P[1710").unwrap();
        b[at..at + 8].copy_from_slice(b"K+P[9999");
        let f = read_bytes(&b).unwrap();
        assert!(f.warnings.is_empty(), "an unknown string is not a disagreement: {:?}", f.warnings);
        let mut b = bytes_of(&p);
        let at = b.windows(8).position(|w| w == b"[32<-32]").unwrap();
        b[at..at + 8].copy_from_slice(b"[32<-16]");
        let f = read_bytes(&b).unwrap();
        assert!(f.warnings.is_empty(), "K-P with L2 16 is no supported shape: {:?}", f.warnings);
        // Section hashes.
        let mut b = bytes_of(&p);
        let ft = 12 + arch.len();
        b[ft] ^= 1;
        let f = read_bytes(&b).unwrap();
        assert!(f.warnings.iter().any(|w| w.contains("feature transformer")), "{:?}", f.warnings);
    }

    #[test]
    fn errors_name_what_was_found() {
        let e = YoNetError::UnknownSize(1234, "Features=X".into()).to_string();
        assert!(e.contains("1234") && e.contains("Features=X"), "{e}");
        assert!(YoNetError::HalfKpe9.to_string().contains("HalfKPE9"));
        assert!(YoNetError::Version(0x1234).to_string().contains("0x00001234"));
    }

    #[test]
    fn directories_and_missing_files() {
        let dir = std::env::temp_dir();
        assert!(matches!(load(&dir), Err(YoNetError::Directory)));
        assert!(matches!(load(dir.join("kaname-no-such-net.bin")), Err(YoNetError::Io(_))));
    }
}
