#!/usr/bin/env python3
"""Generate tests/data/legal_moves.txt: legal-move reference data from cshogi.

Source: cshogi (PyPI, version printed in the output header; generated with 1.1.0).
Positions: random playouts (up to --max-plies plies, or until no legal move)
from the hirate start and the ten standard handicap starts. The move choice is
weighted to favour captures (x8), checks (x3), promotions (x2) and drops (a
per-playout weight from --drop-weights, default 4/1/0.1/0.01, so some games
drop eagerly and others hoard big hands). Along the way we keep:
  * sampled positions (prob --sample per ply, 0.5 when in check),
  * every position with no legal move (end of playout),
  * every position where a pawn drop in front of the enemy king is barred
    only by uchifuzume (pawn-drop mate), and the position after cshogi's
    mate_move_in_1ply from each kept position,
  * children (one ply off the playout) that are double checks, and children
    with an uchifuzume-barred drop (probes, see --double-check-probe and
    --sibling-probe).
Duplicates (SFEN without move number) are skipped.
Deterministic: random.Random(--seed), default seed 20240601.

Line format (tab-separated):
    <sfen with move number> <number of legal moves> <legal moves in USI, sorted, space-separated>
The legal moves come from cshogi's Board.legal_moves, which includes the
optional non-promotions (e.g. both 2d2c and 2d2c+), checked at start-up.

Checkers are counted with an independent Python attack function below
(cshogi exposes no checkers() accessor).
"""
import argparse
import random
import sys

import cshogi

STARTS = {
    "hirate": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lance": "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "right-lance": "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "bishop": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook": "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook-lance": "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2-piece": "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "4-piece": "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "6-piece": "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "8-piece": "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "10-piece": "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}

# --- independent attack test (square = file_index*9 + rank_index, 0 = "1a") ---
GOLD_STEPS = [(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1)]
STEPS = {  # piece type -> steps for black (forward = rank index - 1)
    cshogi.PAWN: [(0, -1)],
    cshogi.KNIGHT: [(1, -2), (-1, -2)],
    cshogi.SILVER: [(0, -1), (1, -1), (-1, -1), (1, 1), (-1, 1)],
    cshogi.GOLD: GOLD_STEPS,
    cshogi.KING: [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr],
    cshogi.PROM_PAWN: GOLD_STEPS, cshogi.PROM_LANCE: GOLD_STEPS,
    cshogi.PROM_KNIGHT: GOLD_STEPS, cshogi.PROM_SILVER: GOLD_STEPS,
    cshogi.PROM_BISHOP: [(0, 1), (0, -1), (1, 0), (-1, 0)],
    cshogi.PROM_ROOK: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
}
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
ORTHO = [(0, 1), (0, -1), (1, 0), (-1, 0)]
SLIDES = {
    cshogi.LANCE: [(0, -1)], cshogi.BISHOP: DIAG, cshogi.ROOK: ORTHO,
    cshogi.PROM_BISHOP: DIAG, cshogi.PROM_ROOK: ORTHO,
}


def attacks(pieces, sq, target):
    """Does the piece on sq attack square target?"""
    p = pieces[sq]
    color, pt = (p >> 4), p & 15
    sign = 1 if color == cshogi.BLACK else -1
    f, r = divmod(sq, 9)
    tf, tr = divmod(target, 9)
    for df, dr in STEPS.get(pt, []):
        if (f + df, r + dr * sign) == (tf, tr):
            return True
    for df, dr in SLIDES.get(pt, []):
        dr *= sign
        x, y = f + df, r + dr
        while 0 <= x < 9 and 0 <= y < 9:
            if (x, y) == (tf, tr):
                return True
            if pieces[x * 9 + y]:
                break
            x, y = x + df, y + dr
    return False


def checkers(board, color=None):
    """Number of pieces giving check to `color` (default: side to move)."""
    color = board.turn if color is None else color
    pieces = board.pieces
    ksq = board.king_square(color)
    return sum(1 for sq in range(81)
               if pieces[sq] and (pieces[sq] >> 4) != color and attacks(pieces, sq, ksq))


def pawn_drop_mate_excluded(board, legal):
    """True if a pawn drop in front of the enemy king is barred only by uchifuzume."""
    us = board.turn
    if board.pieces_in_hand[us][cshogi.HPAWN] == 0:
        return False
    ksq = board.king_square(1 - us)
    f, r = divmod(ksq, 9)
    r += 1 if us == cshogi.BLACK else -1
    if not 0 <= r < 9:
        return False
    to = f * 9 + r
    pieces = board.pieces
    own_pawn = cshogi.BPAWN if us == cshogi.BLACK else cshogi.WPAWN
    if pieces[to] or any(pieces[f * 9 + y] == own_pawn for y in range(9)):
        return False  # occupied, or nifu
    move = board.drop_move(to, cshogi.PAWN)
    if move in legal:
        return False
    board.push(move)
    mated = checkers(board, 1 - board.turn) == 0 and len(board.legal_moves) == 0
    board.pop()
    return mated


def hand_size(board):
    return sum(sum(h) for h in board.pieces_in_hand)


def forced_promotion(legal):
    """Some pawn/lance/knight move in the legal list is forced to promote."""
    for m in legal:
        if cshogi.move_is_promotion(m) and not cshogi.move_is_drop(m):
            pt = cshogi.move_from_piece_type(m)
            if pt in (cshogi.PAWN, cshogi.LANCE, cshogi.KNIGHT):
                if m & ~(1 << 14) not in legal:
                    return True
    return False


def check_non_promotions():
    """cshogi's legal_moves must include optional non-promotions."""
    cases = {
        "4k4/9/9/7P1/9/9/9/9/4K4 b - 1": ["2d2c", "2d2c+"],
        "4k4/9/9/9/9/9/9/1B5R1/4K4 b - 1": ["2h2b", "2h2b+", "8h3c", "8h3c+"],
        "4k4/9/9/6L2/9/9/9/9/4K4 b - 1": ["3d3b", "3d3b+", "3d3a+"],
    }
    for sfen, must in cases.items():
        usi = {cshogi.move_to_usi(m) for m in cshogi.Board(sfen).legal_moves}
        missing = [m for m in must if m not in usi]
        assert not missing, f"cshogi omits {missing} in {sfen}"
    usi = {cshogi.move_to_usi(m) for m in cshogi.Board("4k4/7P1/9/9/9/9/9/9/4K4 b - 1").legal_moves}
    assert "2b2a" not in usi and "2b2a+" in usi


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--max-plies", type=int, default=250)
    ap.add_argument("--sample", type=float, default=0.12, help="sampling prob per ply")
    ap.add_argument("--drop-weights", type=float, nargs="+", default=[4, 1, 0.1, 0.01],
                    help="drop weight, chosen per playout")
    ap.add_argument("--double-check-probe", type=float, default=1.0,
                    help="prob per ply of looking for a double-checking child")
    ap.add_argument("--sibling-probe", type=float, default=0.2,
                    help="prob per ply of looking for a child with an uchifuzume-barred drop")
    ap.add_argument("--out", default="tests/data/legal_moves.txt")
    args = ap.parse_args()
    check_non_promotions()
    rng = random.Random(args.seed)
    seen = {}   # sfen without move number -> line
    stats = dict(check=0, double_check=0, no_moves=0, mate=0, pawn_drop_mate=0,
                 forced_promotion=0, hand_ge_10=0, hand_ge_20=0, playouts=0)
    hand_total = 0
    max_moves = (0, "")
    names = list(STARTS)

    def record(board):
        nonlocal hand_total, max_moves
        sfen = board.sfen()
        key = sfen.rsplit(" ", 1)[0]
        if key in seen:
            return
        legal = list(board.legal_moves)
        usi = sorted(cshogi.move_to_usi(m) for m in legal)
        seen[key] = f"{sfen}\t{len(usi)}\t{' '.join(usi)}"
        nchk = checkers(board)
        assert (nchk > 0) == board.is_check()
        stats["check"] += nchk > 0
        stats["double_check"] += nchk > 1
        stats["no_moves"] += not legal
        stats["mate"] += (not legal) and nchk > 0
        legal_set = set(legal)
        stats["pawn_drop_mate"] += pawn_drop_mate_excluded(board, legal_set)
        stats["forced_promotion"] += forced_promotion(legal_set)
        h = hand_size(board)
        hand_total += h
        stats["hand_ge_10"] += h >= 10
        stats["hand_ge_20"] += h >= 20
        if len(legal) > max_moves[0]:
            max_moves = (len(legal), sfen)

    while len(seen) < args.positions:
        stats["playouts"] += 1
        board = cshogi.Board(STARTS[names[stats["playouts"] % len(names)]])
        # per-playout drop weight: some games drop eagerly, others hoard pieces
        drop_w = rng.choice(args.drop_weights)
        for _ in range(args.max_plies):
            legal = list(board.legal_moves)
            if not legal:
                record(board)
                break
            if (rng.random() < (0.5 if board.is_check() else args.sample)
                    or pawn_drop_mate_excluded(board, set(legal))):
                record(board)
                # cshogi's mate_move_in_1ply ignores a check against the mover: ask only when
                # not in check, or it returns moves that leave the own king attacked.
                mv = 0 if board.is_check() else board.mate_move_in_1ply()
                if mv:  # also keep the mated position
                    board.push(mv)
                    record(board)
                    board.pop()
            if rng.random() < args.double_check_probe:
                for mv in board.check_moves:  # keep double-check children
                    board.push(mv)
                    if checkers(board) > 1:
                        record(board)
                    board.pop()
            if rng.random() < args.sibling_probe:
                for mv in legal:  # keep a child where uchifuzume bars a pawn drop
                    board.push(mv)
                    found = pawn_drop_mate_excluded(board, set(board.legal_moves))
                    if found:
                        record(board)
                    board.pop()
                    if found:
                        break
            checks = set(board.check_moves)
            weights = []
            for m in legal:
                w = 1.0
                if cshogi.move_cap(m):
                    w *= 8
                if cshogi.move_is_drop(m):
                    w *= drop_w
                if m in checks:
                    w *= 3
                if cshogi.move_is_promotion(m):
                    w *= 2
                weights.append(w)
            board.push(rng.choices(legal, weights)[0])

    lines = list(seen.values())
    n = len(lines)
    summary = [
        f"positions: {n} (from {stats['playouts']} playouts)",
        f"in check: {stats['check']}, double check: {stats['double_check']}",
        f"zero legal moves: {stats['no_moves']} (checkmates: {stats['mate']})",
        f"pawn-drop-mate drop excluded: {stats['pawn_drop_mate']}",
        f"forced promotion (non-promotion absent): {stats['forced_promotion']}",
        f"hand size (both hands) >= 10: {stats['hand_ge_10']}, >= 20: {stats['hand_ge_20']}, "
        f"average: {hand_total / n:.2f}",
        f"max legal moves: {max_moves[0]} ({max_moves[1]})",
    ]
    header = [
        f"# Generated by scripts/gen_legal_fixture.py with cshogi {cshogi_version()} "
        f"(seed {args.seed}, max plies {args.max_plies}, sample {args.sample})",
        "# Format: <sfen>\\t<number of legal moves>\\t<legal moves in USI, sorted, space-separated>",
        "# Statistics (over all generated positions):",
    ] + ["#   " + s for s in summary]
    with open(args.out, "w") as fh:
        fh.write("\n".join(header + lines) + "\n")
    print("\n".join(summary))


def cshogi_version():
    from importlib.metadata import version
    return version("cshogi")


if __name__ == "__main__":
    sys.exit(main())
