#!/usr/bin/env python3
"""Move quality at equal nodes: how far the moves an engine chooses fall below a referee's best,
on positions taken from real games. A match says who wins; this says, in a few minutes and
without a clock, whether two engines (or two settings of one) choose different moves from the
same trees' worth of nodes, and whether what an engine searched before (a game's earlier moves,
with the hash kept) helps it.

    # 1. The suite: one position per game of a shogiarena run (a random ply from 10 to 90),
    #    each with the referee's best move and score.
    python3 scripts/move_quality.py build RUN_DIR suite.json --referee target/release/kaname \\
        --referee-options USI_Hash=256 --referee-nodes 3000000 [--positions 100] [--seed 7]
    # 2. An engine's moves on it, searched with `go nodes N` after `usinewgame`; each move the
    #    referee has not scored yet is scored (the referee's root score of the position after it,
    #    negated) and kept in the suite file for the next engine.
    python3 scripts/move_quality.py play suite.json --engine /path/to/engine --options K=V,K=V \\
        --nodes 2000000 [--warm 4] [--args "--tune"] [--name NAME]
    python3 scripts/move_quality.py self-test

`--warm K` first searches the engine's own K previous positions of the game's line (every other
ply, as in a game) with the same node limit, keeping the hash and histories, as a game does.

Reported per engine: positions within 100 of the referee's best, positions where it played the
game's move, and the mean loss (referee best minus the chosen move's score, at least 0, capped
at 2000; a mate counts as 30000). The referee is any USI engine; a strong one (Kaname's net)
makes the scores mean something. Its scores are a search's, not the truth: compare engines on
one suite, never numbers across suites.

shogiarena stores moves as rsshogi 16-bit integers (`scripts/arena_games.py`); the rsshogi
Python module it installs turns them into USI text.
"""
import argparse
import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import parse_options  # noqa: E402  (the `K=V,K=V` parser of every match script)

MATE = 30000
LOSS_CAP = 2000
CLOSE = 100


def info_score(line):
    """The score of a USI `info` line from the mover's side (a mate as +/-MATE), or None."""
    t = line.split()
    if len(t) < 2 or t[1] == "string" or "score" not in t:
        return None
    i = t.index("score")
    if i + 2 >= len(t):
        return None
    kind, value = t[i + 1], t[i + 2]
    if kind == "cp":
        return int(value)
    if kind == "mate":
        return -MATE if value.startswith("-") else MATE
    return None


def warm_lines(pos, warm):
    """The `position` commands of the engine's `warm` previous positions on the line of `pos`
    (two plies apart, oldest first), without those before the line's start."""
    head, _, moves = pos.partition(" moves ")
    moves = moves.split()
    out = []
    for back in range(2 * warm, 0, -2):
        if back <= len(moves):
            kept = moves[: len(moves) - back]
            out.append(head + (" moves " + " ".join(kept) if kept else ""))
    return out


def loss(best_score, move_score):
    """How much a move scored below the best, as reported (0 at best, capped)."""
    return min(max(0, best_score - move_score), LOSS_CAP)


class Engine:
    """A USI engine driven through its pipes."""

    def __init__(self, cmd, options, args=()):
        self.p = subprocess.Popen(
            [cmd, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
        )
        self.send("usi")
        self.wait("usiok")
        for k, v in options.items():
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, token):
        """Reads up to the line starting with `token`; returns it and the last scored info
        line (an exact score preferred over a bound)."""
        last = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"engine {self.p.args[0]} stopped")
            if info_score(line) is not None and (last is None or "bound" not in line):
                last = line
            if line.startswith(token):
                return line, last

    def search(self, pos, nodes, warm=0):
        """(best move, score) after `usinewgame`; `isready` comes before `position`, as some
        engines (YaneuraOu) reset the position on `isready`."""
        self.send("usinewgame")
        self.send("isready")
        self.wait("readyok")
        for line in warm_lines(pos, warm):
            self.send(line)
            self.send(f"go nodes {nodes}")
            self.wait("bestmove")
        self.send(pos)
        self.send(f"go nodes {nodes}")
        best, last = self.wait("bestmove")
        score = info_score(last) if last else None
        return best.split()[1], 0 if score is None else score

    def quit(self):
        self.send("quit")
        self.p.wait()


class Progress:
    """Positions done, positions a second and the time left, on stderr."""

    def __init__(self, total, what):
        self.total, self.what, self.start = total, what, time.monotonic()

    def step(self, done):
        dt = time.monotonic() - self.start
        rate = done / dt if dt > 0 else 0
        eta = (self.total - done) / rate if rate else 0
        print(f"\r{self.what}: {done}/{self.total} positions, {rate:.2f}/s, ETA {eta:.0f} s", end="", file=sys.stderr)
        if done == self.total:
            print(file=sys.stderr)


def game_lines(db_path):
    """(initial SFEN, USI moves) of every game in a shogiarena game.db."""
    from rsshogi.core import Move

    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    end = int(Move.MOVE_END)
    for gid, sfen in db.execute("select id, initial_position_sfen from game order by id").fetchall():
        rows = db.execute("select next_move from game_move where game_id = ? order by ply", (gid,))
        yield sfen, [Move(m).to_usi() for (m,) in rows if m is not None and m != end]


def referee_score(suite, ref, pos, move):
    """The referee's score of `move` at `pos` (from the mover's side), cached in the suite."""
    key = f"{pos}|{move}"
    if key not in suite["scores"]:
        if move in ("resign", "win"):
            suite["scores"][key] = -MATE if move == "resign" else MATE
        else:
            joiner = " " if " moves " in pos else " moves "
            _, score = ref.search(pos + joiner + move, suite["referee"]["nodes"])
            suite["scores"][key] = -score
    return suite["scores"][key]


def build(a):
    rnd = random.Random(a.seed)
    items = []
    for sfen, moves in game_lines(f"{a.run}/game.db"):
        if len(moves) < 30:
            continue
        k = rnd.randrange(10, min(len(moves) - 4, 90))
        items.append({"pos": f"position sfen {sfen} moves {' '.join(moves[:k])}", "game_move": moves[k]})
    rnd.shuffle(items)
    items = items[: a.positions]
    referee = {"cmd": a.referee, "options": parse_options(a.referee_options), "nodes": a.referee_nodes}
    suite = {"referee": referee, "positions": [], "scores": {}}
    ref = Engine(referee["cmd"], referee["options"])
    progress = Progress(len(items), "referee")
    for i, it in enumerate(items):
        best, score = ref.search(it["pos"], a.referee_nodes)
        suite["scores"][f"{it['pos']}|{best}"] = score
        # Decided positions say nothing about move choice.
        if abs(score) < 1500:
            suite["positions"].append({**it, "best": best, "best_score": score})
        progress.step(i + 1)
    ref.quit()
    json.dump(suite, open(a.out, "w"))
    print(f"{len(suite['positions'])} positions (of {len(items)}; decided ones left out) in {a.out}")


def play(a):
    suite = json.load(open(a.suite))
    eng = Engine(a.engine, parse_options(a.options), a.args.split() if a.args else ())
    ref = None
    close = same = 0
    losses = []
    progress = Progress(len(suite["positions"]), a.name or a.engine)
    for i, it in enumerate(suite["positions"]):
        move, _ = eng.search(it["pos"], a.nodes, a.warm)
        if f"{it['pos']}|{move}" not in suite["scores"]:
            ref = ref or Engine(suite["referee"]["cmd"], suite["referee"]["options"])
        score = referee_score(suite, ref, it["pos"], move)
        lost = loss(it["best_score"], score)
        losses.append(lost)
        close += lost < CLOSE
        same += move == it["game_move"]
        progress.step(i + 1)
    eng.quit()
    if ref:
        ref.quit()
    json.dump(suite, open(a.suite, "w"))
    n = len(losses)
    print(
        f"{a.name or a.engine} nodes {a.nodes} warm {a.warm}: {close}/{n} within {CLOSE} of the referee's best, "
        f"{same} the game's move, mean loss {sum(losses) / max(n, 1):.0f}"
    )


def self_test(_):
    checks = [
        (info_score("info depth 9 score cp -42 nodes 5 pv 7g7f"), -42),
        (info_score("info depth 9 score mate 5 pv 7g7f"), MATE),
        (info_score("info depth 9 score mate -2 pv 7g7f"), -MATE),
        (info_score("info depth 9 score cp 17 lowerbound nodes 5"), 17),
        (info_score("info string no score"), None),
        (info_score("info string the score cp 5 is not a score"), None),
        (warm_lines("position startpos moves a b c d e", 2), ["position startpos moves a", "position startpos moves a b c"]),
        (warm_lines("position startpos moves a b", 2), ["position startpos"]),
        (warm_lines("position sfen X b - 1", 3), []),
        (loss(100, -50), 150),
        (loss(100, 300), 0),
        (loss(0, -MATE), LOSS_CAP),
        (parse_options("USI_Hash=64, Tune_x=3,BookFile=no_book"), {"USI_Hash": 64, "Tune_x": 3, "BookFile": "no_book"}),
    ]
    bad = [(got, want) for got, want in checks if got != want]
    for got, want in bad:
        print(f"FAIL: got {got!r}, expected {want!r}")
    print(f"{len(checks) - len(bad)}/{len(checks)} checks passed")
    sys.exit(1 if bad else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="make a suite from a shogiarena run directory")
    b.add_argument("run", help="a shogiarena run directory (holding game.db)")
    b.add_argument("out")
    b.add_argument("--referee", required=True)
    b.add_argument("--referee-options", default="")
    b.add_argument("--referee-nodes", type=int, default=3_000_000)
    b.add_argument("--positions", type=int, default=100)
    b.add_argument("--seed", type=int, default=7)
    pl = sub.add_parser("play", help="an engine's moves on a suite")
    pl.add_argument("suite")
    pl.add_argument("--engine", required=True)
    pl.add_argument("--options", default="")
    pl.add_argument("--args", default="", help="the engine's command-line arguments (one string)")
    pl.add_argument("--nodes", type=int, required=True)
    pl.add_argument("--warm", type=int, default=0)
    pl.add_argument("--name")
    sub.add_parser("self-test", help="check the parsing and bookkeeping (no engines)")
    a = p.parse_args()
    {"build": build, "play": play, "self-test": self_test}[a.cmd](a)


if __name__ == "__main__":
    main()
