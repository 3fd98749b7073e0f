#!/usr/bin/env bash
# Runs the JUnit tests that need GPUs (jcoll-nccl) on the GPU host, from .gpu/ and .gpu-tests/.
set -uo pipefail
source "$(dirname "$0")/steps.sh"   # the root, the bundled runtime and JCOLL_CP, NCCL_NVLS_ENABLE=0
# JCOLL_CP ends in "lib/*", which java -cp expands but the launcher's --class-path does not
jars=( $JCOLL_CP )
java -jar .gpu-tests/junit-platform-console-standalone-*.jar execute \
  --class-path "$(IFS=:; echo "${jars[*]}"):.gpu-tests/classes" --select-class io.jcoll.nccl.NcclCollectivesTest \
  --details=tree --disable-banner
