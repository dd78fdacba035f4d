#!/usr/bin/env python3
"""The openings of a match schedule that a run stopped part-way has not played yet, as an
openings file for the run that finishes it:

    python3 scripts/remaining_openings.py REFERENCE/games.txt PLAYED/games.txt [...] > rest.txt
    python3 scripts/sprt.py ... --openings rest.txt --games 2N --seed S --out OUT_B

REFERENCE is the `games.txt` (`scripts/arena_games.py`) of a finished run with the same
`--seed` and `--games`, so the same schedule (shogiarena draws it from the seed alone, game
for game), or the `schedule.json` shogiarena writes in a run directory as a run starts: a run
of the same configuration started and stopped at once gives the whole schedule without a
game played; PLAYED are those of the stopped parts. Prints the start position of each pair of the
reference that the parts have not played, in the reference's order, as a bare SFEN (a line
`sprt.py --openings` reads as is); N is the number of lines. With `--games 2N` the new run
plays every line with both colours (selection without replacement uses them all, whatever its
seed), so the parts together play the reference's openings and colours, and
`scripts/paired_games.py --by-position` pairs them with the reference game for game.

Why: a run is resumed only on the machine that holds its directory. On a new machine, playing
the same seed again would repeat the openings already played, and another seed would draw
openings at random, some of them again (3 of 12 in 2026-11-28's Fairy-Stockfish run b).

An opening played with only one colour (a run stopped mid-pair) is listed on stderr and left
out, since a new run would play it twice. A position the schedule plays in two pairs (two lines
of the openings file can reach it) is listed once for each pair left. `--self-test` checks the
selection.
"""
import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import game_line  # noqa: E402


def start_positions(lines):
    """The start position of each game line of a `games.txt`, in order: the SFEN after
    `position sfen` (the `moves` after it are the game's; `sprt.game_line`)."""
    return [g[4] for g in map(game_line, lines) if g]


def schedule_positions(text):
    """The start position of each game of a shogiarena `schedule.json`, in its order."""
    import json
    return [g["sfen"] for g in json.loads(text)["games"]]


def read_reference(path):
    """`start_positions` of a games.txt, or `schedule_positions` of a schedule.json."""
    text = open(path, encoding="utf-8").read()
    if path.endswith(".json"):
        return schedule_positions(text)
    return start_positions(text.splitlines())


def remaining(reference, played):
    """(the pairs of `reference` that `played` has not played, as one start position per pair in
    the reference's order; openings of `played` seen an odd number of times). Both are lists from
    `start_positions`. Counted per position, not per opening line: two lines of an openings file
    can reach the same position, and then the schedule plays it twice (four games)."""
    done = Counter(played)
    half = [sfen for sfen, n in done.items() if n % 2]
    already = {sfen: n // 2 for sfen, n in done.items()}  # pairs played, skipped first
    rest, seen = [], Counter()
    for sfen in reference:
        seen[sfen] += 1
        if seen[sfen] % 2:
            continue  # a pair's first game; the pair is its second
        if already.get(sfen, 0):
            already[sfen] -= 1
        elif done[sfen] % 2 == 0:
            rest.append(sfen)
    return rest, half


def self_test():
    def game(n, black, white, sfen):
        return f"g{n:04d}-x {black} {white} BLACK_WIN 9 position sfen {sfen} moves 7g7f 3c3d"

    a, b, c = ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
               "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
               "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")
    ref = start_positions([game(1, "k", "y", a), game(2, "y", "k", a), game(3, "k", "y", b),
                           game(4, "y", "k", b), game(5, "k", "y", c), game(6, "y", "k", c),
                           "not a game line"])
    assert ref == [a, a, b, b, c, c], ref
    played = start_positions([game(1, "k", "y", a), game(2, "y", "k", a)])
    assert remaining(ref, played) == ([b, c], []), remaining(ref, played)
    # Stopped mid-pair: c was played as Black only, so it is reported, not listed.
    played += start_positions([game(3, "k", "y", c)])
    assert remaining(ref, played) == ([b], [c]), remaining(ref, played)
    assert remaining(ref, []) == ([a, b, c], [])
    # A position the schedule plays in two pairs is listed once for each pair not yet played.
    ref += start_positions([game(7, "k", "y", b), game(8, "y", "k", b)])
    assert remaining(ref, played[:2]) == ([b, c, b], []), remaining(ref, played[:2])
    played = start_positions([game(3, "k", "y", b), game(4, "y", "k", b)])
    assert remaining(ref, played) == ([a, c, b], []), remaining(ref, played)
    # A schedule.json gives the same reference as the games.txt of its run.
    import json
    sched = {"kind": "x", "games": [{"game_id": f"g{i + 1:04d}-x", "black": "k", "white": "y", "sfen": s}
                                    for i, s in enumerate([a, a, b, b, c, c])]}
    assert schedule_positions(json.dumps(sched)) == [a, a, b, b, c, c]
    print("remaining_openings self-test: 8 checks passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reference", nargs="?",
                    help="games.txt of a finished run with the same schedule, or its schedule.json")
    ap.add_argument("played", nargs="*", help="games.txt of the parts already played")
    ap.add_argument("--self-test", action="store_true", help="check the selection and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.reference or not args.played:
        ap.error("need REFERENCE and at least one PLAYED games.txt")
    reference = read_reference(args.reference)
    played = []
    for path in args.played:
        played += start_positions(open(path, encoding="utf-8"))
    rest, half = remaining(reference, played)
    for sfen in half:
        print(f"played with one colour only, left out: {sfen}", file=sys.stderr)
    print(f"{len(rest)} of {len(reference) // 2} pairs left ({len(played)} games played): "
          f"--games {2 * len(rest)}", file=sys.stderr)
    for sfen in rest:
        print(sfen)


if __name__ == "__main__":
    main()
