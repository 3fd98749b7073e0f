#!/usr/bin/env python3
"""A variant's time over Open MPI's from benchmarks/compare/ab.sh logs, as benchmarks/RESULTS.md gives it: the
median of the rounds' ratios (and their range), over every round and over the steady rounds alone, those whose
host probes (ab.sh --probe) stayed within 1.5x of each other, so that both systems of the round met the same host.
Then by the host's state: each run whose probes before and after it fall in the same band of round trips (on the
development VM three: about 75 ns, 130 ns and 450 ns), and each system's median time over its runs
in that band, whatever their rounds.

    python3 benchmarks/compare/steady_rounds.py [--variant default] [--spread 1.5] [--bands 100,250] AB_LOG...
    python3 benchmarks/compare/steady_rounds.py --table [--time | --busbw] [--variant new] AB_LOG[:LABEL]...

--table prints instead one Markdown row per op and rank count of every log (LABEL after the op's name), one column
per size: the variant's bus bandwidth over Open MPI's, the median of the rounds' ratios of Open MPI's time over the
variant's (and their range), as RESULTS.md's tables of every collective give it; with --time, the variant's time
over Open MPI's instead, as its tables of small calls do.

ab.sh --probe runs it on each op's block as it ends. Reads the `# OP N ranks, round R SYSTEM BYTES US` and
`# probe, round R, WHEN: round trip T ns, ...` lines; a log of several ops and rank counts is read op by op (each
has its own rounds and probes, and ends in ab.sh's summary).
"""
import argparse
import re
import statistics
from collections import defaultdict

TIME = re.compile(r"^# (\w+) (\d+) ranks, round (\d+) (\S+) (\d+) ([0-9.e+]+)$")
PROBE = re.compile(r"^# probe, round (\d+), \S+: round trip ([0-9.]+) ns")


def read(path):
    """(op, ranks) -> {'times': {(round, system, bytes): us}, 'trips': {round: [ns]}, 'around': {(round, system):
    (ns before, ns after)}}: each op's block of the log (its probes and times, then ab.sh's summary lines, which end
    it). A run's probe after it is the next run's before, or its round's last."""
    runs = {}
    times, trips, around, key = {}, defaultdict(list), {}, None
    last_run, last_probe = None, None
    for line in open(path):
        line = line.rstrip("\n")
        probe, time = PROBE.match(line), TIME.match(line)
        if probe:
            trip = float(probe.group(2))
            trips[probe.group(1)].append(trip)
            if last_run is not None:
                around[last_run] = (around[last_run][0], trip)
                last_run = None
            last_probe = trip
        elif time:
            op, ranks, rnd, system, size, us = time.groups()
            key = (op, int(ranks))
            times[(rnd, system, int(size))] = float(us)
            if (rnd, system) not in around:
                around[(rnd, system)] = (last_probe, None)
            last_run = (rnd, system)
        elif line and not line.startswith("#") and key is not None:  # the block's summary: the block is done
            runs[key] = {'times': times, 'trips': trips, 'around': around}
            times, trips, around, key, last_run, last_probe = {}, defaultdict(list), {}, None, None, None
    if key is not None:  # a log cut short: its last block as far as it went
        runs[key] = {'times': times, 'trips': trips, 'around': around}
    return runs


def rounds_of(times):
    """The rounds a block's times come from, in order (round numbers are strings in the log)."""
    return sorted({k[0] for k in times}, key=int)


def band(trip, bands):
    return sum(trip > b for b in bands)


def ratios(times, variant, rounds, size):
    out = []
    for r in rounds:
        a, b = times.get((r, variant, size)), times.get((r, 'mpi', size))
        if a is not None and b is not None:
            out.append(a / b)
    return out


# bus bandwidth over algorithm bandwidth (bytes / time), as nccl-tests and jcoll perf count it, at n ranks
BUS_FACTOR = {"allreduce": lambda n: 2 * (n - 1) / n, "reducescatter": lambda n: (n - 1) / n,
              "allgather": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n, "broadcast": lambda n: 1}


def bus_bandwidths(times, variant, op, ranks, size):
    """Each system's bus bandwidth in GB/s from its median time over the rounds: '<variant> / <mpi> GB/s'."""
    factor = BUS_FACTOR[op](int(ranks))
    gbs = []
    for system in (variant, 'mpi'):
        mine = [us for (r, s, b), us in times.items() if s == system and b == size]
        if not mine:
            return "-"
        gbs.append(size / (statistics.median(mine) * 1e-6) * factor / 1e9)
    return f"{gbs[0]:.3g} / {gbs[1]:.3g} GB/s"


def table(logs, variant, time, busbw=False):
    """The Markdown table of --table: bus bandwidth over Open MPI's (time: time over Open MPI's), every round;
    busbw: each system's bus bandwidth from its median time instead."""
    rows, sizes = [], set()
    for spec in logs:
        path, _, label = spec.partition(":")
        for (op, ranks), block in read(path).items():
            times = block['times']
            rounds = rounds_of(times)
            cells = {size: [r if time else 1 / r for r in ratios(times, variant, rounds, size)]
                     for size in {k[2] for k in times}}
            if busbw:
                cells = {size: bus_bandwidths(times, variant, op, ranks, size) if values else []
                         for size, values in cells.items()}
            rows.append((f"{op}{' ' + label if label else ''}, {ranks}", cells))
            sizes |= {size for size, values in cells.items() if values}  # a size Open MPI never ran is no column
    sizes = sorted(sizes)
    print("| op, ranks | " + " | ".join(size_name(s) for s in sizes) + " |")
    print("| --- |" + " --- |" * len(sizes))
    for name, cells in rows:
        print(f"| {name} | " + " | ".join(cell(cells.get(s, [])) for s in sizes) + " |")


def cell(value):
    """A table cell: bus bandwidths as they are, ratios described."""
    return value if isinstance(value, str) else describe(value)


def size_name(size):
    for unit, shift in (("MB", 20), ("KB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def describe(values):
    if not values:
        return "-"
    text = f"{statistics.median(values):.2f}x"
    return text + (f" ({min(values):.2f}-{max(values):.2f})" if len(values) > 1 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default="default")
    ap.add_argument("--spread", type=float, default=1.5)
    ap.add_argument("--bands", default="100,250", help="round trips (ns) that part the host's states")
    ap.add_argument("--table", action="store_true", help="one Markdown table of every log's bus bandwidth ratios")
    ap.add_argument("--time", action="store_true", help="with --table: time over Open MPI's instead")
    ap.add_argument("--busbw", action="store_true",
                    help="with --table: each system's bus bandwidth (GB/s) from its median time instead")
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    if args.table:
        table(args.logs, args.variant, args.time, args.busbw)
        return
    bands = [float(b) for b in args.bands.split(",")]
    names = [f"up to {bands[0]:.0f} ns"] + [f"{a:.0f}-{b:.0f} ns" for a, b in zip(bands, bands[1:])] \
        + [f"over {bands[-1]:.0f} ns"]
    for path in args.logs:
        for (op, ranks), block in read(path).items():
            times, trips = block['times'], block['trips']
            rounds = rounds_of(times)
            steady = [r for r in rounds if trips.get(r) and max(trips[r]) <= args.spread * min(trips[r])]
            sizes = sorted({k[2] for k in times})
            source = f"{path}: " if len(args.logs) > 1 else ""
            print(f"{source}{op}, {ranks} ranks, {args.variant} over Open MPI, time, median of the rounds' ratios "
                  f"(range); the steady rounds of {len(rounds)}: {','.join(steady) or 'none'}")
            for r in rounds:
                if trips.get(r):
                    print(f"  round {r}: host round trips {'/'.join(f'{t:.0f}' for t in trips[r])} ns")
            for size in sizes:
                print(f"  {size:>10d} B: every round {describe(ratios(times, args.variant, rounds, size)):>20s}   "
                      f"steady rounds {describe(ratios(times, args.variant, steady, size))}")
            state = {}  # (round, system) -> band, where the probes before and after the run agree
            for run, (before, after) in block['around'].items():
                if before is not None and after is not None and band(before, bands) == band(after, bands):
                    state[run] = band(before, bands)
            for b, name in enumerate(names):
                runs_in = {s: sorted((r for (r, s2), b2 in state.items() if s2 == s and b2 == b), key=int)
                           for s in (args.variant, 'mpi')}
                if not all(runs_in.values()):
                    continue
                print(f"  host round trip {name}: {args.variant} in rounds {','.join(runs_in[args.variant])}, "
                      f"mpi in rounds {','.join(runs_in['mpi'])}; {args.variant}'s median time over mpi's:")
                for size in sizes:
                    mine, theirs = ([times[(r, s, size)] for r in runs_in[s] if (r, s, size) in times]
                                    for s in (args.variant, 'mpi'))
                    if mine and theirs:
                        a, m = statistics.median(mine), statistics.median(theirs)
                        print(f"  {size:>10d} B: {a / m:.2f}x ({a:.3g} against {m:.3g} us)")


if __name__ == "__main__":
    main()
