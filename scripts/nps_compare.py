#!/usr/bin/env python3
"""Nodes per second of several USI engines on the same positions, measured in the same run.

Usage:
    python3 scripts/nps_compare.py --engine kaname=target/release/kaname \
        --engine ref=/path/to/other-usi-engine [--threads 1] [--hash 256] \
        [--movetime 3000] [--rounds 5] [--positions FILE] [--option ref:BookFile=no_book]

Why: the machines are noisy, so an absolute nodes/s figure says little. This script alternates
the engines round by round (engine A, engine B, engine A, ...), each round searching every
position with `go movetime`, and reports per engine the nodes/s of each round (total nodes over
total reported time), the median, and each engine's median relative to the first engine's.

The positions default to four middle-game and end-game SFENs of varied character (the same four
that many shogi engines use as their default bench, e.g. YaneuraOu's `bench`). Any USI engine
works; each round starts a fresh process, sends `usi`, the options, `isready`, `usinewgame`, and
for each position `position sfen ...` and `go movetime T`, and takes the last `info` line's
`nodes` and `time` before `bestmove`.
"""
import argparse
import shlex
import statistics
import subprocess
import sys

DEFAULT_POSITIONS = [
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
]


def read_until(proc, prefix):
    """Lines up to and including the first one starting with `prefix`."""
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"engine exited while waiting for {prefix!r}")
        line = line.strip()
        lines.append(line)
        if line.startswith(prefix):
            return lines


def info_field(line, name):
    """The integer after `name` in an info line, or None."""
    words = line.split()
    for i, w in enumerate(words[:-1]):
        if w == name:
            try:
                return int(words[i + 1])
            except ValueError:
                return None
    return None


def one_round(command, options, positions, movetime):
    """Total nodes and total milliseconds over all positions, fresh process."""
    proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(s):
        proc.stdin.write(s + "\n")
        proc.stdin.flush()

    send("usi")
    read_until(proc, "usiok")
    for name, value in options:
        send(f"setoption name {name} value {value}")
    send("isready")
    read_until(proc, "readyok")
    send("usinewgame")
    nodes = ms = 0
    for sfen in positions:
        send(f"position sfen {sfen}")
        send(f"go movetime {movetime}")
        last_n = last_t = None
        for line in read_until(proc, "bestmove"):
            if line.startswith("info"):
                n, t = info_field(line, "nodes"), info_field(line, "time")
                if n is not None and t is not None:
                    last_n, last_t = n, t
        if last_n is None:
            raise RuntimeError(f"{command}: no info line with nodes and time")
        nodes += last_n
        ms += last_t
    send("quit")
    proc.wait(timeout=30)
    return nodes, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True, help="name=command (repeatable)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hash", type=int, default=256)
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", help="file with one SFEN per line (default: four built-in)")
    ap.add_argument("--option", action="append", default=[], help="name:Option=value for one engine")
    args = ap.parse_args()

    engines = [e.split("=", 1) for e in args.engine]
    positions = DEFAULT_POSITIONS
    if args.positions:
        with open(args.positions) as f:
            positions = [l.strip() for l in f if l.strip()]
    extra = {}
    for o in args.option:
        who, kv = o.split(":", 1)
        k, v = kv.split("=", 1)
        extra.setdefault(who, []).append((k, v))

    results = {name: [] for name, _ in engines}
    for r in range(args.rounds):
        for name, command in engines:
            opts = [("Threads", args.threads), ("USI_Hash", args.hash)] + extra.get(name, [])
            nodes, ms = one_round(command, opts, positions, args.movetime)
            nps = nodes * 1000 // max(ms, 1)
            results[name].append(nps)
            print(f"round {r + 1} {name}: {nodes} nodes in {ms} ms = {nps} nodes/s", flush=True)

    base = statistics.median(results[engines[0][0]])
    print(f"threads {args.threads}, hash {args.hash} MiB, movetime {args.movetime} ms, "
          f"{len(positions)} positions, {args.rounds} rounds")
    for name, _ in engines:
        med = statistics.median(results[name])
        runs = " / ".join(str(x) for x in results[name])
        print(f"{name:12s} median {med:>10.0f} nodes/s  ({med / base:.3f}x {engines[0][0]})  runs {runs}")


if __name__ == "__main__":
    sys.exit(main())
