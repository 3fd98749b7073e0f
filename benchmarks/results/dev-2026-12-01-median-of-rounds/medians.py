#!/usr/bin/env python3
"""Issue 19's measure over paired.sh's logs, one log a round: for every op and size the median of the rounds'
ratios (jcoll's time over Open MPI's) with their range, and how many points each round has at most Open MPI's time.

    python3 medians.py auto-*/paired.log [alternated/auto-*/paired.log]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'compare'))
from paired_table import read  # noqa: E402


def main(logs):
    tables = [read(path) for path in logs]
    keys = list(tables[0])
    sizes = sorted(tables[0][keys[0]])
    met_by_round = [0] * len(tables)
    met_by_median = 0
    print('| op | ' + ' | '.join(f'{s >> 10} KB' if s < 1 << 20 else f'{s >> 20} MB' for s in sizes) + ' |')
    for key in keys:
        cells = []
        for size in sizes:
            # a round cut short lacks its last points: those take the median of the rounds that have them
            had = {i: float(t[key][size].rstrip('!')) for i, t in enumerate(tables) if size in t.get(key, {})}
            for i, ratio in had.items():
                met_by_round[i] += ratio <= 1.0
            ratios = list(had.values())
            median = statistics.median(ratios)
            met_by_median += median <= 1.0
            short = '' if len(ratios) == len(tables) else f', {len(ratios)} rounds'
            cells.append(f'{median:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}{short})')
        print(f'| {key[0]} | ' + ' | '.join(cells) + ' |')
    print(f'points at most Open MPI\'s time by the medians: {met_by_median}; by round: {met_by_round}')


if __name__ == '__main__':
    main(sys.argv[1:])
