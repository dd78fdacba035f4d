#!/usr/bin/env python3
"""Reads the games an engine lost: where did the winner's search see more than the loser's?

    python3 scripts/lost_games.py RUN [RUN ...] --engine NAME [--threshold 300] [--svg F]
        [--list] [--mates]
    python3 scripts/lost_games.py --self-test

RUN is a shogiarena run directory (sprt.py's OUT/run) or its game.db. The records hold each
side's own score at its own moves, from the side to move as USI reports them; the moves (rsshogi
16-bit integers, as `arena_games.py` reads them) are replayed with cshogi. For each game NAME
lost on the board (time losses and draws left out):

- the turn: the first ply at which the winner's own score reached +THRESHOLD, what the loser's
  score was at its move just before, and the first ply at which the loser's own score fell to
  -THRESHOLD (before or after the turn);
- the surprise: the largest fall of the loser's score from one of its moves to its next, from
  10 plies before the turn to 10 after the later of the two, and the winner's move in between:
  a drop, a capture, a promotion or a quiet move; whether it gave check; whether it landed
  within two squares of the loser's king;
- the mate: the winner's first mate score (its distance) and the loser's score at its move
  before it. `--mates` prints those the loser did not see coming (its score above -1000), with
  the position and the move, to search again with `go depth N searchmoves MOVE`;
- the material at the turn and at the loser's -THRESHOLD (pawn 1, lance 3, knight 4, silver 5,
  gold 6, bishop 8, rook 10, promoted minor pieces 6, horse 10, dragon 12; hands counted), from
  the loser's side: did the game turn on material?

The summary sets the surprises' kinds against how often the winner plays each kind at all, so an
over-represented kind stands out. `--svg` draws both sides' scores from the loser's side,
aligned at the turn (medians over the games): the gap between the curves is what the winner
saw first. Plain SVG written by hand (no plotting library to install).
Why: issue 65 asks where the opponent's search sees more in the lost games (tactics, drops, king
attacks, horizon, mate threats); the records answer much of it without a referee engine.
"""
import argparse
import statistics
import sys
from pathlib import Path

from game_stats import open_db, report_checks

MATE = 20000
KINDS = ["drop", "capture", "promotion", "quiet"]
BLACK = 0
# Piece values by cshogi piece type (1 pawn ... 7 rook, 8 king, 9-14 promoted): a promoted
# minor piece counts as a gold. cshogi and rsshogi are imported where a game is replayed, so
# that --self-test needs the standard library only.
VALUES = [0, 1, 3, 4, 5, 8, 10, 6, 0, 6, 6, 6, 6, 10, 12]
HAND_VALUES = [1, 3, 4, 5, 6, 8, 10]  # cshogi's hand order: P L N S G B R


def material(board, colour):
    """colour's material minus the other side's, board and hands."""
    import cshogi
    total = 0
    for sq in range(81):
        pc = board.piece(sq)
        if pc == cshogi.NONE:
            continue
        v = VALUES[cshogi.piece_to_piece_type(pc)]
        total += v if (pc < 16) == (colour == BLACK) else -v
    for side, hand in enumerate(board.pieces_in_hand):
        v = sum(n * value for n, value in zip(hand, HAND_VALUES))
        total += v if side == colour else -v
    return total


def king_square(board, colour):
    import cshogi
    king = cshogi.BKING if colour == cshogi.BLACK else cshogi.WKING
    return next(sq for sq in range(81) if board.piece(sq) == king)


def move_kind(board, move):
    """(kind, gives check, next to the opponent's king) of a move about to be played on board."""
    import cshogi
    to = cshogi.move_to(move)
    ksq = king_square(board, cshogi.BLACK if board.turn == cshogi.WHITE else cshogi.WHITE)
    near = max(abs(to // 9 - ksq // 9), abs(to % 9 - ksq % 9)) <= 2
    if cshogi.move_is_drop(move):
        kind = "drop"
    elif board.piece(to) != cshogi.NONE:
        kind = "capture"
    elif cshogi.move_is_promotion(move):
        kind = "promotion"
    else:
        kind = "quiet"
    board.push(move)
    check = board.is_check()
    board.pop()
    return kind, check, near


def replay(db, gid, sfen):
    """[(ply, mover, eval, kind, check, near, Black's material, SFEN, USI move)] of a game, each
    as the position stood before the move."""
    import cshogi
    from rsshogi.core import Move
    board = cshogi.Board(sfen)
    out = []
    rows = db.execute("select ply, next_move, eval from game_move where game_id = ? order by ply",
                      (gid,)).fetchall()
    for ply, move16, ev in rows:
        if move16 is None or move16 == int(Move.MOVE_END):
            continue
        move = board.move_from_usi(Move(move16).to_usi())
        if not board.is_legal(move):
            sys.exit(f"game {gid}: illegal move at ply {ply}")
        kind, check, near = move_kind(board, move)
        out.append((ply, board.turn, ev, kind, check, near, material(board, BLACK), board.sfen(),
                    cshogi.move_to_usi(move)))
        board.push(move)
    return out


def read_game(moves, loser_colour, threshold):
    """The turn, the surprise and the mate of one lost game, or None if the winner never saw it."""
    winner_plies = [(m[0], m[2]) for m in moves if m[1] != loser_colour and m[2] is not None]
    loser_plies = [(m[0], m[2]) for m in moves if m[1] == loser_colour and m[2] is not None]
    turn = next((p for p, ev in winner_plies if ev >= threshold), None)
    if turn is None:
        return None
    seen = next((p for p, ev in loser_plies if ev <= -threshold), None)
    before = next((ev for p, ev in reversed(loser_plies) if p < turn), None)
    by_ply = {m[0]: m for m in moves}
    # The loser's largest fall between two of its consecutive moves, and the winner's move between.
    surprise = None
    end = max(seen or 0, turn) + 10
    for (p0, e0), (p1, e1) in zip(loser_plies, loser_plies[1:]):
        if p1 < turn - 10 or p0 > end or abs(e0) >= MATE or abs(e1) >= MATE:
            continue
        fall = e0 - e1
        cause = by_ply.get(p0 + 1)
        if cause and (surprise is None or fall > surprise[0]):
            surprise = (fall, p0 + 1, cause[3], cause[4], cause[5])
    # The winner's first mate score: how far, and what the loser believed at its move before.
    w_mate = next(((p, ev) for p, ev in winner_plies if ev >= MATE), None)
    mate = None
    if w_mate is not None:
        belief = next((ev for p, ev in reversed(loser_plies) if p < w_mate[0]), None)
        last = next((p for p, ev in reversed(loser_plies) if p < w_mate[0]), None)
        mate = (w_mate[0], 32000 - w_mate[1] if w_mate[1] < 32000 else None, belief, last)
    sign = 1 if loser_colour == BLACK else -1
    return dict(turn=turn, before=before, seen=seen, surprise=surprise, mate=mate,
                mat_turn=sign * by_ply[turn][6],
                mat_seen=sign * by_ply[seen][6] if seen is not None else None)


def curves(moves, loser_colour, turn, span=20):
    """{offset: (loser's score, winner's score negated)} around the turn, from the loser's side."""
    out = {}
    for p, c, ev, *_ in moves:
        if ev is None or abs(p - turn) > span:
            continue
        ev = max(-2000, min(2000, ev))
        out.setdefault(p - turn, [None, None])[0 if c == loser_colour else 1] = (
            ev if c == loser_colour else -ev)
    return out


def svg(series, n, title):
    """Median score of each side from the loser's side by ply from the turn."""
    w, h, left, top = 640, 360, 56, 30
    xs = range(-20, 21)
    def px(x):
        return left + (x + 20) * (w - left - 20) / 40
    def py(v):
        return top + (1000 - v) * (h - top - 40) / 2000
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">{title} ({n} games)</text>']
    for v in range(-1000, 1001, 250):
        out.append(f'<line x1="{left}" x2="{w - 20}" y1="{py(v):.1f}" y2="{py(v):.1f}" '
                   f'stroke="{"#888" if v == 0 else "#ddd"}"/>')
        out.append(f'<text x="{left - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v}</text>')
    for x in range(-20, 21, 5):
        out.append(f'<text x="{px(x):.1f}" y="{h - 22}" text-anchor="middle">{x:+d}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle">plies from the turn (the '
               'winner\'s first score of +threshold)</text>')
    for idx, (name, colour) in enumerate(series["names"]):
        pts = []
        for x in xs:
            vals = [c[x][idx] for c in series["curves"] if x in c and c[x][idx] is not None]
            if len(vals) >= max(3, n // 4):
                pts.append(f"{px(x):.1f},{py(statistics.median(vals)):.1f}")
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                   f'points="{" ".join(pts)}"/>')
        out.append(f'<text x="{w - 200}" y="{top + 14 + 14 * idx}" fill="{colour}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out)


def self_test():
    """A hand-made lost game as replay() gives it: the turn, the surprise, the mate, the picture."""
    # (ply, mover, eval, kind, check, near, Black's material); the loser is Black (mover 0).
    moves = [
        (10, 0, 50, "quiet", False, False, 0),
        (11, 1, -40, "quiet", False, False, 0),
        (12, 0, 20, "quiet", False, False, 0),
        (13, 1, 320, "drop", True, True, 0),       # the winner's turn: +320
        (14, 0, -150, "quiet", False, False, -6),   # Black believed 20 before it, falls by 170
        (15, 1, 500, "capture", False, True, -6),
        (16, 0, -700, "quiet", False, False, -11),  # the surprise: -150 to -700 after a capture
        (17, 1, 31989, "quiet", False, False, -11),  # the winner's mate in 11
        (18, 0, -32000, "quiet", False, False, -11),
    ]
    r = read_game(moves, BLACK, 300)
    picture = svg({"names": [("a", "#d62728"), ("b", "#1f77b4")],
                   "curves": [curves(moves, BLACK, r["turn"])]}, 1, "t")
    checks = [
        ((r["turn"], r["before"], r["seen"]), (13, 20, 16)),
        (r["surprise"], (550, 15, "capture", False, True)),
        (r["mate"], (17, 11, -700, 16)),
        ((r["mat_turn"], r["mat_seen"]), (0, -11)),
        (read_game(moves[:3], BLACK, 300), None),
        (curves(moves, BLACK, 13)[0], [None, -320]),
        (picture.count("<polyline"), 2),
    ]
    report_checks(checks)


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--engine", required=True, help="the loser whose games are read")
    ap.add_argument("--threshold", type=int, default=300)
    ap.add_argument("--svg", help="write the aligned score curves here")
    ap.add_argument("--list", action="store_true", help="one line per game")
    ap.add_argument("--mates", action="store_true",
                    help="the positions where the winner announced a mate while the loser's score "
                         "at its move before was above -1000: that move, to search again with "
                         "`position sfen SFEN` and `go depth N searchmoves MOVE`")
    args = ap.parse_args()

    reads, all_moves, curve_list, opponent = [], [], [], None
    for run in args.runs:
        db = open_db(run)
        names = dict(db.execute("select id, player_name from player"))
        games = db.execute("select id, game_name, game_result, black_player_id, white_player_id, "
                           "initial_position_sfen from game").fetchall()
        for gid, name, result, black, white, sfen in games:
            if args.engine not in (names[black], names[white]):
                continue
            moves = replay(db, gid, sfen)
            me = BLACK if names[black] == args.engine else 1 - BLACK
            opponent = names[white] if me == BLACK else names[black]
            all_moves += [(m[3], m[4], m[5]) for m in moves if m[1] != me]
            lost = result == ("WHITE_WIN" if me == BLACK else "BLACK_WIN")
            if not lost:
                continue
            r = read_game(moves, me, args.threshold)
            if r is None:
                continue
            r["name"], r["plies"] = name, len(moves)
            if r["mate"] and r["mate"][2] is not None and r["mate"][2] > -1000:
                before = next(m for m in moves if m[0] == r["mate"][3])
                r["missed"] = (before[7], before[8])
            reads.append(r)
            curve_list.append(curves(moves, me, r["turn"]))
    if not reads:
        sys.exit(f"no lost games of {args.engine} with a turn in {args.runs}")

    if args.list:
        print("game turn loser_before loser_-threshold surprise(fall@ply kind check near) "
              "winner_mate(ply distance loser_belief) material_turn material_seen")
        for r in reads:
            print(r["name"], r["turn"], r["before"], r["seen"], r["surprise"], r["mate"],
                  r["mat_turn"], r["mat_seen"])

    if args.mates:
        print("game | the loser's score, its move | the winner's mate (plies) | position before the move")
        for r in reads:
            if "missed" in r:
                print(f'{r["name"]} | {r["mate"][2]} {r["missed"][1]} | {r["mate"][1]} | '
                      f'{r["missed"][0]}')

    n = len(reads)
    print(f"{args.engine}'s losses to {opponent} read: {n} (decided on the board; the winner's "
          f"score reached +{args.threshold})")
    befores = [r["before"] for r in reads if r["before"] is not None]
    print(f"the turn (the winner's first +{args.threshold}): median ply "
          f"{statistics.median(r['turn'] for r in reads)}; {args.engine}'s score at its move "
          f"before: median {statistics.median(befores)}, above -100 in "
          f"{sum(1 for b in befores if b > -100)} of {len(befores)}")
    lags = [r["seen"] - r["turn"] for r in reads if r["seen"] is not None]
    print(f"{args.engine}'s first -{args.threshold}: after the turn in "
          f"{sum(1 for x in lags if x > 0)} of {len(lags)} (median lag {statistics.median(lags)} "
          f"plies; 6 or more in {sum(1 for x in lags if x >= 6)}), before it in "
          f"{sum(1 for x in lags if x < 0)}")
    falls = [r["surprise"] for r in reads if r["surprise"]]
    total = len(all_moves)
    print(f"the surprise (the largest fall of {args.engine}'s score from one of its moves to the "
          f"next, from 10 plies before the turn): median {statistics.median(s[0] for s in falls)}; "
          f"{opponent}'s move between, by kind (surprises / all {opponent}'s moves in these "
          f"matches):")
    for k in KINDS:
        c = sum(1 for s in falls if s[2] == k)
        a_c = sum(1 for m in all_moves if m[0] == k)
        print(f"  {k:9s} {c:3d} {100 * c / len(falls):5.1f}% / {100 * a_c / total:5.1f}%")
    for label, idx in (("check", 3), ("next to the king", 4)):
        c = sum(1 for s in falls if s[idx])
        a_c = sum(1 for m in all_moves if m[idx - 2])
        print(f"  {label:16s} {c:3d} {100 * c / len(falls):5.1f}% / {100 * a_c / total:5.1f}%")
    mates = [r["mate"] for r in reads if r["mate"]]
    beliefs = [m[2] for m in mates if m[2] is not None]
    dists = [m[1] for m in mates if m[1] is not None]
    print(f"the winner's first mate score: in {len(mates)} of {n} games, median mate in "
          f"{statistics.median(dists) if dists else '-'} plies; {args.engine}'s score at its "
          f"move before: median {statistics.median(beliefs) if beliefs else '-'}, above -1000 in "
          f"{sum(1 for b in beliefs if b > -1000)}, above -300 in "
          f"{sum(1 for b in beliefs if b > -300)}")
    mats = [r for r in reads if r["mat_seen"] is not None]
    print(f"material ({args.engine}'s side, pawn = 1): at the turn median "
          f"{statistics.median(r['mat_turn'] for r in reads)}, level or ahead in "
          f"{sum(1 for r in reads if r['mat_turn'] >= 0)} of {n}; at its -{args.threshold} median "
          f"{statistics.median(r['mat_seen'] for r in mats)}")
    if args.svg:
        series = {"names": [(f"{args.engine} (its own score)", "#d62728"),
                            (f"{opponent} (its score, negated)", "#1f77b4")],
                  "curves": curve_list}
        Path(args.svg).write_text(svg(series, n, f"{args.engine}'s losses to {opponent}: scores "
                                                  f"from {args.engine}'s side, medians"))


if __name__ == "__main__":
    main()
