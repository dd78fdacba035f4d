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
    failed = [(given, rewrite(given), want) for given, want in checks if rewrite(given) != want]
    # End to end: a child that echoes what it receives shows the rewrite and the pass-through.
    echo = [sys.executable, "-c", "import sys\nfor l in sys.stdin: print('got', l.strip(), flush=True)"]
    p = subprocess.run(
        [sys.executable, __file__, *echo],
        input="usi\ngo btime 3 wtime 4 binc 5 winc 6\nquit\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    want = "got usi\ngot go btime 3 wtime 4\ngot quit\n"
    if p.stdout != want or p.returncode != 0:
        failed.append(("end to end", p.stdout + f"(status {p.returncode})", want))
    # An engine that dies while the runner still holds stdin open: the adapter must end too.
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
        failed.append(("engine exit", f"{out!r} (status {status})", "'bye\\n' (status 3)"))
    total = len(checks) + 2
    for given, got, want in failed:
        print(f"FAIL {given!r}: got {got!r}, want {want!r}")
    print(f"self-test: {total - len(failed)}/{total} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1:]))
