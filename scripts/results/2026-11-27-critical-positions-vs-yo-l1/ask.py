import re,subprocess,sys
def ask(cmd, opts, pos, nodes, args=()):
    p=subprocess.Popen([cmd,*args],stdin=subprocess.PIPE,stdout=subprocess.PIPE,text=True,bufsize=1)
    w=lambda s:(p.stdin.write(s+'\n'),p.stdin.flush())
    w('usi')
    for l in p.stdout:
        if l.startswith('usiok'):break
    for k,v in opts.items(): w(f'setoption name {k} value {v}')
    w('isready')
    for l in p.stdout:
        if l.startswith('readyok'):break
    w('usinewgame'); w('isready')
    for l in p.stdout:
        if l.startswith('readyok'):break
    w('position sfen '+pos); w(f'go nodes {nodes}')
    last=None
    for l in p.stdout:
        if l.startswith('info') and ' pv ' in l: last=l.strip()
        if l.startswith('bestmove'):
            w('quit'); p.wait(); return l.strip(), last
def referee_value(binary, pos, mv, nodes):
    """The referee's score of `mv` played in `pos` (an SFEN with a move list), from the mover's
    side: the reply's score negated; a mate for the reply is -30000, no reply at all +30000."""
    bm,last=ask(binary,{'USI_Hash':256,'Threads':1},pos+' '+mv if ' moves ' in pos else pos+' moves '+mv,nodes)
    m=re.search(r'score (cp|mate) (-?\d+)',last or '')
    if m is None: return 30000  # no legal reply: mated
    if m.group(1)=='mate': return -30000 if int(m.group(2))>0 else 30000
    return -int(m.group(2))
if __name__=='__main__':
    pos=open(sys.argv[1]).read().strip()
    nodes=int(sys.argv[2])
    K={'EvalKind':'classical','USI_Hash':64,'Threads':1}
    Y={'BookFile':'no_book','USI_Hash':64,'Threads':1}
    for name,cmd,o in (('kaname','/work/bin/kaname-nn006',K),('yo-l1','/work/opp/yo-material-l1',Y)):
        bm,last=ask(cmd,o,pos,nodes)
        print(name,bm); print('  ',last[:400])
