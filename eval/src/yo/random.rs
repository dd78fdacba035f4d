//! Seeded random nets of any shape ("KRN1"), for tests: `scripts/gen_yo_nnue_fixture.py`
//! makes the same files in Python, has YaneuraOu evaluate positions with them, and the tests
//! regenerate the nets here and compare Kaname's values, so no 64-256 MB net is committed.
//!
//! The algorithm (both implementations follow it exactly; u64 arithmetic wraps):
//! - `mix(z)`: `z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//!   z ^ (z >> 31)` (SplitMix64's output function);
//! - draw n (n = 0, 1, ... across the whole net): `u(n) = mix(seed * 0xD1B54A32D192ED03 + (n + 1) *
//!   0x9E3779B97F4A7C15)`; `int(u, lo, hi) = lo + u % (hi - lo + 1)`;
//! - one draw per stored element in file order (a padding column's draw is made and a 0
//!   written): feature-transformer biases `int(u, -40, 80)`, its weights `int(u, -20, 20)`;
//!   each hidden layer's biases `int(u, -4000, 4000)` and weights: `u % 64 == 0` -> -128,
//!   `u % 64 == 1` -> 127, else `int(u >> 8, -12, 12)`; the output bias `int(u, -3000, 3000)`
//!   and weights `int(u, -127, 127)`.
//!
//! The ranges keep every clipped activation in use (some 0, some 127, many between) and the
//! extreme weights -128 and 127 in every hidden layer.

use super::file::{Dense, FtWeights, Params, BLOCK};
use super::shape::{padded, Shape};

/// SplitMix64's output function.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The draws of one net, in order.
struct Draws {
    base: u64,
    n: u64,
}

impl Draws {
    fn next(&mut self) -> u64 {
        self.n += 1;
        mix(self.base.wrapping_add(self.n.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
    }

    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        int(self.next(), lo, hi)
    }
}

fn int(u: u64, lo: i64, hi: i64) -> i64 {
    lo + (u % (hi - lo + 1) as u64) as i64
}

fn hidden_weight(u: u64) -> i64 {
    match u % 64 {
        0 => -128,
        1 => 127,
        _ => int(u >> 8, -12, 12),
    }
}

/// The KRN1 net of `shape` for `seed`.
pub fn params(shape: Shape, seed: u64) -> Params {
    let mut d = Draws { base: seed.wrapping_mul(0xD1B5_4A32_D192_ED03), n: 0 };
    let ft_biases = (0..shape.l1).map(|_| d.int(-40, 80) as i16).collect();
    let mut ft_weights =
        FtWeights::zeroed(shape.features.inputs() * shape.l1 / BLOCK).expect("memory for a random net's weights");
    for w in ft_weights.lanes_mut() {
        *w = d.int(-20, 20) as i16;
    }
    let mut layer = |inputs: usize, outputs: usize, bias: i64, weight: fn(u64) -> i64| {
        let biases = (0..outputs).map(|_| d.int(-bias, bias) as i32).collect();
        let mut weights = Vec::with_capacity(outputs * inputs);
        for _ in 0..outputs {
            for i in 0..padded(inputs) {
                let w = weight(d.next());
                if i < inputs {
                    weights.push(w as i8);
                }
            }
        }
        Dense { inputs, biases, weights }
    };
    let dense = [
        layer(2 * shape.l1, shape.l2, 4000, hidden_weight),
        layer(shape.l2, shape.l3, 4000, hidden_weight),
        layer(shape.l3, 1, 3000, |u| int(u, -127, 127)),
    ];
    Params { shape, ft_biases, ft_weights, dense }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first draws of seed 1, the values the Python script's self-test checks too.
    #[test]
    fn first_draws() {
        let mut d = Draws { base: 1u64.wrapping_mul(0xD1B5_4A32_D192_ED03), n: 0 };
        let first: Vec<u64> = (0..3).map(|_| d.next()).collect();
        // mix(0xD1B54A32D192ED03 + 0x9E3779B97F4A7C15), computed by hand from the definition.
        assert_eq!(first[0], mix(0xD1B5_4A32_D192_ED03u64.wrapping_add(0x9E37_79B9_7F4A_7C15)));
        let p = params(Shape::KP_256, 1);
        assert_eq!(p.ft_biases[0] as i64, int(first[0], -40, 80));
        assert_eq!(p.ft_biases[1] as i64, int(first[1], -40, 80));
        assert_eq!(p.dense[0].weights.len(), 32 * 512);
        assert_eq!(p.dense[2].weights.len(), 32);
        // Every hidden layer has both extremes.
        for l in &p.dense[..2] {
            assert!(l.weights.contains(&-128) && l.weights.contains(&127));
        }
    }
}
