# Rounds of dependent reads a tile takes to find the segments of its first
# and last items (CSR offsets of a power law over 2^26 items, as the
# benchmarks draw it), by search: 32 probes a round around the guess (the
# library), more probes a round, and galloping first rounds. Kept for one
# commit with benchmarks/results/h200-segmented-block-search.json.
import numpy as np
rng=np.random.default_rng(42)
n=1<<26
# power law lengths like the benchmark: floor((1-u)^(-1/1.1))
L=[]; tot=0
while tot<n:
    u=rng.random(1<<22); l=np.floor((1-u)**(-1/1.1)).astype(np.int64)
    L.append(l); tot+=l.sum()
l=np.concatenate(L); c=np.cumsum(l); k=np.searchsorted(c,n); l=l[:k+1]; l[-1]-= (l.sum()-n)
off=np.concatenate([[0],np.cumsum(l)])
S=len(off)-1; print('segments',S)
def seg_of(i): return np.searchsorted(off,i,side='right')-1
def rounds_current(i, P=32, galloping=False):
    lo,hi=0,S-1; r=0
    guess=int(i/n*S)
    if hi>lo:
        if galloping:
            d=[0]+[s*(2**k) for k in range(P//2-1) for s in (1,-1)]
            d=sorted(d)[:P]
            probes=np.clip(np.array([guess+x for x in d]),lo+1,hi)
            probes=np.unique(probes)
        else:
            probes=np.clip(guess-P//2+np.arange(P),lo+1,hi)
        r+=1
        b=off[probes]; below=(b<=i).sum()
        if below>0: lo=probes[below-1]
        if below<len(probes): hi=probes[below]-1
    while hi>lo:
        probes=lo+((hi-lo)*(np.arange(P)+1)+P-1)//P
        r+=1
        b=off[probes]; below=(b<=i).sum()
        if below>0: lo=probes[below-1]
        if below<P: hi=probes[below]-1
    assert lo==seg_of(i), (lo, seg_of(i))
    return r
tiles=np.arange(0,n,4096)[::16]
for name,kw in [('32 probes',{}),('128 probes',{'P':128}),('256 probes',{'P':256}),('32 galloping',{'galloping':True}),('128 galloping',{'P':128,'galloping':True})]:
    r=np.array([max(rounds_current(int(b),**kw),rounds_current(int(min(b+4095,n-1)),**kw)) for b in tiles])
    print(name, 'rounds mean %.2f'%r.mean(), np.bincount(r))
err=np.array([seg_of(int(b))-int(b/n*S) for b in tiles])
print('guess error percentiles', np.percentile(np.abs(err),[10,50,90,99]).astype(int))
def rounds_interp(i,P=32):
    lo,hi=0,S-1; r=0
    blo=0; bhi=n  # begin(lo), begin(hi+1)
    while hi>lo:
        est=lo+(i-blo)*(hi+1-lo)/max(1,(bhi-blo))
        width=max(P,(hi-lo)//16) if r>0 else P
        a=max(lo+1,int(est-width/2)); b=min(hi,a+width-1); a=max(lo+1,b-width+1)
        probes=np.unique(np.clip(a+((b-a+1)*np.arange(P))//P,lo+1,hi))
        r+=1
        bb=off[probes]; below=(bb<=i).sum()
        if below>0: lo=probes[below-1]; blo=off[lo]
        if below<len(probes): hi=probes[below]-1; bhi=off[hi+1]
    assert lo==seg_of(i)
    return r
r=np.array([max(rounds_interp(int(b)),rounds_interp(int(min(b+4095,n-1)))) for b in tiles])
print('interp32 rounds mean %.2f'%r.mean(), np.bincount(r))
def rounds_block(i,G=128,ratio=None,kmax=None):
    lo,hi=0,S-1; r=0
    guess=int(i/n*S)
    if hi>lo:
        d=list(range(-16,16))
        m=np.arange(G-32); side=np.where(m%2==0,-1,1); k=m//2
        K=(G-32)//2
        # geometric from 16 to 2^22
        dist=np.floor(16*np.exp(np.log((1<<22)/16)*(k+1)/K)).astype(np.int64)
        d=np.array(d+list(side*dist))
        probes=np.unique(np.clip(guess+d,lo+1,hi))
        r+=1
        b=off[probes]; below=(b<=i)
        if below.any(): lo=probes[below].max()
        if (~below).any(): hi=probes[~below].min()-1
    while hi>lo:
        probes=np.unique(lo+((hi-lo)*(np.arange(G)+1)+G-1)//G)
        r+=1
        b=off[probes]; below=(b<=i)
        if below.any(): lo=probes[below].max()
        if (~below).any(): hi=probes[~below].min()-1
    assert lo==seg_of(i)
    return r
for G in [64,128,256]:
    r=np.array([max(rounds_block(int(b),G),rounds_block(int(min(b+4095,n-1)),G)) for b in tiles])
    print('block galloping G=%d rounds mean %.2f'%(G,r.mean()), np.bincount(r))
def joint(a,b,G=128):
    br=[[0,S-1],[0,S-1]]; r=0
    def apply(probes):
        bb=off[probes]
        for t,(x) in enumerate((a,b)):
            lo,hi=br[t]
            below=(bb<=x)&(probes>lo)&(probes<=hi)
            above=(bb>x)&(probes>lo)&(probes<=hi)
            if below.any(): lo=probes[below].max()
            if above.any(): hi=probes[above].min()-1
            br[t]=[lo,hi]
    m=np.arange(G-32); side=np.where(m%2==0,-1,1); k=m//2; K=(G-32)//2
    dist=np.floor(16*np.exp(np.log((1<<22)/16)*(k+1)/K)).astype(np.int64)
    d=np.array(list(range(-16,16))+list(side*dist))
    ps=np.concatenate([int(x/n*S)+d for x in (a,b)])
    apply(np.unique(np.clip(ps,1,S-1))); r+=1
    while br[0][1]>br[0][0] or br[1][1]>br[1][0]:
        ps=[]
        for lo,hi in br:
            if hi>lo: ps.append(lo+((hi-lo)*(np.arange(G)+1)+G-1)//G)
        if len(ps)==1:  # one open: all 2G probes on it
            lo,hi=[x for x in br if x[1]>x[0]][0]
            ps=[lo+((hi-lo)*(np.arange(2*G)+1)+2*G-1)//(2*G)]
        apply(np.unique(np.concatenate(ps))); r+=1
    assert br[0][0]==seg_of(a) and br[1][0]==seg_of(b)
    return r
r=np.array([joint(int(b),int(min(b+4095,n-1))) for b in tiles])
print('joint G=128x2 rounds mean %.2f'%r.mean(), np.bincount(r))
def lazy(i,G=128,top=22):
    lo,hi=0,S-1; r=0
    guess=int(i/n*S)
    probes=np.unique(np.clip(guess-16+np.arange(32),1,S-1)); r+=1
    b=off[probes]; below=b<=i
    if below.any(): lo=probes[below].max()
    if (~below).any(): hi=probes[~below].min()-1
    if hi>lo:
        # one-sided galloping from the bracket's near edge
        k=np.arange(G)
        dist=np.floor(16*np.exp(np.log((1<<top)/16)*(k+1)/G)).astype(np.int64)
        if below.all(): probes=lo+dist   # target above
        elif (~below).all(): probes=hi+1-dist
        else: probes=lo+((hi-lo)*(k+1)+G-1)//G
        probes=np.unique(np.clip(probes,lo+1,hi)); r+=1
        b=off[probes]; bl=b<=i
        if bl.any(): lo=probes[bl].max()
        if (~bl).any(): hi=probes[~bl].min()-1
    while hi>lo:
        probes=np.unique(lo+((hi-lo)*(np.arange(G)+1)+G-1)//G); r+=1
        b=off[probes]; bl=b<=i
        if bl.any(): lo=probes[bl].max()
        if (~bl).any(): hi=probes[~bl].min()-1
    assert lo==seg_of(i)
    return r
for G in [64,128]:
    r=np.array([max(lazy(int(b),G),lazy(int(min(b+4095,n-1)),G)) for b in tiles])
    print('lazy G=%d rounds mean %.2f'%(G,r.mean()), np.bincount(r))
