#!/usr/bin/env python3
"""SPRT or fixed-game match between two USI engines, run by shogiarena.

A thin wrapper around `shogiarena` (1.3.2, `pip install shogiarena`). It writes the
shogiarena configuration into the output directory (two engine YAMLs and `config.yaml`),
runs `shogiarena run sprt config.yaml` (or `shogiarena run tournament config.yaml` with
`--games N`), then prints shogiarena's own result summary and one summary line:

    SUMMARY games=N cand W-L-D w-l-d score S% Elo +E +/- X (95%) | SPRT <model> [elo0,elo1]
            LLR x.xx (lo, hi) <verdict>

W-L-D is from the candidate's side. Elo and its 95% error come from the per-game score
(trinomial); the pentanomial estimate over colour-swapped pairs is printed
on the line before.

Before the games it appends each engine's identity to `OUT/engines.txt`: the binary's SHA-256
and, for a Kaname binary (named `kaname*`), its `kaname bench` node count, the search's
signature; a resumed run adds no line the file already holds. `--resume` refuses a binary whose
hash differs from the one the run started with.

Usage (run from the repository root; prefix `nice -n 15` on shared machines):

    python3 scripts/sprt.py --self-test     # checks the configuration it writes (needs PyYAML)

    # SPRT, candidate = same binary with the net, base = classical evaluation
    python3 scripts/sprt.py --base /tmp/kaname --base-options EvalKind=classical \\
        --cand /tmp/kaname --cand-options EvalKind=net --byoyomi 1000 \\
        --elo0 0 --elo1 5 --max-games 2000 --out matches/sprt-net

    # Fischer 10 s + 0.1 s
    python3 scripts/sprt.py --base OLD --cand NEW --fischer 10+0.1 --out matches/sprt-x

    # Fixed 100-game match, no SPRT (shogiarena "tournament")
    python3 scripts/sprt.py --base OLD --cand NEW --byoyomi 250 --games 100 --out matches/m100

What shogiarena does, and what this wrapper sets (read from its source, 1.3.2):
  * SPRT: GSPRT (fishtest's LLR approximation) with bounds in *logistic* Elo only
    (`elo_to_score` = 1/(1+10^(-elo/400))); there is no normalized-Elo (nElo) option.
    Two models: `gsprt-trinomial-v1` (per game L/D/W) and `gsprt-pentanomial-v1` (per
    colour-swapped pair). Wald bounds from alpha/beta (0.05/0.05 -> LLR +/-2.94).
    Guards in shogiarena that keep the LLR at exactly 0.0:
      - trinomial: until a loss, a draw AND a win have all occurred. Draws are rare in
        shogi, so a trinomial SPRT can stay at LLR 0 for a very long time;
      - pentanomial: until 30 pairs are complete and the second most common pair outcome
        has at least 5 pairs.
    Hence the default here is `--model pentanomial` (which needs an even game count and
    colour-swapped pairs, both set here). When shogiarena's LLR is held at 0 by a guard,
    the summary also prints the unguarded value from shogiarena's own `compute_llr` on the
    same counts, marked "raw", for information only: it is not what stops the test.
    The test stops at the first bound crossing (games still in flight are recorded but not
    counted) or at --max-games.
  * Openings: `rules.initial_positions` type=file. Lines may be `startpos`,
    `startpos moves ...`, `position startpos moves ...`, `sfen ...`, `position sfen ...`, a
    bare SFEN, or a bare move list; scripts/openings-1000.txt, the default (`startpos moves ...`), is read as
    is, no conversion. flip_policy=pair_both: each chosen opening is played twice with
    colours swapped. Openings are drawn at random from the file (seeded by --seed):
    without replacement when the file has at least as many lines as pairs are needed,
    else with replacement (`--opening-selection` overrides).
  * Time controls: byoyomi (`time_ms` + `byoyomi_ms`, main time 0 unless --main-time),
    Fischer (`time_ms` + `increment_ms`), fixed time per move (--movetime, `fixed_time_ms`,
    sent as `go movetime`: gpsusi crashes on it), or a node limit per move (--nodes,
    `node_limit`, sent as `go nodes`: equal-nodes comparisons; no clock, so no time losses).
    A move loses on time when it takes longer than the allowance plus `expiry_margin_ms`
    (--margin, default 200 ms here, shogiarena's own default is 500).
  * Adjudication: resign adjudication (`resign_threshold_cp`, `resign_move_count`,
    two-sided by default = both engines' scores agree the same side is >= threshold for
    2*N consecutive plies; `--resign-one-sided`: the loser's own score <= -threshold for
    N of its moves). Caveat: while resign adjudication is on, ANY mate score (`score mate`)
    reported by either engine ends the game at once in favour of the side the score
    names; `--resign-cp 0` turns all of this off. Draw adjudication: only by ply count
    (`max_plies`, counted from the start position including the opening, adjudicated as
    DRAW_BY_MAX_PLIES); shogiarena also sets the engines' `MaxMovesToDraw` to the same
    value (Kaname declares that option); an engine without it (Fairy-Stockfish, gpsusi)
    fails to start that way, so `--no-max-plies-sync` turns the syncing off for both
    engines (shogiarena's `sync_max_plies_with_engine: false`; the runner still draws at
    max_plies). There is no score-based draw adjudication.
  * Repetition: shogiarena's default (`repetition_occurrences_to_draw: 2`) draws at the
    first repetition and does not detect perpetual check; this wrapper sets 4 (the real
    rule: sennichite draw, perpetual check loses), see --repetition.
  * Results land in OUT/run/: game.db (SQLite, every game and move with eval/depth/nodes/
    time), state.json (SPRT state: W/D/L from the tested engine, LLR, pentanomial bins),
    completion_status.json, results/tournament_results.json, results/summary_btd.json
    (Bradley-Terry-Davidson ratings). `shogiarena results summary OUT/run [--format json]`
    summarizes a run; `shogiarena dashboard serve --run-dir OUT/run` browses it.
  * Engine options: both engines get --common-options (USI_Hash=64, Threads=1,
    NetworkDelay=0, NetworkDelay2=50 by default), then their own --base/--cand-options.
    An `EvalFile` or `BookFile` with a folder is sent as YaneuraOu's `EvalDir`/`BookDir`
    plus the bare file name (`split_path_options`: shogiarena sends the bare name only).
    The engine processes are reused between games (shogiarena's default; --fresh-engines
    starts new ones for every game). --base-args/--cand-args give the engine command
    arguments (shogiarena `engine_args`; the engine runs in its binary's directory, so give
    absolute paths). An engine given a `Tune_*` option gets `--tune` added to its arguments
    (Kaname declares those options only in tuning mode, and shogiarena refuses an option an
    engine did not declare). An executable script is a binary too: `--base
    scripts/gnushogi_usi.py` runs the GNU Shogi adapter.
  * Unequal nodes: with --nodes, --cand-nodes N or --base-nodes N gives that engine its own
    node limit (shogiarena's per-engine `time_control`), e.g. to measure what a gap at equal
    nodes is worth in nodes.
  * Checking the games: scripts/arena_check.py OUT replays every game and reports crashes,
    illegal moves, false `bestmove win` declarations and time losses per engine (all of
    which shogiarena scores as ordinary results), and writes CSA records.

Not supported (by shogiarena or by this wrapper): normalized-Elo bounds, score-based draw
adjudication, KIF export of the games (they are in game.db; scripts/arena_check.py --csa
writes CSA records), per-engine different clocks (shogiarena's `engines[].time_control` is
exposed for node limits only: --cand-nodes/--base-nodes).
"""

import argparse
import hashlib
import json
import math
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
DEFAULT_COMMON = "USI_Hash=64,Threads=1,NetworkDelay=0,NetworkDelay2=50"
MODELS = {"pentanomial": "gsprt-pentanomial-v1", "trinomial": "gsprt-trinomial-v1"}


def parse_options(text):
    """'K=V,K=V' -> dict; integer-looking values become ints."""
    out = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise SystemExit(f"bad option {part!r}: expected KEY=VALUE")
        k, v = part.split("=", 1)
        k, v = k.strip(), v.strip()
        out[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    return out


def split_path_options(options):
    """An `EvalFile` or `BookFile` given with a folder becomes YaneuraOu's pair: the folder in
    `EvalDir`/`BookDir`, the bare name in the file option. shogiarena (1.3.2) sends these file
    options as bare names and the folder only when it is an option of its own, so an engine
    given `EvalFile=/path/net.knn` alone gets `net.knn`, fails to find it in its working
    directory and plays with its built-in net: both sides of a net match are then the same
    engine (seen 2026-11-26: colour-swapped pairs of games came out move for move alike)."""
    for file_key, dir_key in (("EvalFile", "EvalDir"), ("BookFile", "BookDir")):
        value = options.get(file_key)
        if not isinstance(value, str) or "/" not in value or dir_key in options:
            continue
        path = Path(value).resolve()
        if not path.is_file():
            raise SystemExit(f"{file_key} not found: {value}")
        options[dir_key], options[file_key] = str(path.parent), path.name
    return options


def parse_fischer(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*\+\s*([0-9.]+)\s*", text)
    if not m:
        raise SystemExit(f"bad --fischer {text!r}: expected MAIN+INC in seconds, e.g. 10+0.1")
    return round(float(m.group(1)) * 1000), round(float(m.group(2)) * 1000)


def count_openings(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


def kaname_bench(binary):
    """The node count of `kaname bench` for a Kaname binary (a file named kaname*), the search's
    signature; "?" if it gives none; None for another engine."""
    if not Path(binary).name.startswith("kaname"):
        return None
    try:
        r = subprocess.run([str(binary), "bench"], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    nodes = re.findall(r"^Nodes searched: (\d+)$", r.stdout + r.stderr, re.M)
    return nodes[-1] if nodes else "?"


def record_engines(args, out):
    """Appends each engine's identity to OUT/engines.txt, one line per engine:
    `role path sha256 HEX [bench NODES]`. A resumed run must play the binaries it started with:
    refuses when a hash differs from the first one recorded for that role, and otherwise reuses
    that role's line (no second `kaname bench`, no second copy). (A stale build copied under the wrong name played a whole comparison
    on 2026-11-27 unnoticed; this shows it.)"""
    path = out / "engines.txt"
    first = {}  # role -> (sha256, its first line)
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"(\S+) .* sha256 ([0-9a-f]{64})", line)
            if m:
                first.setdefault(m.group(1), (m.group(2), line))
    lines, new = [], []
    for role, binary in (("cand", args.cand), ("base", args.base)):
        binary = Path(binary).resolve()
        digest = hashlib.sha256(binary.read_bytes()).hexdigest()
        if role in first:
            if first[role][0] != digest:
                raise SystemExit(f"{binary} is not the {role} binary this run started with "
                                 f"(sha256 {first[role][0][:12]}..., now {digest[:12]}...)")
            lines.append(first[role][1])
            continue
        bench = kaname_bench(binary)
        new.append(f"{role} {binary} sha256 {digest}" + (f" bench {bench}" if bench else ""))
        lines.append(new[-1])
    if new:
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n".join(new) + "\n")
    return lines


def build_config(args, out):
    """Write engine YAMLs and config.yaml into `out`; return the config path."""
    common = parse_options(args.common_options)
    for role in ("cand", "base"):
        if getattr(args, f"{role}_nodes", None) and not args.nodes:
            raise SystemExit(f"--{role}-nodes needs --nodes (the other engine's limit)")
    engines = []
    for role, binary, opts, name, extra in (
        ("cand", args.cand, args.cand_options, args.cand_name, args.cand_args),
        ("base", args.base, args.base_options, args.base_name, args.base_args),
    ):
        binary = Path(binary).resolve()
        if not binary.is_file():
            raise SystemExit(f"engine binary not found: {binary}")
        options = dict(common)
        options.update(parse_options(opts))
        options = split_path_options(options)
        engine_yaml = out / f"engine-{role}.yaml"
        spec = {"name": name, "engine_path": str(binary), "working_directory": str(binary.parent)}
        engine_args = shlex.split(extra)
        if any(k.lower().startswith("tune_") for k in options) and "--tune" not in engine_args:
            engine_args.append("--tune")
        if engine_args:
            spec["engine_args"] = engine_args
        spec["options"] = options
        engine_yaml.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        entry = {"name": name, "engine_path": str(engine_yaml)}
        own_nodes = getattr(args, f"{role}_nodes", None)
        if own_nodes:
            entry["time_control"] = {"node_limit": own_nodes, "expiry_margin_ms": args.margin}
        engines.append(entry)
    if args.cand_name == args.base_name:
        raise SystemExit("--cand-name and --base-name must differ")

    if args.fischer:
        main_ms, inc_ms = parse_fischer(args.fischer)
        tc = {"time_ms": main_ms, "increment_ms": inc_ms}
    elif args.movetime:
        tc = {"fixed_time_ms": args.movetime}
    elif args.nodes:
        tc = {"node_limit": args.nodes}
    else:
        tc = {"time_ms": round(args.main_time * 1000), "byoyomi_ms": args.byoyomi}
    tc["expiry_margin_ms"] = args.margin

    n_games = args.games if args.games else args.max_games
    openings = Path(args.openings).resolve()
    n_lines = count_openings(openings)
    pairs = math.ceil(n_games / 2)
    selection = args.opening_selection
    if selection == "auto":
        selection = "unique" if pairs <= n_lines else "random"
    adjudication = {
        "resign_threshold_cp": args.resign_cp if args.resign_cp > 0 else None,
        "resign_move_count": args.resign_moves,
        "resign_two_sided": not args.resign_one_sided,
        "enable_max_plies": args.max_plies > 0,
        "max_plies": args.max_plies if args.max_plies > 0 else None,
        "sync_max_plies_with_engine": not args.no_max_plies_sync,
    }
    config = {
        "experiment_name": out.name or "sprt",
        "output_dir": str(out),
        "engines": engines,
        "tournament": {
            "seed": args.seed,
            "num_parallel": args.concurrency,
        },
        "rules": {
            "time_control": tc,
            "initial_positions": {
                "type": "file",
                "source": str(openings),
                "flip_policy": "pair_both",
                "selection_policy": "without_replacement" if selection == "unique" else "with_replacement",
            },
            "adjudication": adjudication,
            "repetition_occurrences_to_draw": args.repetition,
        },
        "dashboard": {"enabled": False},
        "logging": {"usi_transcript": bool(args.usi_log)},
    }
    if args.fresh_engines:
        config["tournament"]["engine_lifecycle"] = "per_game"
    if args.games:
        config["tournament"]["games_per_pair"] = args.games
    else:
        if args.model == "pentanomial" and args.max_games % 2:
            raise SystemExit("--model pentanomial needs an even --max-games")
        config["sprt"] = {
            "tested_engine": args.cand_name,
            "model": MODELS[args.model],
            "elo0": args.elo0,
            "elo1": args.elo1,
            "alpha": args.alpha,
            "beta": args.beta,
            "max_games": args.max_games,
        }
    path = out / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path, n_lines, selection


def run_shogiarena(args, out, config_path, run_dir):
    exe = shutil.which("shogiarena")
    if not exe:
        raise SystemExit("shogiarena not found on PATH (pip install shogiarena)")
    cmd = [exe, "--output-dir", str(out), "run", "tournament" if args.games else "sprt", str(config_path),
           "--run-dir", str(run_dir)]
    if args.dry_run:
        cmd.append("--dry-run")
    elif not args.resume:
        cmd.append("--no-resume")
    print("+ " + " ".join(cmd), flush=True)
    with open(out / "shogiarena.log", "a", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            if "settings.yaml not found" in line:
                continue
            sys.stdout.write(line)
            sys.stdout.flush()
            log.write(line)
        return proc.wait()


def elo_from_score(s):
    s = min(max(s, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_interval(scores):
    """Mean-score Elo and half-width of its 95% interval from per-sample scores in [0,1]."""
    n = len(scores)
    if n == 0:
        return None, None
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / n
    se = math.sqrt(var / n)
    lo, hi = mean - 1.959964 * se, mean + 1.959964 * se
    if mean <= 0 or mean >= 1:
        return (math.inf if mean >= 1 else -math.inf), math.inf
    if lo <= 0 or hi >= 1:
        return elo_from_score(mean), math.inf
    return elo_from_score(mean), (elo_from_score(hi) - elo_from_score(lo)) / 2


def black_points(result):
    """Black's points for a shogiarena game result, or None when it is not a result (ERROR,
    INVALID, PAUSED, or an unfinished game)."""
    if result.startswith("BLACK_WIN"):
        return 1.0
    if result.startswith("WHITE_WIN"):
        return 0.0
    if result.startswith("DRAW"):
        return 0.5
    return None


def cand_points(result, black, cand):
    """`cand`'s points for a game result (`black_points`), `cand` playing Black when it is
    `black`, else White; None when the game has no result."""
    points = black_points(result)
    if points is None:
        return None
    return points if black == cand else 1.0 - points


def game_line(line):
    """The fields of one line of a `games.txt` (`scripts/arena_games.py`: name, Black, White,
    result, plies, `position sfen SFEN moves ...`) as (name, black, white, result, start SFEN),
    or None for a line that is not a game."""
    t = line.split()
    if len(t) < 8 or t[5] != "position" or t[6] != "sfen":
        return None
    sfen = t[7:t.index("moves")] if "moves" in t else t[7:]  # "moves" is never in an SFEN
    return t[0], t[1], t[2], t[3], " ".join(sfen)


def read_games(run_dir, cand):
    """Per game: (pair_key, candidate score or None, game_result). A `cand` that plays none of
    the games is an error: scored as "not black", it would report white's record."""
    db = sqlite3.connect(run_dir / "game.db")
    rows = db.execute(
        "SELECT g.game_result, pb.player_name, pw.player_name, g.metadata_attributes_json "
        "FROM game g JOIN player pb ON pb.id = g.black_player_id JOIN player pw ON pw.id = g.white_player_id "
        "ORDER BY g.id"
    ).fetchall()
    db.close()
    players = {name for _, black, white, _ in rows for name in (black, white)}
    if rows and cand not in players:
        raise SystemExit(f"{run_dir}: no player named {cand!r} (players: {', '.join(sorted(players))})")
    games = []
    for result, black, white, meta in rows:
        pair_key = None
        try:
            sched = json.loads(json.loads(meta or "{}").get("_arena_schedule") or "{}")
            pair_key = sched.get("pair_key")
        except (ValueError, TypeError, AttributeError):
            pass
        games.append((pair_key, cand_points(result, black, cand), result))
    return games


def sprt_bounds(alpha, beta):
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def summarize(args, run_dir):
    """Print (and return) the result lines; the last one is the SUMMARY line."""
    try:  # shogiarena's own GSPRT, only for the "raw" LLR when its guard holds the LLR at 0
        from shogiarena._core.shared.kernel.statistics.gsprt import compute_llr
    except ImportError:
        compute_llr = None
    lines = []
    cand = args.cand_name
    games = read_games(run_dir, cand)
    scores = [s for _, s, _ in games if s is not None]
    w = sum(1 for s in scores if s == 1.0)
    lo_ = sum(1 for s in scores if s == 0.0)
    d = sum(1 for s in scores if s == 0.5)
    n = len(scores)
    reasons = {}
    for _, _, r in games:
        reasons[r] = reasons.get(r, 0) + 1

    pairs = {}
    for key, s, _ in games:
        if key is not None and s is not None:
            pairs.setdefault(key, []).append(s)
    penta = [0] * 5
    pair_scores = []
    for ss in pairs.values():
        for i in range(0, len(ss) - 1, 2):
            total = ss[i] + ss[i + 1]
            penta[round(total * 2)] += 1
            pair_scores.append(total / 2)

    elo, err = elo_interval(scores)
    pelo, perr = elo_interval(pair_scores)
    lines.append(f"result counts: {json.dumps(reasons, sort_keys=True)}")
    lines.append(f"pentanomial (cand pair score 0..2 in halves: LL, LD, WL/DD, WD, WW): {penta}"
          + (f"  Elo {pelo:+.1f} +/- {perr:.1f} (95%, {len(pair_scores)} pairs)" if pelo is not None else ""))

    status = {}
    cs = run_dir / "completion_status.json"
    if cs.exists():
        status = json.loads(cs.read_text())
    line = f"SUMMARY games={n} cand W-L-D {w}-{lo_}-{d}"
    if n:
        line += f" score {100.0 * sum(scores) / n:.1f}%"
        line += f" Elo {elo:+.1f} +/- {err:.1f} (95%)"
    if args.games:
        line += f" | fixed {args.games} games, no SPRT"
    else:
        state = json.loads((run_dir / "state.json").read_text()).get("sprt_state") or {}
        llr = float(state.get("llr", 0.0))
        lower, upper = sprt_bounds(args.alpha, args.beta)
        if llr >= upper:
            verdict = "H1 accepted (PASS)"
        elif llr <= lower:
            verdict = "H0 accepted (FAIL)"
        else:
            verdict = "inconclusive"
            if status.get("termination_reason"):
                verdict += f" ({status['termination_reason']})"
        line += (f" | SPRT {args.model} [{args.elo0:g},{args.elo1:g}] LLR {llr:.2f}"
                 f" ({lower:.2f},{upper:.2f}) {verdict}")
        if llr == 0.0:
            counts = penta if args.model == "pentanomial" else [lo_, d, w]
            if sum(counts) and compute_llr is not None:
                raw = compute_llr(counts, elo0=args.elo0, elo1=args.elo1)
                line += f" [LLR held at 0 by shogiarena's small-sample guard; raw {raw:.2f}]"
        if state and int(state.get("games_played", n)) != n:
            line += f" [SPRT counted {state.get('games_played')} games, {state.get('late_games', 0)} late]"
    lines.append(line)
    print("\n".join(lines))
    return lines


def self_test():
    """Checks `build_config` on a scratch directory: the per-engine node limit and the
    automatic `--tune`. Prints a report; returns the number of failures."""
    import tempfile
    failures = 0

    def check(what, ok):
        nonlocal failures
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        failures += not ok

    def parsed(extra):
        argv = ["--base", sys.executable, "--cand", sys.executable, "--out", "unused", "--games", "10",
                "--cand-name", "c", "--base-name", "b"] + extra
        return make_parser().parse_args(argv)

    def written(extra, out):
        """The config `build_config` writes for these arguments, and each engine's entry and
        engine file by name."""
        path, _, _ = build_config(parsed(extra), out)
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        load = lambda e: yaml.safe_load(Path(e["engine_path"]).read_text(encoding="utf-8"))
        return config, {e["name"]: (e, load(e)) for e in config["engines"]}

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        config, e = written(["--nodes", "100000", "--cand-nodes", "200000",
                             "--cand-options", "Tune_lmr_base=90,USI_Hash=32"], out)
        check("the rules keep --nodes", config["rules"]["time_control"]["node_limit"] == 100000)
        check("--cand-nodes gives the candidate its own limit",
              e["c"][0].get("time_control", {}).get("node_limit") == 200000)
        check("the base has no limit of its own", "time_control" not in e["b"][0])
        check("a Tune_ option adds --tune", e["c"][1].get("engine_args") == ["--tune"])
        check("no Tune_ option, no --tune", "engine_args" not in e["b"][1])
        config, e = written(["--nodes", "1000", "--cand-args=--tune", "--cand-options", "tune_rfp_margin=100"], out)
        check("--tune given already is not doubled", e["c"][1].get("engine_args") == ["--tune"])
        check("equal nodes: no per-engine limit", all("time_control" not in v[0] for v in e.values()))
        try:
            build_config(parsed(["--byoyomi", "1000", "--base-nodes", "5000"]), out)
            check("--base-nodes without --nodes is refused", False)
        except SystemExit:
            check("--base-nodes without --nodes is refused", True)
    print(f"sprt.py self-test: {'all checks passed' if not failures else f'{failures} failure(s)'}")
    return failures


def make_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (head scripts/sprt.py) for details.")
    ap.add_argument("--base", required=True, help="base engine binary")
    ap.add_argument("--base-options", default="", help="USI options for base, K=V,K=V")
    ap.add_argument("--base-args", default="", help="command-line arguments for the base engine (one string)")
    ap.add_argument("--base-name", default="base")
    ap.add_argument("--cand", required=True, help="candidate (tested) engine binary")
    ap.add_argument("--cand-options", default="", help="USI options for candidate, K=V,K=V")
    ap.add_argument("--cand-args", default="", help="command-line arguments for the candidate engine (one string)")
    ap.add_argument("--cand-name", default="cand")
    ap.add_argument("--common-options", default=DEFAULT_COMMON,
                    help=f"USI options for both engines, applied first (default {DEFAULT_COMMON})")
    tcg = ap.add_mutually_exclusive_group(required=True)
    tcg.add_argument("--byoyomi", type=int, metavar="MS", help="byoyomi per move in ms")
    tcg.add_argument("--fischer", metavar="MAIN+INC", help="Fischer in seconds, e.g. 10+0.1")
    tcg.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move in ms (go movetime)")
    tcg.add_argument("--nodes", type=int, metavar="N", help="node limit per move (go nodes), no clock")
    ap.add_argument("--cand-nodes", type=int, metavar="N",
                    help="with --nodes: the candidate's own node limit (shogiarena engines[].time_control)")
    ap.add_argument("--base-nodes", type=int, metavar="N", help="with --nodes: the base's own node limit")
    ap.add_argument("--main-time", type=float, default=0.0, metavar="SEC",
                    help="main time before byoyomi, seconds (default 0)")
    ap.add_argument("--margin", type=int, default=200, metavar="MS",
                    help="time-loss margin over the allowance (shogiarena expiry_margin_ms; default 200)")
    ap.add_argument("--games", type=int, default=0,
                    help="fixed match of N games (shogiarena tournament), no SPRT")
    ap.add_argument("--max-games", type=int, default=1000, help="SPRT game cap (default 1000)")
    ap.add_argument("--elo0", type=float, default=0.0, help="H0 logistic Elo (default 0)")
    ap.add_argument("--elo1", type=float, default=5.0, help="H1 logistic Elo (default 5)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--model", choices=sorted(MODELS), default="pentanomial",
                    help="SPRT model (default pentanomial; see docstring for trinomial's draw guard)")
    ap.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    ap.add_argument("--fresh-engines", action="store_true",
                    help="start new engine processes for every game (default: reuse them between games)")
    ap.add_argument("--openings", default=str(REPO / "scripts" / "openings-1000.txt"),
                    help="opening file, one SFEN or `startpos moves ...` per line")
    ap.add_argument("--opening-selection", choices=["auto", "unique", "random"], default="auto",
                    help="unique = without replacement, random = with replacement; auto = unique if the "
                         "file has enough lines for all pairs")
    ap.add_argument("--seed", type=int, default=1, help="schedule/opening seed (default 1)")
    ap.add_argument("--resign-cp", type=int, default=3000,
                    help="resign adjudication threshold in cp, 0 = off (default 3000)")
    ap.add_argument("--resign-moves", type=int, default=4,
                    help="moves per side beyond the threshold before adjudication (default 4)")
    ap.add_argument("--resign-one-sided", action="store_true",
                    help="only the losing engine's own score counts (default: both engines must agree)")
    ap.add_argument("--max-plies", type=int, default=320, help="draw after this many plies, 0 = off (default 320)")
    ap.add_argument("--no-max-plies-sync", action="store_true",
                    help="do not set the engines' MaxMovesToDraw/Draw_Ply to --max-plies "
                         "(needed for engines that lack those options, e.g. fairy-stockfish, gpsusi)")
    ap.add_argument("--repetition", type=int, choices=[2, 3, 4], default=4,
                    help="occurrences for a repetition draw; 4 also detects perpetual check (default 4)")
    ap.add_argument("--usi-log", action="store_true", help="keep USI transcripts (logging.usi_transcript)")
    ap.add_argument("--out", required=True, help="output directory (config, log, run/)")
    ap.add_argument("--resume", action="store_true", help="resume an existing OUT/run instead of refusing")
    ap.add_argument("--dry-run", action="store_true", help="validate and show the schedule only")
    return ap


def main():
    if sys.argv[1:] == ["--self-test"]:
        raise SystemExit(1 if self_test() else 0)
    args = make_parser().parse_args()

    if args.elo1 <= args.elo0:
        raise SystemExit("--elo1 must be greater than --elo0")
    if args.concurrency < 1:
        raise SystemExit("--concurrency must be >= 1")
    out = Path(args.out).resolve()
    run_dir = out / "run"
    if run_dir.exists() and any(run_dir.iterdir()) and not (args.resume or args.dry_run):
        raise SystemExit(f"{run_dir} exists; use --resume or another --out")
    out.mkdir(parents=True, exist_ok=True)
    config_path, n_lines, selection = build_config(args, out)
    print(f"config: {config_path} (openings: {n_lines} lines, selection {selection})", flush=True)
    if not args.dry_run:
        for line in record_engines(args, out):
            print(f"engine: {line}", flush=True)
    rc = run_shogiarena(args, out, config_path, run_dir)
    if rc != 0:
        raise SystemExit(f"shogiarena exited with status {rc}")
    if args.dry_run:
        return
    summary = subprocess.run(["shogiarena", "results", "summary", str(run_dir)], capture_output=True, text=True)
    sys.stdout.write(summary.stdout)
    (out / "results_summary.txt").write_text(summary.stdout, encoding="utf-8")
    lines = summarize(args, run_dir)
    (out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
