//! The architectures `kaname train` learns, and what the rest of the trainer needs to know
//! about each: the first layer's rows, the factor table's period, the layer widths, whether
//! there is a PSQT term, the output's integer scale and the file the net is written as.
//!
//! | | `Arch::HalfKB9` | `Arch::Yo(shape)` (HalfKP) |
//! |---|---|---|
//! | net | Kaname's own (`nnue` module doc) | YaneuraOu's (`yo` module doc) |
//! | first-layer rows | `NUM_FEATURES` = 21,096 | 81 x 1548 = 125,388 |
//! | active per perspective | 40 | 38 (kings are not inputs) |
//! | factor rows (`row % period`) | 2,344 (the bucket-free feature) | 1,548 (the BonaPiece, "P") |
//! | widths | 256, 32, 32 | the shape's L1, L2, L3 |
//! | PSQT | yes | no |
//! | output int per logit | `QA * QB` = 8,128 | `OUTPUT_SCALE * FV_SCALE` = 19,200 |
//! | file | `.knn` (`nnue::netfile`) | `nn.bin` (`yo::file`) |
//!
//! Every other scale is common: first-layer weights and biases x127 as i16, hidden weights
//! x64 as i8, hidden biases x(127 x 64) as i32, dense sums `>> 6` clipped to 0..=127.

use crate::nnue::features::{ACTIVE_FEATURES, FEATURES_PER_BUCKET, NUM_FEATURES};
use crate::nnue::{OUTPUT_SCALE, QA, QB};
use crate::yo::shape::{FeatureSet, FE_END};
use crate::yo::{Shape, DEFAULT_FV_SCALE};
use std::fmt;
use std::str::FromStr;

/// A net architecture the trainer learns.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Arch {
    /// Kaname's `HalfKB9-2344x256x2-32-32-1+PSQT`, written as a `.knn` file.
    #[default]
    HalfKB9,
    /// A YaneuraOu net of a HalfKP shape, written as `nn.bin`. Only HalfKP shapes are
    /// accepted (`Arch::yo`).
    Yo(Shape),
}

/// The file a trained net is written as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NetFormat {
    /// Kaname's net file (`nnue::netfile`).
    Knn,
    /// YaneuraOu's `nn.bin` (`yo::file`).
    YoBin,
}

/// YaneuraOu's `FV_SCALE` the exported nets are made for: its value is the output divided by
/// it, so the output is `OUTPUT_SCALE * FV_SCALE` per unit of the float net's logit.
pub const FV_SCALE: i32 = DEFAULT_FV_SCALE;

/// Widest `L2` of any architecture (the integer forward keeps its sums in fixed arrays).
pub const MAX_L2: usize = 32;
/// Widest `L3` of any architecture.
pub const MAX_L3: usize = 96;

impl Arch {
    /// YaneuraOu's common `halfkp_256x2-32-32`.
    pub const HALFKP_256: Arch = Arch::Yo(Shape::HALFKP_256);

    /// The architecture of a YaneuraOu shape, if the trainer learns it (HalfKP only: K-P has
    /// no king-relative rows to factorise and no trainer path here).
    pub fn yo(shape: Shape) -> Option<Arch> {
        (shape.features == FeatureSet::HalfKP).then_some(Arch::Yo(shape))
    }

    /// Rows of the first layer (inputs of the feature transformer).
    #[inline(always)]
    pub fn inputs(self) -> usize {
        match self {
            Arch::HalfKB9 => NUM_FEATURES,
            Arch::Yo(s) => s.features.inputs(),
        }
    }

    /// Rows of the factor table: row `r` of the first layer also gets factor row
    /// `r % factor_period()`, shared by every king bucket (HalfKB9) or king square (HalfKP).
    #[inline(always)]
    pub fn factor_period(self) -> usize {
        match self {
            Arch::HalfKB9 => FEATURES_PER_BUCKET,
            Arch::Yo(_) => FE_END,
        }
    }

    /// Features active in every position (of all 40 pieces), per perspective.
    #[inline(always)]
    pub fn active(self) -> usize {
        match self {
            Arch::HalfKB9 => ACTIVE_FEATURES,
            Arch::Yo(_) => crate::yo::features::PIECE_SLOTS,
        }
    }

    /// First-layer outputs per perspective.
    #[inline(always)]
    pub fn l1(self) -> usize {
        match self {
            Arch::HalfKB9 => crate::nnue::L1,
            Arch::Yo(s) => s.l1,
        }
    }

    /// Outputs of the first dense layer.
    #[inline(always)]
    pub fn l2(self) -> usize {
        match self {
            Arch::HalfKB9 => crate::nnue::L2,
            Arch::Yo(s) => s.l2,
        }
    }

    /// Outputs of the second dense layer.
    #[inline(always)]
    pub fn l3(self) -> usize {
        match self {
            Arch::HalfKB9 => crate::nnue::L3,
            Arch::Yo(s) => s.l3,
        }
    }

    /// Whether every feature also has a weight straight to the output (Kaname's PSQT term).
    #[inline(always)]
    pub fn has_psqt(self) -> bool {
        matches!(self, Arch::HalfKB9)
    }

    /// The file the net is written as.
    pub fn format(self) -> NetFormat {
        match self {
            Arch::HalfKB9 => NetFormat::Knn,
            Arch::Yo(_) => NetFormat::YoBin,
        }
    }

    /// The usual extension of its files (`knn`, `bin`).
    pub fn extension(self) -> &'static str {
        match self.format() {
            NetFormat::Knn => "knn",
            NetFormat::YoBin => "bin",
        }
    }

    /// The integer output per unit of the float net's output logit (the output bias's scale).
    /// Kaname: `QA * QB`, and the engine multiplies by `OUTPUT_SCALE / (QA * QB)`.
    /// YaneuraOu: `OUTPUT_SCALE * FV_SCALE`, so that its value, the output divided by
    /// `FV_SCALE`, is the logit times `OUTPUT_SCALE` in Kaname's units.
    #[inline(always)]
    pub fn out_scale(self) -> f32 {
        match self {
            Arch::HalfKB9 => (QA * QB) as f32,
            Arch::Yo(_) => (OUTPUT_SCALE * FV_SCALE) as f32,
        }
    }

    /// The output layer's weight scale: the output scale over the activation scale `QA`
    /// (Kaname's is `QB`, as every dense layer's; YaneuraOu's 19200 / 127 = 151.2).
    #[inline(always)]
    pub fn out_weight_scale(self) -> f32 {
        match self {
            Arch::HalfKB9 => QB as f32,
            Arch::Yo(_) => self.out_scale() / QA as f32,
        }
    }

    /// Largest |output weight| the int8 output layer holds: 127 over its scale (Kaname
    /// 127/64 = 1.98, YaneuraOu 127 x 127 / 19200 = 0.84).
    #[inline(always)]
    pub fn out_clip(self) -> f32 {
        127.0 / self.out_weight_scale()
    }

    /// Kaname units of a raw integer output (not rounded: the gap to the float net is
    /// measured before the engine's own rounding).
    #[inline(always)]
    pub fn raw_to_eval(self, raw: i32) -> f64 {
        raw as f64 * OUTPUT_SCALE as f64 / self.out_scale() as f64
    }
}

impl fmt::Display for Arch {
    /// `halfkb9`, or the YaneuraOu shape's name (`halfkp_256x2-32-32`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arch::HalfKB9 => write!(f, "halfkb9"),
            Arch::Yo(s) => write!(f, "{s}"),
        }
    }
}

/// An architecture name `Arch::from_str` does not know.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownArch(pub String);

impl fmt::Display for UnknownArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown architecture '{}' (expected halfkb9, Kaname's own net written as .knn, or a YaneuraOu \
             HalfKP shape written as nn.bin: halfkp_<L1>x2-<L2>-<L3> with L1 256/512/768/1024, L2 8/16/32, \
             L3 32/64/96, e.g. halfkp_256x2-32-32)",
            self.0
        )
    }
}

impl std::error::Error for UnknownArch {}

impl FromStr for Arch {
    type Err = UnknownArch;

    /// `halfkb9` (or Kaname's full `nnue::ARCH` name) or a HalfKP shape name, any case.
    fn from_str(s: &str) -> Result<Arch, UnknownArch> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("halfkb9") || t.eq_ignore_ascii_case(crate::nnue::ARCH) {
            return Ok(Arch::HalfKB9);
        }
        t.parse::<Shape>().ok().and_then(Arch::yo).ok_or_else(|| UnknownArch(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!("halfkb9".parse::<Arch>(), Ok(Arch::HalfKB9));
        assert_eq!(crate::nnue::ARCH.parse::<Arch>(), Ok(Arch::HalfKB9));
        assert_eq!("halfkp_256x2-32-32".parse::<Arch>(), Ok(Arch::HALFKP_256));
        for s in crate::yo::shape::SUPPORTED {
            let parsed = s.to_string().parse::<Arch>();
            if s.features == FeatureSet::HalfKP {
                assert_eq!(parsed, Ok(Arch::Yo(s)));
                assert_eq!(Arch::Yo(s).to_string(), s.to_string());
            } else {
                assert!(parsed.is_err(), "{s} is not trained");
            }
        }
        assert_eq!(Arch::HalfKB9.to_string(), "halfkb9");
        let e = "kp_256x2-32-32".parse::<Arch>().unwrap_err().to_string();
        assert!(e.contains("kp_256x2-32-32") && e.contains("halfkb9"), "{e}");
        assert!("halfkp_100x2-32-32".parse::<Arch>().is_err());
    }

    /// The scales the module doc and the brief of the YaneuraOu export state.
    #[test]
    fn scales() {
        let y = Arch::HALFKP_256;
        assert_eq!(
            (y.inputs(), y.factor_period(), y.active(), y.l1(), y.l2(), y.l3()),
            (125_388, 1548, 38, 256, 32, 32)
        );
        assert_eq!(y.out_scale(), 19_200.0);
        assert!((y.out_clip() - 127.0 * 127.0 / 19_200.0).abs() < 1e-6);
        assert_eq!(y.raw_to_eval(16 * 90), 90.0);
        let k = Arch::HalfKB9;
        assert_eq!((k.inputs(), k.factor_period(), k.active(), k.has_psqt()), (21_096, 2344, 40, true));
        assert_eq!((k.out_scale(), k.out_clip()), (8128.0, 127.0 / 64.0));
        for s in crate::yo::shape::SUPPORTED {
            assert!(s.l2 <= MAX_L2 && s.l3 <= MAX_L3);
        }
    }
}
