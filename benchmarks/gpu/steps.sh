# What the GPU scripts share; each sources this first (it is not run by itself). It moves to
# the repository root and sets OUT (where results go), the bundled runtime, NCCL_NVLS_ENABLE=0
# (never NVLink multicast on the shared host), JCOLL_TIMEOUT and N (the GPUs); then the steps.
# Every step is time-limited so one failure cannot eat the lease.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
source .gpu/env.sh
export NCCL_NVLS_ENABLE=0 JCOLL_TIMEOUT=${JCOLL_TIMEOUT:-120s}
N=$(nvidia-smi -L | wc -l)

step() { echo; echo "=== $*"; }

# builds benchmarks/gpu/$1.c against the host's NCCL and CUDA runtime into /tmp/$1 (with gcc: the programs
# declare what they call), and puts libcudart on the library path
nccl_c_bench() {
  gcc -O2 -o "/tmp/$1" "benchmarks/gpu/$1.c" -L/usr/local/cuda/lib64 -l:libnccl.so.2 -lcudart \
    || echo "$1 did not build"
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
}

# NCCL's socket path between the GPUs of one host under mpirun (socket-path.sh, binding.sh): builds the C peer
# (bw_bench.c, nccl-tests' measurement), forces the path, and sets ROUNDS ($1 unless set), ITERS (20) and jcoll's
# SIZES; c_sizes gives the C peer the same sizes, socket_rows keeps rank 0's rows and what the ranks say of their
# network and CPUs, and socket_mpi runs a command under mpirun with the binding $1 and the path's settings.
socket_path() {
  nccl_c_bench bw_bench
  export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
  ROUNDS=${ROUNDS:-$1}
  ITERS=${ITERS:-20}
  SIZES=(-b 64M -e 256M -f 2 -w 3 -i "$ITERS")
}
c_sizes() { echo "64M 256M 2 3 $ITERS"; }
socket_rows() { grep -E "^(\[0\])? *[0-9]+ +[0-9]+ +float|network|WARNING: rank|widened|Exception" | cut -c1-400; }
# one round's README command (mpirun --bind-to none ./jcoll perf allreduce) and the C loop under the same mpirun
socket_readme_round() {
  step "round $1: mpirun --bind-to none -np $N ./jcoll perf allreduce (README)"
  socket_mpi "--bind-to none" ./jcoll perf allreduce "${SIZES[@]}" | socket_rows
  step "round $1: mpirun --bind-to none, C allreduce"
  socket_mpi "--bind-to none" /tmp/bw_bench allreduce "$N" $(c_sizes)
}
socket_mpi() {
  local bind=$1; shift
  export BW_ID_FILE=/tmp/bw_bench.$$.$RANDOM.id
  timeout 150 mpirun --allow-run-as-root $bind -np "$N" -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE -x NCCL_NVLS_ENABLE \
    -x BW_ID_FILE "$@"
}

# rank 0's table rows of `jcoll perf` on stdin, one line per size: bytes, time, bus bandwidth, in-place time
perf_rows() {
  grep -E '^ +[0-9]' | awk '{printf "%10s bytes  %9s us  %6s GB/s busbw  in place %9s us\n", $1, $6, $8, $10}'
}

demo_step() { step "demo (NCCL, device buffers)"; timeout 120 ./jcoll demo -n "$N"; }

latency_step() {  # $1: JCOLL_NCCL_BLOCKING
  step "latency: allreduce 8 bytes, long warm-up, JCOLL_NCCL_BLOCKING=$1"
  JCOLL_NCCL_BLOCKING=$1 timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 8 -w 5000 -i 2000
}

example_step() {
  step "example: device buffers on the caller's own stream"
  timeout 120 ./jcoll launch -n "$N" -- io.jcoll.examples.DeviceAllReduce
}

thread_ranks_step() {
  step "ranks as threads of one JVM, one GPU each"
  timeout 120 java -cp "$JCOLL_CP" io.jcoll.bench.ThreadRanks "$N"
}

fp8_step() {
  step "fp8 on NCCL"
  for case in allreduce:f8e4m3:sum allreduce:f8e5m2:max reducescatter:f8e4m3:avg allgather:f8e5m2:sum; do
    IFS=: read -r op t o <<< "$case"
    timeout 120 ./jcoll perf $op -n "$N" -b 0 -e 1M -f 32 -w 1 -i 2 -d $t -o $o | grep -E "Out of bounds|Exception" | sed "s/^/$op $t $o: /"
  done
}

tcp_device_step() {
  step "device buffers through the TCP transport (staged a segment at a time)"
  for op in allreduce alltoall; do
    JCOLL_TRANSPORT=tcp timeout 120 ./jcoll perf $op -n "$N" -b 8 -e 64M -f 8 -w 3 -i 10 --memory device
  done
}

drill_step() {
  step "failure drill: rank 1 halts mid-AllReduce (JCOLL_TIMEOUT=5s, launcher grace 30 s)"
  JCOLL_TIMEOUT=5s JCOLL_LAUNCH_GRACE=30 timeout 120 ./jcoll launch -n "$N" -- io.jcoll.bench.FailureDrill 1
}

# the class path of build $1: "base" is this bundle with the previous head's jcoll-shm jar first (BASE_JAR, default
# .gpu/base/jcoll-shm.jar), anything else this bundle as it is
build_cp() {
  if [[ $1 == base ]]; then echo "$(realpath "${BASE_JAR:-.gpu/base/jcoll-shm.jar}"):$JCOLL_CP"; else echo "$JCOLL_CP"; fi
}
