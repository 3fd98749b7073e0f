"""Joins `jcoll perf --csv` files with torch_perf.py's CSV by (op, bytes) and
prints jcoll's bus bandwidth and time next to PyTorch's, with the ratio.

    python3 compare.py TORCH.csv JCOLL_ALLREDUCE.csv [JCOLL_OTHER.csv ...]
"""
import csv
import sys


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


torch = {(r["op"], int(r["bytes"])): r for r in load(sys.argv[1])}
print("| op | bytes | jcoll time (us) | torch time (us) | jcoll busbw (GB/s) | torch busbw (GB/s) | busbw ratio |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for path in sys.argv[2:]:
    for r in load(path):
        key = (r["op"], int(r["bytes"]))
        t = torch.get(key)
        if t is None:
            continue
        jb, tb = float(r["busbw_gbs"]), float(t["busbw_gbs"])
        ratio = "%.3f" % (jb / tb) if tb > 0 else "n/a"
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %s |" % (key[0], key[1], float(r["time_us"]), float(t["time_us"]),
                                                           jb, tb, ratio))
