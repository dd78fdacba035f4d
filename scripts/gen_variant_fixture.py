#!/usr/bin/env python3
"""Generate tests/data/legal_moves_<variant>.txt: legal-move reference data for a shogi variant
from Fairy-Stockfish's own move generator (issue 14).

Source: Fairy-Stockfish, whose version is written into the header. For `minishogi`, Debian's
fairy-stockfish 11.1 (`/usr/games/fairy-stockfish`) driven over USI (`setoption name UCI_Variant
value minishogi`, `d`, `go perft 1`). For `shoshogi`, which 11.1 lacks, pyffish (PyPI,
Fairy-Stockfish's Python binding; generated with 0.0.90, "Fairy-Stockfish 230826 LB"):
`legal_moves`, `get_fen(..., sfen=True)` and `gives_check`, with its UCI-style squares turned
into USI ones.

Positions: random playouts from the variant's start (`position startpos moves ...`, up to
--max-plies plies or until no legal move). For each position Fairy-Stockfish gives the SFEN
(`d`, its `Sfen:` line) and the legal moves (`go perft 1`). The move choice is weighted to
favour captures (x4) and drops (x2), so that hands fill and empty. Kept: each position with probability --sample (1.0 when in check, which `d`
reports on its `Checkers:` line), and every position with no legal move. Duplicates (SFEN
without move number) are skipped. Deterministic: random.Random(--seed).

Fairy-Stockfish lists pawn-drop mates (uchifuzume) as legal moves: it applies the ban as a
game result, not in move generation (docs/variants-plan.md, section 1.4). Shogi's rules and
the published perft counts exclude them, and so does Kaname. So every pawn drop directly in
front of the enemy king is played: if it leaves the opponent in check with no legal move, it
is a pawn-drop mate, removed from the list and written to its own column.

Line format (tab-separated):
    <sfen> <number of legal moves> <legal moves, sorted, space-separated> <pawn-drop mates FSF listed>

    python3 scripts/gen_variant_fixture.py --variant minishogi --positions 6000 \\
        --out tests/data/legal_moves_minishogi.txt
"""
import argparse
import random
import subprocess
import sys
import time

SIZES = {"minishogi": (5, 5), "shoshogi": (9, 9)}


class Fsf:
    """A Fairy-Stockfish process speaking USI."""

    def __init__(self, path, variant):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("usi")
        self.name = "?"
        for line in self.lines_until(lambda l: l == "usiok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        for line in self.lines_until(lambda l: l == "readyok"):
            if "No such option" in line:
                raise SystemExit(f"Fairy-Stockfish refused the variant: {line}")

    def send(self, text):
        self.p.stdin.write(text + "\n")

    def lines_until(self, done):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("Fairy-Stockfish exited")
            line = line.rstrip("\n")
            out.append(line)
            if done(line):
                return out

    def probe(self, moves):
        """(sfen, in check, legal moves) after `moves` from the start."""
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send("d")
        self.send("go perft 1")
        sfen, checkers, legal = None, "", []
        for line in self.lines_until(lambda l: l.startswith("Nodes searched")):
            if line.startswith("Sfen: "):
                sfen = line[len("Sfen: "):].strip()
            elif line.startswith("Checkers:"):
                checkers = line[len("Checkers:"):].strip()
            elif ": " in line and not line.startswith(("Fen", "Key", "Nodes")):
                move, count = line.split(": ", 1)
                if count.strip().isdigit():
                    legal.append(move.strip())
        if sfen is None:
            raise SystemExit(f"no Sfen line after {moves}")
        return sfen, bool(checkers), legal

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=10)


class PyFfish:
    """pyffish (Fairy-Stockfish as a Python module) with the interface of `Fsf`."""

    def __init__(self, variant):
        import pyffish

        self.sf, self.variant = pyffish, variant
        self.name = pyffish.info().strip()
        self.start = pyffish.start_fen(variant)
        self.files, self.ranks = SIZES[variant]
        self.usi_to_uci = {}

    def square(self, text):
        """A UCI-style square (file letter from the left, rank number from sente's side) in USI."""
        return f"{self.files - (ord(text[0]) - ord('a'))}{chr(ord('a') + self.ranks - int(text[1:]))}"

    def to_usi(self, move):
        move = move.rstrip("=")  # an explicit non-promotion, if a version writes one
        promote = move.endswith("+")
        core = move[:-1] if promote else move
        if "@" in core:
            piece, to = core.split("@")
            return f"{piece.upper()}*{self.square(to)}"
        i = 2 if core[2].isalpha() else 3  # rank numbers of one digit on these boards
        return self.square(core[:i]) + self.square(core[i:]) + ("+" if promote else "")

    def probe(self, moves):
        uci = [self.usi_to_uci[m] for m in moves]
        sfen = self.sf.get_fen(self.variant, self.start, uci, False, True)
        check = self.sf.gives_check(self.variant, self.start, uci)
        legal = []
        for m in self.sf.legal_moves(self.variant, self.start, uci):
            u = self.to_usi(m)
            self.usi_to_uci[u] = m
            legal.append(u)
        return sfen, check, legal

    def quit(self):
        pass


def king_square(sfen, files, color):
    """(file index, rank index) of `color`'s king ('K' Black, 'k' White) in an SFEN board."""
    want = "K" if color == "b" else "k"
    for r, text in enumerate(sfen.split()[0].split("/")):
        f = files - 1
        promoted = False
        for ch in text:
            if ch.isdigit():
                f -= int(ch)
            elif ch == "+":
                promoted = True
            else:
                if ch == want and not promoted:
                    return f, r
                promoted = False
                f -= 1
    raise SystemExit(f"no {want} in {sfen}")


def square_name(f, r):
    return f"{f + 1}{chr(ord('a') + r)}"


def pawn_drop_mates(fsf, moves, sfen, legal, files):
    """The pawn drops in `legal` that mate (pawn-drop mate), found by playing them."""
    if not any(m.startswith("P*") for m in legal):
        return []
    side = sfen.split()[1]
    kf, kr = king_square(sfen, files, "w" if side == "b" else "b")
    front = square_name(kf, kr + 1 if side == "b" else kr - 1)
    drop = f"P*{front}"
    if drop not in legal:
        return []
    _, check, replies = fsf.probe(moves + [drop])
    return [drop] if check and not replies else []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="minishogi", choices=sorted(SIZES))
    ap.add_argument("--engine", default="/usr/games/fairy-stockfish", help="Fairy-Stockfish for minishogi")
    ap.add_argument("--positions", type=int, default=6000)
    ap.add_argument("--max-plies", type=int, default=160)
    ap.add_argument("--sample", type=float, default=0.35)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    files, _ranks = SIZES[args.variant]
    rng = random.Random(args.seed)
    fsf = PyFfish(args.variant) if args.variant == "shoshogi" else Fsf(args.engine, args.variant)
    seen, rows = set(), []
    stats = {"playouts": 0, "in check": 0, "no legal move": 0, "pawn-drop mates": 0}
    start = time.time()
    while len(rows) < args.positions:
        stats["playouts"] += 1
        moves = []
        for _ply in range(args.max_plies + 1):
            sfen, check, legal = fsf.probe(moves)
            mates = pawn_drop_mates(fsf, moves, sfen, legal, files)
            legal = sorted(m for m in legal if m not in mates)
            key = " ".join(sfen.split()[:3])
            if key not in seen and (check or not legal or rng.random() < args.sample):
                seen.add(key)
                rows.append(f"{sfen}\t{len(legal)}\t{' '.join(legal)}\t{' '.join(mates)}")
                stats["in check"] += check
                stats["no legal move"] += not legal
                stats["pawn-drop mates"] += len(mates)
            if not legal or len(rows) >= args.positions:
                break
            board = sfen.split()[0]
            weights = []
            for m in legal:
                w = 1.0
                if "*" in m:
                    w = 2.0
                else:
                    to = m[2:4]
                    f, r = int(to[0]) - 1, ord(to[1]) - ord("a")
                    if occupied(board, files, f, r):
                        w = 4.0
                weights.append(w)
            moves.append(rng.choices(legal, weights)[0])
        if stats["playouts"] % 50 == 0:
            rate = len(rows) / max(time.time() - start, 1e-9)
            eta = (args.positions - len(rows)) / max(rate, 1e-9)
            print(f"{len(rows)}/{args.positions} positions, {rate:.0f}/s, ETA {eta:.0f} s", file=sys.stderr)
    fsf.quit()
    with open(args.out, "w", encoding="utf-8") as out:
        source = "pyffish" if args.variant == "shoshogi" else args.engine
        out.write(f"# Generated by scripts/gen_variant_fixture.py from {fsf.name} ({source}), "
                  f"UCI_Variant {args.variant} (seed {args.seed}, max plies {args.max_plies}, sample {args.sample})\n")
        out.write("# Format: <sfen>\\t<number of legal moves>\\t<legal moves, sorted>\\t<pawn-drop mates "
                  "Fairy-Stockfish listed as legal (removed from the list)>\n")
        out.write("# Statistics: " + ", ".join(f"{k}: {v}" for k, v in stats.items()) + f", positions: {len(rows)}\n")
        for row in rows:
            out.write(row + "\n")
    print(f"wrote {len(rows)} positions to {args.out}: {stats}", file=sys.stderr)


def occupied(board, files, f, r):
    """Whether the square (file index f, rank index r) holds a piece in an SFEN board."""
    text = board.split("/")[r]
    cur = files - 1
    for ch in text:
        if ch.isdigit():
            cur -= int(ch)
        elif ch == "+":
            continue
        else:
            if cur == f:
                return True
            cur -= 1
    return False


if __name__ == "__main__":
    main()
