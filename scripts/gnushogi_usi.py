#!/usr/bin/env python3
"""USI adapter around GNU Shogi (gnushogi, xshogi text protocol).

Speaks USI on stdin/stdout and drives one gnushogi child process.  For every
`go`, the adapter sends gnushogi `new`, `level 0 0:S`, `force`, replays the
whole game of the last `position` command, then `white` (gnushogi plays Black)
or `black` (gnushogi plays White) -- the reverse of gnushogi's help text --
and `first` to make it move now.  gnushogi answers `N. ... <move> <clock>`;
the move notation is the same as USI (7g7f, 8h2b+, P*5e), so no translation
is needed.  After its move the adapter puts gnushogi back into force mode.

Time: gnushogi only takes whole seconds per move (`level 0 0:S`, S >= 1;
0 or fractions mean "no limit").  The adapter computes a per-move budget from
`go byoyomi/btime/wtime/binc/winc/movetime` and rounds it down to seconds,
minimum 1.  gnushogi then uses S seconds (+~10 ms) per move, so with
byoyomi < 1000 + overhead it can overrun slightly.  It cannot be stopped
early: `stop` is accepted but the move comes when gnushogi's time is up
(SIGUSR1 kills it).

End of game: gnushogi does not resign in this mode; when it is mated (or
finds no move) it prints `<Colour> mates!` or `Drawn game!` instead of a move;
the adapter answers `bestmove resign` then.  If gnushogi rejects a replayed
move (`Illegal move ...`), the adapter reports it in `info string` and
answers `bestmove resign`.

Only `position startpos [moves ...]` (or the start-position SFEN) is
supported.  With `--minishogi` the adapter drives gnuminishogi (GNU Shogi's 5x5
build, same protocol and the same move notation on files 1-5, ranks a-e) and
the start is Minishogi's.  Options: `Seconds` (fixed seconds per move, 0 = from the clock),
`Book` (gnushogi's opening book), `MarginMs` (safety margin subtracted from
the budget).  `USI_Hash`, `Threads` etc. are accepted and ignored.
"""

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

MINI = "--minishogi" in sys.argv[1:]
PROGRAM = "gnuminishogi" if MINI else "gnushogi"
START_SFEN = "rbsgk/4p/5/P4/KGSBR b - 1" if MINI else "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

def find_gnushogi():
    env = os.environ.get("GNUMINISHOGI" if MINI else "GNUSHOGI")
    for cand in (env, shutil.which(PROGRAM), "/usr/games/" + PROGRAM):
        if cand and os.path.exists(cand):
            return cand
    return PROGRAM


class Adapter:
    def __init__(self):
        self.out_lock = threading.Lock()
        self.proc = None
        self.lines = queue.Queue()
        self.moves = []
        self.options = {"Seconds": 0, "Book": True, "MarginMs": 150}
        self.worker = None
        self.tmpdir = tempfile.mkdtemp(prefix="gnushogi_usi_")
        self.debug = bool(os.environ.get("GNUSHOGI_USI_DEBUG"))

    # ---- output helpers -------------------------------------------------
    def say(self, line):
        with self.out_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def log(self, line):
        if self.debug:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    # ---- gnushogi process -----------------------------------------------
    def start(self):
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen(
            [find_gnushogi()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1, cwd=self.tmpdir)
        self.lines = queue.Queue()
        threading.Thread(target=self._reader, args=(self.proc, self.lines), daemon=True).start()
        self._expect(lambda l: l.startswith("GNU Shogi"), 10.0)

    @staticmethod
    def _reader(proc, q):
        for line in proc.stdout:
            q.put(line.rstrip("\n"))
        q.put(None)

    def send(self, cmd):
        self.log("> " + cmd)
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def _expect(self, pred, timeout):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                return None
            self.log("< " + line)
            if pred(line):
                return line

    def _drain(self):
        """Collect lines already printed (replayed-move echoes, errors)."""
        got = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return got
            if line is None:
                return got
            self.log("< " + line)
            got.append(line)

    # ---- time ----------------------------------------------------------
    def seconds_for(self, args, black_to_move):
        if int(self.options["Seconds"]) > 0:
            return int(self.options["Seconds"])
        margin = int(self.options["MarginMs"])
        def geti(k):
            return int(args[k]) if k in args else 0
        if "movetime" in args:
            budget = geti("movetime") - margin
        else:
            own = geti("btime") if black_to_move else geti("wtime")
            inc = geti("binc") if black_to_move else geti("winc")
            byo = geti("byoyomi")
            if byo > 0:
                budget = own // 40 + byo - margin
            elif own > 0 or inc > 0:
                budget = min(own // 30 + inc, max(0, own + inc - 1000)) - margin
            else:
                budget = 5000  # go infinite / no clock: a fixed 5 s
        return max(1, budget // 1000)

    # ---- USI commands --------------------------------------------------
    def cmd_position(self, toks):
        if len(toks) >= 2 and toks[1] == "startpos":
            rest = toks[2:]
        elif len(toks) >= 6 and toks[1] == "sfen" and " ".join(toks[2:6]) == START_SFEN:
            rest = toks[6:]
        else:
            self.say("info string gnushogi_usi supports only startpos positions")
            self.moves = None
            return
        self.moves = rest[1:] if rest and rest[0] == "moves" else []

    def cmd_go(self, toks):
        args = {}
        i = 1
        while i < len(toks):
            k = toks[i]
            if k in ("btime", "wtime", "binc", "winc", "byoyomi", "movetime") and i + 1 < len(toks):
                args[k] = toks[i + 1]
                i += 2
            else:
                args[k] = True
                i += 1
        moves = list(self.moves) if self.moves is not None else None
        self.worker = threading.Thread(target=self._think, args=(moves, args), daemon=True)
        self.worker.start()

    def _think(self, moves, args):
        if moves is None:
            self.say("bestmove resign")
            return
        try:
            self.start()
            black_to_move = len(moves) % 2 == 0
            secs = self.seconds_for(args, black_to_move)
            self._drain()
            self.send("new")
            want_book = str(self.options["Book"]).lower() in ("true", "1")
            # `new` turns the book back on; `book` toggles it.
            if not want_book:
                self.send("book")
            self.send("level 0 0:%d" % secs)
            self.send("force")
            for m in moves:
                self.send(m)
            # gnushogi's own help text is reversed in this (non-xboard) mode:
            # `white` makes the computer play Black, `black` makes it play White.
            self.send("white" if black_to_move else "black")
            self.send("first")
            bad = None
            timeout = secs * 3 + 30
            while True:
                line = self._expect(lambda l: True, timeout)
                if line is None:
                    self.say("info string gnushogi gave no answer (died or hung)")
                    self.say("bestmove resign")
                    self._restart()
                    return
                if line.startswith("Illegal move"):
                    bad = line
                    continue
                if " ... " in line:
                    mv = line.split(" ... ", 1)[1].split()[0]
                    self.send("force")
                    if bad:
                        self.say("info string gnushogi: %s" % bad)
                        self.say("bestmove resign")
                        return
                    self.say("info string gnushogi level 0 0:%d" % secs)
                    self.say("bestmove " + mv)
                    return
                if "mates!" in line or "Drawn game" in line or "Resign" in line:
                    self.send("force")
                    self.say("info string gnushogi: %s%s" % (line, (" / " + bad) if bad else ""))
                    self.say("bestmove resign")
                    return
        except (BrokenPipeError, OSError) as e:
            self.say("info string gnushogi error: %s" % e)
            self.say("bestmove resign")
            self._restart()

    def _restart(self):
        try:
            if self.proc is not None:
                self.proc.kill()
                self.proc.wait(timeout=5)
        except Exception:
            pass
        self.proc = None

    def wait_worker(self):
        if self.worker is not None:
            self.worker.join()
            self.worker = None

    def run(self):
        for raw in sys.stdin:
            toks = raw.split()
            if not toks:
                continue
            c = toks[0]
            if c == "usi":
                self.say("id name GNU %s (gnushogi_usi)" % ("Minishogi" if MINI else "Shogi"))
                self.say("id author GNU Shogi authors; adapter by Kaname")
                self.say("option name Seconds type spin default 0 min 0 max 3600")
                self.say("option name Book type check default true")
                self.say("option name MarginMs type spin default 150 min 0 max 10000")
                self.say("usiok")
            elif c == "isready":
                self.wait_worker()
                self.start()
                self.say("readyok")
            elif c == "setoption":
                # setoption name N value V
                if "name" in toks:
                    ni = toks.index("name")
                    vi = toks.index("value") if "value" in toks else len(toks)
                    name = " ".join(toks[ni + 1:vi])
                    val = " ".join(toks[vi + 1:]) if vi < len(toks) else ""
                    if name in self.options:
                        self.options[name] = val
            elif c == "usinewgame":
                self.wait_worker()
            elif c == "position":
                self.wait_worker()
                self.cmd_position(toks)
            elif c == "go":
                self.wait_worker()
                self.cmd_go(toks)
            elif c in ("stop", "ponderhit"):
                pass  # gnushogi cannot be interrupted; the move comes when its time is up
            elif c == "gameover":
                self.wait_worker()
            elif c == "quit":
                break
        self._restart()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


if __name__ == "__main__":
    Adapter().run()
