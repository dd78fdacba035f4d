#!/usr/bin/env python3
"""USI adapter for Fairy-Stockfish 11.1 (Debian's `fairy-stockfish`), which reads the clocks of
a USI `go` the wrong way round: swaps `btime`<->`wtime` and `binc`<->`winc` in every `go` line
and passes everything else through unchanged, both ways.

    scripts/usi_swap_clocks.py /usr/games/fairy-stockfish [engine args...]
    python3 scripts/sprt.py --base scripts/usi_swap_clocks.py --base-args=/usr/games/fairy-stockfish ... --fischer 10+1
    python3 scripts/usi_swap_clocks.py --self-test

Why: in USI `btime` is sente's clock, but Fairy-Stockfish stores sente as its internal WHITE
and parses `btime` into BLACK's slot, so it plans with its opponent's clock (upstream issue
fairy-stockfish/Fairy-Stockfish#269, fixed after 11.1). Measured 2026-11-28 from the start
position, sente to move: `go btime 60000 wtime 1000` thinks 13 ms, `go btime 1000 wtime 60000`
2260 ms; gote to move, the other way round. At byoyomi (both clocks 0, one byoyomi) it makes no
difference; on a Fischer clock it loses on time whenever it has less than its opponent (35 of
its 37 losses in the first 38 games at 10 s + 1 s, `results/2026-11-28-main561116-vs-fsf-fischer10+1-partial`).
Through this adapter it reads its own clock, as the protocol means it to.

Lines go through unbuffered, as in `usi_no_increment.py` (whose pump this reuses).
"""

import sys

from usi_no_increment import ECHO, check_end_to_end, check_pairs, report, run

_SWAP = {"btime": "wtime", "wtime": "btime", "binc": "winc", "winc": "binc"}


def rewrite(line):
    """The line to send the engine: a `go` command with the two sides' clocks exchanged, else
    unchanged. Only keywords are swapped; their values (numbers) never match one."""
    words = line.split()
    if words[:1] != ["go"]:
        return line
    return " ".join(_SWAP.get(w, w) for w in words) + "\n"


def self_test():
    checks = [
        ("go btime 10000 wtime 9000 binc 1000 winc 2000\n", "go wtime 10000 btime 9000 winc 1000 binc 2000\n"),
        ("go ponder btime 1 wtime 2 byoyomi 1000\n", "go ponder wtime 1 btime 2 byoyomi 1000\n"),
        ("go infinite\n", "go infinite\n"),
        ("go mate 5000\n", "go mate 5000\n"),
        ("position startpos moves 7g7f\n", "position startpos moves 7g7f\n"),
        ("setoption name btime value 3\n", "setoption name btime value 3\n"),
        ("gonogo btime 1\n", "gonogo btime 1\n"),
    ]
    failed = check_pairs(rewrite, checks)
    failed += check_end_to_end(
        __file__,
        ECHO,
        "usi\ngo btime 3 wtime 4 binc 5 winc 6\nquit\n",
        "got usi\ngot go wtime 3 btime 4 winc 5 binc 6\ngot quit\n",
    )
    return report(failed, len(checks) + 1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1:], rewrite))
