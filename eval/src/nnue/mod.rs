//! Kaname's neural network evaluation (NNUE): features, the quantised net and its file
//! format, the incrementally updated accumulator, and the dense layers.
//!
//! Architecture `HalfKB9-2344x256x2-32-32-1+PSQT`:
//! - input: `features::NUM_FEATURES` sparse features per perspective (40 active, see
//!   `features`);
//! - first layer: `L1` = 256 int16 outputs per perspective, kept incrementally
//!   (the accumulator); both perspectives share the weights;
//! - the side to move's 256 then the other side's 256, clipped to 0..=127 (CReLU) as u8;
//! - dense 512 -> 32 (int8 weights, int32 biases), >> `WEIGHT_SHIFT`, clipped to 0..=127;
//! - dense 32 -> 32, the same;
//! - dense 32 -> 1, plus the PSQT term: every feature also has one int32 weight straight to
//!   the output (scale `QA * QB`), summed per perspective alongside the accumulator; the
//!   term is (side to move's sum - other side's sum) / 2. The int32 total times
//!   `OUTPUT_SCALE` / (`QA` * `QB`) is the evaluation in Kaname's units (a pawn is 90) from
//!   the side to move's point of view.
//!
//! Why the PSQT term (Stockfish's HalfKAv2 has one too): the first net without it, trained on
//! 1.25 M positions, had to learn piece values through the clipped hidden layers and did it
//! badly (it scored a missing enemy pawn as a loss of 14 units, a rook at a third of its
//! value) and lost 1-11 to the classical evaluation. A linear weight per feature learns
//! material and placement from little data; the layers then learn what is not linear.
//!
//! Quantisation (float value = integer / scale): PSQT weights scale `QA * QB`; first-layer
//! weights and biases and the
//! accumulator scale `QA` = 127 (an activation of 1.0 is 127); dense weights scale `QB` = 64
//! (so a float weight must lie within +-127/64); dense biases scale `QA * QB`. The float
//! network's output y is a win-rate logit: the evaluation is `y * OUTPUT_SCALE` and the
//! win rate `1 / (1 + exp(-y))`.

pub mod accumulator;
pub mod features;
pub mod layers;
pub mod netfile;
pub mod network;
pub(crate) mod stack;

pub use accumulator::Accumulator;
pub use network::Network;

/// First-layer outputs per perspective.
pub const L1: usize = 256;
/// Outputs of the first dense layer.
pub const L2: usize = 32;
/// Outputs of the second dense layer.
pub const L3: usize = 32;
/// Scale of the first layer and of activations.
pub const QA: i32 = 127;
/// Scale of dense-layer weights.
pub const QB: i32 = 64;
/// log2(QB): a dense layer's int32 sum is shifted right by this to return to activation scale.
pub const WEIGHT_SHIFT: u32 = 6;
/// Kaname units per unit of the network's output logit.
///
/// It is the logistic scale of Kaname's units: fitting the game results of 1.27 M self-play
/// positions of the classical evaluation to their search scores gave P(win) = sigmoid(score /
/// 1197) (`kaname train` prints the fit). With the same scale here a net's evaluation is in
/// the units the classical evaluation, the search's margins and `DrawValue` use (a pawn about
/// 90); with 600 the first net's values came out at half that size.
pub const OUTPUT_SCALE: i32 = 1200;
/// The architecture's name, written into net files.
pub const ARCH: &str = "HalfKB9-2344x256x2-32-32-1+PSQT";

/// The quantised network's parameters, as stored in a net file. Weights of a dense layer are
/// stored row by row: `w[o * inputs + i]` links input `i` to output `o`.
#[derive(Clone, PartialEq, Debug)]
pub struct QuantNet {
    /// First-layer biases, `L1`.
    pub l1_bias: Vec<i16>,
    /// First-layer weights, `NUM_FEATURES * L1`: the row of feature `f` is `f * L1 ..`.
    pub l1_weights: Vec<i16>,
    /// First dense layer biases, `L2`.
    pub l2_bias: Vec<i32>,
    /// First dense layer weights, `L2 * 2 * L1`.
    pub l2_weights: Vec<i8>,
    /// Second dense layer biases, `L3`.
    pub l3_bias: Vec<i32>,
    /// Second dense layer weights, `L3 * L2`.
    pub l3_weights: Vec<i8>,
    /// Output bias.
    pub out_bias: i32,
    /// Output weights, `L3`.
    pub out_weights: Vec<i8>,
    /// PSQT weights, `NUM_FEATURES`: each feature's direct contribution to the output.
    pub psqt: Vec<i32>,
}

/// The default net's file, built into the binary (`eval/nets/default.knn`; its history is in
/// `eval/nets/README.md`).
static EMBEDDED: &[u8] = include_bytes!("../../nets/default.knn");

/// The net built into the binary, decoded on first use and shared after that. `None` only if
/// the built-in file is unreadable, which the tests rule out.
pub fn embedded() -> Option<std::sync::Arc<Network>> {
    static NET: std::sync::OnceLock<Option<std::sync::Arc<Network>>> = std::sync::OnceLock::new();
    NET.get_or_init(|| netfile::read(EMBEDDED).ok().map(|q| std::sync::Arc::new(Network::from_quant(&q)))).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in net reads, and judges plain material the way any sane evaluation does.
    #[test]
    fn the_embedded_net_loads_and_knows_material() {
        let net = embedded().expect("eval/nets/default.knn reads");
        let start = engine::Position::startpos();
        assert!(net.evaluate_full(&start).abs() < 150, "start position {}", net.evaluate_full(&start));
        // Black has taken White's rook: clearly better for Black, whoever is to move.
        for side in ["b", "w"] {
            let sfen = format!("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL {side} R 1");
            let pos = engine::Position::from_sfen(&sfen).unwrap();
            let black = if side == "b" { 1 } else { -1 } * net.evaluate_full(&pos);
            assert!(black > 500, "{sfen}: {black}");
        }
    }
}
