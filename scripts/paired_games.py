#!/usr/bin/env python3
"""Compares two Kaname builds game by game: each played the same schedule (the same `--seed` and
the same `--games` of `scripts/sprt.py`, so the same openings and colours; shogiarena draws a
different schedule for another number of games, so a shorter comparison run is one with the same
`--games`, stopped early) against the same opponent.

    python3 scripts/paired_games.py A/games.txt NAME_A B/games.txt NAME_B

The inputs are `games.txt` files (`scripts/arena_games.py`); NAME_A and NAME_B are the builds'
player names in them (`--cand-name`). Games are paired by their number (`gNNNN` in the game
name), and a pair counts only when both games start from the same position with the build on
the same side; any other pair is reported as mismatched and left out. `--by-position` pairs
them by start position and side instead, for a run played in parts whose game numbers restart
(`scripts/remaining_openings.py`): give B as the parts' `games.txt` concatenated. Prints both
builds' points on the paired games, how many games B did better and worse, B's mean gain a game
with its standard error, and a two-sided sign test over the games that differ.

Why paired: two 200-game matches against one opponent each carry about +/- 0.07 of score noise;
games from the same opening that end the same way cancel. How many do depends on the limit: at
a node limit both searches are deterministic and most games repeat, but at byoyomi 200 two runs
of the same build ended differently in 67 of 132 games (2026-11-27), so there pairing narrows the
comparison only a little.
"""
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import cand_points, game_line  # noqa: E402


def load(path, name, by_position=False):
    """`{game number: (points for name, name's colour, start position)}`; with `by_position` the
    key is `(start position, name's colour, occurrence)` instead, the occurrence counting the
    games from that position with that colour in the file's order."""
    games, seen = {}, {}
    for game, black, white, result, start in filter(None, map(game_line, open(path))):
        number = game.split("-")[0]
        if name not in (black, white):
            raise SystemExit(f"{path}: {game} has no player {name!r} ({black} vs {white})")
        colour = "b" if black == name else "w"
        points = cand_points(result, black, name)
        if points is None:
            continue  # unfinished or unknown: not a result
        if by_position:
            seen[(start, colour)] = seen.get((start, colour), 0) + 1
            number = (start, colour, seen[(start, colour)])
        games[number] = (points, colour, start)
    return games


def sign_test(better, worse):
    """Two-sided binomial p-value of `better` against `worse` at even odds."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare(a, b):
    """The paired figures of `b` against `a` (dicts from `load`)."""
    paired, mismatched = [], 0
    for number in sorted(set(a) & set(b)):
        (pa, ca, sa), (pb, cb, sb) = a[number], b[number]
        if ca != cb or sa != sb:
            mismatched += 1
            continue
        paired.append((pa, pb))
    n = len(paired)
    diffs = [pb - pa for pa, pb in paired]
    mean = sum(diffs) / n if n else 0.0
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    better = sum(d > 0 for d in diffs)
    worse = sum(d < 0 for d in diffs)
    return {
        "paired": n,
        "mismatched": mismatched,
        "points_a": sum(pa for pa, _ in paired),
        "points_b": sum(pb for _, pb in paired),
        "better": better,
        "worse": worse,
        "mean_gain": mean,
        "stderr": math.sqrt(var / n) if n > 1 else 0.0,
        "sign_p": sign_test(better, worse),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games_a")
    ap.add_argument("name_a")
    ap.add_argument("games_b")
    ap.add_argument("name_b")
    ap.add_argument("--by-position", action="store_true",
                    help="pair games by start position and colour, not by number (a run"
                         " played in parts: scripts/remaining_openings.py; concatenate the"
                         " parts' games.txt)")
    args = ap.parse_args()
    a = load(args.games_a, args.name_a, args.by_position)
    b = load(args.games_b, args.name_b, args.by_position)
    r = compare(a, b)
    if r["paired"] == 0:
        sys.exit("no paired games: not the same schedule?")
    n = r["paired"]
    print(
        f"paired games {n} (mismatched, left out: {r['mismatched']})\n"
        f"{args.name_a}: {r['points_a']:g} points ({100 * r['points_a'] / n:.1f}%)\n"
        f"{args.name_b}: {r['points_b']:g} points ({100 * r['points_b'] / n:.1f}%)\n"
        f"{args.name_b} better in {r['better']} games, worse in {r['worse']} (sign test p = {r['sign_p']:.3f})\n"
        f"mean gain a game {r['mean_gain']:+.3f} +/- {r['stderr']:.3f} (standard error)"
    )


if __name__ == "__main__":
    main()
