#!/usr/bin/env bash
# A longer fuzzing run of every Jazzer target than the suite's 10 seconds each.
#   tools/fuzz-long.sh [SECONDS_PER_TARGET]      (default 600)
# Each target keeps its corpus in <module>/target/fuzz-corpus/<target> (reused by the next run) and writes what it
# finds to <module>/target/fuzz-findings/. Copy a finding into the target's
# src/test/resources/.../<Class>Inputs/<method>/ directory once fixed: the normal suite then replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
mvn -B -q -o install -DskipTests 2>/dev/null || mvn -B -q install -DskipTests

targets=(
  "jcoll-api io.jcoll.bootstrap.StoreProtocolFuzzTest handshake"
  "jcoll-api io.jcoll.bootstrap.StoreProtocolFuzzTest requests"
  "jcoll-tcp io.jcoll.tcp.FrameDecoderFuzzTest receive"
)
for t in "${targets[@]}"; do
  read -r module class method <<<"$t"
  root=$PWD/$module
  (cd "$module" && mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile=target/fuzz-classpath.txt >/dev/null)
  cp="$root/target/test-classes:$root/target/classes:$(cat "$root/target/fuzz-classpath.txt")"
  corpus=$root/target/fuzz-corpus/$class.$method
  findings=$root/target/fuzz-findings/
  mkdir -p "$corpus" "$findings"
  echo "== $class#$method for $seconds s"
  java -Xmx2g -cp "$cp" com.code_intelligence.jazzer.Jazzer --target_class="$class" --target_method="$method" \
      -max_total_time="$seconds" -artifact_prefix="$findings" "$corpus" 2>&1 \
      | grep -E "DONE|Done|INITED|==[0-9]+==|Exception|finding" || true
done
