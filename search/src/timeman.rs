//! Time management for every clock a shogi GUI sends: byoyomi, Fischer increments, sudden
//! death, fixed move time and pondering. The plan follows YaneuraOu's (`timeman.cpp`):
//! `NetworkDelay` is the average lag, subtracted when a search ends on a whole second;
//! `NetworkDelay2` the worst lag, subtracted from the hard limit; `MinimumThinkingTime` and
//! `SlowMover` shape the optimum.

use crate::protocol::{Limits, Options};
use crate::types::Value;
use engine::Color;

/// The time budget of one move, in milliseconds since the clock started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// Never stop before this (unless the move is forced).
    pub minimum: u64,
    /// Aim to stop around here.
    pub optimum: u64,
    /// Stop no later than this, whatever happens.
    pub maximum: u64,
    /// The GUI's clock counts whole seconds: stopping just before a second boundary uses time
    /// that would be charged anyway.
    pub round_up: bool,
    /// Average lag (to stop before the boundary).
    pub network_delay: u64,
}

/// What the main thread's last iteration says about how settled the search is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iteration {
    /// The root has one legal move (among those searched): nothing to think about.
    pub single_move: bool,
    /// How often the best move changed, decayed by half per iteration.
    pub best_move_changes: f64,
    /// The best move's score in this iteration.
    pub score: Value,
    /// The previous iteration's score of the best move (-infinite when it had none).
    pub previous_score: Value,
}

/// Plies over which the remaining time is spread.
const MOVE_HORIZON: u64 = 160;

/// The cap on one move: 30% of the remaining estimate (YaneuraOu's), but never below what the
/// move brings (its increment or byoyomi) plus 30% of the main time. The estimate sets aside a
/// second a move for whole-second rounding, which with a 1 s increment cancels every increment:
/// at 10 s + 1 s YaneuraOu's cap fell to 0.3 x (main time - 1 s), to the increment itself by
/// about 4.4 s of main time, and Kaname played the rest of each game at the increment's pace
/// with 5.4 s of its clock never spent (the median over 200 games against YaneuraOu L9 at
/// 10 s + 1 s, 2 threads, 2026-12-01; `fischer_spends_the_bank_over_the_game` replays that
/// clock). With larger increments or a byoyomi the estimate's cap is the larger, and stays.
fn one_move_cap(remain_estimate: u64, time: u64, inc: u64, byoyomi: u64) -> u64 {
    let estimate_cap = remain_estimate.saturating_mul(3) / 10;
    let bank_cap = (time.saturating_mul(3) / 10).saturating_add(inc).saturating_add(byoyomi);
    estimate_cap.max(bank_cap)
}

/// The floor on one move: `MinimumThinkingTime` less the lag (YaneuraOu's, at least a second),
/// but on a clock that counts milliseconds (sudden death, or increments and byoyomi of part of
/// a second) never more than the clock's share of a move, `remain_estimate / mtg`. A second a
/// move outlasts a short clock: replayed, the fixed floor ran a 30 s sudden-death clock out at
/// ply 65, 60 s at ply 103, 3 min at 193, 5 min at 241 (`sudden_death_lasts_the_game`); in real
/// games at 30 s Kaname had spent its clock by ply 60 and played on at 4 ms a move. A clock that counts whole seconds
/// charges a second anyway, so there the floor stays.
fn minimum_within_share(minimum: u64, remain_estimate: u64, mtg: u64, round_up: bool) -> u64 {
    if round_up {
        minimum
    } else {
        minimum.min((remain_estimate / mtg).max(1))
    }
}

impl TimePlan {
    /// `None` when the search has no time limit (infinite, depth or node limits only).
    pub fn new(limits: &Limits, us: Color, game_ply: u32, o: &Options) -> Option<TimePlan> {
        if let Some(mt) = limits.movetime {
            let t = mt.saturating_sub(o.network_delay).max(1);
            return Some(TimePlan { minimum: t, optimum: t, maximum: t, round_up: false, network_delay: 0 });
        }
        let inc = limits.inc[us.index()];
        let byoyomi = limits.byoyomi[us.index()];
        // `go byoyomi 1000` alone (some runners send no btime/wtime) means no main time left.
        let time = match limits.time[us.index()] {
            Some(t) => t,
            None if byoyomi > 0 || inc > 0 || limits.time.iter().any(Option::is_some) => 0,
            None => return None,
        };
        // A clock with byoyomi or increments counts whole seconds (`RoundUpToFullSecond`),
        // unless they are not whole seconds: a 100 ms byoyomi is a millisecond clock, and the
        // rounding's 100 ms floor overran it by design (86% of the moves of a byoyomi-100 soak
        // with `NetworkDelay2 50`, up to 236 ms; session note 9).
        let whole_seconds = byoyomi.is_multiple_of(1000) && inc.is_multiple_of(1000);
        let round_up = o.round_up_to_full_second && (byoyomi > 0 || inc > 0) && whole_seconds;
        // The increment of this move is already owed, so it is spendable now.
        // Saturating: a GUI may send any u64 as a clock.
        let total = time.saturating_add(inc).saturating_add(byoyomi);
        let hard = total.saturating_sub(o.network_delay2);
        let floor = if round_up { 100 } else { 1 };
        let remain_time = hard.max(floor.min(total));
        // YaneuraOu: at least a second when whole seconds are counted anyway, else 1 ms.
        let least = if o.round_up_to_full_second { 1000 } else { 1 };
        let minimum = o.minimum_thinking_time.saturating_sub(o.network_delay).max(least).min(remain_time);

        // Final push: with less main time than 1.2 byoyomi, use all of it on this move.
        if byoyomi > 0 && (time as f64) < 1.2 * byoyomi as f64 {
            let t = remain_time;
            return Some(TimePlan {
                minimum: t,
                optimum: t,
                maximum: t,
                round_up: false,
                network_delay: o.network_delay,
            });
        }
        let ply = game_ply as u64;
        let sudden_death = byoyomi == 0 && inc == 0;
        let horizon = if sudden_death { MOVE_HORIZON + 40 - ply.min(40) } else { MOVE_HORIZON + 20 - ply.min(80) };
        let horizon = if o.max_moves_to_draw > 0 {
            horizon.min((o.max_moves_to_draw as u64 + 2).saturating_sub(ply).max(2))
        } else {
            horizon
        };
        let mtg = (horizon / 2).max(1);
        let mut remain_estimate =
            time.saturating_add(inc.saturating_mul(mtg)).saturating_add(byoyomi.saturating_mul(mtg));
        if round_up {
            remain_estimate = remain_estimate.saturating_sub((mtg + 1) * 1000);
        }
        let minimum = minimum_within_share(minimum, remain_estimate, mtg, round_up);
        let mut optimum = minimum.saturating_add(remain_estimate / mtg);
        optimum = optimum.saturating_mul(o.slow_mover) / 100;
        // Pondering on the expected reply saves time at every ponder hit: spend a little more
        // (not under `Stochastic_Ponder`, which ponders the position before the reply).
        if o.usi_ponder && !o.stochastic_ponder {
            optimum = optimum.saturating_add(optimum / 4);
        }
        let ratio = if sudden_death { (time / 60_000).clamp(1, 5) } else { 5 };
        let cap = one_move_cap(remain_estimate, time, inc, byoyomi);
        let maximum = minimum.saturating_add(remain_estimate.saturating_mul(ratio) / mtg).min(cap);
        let maximum = maximum.max(minimum).min(remain_time);
        Some(TimePlan {
            minimum: minimum.min(remain_time),
            optimum: optimum.min(maximum),
            maximum,
            round_up,
            network_delay: o.network_delay,
        })
    }

    /// After an iteration ending `elapsed` ms into the search: the moment to stop (see
    /// `stop_time`), or `None` to search on. A single legal move stops at once; otherwise the
    /// search stops once it has used the optimum time, scaled up while the best move keeps
    /// changing or its score falls (Stockfish's `bestMoveInstability` and `fallingEval`,
    /// simplified) and down while it is settled.
    pub fn stop_after_iteration(&self, elapsed: u64, it: &Iteration) -> Option<u64> {
        if it.single_move {
            return Some(elapsed);
        }
        let falling = (it.previous_score - it.score).clamp(0, 300) as f64 / 300.0;
        let scale = (0.7 + 0.6 * it.best_move_changes + 0.5 * falling).clamp(0.5, 2.5);
        (elapsed as f64 >= self.optimum as f64 * scale).then(|| self.stop_time(elapsed))
    }

    /// The moment to stop if the search decides to stop at `elapsed`: the end of the current
    /// whole second (less the lag) when the clock counts seconds, never beyond the maximum.
    pub fn stop_time(&self, elapsed: u64) -> u64 {
        let t = elapsed.max(self.minimum);
        let t = if self.round_up { (t / 1000 + 1).saturating_mul(1000) - self.network_delay.min(999) } else { t };
        let t = if t < elapsed { elapsed } else { t };
        t.min(self.maximum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(time: u64, byoyomi: u64, inc: u64) -> Limits {
        Limits { time: [Some(time), Some(time)], byoyomi: [byoyomi; 2], inc: [inc; 2], ..Default::default() }
    }

    #[test]
    fn byoyomi_only_uses_most_of_the_byoyomi_and_never_more() {
        let o = Options::default();
        let p = TimePlan::new(&limits(0, 1000, 0), Color::Black, 40, &o).unwrap();
        assert!(p.maximum <= 1000 - 50 && p.maximum >= 800, "{p:?}");
        assert_eq!(p.optimum, p.maximum);
    }

    #[test]
    fn a_byoyomi_or_increment_of_part_of_a_second_is_a_millisecond_clock() {
        let o = Options { network_delay2: 50, ..Options::default() };
        for l in [limits(0, 100, 0), limits(0, 300, 0), limits(30_000, 0, 500), limits(30_000, 1500, 0)] {
            let p = TimePlan::new(&l, Color::Black, 40, &o).unwrap();
            assert!(!p.round_up, "{l:?} {p:?}");
        }
        let p = TimePlan::new(&limits(0, 100, 0), Color::Black, 40, &o).unwrap();
        assert!(p.maximum <= 100 - 50 && p.maximum >= 40, "{p:?}");
        // Whole seconds still round up.
        for l in [limits(60_000, 10_000, 0), limits(60_000, 0, 2000)] {
            assert!(TimePlan::new(&l, Color::Black, 30, &o).unwrap().round_up, "{l:?}");
        }
    }

    #[test]
    fn main_time_with_byoyomi_stays_below_the_hard_limit() {
        let o = Options::default();
        for (time, byo) in [(60_000, 10_000), (600_000, 5000), (3000, 1000), (1200, 1000)] {
            let p = TimePlan::new(&limits(time, byo, 0), Color::White, 30, &o).unwrap();
            assert!(p.maximum <= time + byo - o.network_delay2, "{time} {byo} {p:?}");
            assert!(p.minimum <= p.optimum && p.optimum <= p.maximum, "{p:?}");
        }
    }

    #[test]
    fn fischer_counts_the_owed_increment_and_keeps_a_reserve() {
        let o = Options::default();
        let p = TimePlan::new(&limits(10_000, 0, 1000), Color::Black, 10, &o).unwrap();
        assert!(p.maximum <= 11_000 - o.network_delay2);
        assert!(p.optimum < 3000, "{p:?}");
        let p = TimePlan::new(&limits(100, 0, 1000), Color::Black, 100, &o).unwrap();
        assert!(p.maximum <= 1100 - o.network_delay2, "{p:?}");
    }

    /// A 10 s + 1 s game as shogiarena keeps its clock (`btime` is the clock less the increment
    /// it adds after the move; the move may take both) in which every move takes the plan's
    /// maximum, as whole-second rounding makes it: the bank is spent by the middle game, and
    /// the clock never runs out.
    #[test]
    fn fischer_spends_the_bank_over_the_game() {
        let o = Options { network_delay: 0, network_delay2: 50, ..Options::default() };
        let (inc, mut clock) = (1000, 10_000);
        let mut at = std::collections::HashMap::new();
        for ply in (8..200).step_by(2) {
            let p = TimePlan::new(&limits(clock - inc, 0, inc), Color::Black, ply, &o).unwrap();
            assert!(p.minimum <= p.optimum && p.optimum <= p.maximum, "{ply} {p:?}");
            assert!(p.maximum + o.network_delay2 <= clock, "{ply} {p:?}");
            clock = clock - p.maximum + inc;
            at.insert(ply, (p.maximum, clock));
        }
        // Still free to think longer in the middle game (the capped plan: 1032 ms at ply 40) ...
        assert!(at[&40].0 >= 1150 && at[&60].0 >= 1050, "{at:?}");
        // ... and by the end only the planned reserve is left (the capped plan kept 5.3 s).
        assert!(at[&120].1 <= 2500, "{at:?}");
        assert!(at[&198].1 >= 1500, "{at:?}");
    }

    /// With increments of 2 s and more the whole-second reserve leaves the increments in the
    /// estimate, and YaneuraOu's cap stays: a move may still take most of a small bank that the
    /// next increment refills (50.9 s of 60 s at 300 s + 10 s; 30% of the bank alone would be 28 s).
    #[test]
    fn large_increments_keep_the_estimates_cap() {
        let o = Options::default();
        let p = TimePlan::new(&limits(60_000, 0, 10_000), Color::Black, 60, &o).unwrap();
        assert!(p.maximum > 40_000 && p.maximum <= 70_000 - o.network_delay2, "{p:?}");
        let p = TimePlan::new(&limits(12_000, 0, 2000), Color::Black, 60, &o).unwrap();
        assert!(p.maximum > 6000, "{p:?}");
    }

    #[test]
    fn sudden_death_spreads_time() {
        let o = Options::default();
        let p = TimePlan::new(&limits(300_000, 0, 0), Color::Black, 1, &o).unwrap();
        assert!(p.optimum < 10_000 && p.maximum < 90_000, "{p:?}");
        let p = TimePlan::new(&limits(500, 0, 0), Color::Black, 1, &o).unwrap();
        assert!(p.maximum <= 500, "{p:?}");
    }

    /// Sudden-death games as a GUI keeps the clock, every move thinking a quarter past its
    /// optimum (or to the maximum) and losing 20 ms to lag: the clock lasts 256 plies, and the
    /// engine still thinks, spending most of its clock by ply 160. With the second-a-move floor
    /// of YaneuraOu's plan the 30 s clock ran out at ply 65.
    #[test]
    fn sudden_death_lasts_the_game() {
        let o = Options::default();
        for main in [30_000u64, 60_000, 180_000, 300_000] {
            let mut clock = main;
            let mut at_160 = 0;
            for ply in (1..=256).step_by(2) {
                let p = TimePlan::new(&limits(clock, 0, 0), Color::Black, ply, &o).unwrap();
                assert!(p.minimum <= p.optimum && p.optimum <= p.maximum, "{main} {ply} {p:?}");
                let spent = (p.optimum + p.optimum / 4).min(p.maximum) + 20;
                assert!(spent < clock, "{main}: out of time at ply {ply} ({clock} ms left, {p:?})");
                clock -= spent;
                if ply == 159 {
                    at_160 = clock;
                }
            }
            assert!(at_160 < main / 2, "{main}: {at_160} ms left at ply 160");
        }
    }

    #[test]
    fn stop_time_rounds_to_the_second_boundary() {
        let p = TimePlan { minimum: 1000, optimum: 3000, maximum: 9000, round_up: true, network_delay: 100 };
        assert_eq!(p.stop_time(3200), 3900);
        assert_eq!(p.stop_time(8950), 8950);
        assert_eq!(p.stop_time(500), 1900);
    }

    #[test]
    fn round_up_to_full_second_can_be_turned_off() {
        let on = Options::default();
        assert!(on.round_up_to_full_second);
        let off = Options { round_up_to_full_second: false, ..Options::default() };
        let l = limits(60_000, 10_000, 0);
        let p = TimePlan::new(&l, Color::Black, 30, &on).unwrap();
        assert!(p.round_up, "{p:?}");
        assert_eq!(p.stop_time(3200), 4000 - on.network_delay);
        let q = TimePlan::new(&l, Color::Black, 30, &off).unwrap();
        assert!(!q.round_up, "{q:?}");
        assert_eq!(q.stop_time(3200), 3200);
        // Without the whole seconds the plan keeps the second (MTG + 1) seconds it reserved for
        // them, so it may think longer per move.
        assert!(q.optimum >= p.optimum, "{p:?} {q:?}");
        // Sudden death counts no seconds either way.
        let sd = TimePlan::new(&limits(60_000, 0, 0), Color::Black, 30, &on).unwrap();
        assert!(!sd.round_up);
        // The floor of the minimum: 1000 ms with whole seconds, MinimumThinkingTime less the
        // lag without (YaneuraOu's `max(MinimumThinkingTime - NetworkDelay, 1000 or 1)`).
        let mut o = Options { network_delay: 900, ..on.clone() };
        assert_eq!(TimePlan::new(&l, Color::Black, 30, &o).unwrap().minimum, 1000);
        o.round_up_to_full_second = false;
        assert_eq!(TimePlan::new(&l, Color::Black, 30, &o).unwrap().minimum, 100);
        // Fischer: the same switch.
        let f = limits(60_000, 0, 2000);
        assert!(TimePlan::new(&f, Color::White, 30, &on).unwrap().round_up);
        assert!(!TimePlan::new(&f, Color::White, 30, &off).unwrap().round_up);
    }

    #[test]
    fn stochastic_ponder_takes_no_ponder_bonus() {
        let l = limits(300_000, 10_000, 0);
        let plain = TimePlan::new(&l, Color::Black, 30, &Options::default()).unwrap();
        let ponder = Options { usi_ponder: true, ..Options::default() };
        let bonus = TimePlan::new(&l, Color::Black, 30, &ponder).unwrap();
        assert!(bonus.optimum > plain.optimum, "{plain:?} {bonus:?}");
        let stochastic = Options { stochastic_ponder: true, ..ponder };
        assert_eq!(TimePlan::new(&l, Color::Black, 30, &stochastic).unwrap().optimum, plain.optimum);
    }

    #[test]
    fn byoyomi_without_main_time_fields_is_a_clock() {
        let o = Options::default();
        let l = Limits { byoyomi: [300, 300], ..Default::default() };
        let p = TimePlan::new(&l, Color::White, 1, &o).unwrap();
        assert!(p.maximum <= 300 && p.maximum >= 150, "{p:?}");
    }

    #[test]
    fn huge_clocks_do_not_overflow() {
        // Found by the USI fuzzer (tests/fuzz_usi.rs): `go btime 18446744073709551615 ...`
        // overflowed here (a panic with overflow checks, a wrapped plan without).
        let max = u64::MAX;
        let o = Options { usi_ponder: true, slow_mover: 1000, ..Options::default() };
        for (time, byo, inc) in [(max, max, max), (max, 0, 0), (0, max, 0), (0, 0, max), (max / 2, 1000, max / 3)] {
            let p = TimePlan::new(&limits(time, byo, inc), Color::Black, 1, &o).unwrap();
            assert!(p.minimum <= p.optimum && p.optimum <= p.maximum, "{p:?}");
            assert!(p.maximum >= 1000, "{p:?}");
            assert!(p.stop_time(max - 1) <= p.maximum && p.stop_time(0) >= p.minimum.min(p.maximum), "{p:?}");
        }
        let l = Limits { movetime: Some(max), ..Default::default() };
        assert_eq!(TimePlan::new(&l, Color::White, 1, &o).unwrap().maximum, max - o.network_delay);
    }

    #[test]
    fn movetime_and_infinite() {
        let o = Options::default();
        let l = Limits { movetime: Some(500), ..Default::default() };
        assert!(TimePlan::new(&l, Color::Black, 1, &o).unwrap().maximum <= 500);
        assert!(TimePlan::new(&Limits { infinite: true, ..Default::default() }, Color::Black, 1, &o).is_none());
    }

    fn iteration(changes: f64, score: Value, previous: Value) -> Iteration {
        Iteration { single_move: false, best_move_changes: changes, score, previous_score: previous }
    }

    fn plan(optimum: u64, round_up: bool) -> TimePlan {
        TimePlan { minimum: 100, optimum, maximum: 10_000, round_up, network_delay: 40 }
    }

    #[test]
    fn a_single_move_stops_at_once() {
        let it = Iteration { single_move: true, ..iteration(3.0, 0, 0) };
        assert_eq!(plan(5000, true).stop_after_iteration(10, &it), Some(10));
    }

    #[test]
    fn a_settled_search_stops_before_the_optimum_and_an_unsettled_one_after() {
        let p = plan(1000, false);
        let settled = iteration(0.0, 50, 50);
        assert_eq!(p.stop_after_iteration(699, &settled), None);
        assert_eq!(p.stop_after_iteration(700, &settled), Some(700));
        // The best move changed twice lately: 0.7 + 1.2 = 1.9 times the optimum.
        let unsettled = iteration(2.0, 50, 50);
        assert_eq!(p.stop_after_iteration(1899, &unsettled), None);
        assert_eq!(p.stop_after_iteration(1900, &unsettled), Some(1900));
        // Never more than 2.5 times, however unsettled.
        assert_eq!(p.stop_after_iteration(2500, &iteration(100.0, 50, 50)), Some(2500));
    }

    #[test]
    fn a_falling_score_thinks_longer_and_a_rising_one_does_not_think_less() {
        let p = plan(1000, false);
        // Down 300 or more: 0.7 + 0.5.
        assert_eq!(p.stop_after_iteration(1199, &iteration(0.0, -250, 50)), None);
        assert_eq!(p.stop_after_iteration(1200, &iteration(0.0, -250, 50)), Some(1200));
        assert_eq!(p.stop_after_iteration(700, &iteration(0.0, 400, 50)), Some(700));
        // The first iteration has no previous score (-infinite): nothing fell.
        assert_eq!(p.stop_after_iteration(700, &iteration(0.0, 50, -crate::types::VALUE_INFINITE)), Some(700));
    }

    #[test]
    fn the_decision_stops_at_the_second_boundary() {
        let it = iteration(0.0, 0, 0);
        assert_eq!(plan(1000, true).stop_after_iteration(1234, &it), Some(1960));
        assert_eq!(plan(1000, false).stop_after_iteration(1234, &it), Some(1234));
    }
}
