#!/usr/bin/env python3
"""USI adapter for an engine that does not know Fischer increments: removes `binc N` and
`winc N` from every `go` line and passes everything else through unchanged, both ways.

    scripts/usi_no_increment.py /usr/games/gpsusi [engine args...]
    python3 scripts/sprt.py --base scripts/usi_no_increment.py --base-args=/usr/games/gpsusi ... --fischer 10+1
    python3 scripts/usi_no_increment.py --self-test

Why: GPS Shogi's `gpsusi` aborts on the first `go btime .. wtime .. binc .. winc ..`
("unknown option in go binc", then std::runtime_error), so it cannot play a Fischer game at
all (found 2026-11-27, issue 13's 10 s + 1 s proofs). Without the increments the engine sees
its true remaining time as a sudden-death clock: it never overdraws (the clock it plans with
is never more than it has), and since shogiarena adds the increment after each move its bank
grows and it spends about the increment a move once the bank settles. It plays with less than
it could know, so a result against it through this adapter is marked as such.

Lines go through unbuffered; the child's stderr is the adapter's. When the runner closes stdin
the adapter closes the engine's; when the engine's output ends (it quit or crashed) the adapter
exits at once with the engine's status.
"""

import os
import re
import subprocess
import sys
import threading

_INC = re.compile(r"\s+[bw]inc\s+\S+")


def rewrite(line):
    """The line to send the engine: a `go` command without its increments, else unchanged."""
    if line.split(maxsplit=1)[:1] == ["go"]:
        return _INC.sub("", line.rstrip("\n")) + "\n"
    return line


def run(argv, rewrite=rewrite, reply=None):
    """Runs the engine `argv`, sending it every runner line through `rewrite` and passing its
    output back through `reply` (unchanged when `None`); returns its exit status.
    `scripts/usi_swap_clocks.py` and `scripts/usi_no_ponder.py` reuse it."""
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def pump_out():
        for line in child.stdout:
            sys.stdout.write(line if reply is None else reply(line))
            sys.stdout.flush()
        # The engine is gone (quit or crash): so is the adapter, at once, with its status, so
        # that the runner sees the end of the stream rather than silence.
        sys.stdout.flush()
        os._exit(child.wait())

    out = threading.Thread(target=pump_out, daemon=True)
    out.start()
    try:
        for line in sys.stdin:
            child.stdin.write(rewrite(line))
            child.stdin.flush()
    except BrokenPipeError:
        pass
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass
    status = child.wait()
    out.join(timeout=5)
    return status


def check_pairs(fn, checks):
    """The failures of `fn` on `checks`, (given, want) pairs, as (given, got, want) triples."""
    return [(given, fn(given), want) for given, want in checks if fn(given) != want]


def check_end_to_end(script, engine_code, runner_input, want):
    """The adapter `script` run around a Python engine executing `engine_code` and fed
    `runner_input`: no failure if the runner reads `want` and the adapter exits 0, else one."""
    p = subprocess.run(
        [sys.executable, script, sys.executable, "-c", engine_code],
        input=runner_input,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if p.stdout == want and p.returncode == 0:
        return []
    return [("end to end", p.stdout + f"(status {p.returncode})", want)]


def report(failed, total):
    """Prints a self-test's failures and its tally; returns the exit status."""
    for given, got, want in failed:
        print(f"FAIL {given!r}: got {got!r}, want {want!r}")
    print(f"self-test: {total - len(failed)}/{total} checks passed")
    return 1 if failed else 0


def check_engine_exit():
    """An engine that dies while the runner still holds stdin open: the adapter must end too,
    with the engine's status and its last words."""
    dying = [sys.executable, "-c", "import sys; print('bye', flush=True); sys.exit(3)"]
    q = subprocess.Popen([sys.executable, __file__, *dying], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        status = q.wait(timeout=10)  # stdin still open: only the engine's end can stop it
        out = q.stdout.read()
    except subprocess.TimeoutExpired:
        q.kill()
        q.wait()
        out, status = "", "hung"
    q.stdin.close()
    q.stdout.close()
    if out != "bye\n" or status != 3:
        return [("engine exit", f"{out!r} (status {status})", "'bye\\n' (status 3)")]
    return []


# An engine that echoes what it receives: shows an input rewrite and the pass-through.
ECHO = "import sys\nfor l in sys.stdin: print('got', l.strip(), flush=True)"


def self_test():
    checks = [
        ("go btime 10000 wtime 9000 binc 1000 winc 1000\n", "go btime 10000 wtime 9000\n"),
        ("go wtime 5 winc 7 btime 6 binc 8\n", "go wtime 5 btime 6\n"),
        ("go btime 1 wtime 1 byoyomi 1000\n", "go btime 1 wtime 1 byoyomi 1000\n"),
        ("go ponder btime 1 wtime 1 binc 2 winc 3\n", "go ponder btime 1 wtime 1\n"),
        ("go infinite\n", "go infinite\n"),
        ("position startpos moves 7g7f\n", "position startpos moves 7g7f\n"),
        ("setoption name binc value 3\n", "setoption name binc value 3\n"),
        ("gonogo binc 1\n", "gonogo binc 1\n"),
    ]
    failed = check_pairs(rewrite, checks)
    failed += check_end_to_end(
        __file__, ECHO, "usi\ngo btime 3 wtime 4 binc 5 winc 6\nquit\n", "got usi\ngot go btime 3 wtime 4\ngot quit\n"
    )
    failed += check_engine_exit()
    return report(failed, len(checks) + 2)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1:]))
