#!/usr/bin/env python3
"""One result over several shogiarena runs of the same pairing (a match played in parts, e.g.
across sessions with different --seed), as scripts/sprt.py reports a single run:

    python3 scripts/combine_runs.py --cand-name nn-003 RUN_A RUN_B [...]

Each RUN is a shogiarena run directory (sprt.py's OUT/run, or a results directory holding its
game.db). Prints per run and in total the result counts, the candidate's W-L-D, score and Elo
with its 95% interval from the game scores, and the pentanomial counts with the Elo of the
pair scores (pairs are the two colours of one opening, kept within their run). Games that
ended without a result (errors) are counted apart and left out of the scores.
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import elo_interval, read_games  # noqa: E402


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
    ap.add_argument("--cand-name", required=True, help="the candidate's player name in the runs")
    ap.add_argument("runs", nargs="+", help="shogiarena run directories (each with game.db)")
    args = ap.parse_args()
    everything = []
    for i, run in enumerate(args.runs):
        run = Path(run)
        if not (run / "game.db").exists():
            raise SystemExit(f"{run}: no game.db")
        # Pair keys are per run: a key names an opening slot of its own schedule.
        games = [((i, key) if key is not None else None, score, result)
                 for key, score, result in read_games(run, args.cand_name)]
        print("\n".join(describe(str(run), games)))
        everything += games
    print("\n".join(describe("TOTAL", everything)))


if __name__ == "__main__":
    main()
