# How the comparison runs Open MPI, sourced by compare.sh and ab.sh so that both run it alike: over TCP on the
# loopback interface only (no shared memory), the way jcoll's TCP transport goes.
mpirun=(mpirun --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
# Open MPI's default path on one host, as its users get it: shared memory (vader) between the ranks
mpirun_shm=(mpirun --oversubscribe)
[[ $(id -u) == 0 ]] && mpirun+=(--allow-run-as-root) && mpirun_shm+=(--allow-run-as-root)

# build_mpi_bench DIR: DIR/mpi_bench from mpi_bench.c with mpicc, or a copy of the prebuilt one that MPI_BENCH
# names (built elsewhere against the same libmpi.so.40, for a host without mpicc).
build_mpi_bench() {
  local src
  src="$(dirname "${BASH_SOURCE[0]}")/mpi_bench.c"
  if command -v mpicc >/dev/null; then
    mpicc -O2 -o "$1/mpi_bench" "$src" || { echo "mpicc failed on $src"; return 1; }
  elif [[ -x ${MPI_BENCH:-} ]]; then
    cp "$MPI_BENCH" "$1/mpi_bench"
  else
    echo "no mpicc (apt-get install libopenmpi-dev), and MPI_BENCH names no prebuilt mpi_bench"; return 1
  fi
}
