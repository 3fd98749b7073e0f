"""Joins `jcoll perf --csv` files with torch_perf.py's CSV by (op, bytes) and
prints jcoll's bus bandwidth and time next to PyTorch's, with the ratio.

    python3 compare.py TORCH.csv JCOLL_ALLREDUCE.csv [JCOLL_OTHER.csv ...]
    python3 compare.py --rounds DIR [DIR ...]

With --rounds, each DIR holds one round's torch.csv and jcoll-*.csv, measured
one after the other in the same run; times are averaged over the rounds for
each system before the ratio is taken, and each round's own ratio is shown, so
the spread between rounds is visible next to the result.
"""
import csv
import glob
import os
import sys


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def index(rows):
    return {(r["op"], int(r["bytes"])): r for r in rows}


def pairs(torch_path, jcoll_paths):
    torch = index(load(torch_path))
    for path in jcoll_paths:
        for r in load(path):
            key = (r["op"], int(r["bytes"]))
            if key in torch:
                yield key, r, torch[key]


def single(torch_path, jcoll_paths):
    print("| op | bytes | jcoll time (us) | torch time (us) | jcoll busbw (GB/s) | torch busbw (GB/s) | busbw ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, r, t in pairs(torch_path, jcoll_paths):
        jb, tb = float(r["busbw_gbs"]), float(t["busbw_gbs"])
        ratio = "%.3f" % (jb / tb) if tb > 0 else "n/a"
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %s |" % (key[0], key[1], float(r["time_us"]),
                                                           float(t["time_us"]), jb, tb, ratio))


def rounds(dirs):
    per_key = {}
    for d in dirs:
        for key, r, t in pairs(os.path.join(d, "torch.csv"), sorted(glob.glob(os.path.join(d, "jcoll-*.csv")))):
            per_key.setdefault(key, []).append((float(r["time_us"]), float(t["time_us"])))
    print("| op | bytes | jcoll mean time (us) | torch mean time (us) | busbw ratio (mean) | ratio per round |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for key in sorted(per_key, key=lambda k: (k[0], k[1])):
        times = per_key[key]
        jt = sum(j for j, _ in times) / len(times)
        tt = sum(t for _, t in times) / len(times)
        each = ", ".join("%.3f" % (t / j) for j, t in times)
        print("| %s | %d | %.2f | %.2f | %.3f | %s |" % (key[0], key[1], jt, tt, tt / jt, each))


if __name__ == "__main__":
    if sys.argv[1] == "--rounds":
        rounds(sys.argv[2:])
    else:
        single(sys.argv[1], sys.argv[2:])
