//! The shapes of YaneuraOu nets Kaname reads: the feature set and the three layer widths,
//! their names (`halfkp_256x2-32-32`), the parameter counts and file sizes that identify
//! them, and the hashes and architecture string YaneuraOu writes into a file of each.
//!
//! A file says its shape three ways: the hash in its header, its architecture string and its
//! size. The string is not reliable (nnue-pytorch's shogi branches write the 256x2-32-32
//! string for every size) and HalfKPE9 reuses HalfKP's hashes, but the size is unique among
//! all the shapes here, so the reader goes by the size (`Shape::of_payload`) and only warns
//! about a hash or string that disagrees.

use std::fmt;
use std::str::FromStr;

/// The input features of a net.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FeatureSet {
    /// HalfKP(Friend): every non-king piece, on the board or in hand, relative to the
    /// perspective's own king square (81 x 1548 = 125,388 inputs, 38 active).
    HalfKP,
    /// K-P: the two kings' squares (162 inputs) and every non-king piece (1548), not
    /// relative to anything (1710 inputs, 40 active).
    KP,
}

/// `fe_end`: BonaPieces of the non-king pieces (hand and board), YaneuraOu's `fe_end`.
pub const FE_END: usize = 1548;
/// Board squares, YaneuraOu's `SQ_NB`.
const SQ_NB: usize = 81;

impl FeatureSet {
    /// Inputs of the feature transformer.
    pub const fn inputs(self) -> usize {
        match self {
            FeatureSet::HalfKP => SQ_NB * FE_END,
            FeatureSet::KP => FE_END + 2 * SQ_NB,
        }
    }

    /// The name in shape names (`halfkp`, `kp`).
    pub const fn short_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKP => "halfkp",
            FeatureSet::KP => "kp",
        }
    }

    /// The name YaneuraOu writes in a file's architecture string.
    const fn yo_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKP => "HalfKP(Friend)",
            FeatureSet::KP => "K+P",
        }
    }

    /// `RawFeatures::kHashValue` (`half_kp.h:24-25`: 0x5D69D5B9 ^ kFriend; `feature_set.h:138`
    /// for K+P: K ^ (P << 1) ^ (P >> 31) with `k.h`'s and `p.h`'s hashes).
    const fn hash(self) -> u32 {
        match self {
            FeatureSet::HalfKP => 0x5D69_D5B9 ^ 1,
            FeatureSet::KP => {
                let (k, p) = (0xD3CE_E169u32, 0x764C_FB4Bu32);
                k ^ (p << 1) ^ (p >> 31)
            }
        }
    }
}

/// A net's shape: features, then `L1` accumulator outputs per perspective (the input of the
/// dense part is `2 * L1`), dense layers of `L2` and `L3` outputs, one output.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Shape {
    /// The input features.
    pub features: FeatureSet,
    /// Accumulator width per perspective.
    pub l1: usize,
    /// Outputs of the first dense layer.
    pub l2: usize,
    /// Outputs of the second dense layer.
    pub l3: usize,
}

/// Widths of the dense layers' inputs are padded to this in a file
/// (`affine_transform.h`: `kPaddedInputDimensions = CeilToMultiple(in, kMaxSimdWidth)`).
pub const PAD: usize = 32;

/// `n` rounded up to a multiple of `PAD`.
pub const fn padded(n: usize) -> usize {
    n.div_ceil(PAD) * PAD
}

/// Every shape Kaname reads: HalfKP with L1 in {256, 512, 768, 1024}, L2 in {8, 16, 32}, L3
/// in {32, 64, 96} (the shapes of Suisho5 and the tanuki- nets, Shinden3, AobaNNUE and the
/// nnue-pytorch branches), and K-P 256x2-32-32.
pub const SUPPORTED: [Shape; 37] = {
    let mut all = [Shape { features: FeatureSet::KP, l1: 256, l2: 32, l3: 32 }; 37];
    let (l1s, l2s, l3s) = ([256, 512, 768, 1024], [8, 16, 32], [32, 64, 96]);
    let mut i = 0;
    while i < 36 {
        all[i] = Shape { features: FeatureSet::HalfKP, l1: l1s[i / 9], l2: l2s[i / 3 % 3], l3: l3s[i % 3] };
        i += 1;
    }
    all
};

/// Payload bytes of a HalfKPE9 256x2-32-32 file, which has HalfKP's hashes but 9 times the
/// inputs (HalfKP times three effect counts of each side): refused by its size, by name.
pub const HALFKPE9_PAYLOAD: u64 = Shape::payload_with_inputs(1_128_492, 256, 32, 32);

impl Shape {
    /// The common shape of Suisho5 and the tanuki- nets.
    pub const HALFKP_256: Shape = Shape { features: FeatureSet::HalfKP, l1: 256, l2: 32, l3: 32 };
    /// The nnue-pytorch branches' large shape.
    pub const HALFKP_1024_8_32: Shape = Shape { features: FeatureSet::HalfKP, l1: 1024, l2: 8, l3: 32 };
    /// YaneuraOu's small K-P shape.
    pub const KP_256: Shape = Shape { features: FeatureSet::KP, l1: 256, l2: 32, l3: 32 };

    /// Bytes of a file after its header (version, hash, string length and string): the
    /// two section hashes and every parameter.
    pub const fn payload_len(self) -> u64 {
        Shape::payload_with_inputs(self.features.inputs(), self.l1, self.l2, self.l3)
    }

    const fn payload_with_inputs(inputs: usize, l1: usize, l2: usize, l3: usize) -> u64 {
        let ft = 4 + 2 * l1 + 2 * inputs * l1;
        (ft + 4 + dense_len(l2, 2 * l1) + dense_len(l3, l2) + dense_len(1, l3)) as u64
    }

    /// The supported shape whose payload is `len` bytes (the sizes are all different).
    pub fn of_payload(len: u64) -> Option<Shape> {
        SUPPORTED.into_iter().find(|s| s.payload_len() == len)
    }

    /// The feature transformer's section hash (`nnue_feature_transformer.h:167-174`: the
    /// feature set's hash xor its output width).
    pub const fn ft_hash(self) -> u32 {
        self.features.hash() ^ (2 * self.l1) as u32
    }

    /// The dense part's section hash, layer by layer from the input slice up
    /// (`input_slice.h:40-42`, `affine_transform.h:195-201`, `clipped_relu.h:46-50`).
    pub const fn network_hash(self) -> u32 {
        let slice = 0xEC42_E90Du32 ^ (2 * self.l1) as u32;
        let l2 = crelu_hash(affine_hash(slice, self.l2));
        let l3 = crelu_hash(affine_hash(l2, self.l3));
        affine_hash(l3, 1)
    }

    /// The hash of a file's header: `ft_hash ^ network_hash` (`evaluate_nnue.h:122-123`).
    pub const fn file_hash(self) -> u32 {
        self.ft_hash() ^ self.network_hash()
    }

    /// The architecture string YaneuraOu writes for this shape (`GetArchitectureString`,
    /// `evaluate_nnue.cpp:253-261`), as its current sources name the layers.
    pub fn arch_string(self) -> String {
        let (l1, l2, l3) = (self.l1, self.l2, self.l3);
        format!(
            "Features={}[{}->{l1}x2],Network=AffineTransform[1<-{l3}](ClippedReLU[{l3}](AffineTransform[{l3}<-{l2}](\
             ClippedReLU[{l2}](AffineTransformSparseInput[{l2}<-{}](InputSlice[{}(0:{})])))))",
            self.features.yo_name(),
            self.features.inputs(),
            2 * l1,
            2 * l1,
            2 * l1
        )
    }
}

/// Bytes of a dense layer in a file: i32 biases, then i8 weights over padded inputs.
const fn dense_len(outputs: usize, inputs: usize) -> usize {
    4 * outputs + outputs * padded(inputs)
}

const fn affine_hash(prev: u32, outputs: usize) -> u32 {
    let mut h = 0xCC03_DAE4u32.wrapping_add(outputs as u32);
    h ^= prev >> 1;
    h ^= prev << 31;
    h
}

const fn crelu_hash(prev: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(prev)
}

impl fmt::Display for Shape {
    /// `halfkp_256x2-32-32`, the naming of YaneuraOu's architecture headers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}x2-{}-{}", self.features.short_name(), self.l1, self.l2, self.l3)
    }
}

/// A shape name `Shape::from_str` does not know.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownShape(pub String);

impl fmt::Display for UnknownShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> =
            [Shape::HALFKP_256, Shape::HALFKP_1024_8_32, Shape::KP_256].iter().map(|s| s.to_string()).collect();
        write!(
            f,
            "unknown net shape '{}' (expected halfkp_<L1>x2-<L2>-<L3> with L1 256/512/768/1024, L2 8/16/32, \
             L3 32/64/96, or kp_256x2-32-32; e.g. {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownShape {}

impl FromStr for Shape {
    type Err = UnknownShape;

    /// A supported shape by its name (`halfkp_256x2-32-32`, any case).
    fn from_str(s: &str) -> Result<Shape, UnknownShape> {
        let t = s.trim().to_ascii_lowercase();
        SUPPORTED.into_iter().find(|shape| shape.to_string() == t).ok_or_else(|| UnknownShape(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes and sizes of `../shared/reference/yaneuraou-nets.md` 1.1, 2.1 (computed there
    /// from YaneuraOu's code, and Suisho5's size as an Android app checks it).
    #[test]
    fn known_hashes_and_sizes() {
        let s = Shape::HALFKP_256;
        assert_eq!((s.ft_hash(), s.network_hash(), s.file_hash()), (0x5D69_D7B8, 0x6333_7156, 0x3E5A_A6EE));
        assert_eq!(s.payload_len(), 64_216_868 + 8);
        let classic_string = 178;
        assert_eq!(12 + classic_string + s.payload_len(), 64_217_066);
        assert_eq!(Shape::HALFKP_1024_8_32.ft_hash(), 0x5D69_DDB8);
        assert_eq!(Shape::HALFKP_1024_8_32.file_hash(), 0x3E5A_B7EC);
        assert_eq!(Shape::HALFKP_1024_8_32.payload_len(), 256_814_276 + 8);
        assert_eq!(Shape::KP_256.file_hash(), 0x5C64_64A9);
        assert_eq!(Shape::KP_256.payload_len(), 893_732 + 8);
        let shinden = Shape { features: FeatureSet::HalfKP, l1: 512, l2: 8, l3: 64 };
        assert_eq!(shinden.payload_len(), 128_408_932 + 8);
        let aoba = Shape { features: FeatureSet::HalfKP, l1: 768, l2: 16, l3: 64 };
        assert_eq!(aoba.payload_len(), 192_624_516 + 8);
        assert_eq!(HALFKPE9_PAYLOAD, 577_806_116 + 8);
    }

    /// A file's size tells its shape: no two shapes (nor HalfKPE9) share a payload size.
    #[test]
    fn payload_sizes_are_unique() {
        let mut sizes: Vec<u64> = SUPPORTED.iter().map(|s| s.payload_len()).collect();
        sizes.push(HALFKPE9_PAYLOAD);
        let n = sizes.len();
        sizes.sort();
        sizes.dedup();
        assert_eq!(sizes.len(), n);
        for s in SUPPORTED {
            assert_eq!(Shape::of_payload(s.payload_len()), Some(s));
        }
        assert_eq!(Shape::of_payload(HALFKPE9_PAYLOAD), None);
    }

    #[test]
    fn names_round_trip() {
        for s in SUPPORTED {
            assert_eq!(s.to_string().parse::<Shape>(), Ok(s));
        }
        assert_eq!("HalfKP_256x2-32-32".parse::<Shape>(), Ok(Shape::HALFKP_256));
        assert_eq!(Shape::KP_256.to_string(), "kp_256x2-32-32");
        assert!("halfkp_128x2-32-32".parse::<Shape>().is_err());
        assert!("kp_512x2-32-32".parse::<Shape>().is_err());
        assert!("".parse::<Shape>().is_err());
    }

    #[test]
    fn arch_string_of_the_common_shape() {
        assert_eq!(
            Shape::HALFKP_256.arch_string(),
            "Features=HalfKP(Friend)[125388->256x2],Network=AffineTransform[1<-32](ClippedReLU[32](\
             AffineTransform[32<-32](ClippedReLU[32](AffineTransformSparseInput[32<-512](InputSlice[512(0:512)])))))"
        );
    }
}
