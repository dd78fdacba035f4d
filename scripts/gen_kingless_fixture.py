#!/usr/bin/env python3
"""Generate tests/data/legal_moves_kingless.txt: legal moves and perft counts of positions in
which one side has no king (a tsume's attacker), from cshogi, for engine/tests/kingless.rs.

Source positions: every --step-th line of tests/data/legal_moves.txt (cshogi playouts, see
scripts/gen_legal_fixture.py). From each, two kingless positions are made: the side to move
without its king (an attacker to move) and the side not to move without its king (a defender
to move, possibly in check by the kingless side). A position is kept only if Kaname's rules
accept it: the king left on the board, when its side is not to move, is not attacked. From
each kept position cshogi plays up to --plies random legal moves (random.Random(--seed)), and
every position of that line is recorded too: checks by a kingless side, evasions, drops next to
the remaining king. Hand-written tsume starts (ShogiHome's `4k4/9/... b 2r2b4g4s4n4l18p`) come
first.

cshogi (1.1.0, Apery's move generator) accepts a board with one king (`king_square` of the
missing one is 81, one past the board): its legal moves there are what this file records, and
they agree with Kaname's on every position. Only `legal_moves` and `is_check` are used: with the
side *not* to move kingless, cshogi's `check_moves` lists phantom checks (on 362 of the 975 such
positions here, e.g. 1c1d in `1n2ggsn1/l1sr1k3/1ppppp1pp/p5p2/9/3bPP3/PPP3PPP/LS1RG1S2/BN3G1NL w
p 21`) and `mate_move_in_1ply` returns moves that do not mate (223, e.g. N*2c in
`4k4/9/9/9/4r4/9/4b4/9/9 w 2Grb2g4s4n4l18p 1`), as if a king stood on that square; with the
kingless side to move (a tsume's attacker) `check_moves` agrees with the legal checks on all 1,055.

Line format (tab-separated):
    <sfen>  <number of legal moves>  <legal moves in USI, sorted>  <perft 2>  <perft 3 | ->
Perft 3 is computed for the first --perft3 lines only. Run:
    python3 scripts/gen_kingless_fixture.py --output tests/data/legal_moves_kingless.txt
"""
import argparse
import random

import cshogi

FIXED = [
    # ShogiHome's tsume start: the attacker has nothing at all.
    "4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1",
    # The issue's mate in one (G*5b) and YaneuraOu issue #107's position.
    "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
    "7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1",
    # A pawn drop in front of the boxed king is still pawn-drop mate (illegal) without the
    # attacker's king.
    "k8/2S6/1G7/9/9/9/9/9/9 b P2r2b3g3s4n4l17p 1",
    # The defender's pieces on a line through where an attacker's king would stand are free.
    "4k4/9/9/9/4r4/9/4b4/9/9 w 2Grb2g4s4n4l18p 1",
]


def legal(board):
    return sorted(cshogi.move_to_usi(m) for m in board.legal_moves)


def perft(board, depth):
    if depth == 1:
        return len(list(board.legal_moves))
    n = 0
    for m in list(board.legal_moves):
        board.push(m)
        n += perft(board, depth - 1)
        board.pop()
    return n


def without_king(sfen, color):
    """`sfen` with `color`'s king ('K' Black, 'k' White) removed, or None if it has none."""
    fields = sfen.split()
    letter = "K" if color == "b" else "k"
    ranks = fields[0].split("/")
    out = []
    found = False
    for rank in ranks:
        squares = []
        i = 0
        while i < len(rank):
            ch = rank[i]
            if ch.isdigit():
                squares.extend([None] * int(ch))
            elif ch == "+":
                squares.append(rank[i : i + 2])
                i += 1
            else:
                squares.append(ch)
            i += 1
        if letter in squares:
            squares[squares.index(letter)] = None
            found = True
        text, empty = "", 0
        for s in squares:
            if s is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += s
        if empty:
            text += str(empty)
        out.append(text)
    if not found:
        return None
    fields[0] = "/".join(out)
    return " ".join(fields)


def acceptable(board):
    """Kaname's rule: the side not to move, if it has a king, is not in check (asked of cshogi
    after a pass, only when that side has a king)."""
    board_field = board.sfen().split()[0]
    letter = "k" if board.turn == cshogi.BLACK else "K"
    if letter not in board_field:
        return True
    board.push_pass()
    attacked = board.is_check()
    board.pop_pass()
    return not attacked


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", default="tests/data/legal_moves.txt")
    ap.add_argument("--output", default="tests/data/legal_moves_kingless.txt")
    ap.add_argument("--step", type=int, default=200)
    ap.add_argument("--plies", type=int, default=6)
    ap.add_argument("--perft3", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    sources = []
    with open(args.input) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    for line in lines[:: args.step]:
        sfen = line.split("\t")[0]
        side = sfen.split()[1]
        other = "w" if side == "b" else "b"
        for color in (side, other):
            k = without_king(sfen, color)
            if k is not None:
                sources.append(k)

    seen = set()
    rows = []

    def record(board):
        sfen = board.sfen()
        if sfen in seen:
            return
        seen.add(sfen)
        rows.append(sfen)

    for sfen in FIXED:
        record(cshogi.Board(sfen))
    for sfen in sources:
        board = cshogi.Board(sfen)
        if not acceptable(board):
            continue
        record(board)
        for _ in range(args.plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            record(board)

    with open(args.output, "w") as out:
        out.write(
            f"# Generated by scripts/gen_kingless_fixture.py with cshogi {getattr(cshogi, '__version__', '1.1.0')}"
            f" (seed {args.seed}, step {args.step}, plies {args.plies})\n"
        )
        out.write("# Positions where one side has no king (a tsume's attacker); legal moves and perft from cshogi.\n")
        out.write("# Format: <sfen>\\t<number of legal moves>\\t<legal moves in USI, sorted>\\t<perft 2>\\t<perft 3 | ->\n")
        checks = 0
        for i, sfen in enumerate(rows):
            board = cshogi.Board(sfen)
            checks += board.is_check()
            moves = legal(board)
            p2 = perft(board, 2) if moves else 0
            p3 = str(perft(board, 3)) if i < args.perft3 and moves else "-"
            out.write(f"{sfen}\t{len(moves)}\t{' '.join(moves)}\t{p2}\t{p3}\n")
    print(f"{len(rows)} positions, {checks} in check")


if __name__ == "__main__":
    main()
