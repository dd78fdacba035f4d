import json,os,sys
sys.path.insert(0,os.path.dirname(os.path.abspath(__file__)))
from ask import referee_value
o=json.load(open('surprise.json'))
rk=json.load(open('surprise-kaname-1000000.json')); ry=json.load(open('surprise-yo-1000000.json'))
nodes=int(sys.argv[1])
cache={}
try: cache=json.load(open('surprise-ref.json'))
except: pass
def val(pos,mv):
    k=pos+'|'+mv
    if k not in cache:
        v=referee_value('/work/bin/kaname-nn006',pos,mv,nodes)
        cache[k]=v; json.dump(cache,open('surprise-ref.json','w'))
    return cache[k]
tot={'played':[], 'kaname':[], 'yo':[]}
for x,(mk,_),(my,_) in zip(o,rk,ry):
    p=x['pos']
    vp=val(p,x['played']); vk=val(p,mk); vy=val(p,my)
    best=max(vp,vk,vy)
    for n,v in (('played',vp),('kaname',vk),('yo',vy)): tot[n].append(best-v)
    print(x['game'],x['idx'],x['played'],vp,mk,vk,my,vy,flush=True)
import statistics as st
for n,l in tot.items():
    l2=[min(v,1000) for v in l]
    print(n,'mean loss (cap 1000)',round(st.mean(l2)),'within 100:',sum(v<=100 for v in l),'of',len(l),'loss>=300:',sum(v>=300 for v in l))
