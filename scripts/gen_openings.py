#!/usr/bin/env python3
"""Generate a small file of varied, sane opening positions for matches (scripts/sprt.py, shogiarena).

Each line is `startpos moves m1 m2 ...` (4-8 plies by default).  At every ply a
USI engine (Fairy-Stockfish by default) is asked for its top N moves at a
small depth (MultiPV), and one of the moves scoring within --window centipawns
of the best is picked at random.  Lines whose final position is too
unbalanced (|score| > --max-eval) or duplicates are thrown away.

    python3 scripts/gen_openings.py --count 40 --seed 1 -o scripts/openings.txt
"""

import argparse
import random
import re
import shutil
import subprocess
import sys

RE_MPV = re.compile(r"\bdepth (\d+) .*\bmultipv (\d+) .*\bscore (cp|mate) (-?\d+).* pv (\S+)")


def default_engine():
    return shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"


class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen([cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("usi")
        self.until("usiok")

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine died")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def multipv(self, moves, n, depth):
        self.send("setoption name MultiPV value %d" % n)
        self.send("isready")
        self.until("readyok")
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send("go depth %d" % depth)
        out = self.until("bestmove")
        best = {}
        for line in out:
            m = RE_MPV.search(line)
            if not m:
                continue
            d, k, kind, v, mv = int(m[1]), int(m[2]), m[3], int(m[4]), m[5]
            score = v if kind == "cp" else (30000 if v > 0 else -30000)
            # keep the deepest result for each multipv slot
            if k not in best or best[k][0] <= d:
                best[k] = (d, mv, score)
        return [(mv, sc) for _, mv, sc in best.values()]

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=default_engine())
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--min-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=8)
    ap.add_argument("--multipv", type=int, default=6)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--window", type=int, default=60, help="cp below the best move still eligible")
    ap.add_argument("--max-eval", type=int, default=200, help="reject final positions beyond this |cp|")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    eng = Engine(a.engine)
    seen, lines = set(), []
    tries = 0
    while len(lines) < a.count and tries < a.count * 10:
        tries += 1
        plies = rng.randint(a.min_plies, a.max_plies)
        moves = []
        for _ in range(plies):
            cands = eng.multipv(moves, a.multipv, a.depth)
            if not cands:
                break
            top = max(sc for _, sc in cands)
            ok = [mv for mv, sc in cands if sc >= top - a.window]
            moves.append(rng.choice(ok))
        if len(moves) != plies:
            continue
        key = " ".join(moves)
        if key in seen:
            continue
        final = eng.multipv(moves, 1, a.depth)
        if not final or abs(final[0][1]) > a.max_eval:
            continue
        seen.add(key)
        lines.append("startpos moves " + key)
        print("%3d %+5d %s" % (len(lines), final[0][1], key), file=sys.stderr)
    eng.quit()
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    for l in lines:
        out.write(l + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
