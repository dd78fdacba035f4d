import sqlite3,re,sys,json
from rsshogi.core import Move
out=[]
for d in sys.argv[1:]:
    c=sqlite3.connect(f'file:{d}/run/game.db?mode=ro',uri=True)
    for gid,meta,sfen in c.execute('select id, metadata_attributes_json, initial_position_sfen from game'):
        names=re.findall(r'engine_name\\\\?": \\\\?"([^"\\\\]+)',meta)
        roles=re.findall(r'role\\\\?": \\\\?"(black|white)',meta)
        r=dict(zip(roles,names))
        kside=0 if r.get('black','').startswith('kaname') else 1
        rows=list(c.execute('select ply,next_move,eval from game_move where game_id=? order by ply',(gid,)))
        ms=[Move(m).to_usi() if m is not None else None for p,m,e in rows]
        first_black = sfen.split()[1]=='b'
        for i in range(2,len(rows)-1):
            if ms[i] is None or ms[i+1] is None: continue
            mover_black = (i%2==0)==first_black
            if mover_black != (kside==0): continue
            eK=rows[i][2]; eK0=rows[i-2][2]; eY=rows[i+1][2]; eY0=rows[i-1][2]
            if None in (eK,eK0,eY,eY0) or max(abs(eK),abs(eK0),abs(eY),abs(eY0))>1200: continue
            if eY-eY0>=250 and eK-eK0>-100:
                out.append(dict(run=d,game=gid,idx=i,pos=f"{sfen} moves {' '.join(ms[:i])}",played=ms[i],reply=ms[i+1],eK=eK,eK0=eK0,eY=eY,eY0=eY0))
json.dump(out,open('surprise.json','w'),indent=0)
print(len(out))
