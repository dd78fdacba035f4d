import json,os,sys
sys.path.insert(0,os.path.dirname(os.path.abspath(__file__)))
from ask import ask
o=json.load(open('surprise.json'))
nodes=int(sys.argv[1]); which=sys.argv[2]
K={'EvalKind':'classical','USI_Hash':64,'Threads':1}
Y={'BookFile':'no_book','USI_Hash':64,'Threads':1}
eng={'kaname':('/work/bin/kaname-nn006',K,()),'yo':('/work/opp/yo-material-l1',Y,()),
     'cand':('/work/bin/kaname-cand4',dict(K,**dict(a.split('=') for a in sys.argv[3:])),('--tune',))}[which]
avoid=0;res=[]
for x in o:
    bm,last=ask(eng[0],eng[1],x['pos'],nodes,eng[2])
    mv=bm.split()[1]
    import re
    sc=re.search(r'score (cp|mate) (-?\d+)',last or '')
    res.append((mv,sc.group(0) if sc else None))
    avoid+= mv!=x['played']
print(which,'avoided',avoid,'of',len(o))
json.dump(res,open(f'surprise-{which}-{nodes}.json','w'))
