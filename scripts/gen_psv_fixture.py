#!/usr/bin/env python3
"""Generate tests/data/psv_fixture.txt: YaneuraOu PackedSfen / move16 reference data from cshogi.

Source: cshogi (PyPI; its version is written into the output header; generated with 1.1.0),
whose Board.to_psfen / set_psfen implement YaneuraOu's PackedSfen and whose move16_to_psv
converts cshogi's own 16-bit move into YaneuraOu's move16 (the one PSV records store).

Positions: random playouts from the hirate start, up to 200 plies, the move choice weighted
towards captures (x4) and drops (x2) so hands fill up and promoted pieces appear. One position
in three along each playout is kept (plus the start), until --count positions; duplicates are
skipped. Deterministic: random.Random(--seed), default 20261123.

Line format (tab-separated), one position per line:
    <packed sfen, 64 hex digits> <sfen cshogi decodes from it> <move16 of a legal move, hex>
    <that move in USI>
"""
import argparse
import random

import cshogi
import numpy as np


def psv_move16(board, move):
    return cshogi.move16_to_psv(cshogi.move16(move))


def packed(board):
    buf = np.zeros(1, dtype=cshogi.PackedSfen)
    board.to_psfen(buf)
    return buf.tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--out", default="tests/data/psv_fixture.txt")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seen = set()
    lines = []
    while len(lines) < args.count:
        board = cshogi.Board()
        for ply in range(200):
            moves = list(board.legal_moves)
            if not moves or len(lines) >= args.count:
                break
            sfen = " ".join(board.sfen().split()[:3])
            if ply % 3 == 0 and sfen not in seen:
                seen.add(sfen)
                data = packed(board)
                check = cshogi.Board()
                check.set_psfen(np.frombuffer(data, dtype=np.uint8))
                decoded = " ".join(check.sfen().split()[:3])
                assert decoded == sfen, (decoded, sfen)
                m = rng.choice(moves)
                lines.append(f"{data.hex()}\t{decoded}\t{psv_move16(board, m):04x}\t{cshogi.move_to_usi(m)}")
            weights = [
                (4 if board.piece(cshogi.move_to(m)) else 1) * (2 if cshogi.move_is_drop(m) else 1) for m in moves
            ]
            board.push(rng.choices(moves, weights)[0])
    with open(args.out, "w") as f:
        f.write(f"# psv fixture: cshogi {cshogi.__version__ if hasattr(cshogi, '__version__') else '1.1.0'}, "
                f"seed {args.seed}, {len(lines)} positions; see scripts/gen_psv_fixture.py\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
