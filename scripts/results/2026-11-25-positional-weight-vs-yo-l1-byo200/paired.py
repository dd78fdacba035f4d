import sqlite3,sys
def load(p):
    db=sqlite3.connect('file:%s?mode=ro'%p,uri=True)
    names=dict(db.execute("select id, player_name from player"))
    r={}
    for b,w,res,sfen in db.execute("select black_player_id,white_player_id,game_result,initial_position_sfen from game"):
        kb=names[b].startswith('kaname')
        win=(res=='BLACK_WIN' and kb) or (res=='WHITE_WIN' and not kb)
        loss=(res=='BLACK_WIN' and not kb) or (res=='WHITE_WIN' and kb)
        r[(sfen,kb)]=1.0 if win else 0.0 if loss else 0.5
    return r
a=load(sys.argv[1]); b=load(sys.argv[2])
common=[k for k in a if k in b]
sa=sum(a[k] for k in common); sb=sum(b[k] for k in common)
import math
d=[b[k]-a[k] for k in common]
n=len(d); m=sum(d)/n; sd=math.sqrt(sum((x-m)**2 for x in d)/(n-1))
print(f"common {n}: A {sa}/{n} ({100*sa/n:.1f}%), B {sb}/{n} ({100*sb/n:.1f}%), B-A per game {m:+.3f} +/- {1.96*sd/math.sqrt(n):.3f}")
