#!/usr/bin/env python3
"""Generate tests/data/tsume.txt: a mate-search (tsume) suite with verified mate lengths.

Sources (the last column of every line names one):
  * "playout:<n>"  position n (0-based, header lines not counted) of
    tests/data/legal_moves.txt, i.e. cshogi random/biased playouts
    (scripts/gen_legal_fixture.py, seed 20240601).
  * "nohand:<n>"   such a playout position where cshogi found a mate, with the
    attacker's hand emptied of the kinds the mate dropped (a mate that would
    need a piece the attacker lacks); kept only when cshogi finds no mate.
  * "uchifuzume:<n>" a playout position where the attacker's pawn drop in
    front of the enemy king is illegal only because it would be pawn-drop mate.
  * "fixed:<name>" hand-written positions (see FIXED below).
No published tsume collection in SFEN text ships with the installed packages
(cshogi 1.1.0 has none), so none is included.

Method. Every candidate is searched with cshogi.DfPn (dlshogi's df-pn; node
budget --nodes, max depth --max-depth). For a mate, cshogi's PV length is only
an upper bound, so the minimal length (minimax distance in plies: the attacker
mates as fast as possible, the defender resists as long as possible, every
legal evasion counted, useless interpositions included) is established by an
independent exact search written here in Python on cshogi's move generators
(Board.check_moves / Board.legal_moves): iterative deepening over odd depths
1, 3, 5, ... with a memo of (position hash, remaining depth) results. The
exact search refutes every shorter depth exhaustively and proves the found
depth, so a recorded length is exact. When its node budget (--exact-nodes)
runs out first, the position is recorded as "mate" (mate exists per cshogi,
length unknown) instead of a number.

"nomate" lines are positions where cshogi's df-pn gave up before its node
budget (a disproof within its depth limit --max-depth) AND the exact search
here refutes every mate of up to --nomate-depth plies; that is strong
evidence, not a proof, that no mate exists at any length.

Reproducing tests/data/tsume.txt (about 45 minutes on one core):
    gen_tsume.py --limit 6500 --output a.txt
    gen_tsume.py --offset 6500 --limit 7000 --nomates 0 --unknowns 0 --no-fixed --output b.txt
    gen_tsume.py --only-uchifuzume --nomates 60 --unknowns 0 --per-length 0 --output c.txt
    gen_tsume.py --merge c.txt a.txt b.txt
(the hand-written positions are taken from the first file only). The committed file's first
run (a) was made before the uchifuzume test used the legal move list, so its no-mate playout
positions were all labelled "playout" and picked as every third scanned one; a rerun picks a
slightly different set.

Line format (tab-separated):
    <sfen>  <minimal mate length in plies | mate | nomate>  <cshogi df-pn nodes>  <source>
Deterministic for a given cshogi version and arguments (random.Random(--seed)).
"""
import argparse
import collections
import random
import sys
import time

import cshogi

FIXED = [
    # The only "mate" would be a pawn drop in front of the king, which is illegal (uchifuzume).
    ("k8/2S6/1G7/9/9/9/9/9/8K b P 1", "uchifuzume-corner"),
    ("7lk/7p1/7G1/9/9/9/9/9/K8 b P 1", "uchifuzume-edge"),
    # A pawn drop that checks but is not mate (the king escapes): no mate either.
    ("k8/9/1G7/9/9/9/9/9/8K b P 1", "pawn-check-escapes"),
    # Lone king and a pawn in hand: no check besides pawn drops that are not mate.
    ("4k4/9/9/9/9/9/9/9/4K4 b P 1", "lone-pawn"),
    # Mate would need a gold in hand (G*5b); only a silver is held.
    ("4k4/9/4P4/9/9/9/9/9/4K4 b S 1", "needs-gold"),
    # Mates with a gold in hand.
    ("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", "head-gold"),
    ("k8/9/1G7/9/9/9/9/9/8K b G 1", "corner-gold"),
    # Side to move in check: the attacker must answer with a checking evasion.
    ("4k4/9/4P4/9/9/9/9/4r4/4K4 b G 1", "attacker-in-check"),
    # Side to move in check, mates by capturing the checker with check (1i1e).
    ("8k/6G2/9/9/8b/9/9/9/4K3R b - 1", "attacker-in-check-mates"),
]


class Budget(Exception):
    pass


class Exact:
    """Exact depth-bounded AND/OR search on cshogi's generators."""

    def __init__(self, board, budget):
        self.b = board
        self.budget = budget
        self.nodes = 0
        # hash -> [smallest remaining depth proven mate, largest remaining depth refuted]
        self.memo = {}

    def or_node(self, r):
        """Can the side to move mate within r plies (r odd >= 1)?"""
        b = self.b
        key = b.zobrist_hash()
        e = self.memo.get(key)
        if e is not None:
            if e[0] <= r:
                return True
            if e[1] >= r:
                return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise Budget()
        moves = list(b.check_moves) if not b.is_check() else [
            m for m in b.legal_moves if gives_check(b, m)]
        found = False
        for m in moves:
            b.push(m)
            ok = self.and_node(r - 1)
            b.pop()
            if ok:
                found = True
                break
        e = self.memo.setdefault(key, [1 << 30, -1])
        if found:
            e[0] = min(e[0], r)
        else:
            e[1] = max(e[1], r)
        return found

    def and_node(self, r):
        """Is the side to move (in check) mated within r plies (r even >= 0)?"""
        b = self.b
        key = b.zobrist_hash()
        e = self.memo.get(key)
        if e is not None:
            if e[0] <= r:
                return True
            if e[1] >= r:
                return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise Budget()
        moves = list(b.legal_moves)
        if not moves:
            res = True
        elif r < 2:
            res = False
        else:
            res = True
            # Try king moves and captures first: they refute fastest.
            for m in moves:
                b.push(m)
                ok = self.or_node(r - 1)
                b.pop()
                if not ok:
                    res = False
                    break
        e = self.memo.setdefault(key, [1 << 30, -1])
        if res:
            e[0] = min(e[0], r)
        else:
            e[1] = max(e[1], r)
        return res


def gives_check(b, m):
    b.push(m)
    c = b.is_check()
    b.pop()
    return c


def minimal_length(board, upper, budget):
    """The exact minimal mate length (odd, <= upper), or None if the budget ran out
    or no mate within `upper` was found."""
    ex = Exact(board, budget)
    try:
        for r in range(1, upper + 1, 2):
            if ex.or_node(r):
                return r
    except Budget:
        return None
    return None


def refutes_up_to(board, depth, budget):
    """True if the exact search shows there is no mate within `depth` plies."""
    ex = Exact(board, budget)
    try:
        return not ex.or_node(depth)
    except Budget:
        return False


def dfpn(board, nodes, max_depth):
    d = cshogi.DfPn()
    d.set_max_search_node(nodes)
    d.set_max_depth(max_depth)
    found = d.search(board)
    pv = d.get_pv(board) if found else []
    return found, pv, d.searched_node


def pv_drops(pv):
    return {cshogi.move_drop_hand_piece(m) for m in pv[0::2] if cshogi.move_is_drop(m)}


HAND_LETTERS = "PLNSBRG"


def strip_hand(sfen, kinds, color):
    """The SFEN with colour `color`'s hand emptied of the hand-piece kinds `kinds`
    (cshogi hand-piece indices 0..6 = P L N S G B R)."""
    parts = sfen.split()
    letters = {0: "P", 1: "L", 2: "N", 3: "S", 4: "G", 5: "B", 6: "R"}
    drop = {letters[k] for k in kinds}
    hand = parts[2]
    if hand == "-":
        return sfen
    out = ""
    i = 0
    while i < len(hand):
        j = i
        while hand[j].isdigit():
            j += 1
        ch = hand[j]
        owner = cshogi.BLACK if ch.isupper() else cshogi.WHITE
        if not (owner == color and ch.upper() in drop):
            out += hand[i:j + 1]
        i = j + 1
    parts[2] = out if out else "-"
    return " ".join(parts)


def uchifuzume_barred(board):
    """Whether a pawn drop in front of the enemy king is illegal only as pawn-drop mate."""
    us = board.turn
    if board.pieces_in_hand[us][0] == 0:
        return False
    ksq = board.king_square(1 - us)
    f, r = divmod(ksq, 9)
    r2 = r + 1 if us == cshogi.BLACK else r - 1
    if not 0 <= r2 < 9:
        return False
    sq = f * 9 + r2
    if board.piece(sq) != cshogi.NONE or board.is_check():
        return False
    pawn = cshogi.BPAWN if us == cshogi.BLACK else cshogi.WPAWN
    if any(board.piece(f * 9 + r) == pawn for r in range(9)):
        return False  # nifu
    # Board.move_from_usi and Board.is_legal do not serve here; the legal move list
    # leaves the drop out exactly when it is pawn-drop mate.
    m = board.drop_move(sq, cshogi.PAWN)
    return m not in set(board.legal_moves)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", default="tests/data/legal_moves.txt")
    ap.add_argument("--output", default="tests/data/tsume.txt")
    ap.add_argument("--seed", type=int, default=20240917)
    ap.add_argument("--offset", type=int, default=0, help="skip this many shuffled positions")
    ap.add_argument("--limit", type=int, default=30003, help="playout positions to scan")
    ap.add_argument("--unknowns", type=int, default=60, help="cap on mates of unverified length")
    ap.add_argument("--only-uchifuzume", action="store_true",
                    help="scan only positions whose pawn drop in front of the king is pawn-drop mate")
    ap.add_argument("--no-fixed", action="store_true", help="leave out the hand-written positions")
    ap.add_argument("--nodes", type=int, default=20000, help="cshogi df-pn node budget")
    ap.add_argument("--max-depth", type=int, default=41)
    ap.add_argument("--exact-nodes", type=int, default=400000)
    ap.add_argument("--nomate-depth", type=int, default=5)
    ap.add_argument("--per-length", type=int, default=70, help="cap per verified length < 9")
    ap.add_argument("--nomates", type=int, default=130)
    ap.add_argument("--merge", nargs="+", metavar="FILE",
                    help="instead of generating, merge suites made by earlier runs into --output")
    args = ap.parse_args()
    if args.merge:
        merge(args.merge, args.output)
        return

    sfens = [l.split("\t")[0] for l in open(args.input) if not l.startswith("#")]
    order = list(range(len(sfens)))
    random.Random(args.seed).shuffle(order)
    order = order[args.offset: args.offset + args.limit]
    b = cshogi.Board()
    out = []
    seen = set()
    per_len = collections.Counter()
    n_nomate = 0
    n_unknown = 0
    t0 = time.time()

    def key_of(s):
        return " ".join(s.split()[:3])

    def add(sfen, label, nodes, source):
        k = key_of(sfen)
        if k in seen:
            return False
        seen.add(k)
        out.append((sfen, label, nodes, source))
        return True

    def classify_mate(sfen, pv_len, nodes, source):
        nonlocal n_unknown
        if pv_len < 9 and all(per_len[k] >= args.per_length for k in range(1, pv_len + 1, 2)):
            return None  # every length it could have is full
        b.set_sfen(sfen)
        L = minimal_length(b, pv_len, args.exact_nodes)
        if L is None:
            if n_unknown < args.unknowns:
                if add(sfen, "mate", nodes, source):
                    n_unknown += 1
            return None
        if L < 9 and per_len[L] >= args.per_length:
            return L
        if add(sfen, str(L), nodes, source):
            per_len[L] += 1
        return L

    def classify_nomate(sfen, nodes, source):
        nonlocal n_nomate
        b.set_sfen(sfen)
        if refutes_up_to(b, args.nomate_depth, args.exact_nodes):
            if add(sfen, "nomate", nodes, source):
                n_nomate += 1

    for sfen, name in ([] if args.no_fixed else FIXED):
        b.set_sfen(sfen)
        found, pv, nodes = dfpn(b, args.nodes, args.max_depth)
        if b.is_check():
            # cshogi's df-pn does not search a root in check: the exact search decides.
            L = minimal_length(b, 15, args.exact_nodes)
            if L is not None:
                add(sfen, str(L), 0, "fixed:" + name)
            else:
                classify_nomate(sfen, 0, "fixed:" + name)
        elif found:
            classify_mate(sfen, len(pv), nodes, "fixed:" + name)
        elif nodes < args.nodes:
            classify_nomate(sfen, nodes, "fixed:" + name)
        else:
            print("fixed position undecided:", name, file=sys.stderr)

    for count, i in enumerate(order):
        sfen = sfens[i]
        b.set_sfen(sfen)
        if b.is_game_over():
            continue
        if args.only_uchifuzume and not uchifuzume_barred(b):
            continue
        found, pv, nodes = dfpn(b, args.nodes, args.max_depth)
        if found:
            classify_mate(sfen, len(pv), nodes, f"playout:{i}")
            # The same position without the dropped kinds: often no mate at all.
            drops = pv_drops(pv)
            if drops and n_nomate < args.nomates:
                s2 = strip_hand(sfen, drops, b.turn)
                b.set_sfen(s2)
                f2, pv2, n2 = dfpn(b, args.nodes, args.max_depth)
                if f2:
                    classify_mate(s2, len(pv2), n2, f"nohand:{i}")
                elif n2 < args.nodes:
                    classify_nomate(s2, n2, f"nohand:{i}")
        elif nodes < args.nodes and n_nomate < args.nomates:
            b.set_sfen(sfen)
            src = "uchifuzume" if uchifuzume_barred(b) else "playout"
            # Keep plain no-mate positions only when some check exists (else trivial).
            if src == "uchifuzume" or (len(list(b.check_moves)) > 0 and count % 3 == 0):
                classify_nomate(sfen, nodes, f"{src}:{i}")
        if count % 500 == 0:
            print(f"{count} scanned, {len(out)} kept, lengths {sorted(per_len.items())}, "
                  f"nomate {n_nomate}, unknown {n_unknown}, {time.time() - t0:.0f}s",
                  file=sys.stderr, flush=True)

    stats = collections.Counter(l for _, l, _, _ in out)
    with open(args.output, "w") as f:
        f.write(f"# Generated by scripts/gen_tsume.py with cshogi {cshogi_version()} "
                f"(seed {args.seed}, df-pn nodes {args.nodes}, max depth {args.max_depth}, "
                f"exact nodes {args.exact_nodes}, nomate depth {args.nomate_depth})\n")
        f.write("# Format: <sfen>\\t<minimal mate length in plies | mate | nomate>\\t"
                "<cshogi df-pn nodes>\\t<source>\n")
        f.write("# Sources: playout:N / nohand:N / uchifuzume:N = line N of "
                "tests/data/legal_moves.txt (cshogi playouts); fixed:NAME = hand-written\n")
        f.write("# Counts: " + ", ".join(f"{k} {v}" for k, v in sorted(
            stats.items(), key=lambda kv: (len(kv[0]), kv[0]))) + "\n")
        for sfen, label, nodes, source in out:
            f.write(f"{sfen}\t{label}\t{nodes}\t{source}\n")
    print(f"wrote {len(out)} positions to {args.output}: {dict(stats)} "
          f"in {time.time() - t0:.0f}s", file=sys.stderr)


def merge(inputs, output):
    """Concatenates generated suites (header comments kept, duplicates dropped)."""
    headers, rows, seen = [], [], set()
    fixed_from = None
    for path in inputs:
        for line in open(path):
            if line.startswith("# Generated") or line.startswith("# Counts"):
                if line.startswith("# Generated"):
                    headers.append(line.replace("# Generated", "#   part: generated", 1))
                continue
            if line.startswith("#"):
                if line not in headers:
                    headers.append(line)
                continue
            key = " ".join(line.split("\t")[0].split()[:3])
            source = line.rstrip("\n").split("\t")[3]
            if source.startswith("fixed:"):
                if fixed_from not in (None, path):
                    continue  # hand-written positions come from one run only: the first
                fixed_from = path
            if key not in seen:
                seen.add(key)
                rows.append(line)
    stats = collections.Counter(r.split("\t")[1] for r in rows)
    with open(output, "w") as f:
        f.write("# Merged by scripts/gen_tsume.py --merge from these runs:\n")
        for h in headers:
            f.write(h)
        f.write("# Counts: " + ", ".join(f"{k} {v}" for k, v in sorted(
            stats.items(), key=lambda kv: (len(kv[0]), kv[0]))) + "\n")
        f.writelines(rows)
    print(f"merged {len(rows)} positions into {output}: {dict(stats)}", file=sys.stderr)


def cshogi_version():
    try:
        from importlib.metadata import version
        return version("cshogi")
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
