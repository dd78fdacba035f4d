#!/usr/bin/env python3
"""Generate tests/data/yo_nnue_evals.txt: YaneuraOu's static NNUE evaluation of seeded random nets.

Source of the values: YaneuraOu (github.com/yaneurao/YaneuraOu), commit
33ccf1f907eb7184889fa23051243f81ab0bf973 ("9.70git", 2026-08-05), built locally from the
fetched source -- one binary per net shape -- with

    cd source && make normal YANEURAOU_EDITION=<edition> TARGET_CPU=AVX2 COMPILER=g++ -j2

where <edition> is YANEURAOU_ENGINE_NNUE (halfkp_256x2-32-32), YANEURAOU_ENGINE_NNUE_KP256
(kp_256x2-32-32), the Makefile's presets YANEURAOU_ENGINE_NNUE_HALFKP_512X2_16_32,
_HALFKP_1024X2_8_32 and _HALFKP_1024X2_8_64, and YANEURAOU_ENGINE_NNUE_halfkp_<L1>x2_<L2>_<L3>
for every other shape (the Makefile then runs eval/nnue/architectures/nnue_arch_gen.py).
Neither YaneuraOu's code nor its binaries nor a build recipe are part of Kaname: this script
only runs binaries that already exist, as <--yo-bin-dir>/<shape>/YaneuraOu.

What it does, per net shape (the SHAPES list below; shape number s has seed s):
  0. checks the header: YaneuraOu is started on a header-only nn.bin with a wrong hash and must
     print, in its hash-mismatch warning, exactly our file hash and architecture string,
  1. writes the KRN1 net of that shape and seed (spec below) as <tmp>/nn.bin,
  2. starts the matching YaneuraOu binary and sends `usi`, `setoption name EvalDir value <tmp>`,
     Threads 1, USI_Hash 16, BookFile no_book, then `isready` (waits for `readyok`; any
     `info string` line with "Warning", "Error" or "mismatch" is fatal),
  3. for each FV_SCALE of that shape: `setoption name FV_SCALE value <k>`, then for each position
     `position sfen <sfen>` + `e`, and parses `eval = <v>`; a final `isready` fences the batch,
  4. writes `net`, `fv` and `e` lines (format in the fixture's header).
For the first shape it also sends `d` after each position and checks that YaneuraOu's own
SFEN of the position equals ours (so no position was silently rejected or altered).

KRN1, the seeded random net (the Rust tests implement the same algorithm).
All u64 arithmetic wraps mod 2^64.
    mix(z): z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
            return z ^ (z >> 31)
    draw n (n = 0, 1, 2, ... across the whole net):
            u(n) = mix(seed * 0xD1B54A32D192ED03 + (n + 1) * 0x9E3779B97F4A7C15)
    int(u, lo, hi) = lo + (u % (hi - lo + 1))
One draw per stored element, in file order (padding elements draw too and are written as 0):
    FT biases  i16 x L1          int(u, -40, 80)
    FT weights i16 x F*L1        int(u, -20, 20)     (F = 125388 HalfKP, 1710 K+P; feature-major)
    hidden layer 1 (2*L1 -> L2) and 2 (L2 -> L3):
        biases  i32 x out        int(u, -4000, 4000)
        weights i8 x out*pad(in) row-major by output, pad(in) = ceil(in/32)*32;
                                 k = u % 64: k == 0 -> -128, k == 1 -> 127,
                                 else int(u >> 8, -12, 12); column i >= in -> 0
    output layer (L3 -> 1): bias i32 int(u, -3000, 3000); weights i8 x pad(L3) int(u, -127, 127)
Header as YaneuraOu writes it: u32 version 0x7AF32F16, u32 file hash (FT hash ^ network hash),
u32 length + architecture string, then u32 FT hash, FT parameters, u32 network hash, layers.

Positions: see build_positions(). Special positions first (the first 60 cover every category:
both sides to move, big hands with all seven kinds and 18 pawns in one hand, handicap starts
and games, all six promoted kinds for both colours, each king in each corner and on edges,
positions from real games), then positions from the CSA records under scripts/results, the
opening lines of scripts/openings-1000.txt played on with random moves, handicap games and
random placements. Every position is checked with cshogi (one king each, at most the standard
piece counts, no two unpromoted pawns of one colour on a file, no piece without a move, the
side not to move not in check). Deterministic: random.Random(--pos-seed).

Run from the repository root (needs numpy and cshogi; about 5 minutes for all 37 nets):
    python3 scripts/gen_yo_nnue_fixture.py --yo-bin-dir /work/yo/bin
    python3 scripts/gen_yo_nnue_fixture.py --self-test        # KRN1 and hash checks, no YaneuraOu
Options: --out (default tests/data/yo_nnue_evals.txt), --shapes (comma list, default all),
--tmp-dir, --timeout, --write-net SHAPE PATH (write one KRN1 net and exit).
"""
import argparse
import datetime
import glob
import hashlib
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import cshogi
import cshogi.CSA
import numpy as np

YO_COMMIT = "33ccf1f907eb7184889fa23051243f81ab0bf973"
NNUE_VERSION = 0x7AF32F16
MASK32 = 0xFFFFFFFF

# ---------------------------------------------------------------------------
# Shapes: (name, feature, L1, L2, L3). Shape number s (1-based) uses seed s.
# ---------------------------------------------------------------------------


def _shape_list():
    shapes = [("halfkp_256x2-32-32", "halfkp", 256, 32, 32),
              ("kp_256x2-32-32", "kp", 256, 32, 32),
              ("halfkp_1024x2-8-32", "halfkp", 1024, 8, 32)]
    given = {s[0] for s in shapes}
    for l1 in (256, 512, 768, 1024):
        for l2 in (8, 16, 32):
            for l3 in (32, 64, 96):
                name = f"halfkp_{l1}x2-{l2}-{l3}"
                if name not in given:
                    shapes.append((name, "halfkp", l1, l2, l3))
    return shapes


SHAPES = _shape_list()
SEEDS = {name: i + 1 for i, (name, *_rest) in enumerate(SHAPES)}
SHAPE_BY_NAME = {s[0]: s for s in SHAPES}

# Feature sets: name in the architecture string, hash (before ^ 2*L1), input dimensions.
HALFKP_HASH = 0x5D69D5B9 ^ 1  # HalfKP<kFriend> (features/half_kp.h)
K_HASH, P_HASH = 0xD3CEE169, 0x764CFB4B  # features/k.h, features/p.h
KP_HASH = (K_HASH ^ ((P_HASH << 1) & MASK32) ^ (P_HASH >> 31)) & MASK32  # FeatureSet<K, P>
FEATURES = {
    "halfkp": ("HalfKP(Friend)", HALFKP_HASH, 81 * 1548),
    "kp": ("K+P", KP_HASH, 81 * 2 + 1548),
}


def pad32(n):
    return (n + 31) // 32 * 32


def arch_string(shape):
    """Features=<FT>,Network=<layers>: GetArchitectureString() of YaneuraOu HEAD."""
    _name, feat, l1, l2, l3 = shape
    fname, _h, fdim = FEATURES[feat]
    inp = 2 * l1
    net = f"InputSlice[{inp}(0:{inp})]"
    net = f"ClippedReLU[{l2}](AffineTransformSparseInput[{l2}<-{inp}]({net}))"
    net = f"ClippedReLU[{l3}](AffineTransform[{l3}<-{l2}]({net}))"
    net = f"AffineTransform[1<-{l3}]({net})"
    return f"Features={fname}[{fdim}->{l1}x2],Network={net}"


def _affine_hash(prev, out):
    return (((0xCC03DAE4 + out) & MASK32) ^ (prev >> 1) ^ ((prev << 31) & MASK32)) & MASK32


def _relu_hash(prev):
    return (0x538D24C7 + prev) & MASK32


def hashes(shape):
    """(file hash, FT section hash, network section hash) as YaneuraOu computes them."""
    _name, feat, l1, l2, l3 = shape
    ft = FEATURES[feat][1] ^ (2 * l1)
    h = 0xEC42E90D ^ (2 * l1)  # InputSlice<2*L1>, offset 0
    h = _relu_hash(_affine_hash(h, l2))
    h = _relu_hash(_affine_hash(h, l3))
    net = _affine_hash(h, 1)
    return ft ^ net, ft, net


def net_size(shape):
    _name, feat, l1, l2, l3 = shape
    f = FEATURES[feat][2]
    params = (l1 * 2 + f * l1 * 2 + l2 * 4 + l2 * pad32(2 * l1) + l3 * 4 + l3 * pad32(l2)
              + 4 + pad32(l3))
    return 12 + len(arch_string(shape)) + 4 + 4 + params


# ---------------------------------------------------------------------------
# KRN1
# ---------------------------------------------------------------------------
U64 = np.uint64
SEED_MUL, GOLDEN = 0xD1B54A32D192ED03, 0x9E3779B97F4A7C15
CHUNK = 1 << 22


def mix_np(z):
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


def draws(seed, start, count):
    """u(n) for n in [start, start + count), as a uint64 array."""
    base = U64((seed * SEED_MUL) & (2**64 - 1))
    n1 = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return mix_np(base + n1 * U64(GOLDEN))


def int_range(u, lo, hi):
    return (u % U64(hi - lo + 1)).astype(np.int64) + lo


def hidden_weight(u):
    k = u % U64(64)
    w = int_range(u >> U64(8), -12, 12)
    w[k == 0] = -128
    w[k == 1] = 127
    return w


def mix_py(z):
    m = 2**64 - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def draw_py(seed, n):
    return mix_py((seed * SEED_MUL + (n + 1) * GOLDEN) & (2**64 - 1))


class NetWriter:
    """Streams a KRN1 net into a file, keeping the draw counter and a sha256."""

    def __init__(self, f, seed):
        self.f, self.seed, self.n, self.sha, self.size = f, seed, 0, hashlib.sha256(), 0

    def raw(self, data):
        self.f.write(data)
        self.sha.update(data)
        self.size += len(data)

    def u32(self, v):
        self.raw(int(v & MASK32).to_bytes(4, "little"))

    def params(self, count, dtype, make, row=None, valid=None):
        """count draws mapped by make(u) -> int64 values, written as dtype (little-endian).
        With row/valid: element i is padding (written 0) when i % row >= valid."""
        done = 0
        while done < count:
            m = min(CHUNK, count - done)
            u = draws(self.seed, self.n + done, m)
            v = make(u)
            if row is not None and valid < row:
                col = (np.arange(done, done + m, dtype=np.int64)) % row
                v[col >= valid] = 0
            self.raw(v.astype(np.dtype(dtype).newbyteorder("<")).tobytes())
            done += m
        self.n += count


def write_net(shape, seed, path):
    """Writes the KRN1 net; returns (size in bytes, sha256 hex)."""
    _name, feat, l1, l2, l3 = shape
    f_dim = FEATURES[feat][2]
    file_hash, ft_hash, net_hash = hashes(shape)
    arch = arch_string(shape).encode("ascii")
    with open(path, "wb") as f:
        w = NetWriter(f, seed)
        w.u32(NNUE_VERSION)
        w.u32(file_hash)
        w.u32(len(arch))
        w.raw(arch)
        w.u32(ft_hash)
        w.params(l1, "i2", lambda u: int_range(u, -40, 80))
        w.params(f_dim * l1, "i2", lambda u: int_range(u, -20, 20))
        w.u32(net_hash)
        for n_in, n_out in ((2 * l1, l2), (l2, l3)):
            w.params(n_out, "i4", lambda u: int_range(u, -4000, 4000))
            w.params(n_out * pad32(n_in), "i1", hidden_weight, row=pad32(n_in), valid=n_in)
        w.params(1, "i4", lambda u: int_range(u, -3000, 3000))
        w.params(pad32(l3), "i1", lambda u: int_range(u, -127, 127), row=pad32(l3), valid=l3)
    assert w.size == net_size(shape), (w.size, net_size(shape))
    return w.size, w.sha.hexdigest()


# Fixed values that catch a change of the algorithm (also checked with an independent C
# implementation): seed -> u(0), u(1), u(2).
SELF_TEST_EXPECTED = {
    1: (0x2D0F28C7E7E786B2, 0x75856F745165F252, 0x8674BBC2735955AF),
    2: (0x3C5B66874B9E8A84, 0x5A1E518FCFCF0D64, 0x1A215E1F9ABE2521),
    3: (0x18330D235A79896C, 0xAA76DD0138337051, 0x9733AAF3A5D4FC13),
}


def self_test():
    ok = True
    # numpy against plain Python ints
    for seed in (0, 1, 2, 3, 37, 2**63 + 5):
        want = [draw_py(seed, n) for n in range(0, 300)] + [draw_py(seed, n) for n in range(10**8, 10**8 + 50)]
        got = list(draws(seed, 0, 300)) + list(draws(seed, 10**8, 50))
        if [int(x) for x in got] != want:
            print(f"FAIL numpy draws differ from Python for seed {seed}")
            ok = False
    for seed, vals in SELF_TEST_EXPECTED.items():
        got = tuple(draw_py(seed, n) for n in range(len(vals)))
        if got != vals:
            print(f"FAIL u(n) for seed {seed}: {[hex(x) for x in got]} != {[hex(x) for x in vals]}")
            ok = False
    u = np.array([draw_py(1, n) for n in range(4)], dtype=np.uint64)
    print("seed 1: u(0..3) =", " ".join(f"{int(x):#018x}" for x in u))
    print("seed 1: FT biases[0..3] =", [int(x) for x in int_range(u, -40, 80)])
    # a hidden-weight mapping check on chosen u
    hw = hidden_weight(np.array([0, 1, 2, 64, 65, (24 << 8) | 2, (25 << 8) | 3], dtype=np.uint64))
    if list(hw) != [-128, 127, -12, -128, 127, 12, -12]:
        print("FAIL hidden_weight", list(hw))
        ok = False
    # hashes: the values in the reference notes for the classic presets
    want_hash = {"halfkp_256x2-32-32": (0x3E5AA6EE, 0x5D69D7B8, 0x63337156),
                 "kp_256x2-32-32": (0x5C6464A9, 0x3F5715FF, None),
                 "halfkp_1024x2-8-32": (0x3E5AB7EC, 0x5D69DDB8, None)}
    for name, (fh, fth, nh) in want_hash.items():
        got = hashes(SHAPE_BY_NAME[name])
        if got[0] != fh or got[1] != fth or (nh is not None and got[2] != nh):
            print(f"FAIL hashes {name}: {[hex(x) for x in got]}")
            ok = False
    # end-to-end on a small net (K+P): size, padding and draw counter
    with tempfile.TemporaryDirectory() as d:
        shape = SHAPE_BY_NAME["kp_256x2-32-32"]
        size, digest = write_net(shape, 2, os.path.join(d, "nn.bin"))
        data = open(os.path.join(d, "nn.bin"), "rb").read()
        if size != len(data) or size != net_size(shape):
            print("FAIL kp size", size, len(data), net_size(shape))
            ok = False
        off = 12 + len(arch_string(shape)) + 4
        b0 = int.from_bytes(data[off:off + 2], "little", signed=True)
        if b0 != -40 + draw_py(2, 0) % 121:
            print("FAIL kp FT bias 0", b0)
            ok = False
        last = int.from_bytes(data[-1:], "little", signed=True)
        n_total = 256 + 1710 * 256 + 32 + 32 * 512 + 32 + 32 * 32 + 1 + 32
        if last != -127 + draw_py(2, n_total - 1) % 255:
            print("FAIL kp last output weight", last)
            ok = False
        print(f"kp_256x2-32-32 seed 2: {size} bytes sha256={digest}")
    for shape in SHAPES[:3]:
        fh, ft, nh = hashes(shape)
        print(f"{shape[0]}: file hash {fh:#010x} FT {ft:#010x} network {nh:#010x} "
              f"size {net_size(shape)} arch {arch_string(shape)}")
    print("self-test", "OK" if ok else "FAILED")
    return ok


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------
HIRATE = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
HANDICAPS = {  # the uwate (White) moves first
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
FULL_SET = {"P": 18, "L": 4, "N": 4, "S": 4, "G": 4, "B": 2, "R": 2}
PROMOTABLE = "PLNSBR"
HAND_ORDER = "RBGSNLP"


def sfen_counts(sfen):
    """Piece counts by base kind (promotions folded), board and hands together, and kings."""
    board, _side, hand = sfen.split()[:3]
    counts = {k: 0 for k in FULL_SET}
    kings = {"K": 0, "k": 0}
    for ch in board.replace("+", ""):
        if ch in kings:
            kings[ch] += 1
        elif ch.upper() in counts:
            counts[ch.upper()] += 1
    if hand != "-":
        for num, ch in re.findall(r"(\d*)([A-Za-z])", hand):
            counts[ch.upper()] += int(num) if num else 1
    return counts, kings


def board_grid(sfen):
    """grid[rank 0..8][file index 0..8 from the left = file 9..1] -> token like 'P', '+p' or ''."""
    rows = sfen.split()[0].split("/")
    grid = []
    for row in rows:
        cells, prom = [], ""
        for ch in row:
            if ch == "+":
                prom = "+"
            elif ch.isdigit():
                cells.extend([""] * int(ch))
            else:
                cells.append(prom + ch)
                prom = ""
        grid.append(cells)
    return grid


def legality_problem(sfen):
    """None if the position is legal for the fixture, else a reason."""
    parts = sfen.split()
    if len(parts) != 4 or parts[1] not in "bw":
        return "malformed"
    grid = board_grid(sfen)
    if len(grid) != 9 or any(len(r) != 9 for r in grid):
        return "bad board"
    counts, kings = sfen_counts(sfen)
    if kings != {"K": 1, "k": 1}:
        return f"kings {kings}"
    for k, n in counts.items():
        if n > FULL_SET[k]:
            return f"too many {k}"
    for c in range(9):
        col = [grid[r][c] for r in range(9)]
        if col.count("P") > 1 or col.count("p") > 1:
            return "nifu"
    for c in range(9):
        if grid[0][c] in ("P", "L", "N") or grid[1][c] == "N":
            return "black piece without a move"
        if grid[8][c] in ("p", "l", "n") or grid[7][c] == "n":
            return "white piece without a move"
    b = cshogi.Board()
    b.set_sfen(sfen)
    if " ".join(b.sfen().split()[:3]) != " ".join(parts[:3]):
        return f"cshogi reads it differently: {b.sfen()}"
    flipped = cshogi.Board()
    flipped.set_sfen(" ".join([parts[0], "w" if parts[1] == "b" else "b", parts[2], parts[3]]))
    if flipped.is_check():
        return "side not to move in check"
    return None


def canonical(sfen, ply=1):
    b = cshogi.Board()
    b.set_sfen(sfen)
    return " ".join(b.sfen().split()[:3] + [str(ply)])


def grid_to_sfen(grid, side, hands):
    rows = []
    for row in grid:
        s, empty = "", 0
        for cell in row:
            if not cell:
                empty += 1
                continue
            if empty:
                s += str(empty)
                empty = 0
            s += cell
        if empty:
            s += str(empty)
        rows.append(s)
    hand = ""
    for color in ("b", "w"):
        for k in HAND_ORDER:
            n = hands[color].get(k, 0)
            if n:
                hand += (str(n) if n > 1 else "") + (k if color == "b" else k.lower())
    return f"{'/'.join(rows)} {side} {hand or '-'} 1"


def sq(file, rank):
    """(rank index, column index) of a square given as file 1..9, rank 1..9."""
    return rank - 1, 9 - file


def placement_ok(kind, color, rank, grid, col):
    """Can an unpromoted/promoted piece `kind` ('P', '+P', ...) of color stand on rank (1..9)?"""
    base = kind[-1]
    if not kind.startswith("+"):
        fwd = rank if color == "b" else 10 - rank  # 1 = last rank for that colour
        if base in "PL" and fwd == 1:
            return False
        if base == "N" and fwd <= 2:
            return False
        if base == "P":
            pawn = "P" if color == "b" else "p"
            if any(grid[r][col] == pawn for r in range(9)):
                return False
    return True


def random_placement(rng, bk, wk, side, *, p_board=0.5, p_promote=0.2, hand_owner=None,
                     force_promoted=False, pieces=None, tries=2000):
    """A random legal position with the kings on bk / wk ((file, rank)), the remaining pieces
    of `pieces` (default: the full set) on the board or in a hand."""
    pieces = dict(FULL_SET if pieces is None else pieces)
    for _ in range(tries):
        grid = [[""] * 9 for _ in range(9)]
        r, c = sq(*bk)
        grid[r][c] = "K"
        r, c = sq(*wk)
        grid[r][c] = "k"
        hands = {"b": {}, "w": {}}
        todo = []
        if force_promoted:  # one promoted piece of each kind for each colour, on the board
            for color in "bw":
                for k in PROMOTABLE:
                    todo.append((k, color, "board+"))
        used = {}
        for k, _c, _w in todo:
            used[k] = used.get(k, 0) + 1
        for k, n in pieces.items():
            for _ in range(n - used.get(k, 0)):
                color = hand_owner if hand_owner else rng.choice("bw")
                where = "hand" if hand_owner else ("board" if rng.random() < p_board else "hand")
                todo.append((k, color, where))
        rng.shuffle(todo)
        failed = False
        for k, color, where in todo:
            if where == "hand":
                hands[color][k] = hands[color].get(k, 0) + 1
                continue
            promote = where == "board+" or (k in PROMOTABLE and rng.random() < p_promote)
            kind = ("+" if promote else "") + k
            for _ in range(200):
                rank, file = rng.randint(1, 9), rng.randint(1, 9)
                r, c = sq(file, rank)
                if grid[r][c] or not placement_ok(kind, color, rank, grid, c):
                    continue
                grid[r][c] = kind if color == "b" else kind.lower()
                break
            else:
                failed = True
                break
        if failed:
            continue
        sfen = grid_to_sfen(grid, side, hands)
        if legality_problem(sfen) is None:
            b = cshogi.Board()
            b.set_sfen(sfen)
            if not b.is_check():
                return canonical(sfen)
    raise RuntimeError(f"no legal placement for kings {bk} {wk}")


def weighted_move(rng, board, moves):
    weights = []
    for m in moves:
        w = 1.0
        if board.piece(cshogi.move_to(m)):
            w *= 4
        if cshogi.move_is_promotion(m):
            w *= 2
        weights.append(w)
    return rng.choices(moves, weights)[0]


def playout(rng, sfen, plies, moves_prefix=()):
    """Plays moves_prefix (USI), then up to `plies` weighted random moves; returns the board
    sfens along the way (the list of positions reached, the last one first)."""
    b = cshogi.Board()
    b.set_sfen(sfen)
    for mv in moves_prefix:
        b.push_usi(mv)
    seen = [b.sfen()]
    for _ in range(plies):
        moves = list(b.legal_moves)
        if not moves:
            break
        b.push(weighted_move(rng, b, moves))
        seen.append(b.sfen())
    return seen


def csa_games(root):
    files = sorted(glob.glob(os.path.join(root, "**", "*.csa"), recursive=True))
    return files


def game_positions(path):
    """The positions of the game in a CSA file, in order, up to its first illegal move."""
    parser = cshogi.CSA.Parser.parse_file(path)[0]
    b = cshogi.Board()
    b.set_sfen(parser.sfen)
    out = [b.sfen()]
    for m in parser.moves:
        if not b.is_legal(m):
            break
        b.push(m)
        out.append(b.sfen())
    return out


class PositionSet:
    def __init__(self):
        self.items, self.keys = [], set()

    def add(self, sfen, tag):
        raw, sfen = sfen, canonical(sfen)
        if sfen_counts(raw) != sfen_counts(sfen):
            raise RuntimeError(f"cshogi reads {raw!r} as {sfen!r}")
        key = " ".join(sfen.split()[:3])
        if key in self.keys:
            return False
        why = legality_problem(sfen)
        if why:
            raise RuntimeError(f"illegal position ({tag}): {sfen}: {why}")
        self.keys.add(key)
        self.items.append((sfen, tag))
        return True


def build_positions(rng, repo_root, total):
    ps = PositionSet()
    games = csa_games(os.path.join(repo_root, "scripts", "results"))
    if not games:
        raise RuntimeError("no CSA records under scripts/results")
    openings = [ln.strip() for ln in open(os.path.join(repo_root, "scripts", "openings-1000.txt"))
                if ln.strip().startswith("startpos moves")]

    def from_game(lo, hi, want_side=None):
        for _ in range(200):
            pos = game_positions(rng.choice(games))
            cands = [s for s in pos[lo:hi] if want_side is None or s.split()[1] == want_side]
            if cands and ps.add(rng.choice(cands), "game"):
                return
        raise RuntimeError("could not draw a game position")

    def from_opening(plies):
        for _ in range(200):
            line = rng.choice(openings).split()[2:]
            if ps.add(playout(rng, HIRATE, plies, line)[-1], "opening+random"):
                return

    def from_handicap(name, plies):
        for _ in range(200):
            if ps.add(playout(rng, HANDICAPS[name], plies)[-1], f"handicap {name}+random"):
                return

    def placement(tag, bk, wk, side, **kw):
        for _ in range(50):
            if ps.add(random_placement(rng, bk, wk, side, **kw), tag):
                return
        raise RuntimeError("could not place " + tag)

    def random_king_squares():
        while True:
            bk = (rng.randint(1, 9), rng.randint(1, 9))
            wk = (rng.randint(1, 9), rng.randint(1, 9))
            if max(abs(bk[0] - wk[0]), abs(bk[1] - wk[1])) > 1:
                return bk, wk

    # --- special positions: the first 60 cover every category --------------------------
    ps.add(HIRATE, "start")
    ps.add(HIRATE.replace(" b ", " w "), "start, White to move")
    from_game(30, 60, "b")
    from_game(30, 60, "w")
    corners = [(1, 1), (9, 1), (1, 9), (9, 9)]
    for i, c in enumerate(corners):  # Black's king in each corner
        placement(f"black king {c}", c, (5, 1) if c[1] == 9 else (5, 9), "bw"[i % 2])
    for i, c in enumerate(corners):  # White's king in each corner
        placement(f"white king {c}", (5, 9) if c[1] == 1 else (5, 1), c, "wb"[i % 2])
    placement("both kings in corners", (1, 9), (9, 1), "b")
    placement("both kings in corners", (9, 1), (1, 9), "w")
    for bk, wk, side in (((5, 1), (5, 9), "b"), ((1, 5), (9, 5), "w"), ((9, 5), (1, 5), "b"),
                         ((5, 9), (5, 1), "w")):
        placement("kings on edges", bk, wk, side)
    placement("all pieces in Black's hand", (5, 9), (5, 1), "w", hand_owner="b")
    placement("all pieces in White's hand", (5, 9), (5, 1), "b", hand_owner="w")
    placement("all pieces in Black's hand, Black to move", (2, 8), (8, 2), "b", hand_owner="b")
    placement("all pieces in White's hand, White to move", (8, 8), (3, 3), "w", hand_owner="w")
    ps.add("4k4/9/9/9/9/9/9/9/4K4 b RB2G2S2N2L18Prb2g2s2n2l 1", "18 pawns in Black's hand, all kinds")
    ps.add("4k4/9/9/9/9/9/9/9/4K4 w RB2G2S2N2Lrb2g2s2n2l18p 1", "18 pawns in White's hand, all kinds")
    ps.add("4k4/9/pppp1pppp/9/9/9/PPPP1PPPP/9/4K4 b RB2G2S2N2LPrb2g2s2n2lp 1", "all seven kinds in both hands")
    ps.add("l3k3l/9/p1p1p1p1p/9/9/9/P1P1P1P1P/9/L3K3L w RB2G2S2N4Prb2g2s2n4p 1", "big hands, White to move")
    placement("all promoted kinds, both colours", (5, 9), (5, 1), "b", force_promoted=True, p_board=0.5)
    placement("all promoted kinds, both colours", (1, 9), (9, 1), "w", force_promoted=True, p_board=0.7)
    placement("all promoted kinds, kings in corners", (9, 9), (1, 1), "b", force_promoted=True, p_board=0.3)
    placement("all promoted kinds, many in hand", (4, 8), (6, 2), "w", force_promoted=True, p_board=0.1)
    for name in ("lance", "bishop", "rook", "2-piece", "4-piece", "6-piece", "10-piece"):
        ps.add(HANDICAPS[name], f"handicap {name} start")
    for name in ("right-lance", "rook-lance", "8-piece", "2-piece", "10-piece"):
        from_handicap(name, rng.randint(20, 70))
    for i in range(8):
        from_game(20, 200, "bw"[i % 2])
    for _ in range(5):
        from_opening(rng.randint(20, 80))
    while len(ps.items) < 60:
        bk, wk = random_king_squares()
        placement("random placement", bk, wk, rng.choice("bw"), p_board=rng.uniform(0.2, 0.9),
                  p_promote=rng.uniform(0.0, 0.5))
    n_special = len(ps.items)

    # --- the rest ------------------------------------------------------------------------
    rest = total - n_special
    plan = ([("game", None)] * (rest * 35 // 100) + [("opening", None)] * (rest * 25 // 100)
            + [("handicap", None)] * (rest * 10 // 100))
    plan += [("placement", None)] * (rest - len(plan))
    rng.shuffle(plan)
    for kind, _ in plan:
        if kind == "game":
            from_game(0, 400)
        elif kind == "opening":
            from_opening(rng.randint(10, 120))
        elif kind == "handicap":
            from_handicap(rng.choice(sorted(HANDICAPS)), rng.randint(0, 90))
        else:
            r = rng.random()
            if r < 0.25:  # a king on the edge or in a corner
                edge = [(f, rk) for f in range(1, 10) for rk in range(1, 10) if f in (1, 9) or rk in (1, 9)]
                while True:
                    bk, wk = rng.choice(edge), rng.choice(edge)
                    if rng.random() < 0.5:
                        bk = random_king_squares()[0]
                    if max(abs(bk[0] - wk[0]), abs(bk[1] - wk[1])) > 1:
                        break
            else:
                bk, wk = random_king_squares()
            placement("random placement", bk, wk, rng.choice("bw"), p_board=rng.uniform(0.1, 0.95),
                      p_promote=rng.uniform(0.0, 0.6), force_promoted=rng.random() < 0.2)
    return ps.items, n_special


def describe_coverage(items):
    """Checks that the list covers the required categories; returns the missing ones."""
    need = {"black to move", "white to move", "18 pawns in a hand", "all seven kinds in a hand",
            "10+ pieces in a hand", "handicap (missing pieces)", "game"}
    for c in ("P", "L", "N", "S", "B", "R"):
        need.add(f"+{c} black")
        need.add(f"+{c} white")
    for king in ("K", "k"):
        for c in ("1a", "9a", "1i", "9i", "edge"):
            need.add(f"{king} {c}")
    have = set()
    for sfen, tag in items:
        board, side, hand = sfen.split()[:3]
        have.add("black to move" if side == "b" else "white to move")
        if tag == "game":
            have.add("game")
        counts, _k = sfen_counts(sfen)
        if any(counts[k] < FULL_SET[k] for k in FULL_SET):
            have.add("handicap (missing pieces)")
        for color_is_black in (True, False):
            hc = {}
            if hand != "-":
                for num, ch in re.findall(r"(\d*)([A-Za-z])", hand):
                    if ch.isupper() == color_is_black:
                        hc[ch.upper()] = int(num) if num else 1
            if hc.get("P", 0) == 18:
                have.add("18 pawns in a hand")
            if len(hc) == 7:
                have.add("all seven kinds in a hand")
            if sum(hc.values()) >= 10:
                have.add("10+ pieces in a hand")
        for tok in re.findall(r"\+[A-Za-z]", board):
            have.add(f"+{tok[1].upper()} {'black' if tok[1].isupper() else 'white'}")
        grid = board_grid(sfen)
        for r in range(9):
            for c in range(9):
                if grid[r][c] in ("K", "k"):
                    file, rank = 9 - c, r + 1
                    if file in (1, 9) and rank in (1, 9):
                        have.add(f"{grid[r][c]} {file}{'abcdefghi'[rank - 1]}")
                    elif file in (1, 9) or rank in (1, 9):
                        have.add(f"{grid[r][c]} edge")
    return sorted(need - have)


# ---------------------------------------------------------------------------
# YaneuraOu
# ---------------------------------------------------------------------------
class YaneuraOu:
    def __init__(self, binary, timeout):
        self.timeout = timeout
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1,
                                  cwd=os.path.dirname(binary))
        self.q = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\r\n"))
        self.q.put(None)

    def send(self, *lines):
        try:
            self.p.stdin.write("".join(ln + "\n" for ln in lines))
            self.p.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError("YaneuraOu exited (broken pipe)")

    def until(self, token, timeout=None):
        """Lines up to and including the one equal to token."""
        out, deadline = [], time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"timeout waiting for {token!r}; last lines: {out[-5:]}")
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError(f"YaneuraOu exited while waiting for {token!r}; last lines: {out[-10:]}")
            out.append(line)
            if line.strip() == token:
                return out

    def rest(self, timeout=None):
        """All lines until the process closes its output."""
        out, deadline = [], time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"timeout waiting for YaneuraOu to exit; last lines: {out[-5:]}")
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.p.wait(timeout=10)
                return out
            out.append(line)

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()


BAD_INFO = re.compile(r"warning|error|mismatch|fail", re.I)


def start_engine(binary, eval_dir, timeout):
    yo = YaneuraOu(binary, timeout)
    yo.send("usi")
    yo.until("usiok")
    yo.send(f"setoption name EvalDir value {eval_dir}", "setoption name Threads value 1",
            "setoption name USI_Hash value 16", "setoption name BookFile value no_book",
            "isready")
    lines = yo.until("readyok")
    bad = [ln for ln in lines if BAD_INFO.search(ln)]
    if bad or not any("loading eval file" in ln for ln in lines):
        yo.close()
        raise RuntimeError("YaneuraOu did not load the net cleanly:\n  " + "\n  ".join(lines))
    return yo, [ln for ln in lines if ln.startswith("info string")]


def probe_header(binary, probe_dir, shape, timeout):
    """Checks our file hash and architecture string against the binary's own: YaneuraOu is given
    a header-only nn.bin with a wrong hash, prints `Warning: NNUE hash mismatch: expected <hash>
    ... arch_expected=<string>`, then fails to read the parameters and exits."""
    file_hash = hashes(shape)[0]
    with open(os.path.join(probe_dir, "nn.bin"), "wb") as f:
        f.write(NNUE_VERSION.to_bytes(4, "little") + (file_hash ^ MASK32).to_bytes(4, "little")
                + (5).to_bytes(4, "little") + b"probe")
    yo = YaneuraOu(binary, timeout)
    try:
        yo.send("usi", f"setoption name EvalDir value {probe_dir}", "setoption name Threads value 1",
                "setoption name USI_Hash value 1", "setoption name BookFile value no_book", "isready")
        lines = yo.rest()
    finally:
        if yo.p.poll() is None:
            yo.p.kill()
            yo.p.wait()
    m = next((re.search(r"NNUE hash mismatch: expected (\d+) got \d+ arch_in_file=probe arch_expected=(.*)$", ln)
              for ln in lines if "NNUE hash mismatch" in ln), None)
    if not m:
        raise RuntimeError(f"{binary}: no hash-mismatch line from the header probe:\n  " + "\n  ".join(lines))
    if int(m.group(1)) != file_hash or m.group(2) != arch_string(shape):
        raise RuntimeError(f"{shape[0]}: YaneuraOu expects hash {int(m.group(1)):#010x} and\n  {m.group(2)}\n"
                           f"we write {file_hash:#010x} and\n  {arch_string(shape)}")


def evaluate(yo, sfens, fv, check_sfen=False):
    yo.send(f"setoption name FV_SCALE value {fv}")
    cmds = []
    for s in sfens:
        cmds += [f"position sfen {s}", "e"] + (["d"] if check_sfen else [])
    cmds.append("isready")
    yo.send(*cmds)
    lines = yo.until("readyok", timeout=yo.timeout + len(sfens))
    evals = [int(m.group(1)) for m in (re.fullmatch(r"eval = (-?\d+)", ln.strip()) for ln in lines) if m]
    if len(evals) != len(sfens):
        raise RuntimeError(f"expected {len(sfens)} evals, got {len(evals)}: {lines[:20]}")
    if check_sfen:
        yo_sfens = [ln.split("sfen ", 1)[1].strip() for ln in lines if ln.startswith("sfen ")]
        if len(yo_sfens) != len(sfens):
            raise RuntimeError(f"`d` printed {len(yo_sfens)} sfen lines for {len(sfens)} positions")
        for ours, theirs in zip(sfens, yo_sfens):
            if norm_sfen(ours) != norm_sfen(theirs):
                raise RuntimeError(f"YaneuraOu reads {ours!r} as {theirs!r}")
    return evals


def norm_sfen(s):
    b = cshogi.Board()
    b.set_sfen(s)
    return " ".join(b.sfen().split()[:3])


def check_fv_consistency(evals_by_fv):
    """The evals at several FV_SCALEs must come from one integer network output."""
    fvs = sorted(evals_by_fv)
    n = min(len(v) for v in evals_by_fv.values())
    for i in range(n):
        lo, hi = -2**40, 2**40
        for fv in fvs:
            v = evals_by_fv[fv][i]
            # trunc(x / fv) == v  <=>  x in [v*fv, v*fv + fv - 1] (v > 0), [v*fv - fv + 1, v*fv] (v < 0)
            if v > 0:
                a, b = v * fv, v * fv + fv - 1
            elif v < 0:
                a, b = v * fv - fv + 1, v * fv
            else:
                a, b = -fv + 1, fv - 1
            lo, hi = max(lo, a), min(hi, b)
        if lo > hi:
            raise RuntimeError(f"position {i}: evals {[(fv, evals_by_fv[fv][i]) for fv in fvs]} "
                               "are not one network output at different FV_SCALEs")


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------
def fv_plan(shape_name, n_all, n_special):
    if shape_name == "halfkp_256x2-32-32":
        return [(16, n_all), (24, n_special), (40, n_special)]
    if shape_name in ("kp_256x2-32-32", "halfkp_1024x2-8-32"):
        return [(16, n_all)]
    return [(16, n_special)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--yo-bin-dir", default="/work/yo/bin")
    ap.add_argument("--out", default="tests/data/yo_nnue_evals.txt")
    ap.add_argument("--shapes", default="", help="comma-separated shape names (default: all)")
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--pos-seed", type=int, default=20261206)
    ap.add_argument("--tmp-dir", default=None)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--write-net", nargs=2, metavar=("SHAPE", "PATH"))
    args = ap.parse_args()

    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if args.write_net:
        name, path = args.write_net
        size, digest = write_net(SHAPE_BY_NAME[name], SEEDS[name], path)
        print(f"{name} seed={SEEDS[name]} bytes={size} sha256={digest}")
        return

    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = [s for s in args.shapes.split(",") if s] or [s[0] for s in SHAPES]
    for name in names:
        if name not in SHAPE_BY_NAME:
            sys.exit(f"unknown shape {name}; known: {', '.join(SHAPE_BY_NAME)}")
        binary = os.path.join(args.yo_bin_dir, name, "YaneuraOu")
        if not os.access(binary, os.X_OK):
            sys.exit(f"missing YaneuraOu binary for {name}: {binary}")

    t0 = time.monotonic()
    rng = random.Random(args.pos_seed)
    items, n_special = build_positions(rng, repo_root, args.positions)
    missing = describe_coverage(items[:60])
    if missing:
        sys.exit(f"the first 60 positions miss: {missing}")
    sfens = [s for s, _tag in items]
    print(f"{len(sfens)} positions ({n_special} special) in {time.monotonic() - t0:.1f} s", flush=True)

    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    cmd = "python3 scripts/gen_yo_nnue_fixture.py " + " ".join(
        a for a in sys.argv[1:])
    out = [
        "# YaneuraOu static evaluations (USI command `e`) of KRN1 seeded random NNUE nets.",
        "# Made by scripts/gen_yo_nnue_fixture.py (KRN1 spec and positions: see its docstring)",
        f"# from YaneuraOu commit {YO_COMMIT} (9.70git), built locally with",
        "#   make normal YANEURAOU_EDITION=<edition> TARGET_CPU=AVX2 COMPILER=g++",
        f"# date {date}; command: {cmd}",
        f"# positions: {len(sfens)} (pos-seed {args.pos_seed}); the first {n_special} are the special ones",
        "# net <shape> seed=<n> bytes=<nn.bin size> sha256=<nn.bin>; fv <FV_SCALE>; e <eval> <sfen>",
    ]
    tmp_root = tempfile.mkdtemp(prefix="yo_nnue_", dir=args.tmp_dir)
    try:
        for idx, name in enumerate(names):
            t1 = time.monotonic()
            shape = SHAPE_BY_NAME[name]
            net_dir = os.path.join(tmp_root, name)
            os.makedirs(net_dir)
            binary = os.path.join(args.yo_bin_dir, name, "YaneuraOu")
            probe_header(binary, net_dir, shape, args.timeout)
            size, digest = write_net(shape, SEEDS[name], os.path.join(net_dir, "nn.bin"))
            t2 = time.monotonic()
            yo, _info = start_engine(binary, net_dir, args.timeout)
            try:
                out.append(f"net {name} seed={SEEDS[name]} bytes={size} sha256={digest}")
                by_fv = {}
                for fv, count in fv_plan(name, len(sfens), n_special):
                    evals = evaluate(yo, sfens[:count], fv, check_sfen=(idx == 0 and fv == 16))
                    by_fv[fv] = evals
                    out.append(f"fv {fv}")
                    out.extend(f"e {v} {s}" for v, s in zip(evals, sfens[:count]))
                check_fv_consistency(by_fv)
            finally:
                yo.close()
            shutil.rmtree(net_dir)
            ev = by_fv[16]
            print(f"{name}: seed {SEEDS[name]} {size} bytes, net {t2 - t1:.1f} s, YaneuraOu "
                  f"{time.monotonic() - t2:.1f} s; evals min {min(ev)} max {max(ev)} "
                  f"distinct {len(set(ev))}/{len(ev)}", flush=True)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {args.out}: {len(out)} lines in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
