#!/usr/bin/env python3
"""The host's user, system and idle shares while a benchmark ran, from the /proc/stat samples that
benchmarks/gpu/cpu-use.sh takes once a second ("<unix time> cpu <user> <nice> <system> <idle> <iowait> <irq>
<softirq> ..."). System time counts irq and softirq (loopback TCP's receive path runs there); idle counts iowait.

The steady part is the seconds whose system share is at least half the busiest second's, without the first and
last of them (start-up, compilation and the last partial second fall outside it): the means over it are what a
benchmark's timed loop had.

    python3 benchmarks/compare/cpu_split.py [--each] cpu-jcoll.stat cpu-gloo.stat ...

--each also prints every second's shares, stamped with the sample's time.
"""
import sys


def shares(path):
    """Per second: (time, user, system, idle), the shares as fractions of all the host's time in that second."""
    previous, out = None, []
    for line in open(path):
        fields = line.split()
        if len(fields) < 9 or fields[1] != "cpu":
            continue
        user, nice, system, idle, iowait, irq, softirq = (int(x) for x in fields[2:9])
        now = (user, nice, system + irq + softirq, idle + iowait)
        if previous:
            d = [a - b for a, b in zip(now, previous)]
            total = sum(d)
            if total > 0:
                out.append((fields[0], d[0] / total, d[2] / total, d[3] / total))
        previous = now
    return out


def steady(samples):
    if not samples:
        return []
    busiest = max(s[2] for s in samples)
    busy = [i for i, s in enumerate(samples) if s[2] >= busiest / 2]
    first, last = busy[0] + 1, busy[-1] - 1
    return samples[first:last + 1] if last >= first else samples[busy[0]:busy[-1] + 1]


def line(user, system, idle):
    return f"user {100 * user:4.1f}% system {100 * system:4.1f}% idle {100 * idle:4.1f}%"


def main():
    each = "--each" in sys.argv[1:]
    for path in (a for a in sys.argv[1:] if a != "--each"):
        samples = shares(path)
        if each:
            for stamp, *split in samples:
                print(f"  {stamp} {line(*split)}")
        part = steady(samples)
        if not part:
            print(f"{path}: no samples")
            continue
        mean = [sum(s[k] for s in part) / len(part) for k in (1, 2, 3)]
        print(f"{path}: {len(part)} steady seconds: {line(*mean)}")


if __name__ == "__main__":
    main()
