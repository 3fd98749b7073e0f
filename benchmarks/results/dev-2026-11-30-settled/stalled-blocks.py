#!/usr/bin/env python3
# Blocks that stalled, per system: a block over 1.5x its system's 25th percentile at that size.
# usage: stalled-blocks.py DIR... (each with OP-blocks.csv files from paired.sh --out)
import sys,csv,glob,os,collections

for d in sys.argv[1:]:
    J=M=N=0
    per=[]
    for f in sorted(glob.glob(d+'/*-blocks.csv')):
        by=collections.defaultdict(list)
        for r in csv.DictReader(open(f)): by[int(r['bytes'])].append((float(r['jcoll_us']),float(r['mpi_us'])))
        for b,v in sorted(by.items()):
            j=[x for x,_ in v]; m=[y for _,y in v]
            jq=sorted(j)[len(j)//4]; mq=sorted(m)[len(m)//4]
            js=sum(x>1.5*jq for x in j); ms=sum(y>1.5*mq for y in m)
            J+=js; M+=ms; N+=len(v)
    print("%-12s blocks %d: jcoll stalled %d, mpi %d"%(d,N,J,M))
