#!/usr/bin/env python3
"""What a GUI records for each move of a game: the last `info` line before `bestmove`.

ShogiHome, ShogiGUI and Shogidokoro keep the last `info ... multipv 1 ... score ...` line an
engine printed before its `bestmove` as the move's evaluation (評価値) and line of play (読み筋):
the record's comment, the evaluation graph. This script plays a game between two copies of a USI
engine as such a GUI does (every process gets `usi`, its options, `isready`, `usinewgame`, then
`position startpos moves <all moves>` and `go btime 0 wtime 0 byoyomi <ms>` for each of its
moves) and looks at that line for every move:

- `bound`: the line is a `lowerbound`/`upperbound` (a GUI shows it as if exact, or drops it);
- `short`: its `pv` has one or two moves;
- `nopv`: there is no such line at all, or it has no `pv`;
- `first`: its first move is not the `bestmove` (ShogiHome then records the move without it);
- `ponder`: the `bestmove`'s ponder move is not the line's second move.

A move where the game really has one legal move, or the line is a mate in 1 (`score mate 1`), is
counted apart (`forced`): a one-move line is all there is; so is a mate line as long as its
mate distance (`score mate -2` with two moves: the move and the mate; `whole`), which is not
counted `short`. Every move is checked legal with cshogi. The game ends at `bestmove
resign`/`win`, mate, fourfold repetition (cshogi) or `--max-plies`.

    python3 scripts/gui_last_lines.py --engine target/release/kaname --byoyomi 1000 \
        --out scripts/results/2026-12-06-gui-last-lines/after [--option OutputFailLHPV=false]

Writes `<out>/moves.tsv` (one row per move: the last line and its classes), `<out>/usi.log`
(everything sent and received, both engines) and `<out>/summary.txt`, and prints the summary.
Needs cshogi. `--self-test` checks the line classification (standard library only).
"""

import argparse
import os
import subprocess
import sys
import threading
import queue
import time


def parse_info(line):
    """The fields a GUI reads from an `info` line: multipv, score, bound, pv (None if absent)."""
    t = line.split()
    if not t or t[0] != "info" or (len(t) > 1 and t[1] == "string"):
        return None
    r = {"multipv": 1, "score": None, "bound": None, "pv": None, "depth": None}
    i = 1
    while i < len(t):
        k = t[i]
        if k == "multipv" and i + 1 < len(t):
            r["multipv"] = int(t[i + 1])
            i += 2
        elif k == "depth" and i + 1 < len(t):
            r["depth"] = int(t[i + 1])
            i += 2
        elif k == "score" and i + 2 < len(t):
            r["score"] = t[i + 1] + " " + t[i + 2]
            i += 3
        elif k in ("lowerbound", "upperbound"):
            r["bound"] = k
            i += 1
        elif k == "pv":
            r["pv"] = t[i + 1:]
            break
        elif k == "string":
            return None
        else:
            i += 1
    return r


def record_line(lines):
    """The line a GUI keeps for a move among the `info` lines of one search: the last one of
    multipv 1 (or without multipv) that has a score."""
    kept = None
    for line in lines:
        r = parse_info(line)
        if r is not None and r["multipv"] == 1 and r["score"] is not None:
            kept = r
    return kept


def classify(kept, bestmove, ponder, legal_count):
    """The classes of one move's kept line (see the module doc)."""
    c = set()
    if kept is not None and kept["score"] == "mate 1":
        c.add("forced")
    if legal_count == 1:
        c.add("forced")
    if kept is None or not kept["pv"]:
        c.add("nopv")
        return c
    if kept["bound"]:
        c.add("bound")
    score = kept["score"] or ""
    mate = score.split()[1] if score.startswith("mate ") else None
    if mate is not None and mate.lstrip("+-").isdigit() and len(kept["pv"]) >= abs(int(mate)):
        c.add("whole")
    if len(kept["pv"]) <= 2 and "whole" not in c:
        c.add("short")
    if kept["pv"][0] != bestmove:
        c.add("first")
    if ponder is not None and (len(kept["pv"]) < 2 or kept["pv"][1] != ponder):
        c.add("ponder")
    return c


class Engine:
    def __init__(self, path, name, log, options):
        self.name = name
        self.log = log
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("usi")
        declared = []
        for line in self.until("usiok"):
            t = line.split()
            if t[:2] == ["option", "name"]:
                declared.append((t[2], line))
        # Like ShogiHome and Shogidokoro: every option on every launch, defaults included.
        for name, decl in declared:
            if name in options:
                value = options[name]
            elif " type button" in decl:
                continue
            else:
                t = decl.split()
                value = t[t.index("default") + 1] if "default" in t else ""
                if value == "<empty>":
                    value = ""
            self.send(f"setoption name {name} value {value}")
        for name, value in options.items():
            if name not in dict(declared):
                self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok", timeout=120)
        self.send("usinewgame")

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\r\n"))
        self.q.put(None)

    def send(self, line):
        self.log.write(f"{time.time():.3f} {self.name} > {line}\n")
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, word, timeout=60):
        got = []
        deadline = time.time() + timeout
        while True:
            line = self.q.get(timeout=max(0.1, deadline - time.time()))
            if line is None:
                raise RuntimeError(f"{self.name} ended")
            self.log.write(f"{time.time():.3f} {self.name} < {line}\n")
            got.append(line)
            if line.split()[:1] == [word]:
                return got

    def quit(self):
        try:
            self.send("gameover draw")
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def play(args):
    import cshogi
    os.makedirs(args.out, exist_ok=True)
    options = dict(o.split("=", 1) for o in args.option)
    log = open(os.path.join(args.out, "usi.log"), "w")
    engines = [Engine(args.engine, "black", log, options), Engine(args.engine, "white", log, options)]
    board = cshogi.Board()
    moves = []
    rows = []
    end = "max plies"
    while len(moves) < args.max_plies:
        e = engines[len(moves) % 2]
        pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        e.send(pos)
        e.send(f"go btime 0 wtime 0 byoyomi {args.byoyomi}")
        lines = e.until("bestmove", timeout=args.byoyomi / 1000 + 30)
        t = lines[-1].split()
        best = t[1]
        ponder = t[3] if len(t) >= 4 and t[2] == "ponder" else None
        legal = [cshogi.move_to_usi(m) for m in board.legal_moves]
        kept = record_line(lines[:-1])
        if best in ("resign", "win"):
            end = best
            rows.append((len(moves) + 1, best, ponder, kept, {"end"}, len(legal)))
            break
        if best not in legal:
            raise RuntimeError(f"illegal bestmove {best} at ply {len(moves) + 1}")
        rows.append((len(moves) + 1, best, ponder, kept, classify(kept, best, ponder, len(legal)), len(legal)))
        board.push_usi(best)
        moves.append(best)
        if board.is_draw() == cshogi.REPETITION_DRAW:
            end = "repetition"
            break
        if board.is_game_over():
            end = "mate"
            break
    for e in engines:
        e.quit()
    log.close()
    with open(os.path.join(args.out, "moves.tsv"), "w") as f:
        f.write("ply\tbestmove\tponder\tlegal\tdepth\tscore\tbound\tpv_len\tclasses\tpv\n")
        for ply, best, ponder, kept, c, legal in rows:
            k = kept or {}
            pv = k.get("pv") or []
            f.write(f"{ply}\t{best}\t{ponder or ''}\t{legal}\t{k.get('depth') or ''}\t{k.get('score') or ''}\t"
                    f"{k.get('bound') or ''}\t{len(pv)}\t{','.join(sorted(c))}\t{' '.join(pv)}\n")
    summary = summarize(rows, end, args)
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(summary)
    print(summary, end="")


def summarize(rows, end, args):
    moves = [r for r in rows if "end" not in r[4]]
    count = lambda k, rs: sum(1 for r in rs if k in r[4])
    unforced = [r for r in moves if "forced" not in r[4]]
    s = [f"engine {args.engine}, byoyomi {args.byoyomi} ms, options {' '.join(args.option) or '(defaults)'}",
         f"{len(moves)} moves, game end: {end}",
         f"last lines before bestmove: bound {count('bound', moves)}, short (1-2 moves) {count('short', moves)}, "
         f"no pv {count('nopv', moves)}, first move not the bestmove {count('first', moves)}, "
         f"ponder not the second move {count('ponder', moves)}",
         f"whole mate lines (as long as the mate): {count('whole', moves)}",
         f"forced (one legal move or mate in 1): {count('forced', moves)}; among the other "
         f"{len(unforced)} moves: bound {count('bound', unforced)}, short {count('short', unforced)}, "
         f"no pv {count('nopv', unforced)}, first {count('first', unforced)}, ponder {count('ponder', unforced)}"]
    return "\n".join(s) + "\n"


def self_test():
    checks = 0
    r = parse_info("info depth 9 seldepth 12 multipv 1 score cp 31 lowerbound time 5 nodes 9 pv 7g7f")
    assert r["bound"] == "lowerbound" and r["pv"] == ["7g7f"] and r["score"] == "cp 31"
    checks += 1
    assert parse_info("info string hello pv 7g7f") is None
    checks += 1
    lines = ["info depth 3 multipv 1 score cp 1 pv 7g7f 3c3d 2g2f",
             "info depth 3 multipv 2 score cp 0 pv 2g2f 3c3d",
             "info string x",
             "info depth 4 score cp 5 pv 2g2f 8c8d 7g7f"]
    k = record_line(lines)
    assert k["pv"][0] == "2g2f", k
    checks += 1
    assert classify(k, "2g2f", "8c8d", 30) == set()
    assert classify(k, "7g7f", None, 30) == {"first"}
    assert classify(k, "2g2f", "3c3d", 30) == {"ponder"}
    checks += 1
    short = parse_info("info depth 10 score cp 5 upperbound pv 2g2f 8c8d")
    assert classify(short, "2g2f", "8c8d", 30) == {"bound", "short"}
    assert classify(parse_info("info depth 1 score mate 1 pv G*5b"), "G*5b", None, 10) == {"forced", "whole"}
    assert classify(parse_info("info depth 6 score mate -2 pv 6e6f N*7d"), "6e6f", "N*7d", 3) == {"whole"}
    assert classify(parse_info("info depth 6 score mate 5 pv 6e6f N*7d"), "6e6f", "N*7d", 3) == {"short"}
    assert classify(None, "2g2f", None, 1) == {"forced", "nopv"}
    checks += 1
    print(f"{checks} checks passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="target/release/kaname")
    ap.add_argument("--byoyomi", type=int, default=1000)
    ap.add_argument("--max-plies", type=int, default=256)
    ap.add_argument("--option", action="append", default=[], help="Name=Value, sent to both engines")
    ap.add_argument("--out", default="gui-last-lines")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    play(args)


if __name__ == "__main__":
    main()
