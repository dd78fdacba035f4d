#!/usr/bin/env python3
"""Match runner for two USI engines (strength and time-safety).

Built on cshogi for the board, legality, repetition/mate detection, CSA records
and Elo.  It does not use `python -m cshogi.cli` to play, because cshogi.cli
plays one game at a time, never flags a loss on time under byoyomi (only
with --time, and only past 1 s of overrun), hangs when an engine dies (its
EOF check compares bytes with ''), cannot take an engine command with
arguments, and counts illegal moves/timeouts/crashes per game but not per engine.

Example:
    python3 scripts/match.py \\
        --engine1 /usr/games/fairy-stockfish --name1 fsf --options1 Threads=1,Hash=64 \\
        --engine2 "python3 scripts/gnushogi_usi.py" --name2 gnushogi \\
        --games 4 --byoyomi 1000 --concurrency 2 --out matches/fsf-gnu

Games are played in pairs from the same opening (scripts/openings.txt, one
`startpos moves ...` line each) with colours swapped.  Each game starts fresh
engine processes.  Time control: --byoyomi MS (optionally with --time MS main
time), or --time MS --inc MS (Fischer), or --movetime MS.  A move that takes
longer than the allowance plus --margin MS loses on time; moves over the
allowance itself (without margin) are counted as "over budget".
"""

import argparse
import concurrent.futures as cf
import datetime
import json
import math
import os
import queue
import re
import shlex
import subprocess
import sys
import threading
import time

import cshogi
from cshogi import CSA

HERE = os.path.dirname(os.path.abspath(__file__))
RE_SCORE = re.compile(r"\bscore (cp|mate) ([-+]?\d+|[-+])")
RE_NODES = re.compile(r"\bnodes (\d+)")
RE_DEPTH = re.compile(r"\bdepth (\d+)")


# --------------------------------------------------------------------------
# engine process
# --------------------------------------------------------------------------
class EngineDied(Exception):
    pass


class EngineTimeout(Exception):
    pass


class UsiEngine:
    def __init__(self, cmd, name, options, log):
        self.cmd = cmd
        self.name = name
        self.options = options
        self.log = log  # callable(str)
        self.q = queue.Queue()
        self.proc = None
        self.stderr_tail = []

    def start(self, timeout=30.0):
        argv = shlex.split(self.cmd)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1,
                                     errors="replace")
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.send("usi")
        self.id_name = None
        for line in self.read_until(lambda l: l == "usiok", timeout):
            if line.startswith("id name "):
                self.id_name = line[8:]
        for k, v in self.options.items():
            self.send("setoption name %s value %s" % (k, v))
        self.isready(timeout)

    def isready(self, timeout=30.0):
        self.send("isready")
        self.read_until(lambda l: l == "readyok", timeout)

    def _read_out(self):
        for line in self.proc.stdout:
            self.q.put((time.monotonic(), line.rstrip("\r\n")))
        self.q.put((time.monotonic(), None))

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr_tail = (self.stderr_tail + [line.rstrip()])[-20:]

    def send(self, line):
        self.log("%s< %s" % (self.name, line))
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineDied("write failed: %r" % line)

    def read_until(self, pred, timeout):
        """Return lines up to and including the first matching one."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            left = deadline - time.monotonic()
            try:
                t, line = self.q.get(timeout=max(0.0, left))
            except queue.Empty:
                raise EngineTimeout()
            if line is None:
                raise EngineDied("EOF (exit code %s)" % self.proc.poll())
            self.log("%s> %s" % (self.name, line))
            lines.append(line)
            if pred(line):
                return lines

    def go(self, go_cmd, hard_limit):
        """Send go; return (bestmove_token, elapsed_s, info_lines).

        Raises EngineTimeout after hard_limit seconds, EngineDied on EOF."""
        infos = []
        t0 = time.monotonic()
        self.send(go_cmd)
        deadline = t0 + hard_limit
        while True:
            left = deadline - time.monotonic()
            try:
                t, line = self.q.get(timeout=max(0.0, left))
            except queue.Empty:
                raise EngineTimeout()
            if line is None:
                raise EngineDied("EOF (exit code %s)" % self.proc.poll())
            self.log("%s> %s" % (self.name, line))
            if line.startswith("info"):
                infos.append(line)
            elif line.startswith("bestmove"):
                toks = line.split()
                return (toks[1] if len(toks) > 1 else ""), t - t0, infos

    def quit(self):
        if self.proc is None:
            return
        try:
            self.send("quit")
        except EngineDied:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass


_tls = threading.local()          # per worker thread: engines kept between games
_all_engines = []
_all_lock = threading.Lock()


# --------------------------------------------------------------------------
# one game
# --------------------------------------------------------------------------
def parse_options(s):
    opts = {}
    if not s:
        return opts
    for kv in s.split(","):
        if not kv:
            continue
        k, sep, v = kv.partition("=")
        if not sep:
            k, sep, v = kv.partition(":")
        opts[k.strip()] = v.strip()
    return opts


def last_score(infos):
    for line in reversed(infos):
        m = RE_SCORE.search(line)
        if m:
            if m[1] == "cp":
                return int(m[2])
            v = m[2]
            neg = v.startswith("-")
            return -100000 if neg else 100000
    return None


def last_int(regex, infos):
    for line in reversed(infos):
        m = regex.search(line)
        if m:
            return int(m[1])
    return None


def play_game(gi, opening, black_spec, white_spec, tc, args, out_dir, log_lock):
    """black_spec/white_spec: dict(idx, cmd, name, options). Returns a result dict."""
    logf = open(os.path.join(out_dir, "game%04d.log" % (gi + 1)), "w") if out_dir else None

    def log(s):
        if logf:
            logf.write("%.3f %s\n" % (time.monotonic(), s))

    specs = [black_spec, white_spec]
    pool = getattr(_tls, "pool", None)
    if pool is None:
        pool = _tls.pool = {}
    engines = []
    reused = []
    for sp in specs:
        e = pool.pop(sp["idx"], None) if args.keep_engines else None
        if e is not None and e.proc.poll() is None:
            e.log = log
            reused.append(True)
        else:
            if e is not None:
                e.quit()
            e = UsiEngine(sp["cmd"], sp["name"], sp["options"], log)
            with _all_lock:
                _all_engines.append(e)
            reused.append(False)
        engines.append(e)
    res = {
        "game": gi + 1, "black": black_spec["name"], "white": white_spec["name"],
        "black_idx": black_spec["idx"], "white_idx": white_spec["idx"],
        "opening": " ".join(opening), "winner": None, "reason": None, "plies": 0,
        "loser_fault": None, "moves": [],
        # per colour: list of (elapsed_ms, allowance_ms)
        "think": [[], []], "over_budget": [0, 0], "detail": "",
        "start_time": datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S"),
    }

    board = cshogi.Board()
    usi_moves = []
    for m in opening:
        mv = board.move_from_usi(m)
        if not board.is_legal(mv):
            raise ValueError("illegal opening move %s in %s" % (m, opening))
        board.push(mv)
        usi_moves.append(m)
    start_plies = len(usi_moves)

    def finish(winner, reason, fault=None, detail=""):
        res["winner"] = winner  # 0 black, 1 white, None draw
        res["reason"] = reason
        res["loser_fault"] = fault  # 'time' | 'illegal' | 'crash' | None
        res["detail"] = detail

    # start engines
    for c in (0, 1):
        try:
            if reused[c]:
                engines[c].isready(timeout=args.startup_timeout)
            else:
                engines[c].start(timeout=args.startup_timeout)
        except (EngineDied, EngineTimeout, OSError) as e:
            finish(1 - c, "crash", "crash", "%s failed to start: %s %s" % (
                specs[c]["name"], e, " | ".join(engines[c].stderr_tail[-3:])))
            for e2 in engines:
                e2.quit()
            return write_record(res, board, usi_moves, start_plies, [], specs, tc, out_dir, logf)

    hist = {}
    hist[board.zobrist_hash()] = 1
    comments = []
    remain = [tc["time"], tc["time"]]
    try:
        for e in engines:
            e.send("usinewgame")
        while True:
            c = board.turn
            if board.is_game_over():  # side to move has no legal move: mated
                finish(1 - c, "mate")
                break
            if len(usi_moves) >= args.max_plies:
                finish(None, "max_plies")
                break
            eng = engines[c]
            if tc["movetime"]:
                allowance = tc["movetime"]
                go = "go movetime %d" % tc["movetime"]
            else:
                allowance = remain[c] + (tc["byoyomi"] or 0) + (tc["inc"] or 0)
                go = "go btime %d wtime %d" % (remain[0], remain[1])
                if tc["byoyomi"] is not None:
                    go += " byoyomi %d" % tc["byoyomi"]
                if tc["inc"]:
                    go += " binc %d winc %d" % (tc["inc"], tc["inc"])
            pos = "position startpos" + (" moves " + " ".join(usi_moves) if usi_moves else "")
            eng.send(pos)
            hard = (allowance + args.margin) / 1000.0
            try:
                bm, elapsed, infos = eng.go(go, hard)
            except EngineTimeout:
                res["think"][c].append((int(hard * 1000), allowance))
                res["over_budget"][c] += 1
                finish(1 - c, "time", "time", "%s gave no bestmove within %d ms (allowance %d + margin %d)"
                       % (specs[c]["name"], hard * 1000, allowance, args.margin))
                break
            ems = int(round(elapsed * 1000))
            res["think"][c].append((ems, allowance))
            if ems > allowance:
                res["over_budget"][c] += 1
            # clock update (margin only decides the loss, it is not credited)
            if not tc["movetime"]:
                if tc["inc"] is not None or tc["byoyomi"] is None:
                    remain[c] = max(0, remain[c] + (tc["inc"] or 0) - ems)
                else:
                    remain[c] = max(0, remain[c] - ems)
            if ems > allowance + args.margin:
                finish(1 - c, "time", "time", "%s used %d ms, allowance %d + margin %d"
                       % (specs[c]["name"], ems, allowance, args.margin))
                break
            if bm == "resign":
                finish(1 - c, "resign")
                break
            if bm == "win":
                if board.is_nyugyoku():
                    finish(c, "nyugyoku")
                else:
                    finish(1 - c, "illegal", "illegal", "%s declared win (nyugyoku) wrongly" % specs[c]["name"])
                break
            try:
                mv = board.move_from_usi(bm)
                legal = mv != 0 and board.is_legal(mv)
            except Exception:
                legal = False
            if not legal:
                finish(1 - c, "illegal", "illegal", "%s played illegal move %r at ply %d"
                       % (specs[c]["name"], bm, len(usi_moves) + 1))
                break
            sc = last_score(infos)
            comment = None
            if sc is not None:
                comment = "** %d" % (sc if c == 0 else -sc)  # CSA convention: from Black's view
            comments.append((mv, ems, comment))
            board.push(mv)
            usi_moves.append(bm)
            k = board.zobrist_hash()
            hist[k] = hist.get(k, 0) + 1
            if hist[k] >= 4:
                d = board.is_draw()
                if d == cshogi.REPETITION_WIN:      # side to move was checked perpetually
                    finish(board.turn, "perpetual_check")
                elif d == cshogi.REPETITION_LOSE:
                    finish(1 - board.turn, "perpetual_check")
                else:
                    finish(None, "repetition")
                break
    except EngineDied as e:
        c = board.turn
        dead = [x.proc is not None and x.proc.poll() is not None for x in engines]
        if dead[1 - c] and not dead[c]:
            c = 1 - c  # the engine not to move died (e.g. on usinewgame)
        finish(1 - c, "crash", "crash", "%s died: %s %s" % (specs[c]["name"], e,
                                                          " | ".join(engines[c].stderr_tail[-3:])))
    finally:
        for c, e in enumerate(engines):
            try:
                if e.proc and e.proc.poll() is None:
                    r = "draw" if res["winner"] is None else ("win" if res["winner"] == c else "lose")
                    e.send("gameover " + r)
            except EngineDied:
                pass
            # keep a healthy engine for the next game; one that lost on time may still be thinking
            if args.keep_engines and e.proc.poll() is None and res["loser_fault"] is None:
                e.log = lambda s: None
                pool[specs[c]["idx"]] = e
            else:
                e.quit()
                e.log = lambda s: None
    return write_record(res, board, usi_moves, start_plies, comments, specs, tc, out_dir, logf)


CSA_END = {"mate": "%TSUMI", "resign": "%TORYO", "time": "%TIME_UP", "illegal": "%ILLEGAL_MOVE",
           "repetition": "%SENNICHITE", "max_plies": "%JISHOGI", "nyugyoku": "%KACHI",
           "crash": "%CHUDAN", "perpetual_check": "%ILLEGAL_MOVE"}


def write_record(res, board, usi_moves, start_plies, comments, specs, tc, out_dir, logf):
    res["plies"] = len(usi_moves)
    res["moves"] = usi_moves
    if logf:
        logf.close()
    if not out_dir:
        return res
    path = os.path.join(out_dir, "game%04d.csa" % res["game"])
    ex = CSA.Exporter(path)
    tcs = "time control (ms): main %s byoyomi %s inc %s movetime %s" % (
        tc["time"], tc["byoyomi"], tc["inc"], tc["movetime"])
    var = {"EVENT": "kaname match", "START_TIME": res["start_time"]}
    if not tc["inc"] and not tc["movetime"]:
        main_s = (tc["time"] or 0) // 1000
        var["TIME_LIMIT"] = "%02d:%02d+%02d" % (main_s // 3600, main_s // 60 % 60, (tc["byoyomi"] or 0) // 1000)
    var["OPENING"] = "startpos moves " + " ".join(usi_moves[:start_plies])
    ex.info(cshogi.Board(), [specs[0]["name"], specs[1]["name"]], var_info=var, comment=tcs, version="V2.2")
    b = cshogi.Board()
    for m in usi_moves[:start_plies]:
        mv = b.move_from_usi(m)
        ex.move(mv, time=0, comment="opening")
        b.push(mv)
    for mv, ems, com in comments:
        ex.move(mv, time=int(ems // 1000), comment=com)
    end = CSA_END.get(res["reason"], "%CHUDAN")
    if res["detail"]:
        ex.f.write("'" + res["detail"] + "\n")
    ex.endgame(end)
    ex.close()
    return res


# --------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------
def phi_inv(p):
    # Acklam-free: inverse of the normal CDF by bisection (enough for a report)
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def elo_from_score(s):
    s = min(max(s, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_report(w, l, d):
    n = w + l + d
    if n == 0:
        return None
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + l * (0 - s) ** 2 + d * (0.5 - s) ** 2) / n
    se = math.sqrt(var / n)
    z = phi_inv(0.975)
    slo, shi = s - z * se, s + z * se
    lo = elo_from_score(slo) if slo > 0 else -math.inf
    hi = elo_from_score(shi) if shi < 1 else math.inf
    elo = elo_from_score(s) + 0.0
    los = 0.5 * (1 + math.erf((w - l) / math.sqrt(2.0 * (w + l)))) if w + l > 0 else 0.5
    inf = s <= 0 or s >= 1
    return {"score": s, "elo": elo, "err95": (hi - lo) / 2, "lo": lo, "hi": hi, "los": los, "degenerate": inf}


def summarize(results, names, budget_desc):
    n = len(results)
    per = [dict(w=0, l=0, d=0, time=0, illegal=0, crash=0, over=0, moves=0, think=0, maxthink=0,
                allow=0, wb=0, ww=0) for _ in (0, 1)]
    reasons = {}
    for r in results:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        idx = [r["black_idx"], r["white_idx"]]
        for c in (0, 1):
            e = per[idx[c]]
            if r["winner"] is None:
                e["d"] += 1
            elif r["winner"] == c:
                e["w"] += 1
                if c == 0:
                    e["wb"] += 1
                else:
                    e["ww"] += 1
            else:
                e["l"] += 1
                if r["loser_fault"] == "time":
                    e["time"] += 1
                elif r["loser_fault"] == "illegal":
                    e["illegal"] += 1
                elif r["loser_fault"] == "crash":
                    e["crash"] += 1
            e["over"] += r["over_budget"][c]
            for ems, allow in r["think"][c]:
                e["moves"] += 1
                e["think"] += ems
                e["allow"] += allow
                e["maxthink"] = max(e["maxthink"], ems)
    lines = []
    lines.append("=" * 72)
    lines.append("games: %d   time control: %s" % (n, budget_desc))
    lines.append("end reasons: " + ", ".join("%s %d" % kv for kv in sorted(reasons.items(), key=lambda kv: str(kv[0]))))
    for i in (0, 1):
        e = per[i]
        g = e["w"] + e["l"] + e["d"]
        sc = (e["w"] + 0.5 * e["d"]) / g * 100 if g else 0
        lines.append("%-22s W %d  L %d  D %d  score %.1f%%  (wins as Black %d, as White %d)" % (
            names[i], e["w"], e["l"], e["d"], sc, e["wb"], e["ww"]))
    er = elo_report(per[0]["w"], per[0]["l"], per[0]["d"])
    if er:
        if er["degenerate"]:
            lines.append("Elo %s - %s: %s (score %.1f%%; no error bar with a 0%%/100%% score)" % (
                names[0], names[1], "+inf" if er["score"] >= 1 else "-inf", er["score"] * 100))
        else:
            lines.append("Elo %s - %s: %+.1f +/- %.1f (95%%: %+.0f .. %+.0f), LOS %.1f%%" % (
                names[0], names[1], er["elo"], er["err95"], er["lo"], er["hi"], er["los"] * 100))
    lines.append("%-22s %8s %8s %8s %10s %12s %12s %12s" % (
        "engine", "timeloss", "illegal", "crash", "moves", "avg ms", "max ms", "over budget"))
    for i in (0, 1):
        e = per[i]
        avg = e["think"] / e["moves"] if e["moves"] else 0
        aal = e["allow"] / e["moves"] if e["moves"] else 0
        lines.append("%-22s %8d %8d %8d %10d %6.0f/%-5.0f %12d %12d" % (
            names[i], e["time"], e["illegal"], e["crash"], e["moves"], avg, aal, e["maxthink"], e["over"]))
    lines.append("(avg ms = average think time / average allowance per move, measured by the runner from "
                 "'go' sent to 'bestmove' received; 'over budget' = moves over the allowance without the margin)")
    return "\n".join(lines), per, er


# --------------------------------------------------------------------------
def load_openings(path):
    ops = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            toks = line.split()
            if toks[0] == "position":
                toks = toks[1:]
            if toks[0] != "startpos":
                raise ValueError("only 'startpos moves ...' openings are supported: %r" % line)
            ops.append(toks[2:] if len(toks) > 1 and toks[1] == "moves" else [])
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine1", required=True, help="command line of engine 1 (may contain arguments)")
    ap.add_argument("--engine2", required=True)
    ap.add_argument("--name1")
    ap.add_argument("--name2")
    ap.add_argument("--options1", default="", help="USI options, e.g. Threads=1,USI_Hash=64")
    ap.add_argument("--options2", default="")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=2, help="games in parallel (2 cores: keep <= 2)")
    ap.add_argument("--byoyomi", type=int, help="ms per move (byoyomi)")
    ap.add_argument("--time", type=int, default=0, help="main time ms")
    ap.add_argument("--inc", type=int, help="Fischer increment ms")
    ap.add_argument("--movetime", type=int, help="send 'go movetime' (gpsusi crashes on it)")
    ap.add_argument("--margin", type=int, default=200,
                    help="ms of overrun tolerated before a loss on time (default 200)")
    ap.add_argument("--openings", default=os.path.join(HERE, "openings.txt"))
    ap.add_argument("--no-openings", action="store_true", help="all games from the start position")
    ap.add_argument("--seed", type=int, default=0, help="rotates which openings are used")
    ap.add_argument("--max-plies", type=int, default=320, help="draw after this many plies")
    ap.add_argument("--startup-timeout", type=float, default=120.0,
                    help="seconds for usi/isready (gpsusi needs ~10-20 s to load)")
    ap.add_argument("--keep-engines", action="store_true",
                    help="reuse engine processes between games (per worker); default: fresh processes each game")
    ap.add_argument("--out", help="directory for CSA records, per-game USI logs and summary.json")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()

    if a.byoyomi is None and a.inc is None and a.movetime is None and not a.time:
        ap.error("give --byoyomi, --time/--inc or --movetime")
    if a.concurrency > 2:
        print("warning: --concurrency %d on a 2-core machine distorts timing" % a.concurrency, file=sys.stderr)
    tc = {"byoyomi": a.byoyomi, "time": a.time, "inc": a.inc, "movetime": a.movetime}
    if a.movetime:
        desc = "movetime %d ms" % a.movetime
    elif a.byoyomi is not None:
        desc = "byoyomi %d ms" % a.byoyomi + (" + main %d ms" % a.time if a.time else "")
    else:
        desc = "%d ms + %d ms/move" % (a.time, a.inc or 0)
    desc += ", margin %d ms" % a.margin

    n1 = a.name1 or os.path.basename(shlex.split(a.engine1)[-1])
    n2 = a.name2 or os.path.basename(shlex.split(a.engine2)[-1])
    if n1 == n2:
        n1, n2 = n1 + "#1", n2 + "#2"
    specs = [dict(idx=0, cmd=a.engine1, name=n1, options=parse_options(a.options1)),
             dict(idx=1, cmd=a.engine2, name=n2, options=parse_options(a.options2))]

    openings = [[]] if a.no_openings else load_openings(a.openings)
    if a.out:
        os.makedirs(a.out, exist_ok=True)

    jobs = []
    for g in range(a.games):
        op = openings[(g // 2 + a.seed) % len(openings)]
        if g % 2 == 0:
            jobs.append((g, op, specs[0], specs[1]))
        else:
            jobs.append((g, op, specs[1], specs[0]))

    lock = threading.Lock()
    results = []
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=max(1, a.concurrency)) as ex:
        futs = [ex.submit(play_game, g, op, b, w, tc, a, a.out, lock) for g, op, b, w in jobs]
        for f in cf.as_completed(futs):
            r = f.result()
            results.append(r)
            if not a.quiet:
                win = "draw" if r["winner"] is None else (r["black"] if r["winner"] == 0 else r["white"]) + " wins"
                print("game %3d  %s (B) vs %s (W): %s by %s in %d plies%s  [%d/%d, %.0fs]" % (
                    r["game"], r["black"], r["white"], win, r["reason"], r["plies"],
                    (" - " + r["detail"]) if r["detail"] else "", len(results), a.games, time.time() - t0),
                    flush=True)
    for e in _all_engines:
        e.quit()
    results.sort(key=lambda r: r["game"])
    text, per, er = summarize(results, [n1, n2], desc)
    print(text)
    if a.out:
        with open(os.path.join(a.out, "summary.txt"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump({"engines": [n1, n2], "tc": tc, "margin": a.margin, "per_engine": per, "elo": er,
                       "games": [{k: v for k, v in r.items() if k != "think"} for r in results]}, f, indent=1)


if __name__ == "__main__":
    main()
