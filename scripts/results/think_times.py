#!/usr/bin/env python3
"""Think times of one engine in a match.py --out directory, from the per-game USI logs.

Only for the old match.py series in scripts/results/ (match.py was removed on 2026-11-24); for
shogiarena runs, scripts/arena_check.py reports think times (and --json has every move's time).

Log lines look like `<seconds> <name>< go ...` (sent) and `<seconds> <name>> bestmove ...` (received).
Prints count/average/max for the first move of each game and for the other moves, and lists every
move over --budget ms with the last `info` line before it.
"""
import argparse
import glob
import os
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--engine", default="kaname")
    ap.add_argument("--budget", type=float, default=1000.0, help="ms; moves above it are listed")
    a = ap.parse_args()
    first, rest, over = [], [], []
    for f in sorted(glob.glob(os.path.join(a.dir, "game*.log"))):
        go = None
        n = 0
        info = ""
        for line in open(f, errors="replace"):
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) < 3:
                continue
            t, who, msg = parts
            if who == a.engine + "<" and msg.startswith("go"):
                go, info = float(t), ""
            elif who == a.engine + ">" and msg.startswith("info") and " pv " in msg:
                info = msg
            elif who == a.engine + ">" and msg.startswith("bestmove") and go is not None:
                ms = (float(t) - go) * 1000
                (first if n == 0 else rest).append(ms)
                n += 1
                if ms > a.budget:
                    over.append((os.path.basename(f), n, round(ms), info[:110]))
                go = None
    for label, xs in (("first move of a game", first), ("other moves", rest)):
        if xs:
            print("%s %s: n=%d avg=%.0f ms max=%.0f ms over %.0f ms: %d"
                  % (a.engine, label, len(xs), sum(xs) / len(xs), max(xs), a.budget, sum(x > a.budget for x in xs)))
            q = statistics.quantiles(xs, n=10) if len(xs) >= 10 else None
            if q:
                print("  median %.0f ms, 10th percentile %.0f ms, 90th %.0f ms; under half the budget: %d"
                      % (statistics.median(xs), q[0], q[-1], sum(x < a.budget / 2 for x in xs)))
    for o in over:
        print("  over budget: %s move %d: %d ms; last info: %s" % o)


if __name__ == "__main__":
    main()
