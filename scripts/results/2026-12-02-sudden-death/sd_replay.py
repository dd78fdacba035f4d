"""Sudden-death clocks replayed through the time plan of search/src/timeman.rs (TimePlan::new,
ported: the sudden-death path only, default options NetworkDelay 40, NetworkDelay2 150,
MinimumThinkingTime 1000), as the unit test `sudden_death_lasts_the_game` does: every move
thinks a quarter past its optimum (or to the maximum) and loses 20 ms to lag.
"old" is YaneuraOu's floor (a second a move), "new" the floor within the clock's share.
python3 sd_replay.py prints the clock left at some plies, or the ply it ran out."""

def plan(time, ply, new, nd=40, nd2=150, minthink=1000):
    hard = max(0, time - nd2)
    remain = max(hard, min(1, time))
    minimum = min(max(minthink - nd, 1000), remain)
    horizon = 160 + 40 - min(ply, 40)
    mtg = max(horizon // 2, 1)
    re = time
    if new:
        minimum = min(minimum, max(re // mtg, 1))
    opt = minimum + re // mtg
    ratio = max(1, min(5, time // 60000))
    mx = min(minimum + re * ratio // mtg, max(re * 3 // 10, time * 3 // 10))
    mx = min(max(mx, minimum), remain)
    return min(minimum, remain), min(opt, mx), mx


def game(main, new, plies=(40, 80, 120, 160, 200, 256)):
    clock, out = main, {}
    for ply in range(1, 257, 2):
        _, opt, mx = plan(clock, ply, new)
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
