//! `Evaluator`: the evaluation's state as the search carries it, one entry per ply. The search
//! tells it about every move (`push`), null move (`push_null`) and unmove (`pop`), and asks
//! for the static value of the current position (`evaluate`); what is kept incrementally, and
//! how, stays in here.

use crate::classical;
use crate::Value;
use engine::{Bitboard, Color, Move, Position};

/// Marks a classical term not yet computed at this ply.
const NOT_COMPUTED: Value = i32::MIN;

/// The largest positional term the classical evaluation can add to material: what makes
/// `lazy_cutoff` safe.
const LAZY_MARGIN: Value = 900;

/// The classical evaluation's incremental terms at one ply.
#[derive(Clone, Copy)]
struct ClassicalState {
    /// Material balance from the side to move's point of view.
    material: Value,
    /// `classical::step_pressure` (Black's point of view), or `NOT_COMPUTED`.
    steps: Value,
    /// `classical::slider_pressure` (Black's point of view), or `NOT_COMPUTED`; kept from the
    /// parent when the move cannot change it (`classical::slider_pressure_kept`).
    sliders: Value,
    /// The reach of `sliders` (see `classical::slider_pressure_and_reach`), valid once set.
    slider_reach: Bitboard,
}

const EMPTY_STATE: ClassicalState =
    ClassicalState { material: 0, steps: NOT_COMPUTED, sliders: NOT_COMPUTED, slider_reach: Bitboard::EMPTY };

/// The evaluation state of a search line: entry `ply` belongs to the position `ply` moves
/// below the position given to `reset`.
pub struct Evaluator {
    stack: Vec<ClassicalState>,
    ply: usize,
}

impl Evaluator {
    /// An evaluator for lines of up to `max_ply` moves.
    pub fn new(max_ply: usize) -> Evaluator {
        Evaluator { stack: vec![EMPTY_STATE; max_ply + 1], ply: 0 }
    }

    /// Starts a line at `pos`.
    pub fn reset(&mut self, pos: &Position) {
        let m = classical::material(pos);
        self.ply = 0;
        self.stack[0] = ClassicalState {
            material: if pos.side_to_move() == Color::Black { m } else { -m },
            steps: classical::step_pressure(pos),
            ..EMPTY_STATE
        };
    }

    /// The current ply (moves since `reset`).
    #[inline]
    pub fn ply(&self) -> usize {
        self.ply
    }

    /// Moves to the child reached by `m`, which is about to be made in `pos`.
    #[inline(always)]
    pub fn push(&mut self, pos: &Position, m: Move) {
        let ply = self.ply;
        let mut steps = self.stack[ply].steps;
        if steps == NOT_COMPUTED {
            // Computed once here rather than afresh in each child that evaluates.
            steps = classical::step_pressure(pos);
            self.stack[ply].steps = steps;
        }
        let parent = self.stack[ply];
        let child = &mut self.stack[ply + 1];
        child.material = -(parent.material + classical::move_gain(pos, m));
        child.steps = classical::step_pressure_delta(pos, m).map_or(NOT_COMPUTED, |d| steps + d);
        child.sliders =
            if parent.sliders != NOT_COMPUTED && classical::slider_pressure_kept(pos, m, parent.slider_reach) {
                parent.sliders
            } else {
                NOT_COMPUTED
            };
        child.slider_reach = parent.slider_reach;
        self.ply = ply + 1;
    }

    /// Moves to the child reached by a null move (a pass: the board stays as it is).
    #[inline]
    pub fn push_null(&mut self) {
        let parent = self.stack[self.ply];
        self.ply += 1;
        self.stack[self.ply] = ClassicalState { material: -parent.material, ..parent };
    }

    /// Returns to the parent.
    #[inline(always)]
    pub fn pop(&mut self) {
        debug_assert!(self.ply > 0);
        self.ply -= 1;
    }

    /// The static value of `pos`, the current position of the line, from the side to move's
    /// point of view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Value {
        let s = &mut self.stack[self.ply];
        if s.steps == NOT_COMPUTED {
            s.steps = classical::step_pressure(pos);
        }
        if s.sliders == NOT_COMPUTED {
            (s.sliders, s.slider_reach) = classical::slider_pressure_and_reach(pos);
        }
        let positional = s.steps + s.sliders;
        s.material + if pos.side_to_move() == Color::Black { positional } else { -positional }
    }

    /// A value at least `beta` that `evaluate` is sure to reach, if one is known without
    /// evaluating: quiescence search may stand pat on it ("lazy evaluation").
    #[inline]
    pub fn lazy_cutoff(&self, beta: Value) -> Option<Value> {
        let floor = self.stack[self.ply].material - LAZY_MARGIN;
        (floor >= beta).then_some(floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Along random lines with null moves, the incremental value equals a fresh evaluation.
    #[test]
    fn incremental_value_matches_a_fresh_evaluation() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut ev = Evaluator::new(128);
        for sfen in [
            engine::START_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        ] {
            for _ in 0..20 {
                let mut pos = Position::from_sfen(sfen).unwrap();
                ev.reset(&pos);
                let mut line = Vec::new();
                for _ in 0..80 {
                    assert_eq!(ev.evaluate(&pos), classical::evaluate(&pos), "{}", pos.to_sfen());
                    let mut list = engine::MoveList::new();
                    engine::generate_legal(&pos, &mut list);
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    if list.is_empty() {
                        break;
                    }
                    if seed % 10 == 0 && !pos.in_check() {
                        ev.push_null();
                        pos.do_null_move();
                        line.push(None);
                        continue;
                    }
                    let m = list.as_slice()[(seed % list.len() as u64) as usize];
                    ev.push(&pos, m);
                    pos.do_move(m);
                    line.push(Some(m));
                }
                // Unwinding returns to values that still match.
                while let Some(m) = line.pop() {
                    match m {
                        Some(m) => pos.undo_move(m),
                        None => pos.undo_null_move(),
                    }
                    ev.pop();
                    assert_eq!(ev.evaluate(&pos), classical::evaluate(&pos));
                }
                assert_eq!(ev.ply(), 0);
            }
        }
    }
}
