#!/usr/bin/env bash
# benchmarks/compare/JavaCmaFloor.java's two processes (root and reader) on this host: the in-place broadcast's
# floor from a JVM, the reader reading it all ("read") and the root writing the first half while the reader reads
# the rest ("split"), alternated ROUNDS times beside cma_floor.c's broadcast (built as /tmp/cma_floor), 128 KB-32 MB.
#   [ROUNDS=3] bash java-floor.sh > java-floor.log
set -uo pipefail
floor="$(cd "$(dirname "$0")/../../compare" && pwd)/JavaCmaFloor.java"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
pair() { # BUFFERS CHUNK [split]
  local file=/dev/shm/java-floor.$$
  "$java" --enable-native-access=ALL-UNNAMED "$floor" 0 "$file" 131072 33554432 4 1000 20 20 "$@" &
  "$java" --enable-native-access=ALL-UNNAMED "$floor" 1 "$file" 131072 33554432 4 1000 20 20 "$@"
  wait
}
for r in $(seq 1 "${ROUNDS:-3}"); do
  echo "== round $r $(date +%T) $(/tmp/host_probe 1)"
  mpirun --oversubscribe --allow-run-as-root --bind-to none -np 2 /tmp/cma_floor broadcast 131072 33554432 4 1000 20 20
  echo "-- read"; pair direct 0
  echo "-- split"; pair direct 0 split
done
