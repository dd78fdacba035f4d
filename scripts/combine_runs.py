#!/usr/bin/env python3
"""One result over several shogiarena runs of the same pairing (a match played in parts, e.g.
across sessions with different --seed), as scripts/sprt.py reports a single run:

    python3 scripts/combine_runs.py --cand-name nn-003 RUN_A RUN_B [...]

Each RUN is a shogiarena run directory (sprt.py's OUT/run, or a results directory holding its
game.db), or the `games.txt` of one (`scripts/arena_games.py`): a part played on a machine
that is gone survives only as that, in `scripts/results/`. Prints per run and in total the
result counts, the candidate's W-L-D, score and Elo with its 95% interval from the game scores,
and the pentanomial counts with the Elo of the pair scores (pairs are the two colours of one
opening, kept within their run: by the schedule's pair key in a game.db, by the start position
in a games.txt, whose games of one position pair up in their order). Games that ended without
a result (errors) are counted apart and left out of the scores. `--self-test` checks the
games.txt reading and the tally.
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import cand_points, elo_interval, game_line, read_games  # noqa: E402


def tally(games):
    """(result counts, scores, pair scores, pentanomial) of `read_games` rows."""
    reasons, scores, pairs = {}, [], {}
    for key, score, result in games:
        reasons[result] = reasons.get(result, 0) + 1
        if score is None:
            continue
        scores.append(score)
        if key is not None:
            pairs.setdefault(key, []).append(score)
    penta, pair_scores = [0] * 5, []
    for ss in pairs.values():
        for i in range(0, len(ss) - 1, 2):
            total = ss[i] + ss[i + 1]
            penta[round(total * 2)] += 1
            pair_scores.append(total / 2)
    return reasons, scores, pair_scores, penta


def read_games_txt(path, cand):
    """`read_games` rows from a `games.txt` (`sprt.game_line`); the pair key is the start
    position."""
    games, players = [], set()
    for name, black, white, result, sfen in filter(None, map(game_line, open(path, encoding="utf-8"))):
        players.update((black, white))
        games.append((sfen, cand_points(result, black, cand), result))
    if games and cand not in players:
        raise SystemExit(f"{path}: no player named {cand!r} (players: {', '.join(sorted(players))})")
    return games


def self_test():
    import tempfile
    a = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    b = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    lines = [f"g0001-x k o BLACK_WIN 90 position sfen {a} moves 7g7f",
             f"g0003-x k o DRAW_BY_REPETITION 80 position sfen {b} moves 3c3d",
             f"g0002-x o k BLACK_WIN 95 position sfen {a} moves 7g7f",
             f"g0004-x o k WHITE_WIN 70 position sfen {b} moves 3c3d",
             f"g0005-x k o ERROR 3 position sfen {a} moves 7g7f",
             "not a game line"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    games = read_games_txt(f.name, "k")
    Path(f.name).unlink()
    assert [g[1] for g in games] == [1.0, 0.5, 0.0, 1.0, None], games
    reasons, scores, pair_scores, penta = tally(games)
    # a: won with Black, lost with White (1 point, WL); b: drew, won (1.5, WD); the error
    # is a result count, not a score, and leaves a's pair as it was.
    assert penta == [0, 0, 1, 1, 0] and sorted(pair_scores) == [0.5, 0.75], (penta, pair_scores)
    assert reasons["ERROR"] == 1 and len(scores) == 4, reasons
    line = describe("T", games)[1]
    assert "W-L-D 2-1-1" in line and "62.5%" in line, line
    # A candidate the games do not name is refused, not scored as White.
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(lines[0] + "\n")
    try:
        read_games_txt(f.name, "nobody")
        raise AssertionError("an unknown candidate was accepted")
    except SystemExit:
        pass
    finally:
        Path(f.name).unlink()
    print("combine_runs self-test: 5 checks passed")


def describe(name, games):
    reasons, scores, pair_scores, penta = tally(games)
    w = sum(1 for s in scores if s == 1.0)
    l = sum(1 for s in scores if s == 0.0)
    d = sum(1 for s in scores if s == 0.5)
    lines = [f"{name}: result counts {json.dumps(reasons, sort_keys=True)}"]
    if scores:
        elo, err = elo_interval(scores)
        line = (f"{name}: games={len(scores)} cand W-L-D {w}-{l}-{d} score {100 * sum(scores) / len(scores):.1f}%"
                f" Elo {elo:+.1f} +/- {err:.1f} (95%)")
        if pair_scores:
            pelo, perr = elo_interval(pair_scores)
            line += f" | pentanomial {penta} Elo {pelo:+.1f} +/- {perr:.1f} ({len(pair_scores)} pairs)"
        lines.append(line)
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cand-name", help="the candidate's player name in the runs (required)")
    ap.add_argument("runs", nargs="*", help="shogiarena run directories (each with game.db) or games.txt files")
    ap.add_argument("--self-test", action="store_true", help="check the games.txt reading and the tally, and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.runs or not args.cand_name:
        ap.error("need --cand-name and at least one RUN")
    everything = []
    for i, run in enumerate(args.runs):
        run = Path(run)
        if run.is_file():
            rows = read_games_txt(run, args.cand_name)
        elif (run / "game.db").exists():
            rows = read_games(run, args.cand_name)
        else:
            raise SystemExit(f"{run}: no game.db")
        # Pair keys are per run: a key names an opening slot of its own schedule.
        games = [((i, key) if key is not None else None, score, result) for key, score, result in rows]
        print("\n".join(describe(str(run), games)))
        everything += games
    print("\n".join(describe("TOTAL", everything)))


if __name__ == "__main__":
    main()
