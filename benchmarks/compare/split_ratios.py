#!/usr/bin/env python3
"""A sub-communicator against its parent, from the per-round CSVs of `jcoll perf --csv` that
benchmarks/gpu/sub-communicators.sh (TCP) and benchmarks/compare/sub-communicators-mpi.sh (MPI) write as
DIR/sub-ROUND-OP-WHICH.csv (WHICH: parent or split): per op and size, each round's time split / parent out of
place, and the medians (in place in brackets).

    python3 benchmarks/compare/split_ratios.py DIR TITLE [--merged FILE]

TITLE heads each op's table ("TCP {op}, 4 ranks", say; {op} is replaced); --merged also writes every row to FILE.
"""
import argparse
import csv
import glob
import os
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("title")
    ap.add_argument("--merged")
    args = ap.parse_args()
    rows = {}
    merged = open(args.merged, "w") if args.merged else None
    if merged:
        merged.write("round,op,which,bytes,time_us,time_inplace_us\n")
    for f in sorted(glob.glob(os.path.join(args.dir, "sub-*-*-*.csv"))):
        round_, op, which = os.path.basename(f)[4:-4].split("-")
        for r in csv.DictReader(open(f)):
            rows[(op, int(r["bytes"]), which, int(round_))] = (float(r["time_us"]), float(r["time_inplace_us"]))
            if merged:
                merged.write(f"{round_},{op},{which},{r['bytes']},{r['time_us']},{r['time_inplace_us']}\n")
    if merged:
        merged.close()
    for op in sorted({k[0] for k in rows}):
        print(f"\n{args.title.format(op=op)}: time split / parent per round (out of place), median (in place)")
        for size in sorted({k[1] for k in rows if k[0] == op}):
            rounds = sorted({k[3] for k in rows if k[0] == op and k[1] == size})
            ratios = [[rows[(op, size, "split", r)][i] / rows[(op, size, "parent", r)][i] for r in rounds
                       if (op, size, "split", r) in rows and (op, size, "parent", r) in rows] for i in (0, 1)]
            if ratios[0]:
                print(f"{size:>10} B: " + ", ".join(f"{x:.2f}" for x in ratios[0])
                      + f"  median {statistics.median(ratios[0]):.2f} ({statistics.median(ratios[1]):.2f})")


if __name__ == "__main__":
    main()
