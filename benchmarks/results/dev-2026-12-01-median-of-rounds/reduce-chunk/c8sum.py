import re,sys,statistics
rows=[]
for l in open(sys.argv[1]):
    m=re.match(r'(\d+) (\d+) (\S+) before (\d+) ns.*after (\d+) ns.*::\s+8388608\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x',l)
    if m: rows.append((int(m.group(1)),int(m.group(2)),int(m.group(4)),int(m.group(5)),float(m.group(6)),float(m.group(7)),float(m.group(8))))
for st in ('fast','slow'):
    for c in (131072,524288):
        rs=[r for r in rows if r[0]==c and (st=='fast' and r[2]<300 and r[3]<300 or st=='slow' and r[2]>300 and r[3]>300)]
        if rs: print(st,c>>10,'KB',len(rs),'ratios',' '.join(f'{r[6]:.2f}' for r in rs),'median',f'{statistics.median([r[6] for r in rs]):.3f}', 'jcoll median', f'{statistics.median([r[4] for r in rs]):.0f}')
