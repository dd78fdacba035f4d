import json,sys,re
sys.path.insert(0,'/work/matches')
from ask import ask
o=json.load(open('surprise.json'))
rk=json.load(open('surprise-kaname-1000000.json')); ry=json.load(open('surprise-yo-1000000.json'))
nodes=int(sys.argv[1])
cache={}
try: cache=json.load(open('surprise-ref.json'))
except: pass
def val(pos,mv):
    k=pos+'|'+mv
    if k not in cache:
        bm,last=ask('/work/bin/kaname-nn006',{'USI_Hash':256,'Threads':1},pos+' '+mv if ' moves ' in pos else pos+' moves '+mv,nodes)
        m=re.search(r'score (cp|mate) (-?\d+)',last or '')
        if m is None: v=30000  # no legal reply: mated
        elif m.group(1)=='mate': v=-30000 if int(m.group(2))>0 else 30000
        else: v=-int(m.group(2))
        cache[k]=v; json.dump(cache,open('surprise-ref.json','w'))
    return cache[k]
tot={'played':[], 'kaname':[], 'yo':[]}
for x,(mk,_),(my,_) in zip(o,rk,ry):
    p=x['pos']
    pass
    vp=val(p,x['played']); vk=val(p,mk); vy=val(p,my)
    best=max(vp,vk,vy)
    for n,v in (('played',vp),('kaname',vk),('yo',vy)): tot[n].append(best-v)
    print(x['game'],x['idx'],x['played'],vp,mk,vk,my,vy,flush=True)
import statistics as st
for n,l in tot.items():
    l2=[min(v,1000) for v in l]
    print(n,'mean loss (cap 1000)',round(st.mean(l2)),'within 100:',sum(v<=100 for v in l),'of',len(l),'loss>=300:',sum(v>=300 for v in l))
