package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

/**
 * A program started by {@code mpirun}, with nothing else to configure: rank,
 * size and local rank come from Open MPI's variables, and rank 0's rendezvous
 * address travels through MPI itself. From the repository root:
 * <pre>
 * mpirun -np 4 java -cp "$(./jcoll classpath)" io.jcoll.examples.MpiLaunch
 * </pre>
 * (as root, add {@code --allow-run-as-root}; more ranks than cores, {@code --oversubscribe}).
 * Host buffers go through MPI's own collectives ({@code mpi} transport), GPU
 * buffers through NCCL when every rank has a GPU; {@code JCOLL_TRANSPORT} overrides.
 */
public final class MpiLaunch {

    private MpiLaunch() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            long[] counts = {comm.rank() + 1L};
            comm.allReduce(HostBuffer.of(counts), ReduceOp.SUM);        // 1 + 2 + ... + size
            long expected = (long) comm.size() * (comm.size() + 1) / 2;
            if (counts[0] != expected) {
                throw new AssertionError("expected " + expected + ", got " + counts[0]);
            }
            System.out.println("rank " + comm.rank() + " of " + comm.size() + " (local " + comm.localRank() + ") over "
                    + comm.transport().name() + ": sum of ranks + 1 is " + counts[0]);
        }
    }
}
