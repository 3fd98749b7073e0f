#!/usr/bin/env python3
"""cma_floor.c's rounds summed up: for each labelled run and size, the median of the rounds' ratios (the floor's
time over Open MPI's) with their range, as a Markdown table. Reads logs whose runs begin with a line
`== LABEL round R ...` (what benchmarks/results/*/floor.sh and broadcast-share.sh print) followed by cma_floor's rows.

    python3 floor_medians.py LOG...
"""
import collections
import re
import statistics
import sys


def read(paths):
    """{label: {bytes: [ratio, ...]}}, the labels in the order they first appear."""
    ratios = collections.OrderedDict()
    for path in paths:
        label = None
        with open(path) as log:
            for line in log:
                start = re.match(r'== (\S+) round ', line)
                if start:
                    label = start.group(1)
                    continue
                cells = line.split()
                if label and len(cells) >= 4 and cells[0].isdigit() and cells[3].endswith('x'):
                    ratios.setdefault(label, {}).setdefault(int(cells[0]), []).append(float(cells[3][:-1]))
    return ratios


def size_name(size):
    return f'{size >> 10} KB' if size < 1 << 20 else f'{size >> 20} MB'


def main(paths):
    ratios = read(paths)
    sizes = sorted({size for by_size in ratios.values() for size in by_size})
    print('| run | ' + ' | '.join(size_name(s) for s in sizes) + ' |')
    print('| --- |' + ' --- |' * len(sizes))
    for label, by_size in ratios.items():
        cells = []
        for size in sizes:
            got = by_size.get(size)
            cells.append(f'{statistics.median(got):.2f}x ({min(got):.2f}-{max(got):.2f}, {len(got)})' if got else '')
        print(f'| {label} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main(sys.argv[1:])
