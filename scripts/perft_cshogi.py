#!/usr/bin/env python3
"""Perft benchmark on cshogi (PyPI), for comparing speed against our engine.

Usage: python scripts/perft_cshogi.py <depth> [sfen]

Counts leaf nodes with bulk counting of the last ply: at depth-1 nodes the
number of legal moves is taken as len(board.legal_moves) (computed in C++)
without pushing them. Prints "Nodes searched: N", elapsed seconds and nodes/s.
Deterministic (no randomness). Default position is the hirate start.
"""
import argparse
import time

import cshogi

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def perft(board, depth):
    """Leaf count at `depth` (>= 1) with bulk counting at the last ply."""
    if depth == 1:
        return len(board.legal_moves)
    push, pop = board.push, board.pop
    total = 0
    if depth == 2:
        for m in board.legal_moves:
            push(m)
            total += len(board.legal_moves)
            pop()
        return total
    for m in board.legal_moves:
        push(m)
        total += perft(board, depth - 1)
        pop()
    return total


def main():
    ap = argparse.ArgumentParser(description="perft with cshogi")
    ap.add_argument("depth", type=int)
    ap.add_argument("sfen", nargs="*", help="SFEN (may be given as several words)")
    args = ap.parse_args()
    sfen = " ".join(args.sfen) if args.sfen else STARTPOS
    if sfen.startswith("sfen "):
        sfen = sfen[5:]
    if sfen == "startpos":
        sfen = STARTPOS
    board = cshogi.Board(sfen)
    t0 = time.perf_counter()
    nodes = perft(board, args.depth) if args.depth > 0 else 1
    dt = time.perf_counter() - t0
    print(f"Nodes searched: {nodes}")
    print(f"Time: {dt:.3f} s")
    print(f"Nodes/s: {nodes / dt if dt > 0 else 0:.0f}")


if __name__ == "__main__":
    main()
