#!/usr/bin/env python3
"""Soak: many fast games of Kaname against itself and the local opponents, with the memory of
every Kaname process watched (issue 16, "A soak").

    python3 scripts/soak.py --kaname target/release/kaname --out matches/soak --games 250

Series (each a fixed match played by scripts/sprt.py, that is shogiarena, colours swapped from
the shared openings; pick with --series, default all four):
  self1  Kaname 1 thread against Kaname 1 thread (two processes of the binary);
  self2  Kaname 2 threads against Kaname 1 thread;
  fsf    Kaname against Fairy-Stockfish 11.1 (1 thread, 64 MiB);
  gps    Kaname against gpsusi (Thread 1, BookDepth 0). gpsusi thinks about a second a move
         whatever the byoyomi (at byoyomi 1000 it overran by up to ~250 ms; at byoyomi 100 it
         took 945 ms on average, at most 1278), so this series allows it a margin of 2000 ms
         instead of 200: with 1000 it lost all 150 games of a byoyomi-100 soak on time, each
         within a few moves, which soaked nothing.
While a series runs, a sampler reads /proc once a second for every process whose executable
is the Kaname binary given (so give the soak its own copy of the binary when other matches run
at the same time): pid, resident set (VmRSS) and threads. A series that finishes no game for
--hang-secs is a hang: it is stopped and reported.

Afterwards, per series and in total: scripts/arena_check.py's accounting of every game (crashes
and runner errors, illegal moves, false declarations, losses on time, each per engine), hangs,
and memory: Kaname's resident set at the start and the end of every game (the sum over its
processes alive then, nearest sample), and per process its first, largest and last resident
set with the growth from a quarter of its life to its end. Goal: 0 crashes, 0 illegal moves,
0 losses on time, 0 hangs, and flat memory. Written to OUT/summary.txt and OUT/summary.json;
the records of each series stay in OUT/<series>/ (shogiarena's run directory and arena_check's
CSA copies).

Needs: shogiarena and cshogi (scripts/install_opponents.sh), /usr/games/fairy-stockfish and
/usr/games/gpsusi for those series. Linux (/proc).
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KANAME_OPTIONS = "USI_Hash=64,NetworkDelay=0,NetworkDelay2=50"
FSF = "/usr/games/fairy-stockfish"
GPS = "/usr/games/gpsusi"


def series_args(name, kaname, byoyomi):
    """The sprt.py arguments of a series (without --games/--seed/--out)."""
    k1 = f"{KANAME_OPTIONS},Threads=1"
    common = ["--byoyomi", str(byoyomi), "--common-options", "", "--cand", kaname]
    if name == "self1":
        return common + ["--cand-name", "kaname-a", "--cand-options", k1,
                         "--base", kaname, "--base-name", "kaname-b", "--base-options", k1]
    if name == "self2":
        return common + ["--cand-name", "kaname-2t", "--cand-options", f"{KANAME_OPTIONS},Threads=2",
                         "--base", kaname, "--base-name", "kaname-1t", "--base-options", k1]
    if name == "fsf":
        return common + ["--cand-name", "kaname", "--cand-options", k1, "--base", FSF, "--base-name", "fsf",
                         "--base-options", "Threads=1,Hash=64", "--no-max-plies-sync"]
    if name == "gps":
        return common + ["--cand-name", "kaname", "--cand-options", k1, "--base", GPS, "--base-name", "gps",
                         "--base-options", "Thread=1,BookDepth=0", "--margin", "2000", "--no-max-plies-sync"]
    raise SystemExit(f"unknown series {name!r} (self1, self2, fsf, gps)")


def kaname_processes(binary):
    """(pid, rss KiB, threads) of every process running `binary`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/exe") != binary:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        rss = int(fields.get("VmRSS", "0 kB").split()[0])
        threads = int(fields.get("Threads", "0").strip())
        found.append((int(entry), rss, threads))
    return found


class Sampler(threading.Thread):
    """Samples the Kaname processes once a second until stopped."""

    def __init__(self, binary):
        super().__init__(daemon=True)
        self.binary = binary
        self.samples = []  # (epoch seconds, pid, rss KiB, threads)
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            now = time.time()
            for pid, rss, threads in kaname_processes(self.binary):
                self.samples.append((now, pid, rss, threads))
            self.halt.wait(1.0)


def games_of(db_path):
    """(name, start epoch, end epoch or None, result) of every game in a shogiarena game.db."""
    if not db_path.exists():
        return []
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute("select game_name, start_date, end_date, game_result from game order by id").fetchall()
    except sqlite3.Error:
        return []
    finally:
        db.close()

    def epoch(text):
        if not text:
            return None
        t = datetime.fromisoformat(str(text))
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return t.timestamp()

    return [(n, epoch(s), epoch(e), r) for n, s, e, r in rows]


def run_series(name, args, out):
    """Plays one series with the sampler on; returns its raw record."""
    sdir = out / name
    cmd = [sys.executable, str(REPO / "scripts" / "sprt.py"), *series_args(name, args.kaname, args.byoyomi),
           "--games", str(args.games), "--seed", str(args.seed), "--out", str(sdir)]
    print(f"[{name}] {' '.join(cmd)}", flush=True)
    sampler = Sampler(args.kaname)
    sampler.start()
    started = time.time()
    log = open(out / f"{name}.log", "w", encoding="utf-8")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    db = sdir / "run" / "game.db"
    hang = None
    last_count, last_change = 0, time.time()
    while proc.poll() is None:
        time.sleep(5)
        games = games_of(db)
        done = sum(1 for g in games if g[2] is not None)
        if done != last_count:
            last_count, last_change = done, time.time()
            rate = done / max(time.time() - started, 1)
            eta = (args.games - done) / rate if rate > 0 else float("inf")
            print(f"[{name}] {done}/{args.games} games, {rate * 60:.1f}/min, ETA {eta / 60:.0f} min", flush=True)
        elif time.time() - last_change > args.hang_secs:
            hang = f"no game finished for {args.hang_secs} s after {done} games"
            print(f"[{name}] HANG: {hang}; stopping the series", flush=True)
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
            break
    sampler.halt.set()
    sampler.join()
    log.close()
    record = {"series": name, "seconds": round(time.time() - started), "exit": proc.returncode, "hang": hang,
              "samples": sampler.samples, "games": games_of(db), "db": str(db)}
    # Kept so that `--summarize-only` can redo the summary without replaying.
    (out / f"{name}.record.json").write_text(json.dumps(record), encoding="utf-8")
    return record


def rss_at(samples, t):
    """Kaname's resident set in MiB at time `t`: the sum over the processes of the nearest sample."""
    if not samples or t is None:
        return None
    nearest = min(samples, key=lambda s: abs(s[0] - t))[0]
    if abs(nearest - t) > 3:
        return None
    return round(sum(s[2] for s in samples if s[0] == nearest) / 1024, 1)


MIN_LIFE = 30


def process_memory(samples):
    """Per process: first, largest and last resident set (MiB), and the growth from a quarter
    of its life to its end."""
    by_pid = {}
    for t, pid, rss, _ in samples:
        by_pid.setdefault(pid, []).append((t, rss / 1024))
    out = []
    for pid, s in sorted(by_pid.items()):
        s.sort()
        quarter = s[len(s) // 4][1]
        out.append({"pid": pid, "seconds": round(s[-1][0] - s[0][0]), "first_mib": round(s[0][1], 1),
                    "max_mib": round(max(r for _, r in s), 1), "last_mib": round(s[-1][1], 1),
                    "growth_mib": round(s[-1][1] - quarter, 1)})
    return out


def check(db, out_dir):
    """scripts/arena_check.py on a run: its JSON report (None if it could not run)."""
    report = out_dir / "arena_check.json"
    cmd = [sys.executable, str(REPO / "scripts" / "arena_check.py"), str(db), "--json", str(report),
           "--csa", str(out_dir / "csa")]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    (out_dir / "arena_check.txt").write_text(r.stdout + r.stderr, encoding="utf-8")
    if not report.exists():
        return None
    return json.loads(report.read_text(encoding="utf-8"))


def summarize(records, out):
    lines, summary = [], {"series": []}
    for rec in records:
        games = rec["games"]
        per_game = [{"game": n, "result": r, "rss_start_mib": rss_at(rec["samples"], s),
                     "rss_end_mib": rss_at(rec["samples"], e)} for n, s, e, r in games]
        procs = process_memory(rec["samples"])
        report = check(Path(rec["db"]), out / rec["series"]) if Path(rec["db"]).exists() else None
        finished = sum(1 for g in games if g[2] is not None)
        # A process that lived under MIN_LIFE seconds was still starting: its first samples
        # precede the hash table `isready` maps (20 MiB before, 110 after, in 2 s).
        lived = [p for p in procs if p["seconds"] >= MIN_LIFE]
        growth = max((p["growth_mib"] for p in lived), default=0.0)
        starts = [g["rss_start_mib"] for g in per_game if g["rss_start_mib"] is not None]
        ends = [g["rss_end_mib"] for g in per_game if g["rss_end_mib"] is not None]
        entry = {"series": rec["series"], "games": len(games), "finished": finished, "seconds": rec["seconds"],
                 "hang": rec["hang"], "exit": rec["exit"], "processes": procs, "per_game": per_game,
                 "arena_check": report}
        summary["series"].append(entry)
        lines.append(f"== {rec['series']}: {finished}/{len(games)} games finished in {rec['seconds']} s"
                     f"{'; HANG: ' + rec['hang'] if rec['hang'] else ''}; sprt.py exit {rec['exit']}")
        if report is None:
            lines.append("   arena_check.py: no report (see arena_check.txt)")
        else:
            run = report["runs"][0] if report.get("runs") else {}
            lines.append(f"   arena_check.py: {report.get('faults', '?')} fault(s); endings {run.get('endings', {})}"
                         f" (details: {rec['series']}/arena_check.txt)")
            for name, e in sorted(run.get("engines", {}).items()):
                lines.append(f"   {name:<12} W {e['w']} L {e['l']} D {e['d']}  time losses {e['time']}  illegal "
                             f"{e['illegal']}  false declarations {e['false_decl']}  crashes {e['crash']}  errors "
                             f"{e['error']}  think avg {e['avg_ms']} ms max {e['max_ms']} ms")
        if starts and ends:
            lines.append(f"   Kaname resident set at game start: median {statistics.median(starts):.0f} MiB, "
                         f"max {max(starts):.0f}; at game end: median {statistics.median(ends):.0f}, max {max(ends):.0f}")
        lines.append(f"   {len(procs)} Kaname processes; largest growth from a quarter of a life to its end "
                     f"(the {len(lived)} that lived {MIN_LIFE} s or more): {growth:+.1f} MiB; "
                     f"peak {max((p['max_mib'] for p in procs), default=0):.0f} MiB")
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    (out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kaname", required=True, help="the Kaname binary (its own copy if other matches run)")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--games", type=int, default=250, help="games per series (default 250)")
    ap.add_argument("--series", default="self1,self2,fsf,gps", help="comma-separated (default all four)")
    ap.add_argument("--byoyomi", type=int, default=200, help="byoyomi per move in ms (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="opening seed (default 1)")
    ap.add_argument("--hang-secs", type=int, default=300, help="no game finished this long is a hang (300)")
    ap.add_argument("--summarize-only", action="store_true",
                    help="summarize the series already played in OUT (their .record.json files) again")
    args = ap.parse_args()
    args.kaname = str(Path(args.kaname).resolve())
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = [name.strip() for name in args.series.split(",") if name.strip()]
    if args.summarize_only:
        records = [json.loads((out / f"{n}.record.json").read_text(encoding="utf-8")) for n in names
                   if (out / f"{n}.record.json").exists()]
    else:
        records = [run_series(name, args, out) for name in names]
    summarize(records, out)


if __name__ == "__main__":
    main()
