#!/usr/bin/env python3
"""Games of a shogi variant (Minishogi, Sho shogi) between two USI engines, refereed by
Fairy-Stockfish's own rules (issue 14, M7).

shogiarena and cshogi know standard shogi only, so this runner keeps the board itself with
pyffish (PyPI, Fairy-Stockfish's Python binding; checked with 0.0.90, "Fairy-Stockfish 230826
LB"): every move an engine sends must be in pyffish's legal-move list, and pyffish decides mate
(a pawn-drop mate loses for the dropper) and the extinction of Sho shogi's royals. Repetition is
judged by shogi's rule, which issue 14 asks for in both variants (`repetition`): the fourth
occurrence of a position draws, unless one side gave check with every move since the first,
which loses. The engines never referee each other.

    python3 scripts/variant_match.py --variant minishogi --games 50 --byoyomi 300 \\
        --engine1 target/release/kaname --engine2 /usr/games/fairy-stockfish \\
        --out matches/mini-fsf

Engines are command lines (`--engine2 "python3 scripts/gnushogi_usi.py --minishogi"`), each
given its variant through `USI_Variant` or `UCI_Variant`, whichever it lists (Fairy-Stockfish
speaks USI after `usi`), and `--engineN-options Name=Value,...`. Every game starts from the
variant's start position with --opening-plies random legal moves (seeded), played twice with
the colours swapped. Time: `go btime 0 wtime 0 byoyomi B`; a move that takes longer than B plus
the engine's margin (--engineN-margin-ms) loses on time. A game longer than --max-plies is a
draw (adjudicated and counted as such).

Counted per engine: wins, losses, draws, losses on time, illegal moves, crashes (the process
died or sent no `bestmove` within B + --hang-secs; it is restarted for the next game), stray
stdout lines (not USI protocol), the mean and largest time per move. Written to OUT/games.jsonl
(one game per line: players, opening, moves in USI, result, reason) and OUT/summary.txt, with
the first engine's score and Elo (95% bounds from the per-game scores). Progress (games/min,
ETA) on stderr.

Needs: pyffish (`pip install pyffish==0.0.90`).
"""
import argparse
import json
import math
import os
import queue
import random
import shlex
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_variant_fixture import SIZES, PyFfish  # noqa: E402
USI_PREFIXES = ("id ", "option ", "usiok", "readyok", "info", "bestmove")


class EngineDied(Exception):
    """The engine exited or stopped answering."""


class Usi:
    """One USI engine process."""

    def __init__(self, cmd, name, options, variant, log_path):
        self.cmd, self.name, self.options, self.variant = cmd, name, options, variant
        self.log = open(log_path, "a", encoding="utf-8")
        self.stray = 0
        self.start()

    def start(self):
        self.p = subprocess.Popen(shlex.split(self.cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.log, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.p, self.lines), daemon=True).start()
        self.send("usi")
        names = [l.split()[2] for l in self.until(lambda l: l == "usiok", 30) if l.startswith("option name ")]
        for opt in ("USI_Variant", "UCI_Variant"):
            if opt in names:
                self.send(f"setoption name {opt} value {self.variant}")
                break
        for k, v in self.options.items():
            self.send(f"setoption name {k} value {v}")
        self.sync(60)

    @staticmethod
    def _read(p, q):
        for line in p.stdout:
            q.put(line.rstrip("\n"))
        q.put(None)

    def send(self, text):
        self.log.write(f"> {text}\n")
        try:
            self.p.stdin.write(text + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineDied(f"write failed: {e}")

    def until(self, done, timeout):
        """Lines up to the first for which `done` holds; EngineDied on exit or timeout."""
        end = time.monotonic() + timeout
        out = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise EngineDied(f"no answer within {timeout:.1f} s")
            if line is None:
                raise EngineDied(f"exited (code {self.p.poll()})")
            self.log.write(f"< {line}\n")
            if line and not line.startswith(USI_PREFIXES):
                self.stray += 1
            out.append(line)
            if done(line):
                return out

    def sync(self, timeout=30):
        self.send("isready")
        self.until(lambda l: l == "readyok", timeout)

    def new_game(self):
        self.send("usinewgame")
        self.sync()

    def go(self, moves, byoyomi, hang_secs):
        """(move, milliseconds) for the position after `moves` from the start."""
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        t0 = time.monotonic()
        self.send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
        lines = self.until(lambda l: l.startswith("bestmove"), byoyomi / 1000 + hang_secs)
        ms = (time.monotonic() - t0) * 1000
        parts = lines[-1].split()
        return (parts[1] if len(parts) > 1 else ""), ms

    def game_over(self, result):
        try:
            self.send(f"gameover {result}")
        except EngineDied:
            pass

    def restart(self):
        self.close()
        self.start()

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=5)
        except (EngineDied, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


class Referee(PyFfish):
    """The variant's rules, from pyffish, in USI notation (the square and move conversions are
    the fixture generator's)."""

    def legal(self, uci_moves):
        """{usi: uci} of the legal moves after `uci_moves`."""
        return {self.to_usi(m): m for m in self.sf.legal_moves(self.variant, self.start, uci_moves)}

    def key(self, uci_moves):
        """The position after `uci_moves` (board, hands, side to move) as a string."""
        return self.sf.get_fen(self.variant, self.start, uci_moves, False, True).rsplit(" ", 1)[0]

    def gives_check(self, uci_moves):
        """Whether the last of `uci_moves` gave check."""
        return self.sf.gives_check(self.variant, self.start, uci_moves)

    def end(self, uci_moves, legal, history):
        """None while the game goes on, else (result for the side to move: 1, 0, -1, reason).
        `history` holds (key, the move into it gave check) for every position of the game."""
        if not legal:
            # A mate, or (r > 0) a pawn-drop mate, which Fairy-Stockfish generates and then
            # scores as a loss for the side that dropped the pawn.
            r = self.sf.game_result(self.variant, self.start, uci_moves)
            return (sign(r), {-1: "mate", 0: "stalemate", 1: "pawn-drop mate"}[sign(r)])
        over, r = self.sf.is_immediate_game_end(self.variant, self.start, uci_moves)
        if over:
            return (sign(r), "variant end")
        return repetition(history)


def repetition(history):
    """Shogi's repetition rule, which issue 14 asks for in both variants (Fairy-Stockfish's own
    differs: a plain repetition in Minishogi loses for Black, and it never penalises perpetual
    check in Sho shogi): the fourth occurrence of a position ends the game, drawn unless every
    move of one side since the first occurrence gave check, in which case that side loses.
    Result for the side to move, as `Referee.end`."""
    key = history[-1][0]
    seen = [i for i, (k, _) in enumerate(history) if k == key]
    if len(seen) < 4:
        return None
    first = seen[0]
    # history[i] is the position after ply i; the move into it was made by the side that is
    # not to move there. The side to move now made the moves into history[-2], [-4], ...
    n = len(history) - 1
    checks_by_mover = all(history[i][1] for i in range(n - 1, first, -2))
    checks_by_other = all(history[i][1] for i in range(n, first, -2))
    if checks_by_other:
        return (1, "perpetual check")
    if checks_by_mover:
        return (-1, "perpetual check")
    return (0, "repetition")


def sign(v):
    return (v > 0) - (v < 0)


def opening(referee, plies, rng):
    """`plies` random legal moves from the start (USI, UCI), none ending the game."""
    usi, uci = [], []
    for _ in range(plies):
        legal = referee.legal(uci)
        if not legal:
            break
        m = rng.choice(sorted(legal))
        usi.append(m)
        uci.append(legal[m])
    return usi, uci


def play(referee, engines, names, margins, start_usi, start_uci, args):
    """One game; engines[0] plays Black. The result record."""
    usi, uci = list(start_usi), list(start_uci)
    history = [(referee.key(uci[:i]), i > 0 and referee.gives_check(uci[:i])) for i in range(len(uci) + 1)]
    for e in engines:
        try:
            e.new_game()
        except EngineDied:
            e.restart()  # counted when it fails again during the game
            e.new_game()
    times = [[], []]
    while True:
        side = len(usi) % 2
        legal = referee.legal(uci)
        end = referee.end(uci, legal, history)
        if end is not None:
            r, reason = end
            winner = None if r == 0 else (side if r > 0 else 1 - side)
            break
        if len(usi) >= args.max_plies:
            winner, reason = None, "max plies"
            break
        try:
            move, ms = engines[side].go(usi, args.byoyomi, args.hang_secs)
        except EngineDied as e:
            winner, reason = 1 - side, f"crash: {names[side]} {e}"
            engines[side].restart()
            break
        times[side].append(ms)
        if ms > args.byoyomi + margins[side]:
            winner, reason = 1 - side, f"time: {names[side]} {ms:.0f} ms"
            break
        if move == "resign":
            winner, reason = 1 - side, "resign"
            break
        if move not in legal:
            winner, reason = 1 - side, f"illegal: {names[side]} {move}"
            break
        usi.append(move)
        uci.append(legal[move])
        history.append((referee.key(uci), referee.gives_check(uci)))
    for s, e in enumerate(engines):
        e.game_over("draw" if winner is None else ("win" if winner == s else "lose"))
    return {"black": names[0], "white": names[1], "opening": start_usi, "moves": usi,
            "winner": None if winner is None else names[winner], "reason": reason,
            "ms": {names[s]: [round(t) for t in times[s]] for s in (0, 1)}}


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def summarize(games, names, stray, referee, args):
    a, b = names
    w = sum(g["winner"] == a for g in games)
    l = sum(g["winner"] == b for g in games)
    d = len(games) - w - l
    scores = [1.0 if g["winner"] == a else 0.0 if g["winner"] == b else 0.5 for g in games]
    n = len(scores)
    mean = sum(scores) / n if n else 0.5
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    out = [f"variant {args.variant}, byoyomi {args.byoyomi} ms, {n} games, referee {referee.name}",
           f"{a}: {args.engine1} {args.engine1_options or ''}".rstrip(),
           f"{b}: {args.engine2} {args.engine2_options or ''}".rstrip(),
           f"{a} vs {b}: +{w} -{l} ={d}, score {mean:.3f}, Elo {elo(mean):+.0f} "
           f"(95%: {elo(mean - half):+.0f}..{elo(mean + half):+.0f})"]
    reasons = {}
    for g in games:
        key = g["reason"].split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    out.append("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    for name in names:
        ms = [t for g in games for t in g["ms"].get(name, [])]
        count = lambda kind: sum(g["reason"].startswith(f"{kind}: {name} ") for g in games)
        out.append(f"{name}: losses on time {count('time')}, illegal moves {count('illegal')}, "
                   f"crashes {count('crash')}, stray stdout lines {stray[name]}, moves {len(ms)}, "
                   f"ms per move mean {sum(ms) / max(1, len(ms)):.0f} max {max(ms, default=0):.0f}")
    plies = [len(g["moves"]) for g in games]
    out.append(f"plies per game: mean {sum(plies) / max(1, n):.0f}, max {max(plies, default=0)}")
    return "\n".join(out) + "\n"


def parse_options(text):
    opts = {}
    for item in filter(None, (text or "").split(",")):
        k, _, v = item.partition("=")
        opts[k.strip()] = v.strip()
    return opts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True, choices=sorted(SIZES))
    ap.add_argument("--engine1", required=True)
    ap.add_argument("--engine2", required=True)
    ap.add_argument("--name1", default="kaname")
    ap.add_argument("--name2", default="opponent")
    ap.add_argument("--engine1-options", default="USI_Hash=64,Threads=1")
    ap.add_argument("--engine2-options", default="")
    ap.add_argument("--engine1-margin-ms", type=int, default=200)
    ap.add_argument("--engine2-margin-ms", type=int, default=200)
    ap.add_argument("--games", type=int, default=50, help="games (rounded up to an even number)")
    ap.add_argument("--byoyomi", type=int, default=300)
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--hang-secs", type=float, default=15.0)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    referee = Referee(args.variant)
    names = (args.name1, args.name2)
    pairs = (args.games + 1) // 2
    jobs = queue.Queue()
    for i in range(pairs):
        jobs.put(i)
    games, stray, lock = [], {n: 0 for n in names}, threading.Lock()
    t0 = time.monotonic()
    path = os.path.join(args.out, "games.jsonl")
    open(path, "w").close()

    def worker(wid):
        ref = Referee(args.variant)
        specs = [(args.engine1, names[0], parse_options(args.engine1_options)),
                 (args.engine2, names[1], parse_options(args.engine2_options))]
        engines = [Usi(cmd, n, o, args.variant, os.path.join(args.out, f"{n}-{wid}.log")) for cmd, n, o in specs]
        margins = {names[0]: args.engine1_margin_ms, names[1]: args.engine2_margin_ms}
        try:
            while True:
                try:
                    i = jobs.get_nowait()
                except queue.Empty:
                    return
                op_usi, op_uci = opening(ref, args.opening_plies, random.Random(args.seed * 100003 + i))
                for swap in (False, True):
                    order = engines[::-1] if swap else engines
                    order_names = [e.name for e in order]
                    g = play(ref, order, order_names, [margins[n] for n in order_names], op_usi, op_uci, args)
                    g["game"] = 2 * i + swap + 1
                    with lock:
                        games.append(g)
                        with open(path, "a") as f:
                            f.write(json.dumps(g) + "\n")
                        n = len(games)
                        w = sum(x["winner"] == names[0] for x in games)
                        l = sum(x["winner"] == names[1] for x in games)
                        rate = n / max(1e-9, (time.monotonic() - t0) / 60)
                        eta = (2 * pairs - n) / max(rate, 1e-9)
                        print(f"[{args.variant}] {n}/{2 * pairs} games, {names[0]} +{w} -{l} ={n - w - l}, "
                              f"{rate:.1f}/min, ETA {eta:.0f} min ({g['reason']})", file=sys.stderr, flush=True)
        finally:
            with lock:
                for e in engines:
                    stray[e.name] += e.stray
            for e in engines:
                e.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(max(1, args.concurrency))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    games.sort(key=lambda g: g["game"])
    with open(path, "w") as f:
        for g in games:
            f.write(json.dumps(g) + "\n")
    text = summarize(games, names, stray, referee, args)
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
