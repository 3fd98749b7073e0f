import re,sys
for f in sys.argv[1:]:
    start={}; out=[]
    cur=None
    for line in open(f, errors='replace'):
        m=re.match(r"<task (.*)>", line)
        if m and 'compile_id' in line:
            a=dict(re.findall(r"(\w+)='([^']*)'", line)); cur=a
            continue
        m=re.match(r"<task_done (.*)", line)
        if m and cur:
            b=dict(re.findall(r"(\w+)='([^']*)'", line))
            out.append((float(b['stamp'])-float(cur['stamp']), float(cur['stamp']), cur.get('method'), cur.get('level','?'), cur.get('osr_bci','')))
            cur=None
    print("==",f)
    for d,s,m,l,o in sorted(out,reverse=True)[:12]:
        print("%.3f s at %.3f  L%s %s %s"%(d,s,l,m,o))
