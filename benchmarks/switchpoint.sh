#!/usr/bin/env bash
# Measures where recursive doubling stops beating the ring for AllReduce over TCP:
# the same sweep with the small-message algorithm forced off and forced on.
#   bash benchmarks/switchpoint.sh [RANKS...]     (default: 2 4)
set -euo pipefail
cd "$(dirname "$0")/.."
for n in "${@:-2 4}"; do
  for mode in ring:0 doubling:512K; do
    echo "== $n ranks, ${mode%%:*} (JCOLL_TCP_SMALL_ALLREDUCE=${mode#*:})"
    JCOLL_TCP_SMALL_ALLREDUCE=${mode#*:} ./jcoll perf allreduce -n "$n" -b 1K -e 512K -f 2 -w 200 -i 300 -c 0 \
      | grep -E '^ +[0-9]'
  done
done
