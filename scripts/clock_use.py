#!/usr/bin/env python3
"""How each engine of shogiarena runs spent its clock: the mean time of its moves by phase of the
game, its longest move, and the clock it had left when each game ended (median), replayed from
the per-move times the runner charged (`wall_time_ms`, the runner's own clock; the engine's
reported `next_move_time_ms` only where that is missing: gpsusi reports 10% less than it takes):

    python3 scripts/clock_use.py RUN_DIR/game.db [more game.db ...] [--bucket 20]

A Fischer clock (`M+0+I`, seconds) loses each move's time and gains the increment after it; a
byoyomi clock (`M+B+0`) loses only what a move takes beyond the byoyomi, from the main time,
never below zero; sudden death (`M+0+0`) only loses each move's time. Besides the median clock
at the end it prints the lowest clock after any move (below zero: a move the clock did not
cover). Why: issue 13 asks whether the time plan spends the main time ("today the Fischer plan
banks the main time") and lasts a sudden-death game, and the games themselves say it (a plan
that keeps half its clock to the end, or that cannot think longer on a hard move, shows here).
`--self-test` checks the replay (standard library only).
"""
import argparse
import sqlite3
import statistics
import sys


def parse_time_control(text):
    """shogiarena's `main+byoyomi+increment` in seconds, as milliseconds (None if another form)."""
    try:
        main, byoyomi, inc = (round(float(x) * 1000) for x in text.split("+"))
    except (AttributeError, ValueError):
        return None
    return main, byoyomi, inc


def replay(tc, times):
    """The clock left after each move of one side, given its time control and move times (ms)."""
    main, byoyomi, inc = tc
    clock, out = main, []
    for t in times:
        if byoyomi:
            clock = max(0, clock - max(0, t - byoyomi))
        else:
            clock = clock - t + inc
        out.append(clock)
    return out


def side_to_move(sfen):
    """0 for Black (sente), 1 for White, from an SFEN's second field."""
    return 0 if sfen.split()[1] == "b" else 1


class Stats:
    """One player's moves over all games."""

    def __init__(self, bucket):
        self.bucket, self.by_phase, self.left, self.longest, self.games = bucket, {}, [], 0, 0
        self.lowest = None  # the least clock after any move of any game (below 0: out of time)

    def add_game(self, tc, plies_and_times):
        times = [t for _, t in plies_and_times]
        for ply, t in plies_and_times:
            self.by_phase.setdefault(ply // self.bucket, []).append(t)
            self.longest = max(self.longest, t)
        if times and tc:
            clocks = replay(tc, times)
            self.left.append(clocks[-1])
            self.lowest = min(clocks + ([] if self.lowest is None else [self.lowest]))
        self.games += 1

    def lines(self, name):
        phases = ", ".join(
            f"{b * self.bucket}-{(b + 1) * self.bucket - 1}: {statistics.mean(v):.0f} ({len(v)})"
            for b, v in sorted(self.by_phase.items())
        )
        left = f"{statistics.median(self.left):.0f} ms" if self.left else "-"
        lowest = "-" if self.lowest is None else f"{self.lowest} ms"
        return [
            f"{name}: {self.games} games, longest move {self.longest} ms, clock left at the end (median) {left},"
            f" lowest after a move {lowest}",
            f"  mean ms a move by ply (moves): {phases}",
        ]


def self_test():
    assert parse_time_control("10+0+1") == (10000, 0, 1000)
    assert parse_time_control("0+0.1+0") == (0, 100, 0)
    assert parse_time_control(None) is None and parse_time_control("n500") is None
    # Fischer: the increment comes after the move.
    assert replay((10000, 0, 1000), [1500, 1000, 500]) == [9500, 9500, 10000]
    # Byoyomi: only time beyond the byoyomi is charged, to the main time, never below zero.
    assert replay((2000, 1000, 0), [1500, 2000, 3000, 900]) == [1500, 500, 0, 0]
    assert side_to_move("lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL w - 2") == 1
    # A game from White's move: rows alternate from the side to move.
    db = sqlite3.connect(":memory:")
    db.executescript(
        "create table player (id, player_name);"
        "create table game (id, black_player_id, white_player_id, time_control_black,"
        " time_control_white, initial_position_sfen);"
        "create table game_move (game_id, ply, next_move_time_ms, wall_time_ms);"
        "insert into player values (1, 'a'), (2, 'b');"
        "insert into game values (1, 1, 2, '10+0+1', '10+0+1', 'k8/9/9/9/9/9/9/9/8K w - 8');"
        # The runner charges its own wall time; the engine's reported time (2500) is not it.
        "insert into game_move values (1, 7, 2500, 3000), (1, 8, 1200, null), (1, 9, 1000, 1000),"
        " (1, 10, 1400, 1400), (1, 11, null, null);"
    )
    stats = {}
    read_db(db, stats, 20)
    a, b = stats["a"], stats["b"]
    assert (a.left, b.left) == ([9400], [8000]), (a.left, b.left)
    assert (a.lowest, b.lowest) == (9400, 8000), (a.lowest, b.lowest)
    # Sudden death (no byoyomi, no increment): the clock only falls, and may fall below zero.
    assert replay((3000, 0, 0), [1000, 2500]) == [2000, -500]
    assert a.by_phase == {0: [1200, 1400]} and b.longest == 3000
    print("clock_use.py: all checks passed")


def read_db(db, stats, bucket):
    """Adds every game of an open shogiarena database to `stats` (player name -> Stats). The
    rows of a game alternate sides from the side to move of its start position."""
    names = dict(db.execute("select id, player_name from player"))
    for gid, black, white, tc_b, tc_w, sfen in db.execute(
        "select id, black_player_id, white_player_id, time_control_black, time_control_white,"
        " initial_position_sfen from game order by id"
    ).fetchall():
        rows = db.execute(
            "select ply, coalesce(wall_time_ms, next_move_time_ms) as t from game_move"
            " where game_id = ? and t is not null order by ply",
            (gid,),
        ).fetchall()
        if not rows:
            continue
        first = side_to_move(sfen)
        sides = ([], [])
        for i, (ply, t) in enumerate(rows):
            sides[(first + i) % 2].append((ply, t))
        for side, (pid, tc) in enumerate([(black, tc_b), (white, tc_w)]):
            stats.setdefault(names[pid], Stats(bucket)).add_game(parse_time_control(tc), sides[side])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game_db", nargs="*", help="shogiarena game.db files")
    ap.add_argument("--bucket", type=int, default=20, help="plies per phase (default 20)")
    ap.add_argument("--self-test", action="store_true", help="check the replay and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.game_db:
        ap.error("give at least one game.db")
    stats = {}
    for path in args.game_db:
        read_db(sqlite3.connect(f"file:{path}?mode=ro", uri=True), stats, args.bucket)
    for name in sorted(stats):
        print("\n".join(stats[name].lines(name)))


if __name__ == "__main__":
    sys.exit(main())
