#!/usr/bin/env python3
"""What the records of a shogiarena match say about each side's search, beyond W-L-D:

    python3 scripts/game_stats.py RUN [RUN ...] [--threshold 300]

RUN is a shogiarena run directory (sprt.py's OUT/run) or its game.db. For each engine, over the
moves it searched (book moves and moves without a report left out): nodes/s (the nodes and time of
its last `info` before each `bestmove`, summed), the median and mean depth of that report, and its
mean wall time a move. For each decided game, "seen first": the first ply at which the winner's own
score reached +THRESHOLD, and the first at which the loser's fell to -THRESHOLD (scores are from
the side to move, as USI reports them); the loser saw its loss first when its ply is the smaller.
Why: in a same-net match (issue 65) only the search differs, and whose search sees a decisive
line first, at what depth and speed, is where to look for the next change.
"""
import argparse
import sqlite3
import statistics
import sys
from pathlib import Path


def open_db(path):
    p = Path(path)
    return sqlite3.connect(p / "game.db" if p.is_dir() else p)


def engine_stats(db, names):
    """{engine: (moves, nodes, info_ms, depths, wall_ms)} over searched moves."""
    stats = {}
    rows = db.execute(
        "select g.black_player_id, g.white_player_id, m.ply, m.nodes, m.next_move_time_ms, m.depth, "
        "m.engine_wall_time_ms, m.move_source from game_move m join game g on g.id = m.game_id"
    )
    for black, white, ply, nodes, info_ms, depth, wall_ms, source in rows:
        if source != "search" or not nodes or not info_ms or depth is None:
            continue
        # Plies count from the game's start position; the initial position's side is Black
        # for every opening of our files (`startpos moves ...` or a SFEN with b).
        who = names[black if ply % 2 == 0 else white]
        s = stats.setdefault(who, [0, 0, 0, [], 0])
        s[0] += 1
        s[1] += nodes
        s[2] += info_ms
        s[3].append(depth)
        s[4] += wall_ms or 0
    return stats


def seen_first(db, names, threshold):
    """Per decided game: (winner, loser, winner's first ply at +threshold, loser's at -threshold)."""
    out = []
    games = db.execute("select id, game_result, black_player_id, white_player_id from game")
    for gid, result, black, white in games.fetchall():
        if result not in ("BLACK_WIN", "WHITE_WIN"):
            continue
        winner, loser = (black, white) if result == "BLACK_WIN" else (white, black)
        w_ply = l_ply = None
        moves = db.execute("select ply, eval from game_move where game_id = ? order by ply", (gid,))
        for ply, ev in moves:
            if ev is None:
                continue
            mover = black if ply % 2 == 0 else white
            if mover == winner and w_ply is None and ev >= threshold:
                w_ply = ply
            if mover == loser and l_ply is None and ev <= -threshold:
                l_ply = ply
        out.append((names[winner], names[loser], w_ply, l_ply))
    return out


def report_checks(checks):
    """A self-test's verdict on [(got, want)]: each mismatch printed, exit 1 if any."""
    failed = [(got, want) for got, want in checks if got != want]
    for got, want in failed:
        print(f"FAILED: got {got}, want {want}")
    if failed:
        sys.exit(1)
    print(f"{len(checks)} checks passed")


def self_test():
    """Two hand-made games in shogiarena's tables: the figures and the seen-first counts."""
    db = sqlite3.connect(":memory:")
    db.executescript(
        "create table player (id integer, player_name text);"
        "create table game (id integer, game_result text, black_player_id integer, white_player_id integer);"
        "create table game_move (game_id integer, ply integer, eval integer, depth integer, nodes integer,"
        " next_move_time_ms integer, engine_wall_time_ms integer, move_source text);"
        "insert into player values (1, 'a'), (2, 'b');"
        "insert into game values (1, 'BLACK_WIN', 1, 2), (2, 'WHITE_WIN', 1, 2);"
    )
    moves = [
        # Game 1, a (Black) wins: b falls to -300 at ply 5, a reaches +300 at ply 6.
        (1, 4, 50, 10, 1000, 500, 950, "search"), (1, 5, -350, 12, 3000, 1000, 950, "search"),
        (1, 6, 400, 11, 1000, 500, 950, "search"), (1, 7, -900, 12, 3000, 1000, 950, "search"),
        # Game 2, b (White) wins: b reaches +300 at ply 5, a never falls to -300; a book move.
        (2, 4, 0, None, None, None, 10, "book"), (2, 5, 320, 14, 2000, 1000, 950, "search"),
        (2, 6, -200, 13, 1000, 500, 950, "search"),
    ]
    db.executemany("insert into game_move values (?, ?, ?, ?, ?, ?, ?, ?)", moves)
    names = dict(db.execute("select id, player_name from player"))
    stats = engine_stats(db, names)
    checks = [
        (stats["a"][:3], [3, 3000, 1500]),
        (stats["a"][3], [10, 11, 13]),
        (stats["b"][:3], [3, 8000, 3000]),
        (sorted(seen_first(db, names, 300)), [("a", "b", 6, 5), ("b", "a", 5, None)]),
    ]
    report_checks(checks)


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--threshold", type=int, default=300)
    a = ap.parse_args()
    totals, firsts = {}, []
    for run in a.runs:
        db = open_db(run)
        names = dict(db.execute("select id, player_name from player"))
        for who, s in engine_stats(db, names).items():
            t = totals.setdefault(who, [0, 0, 0, [], 0])
            for i in (0, 1, 2, 4):
                t[i] += s[i]
            t[3] += s[3]
        firsts += seen_first(db, names, a.threshold)
    if not totals:
        sys.exit("no searched moves in the records")
    print("engine        moves   nodes/s   depth median  depth mean  wall ms/move")
    for who, (n, nodes, ms, depths, wall) in sorted(totals.items()):
        print(
            f"{who:12} {n:6} {nodes * 1000 // max(ms, 1):9}  {statistics.median(depths):12}"
            f"  {statistics.mean(depths):10.1f}  {wall / n:12.0f}"
        )
    print(f"\nseen first (decided games; +/-{a.threshold} from the side to move):")
    for loser in sorted({f[1] for f in firsts}):
        lost = [f for f in firsts if f[1] == loser]
        both = [f for f in lost if f[2] is not None and f[3] is not None]
        earlier = sum(1 for f in both if f[3] < f[2])
        later = sum(1 for f in both if f[3] > f[2])
        gaps = [f[2] - f[3] for f in both]
        gap = f", winner's ply minus loser's: median {statistics.median(gaps)}" if gaps else ""
        print(
            f"  {loser} lost {len(lost)}: it saw its loss first in {earlier}, the winner saw the win "
            f"first in {later}, both at once {len(both) - earlier - later}, a side never crossed "
            f"in {len(lost) - len(both)}{gap}"
        )


if __name__ == "__main__":
    main()
