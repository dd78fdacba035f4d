#!/usr/bin/env python3
"""sweep.py ENGINE DEPTH [opt=val ...]: nodes to `go depth DEPTH` summed over sweep-positions.txt
(beside this script; a new game and so an empty hash before each). Kaname is started with --tune, so
Tune_* options work; an engine whose path contains "yo-" is treated as YaneuraOu (no book, no
network delay). Node counts do not depend on the machine's load."""
import os,subprocess,sys
eng=sys.argv[1]; D=int(sys.argv[2]); opts=[a.split('=',1) for a in sys.argv[3:]]
yo='yo-' in eng
args=[eng] if yo else [eng,'--tune']
p=subprocess.Popen(['nice','-n','19']+args,stdin=subprocess.PIPE,stdout=subprocess.PIPE,text=True,bufsize=1)
def send(s): p.stdin.write(s+'\n'); p.stdin.flush()
def wait(tok):
    while True:
        l=p.stdout.readline()
        if not l: raise SystemExit('engine died')
        if l.startswith(tok): return l
send('usi'); wait('usiok')
base=[('USI_Hash','256')]+([('BookFile','no_book'),('NetworkDelay','0'),('NetworkDelay2','0')] if yo else [('EvalKind','classical')])
for k,v in base+opts: send(f'setoption name {k} value {v}')
send('isready'); wait('readyok')
tot=0; per=[]
for s in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sweep-positions.txt')):
    send('usinewgame'); send('isready'); wait('readyok')
    send('position sfen '+s.strip()); send(f'go depth {D}')
    last=None
    while True:
        l=p.stdout.readline()
        if l.startswith('info') and ' nodes ' in l: last=l
        if l.startswith('bestmove'): break
    t=last.split(); n=int(t[t.index('nodes')+1]); tot+=n; per.append(n)
send('quit')
print(' '.join(sys.argv[3:]) or 'default', 'total', tot, per)
