#!/usr/bin/env python3
"""For the games Kaname did not win in a shogiarena run against one opponent: by how many plies
the opponent's reported score (turned to Kaname's side) reached -T before Kaname's own did.
Moves at even game plies are Black's (the openings start with Black to move at an even ply).

    python3 seen_first.py RUN/game.db [T]    # T in centipawns, default 300
"""
import sqlite3,sys,statistics as st
c=sqlite3.connect('file:%s?mode=ro'%sys.argv[1],uri=True)
pl=dict(c.execute("select id, player_name from player").fetchall())
T=int(sys.argv[2]) if len(sys.argv)>2 else 300
lags=[];kview=[];n=0;lost=0;never=0
for gid,b,w,res in c.execute("select id,black_player_id,white_player_id,game_result from game").fetchall():
    kb=pl[b].startswith('kaname')
    kwin=(res in ('BLACK_WIN',1) and kb) or (res in ('WHITE_WIN',2) and not kb)
    mv=c.execute("select ply,eval from game_move where game_id=? and move_source='search' and eval is not null order by ply",(gid,)).fetchall()
    first={}
    for ply,ev in mv:
        side_black = (ply%2==0)
        name=pl[b] if side_black else pl[w]
        k=ev if name.startswith('kaname') else -ev
        who='K' if name.startswith('kaname') else 'Y'
        if k<=-T and who not in first: first[who]=(ply,k)
    n+=1
    if kwin: continue
    lost+=1
    if 'Y' in first and 'K' in first:
        lags.append(first['K'][0]-first['Y'][0])
    else: never+=1
print(f"games {n} lost {lost}; plies by which YO's score (Kaname's view) reached -{T} before Kaname's own:",sorted(lags),'median',st.median(lags) if lags else None)
