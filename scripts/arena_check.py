#!/usr/bin/env python3
"""Checks the games of shogiarena runs: legality, endings, crashes, time, CSA records.

shogiarena (1.3.2, run by scripts/sprt.py) scores an engine crash, an illegal move, a
resignation and a `bestmove win` all as an ordinary win for the other side: its game.db says
`BLACK_WIN` / `WHITE_WIN` and nothing more, and a `bestmove win` is accepted without looking at
the position. This script reads one or more run directories read-only (safe on a match that is
still running), replays every game with cshogi and works out how each one really ended.

Usage (from the repository root):

    python3 scripts/arena_check.py matches/sprt-x            # OUT dir of sprt.py, or OUT/run,
    python3 scripts/arena_check.py matches/*/run/game.db     # or game.db files; several at once
    python3 scripts/arena_check.py RUN --list                # also one line per game
    python3 scripts/arena_check.py RUN --json check.json --csa csa/ --strict
    python3 scripts/arena_check.py --self-test               # builds a synthetic run in a temp dir

Per game:
  * every stored move is replayed from `initial_position_sfen` and must be legal (an illegal
    one is reported with game, ply, move and the engine that played it);
  * the ending is classified and checked against the final position:
      plain BLACK_WIN / WHITE_WIN: checkmate (no legal move), perpetual check (fourfold
        repetition, cshogi `is_draw()`), resign adjudication (shogiarena's ResignTracker is
        replayed over the stored scores with the run's settings: both engines' scores beyond
        the threshold for 2 x N plies, or any mate score), an entering-king declaration
        (checked with cshogi `is_nyugyoku()`, the CSA 27-point rule: declarer to move, not in
        check, king in the last three ranks, >= 10 other own pieces there, >= 28 points for
        Black / 27 for White counting big pieces 5 and others 1, in that zone and in hand;
        a win for the side to move that none of these explains can only be an engine's
        `bestmove win`, so a declaration that fails the rule is a *false declaration* by the
        winner), or else the loser, being to move, resigned, played an illegal move or
        crashed: shogiarena.log (next to run/) is searched for "Illegal move from X",
        "No bestmove from X" and "Error during move by X" near the game's end time;
      *_WIN_BY_TIMEOUT: who lost on time, by how much (the over-time move is stored and
        counted in the think times), and shogiarena's timeout origin;
      *_WIN_BY_DECLARATION / *_WIN_BY_ILLEGAL_MOVE (not produced by 1.3.2, checked anyway);
      DRAW_BY_REPETITION: the final position occurred `repetition_occurrences_to_draw` times
        and (with 4) is not a perpetual check; DRAW_BY_MAX_PLIES: the ply limit was reached;
      ERROR / INVALID / PAUSED, and games in run/failures/run_failures.json that never reached
        game.db: the reason from the metadata (a timeout shogiarena invalidated because its own
        event loop stalled), the failure record (engine start, isready, think, ...) or the log.
Per engine: games, W/L/D as shogiarena scored them, losses on time, illegal moves, false
declarations, crashes, ERROR games (not scored), and think time per move (game_move.wall_time_ms, the
runner's clock from `go` to `bestmove`): average, maximum, and moves over the allowance when the
allowance is fixed (byoyomi without main time, or fixed time per move); beside the maximum, the
longest time the engine itself reported (`own max`: the `time` of its last `info` line, stored as
next_move_time_ms; shogiarena stores its own elapsed time there when the engine reported none).
A move whose runner time is far above its own time lost the difference outside the engine's
clock: in the pipe, the scheduler or the runner's own event loop.

Output: a short table per run on stdout; --json FILE with everything (every game and move);
--csa DIR with one CSA V2.2 record per game (DIR/<run>/<game>.csa: names, start position, moves
with seconds and Black-view scores, an end marker %TORYO / %TIME_UP / %ILLEGAL_MOVE / %KACHI /
%SENNICHITE / %+ILLEGAL_ACTION (perpetual check) / %JISHOGI (ply limit, as floodgate) / %CHUDAN,
and a floodgate-style `'summary:` line with the verdict under the rules). --strict: exit status 1
when any fault was found: an illegal move, a false declaration, a crash or failed start, a
runner error with no benign explanation, or a result the position does not explain. Notes that
are not faults: timeouts shogiarena itself invalidated (host lag), games cut off by stopping
the run. Settings (time control, adjudication, ply limit, repetition) come from
run/inputs/config_resolved.yaml, else OUT/config.yaml; without either, sprt.py's defaults.

Needs cshogi and rsshogi (installed with shogiarena); PyYAML only to read the run's settings.
"""

import argparse
import datetime
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cshogi
from cshogi import CSA
from rsshogi.core import Move

MOVE_END = int(Move.MOVE_END)
MATE_MIN, MATE = 32000 - 246, 32000  # shogiarena's `score mate` range, +/-(32000 - ply); 32767 is not mate
INVALID_TIMEOUT_ORIGINS = {"orchestrator_stall", "unknown", "transport_timeout"}
ENGINE_PHASES = {"engine_start", "isready", "think", "move_validation"}
DEFAULTS = {"byoyomi": None, "main": 0, "inc": None, "fixed": None, "margin": 200, "resign_cp": 3000,
            "resign_moves": 4, "resign_two_sided": True, "max_plies": 320, "repetition": 4}
SIDES = ("black", "white")
ENDINGS = ("checkmate", "resign", "resign_adjudication", "perpetual_check", "declaration",
           "false_declaration", "illegal_move", "crash", "timeout", "repetition", "max_plies",
           "error", "unfinished", "unexplained")
LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \[(\w+)\]: (.*)$")
LOG_EVENTS = (
    ("illegal_move", re.compile(r"^Illegal move from (\S+): (\S+)")),
    ("crash", re.compile(r"^No bestmove from (\S+);")),
    ("crash", re.compile(r"^Error during move by (\S+): (.*)")),
)
LOG_GAME_FAILED = re.compile(r"^Game (\S+) failed with unhandled error")


# --------------------------------------------------------------------------
# reading a run
# --------------------------------------------------------------------------
def locate(path):
    """PATH (OUT dir, OUT/run or a game.db) -> (label, run_dir, db_path, log_path or None)."""
    p = Path(path).resolve()
    if p.is_dir() and (p / "run" / "game.db").is_file():
        p = p / "run"
    db = p if p.is_file() else p / "game.db"
    if not db.is_file():
        raise SystemExit(f"{path}: no game.db (give an OUT dir of sprt.py, OUT/run or a game.db)")
    run = db.parent
    label = run.parent.name if run.name == "run" else run.name
    log = run.parent / "shogiarena.log"
    return label, run, db, (log if log.is_file() else None)


def load_config(run):
    """The run's settings in a flat dict (see DEFAULTS), and where they came from."""
    cfg = dict(DEFAULTS)
    for path in (run / "inputs" / "config_resolved.yaml", run.parent / "config.yaml"):
        if not path.is_file():
            continue
        try:
            import yaml
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except Exception as exc:  # no PyYAML, or a broken file: keep the defaults
            return cfg, f"{path}: unreadable ({exc}); sprt.py defaults assumed"
        rules = raw.get("rules") or {}
        tc = rules.get("time_control") or {}
        adj = rules.get("adjudication") or {}
        cfg.update(byoyomi=tc.get("byoyomi_ms"), main=tc.get("time_ms") or 0, inc=tc.get("increment_ms"),
                   fixed=tc.get("fixed_time_ms"), margin=tc.get("expiry_margin_ms", 500))
        cfg.update(resign_cp=adj.get("resign_threshold_cp"), resign_moves=adj.get("resign_move_count", 8),
                   resign_two_sided=adj.get("resign_two_sided", True),
                   max_plies=adj.get("max_plies") if adj.get("enable_max_plies", True) else None)
        cfg["repetition"] = rules.get("repetition_occurrences_to_draw", 2)
        return cfg, str(path)
    return cfg, "no config found; sprt.py defaults assumed"


def fixed_allowance(cfg):
    """Per-move allowance in ms when it does not depend on the clock, else None."""
    if cfg["fixed"]:
        return cfg["fixed"]
    if cfg["byoyomi"] and not cfg["main"] and not cfg["inc"]:
        return cfg["byoyomi"]
    return None


def describe_tc(cfg):
    if not (cfg["fixed"] or cfg["inc"] or cfg["byoyomi"]):
        text = "time control unknown"
    elif cfg["fixed"]:
        text = f"{cfg['fixed']} ms per move"
    elif cfg["inc"]:
        text = f"Fischer {cfg['main']}+{cfg['inc']} ms"
    else:
        text = f"byoyomi {cfg['byoyomi']} ms" + (f" + main {cfg['main']} ms" if cfg["main"] else "")
    return text + f", margin {cfg['margin']} ms"


def read_log(log):
    """shogiarena.log -> (events [(time, kind, engine, text)], {game_id: reason})."""
    events, failed = [], {}
    if log is None:
        return events, failed
    pending = None  # game id whose traceback is being read
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = LOG_LINE.match(line)
        if not m:
            if pending and line[:1].isalpha() and ":" in line and not line.startswith(("Traceback", "During", "The ")):
                failed[pending] = line.strip()
                pending = None
            continue
        pending = None
        when = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")
        text = m.group(3)
        g = LOG_GAME_FAILED.match(text)
        if g:
            failed[g.group(1)] = "unhandled error"
            pending = g.group(1)
            continue
        for kind, rx in LOG_EVENTS:
            e = rx.match(text)
            if e:
                events.append({"time": when, "kind": kind, "engine": e.group(1).split("#")[0], "text": text})
                break
    return events, failed


def read_failures(run):
    path = run / "failures" / "run_failures.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    return {f.get("game_id"): f for f in data.get("failures", []) if f.get("game_id")}


def read_schedule(run):
    """(games scheduled, run finished?) from state.json / completion_status.json; None = unknown."""
    total, finished = None, None
    try:
        state = json.loads((run / "state.json").read_text(encoding="utf-8"))
        total = state.get("total_games")
        finished = bool(state.get("is_finished"))
    except (OSError, ValueError):
        pass
    if (run / "completion_status.json").is_file():
        finished = True
    return total, finished


def read_games(db_path):
    """All games with their move rows, in one read-only snapshot."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        db.execute("BEGIN")
        names = {r["id"]: r["player_name"] for r in db.execute("SELECT id, player_name FROM player")}
        origins = {}
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'game_timeout_attribution'").fetchone():
            origins = dict(db.execute("SELECT game_id, origin FROM game_timeout_attribution").fetchall())
        games = [dict(r) for r in db.execute("SELECT * FROM game ORDER BY id")]
        rows = {}
        for r in db.execute("SELECT game_id, ply, next_move, next_move_time_ms, wall_time_ms, eval "
                            "FROM game_move ORDER BY game_id, ply, id"):
            rows.setdefault(r["game_id"], []).append(dict(r))
    finally:
        db.close()
    for g in games:
        g["black"] = names.get(g["black_player_id"], "?")
        g["white"] = names.get(g["white_player_id"], "?")
        g["rows"] = rows.get(g["id"], [])
        try:
            g["meta"] = json.loads(g.get("metadata_attributes_json") or "{}")
        except ValueError:
            g["meta"] = {}
        g["timeout_origin"] = origins.get(g["id"]) or g["meta"].get("timeout_origin")
    return games


# --------------------------------------------------------------------------
# one game
# --------------------------------------------------------------------------
def side_name(color):
    return SIDES[color]


def position_key(board):
    return board.sfen().rsplit(" ", 1)[0]  # board, side to move, hands; not the move number


def mover_of(rep, i):
    """The colour that played the replay's move `i` (0-based)."""
    return rep["start_turn"] ^ (i & 1)


def replay(game):
    """Replays the stored moves with cshogi; stops at the first illegal one."""
    sfen = game["initial_position_sfen"]
    if sfen.startswith("sfen "):
        sfen = sfen[5:]
    board = cshogi.Board(cshogi.STARTING_SFEN if sfen == "startpos" else sfen)
    out = {"start_sfen": board.sfen(), "start_turn": board.turn, "moves": [], "csa_moves": [], "times": [],
           "own": [], "evals": [], "illegal": None, "keys": [position_key(board)], "checks": []}
    for row in game["rows"]:
        m = row["next_move"]
        if m == MOVE_END:
            break
        mover = board.turn
        try:
            usi = Move(m).to_usi()
        except (TypeError, ValueError):
            usi = f"#{m}"
        mv = board.move_from_usi(usi) if re.fullmatch(r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]", usi) else 0
        if not mv or not board.is_legal(mv):
            out["illegal"] = {"ply": row["ply"] + 1, "index": len(out["moves"]), "move": usi, "side": side_name(mover),
                              "engine": game[side_name(mover)]}
            break
        board.push(mv)
        out["moves"].append(usi)
        out["csa_moves"].append(mv)
        out["times"].append(row["wall_time_ms"] if row["wall_time_ms"] is not None else row["next_move_time_ms"])
        out["own"].append(row["next_move_time_ms"])
        out["evals"].append(row["eval"])
        out["keys"].append(position_key(board))
        out["checks"].append(board.is_check())
    out["board"] = board
    return out


def adjudication(evals, start_turn, cfg):
    """shogiarena's ResignTracker replayed over the stored scores: (winner, move index, why) of
    the first move at which it fires, or None. Scores are stored from the mover's view."""
    thr = cfg["resign_cp"]
    if not thr:
        return None
    need = cfg["resign_moves"]
    lead, agreed = None, 0
    losing = [0, 0]
    for i, ev in enumerate(evals):
        mover = start_turn ^ (i & 1)
        if ev is None:
            lead, agreed, losing = None, 0, [0, 0]
            continue
        black_view = ev if mover == cshogi.BLACK else -ev
        if MATE_MIN <= abs(ev) <= MATE:
            return ("black" if black_view > 0 else "white"), i, "a mate score"
        if cfg["resign_two_sided"]:
            if abs(black_view) < thr:
                lead, agreed = None, 0
                continue
            w = "black" if black_view > 0 else "white"
            agreed = agreed + 1 if w == lead else 1
            lead = w
            if agreed >= 2 * need:
                return w, i, f"both engines' scores beyond {thr} cp for {2 * need} plies"
        elif ev <= -thr:
            losing[mover] += 1
            losing[1 - mover] = 0
            if losing[mover] >= need:
                return side_name(1 - mover), i, f"the loser's score below -{thr} cp for {need} moves"
        else:
            losing[mover] = 0
    return None


def declaration_detail(board):
    """Why a declaration by the side to move passes or fails the CSA 27-point rule."""
    us = board.turn
    camp = range(0, 3) if us == cshogi.BLACK else range(6, 9)  # ranks a-c for Black, g-i for White
    big = {cshogi.BBISHOP, cshogi.BROOK, cshogi.BPROM_BISHOP, cshogi.BPROM_ROOK}
    king_in, count, points = False, 0, 0
    for sq, pc in enumerate(board.pieces):
        if pc == cshogi.NONE or (pc >= cshogi.WPAWN) != (us == cshogi.WHITE) or sq % 9 not in camp:
            continue
        base = pc - cshogi.WPAWN + cshogi.BPAWN if pc >= cshogi.WPAWN else pc
        if base == cshogi.BKING:
            king_in = True
            continue
        count += 1
        points += 5 if base in big else 1
    hand = board.pieces_in_hand[us]  # pawn, lance, knight, silver, gold, bishop, rook
    points += sum(hand[:5]) + 5 * (hand[5] + hand[6])
    need = 28 if us == cshogi.BLACK else 27
    parts = [f"king {'in' if king_in else 'not in'} the camp", f"{count} pieces there (need 10)",
             f"{points} points (need {need})"]
    if board.is_check():
        parts.append("in check")
    return ", ".join(parts)


def find_log_event(game, loser, events, used):
    """The log line (illegal move / no bestmove / error) of the loser nearest the game's end."""
    end = parse_time(game.get("end_date"))
    if end is None:
        return None
    best = None
    for i, e in enumerate(events):
        if i in used or e["engine"] != game[loser]:
            continue
        delta = (end - e["time"]).total_seconds()
        if -2 <= delta <= 10 and (best is None or abs(delta) < best[0]):
            best = (abs(delta), i)
    if best is None:
        return None
    used.add(best[1])
    return events[best[1]]


def parse_time(text):
    if not text:
        return None
    try:
        return datetime.datetime.fromisoformat(str(text)).replace(tzinfo=None)
    except ValueError:
        return None


def problem(kind, side, game, detail, fault=True, **extra):
    p = {"kind": kind, "side": side, "engine": game[side] if side in SIDES else None, "detail": detail,
         "fault": fault}
    p.update(extra)
    return p


def result_winner(res):
    return "black" if res.startswith("BLACK_WIN") else "white" if res.startswith("WHITE_WIN") else None


def set_end(game, kind, detail):
    game["end"], game["detail"] = kind, detail


def fault(game, kind, side, detail, end_detail=None, **extra):
    """Records a fault and makes it the game's ending."""
    game["problems"].append(problem(kind, side, game, detail, **extra))
    set_end(game, kind, end_detail or detail)


def note(game, side, detail):
    game["problems"].append(problem("note", side, game, detail, fault=False))


def perpetual_checker(rep, cfg):
    """The side that gave perpetual check, if the final position is a fourfold repetition and
    every move of that side since the position's first occurrence gave check, else None.
    That is the rule of Kaname (`Position::repetition`) and of shogiarena (rsshogi's
    `repetition_state`); cshogi's `is_draw()` looks at the last cycle only, so a game whose first
    cycle had a quiet move would be called a perpetual check there and drawn by the runner."""
    key = position_key(rep["board"])
    if rep["keys"].count(key) < max(cfg["repetition"], 4):
        return None
    first = rep["keys"].index(key)  # moves first.. were played since the first occurrence
    n = len(rep["checks"])
    last_mover = mover_of(rep, n - 1)
    for mover in (last_mover, 1 - last_mover):  # as Kaname: the side that just moved first
        own = [rep["checks"][i] for i in range(first, n) if mover_of(rep, i) == mover]
        if own and all(own):
            return side_name(mover)
    return None


def adjudicated_winner(game, rep, cfg):
    """(winner, why) if shogiarena's resign adjudication fires on the last move, else None."""
    adj = adjudication(rep["evals"], rep["start_turn"], cfg)
    n = len(rep["moves"])
    if adj and adj[1] < n - 1:
        note(game, None, f"resign adjudication ({adj[2]}) would have ended the game at move {adj[1] + 1} of {n}: "
             "settings differ from the run's?")
    return (adj[0], adj[2]) if adj and adj[1] == n - 1 else None


def classify(game, rep, cfg, log, failures, used_events):
    """Sets game['end'], ['winner'], ['detail'] and appends to game['problems']."""
    res = game["game_result"]
    game["winner"] = result_winner(res)
    if res in ("ERROR", "INVALID", "PAUSED"):
        return classify_error(game, rep, failures)
    if res in ("BLACK_WIN", "WHITE_WIN"):
        return classify_plain_win(game, rep, cfg, log, used_events)
    if res.endswith("_WIN_BY_TIMEOUT"):
        return classify_timeout(game, rep, cfg)
    if res.endswith("_WIN_BY_DECLARATION"):
        return classify_declaration(game, rep["board"])
    if res.endswith("_WIN_BY_ILLEGAL_MOVE"):
        loser = side_name(1 - SIDES.index(game["winner"]))
        ev = find_log_event(game, loser, log, used_events)
        text = ev["text"] if ev else "move not stored"
        return fault(game, "illegal_move", loser, text, ply=rep["board"].move_number)
    if res in ("DRAW_BY_REPETITION", "DRAW_BY_MAX_PLIES"):
        return classify_draw(game, rep, cfg)
    fault(game, "unexplained", None, f"result {res} is not produced by shogiarena arena runs")


def classify_plain_win(game, rep, cfg, log, used_events):
    """BLACK_WIN / WHITE_WIN: checkmate, perpetual check, adjudication, declaration, or the side
    to move resigned / played an illegal move / crashed (told apart by shogiarena.log)."""
    board, winner = rep["board"], game["winner"]
    stm = side_name(board.turn)
    if winner != stm and not board.legal_moves:  # shogiarena looks for mate before anything else
        return set_end(game, "checkmate", f"{game[stm]} ({stm}) is checkmated")
    checker = perpetual_checker(rep, cfg)
    adj = adjudicated_winner(game, rep, cfg)
    if checker and checker != winner:
        game["perpetual"] = checker
        return set_end(game, "perpetual_check", f"{game[checker]} ({checker}) gave perpetual check")
    if adj and adj[0] == winner:
        return set_end(game, "resign_adjudication", f"adjudicated: {adj[1]}")
    if winner == stm:  # the side that moved last lost: only a `bestmove win` is left
        return classify_declaration(game, board)
    ev = find_log_event(game, stm, log, used_events)
    who = f"{game[stm]} ({stm})"
    if ev and ev["kind"] == "illegal_move":
        return fault(game, "illegal_move", stm, ev["text"], f"{who} played an illegal move (shogiarena.log): "
                     f"{ev['text']}", ply=board.move_number, move=ev["text"].split(": ", 1)[-1])
    if ev:
        return fault(game, "crash", stm, ev["text"], f"{who} failed to move (shogiarena.log): {ev['text']}",
                     ply=board.move_number)
    why = "" if game["log"] else " (no shogiarena.log: a crash or illegal move would look the same)"
    set_end(game, "resign", f"{who} resigned{why}")


def classify_declaration(game, board):
    """A win by declaration of the side to move, checked against the CSA 27-point rule."""
    stm, winner = side_name(board.turn), game["winner"]
    why = declaration_detail(board)
    if winner == stm and board.is_nyugyoku():
        return set_end(game, "declaration", f"{game[stm]} ({stm}) declared a win: valid ({why})")
    if winner != stm:
        return fault(game, "unexplained", winner, f"{game['game_result']}, but {winner} was not to move")
    fault(game, "false_declaration", stm, f"bestmove win in a position that fails the 27-point rule: {why}",
          f"{game[stm]} ({stm}) declared a win falsely ({why}); shogiarena scored it as a win",
          ply=board.move_number)


def classify_timeout(game, rep, cfg):
    """*_WIN_BY_TIMEOUT: the loser overran on its (stored) last move, or gave no bestmove."""
    loser = side_name(1 - SIDES.index(game["winner"]))
    stm = side_name(rep["board"].turn)
    origin = game["timeout_origin"] or "not recorded"
    allow = fixed_allowance(cfg)
    if loser != stm and rep["moves"] and rep["times"][-1] is not None:
        ms = rep["times"][-1]
        detail = f"{game[loser]} ({loser}) took {ms} ms for its last move {rep['moves'][-1]}"
        if allow and ms <= allow + cfg["margin"]:
            note(game, loser, f"{ms} ms is within {allow} + {cfg['margin']} ms")
        game["overtime_move"] = True
    elif loser == stm:
        detail = f"{game[loser]} ({loser}) gave no bestmove within its time"
    else:
        return fault(game, "unexplained", loser, f"{game['game_result']}, but {loser} was not to move and its last "
                     "move has no time")
    if origin in INVALID_TIMEOUT_ORIGINS:
        note(game, loser, f"timeout origin {origin}: shogiarena doubts it was the engine's fault but scored it "
             "(timeout reclassification off)")
    set_end(game, "timeout", f"{detail}; origin {origin}")


def classify_draw(game, rep, cfg):
    """DRAW_BY_REPETITION (enough occurrences, no perpetual check) or DRAW_BY_MAX_PLIES."""
    board = rep["board"]
    if game["game_result"] == "DRAW_BY_MAX_PLIES":
        plies, limit = board.move_number - 1, cfg["max_plies"]
        if limit and plies >= limit:
            return set_end(game, "max_plies", f"ply {plies} reached (limit {limit})")
        return fault(game, "unexplained", None, f"ply limit draw at ply {plies} (limit {limit})")
    count = rep["keys"].count(position_key(board))
    if count < cfg["repetition"]:
        return fault(game, "unexplained", None, f"repetition draw, but the final position occurred only {count} "
                     f"times (the run draws at {cfg['repetition']})")
    checker = perpetual_checker(rep, cfg)
    if checker:
        return fault(game, "unexplained", checker, f"{game[checker]} ({checker}) gave perpetual check: a loss, "
                     "not a draw")
    why = "" if cfg["repetition"] >= 4 else f" (draw at {cfg['repetition']} occurrences: perpetual check not judged)"
    set_end(game, "repetition", f"position occurred {count} times{why}")


def classify_error(game, rep, failures):
    """ERROR / INVALID / PAUSED: what the metadata, failure records or log say."""
    origin = game["timeout_origin"]
    fail = failures.get(game["game_name"])
    if game["game_result"] == "ERROR" and origin in INVALID_TIMEOUT_ORIGINS:
        who = ""
        if rep["moves"] and rep["times"][-1] is not None:
            last = side_name(mover_of(rep, len(rep["moves"]) - 1))
            who = f"; last move {rep['moves'][-1]} by {game[last]} ({last}) took {rep['times'][-1]} ms"
        set_end(game, "error", f"timeout invalidated by shogiarena (origin {origin}: its event loop stalled), "
                f"not scored{who}")
        return note(game, None, game["detail"])
    if fail:
        phase = fail.get("failure_phase", "unknown")
        text = f"failure record: {phase}: {fail.get('exception_class', '')} {fail.get('short_message', '')}".strip()
        if phase == "user_interruption":
            set_end(game, "unfinished", text)
            return note(game, None, "cut off when the run was stopped")
        engine = (fail.get("engine") or "").split("#")[0]
        side = next((s for s in SIDES if engine and game[s] == engine), None)
        return fault(game, "crash" if phase in ENGINE_PHASES else "error", side, text)
    if game.get("log_failure"):
        return fault(game, "error", None, f"shogiarena.log: {game['log_failure']}")
    if game["game_result"] == "PAUSED":
        set_end(game, "unfinished", "paused (run stopped), resumable")
        return note(game, None, game["detail"])
    fault(game, "error", None, f"{game['game_result']} with no recorded reason")


def check_game(game, cfg, log_events, log_failed, failures, used_events):
    rep = replay(game)
    game["rep"] = rep
    game["problems"] = []
    game["log_failure"] = log_failed.get(game["game_name"])
    stored = sum(1 for r in game["rows"] if r["next_move"] != MOVE_END)
    if not rep["illegal"] and stored != game["num_moves"]:
        note(game, None, f"{stored} move rows, num_moves {game['num_moves']}")
    il = rep["illegal"]
    if il and game["game_result"] not in ("ERROR", "INVALID", "PAUSED"):
        game["winner"] = result_winner(game["game_result"])
        return fault(game, "illegal_move", il["side"], f"stored move {il['move']} at ply {il['ply']} is illegal",
                     f"stored move {il['move']} is illegal: ending not checked", ply=il["ply"], move=il["move"])
    classify(game, rep, cfg, log_events, failures, used_events)


# --------------------------------------------------------------------------
# a run
# --------------------------------------------------------------------------
def new_stats():
    return {"games": 0, "w": 0, "l": 0, "d": 0, "time": 0, "illegal": 0, "false_decl": 0, "crash": 0, "error": 0,
            "moves": 0, "think_ms": 0, "max_ms": 0, "max_at": None, "own_max_ms": 0, "over": 0}


def engine_stats(games, cfg):
    stats = {}
    allow = fixed_allowance(cfg)
    for g in games:
        res = g["game_result"]
        for side in SIDES:
            s = stats.setdefault(g[side], new_stats())
            if g["end"] == "unfinished":
                continue
            s["games"] += 1
            if g.get("winner") == side:
                s["w"] += 1
            elif g.get("winner"):
                s["l"] += 1
                s["time"] += res.endswith("_BY_TIMEOUT")
            elif res.startswith("DRAW"):
                s["d"] += 1
            else:
                s["error"] += 1
        for p in g["problems"]:
            key = {"illegal_move": "illegal", "false_declaration": "false_decl", "crash": "crash"}.get(p["kind"])
            if key and p["engine"]:
                stats.setdefault(p["engine"], new_stats())[key] += 1
        rep = g.get("rep")
        if not rep:
            continue
        for i, ms in enumerate(rep["times"]):
            if ms is None:
                continue
            side = side_name(mover_of(rep, i))
            s = stats[g[side]]
            s["moves"] += 1
            s["think_ms"] += ms
            if ms > s["max_ms"]:
                s["max_ms"], s["max_at"] = ms, f"{g['game_name']} move {i + 1}"
            if allow and ms > allow:
                s["over"] += 1
            own = rep["own"][i]
            if own is not None and own > s["own_max_ms"]:
                s["own_max_ms"] = own
    for s in stats.values():
        s["avg_ms"] = round(s["think_ms"] / s["moves"], 1) if s["moves"] else None
        if not allow:
            s["over"] = None
    return stats


def unfinished_games(failures, recorded):
    """Failure records of games that never reached game.db."""
    out = []
    for gid, f in failures.items():
        if gid in recorded:
            continue
        black = (f.get("scheduled_black_engine") or "?").split("#")[0]
        white = (f.get("scheduled_white_engine") or "?").split("#")[0]
        g = {"game_name": gid, "black": black, "white": white, "game_result": "UNFINISHED", "winner": None,
             "end": "unfinished", "moves": [], "problems": []}
        phase = f.get("failure_phase", "unknown")
        g["detail"] = f"{phase}: {f.get('exception_class', '')} {f.get('short_message', '')}".strip()
        if phase == "user_interruption":
            g["problems"].append(problem("note", None, g, "cut off when the run was stopped", fault=False))
        else:
            engine = (f.get("engine") or "").split("#")[0]
            side = next((s for s in SIDES if engine and g[s] == engine), None)
            g["problems"].append(problem("crash" if phase in ENGINE_PHASES else "error", side, g, g["detail"]))
        out.append(g)
    return out


def check_run(path):
    label, run, db, log = locate(path)
    cfg, cfg_source = load_config(run)
    events, log_failed = read_log(log)
    failures = read_failures(run)
    scheduled, finished = read_schedule(run)
    games = read_games(db)
    used = set()
    for g in games:
        g["log"] = log is not None
        check_game(g, cfg, events, log_failed, failures, used)
    extra = unfinished_games(failures, {g["game_name"] for g in games})
    endings = Counter(g["end"] for g in games + extra)
    problems = [dict(p, game=g["game_name"]) for g in games + extra for p in g["problems"]]
    return {"label": label, "run_dir": str(run), "db": str(db), "log": str(log) if log else None,
            "config": cfg, "config_source": cfg_source, "scheduled": scheduled, "finished": finished,
            "recorded": len(games), "endings": dict(endings), "engines": engine_stats(games + extra, cfg),
            "problems": problems, "faults": sum(p["fault"] for p in problems), "games": games + extra}


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------
def print_run(r, show_games):
    cfg = r["config"]
    sched = f" of {r['scheduled']} scheduled" if r["scheduled"] else ""
    state = {True: "run finished", False: "run not finished (games in progress are not in game.db yet)",
             None: "no state.json"}[r["finished"]]
    print(f"== {r['label']} ({r['run_dir']}): {r['recorded']} games recorded{sched}, {state}")
    adj = (f"resign {cfg['resign_cp']} cp x{cfg['resign_moves']} "
           f"({'two' if cfg['resign_two_sided'] else 'one'}-sided)") if cfg["resign_cp"] else "no resign adjudication"
    print(f"   {describe_tc(cfg)}; {adj}; max plies {cfg['max_plies']}; repetition {cfg['repetition']}"
          f"  [{r['config_source']}]")
    if not r["log"]:
        print("   no shogiarena.log next to run/: resignations, crashes and illegal moves look alike")
    print("   endings: " + ", ".join(f"{k} {r['endings'][k]}" for k in ENDINGS if r["endings"].get(k)))
    print(f"   {'engine':<16} {'games':>5} {'W':>4} {'L':>4} {'D':>4} {'time':>5} {'illeg':>5} {'decl':>5} "
          f"{'crash':>5} {'error':>5} {'moves':>6} {'avg ms':>7} {'max ms':>7} {'own max':>7} {'over':>5}")
    for name, s in r["engines"].items():
        avg = f"{s['avg_ms']:.0f}" if s["avg_ms"] is not None else "-"
        over = "-" if s["over"] is None else s["over"]
        print(f"   {name:<16} {s['games']:>5} {s['w']:>4} {s['l']:>4} {s['d']:>4} {s['time']:>5} {s['illegal']:>5} "
              f"{s['false_decl']:>5} {s['crash']:>5} {s['error']:>5} {s['moves']:>6} {avg:>7} {s['max_ms']:>7} "
              f"{s['own_max_ms']:>7} {over:>5}")
    if show_games:
        for g in r["games"]:
            print(f"   {g['game_name']:<18} {g['black']} - {g['white']}  {g['game_result']:<22} "
                  f"{len(g.get('rep', {}).get('moves', [])):>3} moves  {g['end']}: {g['detail']}")
    for p in r["problems"]:
        who = f" {p['engine']} ({p['side']})" if p.get("engine") else ""
        what = f"FAULT {p['game']}{who}: {p['kind']}:" if p["fault"] else f"note  {p['game']}{who}:"
        print(f"   {what} {p['detail']}")


def game_json(g):
    out = {k: v for k, v in g.items() if k not in ("rows", "rep", "meta", "metadata_attributes_json", "log")}
    rep = g.get("rep")
    if rep:
        out["moves"] = rep["moves"]
        out["think_ms"] = rep["times"]
        out["own_ms"] = rep["own"]
        out["evals"] = rep["evals"]
        out["final_sfen"] = rep["board"].sfen()
    return out


def write_json(path, runs, faults):
    data = {"faults": faults, "runs": []}
    for r in runs:
        data["runs"].append(dict(r, games=[game_json(g) for g in r["games"]]))
    Path(path).write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")


CSA_END = {"checkmate": "%TORYO", "resign": "%TORYO", "resign_adjudication": "%TORYO", "timeout": "%TIME_UP",
           "illegal_move": "%ILLEGAL_MOVE", "declaration": "%KACHI", "false_declaration": "%KACHI",
           "repetition": "%SENNICHITE", "max_plies": "%JISHOGI"}
CSA_SUMMARY = {"checkmate": "toryo", "resign": "toryo", "resign_adjudication": "toryo", "timeout": "time up",
               "illegal_move": "illegal move", "false_declaration": "illegal move", "declaration": "kachi",
               "perpetual_check": "oute_sennichite", "repetition": "sennichite", "max_plies": "max_moves"}


def csa_time_limit(cfg):
    if cfg["inc"] or cfg["fixed"] or (cfg["byoyomi"] or 0) % 1000 or (cfg["main"] or 0) % 1000:
        return None
    main = (cfg["main"] or 0) // 1000
    return f"{main // 3600:02d}:{main // 60 % 60:02d}+{(cfg['byoyomi'] or 0) // 1000:02d}"


def rules_loser(g):
    """The loser under the rules (a false declaration loses), or None for a draw / no result."""
    if g["end"] == "false_declaration":
        return next(p["side"] for p in g["problems"] if p["kind"] == "false_declaration")
    if g.get("winner") and g["end"] not in ("error", "unfinished", "unexplained"):
        return "white" if g["winner"] == "black" else "black"
    return None


def write_csa(path, g, r):
    rep = g["rep"]
    cfg = r["config"]
    moves = list(zip(rep["csa_moves"], rep["times"], rep["evals"]))
    overtime = moves.pop() if g.get("overtime_move") else None  # arrived after the flag fell
    info = {"EVENT": r["label"]}
    for key, field in (("START_TIME", "start_date"), ("END_TIME", "end_date")):
        t = parse_time(g.get(field))
        if t:
            info[key] = t.strftime("%Y/%m/%d %H:%M:%S")
    if csa_time_limit(cfg):
        info["TIME_LIMIT"] = csa_time_limit(cfg)
    board = cshogi.Board(rep["start_sfen"])
    ex = CSA.Exporter(str(path))
    ex.info(board, [g["black"], g["white"]], var_info=info, version="V2.2",
            comment=f"shogiarena {g['game_name']}: {g['game_result']}; {describe_tc(cfg)}")
    mover = rep["start_turn"]
    for mv, ms, ev in moves:
        score = None if ev is None else (ev if mover == cshogi.BLACK else -ev)
        ex.move(mv, time=None if ms is None else ms // 1000, comment=None if score is None else f"** {score}")
        mover ^= 1
    end = CSA_END.get(g["end"], "%CHUDAN")
    reason = CSA_SUMMARY.get(g["end"], "abnormal")
    if g["end"] == "perpetual_check":
        end = "%+ILLEGAL_ACTION" if g["perpetual"] == "black" else "%-ILLEGAL_ACTION"
    if g["end"] == "resign_adjudication" and g["winner"] == side_name(rep["board"].turn):
        end, reason = "%CHUDAN", "adjudicated"  # the loser moved last: CSA has no resignation out of turn
    ex.endgame(end)
    if overtime:
        ex.f.write(f"'over time: {cshogi.move_to_usi(overtime[0])} arrived after {overtime[1]} ms\n")
    ex.f.write(f"'arena_check: {g['end']}: {g['detail']}\n")
    for p in g["problems"]:
        ex.f.write(f"'arena_check {'FAULT' if p['fault'] else 'note'}: {p['kind']}: {p['detail']}\n")
    loser = rules_loser(g)
    verdict = {s: ("draw" if loser is None else "lose" if s == loser else "win") for s in SIDES}
    ex.f.write(f"'summary:{reason}:{g['black']} {verdict['black']}:{g['white']} {verdict['white']}\n")
    ex.close()


def export_csa(directory, runs):
    count = 0
    for r in runs:
        out = Path(directory) / r["label"]
        out.mkdir(parents=True, exist_ok=True)
        for g in r["games"]:
            if g.get("rep"):
                write_csa(out / f"{g['game_name']}.csa", g, r)
                count += 1
    return count


# --------------------------------------------------------------------------
# self-test: a synthetic run with one game per check
# --------------------------------------------------------------------------
NYUGYOKU_28 = "GGGG1BBRR/2SSK4/9/9/9/9/9/9/k8 b 2P 1"   # Black: 10 pieces in camp, 26 + 2 in hand = 28
NYUGYOKU_27 = "GGGG1BBRR/2SSK4/9/9/9/9/9/9/k8 b P 1"    # one point short for Black
PERPETUAL = "8k/9/7R1/9/9/9/9/9/K8 b - 1"              # R2c-1c+ K1a-2a R1c-2c+ K2a-1a ...
SELF_TEST_GAMES = [
    # name, result, start sfen ("" = startpos), moves, per-move (ms, eval[, runner ms]) or None,
    # expected end, faults; ms is the engine's own time, the runner's is the same unless given
    ("resign", "WHITE_WIN", "", "7g7f 3c3d", [(950, 0, 1057), (500, 0)], "resign", []),
    ("illegal", "BLACK_WIN", "", "7g7f 3c3d 7g7f", None, "illegal_move", ["illegal_move"]),
    ("false-decl", "BLACK_WIN", NYUGYOKU_27, "", None, "false_declaration", ["false_declaration"]),
    ("decl", "BLACK_WIN", NYUGYOKU_28, "", None, "declaration", []),
    ("checkmate", "BLACK_WIN", "8k/9/8P/9/9/9/9/9/K8 b G 1", "G*1b", None, "checkmate", []),
    ("perpetual", "WHITE_WIN", PERPETUAL, " ".join(["2c1c 1a2a 1c2c 2a1a"] * 3), None, "perpetual_check", []),
    ("sennichite", "DRAW_BY_REPETITION", "", " ".join(["5i5h 5a5b 5h5i 5b5a"] * 3), None, "repetition", []),
    # checks in the last two cycles only: a draw (cshogi's is_draw() calls it a perpetual check)
    ("late-checks", "DRAW_BY_REPETITION", PERPETUAL, " ".join(["2c2d 1a1b 2d2c 1b1a"] + ["2c1c 1a2a 1c2c 2a1a"] * 2),
     None, "repetition", []),
    ("adjudicated", "BLACK_WIN", "", "7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 8b4b",
     [(100, 3500 if i % 2 == 0 else -3500) for i in range(8)], "resign_adjudication", []),
    ("timeout", "BLACK_WIN_BY_TIMEOUT", "", "7g7f 3c3d", [(900, 50), (1500, -40)], "timeout", []),
    ("maxplies", "DRAW_BY_MAX_PLIES", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 19",
     "7g7f 3c3d", None, "max_plies", []),
    ("crash-log", "WHITE_WIN", "", "7g7f 3c3d", None, "crash", ["crash"]),
    ("illegal-log", "WHITE_WIN", "", "2g2f 8c8d", None, "illegal_move", ["illegal_move"]),
    ("error", "ERROR", "", "", None, "error", ["error"]),
    ("failed-start", "ERROR", "", "", None, "crash", ["crash"]),
    ("runner-error", "ERROR", "", "7g7f 3c3d", None, "error", ["error"]),
    ("lag-timeout", "ERROR", "", "7g7f", [(900, 30)], "error", []),
]
SCHEMA = """
CREATE TABLE player (id INTEGER PRIMARY KEY, game_type VARCHAR(16), player_name VARCHAR(64));
CREATE TABLE game (id INTEGER PRIMARY KEY, game_type VARCHAR(16), game_name VARCHAR(128), start_date DATETIME,
  end_date DATETIME, game_result VARCHAR(64), num_moves SMALLINT, black_player_id INTEGER, white_player_id INTEGER,
  time_control_black VARCHAR(128), time_control_white VARCHAR(128), initial_position_sfen VARCHAR(144),
  end_time_ms INTEGER, end_comment TEXT, updated_date DATETIME, metadata_attributes_json TEXT);
CREATE TABLE game_move (id INTEGER PRIMARY KEY, game_id INTEGER, ply SMALLINT, next_move SMALLINT,
  next_move_time_ms INTEGER, wall_time_ms INTEGER, engine_wall_time_ms INTEGER, latency_delta_ms INTEGER,
  next_move_comment TEXT, eval SMALLINT, depth SMALLINT, seldepth SMALLINT, nodes INTEGER, move_source VARCHAR(16),
  book_hit SMALLINT);
CREATE TABLE game_timeout_attribution (id INTEGER PRIMARY KEY, game_id INTEGER, origin VARCHAR(32));
"""
SELF_TEST_CONFIG = """rules:
  time_control: {time_ms: 0, byoyomi_ms: 1000, expiry_margin_ms: 200}
  adjudication: {resign_threshold_cp: 3000, resign_move_count: 4, resign_two_sided: true,
                 enable_max_plies: true, max_plies: 20}
  repetition_occurrences_to_draw: 4
"""


def build_fixture(root):
    """A run directory like sprt.py's (OUT/run/game.db, OUT/shogiarena.log, failures) in `root`."""
    run = root / "selftest" / "run"
    (run / "inputs").mkdir(parents=True)
    (run / "failures").mkdir()
    (run / "inputs" / "config_resolved.yaml").write_text(SELF_TEST_CONFIG, encoding="utf-8")
    db = sqlite3.connect(run / "game.db")
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO player VALUES (?, 'arena', ?)", [(1, "alpha"), (2, "beta")])
    t0 = datetime.datetime(2026, 1, 1, 12, 0, 0)
    log = [f"{t0:%Y-%m-%d %H:%M:%S} [INFO]: Run directory: {run}"]
    for gid, (name, result, sfen, moves, timing, _, _) in enumerate(SELF_TEST_GAMES, 1):
        board = cshogi.Board(sfen or cshogi.STARTING_SFEN)
        ply = board.move_number - 1
        end = t0 + datetime.timedelta(minutes=gid)
        meta = {"timeout_origin": "unknown"} if name == "lag-timeout" else {}
        usis = moves.split()
        db.execute("INSERT INTO game VALUES (?, 'arena', ?, ?, ?, ?, ?, 1, 2, '0+1+0', '0+1+0', ?, NULL, NULL, ?, ?)",
                   (gid, name, str(end - datetime.timedelta(seconds=30)), str(end), result, len(usis), board.sfen(),
                    str(end), json.dumps(meta)))
        for i, usi in enumerate(usis):
            ms, ev, *wall = timing[i] if timing else (500, 0)
            db.execute("INSERT INTO game_move (game_id, ply, next_move, next_move_time_ms, wall_time_ms, eval) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (gid, ply + i, int(Move.from_usi(usi)), ms, wall[0] if wall else ms, ev))
        db.execute("INSERT INTO game_move (game_id, ply, next_move) VALUES (?, ?, ?)", (gid, ply + len(usis), MOVE_END))
        if result.endswith("_BY_TIMEOUT"):
            db.execute("INSERT INTO game_timeout_attribution (game_id, origin) VALUES (?, 'engine_deadline')", (gid,))
        if name == "crash-log":
            log.append(f"{end - datetime.timedelta(seconds=1):%Y-%m-%d %H:%M:%S} [ERROR]: Error during move by "
                       "alpha: engine process exited (code -11)")
        if name == "illegal-log":
            log.append(f"{end:%Y-%m-%d %H:%M:%S} [WARNING]: Illegal move from alpha: 2e2d")
        if name == "runner-error":
            log += [f"{end:%Y-%m-%d %H:%M:%S} [ERROR]: Game runner-error failed with unhandled error",
                    "Traceback (most recent call last):", '  File "runner.py", line 1, in run_game',
                    "RuntimeError: engine pipe closed"]
    db.commit()
    db.close()
    failures = [{"game_id": "failed-start", "failure_phase": "engine_start", "exception_class": "UsiEngineStartError",
                 "short_message": "usiok not received", "engine": "beta#white"},
                {"game_id": "never-recorded", "failure_phase": "user_interruption", "exception_class": "CancelledError",
                 "short_message": "", "scheduled_black_engine": "alpha#black", "scheduled_white_engine": "beta#white"}]
    (run / "failures" / "run_failures.json").write_text(json.dumps({"failures": failures}), encoding="utf-8")
    (run.parent / "shogiarena.log").write_text("\n".join(log) + "\n", encoding="utf-8")
    return run.parent


def self_test():
    failed, checks = [], []

    def expect(what, got, want):
        checks.append(what)
        if got != want:
            failed.append(f"{what}: got {got!r}, want {want!r}")

    with tempfile.TemporaryDirectory() as tmp:
        out = build_fixture(Path(tmp))
        r = check_run(out)
        by_name = {g["game_name"]: g for g in r["games"]}
        for name, _, _, _, _, want_end, want_faults in SELF_TEST_GAMES:
            g = by_name[name]
            expect(f"{name} ending", g["end"], want_end)
            expect(f"{name} faults", [p["kind"] for p in g["problems"] if p["fault"]], want_faults)
        il = next(p for p in by_name["illegal"]["problems"] if p["kind"] == "illegal_move")
        expect("illegal move reported", (il["ply"], il["move"], il["engine"], il["side"]),
               (3, "7g7f", "alpha", "black"))
        expect("false declaration by", by_name["false-decl"]["problems"][0]["engine"], "alpha")
        expect("failed start engine", by_name["failed-start"]["problems"][0]["engine"], "beta")
        expect("interrupted game", by_name["never-recorded"]["end"], "unfinished")
        expect("runner error from the log", by_name["runner-error"]["detail"],
               "shogiarena.log: RuntimeError: engine pipe closed")
        alpha, beta = r["engines"]["alpha"], r["engines"]["beta"]
        expect("alpha counters", [alpha[k] for k in ("illegal", "false_decl", "crash")], [2, 1, 1])
        expect("alpha runner and own times", [alpha[k] for k in ("max_ms", "own_max_ms", "over")], [1057, 950, 1])
        expect("beta counters", [beta[k] for k in ("time", "crash", "max_ms", "over")], [1, 1, 1500, 1])
        expect("faults", r["faults"], 7)
        n = export_csa(Path(tmp) / "csa", [r])
        expect("CSA records", n, len(SELF_TEST_GAMES))
        for name, want in (("timeout", (1, cshogi.BLACK_WIN)), ("false-decl", (0, cshogi.WHITE_WIN)),
                           ("perpetual", (12, cshogi.WHITE_WIN)), ("checkmate", (1, cshogi.BLACK_WIN))):
            parsed = CSA.Parser.parse_file(str(Path(tmp) / "csa" / "selftest" / f"{name}.csa"))[0]
            expect(f"{name} CSA moves/winner", (len(parsed.moves), parsed.win), want)
        write_json(Path(tmp) / "check.json", [r], r["faults"])
        expect("JSON faults", json.loads((Path(tmp) / "check.json").read_text())["faults"], 7)
    for f in failed:
        print("FAIL " + f)
    print(f"self-test: {len(checks) - len(failed)}/{len(checks)} checks passed")
    return 1 if failed else 0


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (head scripts/arena_check.py) for details.")
    ap.add_argument("paths", nargs="*", help="sprt.py OUT dirs, OUT/run dirs or game.db files")
    ap.add_argument("--json", metavar="FILE", help="write everything (runs, engines, games, moves) as JSON")
    ap.add_argument("--csa", metavar="DIR", help="write one CSA record per game to DIR/<run>/<game>.csa")
    ap.add_argument("--list", action="store_true", help="print one line per game")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on any crash, illegal move, false declaration, runner error or unexplained result")
    ap.add_argument("--self-test", action="store_true", help="check a synthetic run built in a temp dir")
    args = ap.parse_args()
    if args.self_test:
        sys.exit(self_test())
    if not args.paths:
        ap.error("give at least one run (or --self-test)")
    runs = [check_run(p) for p in args.paths]
    for r in runs:
        print_run(r, args.list)
    faults = sum(r["faults"] for r in runs)
    games = sum(len(r["games"]) for r in runs)
    print(f"arena_check: {len(runs)} run(s), {games} games, {faults} fault(s)")
    if args.json:
        write_json(args.json, runs, faults)
    if args.csa:
        print(f"CSA: {export_csa(args.csa, runs)} records in {args.csa}")
    if args.strict and faults:
        sys.exit(1)


if __name__ == "__main__":
    main()
