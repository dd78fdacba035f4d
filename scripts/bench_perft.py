#!/usr/bin/env python3
"""Perft speed of Kaname against cshogi (PyPI), measured in the same run.

Usage: python3 scripts/bench_perft.py [--depth 6] [--runs 5] [--kaname target/release/kaname] [--generate]

--generate runs `kaname perft --generate`, which counts the last ply by generating the legal
moves and taking the list's length (as YaneuraOu's perft does), instead of Kaname's default
popcount of the target bitboards: the like-for-like comparison of move generators.

Runs `kaname perft <depth>` and `scripts/perft_cshogi.py <depth>` alternately, `--runs` times
each, on the start position (both count the last ply in bulk), checks that both report the
same leaf count, and prints every run, the medians and the ratio of the medians. The machines
are noisy: quote medians, and the ratio, not single runs. Also reports Kaname's user CPU time,
which a busy machine disturbs less than wall time.
"""
import argparse
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd):
    """Runs cmd; returns (leaf count, wall seconds, user CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    nodes = int(re.search(r"Nodes searched: (\d+)", out).group(1))
    return nodes, wall, user


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kaname", default=str(ROOT / "target/release/kaname"))
    ap.add_argument("--generate", action="store_true", help="kaname counts the last ply by generating it")
    args = ap.parse_args()
    kaname, cshogi = [], []
    for i in range(args.runs):
        k = timed([args.kaname, "perft", str(args.depth)] + (["--generate"] if args.generate else []))
        c = timed([sys.executable, str(ROOT / "scripts/perft_cshogi.py"), str(args.depth)])
        if k[0] != c[0]:
            sys.exit(f"leaf counts differ: kaname {k[0]}, cshogi {c[0]}")
        kaname.append(k)
        cshogi.append(c)
        print(f"run {i + 1}: kaname {k[1]:.3f} s wall ({k[2]:.3f} s user), cshogi {c[1]:.3f} s wall")
    kw = statistics.median(r[1] for r in kaname)
    ku = statistics.median(r[2] for r in kaname)
    cw = statistics.median(r[1] for r in cshogi)
    n = kaname[0][0]
    mode = "generated" if args.generate else "counted by popcount"
    print(f"perft {args.depth}: {n} leaves (kaname's last ply {mode})")
    print(f"kaname median {kw:.3f} s wall ({n / kw / 1e6:.1f} M leaves/s), {ku:.3f} s user")
    print(f"cshogi median {cw:.3f} s wall ({n / cw / 1e6:.1f} M leaves/s)")
    print(f"ratio cshogi/kaname (wall medians): {cw / kw:.2f}x")


if __name__ == "__main__":
    main()
