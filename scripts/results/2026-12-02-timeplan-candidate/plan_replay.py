"""The time plan of search/src/timeman.rs (TimePlan::new, 3a2ede1), ported line by line to replay a
10 s + 1 s clock as shogiarena keeps it, every move taking the maximum (whole-second rounding
runs each move to it): python3 plan_replay.py. "old" is main's cap, "new" fischer-cap.patch's
(YaneuraOu's cap, but never below 30% of the main time plus the move's increment or byoyomi).
`python3 plan_replay.py --table` prints the maxima of both for other clocks. `share_floor` adds
e98562d's floor (on a clock not rounded to seconds, never above the clock's share of a move);
../2026-12-02-sudden-death/sd_replay.py replays sudden death with it."""
import sys
def plan(time, inc, byo, ply, new, nd=0, nd2=50, minthink=1000, share_floor=False):
    total = time + inc + byo; hard = max(0, total - nd2)
    round_up = (byo > 0 or inc > 0) and byo % 1000 == 0 and inc % 1000 == 0
    floor = 100 if round_up else 1
    remain = max(hard, min(floor, total))
    minimum = min(max(minthink - nd, 1000), remain)
    if byo > 0 and time < 1.2 * byo: return remain, remain
    sd = byo == 0 and inc == 0
    horizon = 160 + 40 - min(ply, 40) if sd else 160 + 20 - min(ply, 80)
    mtg = max(horizon // 2, 1)
    re = time + inc * mtg + byo * mtg
    if round_up: re = max(0, re - (mtg + 1) * 1000)
    if share_floor and not round_up: minimum = min(minimum, max(re // mtg, 1))
    opt = minimum + re // mtg
    ratio = max(1, min(5, time // 60000)) if sd else 5
    cap = re * 3 // 10 if not new else max(re * 3 // 10, time * 3 // 10 + inc + byo)
    mx = min(minimum + re * ratio // mtg, cap)
    mx = min(max(mx, minimum), remain)
    return min(opt, mx), mx

def game(new, main=10000, inc=1000, start=8, end=140):
    bank = main; out = []
    for ply in range(start, end, 2):
        opt, mx = plan(bank - inc, inc, 0, ply, new)
        spend = mx  # whole-second rounding runs every move to the maximum
        assert spend <= bank
        bank = bank - spend + inc
        out.append((ply, opt, mx, bank))
    return out
if __name__ == "__main__" and "--table" in sys.argv:
    print("clock (main+inc, or main byo), time left, ply 60 or 30: (optimum, maximum) old -> new")
    for main, inc in ((300000, 10000), (60000, 2000), (10000, 1000)):
        for bank in (main, main // 2, main // 5, 3 * inc):
            print(f"{main}+{inc}", bank, plan(bank, inc, 0, 60, False), "->", plan(bank, inc, 0, 60, True))
    for t, b in ((60000, 10000), (600000, 5000), (3000, 1000), (1200, 1000)):
        print(f"{t} byo {b}", t, plan(t, 0, b, 30, False), "->", plan(t, 0, b, 30, True))
elif __name__ == "__main__":
    for new in (False, True):
        g = game(new)
        print("new" if new else "old", [(p, o, m, b) for p, o, m, b in g if p % 20 == 0])
