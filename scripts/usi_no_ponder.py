#!/usr/bin/env python3
"""USI adapter that keeps a runner from pondering an engine: removes `ponder <move>` from every
`bestmove` line the engine sends and passes everything else through unchanged, both ways.

    scripts/usi_no_ponder.py /usr/games/fairy-stockfish [engine args...]
    scripts/usi_swap_clocks.py scripts/usi_no_ponder.py /usr/games/fairy-stockfish   (adapters chain)
    python3 scripts/usi_no_ponder.py --self-test

Why: shogiarena sends `go ponder` after every `bestmove X ponder Y` to any engine that does not
declare `USI_Ponder`, whatever its own options say. Fairy-Stockfish 11.1 declares only the UCI
name `Ponder` (default false), so it ponders in every run. With one game at a time and 2 threads
each (issue 13's 2-thread runs) its pondering would take both cores while Kaname thinks and halve
Kaname's speed: the match would measure the machine's sharing, not the engines. Without a
predicted move the runner has nothing to ponder, so the engine thinks only on its own clock, as
its `Ponder false` says it should.

Lines go through unbuffered, as in `usi_no_increment.py` (whose pump this reuses).
"""

import re
import sys

from usi_no_increment import check_end_to_end, check_pairs, report, run

_PONDER = re.compile(r"\s+ponder\s+\S+")


def reply(line):
    """The line to give the runner: a `bestmove` without its `ponder` move, else unchanged."""
    if line.split(maxsplit=1)[:1] == ["bestmove"]:
        return _PONDER.sub("", line.rstrip("\n"), count=1) + "\n"
    return line


def self_test():
    checks = [
        ("bestmove 7g7f ponder 3c3d\n", "bestmove 7g7f\n"),
        ("bestmove 7g7f\n", "bestmove 7g7f\n"),
        ("bestmove resign\n", "bestmove resign\n"),
        ("bestmove P*5e ponder 5d5e+\n", "bestmove P*5e\n"),
        ("info depth 3 pv 7g7f 3c3d ponder\n", "info depth 3 pv 7g7f 3c3d ponder\n"),
        ("option name Ponder type check default false\n", "option name Ponder type check default false\n"),
    ]
    failed = check_pairs(reply, checks)
    # End to end: an engine that answers `go` with a ponder move; the runner must not see it.
    engine = "import sys\nfor l in sys.stdin: print('bestmove 2g2f ponder 8c8d' if l.startswith('go') else 'got ' + l.strip(), flush=True)"
    failed += check_end_to_end(__file__, engine, "usi\ngo btime 1 wtime 2\nquit\n", "got usi\nbestmove 2g2f\ngot quit\n")
    return report(failed, len(checks) + 1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1:], reply=reply))
