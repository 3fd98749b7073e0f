#!/usr/bin/env bash
# Single copy where Linux's Yama module restricts ptrace (issue 19): under ptrace_scope 1 a process may read another's
# memory only as its ancestor or as a descendant of the tracer that one declared, so rank processes (siblings) read
# each other only where each declared one (JCOLL_SHM_TRACER: parent, the default; any; none). Root has
# CAP_SYS_PTRACE, which Yama lets through, so the ranks run as `nobody` here, from a copy of the tree that user can
# read. First each setting's network report (2 ranks, one All-to-All size), then All-to-All and AllGather with
# JCOLL_SHM_TRACER=parent against none, alternated in ROUNDS rounds (benchmarks/gpu/ab.sh, no Open MPI).
#   [RANKS="2 8"] [OPS="alltoall allgather"] [ROUNDS=3] bash benchmarks/gpu/yama.sh   (carry .gpu; writes $OUT/yama.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
exec > >(tee "$OUT/yama.log") 2>&1
echo "# $(date -u +%FT%TZ), kernel $(uname -r), checkout $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +changes)"
echo "# Yama ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>&1)"
source .gpu/env.sh
tree=/tmp/jcoll-yama
rm -rf "$tree" && mkdir -p "$tree/benchmarks" "$tree/out"
cp -r .gpu jcoll "$tree/" && cp -r benchmarks/gpu benchmarks/compare "$tree/benchmarks/"
chmod -R a+rX "$tree" /tmp/jcoll-jre && chmod 777 "$tree/out"
as_nobody() {
  (cd "$tree" && setpriv --reuid=65534 --regid=65534 --clear-groups \
     env HOME=/tmp OUT="$tree/out" JCOLL_CP="$tree/.gpu/lib/*" JCOLL_TRANSPORT=shm "$@")
}
echo "# ranks run as: $(as_nobody id)"
for tracer in parent none any; do
  echo "=== JCOLL_SHM_TRACER=$tracer, 2 ranks, All-to-All 4 MB"
  as_nobody env JCOLL_SHM_TRACER=$tracer ./jcoll perf alltoall -n 2 -b 4M -e 4M -w 5 -i 20 2>&1 \
    | grep -E "^ +[0-9]|network|rror"
done
echo "=== as root, for comparison"
JCOLL_TRANSPORT=shm ./jcoll perf alltoall -n 2 -b 4M -e 4M -w 5 -i 20 2>&1 | grep -E "^ +[0-9]|network|rror"
echo "=== parent against none, alternated"
as_nobody env TRANSPORT=shm RANKS="${RANKS:-2 8}" OPS="${OPS:-alltoall allgather}" LO=1M HI=64M FACTOR=4 WARM=5 \
  ITERS=50 ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-150}" NO_MPI=1 NO_NEW=1 \
  VARIANTS="parent:JCOLL_SHM_TRACER=parent none:JCOLL_SHM_TRACER=none" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
cat "$tree/out/ab.log"
