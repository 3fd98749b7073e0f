#!/usr/bin/env bash
# Bundles the GPU JUnit tests for a host without Maven: the JUnit console launcher and the
# test classes, into .gpu-tests/ (kept out of git). Run after shared/gpu/bundle.sh; carry both.
#   here:      bash benchmarks/gpu/bundle-tests.sh            (MODULES="jcoll-api jcoll-shm" for shm-tests.sh)
#   GPU host:  source .gpu/env.sh && bash benchmarks/gpu/junit.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.gpu-tests
grep -qxF "/$dir/" .git/info/exclude 2>/dev/null || echo "/$dir/" >> .git/info/exclude
rm -rf "$dir" && mkdir -p "$dir/classes"
mvn -q -B -DskipTests test-compile >&2
mvn -q -B dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.1 \
    -DoutputDirectory="$dir" >&2
for m in ${MODULES:-jcoll-api jcoll-nccl}; do cp -r "$m/target/test-classes/." "$dir/classes/"; done
du -sh "$dir" >&2
