#!/usr/bin/env python3
"""Nodes per second of several USI engines on the same positions, measured in the same run.

Usage:
    python3 scripts/nps_compare.py --engine kaname=target/release/kaname \
        --engine ref=/path/to/other-usi-engine [--threads 1] [--hash 256] \
        [--movetime 3000] [--rounds 5] [--positions FILE] [--option ref:BookFile=no_book]
    python3 scripts/nps_compare.py --scaling 2 --engine kaname=target/release/kaname ...

Why: the machines are noisy, so an absolute nodes/s figure says little. This script alternates
the engines round by round (engine A, engine B, engine A, ...), each round searching every
position with `go movetime`, and reports per engine the nodes/s of each round (total nodes over
total reported time), the median, and each engine's median relative to the first engine's.

The positions default to four middle-game and end-game SFENs of varied character (the same four
that many shogi engines use as their default bench, e.g. YaneuraOu's `bench`). Any USI engine
works; each round starts a fresh process, sends `usi`, the options, `isready`, `usinewgame`, and
for each position `position sfen ...` and `go movetime T`, and takes the last `info` line's
`nodes` and `time` before `bestmove`.

`--scaling N` measures how nodes/s grows with threads instead. Each round runs, per engine and
back to back: one process with 1 thread, one process with N threads, and N one-thread processes
at once (their nodes/s summed). The last is the host's own ceiling for N busy cores (shared
caches, memory, clock speed under load) with nothing shared in software; an engine whose
N-thread ratio matches it loses nothing to its threads. Reported: the median of each round's
ratios to that round's 1-thread figure, and of the nodes per user-CPU second of the N threads
over that of the N processes (wall-clock noise cancels: 1.0 means the threads lose nothing).
"""
import argparse
import os
import concurrent.futures
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
    """Total nodes, total milliseconds and the process's user CPU seconds over all positions,
    fresh process."""
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
    proc.stdin.close()
    # wait4 rather than wait: it also returns the child's CPU usage. Popen is told the
    # process is reaped, so it does not wait for it again.
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return nodes, ms, usage.ru_utime


def scaling(engines, extra, args, positions):
    """Per round and engine: 1 thread, N threads, N one-thread processes; ratios to 1 thread."""
    n = args.scaling
    ratios = {name: ([], [], []) for name, _ in engines}
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        for r in range(args.rounds):
            for name, command in engines:
                def opts(threads):
                    return [("Threads", threads), ("USI_Hash", args.hash)] + extra.get(name, [])

                def nps(result):
                    nodes, ms, _ = result
                    return nodes * 1000 // max(ms, 1)

                def per_cpu(results):
                    return sum(r[0] for r in results) / max(sum(r[2] for r in results), 1e-3) / 1000

                solo = one_round(command, opts(1), positions, args.movetime)
                many = one_round(command, opts(n), positions, args.movetime)
                copies = list(pool.map(lambda _: one_round(command, opts(1), positions, args.movetime), range(n)))
                one, threaded, summed = nps(solo), nps(many), sum(nps(c) for c in copies)
                ratios[name][0].append(threaded / one)
                ratios[name][1].append(summed / one)
                ratios[name][2].append(per_cpu([many]) / per_cpu(copies))
                print(f"round {r + 1} {name}: 1 thread {one} nodes/s, {n} threads {threaded} ({threaded / one:.2f}x), "
                      f"{n} processes {summed} ({summed / one:.2f}x); knodes per CPU second: 1 thread "
                      f"{per_cpu([solo]):.0f}, {n} threads {per_cpu([many]):.0f}, {n} processes {per_cpu(copies):.0f}",
                      flush=True)
    print(f"scaling to {n}, hash {args.hash} MiB per process, movetime {args.movetime} ms, "
          f"{len(positions)} positions, {args.rounds} rounds (medians of per-round ratios)")
    for name, _ in engines:
        t, p, c = ratios[name]
        print(f"{name:12s} {n} threads {statistics.median(t):.3f}x  {n} processes {statistics.median(p):.3f}x  "
              f"nodes per CPU second, threads / processes {statistics.median(c):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True, help="name=command (repeatable)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hash", type=int, default=256)
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", help="file with one SFEN per line (default: four built-in)")
    ap.add_argument("--option", action="append", default=[], help="name:Option=value for one engine")
    ap.add_argument("--scaling", type=int, metavar="N", help="measure 1 -> N threads against N processes")
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

    if args.scaling:
        return scaling(engines, extra, args, positions)

    results = {name: [] for name, _ in engines}
    for r in range(args.rounds):
        for name, command in engines:
            opts = [("Threads", args.threads), ("USI_Hash", args.hash)] + extra.get(name, [])
            nodes, ms, _ = one_round(command, opts, positions, args.movetime)
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
