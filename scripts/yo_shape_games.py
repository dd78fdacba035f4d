#!/usr/bin/env python3
"""One game of Kaname against itself with a YaneuraOu net of every supported shape (issue 64's
"a game of each shape against itself with legal play").

For each of the 37 shapes (36 HalfKP shapes, L1 256/512/768/1024 x L2 8/16/32 x L3 32/64/96,
and K-P 256x2-32-32) the script writes a seeded random net (KRN1, `eval/src/yo/random.rs`, made
by the `yo_random_net` example: `cargo build --release -p eval --example yo_random_net`), starts
two Kaname processes that load it by `EvalFile`, and has them play one game from the start
position: `position startpos moves ...` and `go nodes N` for each move. Every `bestmove` is
checked with cshogi (a legal move, or `resign`, or `win` only when cshogi agrees the declaration
is valid); the game ends by mate, resignation, declaration, fourfold repetition or at
--max-plies. Each engine's `Evaluation in use` line (the `d` command) is checked to name the
shape, so a net that silently failed to load is caught. A random net plays badly: legality,
not quality, is what this shows.

    python3 scripts/yo_shape_games.py --kaname target/release/kaname \\
        --writer target/release/examples/yo_random_net --out scripts/results/DIR

Writes DIR/games.tsv (shape, plies, result, reason, illegal moves, seconds) and DIR/<shape>.usi
(the move list). Needs cshogi. Nets go to a temporary folder, one at a time (the largest is
257 MB).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import cshogi

SHAPES = [f"halfkp_{l1}x2-{l2}-{l3}" for l1 in (256, 512, 768, 1024) for l2 in (8, 16, 32) for l3 in (32, 64, 96)]
SHAPES.append("kp_256x2-32-32")


class Engine:
    """A Kaname process speaking USI."""

    def __init__(self, binary, net):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        for line in ["usi", "setoption name USI_Hash value 16", "setoption name Threads value 1",
                     f"setoption name EvalFile value {net}", "isready"]:
            self.send(line)
        self.lines_until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def lines_until(self, prefix, timeout=120):
        start, out = time.time(), []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"engine ended while waiting for {prefix}")
            line = line.rstrip("\n")
            out.append(line)
            if line.startswith(prefix):
                return out
            if time.time() - start > timeout:
                raise RuntimeError(f"no {prefix} in {timeout} s")

    def evaluation_in_use(self):
        self.send("d")
        return self.lines_until("Evaluation in use:")[-1]

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def play(binary, net, shape, nodes, max_plies):
    """One game; returns (plies, result, reason, illegal, moves)."""
    engines = [Engine(binary, net), Engine(binary, net)]
    try:
        for e in engines:
            line = e.evaluation_in_use()
            if shape not in line:
                raise RuntimeError(f"net not in use: {line}")
            e.send("usinewgame")
        board, moves, illegal = cshogi.Board(), [], 0
        seen = {}
        while True:
            if board.is_game_over():
                return len(moves), "black" if board.turn == cshogi.WHITE else "white", "mate", illegal, moves
            if len(moves) >= max_plies:
                return len(moves), "draw", "max plies", illegal, moves
            e = engines[len(moves) % 2]
            e.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
            e.send(f"go nodes {nodes}")
            best = e.lines_until("bestmove")[-1].split()[1]
            mover = "black" if board.turn == cshogi.BLACK else "white"
            other = "white" if mover == "black" else "black"
            if best == "resign":
                return len(moves), other, "resign", illegal, moves
            if best == "win":
                ok = board.is_nyugyoku()
                return len(moves), mover if ok else other, "declaration" if ok else "false declaration", \
                    illegal + (0 if ok else 1), moves
            m = board.move_from_usi(best)
            if m == 0 or not board.is_legal(m):
                return len(moves), other, f"illegal move {best}", illegal + 1, moves
            board.push(m)
            moves.append(best)
            key = board.zobrist_hash()
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= 4:
                return len(moves), "draw", "repetition", illegal, moves
    finally:
        for e in engines:
            e.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kaname", default="target/release/kaname")
    ap.add_argument("--writer", default="target/release/examples/yo_random_net")
    ap.add_argument("--out", required=True)
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--shapes", nargs="*", default=SHAPES)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = ["shape\tseed\tplies\tresult\treason\tillegal\tseconds"]
    total_illegal = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, shape in enumerate(a.shapes):
            seed = 1000 + SHAPES.index(shape)
            net = os.path.join(tmp, "nn.bin")
            subprocess.run([a.writer, shape, str(seed), net], check=True)
            start = time.time()
            plies, result, reason, illegal, moves = play(os.path.abspath(a.kaname), net, shape, a.nodes, a.max_plies)
            secs = time.time() - start
            total_illegal += illegal
            rows.append(f"{shape}\t{seed}\t{plies}\t{result}\t{reason}\t{illegal}\t{secs:.1f}")
            with open(os.path.join(a.out, f"{shape}.usi"), "w") as f:
                f.write("position startpos moves " + " ".join(moves) + "\n")
            print(f"[{i + 1}/{len(a.shapes)}] {shape}: {plies} plies, {result} ({reason}), {illegal} illegal, "
                  f"{secs:.1f} s", flush=True)
            os.remove(net)
    with open(os.path.join(a.out, "games.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{len(a.shapes)} games, {total_illegal} illegal moves")
    return 1 if total_illegal else 0


if __name__ == "__main__":
    sys.exit(main())
