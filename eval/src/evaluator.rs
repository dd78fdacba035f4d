//! `Evaluator`: the evaluation's state as the search carries it, one entry per ply. The search
//! tells it about every move (`push`), null move (`push_null`) and unmove (`pop`), and asks
//! for the static value of the current position (`evaluate`); what is kept incrementally, and
//! how, stays in here.
//!
//! Two kinds: `Classical` keeps the classical evaluation's incremental terms; `Net` keeps the
//! net's accumulators (`nnue::stack`) and nothing classical. Every method branches once on
//! the kind, so the classical path costs what it did before nets existed.

use crate::classical;
use crate::net::Net;
use crate::nnue::stack::NetStack;
use crate::yo;
use crate::Value;
use engine::{Bitboard, Color, Move, Position};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Which evaluation an `Evaluator` runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EvalKind {
    /// The hand-written evaluation (`classical`).
    Classical,
    /// The neural network (`nnue`).
    Net,
}

impl EvalKind {
    /// The name `from_str` reads, as `EvalKind` declares it in `usi` (a `const fn`, so that a
    /// constant option table can spell a default kind).
    pub const fn name(self) -> &'static str {
        match self {
            EvalKind::Classical => "classical",
            EvalKind::Net => "net",
        }
    }
}

impl fmt::Display for EvalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name `EvalKind::from_str` does not know.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseEvalKindError(pub String);

impl fmt::Display for ParseEvalKindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown evaluation kind {:?} (expected \"classical\" or \"net\")", self.0)
    }
}

impl std::error::Error for ParseEvalKindError {}

impl FromStr for EvalKind {
    type Err = ParseEvalKindError;

    /// "classical" or "net", in any case.
    fn from_str(s: &str) -> Result<EvalKind, ParseEvalKindError> {
        match s.trim() {
            t if t.eq_ignore_ascii_case("classical") => Ok(EvalKind::Classical),
            t if t.eq_ignore_ascii_case("net") => Ok(EvalKind::Net),
            _ => Err(ParseEvalKindError(s.to_string())),
        }
    }
}

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

/// A net's state along a line, by the net's family.
enum NetLine {
    /// Kaname's own net.
    Kaname(NetStack),
    /// A YaneuraOu net (any shape, behind one indirect call).
    Yo(Box<dyn yo::stack::Line>),
}

/// The evaluation state of a search line: entry `ply` belongs to the position `ply` moves
/// below the position given to `reset`.
pub struct Evaluator {
    /// The classical terms (unused with a net).
    stack: Vec<ClassicalState>,
    ply: usize,
    /// The net's state: `Some` exactly for `EvalKind::Net`.
    net: Option<NetLine>,
}

impl Evaluator {
    /// A classical evaluator for lines of up to `max_ply` moves.
    pub fn new(max_ply: usize) -> Evaluator {
        Evaluator { stack: vec![EMPTY_STATE; max_ply + 1], ply: 0, net: None }
    }

    /// An evaluator running `net`, for lines of up to `max_ply` moves. The net is shared
    /// (threads each carry their own `Evaluator`); this allocates about 1.1 KB per ply with
    /// Kaname's net, plus 36 KiB for its refresh cache, and 4 L1 bytes per ply with a
    /// YaneuraOu net (evaluated with `FV_SCALE` `yo::DEFAULT_FV_SCALE` until `set_fv_scale`).
    pub fn with_net(max_ply: usize, net: Net) -> Evaluator {
        let line = match net {
            Net::Kaname(n) => NetLine::Kaname(NetStack::new(max_ply, n)),
            Net::Yo(n) => NetLine::Yo(yo::stack::line(n, max_ply, yo::DEFAULT_FV_SCALE)),
        };
        Evaluator { stack: vec![EMPTY_STATE; 1], ply: 0, net: Some(line) }
    }

    /// The net this evaluates with (`None` for the classical evaluation).
    pub fn net(&self) -> Option<Net> {
        match self.net.as_ref()? {
            NetLine::Kaname(n) => Some(Net::Kaname(Arc::clone(n.net()))),
            NetLine::Yo(n) => Some(Net::Yo(Arc::clone(n.net()))),
        }
    }

    /// Whether this evaluates with exactly `net` (the same loaded weights).
    pub fn runs(&self, net: Option<&Net>) -> bool {
        match (self.net.as_ref(), net) {
            (None, None) => true,
            (Some(NetLine::Kaname(a)), Some(Net::Kaname(b))) => Arc::ptr_eq(a.net(), b),
            (Some(NetLine::Yo(a)), Some(Net::Yo(b))) => Arc::ptr_eq(a.net(), b),
            _ => false,
        }
    }

    /// Sets YaneuraOu's `FV_SCALE`, the divisor of a YaneuraOu net's output (no effect on
    /// other evaluations).
    pub fn set_fv_scale(&mut self, fv_scale: i32) {
        if let Some(NetLine::Yo(n)) = &mut self.net {
            n.set_fv_scale(fv_scale);
        }
    }

    /// Which evaluation this runs.
    pub fn kind(&self) -> EvalKind {
        if self.net.is_some() {
            EvalKind::Net
        } else {
            EvalKind::Classical
        }
    }

    /// Starts a line at `pos`.
    pub fn reset(&mut self, pos: &Position) {
        if let Some(net) = &mut self.net {
            self.ply = 0;
            match net {
                NetLine::Kaname(n) => n.reset(pos),
                NetLine::Yo(n) => n.reset(pos),
            }
            return;
        }
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
        if let Some(net) = &mut self.net {
            match net {
                NetLine::Kaname(n) => n.push(ply, pos, m),
                NetLine::Yo(n) => n.push(ply, pos, m),
            }
            self.ply = ply + 1;
            return;
        }
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
        if let Some(net) = &mut self.net {
            match net {
                NetLine::Kaname(n) => n.push_null(self.ply),
                NetLine::Yo(n) => n.push_null(self.ply),
            }
            self.ply += 1;
            return;
        }
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
        if let Some(net) = &mut self.net {
            return match net {
                NetLine::Kaname(n) => n.evaluate(self.ply, pos),
                NetLine::Yo(n) => n.evaluate(self.ply, pos),
            };
        }
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
    /// evaluating: quiescence search may stand pat on it ("lazy evaluation"). Always `None`
    /// with a net, whose values material does not bound.
    #[inline]
    pub fn lazy_cutoff(&self, beta: Value) -> Option<Value> {
        if self.net.is_some() {
            return None;
        }
        let floor = self.stack[self.ply].material - LAZY_MARGIN;
        (floor >= beta).then_some(floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::Network;

    /// Along random lines with null moves, the incremental value equals a fresh evaluation.
    #[test]
    fn incremental_value_matches_a_fresh_evaluation() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut ev = Evaluator::new(128);
        use engine::VariantId;
        for (variant, sfen) in [
            (VariantId::Shogi, engine::START_SFEN),
            (VariantId::Shogi, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
            (VariantId::Shogi, "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124"),
            (VariantId::Minishogi, "rbsgk/4p/5/P4/KGSBR b - 1"),
            // Sho shogi: the elephants promote, and royals are taken, along these lines.
            (VariantId::ShoShogi, "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1"),
            (VariantId::ShoShogi, "lnsg1gsnl/1r2+e2b1/pppp1pppp/3E5/9/4k4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 30"),
        ] {
            for _ in 0..20 {
                let mut pos = Position::from_sfen_in(variant, sfen).unwrap();
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
                    if seed.is_multiple_of(10) && !pos.in_check() {
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

    /// xorshift64, the test's move chooser.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// What a random walk met, so the test can check it covered every kind of step.
    #[derive(Default, Debug)]
    struct Coverage {
        captures: usize,
        promotions: usize,
        drops: usize,
        king_moves: usize,
        view_changes: usize,
        nulls: usize,
        pops: usize,
        checks: usize,
    }

    /// Random walks through the tree below `pos` with a net evaluator: moves, null moves and
    /// unmoves (so later moves branch from entries computed for another line). The value is
    /// compared with `full` (the net's `evaluate_full`) at a node with probability
    /// `1 / check_every` (1: every node; larger: the lazy scheme applies several plies'
    /// changes at once).
    fn walk(
        ev: &mut Evaluator,
        full: &dyn Fn(&Position) -> Value,
        mut pos: Position,
        seed: &mut u64,
        check_every: u64,
        cov: &mut Coverage,
    ) {
        ev.reset(&pos);
        let mut line: Vec<Option<Move>> = Vec::new();
        for _ in 0..120 {
            if next(seed).is_multiple_of(check_every) {
                assert_eq!(ev.evaluate(&pos), full(&pos), "{}", pos.to_sfen());
                cov.checks += 1;
            }
            let mut list = engine::MoveList::new();
            engine::generate_legal(&pos, &mut list);
            let r = next(seed);
            if (list.is_empty() || r.is_multiple_of(8) || line.len() >= 60) && !line.is_empty() {
                match line.pop().unwrap() {
                    Some(m) => pos.undo_move(m),
                    None => pos.undo_null_move(),
                }
                ev.pop();
                cov.pops += 1;
            } else if list.is_empty() {
                break;
            } else if r % 8 == 1 && !pos.in_check() {
                ev.push_null();
                pos.do_null_move();
                line.push(None);
                cov.nulls += 1;
            } else {
                let m = list.as_slice()[(next(seed) % list.len() as u64) as usize];
                count_move(&pos, m, cov);
                ev.push(&pos, m);
                pos.do_move(m);
                line.push(Some(m));
            }
            assert_eq!(ev.ply(), line.len());
        }
    }

    fn count_move(pos: &Position, m: Move, cov: &mut Coverage) {
        if m.is_drop() {
            cov.drops += 1;
            return;
        }
        cov.captures += !pos.piece_on(m.to()).is_empty() as usize;
        cov.promotions += m.is_promotion() as usize;
        let moved = pos.piece_on(m.from());
        if moved.kind() == engine::PieceType::King {
            cov.king_moves += 1;
            let us = pos.side_to_move();
            let before = crate::nnue::features::View::new(us, m.from());
            cov.view_changes += (before != crate::nnue::features::View::new(us, m.to())) as usize;
        }
    }

    /// The net evaluator's incremental, lazily computed values equal a full evaluation after
    /// every kind of step (board moves, captures, promotions, drops, king moves changing the
    /// bucket or the mirroring or not, null moves, unmoves), over 300 fixture positions.
    #[test]
    fn net_evaluator_matches_full_evaluation() {
        let net = Arc::new(Network::from_quant(&crate::nnue::QuantNet::random(31)));
        let mut ev = Evaluator::with_net(128, Net::Kaname(net.clone()));
        assert_eq!(ev.kind(), EvalKind::Net);
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut cov = Coverage::default();
        for (i, pos) in crate::nnue::network::tests::fixture_positions(300).into_iter().enumerate() {
            let check_every = [1, 3, 7][i % 3];
            walk(&mut ev, &|p| net.evaluate_full(p), pos, &mut seed, check_every, &mut cov);
        }
        let counts = [cov.captures, cov.promotions, cov.drops, cov.king_moves, cov.view_changes, cov.nulls, cov.pops];
        assert!(counts.iter().all(|&n| n >= 20), "{cov:?}");
        assert!(cov.checks > 5000, "{cov:?}");
        // Tsume without the attacker's king: its side's view stays the home one throughout.
        let mut cov = Coverage::default();
        for (i, pos) in crate::nnue::network::tests::kingless_fixture_positions(120, 17).into_iter().enumerate() {
            walk(&mut ev, &|p| net.evaluate_full(p), pos, &mut seed, [1, 3, 7][i % 3], &mut cov);
        }
        let counts = [cov.captures, cov.promotions, cov.drops, cov.king_moves, cov.nulls, cov.pops];
        assert!(counts.iter().all(|&n| n >= 20), "kingless: {cov:?}");
        assert!(cov.checks > 2000, "kingless: {cov:?}");
    }

    /// The same with the portable code only (the SIMD path is compared against it elsewhere;
    /// this covers machines without AVX2).
    #[test]
    fn portable_net_evaluator_matches_full_evaluation() {
        let net = Arc::new(Network::from_quant(&crate::nnue::QuantNet::random(32)).portable());
        let mut ev = Evaluator::with_net(128, Net::Kaname(net.clone()));
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        let mut cov = Coverage::default();
        for pos in crate::nnue::network::tests::fixture_positions(60) {
            walk(&mut ev, &|p| net.evaluate_full(p), pos, &mut seed, 2, &mut cov);
        }
        assert!(cov.checks > 1000, "{cov:?}");
    }

    /// A YaneuraOu net's incremental, lazily computed values equal its full evaluation after
    /// every kind of step, for each feature set and accumulator width (one shape per L1,
    /// each dense width among them), on the AVX2 and the portable paths, with `FV_SCALE`s
    /// 16 and 24.
    #[test]
    fn yo_evaluator_matches_full_evaluation() {
        use crate::yo::{random, shape::FeatureSet, Shape, Simd, YoNet};
        let shapes = [
            Shape::KP_256,
            Shape::HALFKP_256,
            Shape { features: FeatureSet::HalfKP, l1: 512, l2: 8, l3: 64 },
            Shape { features: FeatureSet::HalfKP, l1: 768, l2: 16, l3: 96 },
            Shape::HALFKP_1024_8_32,
        ];
        let mut seed = 0x05EE_D0F0_u64;
        for (i, shape) in shapes.into_iter().enumerate() {
            let net = YoNet::new(random::params(shape, 100 + i as u64));
            let paths = [(Simd::Vnni, 16), (Simd::Avx2, 40), (Simd::Portable, 24)];
            for (net, fv) in
                paths.into_iter().filter(|(p, _)| p.available()).map(|(p, fv)| (net.clone().with_simd(p), fv))
            {
                let net = Arc::new(net);
                let mut ev = Evaluator::with_net(128, Net::Yo(net.clone()));
                ev.set_fv_scale(fv);
                let mut cov = Coverage::default();
                // Tsume without the attacker's king among them (HalfKP's home view, K-P's 39 inputs).
                let kingless = crate::nnue::network::tests::kingless_fixture_positions(20, 97);
                for (k, pos) in
                    crate::nnue::network::tests::fixture_positions(40).into_iter().chain(kingless).enumerate()
                {
                    walk(&mut ev, &|p| net.evaluate_full(p, fv), pos, &mut seed, [1, 3, 7][k % 3], &mut cov);
                }
                let counts = [cov.captures, cov.promotions, cov.drops, cov.king_moves, cov.nulls, cov.pops];
                assert!(counts.iter().all(|&n| n >= 10), "{shape}: {cov:?}");
                assert!(cov.checks > 500, "{shape}: {cov:?}");
            }
        }
    }

    /// A net gives no lazy cutoff; a classical evaluator still does.
    #[test]
    fn lazy_cutoff_only_for_classical() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b RB2G 1").unwrap();
        let net = Arc::new(Network::from_quant(&crate::nnue::QuantNet::random(33)));
        let mut ev = Evaluator::with_net(8, Net::Kaname(net));
        ev.reset(&pos);
        assert_eq!(ev.lazy_cutoff(-10_000), None);
        let mut ev = Evaluator::new(8);
        ev.reset(&pos);
        assert_eq!(ev.kind(), EvalKind::Classical);
        assert!(ev.lazy_cutoff(-10_000).is_some());
    }

    /// Search threads each own an evaluator and share the net.
    #[test]
    fn evaluators_can_move_to_threads() {
        fn send<T: Send>() {}
        fn sync<T: Send + Sync>() {}
        send::<Evaluator>();
        sync::<Network>();
    }

    #[test]
    fn eval_kind_display_and_from_str_round_trip() {
        for kind in [EvalKind::Classical, EvalKind::Net] {
            assert_eq!(kind.to_string().parse::<EvalKind>(), Ok(kind));
            assert_eq!(kind.to_string().to_uppercase().parse::<EvalKind>(), Ok(kind));
        }
        assert_eq!("Net".parse::<EvalKind>(), Ok(EvalKind::Net));
        assert_eq!("CLASSICAL".parse::<EvalKind>(), Ok(EvalKind::Classical));
        assert!("nnue".parse::<EvalKind>().is_err());
        assert!("".parse::<EvalKind>().is_err());
    }
}
