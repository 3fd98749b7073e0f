package io.jcoll.bench;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import java.nio.ByteBuffer;

/**
 * Open MPI's own blocking collectives on float32 sums, called from Java for {@link PairedMpi}: the calls
 * {@code mpi_bench.c} makes, on direct buffers, so that Open MPI can be timed in the same process as jcoll. Not
 * jcoll's MPI transport (which starts non-blocking collectives and adds a call check): what a C program gets.
 * Handles are Open MPI's (the addresses of its predefined objects); a call that returns an error stops the run.
 */
final class OpenMpiCalls {

    private static final int THREAD_SINGLE = 0; // MPI_THREAD_SINGLE in Open MPI's mpi.h: what MPI_Init gives mpi_bench
    private static final long IN_PLACE = 1;     // MPI_IN_PLACE in Open MPI's mpi.h: ((void *) 1)

    private final long world;
    private final long float32;
    private final long sum;
    private final long max;
    private final long float64;
    private final long int32;

    private OpenMpiCalls(NativeLibrary lib) {
        world = symbol(lib, "ompi_mpi_comm_world");
        float32 = symbol(lib, "ompi_mpi_float");
        float64 = symbol(lib, "ompi_mpi_double");
        int32 = symbol(lib, "ompi_mpi_int");
        sum = symbol(lib, "ompi_mpi_op_sum");
        max = symbol(lib, "ompi_mpi_op_max");
    }

    /**
     * Loads Open MPI's library and initialises MPI as {@code MPI_Init} does, as mpi_bench has it (one thread level:
     * asking for every level, as jcoll's MPI runtime does, has Open MPI lock around its progress), so jcoll is not to
     * use MPI in the same process: {@link PairedMpi} forms its communicator with its own rendezvous.
     */
    static OpenMpiCalls start() {
        NativeLibrary lib;
        try {
            lib = NativeLibrary.getInstance("libmpi.so.40");
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException("Open MPI's libmpi.so.40 could not be loaded (the peer timed here is "
                    + "Open MPI 4 or 5): " + e.getMessage(), e);
        }
        Native.register(Calls.class, lib);
        OpenMpiCalls mpi = new OpenMpiCalls(lib);
        Memory flag = new Memory(4);
        check(Calls.MPI_Initialized(flag), "MPI_Initialized");
        if (flag.getInt(0) == 0) {
            check(Calls.MPI_Init_thread(Pointer.NULL, Pointer.NULL, THREAD_SINGLE, flag), "MPI_Init_thread");
        }
        return mpi;
    }

    int rank() {
        Memory out = new Memory(4);
        check(Calls.MPI_Comm_rank(world, out), "MPI_Comm_rank");
        return out.getInt(0);
    }

    int size() {
        Memory out = new Memory(4);
        check(Calls.MPI_Comm_size(world, out), "MPI_Comm_size");
        return out.getInt(0);
    }

    /** Rank 0's {@code value}, on every rank. */
    int broadcast(int value) {
        Memory at = new Memory(4);
        at.setInt(0, value);
        check(Calls.MPI_Bcast(Pointer.nativeValue(at), 1, int32, 0, world), "MPI_Bcast");
        return at.getInt(0);
    }

    void barrier() {
        check(Calls.MPI_Barrier(world), "MPI_Barrier");
    }

    /** The largest of every rank's {@code value}. */
    double max(double value) {
        return reduce(value, max);
    }

    /** The sum of every rank's {@code value}. */
    double sum(double value) {
        return reduce(value, sum);
    }

    private double reduce(double value, long op) {
        Memory in = new Memory(8);
        Memory out = new Memory(8);
        in.setDouble(0, value);
        check(Calls.MPI_Allreduce(Pointer.nativeValue(in), Pointer.nativeValue(out), 1, float64, op, world),
                "MPI_Allreduce");
        return out.getDouble(0);
    }

    /** The address of a direct buffer's memory, for {@link #run}. */
    static long address(ByteBuffer direct) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(direct));
    }

    /**
     * What one call through this binding costs beyond the library's own work: the mean time of
     * {@code MPI_Initialized}, which does nothing but store a flag, in microseconds.
     */
    double callMicros(int calls) {
        Memory flag = new Memory(4);
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            Calls.MPI_Initialized(flag);
        }
        return (System.nanoTime() - start) / 1e3 / calls;
    }

    /**
     * One call of {@code op} as mpi_bench.c makes it, on the memory at addresses {@code s} and {@code r}:
     * {@code total} floats of the largest buffer, a block of {@code total / n} per rank where there are blocks;
     * Broadcast from rank 0, in place in {@code r}. {@code inPlace}: the others in place too, as MPI defines it
     * ({@code MPI_IN_PLACE} for the input, which is read from {@code r}; a reduce-scatter's result at its start).
     */
    void run(Collective op, long s, long r, long total, int n, boolean inPlace) {
        int all = Math.toIntExact(total);
        int block = Math.toIntExact(total / n);
        long in = inPlace ? IN_PLACE : s;
        int code = switch (op) {
            case ALLREDUCE -> Calls.MPI_Allreduce(in, r, all, float32, sum, world);
            case ALLGATHER -> Calls.MPI_Allgather(in, block, float32, r, block, float32, world);
            case REDUCESCATTER -> Calls.MPI_Reduce_scatter_block(in, r, block, float32, sum, world);
            case ALLTOALL -> Calls.MPI_Alltoall(in, block, float32, r, block, float32, world);
            case BROADCAST -> Calls.MPI_Bcast(r, all, float32, 0, world);
            default -> throw new IllegalArgumentException(op.label() + " is not one of mpi_bench's operations");
        };
        check(code, op.label());
    }

    void finish() {
        Memory flag = new Memory(4);
        check(Calls.MPI_Finalized(flag), "MPI_Finalized");
        if (flag.getInt(0) == 0) {
            check(Calls.MPI_Finalize(), "MPI_Finalize");
        }
    }

    private static void check(int code, String call) {
        if (code != 0) {
            throw new IllegalStateException(call + " returned MPI error " + code);
        }
    }

    private static long symbol(NativeLibrary lib, String name) {
        return Pointer.nativeValue(lib.getGlobalVariableAddress(name));
    }

    /** JNA's direct mapping; handles and buffer addresses as {@code long}, Open MPI's pointers. */
    private static final class Calls {
        static native int MPI_Initialized(Pointer flag);
        static native int MPI_Finalized(Pointer flag);
        static native int MPI_Init_thread(Pointer argc, Pointer argv, int required, Pointer provided);
        static native int MPI_Finalize();
        static native int MPI_Comm_rank(long comm, Pointer rank);
        static native int MPI_Comm_size(long comm, Pointer size);
        static native int MPI_Barrier(long comm);
        static native int MPI_Allreduce(long send, long recv, int count, long type, long op, long comm);
        static native int MPI_Allgather(long send, int sendCount, long sendType, long recv, int recvCount,
                                        long recvType, long comm);
        static native int MPI_Reduce_scatter_block(long send, long recv, int recvCount, long type, long op,
                                                   long comm);
        static native int MPI_Alltoall(long send, int sendCount, long sendType, long recv, int recvCount,
                                       long recvType, long comm);
        static native int MPI_Bcast(long buffer, int count, long type, int root, long comm);
    }
}
