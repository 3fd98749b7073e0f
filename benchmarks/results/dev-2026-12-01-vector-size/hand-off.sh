#!/usr/bin/env bash
# HandOff.java's two ranks with the JVM's defaults and with -XX:MaxVectorSize=32, alternated ROUNDS times
# (default 4), 4 MB a rank through 64 KB slots; `java` from PATH, CLASSES holding HandOff.class (javac --release 17).
#   CLASSES=/tmp/handoff [ROUNDS=4] bash hand-off.sh
set -uo pipefail
file=${SHM_DIR:-/dev/shm}/jcoll-hand-off-$$
trap 'rm -f "$file"' EXIT
java -XX:+PrintFlagsFinal -version 2>/dev/null | grep -E ' (MaxVectorSize|UseAVX|AVX3Threshold) '
for r in $(seq 1 "${ROUNDS:-4}"); do
  for flags in "" "-XX:MaxVectorSize=32"; do
    rm -f "$file"
    printf 'round %d %-22s' "$r" "${flags:-defaults}"
    java $flags -cp "$CLASSES" HandOff 1 4194304 65536 8 1000 "$file" &
    java $flags -cp "$CLASSES" HandOff 0 4194304 65536 8 1000 "$file"
    wait
  done
done
