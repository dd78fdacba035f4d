"""Sudden-death clocks replayed through the time plan of search/src/timeman.rs (TimePlan::new, as
ported in ../2026-12-02-timeplan-candidate/plan_replay.py; default options NetworkDelay 40,
NetworkDelay2 150, MinimumThinkingTime 1000), as the unit test `sudden_death_lasts_the_game`
does: every move thinks a quarter past its optimum (or to the maximum) and loses 20 ms to lag.
"old" is YaneuraOu's floor (a second a move), "new" the floor within the clock's share.
python3 sd_replay.py prints the clock left at some plies, or the ply it ran out."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "2026-12-02-timeplan-candidate"))
from plan_replay import plan  # noqa: E402  (the plan of timeman.rs, ported once)


def game(main, new, plies=(40, 80, 120, 160, 200, 256)):
    clock, out = main, {}
    for ply in range(1, 257, 2):
        opt, mx = plan(clock, 0, 0, ply, True, nd=40, nd2=150, share_floor=new)
        spent = min(opt + opt // 4, mx) + 20
        if spent >= clock:
            return f"out of time at ply {ply}"
        clock -= spent
        if ply + 1 in plies:
            out[ply + 1] = clock
    return out


if __name__ == "__main__":
    for main in (30_000, 60_000, 180_000, 300_000, 600_000):
        for new in (False, True):
            print(f"{main // 1000:>4} s {'new' if new else 'old'}: {game(main, new)}")
