import re,sys
f=sys.argv[1]; t0=float(sys.argv[2]); t1=float(sys.argv[3]) if len(sys.argv)>3 else 1e9
tasks=[];cur=None
for line in open(f, errors='replace'):
    if line.startswith("<task ") and 'compile_id' in line:
        cur=dict(re.findall(r"(\w+)='([^']*)'", line)); continue
    if line.startswith("<task_done") and cur:
        b=dict(re.findall(r"(\w+)='([^']*)'", line))
        tasks.append((float(cur['stamp']),float(b['stamp'])-float(cur['stamp']),cur.get('method'),cur.get('level','4'),cur.get('compile_kind',''))); cur=None
tasks.sort()
tot=0
for s,d,m,l,k in tasks:
    if t0<=s<=t1:
        tot+=d
        if d>0.002: print("%.3f +%.3f L%s %s %s"%(s,d,l,k,m[:110]))
print("total compile time in window %.3f s, tasks %d"%(tot,sum(1 for t in tasks if t0<=t[0]<=t1)))
