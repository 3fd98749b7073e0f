#!/usr/bin/env bash
# jcoll and Open MPI in the same processes, block by block (io.jcoll.bench.PairedMpi): on a host whose speed moves
# between states for seconds at a time, each block of jcoll's calls is timed next to a block of Open MPI's, and the
# figure is the median of the blocks' ratios. --transport tcp runs Open MPI over TCP on loopback (as compare.sh and
# ab.sh do) against jcoll's TCP transport; shm, Open MPI's default path on one host (shared memory) against jcoll's
# shared-memory transport. Both libraries run in the same JVMs, so under the same binding: none (mpirun's default
# would put each JVM, its compiler and its collector on one core).
#
#   benchmarks/compare/paired.sh [-n 2] [--transport tcp|shm] [-o "allreduce"] [--out DIR] [-- PAIRED_OPTIONS]
#     PAIRED_OPTIONS: PairedMpi's own (-b 8 -e 2M -f 4 -w 200 -k 50 -B 20 --jit-warmup CALLS --in-place)
#
# Prints each op's table (sizes; each system's median time per call over the blocks; the median of the blocks'
# ratios, jcoll over Open MPI, with their 10th-90th percentiles) and, with --out, keeps every block's times as
# DIR/OP-blocks.csv and the tables as DIR/paired.log. Needs mpirun (Debian: openmpi-bin) and a built tree.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ranks=2 transport=tcp ops=allreduce out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) ranks="$2"; shift 2 ;; --transport) transport="$2"; shift 2 ;; -o) ops="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;; --) shift; break ;;
    *) echo "paired: unknown argument $1 (PairedMpi's options go after --)"; exit 2 ;;
  esac
done
source "$here/openmpi.sh"
case $transport in
  tcp) launch=("${mpirun[@]}") ;;
  shm) launch=("${mpirun_shm[@]}") ;;
  *) echo "paired: --transport is tcp or shm"; exit 2 ;;
esac
cp="$("$root/jcoll" classpath)"
# the options jcoll launch gives its ranks (Launcher.RANK_JVM_OPTIONS): native access declared, and from JDK 23
# sun.misc.Unsafe's memory methods allowed (the shared-memory transport unmaps its segment with one)
jvm=(--enable-native-access=ALL-UNNAMED)
feature=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
(( ${feature%%.*} >= 23 )) && jvm+=(--sun-misc-unsafe-memory-access=allow)
# jcoll's connections between the ranks authenticated, as under jcoll launch (the ranks inherit mpirun's environment)
export JCOLL_TOKEN=${JCOLL_TOKEN:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
log=/dev/null
if [[ -n $out ]]; then
  mkdir -p "$out"
  log="$out/paired.log"
fi
{
  echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, checkout $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo +changes)"
  echo "# $(java -version 2>&1 | head -1); $(mpirun --version 2>&1 | head -1); ${launch[*]} --bind-to none -np $ranks"
  for op in $ops; do
    csv=()
    [[ -n $out ]] && csv=(--blocks-csv "$out/$op-blocks.csv")
    timeout 1800 "${launch[@]}" --bind-to none -np "$ranks" java "${jvm[@]}" ${JCOLL_JAVA_OPTS:-} \
      -cp "$cp" io.jcoll.bench.PairedMpi "$op" --transport "$transport" "${csv[@]}" "$@"
  done
} 2>&1 | tee "$log"
