package io.jcoll.mpi;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The MPI functions jcoll calls, bound by JNA's direct mapping to whichever
 * libmpi {@link MpiLibrary} loaded: no MPI headers or libraries at build time.
 * Handles ({@code MPI_Comm}, {@code MPI_Datatype}, {@code MPI_Op},
 * {@code MPI_Request}) and addresses travel as {@code long}: a pointer in Open
 * MPI's ABI, an {@code int} in MPICH's, and on x86-64 and AArch64 both are passed
 * in a 64-bit register whose low half an {@code int} parameter reads. Only
 * {@link MpiLibrary} calls these, and it checks every return code.
 */
final class MpiNative {

    private MpiNative() {
    }

    static void bind(NativeLibrary library) {
        Native.register(MpiNative.class, library);
    }

    static native int MPI_Initialized(long flag);
    static native int MPI_Finalized(long flag);
    static native int MPI_Init_thread(long argc, long argv, int required, long provided);
    static native int MPI_Query_thread(long provided);
    static native int MPI_Finalize();
    static native int MPI_Get_library_version(long version, long length);
    static native int MPI_Error_string(int code, long text, long length);
    static native int MPI_Comm_rank(long comm, long rank);
    static native int MPI_Comm_size(long comm, long size);
    static native int MPI_Comm_dup(long comm, long newComm);
    static native int MPI_Comm_free(long comm);
    static native int MPI_Comm_set_errhandler(long comm, long errhandler);
    static native int MPI_Bcast(long buffer, int count, long type, int root, long comm);
    static native int MPI_Iallreduce(long send, long recv, int count, long type, long op, long comm, long request);
    static native int MPI_Iallgather(long send, int sendCount, long sendType, long recv, int recvCount, long recvType,
                                     long comm, long request);
    static native int MPI_Ireduce_scatter_block(long send, long recv, int recvCount, long type, long op, long comm,
                                                long request);
    static native int MPI_Ialltoall(long send, int sendCount, long sendType, long recv, int recvCount, long recvType,
                                    long comm, long request);
    static native int MPI_Ibcast(long buffer, int count, long type, int root, long comm, long request);
    static native int MPI_Ibarrier(long comm, long request);
    static native int MPI_Isend(long buffer, int count, long type, int dest, int tag, long comm, long request);
    static native int MPI_Irecv(long buffer, int count, long type, int source, int tag, long comm, long request);
    static native int MPI_Test(long request, long flag, long status);
    static native int MPI_Comm_split(long comm, int color, int key, long newComm);
    static native int MPI_Ireduce(long send, long recv, int count, long type, long op, int root, long comm, long request);
    static native int MPI_Igather(long send, int sendCount, long sendType, long recv, int recvCount, long recvType,
                                  int root, long comm, long request);
    static native int MPI_Iscatter(long send, int sendCount, long sendType, long recv, int recvCount, long recvType,
                                   int root, long comm, long request);
    static native int MPI_Ialltoallv(long send, long sendCounts, long sendOffsets, long sendType, long recv,
                                     long recvCounts, long recvOffsets, long recvType, long comm, long request);
    static native int MPI_Reduce_local(long in, long inout, int count, long type, long op);
}
