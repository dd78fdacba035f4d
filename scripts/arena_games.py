#!/usr/bin/env python3
"""Writes the games of a shogiarena run (its `game.db`) as text, one game per line, for
`scripts/results/`: name, Black, White, result, plies, then a USI `position` line.

    python3 scripts/arena_games.py RUN_DIR/game.db > games.txt

shogiarena stores moves as rsshogi 16-bit move integers (and a MOVE_END row per game); the
rsshogi Python module it installs turns them into USI text, and cshogi checks that each one
is legal in the game's position.
"""
import argparse
import sqlite3

import cshogi
from rsshogi.core import Move


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game_db", help="a shogiarena run's game.db")
    args = parser.parse_args()
    # Read-only: a mistyped path fails instead of creating an empty database there.
    db = sqlite3.connect(f"file:{args.game_db}?mode=ro", uri=True)
    names = dict(db.execute("select id, player_name from player"))
    games = db.execute(
        "select id, game_name, black_player_id, white_player_id, game_result, num_moves,"
        " initial_position_sfen from game order by id"
    ).fetchall()
    for gid, name, black, white, result, plies, sfen in games:
        board = cshogi.Board(sfen)
        moves = []
        for (m,) in db.execute("select next_move from game_move where game_id = ? order by ply", (gid,)):
            if m is None or m == int(Move.MOVE_END):
                continue
            usi = Move(m).to_usi()
            if not board.is_legal(board.move_from_usi(usi)):
                raise SystemExit(f"{name}: illegal move {usi} at ply {len(moves) + 1}")
            board.push_usi(usi)
            moves.append(usi)
        line = f"position sfen {sfen}" + (" moves " + " ".join(moves) if moves else "")
        print(f"{name} {names[black]} {names[white]} {result} {plies} {line}")


if __name__ == "__main__":
    main()
