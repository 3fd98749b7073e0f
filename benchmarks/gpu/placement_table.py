#!/usr/bin/env python3
"""benchmarks/gpu/placement.sh's log as a Markdown table: per op, rank count and size, each system's median time per
call over the rounds (us) with its range.

    python3 benchmarks/gpu/placement_table.py OUT/placement.log
"""
import statistics
import sys
from collections import defaultdict

SYSTEMS = ['jcoll-none', 'jcoll-near', 'jcoll-far', 'mpi-default', 'mpi-none']

times = defaultdict(list)  # (op, ranks, bytes, system) -> time per call in each round
for line in open(sys.argv[1]):
    if not line.startswith('#'):
        _round, system, op, ranks, size, us = line.split()
        times[(op, int(ranks), int(size), system)].append(float(us))

print('| op, ranks, bytes | ' + ' | '.join(SYSTEMS) + ' |')
print('| --- ' * (len(SYSTEMS) + 1) + '|')
for point in sorted({key[:3] for key in times}, key=lambda p: (p[0] != 'broadcast', p[1], p[2])):
    cells = []
    for system in SYSTEMS:
        rounds = times[point + (system,)]
        cells.append('%.2f (%.2f-%.2f)' % (statistics.median(rounds), min(rounds), max(rounds)) if rounds else '-')
    print(f'| {point[0]}, {point[1]}, {point[2]} B | ' + ' | '.join(cells) + ' |')
