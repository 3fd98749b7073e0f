#!/usr/bin/env python3
"""paired.sh's logs as a Markdown table for RESULTS.md: per op (and form), per size, the median of the blocks'
ratios (jcoll's time over Open MPI's) of each log, in the order given, separated by " / ".

    python3 benchmarks/compare/paired_table.py DIR1/paired.log DIR2/paired.log ...

A size's cell is marked with a trailing "!" where either output check found a wrong element.
"""
import re
import sys
from collections import OrderedDict

HEADER = re.compile(r'^# PairedMpi (\w+), (\d+) ranks, jcoll over (\w+)( \(in place\))?')
ROW = re.compile(r'^\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+[\d.]+-[\d.]+x(?:\s+(\S+)\s+(\S+))?\s*$')


def size_label(n):
    for unit, scale in (('MB', 1 << 20), ('KB', 1 << 10)):
        if n >= scale and n % scale == 0:
            return f'{n // scale} {unit}'
    return f'{n} B'


def read(path):
    """{(op, ranks, form): {bytes: 'ratio' or 'ratio!'}} of one log."""
    table, key = {}, None
    for line in open(path):
        m = HEADER.match(line)
        if m:
            key = (m.group(1), int(m.group(2)), 'in place' if m.group(4) else 'out of place')
            table.setdefault(key, {})
            continue
        m = ROW.match(line)
        if m and key:
            wrong = any(w not in (None, '-', '0') for w in (m.group(5), m.group(6)))
            table[key][int(m.group(1))] = f'{float(m.group(4)):.2f}' + ('!' if wrong else '')
    return table


def main(paths):
    logs = [read(p) for p in paths]
    keys = list(OrderedDict.fromkeys(k for log in logs for k in log))
    sizes = sorted({s for log in logs for k in log for s in log[k]})
    print('| op, ranks, form | ' + ' | '.join(size_label(s) for s in sizes) + ' |')
    print('| --- ' * (len(sizes) + 1) + '|')
    for op, ranks, form in keys:
        cells = []
        for s in sizes:
            values = [log.get((op, ranks, form), {}).get(s, '-') for log in logs]
            cells.append(' / '.join(values) + 'x' if any(v != '-' for v in values) else '-')
        print(f'| {op}, {ranks}, {form} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
