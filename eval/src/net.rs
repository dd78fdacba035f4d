//! `Net`: a loaded network of either family, as the search and the front end pass it
//! around: Kaname's own (`nnue`, `.knn`) or YaneuraOu's (`yo`, `nn.bin`). Which one a file
//! holds is told by its first bytes (`KANAMENN` or YaneuraOu's version word), never by its
//! name. Cloning a `Net` clones a pointer: the weights are held once per process.

use crate::nnue::{self, Network};
use crate::yo::{self, YoNet, YoNetFile};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// A net to evaluate with.
#[derive(Clone)]
pub enum Net {
    /// Kaname's own architecture.
    Kaname(Arc<Network>),
    /// A YaneuraOu net.
    Yo(Arc<YoNet>),
}

/// Why a net file was not loaded.
#[derive(Debug)]
pub enum NetLoadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The path is a directory.
    Directory,
    /// A Kaname net file that was refused.
    Kaname(nnue::netfile::NetFileError),
    /// A YaneuraOu net file that was refused.
    Yo(yo::YoNetError),
    /// Neither family's first bytes (the first four bytes, little-endian).
    Unknown(u32),
}

impl fmt::Display for NetLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetLoadError::Io(e) => write!(f, "cannot read it: {e}"),
            NetLoadError::Directory => write!(f, "it is a directory, not a net file"),
            NetLoadError::Kaname(e) => write!(f, "Kaname net: {e}"),
            NetLoadError::Yo(e) => write!(f, "YaneuraOu net: {e}"),
            NetLoadError::Unknown(w) => write!(
                f,
                "neither a Kaname net (.knn, starts with KANAMENN) nor a YaneuraOu NNUE net (nn.bin, starts with \
                 version word 0x{:08X}); its first word is 0x{w:08X}",
                yo::file::VERSION
            ),
        }
    }
}

impl std::error::Error for NetLoadError {}

/// A loaded net, with what was odd about its file.
#[derive(Debug)]
pub struct Loaded {
    /// The net.
    pub net: Net,
    /// Warnings to pass on (a YaneuraOu file whose hash or string disagrees with its size).
    pub warnings: Vec<String>,
}

impl Net {
    /// The net at `path`, of whichever family its first bytes say.
    pub fn load(path: impl AsRef<Path>) -> Result<Loaded, NetLoadError> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(NetLoadError::Io)?;
        if meta.is_dir() {
            return Err(NetLoadError::Directory);
        }
        let mut head = [0u8; 8];
        let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(NetLoadError::Io)?;
        let head = &head[..n];
        if head == nnue::netfile::MAGIC {
            let q = nnue::netfile::load(path).map_err(NetLoadError::Kaname)?;
            return Ok(Loaded { net: Net::Kaname(Arc::new(Network::from_quant(&q))), warnings: Vec::new() });
        }
        if yo::file::is_yo_net(head) {
            let YoNetFile { params, warnings, .. } = yo::file::load(path).map_err(NetLoadError::Yo)?;
            return Ok(Loaded { net: Net::Yo(Arc::new(YoNet::new(params))), warnings });
        }
        let mut word = [0u8; 4];
        word[..n.min(4)].copy_from_slice(&head[..n.min(4)]);
        Err(NetLoadError::Unknown(u32::from_le_bytes(word)))
    }

    /// The net built into the binary (Kaname's default), if it reads.
    pub fn embedded() -> Option<Net> {
        nnue::embedded().map(Net::Kaname)
    }

    /// Whether both are the same loaded net (not just equal weights).
    pub fn same(&self, other: &Net) -> bool {
        match (self, other) {
            (Net::Kaname(a), Net::Kaname(b)) => Arc::ptr_eq(a, b),
            (Net::Yo(a), Net::Yo(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The architecture, for people (`HalfKB9-2344x256x2-32-32-1+PSQT`, `halfkp_256x2-32-32`).
    pub fn architecture(&self) -> String {
        match self {
            Net::Kaname(_) => nnue::ARCH.to_string(),
            Net::Yo(n) => n.shape().to_string(),
        }
    }

    /// Whether this is a YaneuraOu net (evaluated in YaneuraOu's units, shown in its cp).
    pub fn is_yo(&self) -> bool {
        matches!(self, Net::Yo(_))
    }

    /// The static value of `pos` from the side to move's view, computed from scratch
    /// (`fv_scale` applies to YaneuraOu nets only).
    pub fn evaluate_full(&self, pos: &engine::Position, fv_scale: i32) -> crate::Value {
        match self {
            Net::Kaname(n) => n.evaluate_full(pos),
            Net::Yo(n) => n.evaluate_full(pos, fv_scale),
        }
    }
}

impl fmt::Debug for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Net({})", self.architecture())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("kaname-net-test-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// The family is told by the content, not the name.
    #[test]
    fn loads_either_family_by_content() {
        let mut yo_bytes = Vec::new();
        yo::file::write(&yo::random::params(yo::Shape::KP_256, 3), &mut yo_bytes).unwrap();
        let p = temp("looks-like.knn", &yo_bytes);
        let l = Net::load(&p).unwrap();
        assert!(l.net.is_yo() && l.warnings.is_empty());
        assert_eq!(l.net.architecture(), "kp_256x2-32-32");
        let mut knn = Vec::new();
        nnue::netfile::write(&nnue::QuantNet::random(4), &mut knn).unwrap();
        let p2 = temp("nn.bin", &knn);
        assert!(!Net::load(&p2).unwrap().net.is_yo());
        let p3 = temp("junk", b"hello world");
        let e = Net::load(&p3).unwrap_err().to_string();
        assert!(e.contains("0x6C6C6568"), "{e}");
        let p4 = temp("empty", b"");
        assert!(matches!(Net::load(&p4), Err(NetLoadError::Unknown(0))));
        assert!(matches!(Net::load(std::env::temp_dir()), Err(NetLoadError::Directory)));
        for p in [p, p2, p3, p4] {
            std::fs::remove_file(p).unwrap();
        }
    }

    #[test]
    fn same_is_identity() {
        let a = Net::Yo(Arc::new(YoNet::new(yo::random::params(yo::Shape::KP_256, 3))));
        let b = Net::Yo(Arc::new(YoNet::new(yo::random::params(yo::Shape::KP_256, 3))));
        assert!(a.same(&a.clone()));
        assert!(!a.same(&b));
    }
}
