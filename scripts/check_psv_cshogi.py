#!/usr/bin/env python3
"""Checks that a PackedSfenValue file written by `kaname gensfen` reads the same in cshogi
(the independent reader, PyPI `cshogi`) as in Kaname (`kaname psv-dump`): for every record the
position (board, hands, side to move), the best move, the score, the ply and the result.

    python3 scripts/check_psv_cshogi.py FILE [--kaname target/release/kaname] [--limit N]

Exit status 0 when every record agrees; the first disagreements are printed otherwise."""
import argparse
import subprocess
import sys

import cshogi
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--kaname", default="target/release/kaname")
    ap.add_argument("--limit", type=int, default=0, help="records to check (0 = all)")
    a = ap.parse_args()
    recs = np.fromfile(a.file, dtype=cshogi.PackedSfenValue)
    if a.limit:
        recs = recs[: a.limit]
    args = [a.kaname, "psv-dump", a.file] + ([str(a.limit)] if a.limit else [])
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    if len(lines) != len(recs):
        sys.exit(f"kaname read {len(lines)} records, cshogi {len(recs)}")
    board = cshogi.Board()
    bad = 0
    for i, (rec, line) in enumerate(zip(recs, lines)):
        f = line.split()
        k_sfen = " ".join(f[1:5])
        k_move, k_score, k_ply, k_result = f[6], int(f[8]), int(f[10]), int(f[12])
        board.set_psfen(rec["sfen"])
        c_sfen = board.sfen()
        move = board.move_from_psv(int(rec["move"]))
        c_move = cshogi.move_to_usi(move) if board.is_legal(move) else "none"
        # Compare board, side and hands; the move number comes from the record's ply.
        same = (c_sfen.split()[:3] == k_sfen.split()[:3] and c_move == k_move and int(rec["score"]) == k_score
                and int(rec["gamePly"]) == k_ply and int(rec["game_result"]) == k_result)
        if not same:
            bad += 1
            if bad <= 5:
                print(f"record {i}: cshogi {c_sfen} {c_move} {rec['score']} | kaname {line}")
    print(f"{len(recs)} records, {len(recs) - bad} agree, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
