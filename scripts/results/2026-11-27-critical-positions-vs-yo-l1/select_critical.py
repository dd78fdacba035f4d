#!/usr/bin/env python3
"""Critical positions from shogiarena runs of Kaname against YaneuraOu (as run 2026-11-27):

    python3 select_critical.py --mover kaname --out positions.json RUN_DIR [RUN_DIR ...]
    python3 select_critical.py --mover yo --out positions.json RUN_DIR [RUN_DIR ...]

A position before a move of `--mover` after which the other engine's reported score rose by 250
or more over its score two plies earlier, while the mover's own score had not fallen by 100
since its previous move; all four scores within 1200. Kaname is the engine whose name starts
with `kaname`. Needs rsshogi (shogiarena's) for the stored move encoding.
"""
import argparse
import json
import re
import sqlite3

from rsshogi.core import Move


def critical(run, mover):
    c = sqlite3.connect(f"file:{run}/run/game.db?mode=ro", uri=True)
    for gid, meta, sfen in c.execute("select id, metadata_attributes_json, initial_position_sfen from game"):
        names = re.findall(r'engine_name\\\\?": \\\\?"([^"\\\\]+)', meta)
        roles = re.findall(r'role\\\\?": \\\\?"(black|white)', meta)
        kaname_black = dict(zip(roles, names)).get("black", "").startswith("kaname")
        mover_is_black = kaname_black if mover == "kaname" else not kaname_black
        rows = list(c.execute("select ply, next_move, eval from game_move where game_id=? order by ply", (gid,)))
        ms = [Move(m).to_usi() if m is not None else None for _, m, _ in rows]
        first_black = sfen.split()[1] == "b"
        for i in range(2, len(rows) - 1):
            if ms[i] is None or ms[i + 1] is None or ((i % 2 == 0) == first_black) != mover_is_black:
                continue
            own, own_before = rows[i][2], rows[i - 2][2]
            other, other_before = rows[i + 1][2], rows[i - 1][2]
            scores = (own, own_before, other, other_before)
            if None in scores or max(map(abs, scores)) > 1200:
                continue
            if other - other_before >= 250 and own - own_before > -100:
                yield dict(run=run, game=gid, idx=i, pos=f"{sfen} moves {' '.join(ms[:i])}", played=ms[i],
                           reply=ms[i + 1], eK=own, eK0=own_before, eY=other, eY0=other_before)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mover", choices=("kaname", "yo"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    out = [p for run in args.runs for p in critical(run, args.mover)]
    with open(args.out, "w") as f:
        json.dump(out, f, indent=0)
    print(len(out))


if __name__ == "__main__":
    main()
