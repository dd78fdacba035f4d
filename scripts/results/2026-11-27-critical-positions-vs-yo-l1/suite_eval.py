import json,os,sys,statistics as st
sys.path.insert(0,os.path.dirname(os.path.abspath(__file__)))
from ask import ask, referee_value
# usage: suite_eval.py SET(kaname-errors|yo-errors) NAME BINARY [K=V ...]
D=os.path.dirname(os.path.abspath(__file__))+'/'
rows=json.load(open(D+sys.argv[1]+'.json'))
name,binary=sys.argv[2],sys.argv[3]
opts={'USI_Hash':64,'Threads':1}
opts.update(dict(a.split('=',1) for a in sys.argv[4:]))
args=('--tune',) if any(k.startswith('Tune_') for k in opts) else ()
cachef='/work/matches/refcache.json'
try: cache=json.load(open(cachef))
except: cache={}
for r in rows:
    for k,v in r['referee'].items():
        mv={'played':r['played'],'kaname':r['kaname_move'],'yo':r['yo_move']}[k]
        cache.setdefault(r['position']+'|'+mv,v)
def ref(pos,mv):
    k=pos+'|'+mv
    if k not in cache:
        v=referee_value('/work/bin/kaname-nn006',pos,mv,4000000)
        cache[k]=v; json.dump(cache,open(cachef,'w'))
    return cache[k]
out=[];base={'kaname':[],'yo':[],'new':[]}
for r in rows:
    bm,last=ask(binary,opts,r['position'],1000000,args)
    mv=bm.split()[1]
    v=ref(r['position'],mv)
    best=max(list(r['referee'].values())+[v])
    base['new'].append(best-v); base['kaname'].append(best-r['referee']['kaname']); base['yo'].append(best-r['referee']['yo'])
    out.append((mv,v))
json.dump(out,open(f'/work/matches/suite-{sys.argv[1]}-{name}.json','w'))
for k,l in base.items():
    print(name if k=='new' else k, 'mean loss',round(st.mean([min(x,1000) for x in l])),'within100',sum(x<=100 for x in l),'>=300',sum(x>=300 for x in l))
