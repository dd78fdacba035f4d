#!/usr/bin/env python3
"""Mate-search benchmark: cshogi.DfPn against Kaname's df-pn on a tsume suite.

Usage:
    python3 scripts/bench_mate.py [--suite tests/data/tsume.txt] [--nodes 1000000]
                                  [--hash 64] [--first] [--skip-build] [--rounds N]

cshogi side: cshogi.DfPn (dlshogi's df-pn) with the node budget --nodes and max depth
--max-depth (default 41, the suite generator's); a mate counts as solved, "exact" when its PV
has the suite's minimal length; a nomate position counts as solved when cshogi disproves it
(gives up before the budget). cshogi reports the first mate it proves, not the shortest. Its
time covers search() and get_pv() (the line is part of the answer), not building the DfPn.

Kaname side: the example binary search/examples/mate_bench.rs (built here in release with
CARGO_TARGET_DIR, default target/), same suite and budget. By default Kaname looks for the
shortest mate (re-searching below each mate it finds) and counts nodes of all phases; --first
makes it stop at the first mate, as cshogi does. Its time covers solve_mate_nodes (search,
reading and verifying the line); its table memory is reused between positions as an engine
reuses its hash, but every position starts from an empty table.

Both tables: per length (or 'mate' = length unknown, 'nomate'), positions, solved, exact
length, nodes, seconds, nodes per second. Node counts are not comparable one to one: a cshogi
node includes a 3-ply look-ahead at new OR nodes, Kaname's a 1-ply (OR) / 2-ply (AND) one.
Compare solved counts and time.
"""
import argparse
import collections
import os
import subprocess
import sys
import time

import cshogi


def run_cshogi(rows, nodes, max_depth):
    table = collections.OrderedDict()
    b = cshogi.Board()
    t_all = time.time()
    for sfen, label in rows:
        b.set_sfen(sfen)
        d = cshogi.DfPn()
        d.set_max_search_node(nodes)
        d.set_max_depth(max_depth)
        t = time.time()
        found = d.search(b)
        # The mating line is part of the answer (Kaname's time includes reading its line).
        pv = d.get_pv(b) if found else []
        secs = time.time() - t
        n = d.searched_node
        if label == "nomate":
            solved = (not found) and n < nodes
            exact = solved
        elif found:
            solved = True
            exact = (not label.isdigit()) or len(pv) == int(label)
        else:
            solved = exact = False
        e = table.setdefault(label, [0, 0, 0, 0, 0.0])
        e[0] += 1
        e[1] += solved
        e[2] += exact
        e[3] += n
        e[4] += secs
    return table, time.time() - t_all


def order_key(label):
    return (0, int(label)) if label.isdigit() else ((1, 0) if label == "mate" else (2, 0))


def print_table(title, table):
    print(title)
    print(f"{'length':>8} {'count':>6} {'solved':>7} {'exact':>7} {'nodes':>12} {'time[s]':>9} {'nodes/s':>10}")
    tot = [0, 0, 0, 0, 0.0]
    for label in sorted(table, key=order_key):
        c, s, x, n, t = table[label]
        print(f"{label:>8} {c:>6} {s:>7} {x:>7} {n:>12} {t:>9.2f} {n / max(t, 1e-9):>10.0f}")
        for i, v in enumerate((c, s, x, n, t)):
            tot[i] += v
    c, s, x, n, t = tot
    print(f"{'total':>8} {c:>6} {s:>7} {x:>7} {n:>12} {t:>9.2f} {n / max(t, 1e-9):>10.0f}")


def run_kaname(args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    if not args.skip_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "search", "--example", "mate_bench"],
                       cwd=root, check=True)
    exe = os.path.join(target, "release", "examples", "mate_bench")
    cmd = [exe, args.suite, str(args.nodes), str(args.hash)] + (["--first"] if args.first else [])
    t = time.time()
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    wall = time.time() - t
    table = collections.OrderedDict()
    title = ""
    for line in out.stdout.splitlines():
        f = line.split()
        if line.startswith("Kaname"):
            title = line
        elif len(f) == 7 and f[0] not in ("length", "total") and f[1].isdigit():
            table[f[0]] = [int(f[1]), int(f[2]), int(f[3]), int(f[4]), float(f[5])]
        elif line.startswith("WRONG"):
            print(line)
    if out.returncode != 0:
        print(out.stdout[-2000:], out.stderr[-2000:], file=sys.stderr)
    return title, table, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default="tests/data/tsume.txt")
    ap.add_argument("--nodes", type=int, default=1000000)
    ap.add_argument("--max-depth", type=int, default=41)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--first", action="store_true", help="Kaname stops at its first mate")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--rounds", type=int, default=1, help="alternate the solvers this many times")
    args = ap.parse_args()
    rows = []
    for line in open(args.suite):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rows.append((f[0], f[1]))
    print(f"suite {args.suite}: {len(rows)} positions, node budget {args.nodes}")
    # Rounds alternate the two solvers so that both meet the same load on a busy host; each
    # solver's table is its fastest round (node counts do not change between rounds).
    best_c = best_k = None
    for r in range(args.rounds):
        table, wall = run_cshogi(rows, args.nodes, args.max_depth)
        title, ktable, kwall = run_kaname(args if r == 0 else argparse.Namespace(**{**vars(args), "skip_build": True}))
        tc, tk = total_time(table), total_time(ktable)
        print(f"round {r + 1}: cshogi {tc:.2f}s, Kaname {tk:.2f}s")
        if best_c is None or tc < total_time(best_c[0]):
            best_c = (table, wall)
        if best_k is None or tk < total_time(best_k[1]):
            best_k = (title, ktable, kwall)
    if args.rounds > 1:
        print(f"fastest of {args.rounds} rounds for each solver:\n")
    table, wall = best_c
    print_table(f"cshogi {version()} DfPn (max depth {args.max_depth}, first mate)", table)
    print(f"wall {wall:.2f}s\n")
    title, ktable, kwall = best_k
    print_table(title, ktable)
    print(f"wall {kwall:.2f}s (includes starting the process and reading the suite)")


def total_time(table):
    return sum(e[4] for e in table.values())


def version():
    try:
        from importlib.metadata import version as v
        return v("cshogi")
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
