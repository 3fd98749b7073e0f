package io.jcoll.gpu;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

import java.lang.reflect.Method;
import java.util.Set;

/**
 * The checked NCCL calls jcoll makes, on one communicator. Communicators are
 * created non-blocking so that a stuck one can be aborted; every call's
 * result is checked, with {@code ncclGetErrorString} and {@code ncclGetLastError}
 * in the message. Callers must have passed {@link GpuRuntime#require}.
 */
public final class Nccl implements AutoCloseable {

    public static final int UNIQUE_ID_BYTES = 128;

    private final ncclComm comm;
    private final int rank;
    /**
     * Set once the communicator is aborted or destroyed, when NCCL frees it: from then on nothing may pass
     * {@code comm} to NCCL. The watchdog aborts from its own thread while the owner may be between calls, so
     * every use checks it, and the short queries hold the lock that abort takes.
     */
    private volatile boolean destroyed;

    private Nccl(ncclComm comm, int rank) {
        this.comm = comm;
        this.rank = rank;
    }

    /** A fresh unique id, as bytes to send to the other ranks. */
    public static byte[] uniqueId() {
        ncclUniqueId id = new ncclUniqueId();
        check(nccl.ncclGetUniqueId(id), null, "ncclGetUniqueId", JcollException.NONE);
        byte[] bytes = new byte[UNIQUE_ID_BYTES];
        id.internal().get(bytes);
        return bytes;
    }

    /**
     * Joins the NCCL communicator {@code id} as {@code rank} of {@code size} on the current device,
     * waiting for the non-blocking initialisation until {@code deadlineNanos}, and aborting it if it
     * does not finish.
     */
    public static Nccl join(byte[] id, int rank, int size, long deadlineNanos) {
        return join(id, rank, size, deadlineNanos, false);
    }

    /**
     * As {@link #join(byte[], int, int, long)}. Creation is always non-blocking, so that a peer that
     * dies during it cannot hang this rank: at the deadline the communicator is aborted.
     * {@code blocking} then trades it for a blocking twin made by {@code ncclCommSplit} (every rank in
     * one color, same order), whose launches return at once instead of answering {@code ncclInProgress}
     * and settling on a helper thread (about 45 us a call); the split is non-blocking too, and the
     * non-blocking original is finalized and destroyed.
     */
    public static Nccl join(byte[] id, int rank, int size, long deadlineNanos, boolean blocking) {
        if (id.length != UNIQUE_ID_BYTES) {
            throw new IllegalArgumentException("an NCCL unique id has " + UNIQUE_ID_BYTES + " bytes, not " + id.length);
        }
        ncclUniqueId uid = new ncclUniqueId();
        uid.internal().put(id);
        // native memory for the handle: with a non-blocking config NCCL may write it from its own thread
        PointerPointer<ncclComm> handle = new PointerPointer<>(1);
        int result = nccl.ncclCommInitRankConfig(handle, size, uid, rank, config(false));
        ncclComm comm = handle.get(ncclComm.class, 0);
        if (comm == null || comm.isNull()) {
            check(result, null, "ncclCommInitRankConfig", rank);
            throw new NativeCallException("ncclCommInitRankConfig", rank, "NCCL returned no communicator", -1);
        }
        Nccl n = new Nccl(comm, rank);
        if (result != nccl.ncclInProgress) {
            check(result, null, "ncclCommInitRankConfig", rank);
        }
        n.settle("ncclCommInitRankConfig", deadlineNanos);
        return blocking ? n.blockingTwin(deadlineNanos) : n;
    }

    /** Splits off a blocking communicator with the same ranks, then ends this one. */
    private Nccl blockingTwin(long deadlineNanos) {
        PointerPointer<ncclComm> handle = new PointerPointer<>(1);
        handle.put(0, (Pointer) null);
        int result = nccl.ncclCommSplit(comm, 0, rank, handle, config(true));
        if (result != nccl.ncclInProgress) {
            verify(result, "ncclCommSplit");
        }
        // the split runs as this communicator's job: its state is this one's; the deadline aborts both
        settle("ncclCommSplit", deadlineNanos);
        ncclComm twin = handle.get(ncclComm.class, 0);
        if (twin == null || twin.isNull()) {
            abort();
            throw new NativeCallException("ncclCommSplit", rank, "ncclCommSplit finished without a communicator", -1);
        }
        close(deadlineNanos);
        return new Nccl(twin, rank);
    }

    /**
     * NCCL_CONFIG_INITIALIZER: size, magic and version set, blocking as asked,
     * every other field "undefined" so NCCL applies its own defaults.
     */
    private static ncclConfig_t config(boolean blocking) {
        ncclConfig_t c = new ncclConfig_t();
        Set<String> own = Set.of("size", "magic", "version", "blocking");
        try {
            for (Method m : ncclConfig_t.class.getMethods()) {
                if (m.getReturnType() == ncclConfig_t.class && m.getParameterCount() == 1 && !own.contains(m.getName())) {
                    Class<?> p = m.getParameterTypes()[0];
                    if (p == int.class) {
                        m.invoke(c, Integer.MIN_VALUE); // NCCL_CONFIG_UNDEF_INT
                    } else if (org.bytedeco.javacpp.Pointer.class.isAssignableFrom(p)) {
                        m.invoke(c, (Object) null);    // NCCL_CONFIG_UNDEF_PTR
                    }
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot initialise ncclConfig_t", e);
        }
        c.size(Loader.sizeof(ncclConfig_t.class));
        c.magic(0xcafebeef);
        c.version(nccl.NCCL_VERSION_CODE);
        c.blocking(blocking ? 1 : 0);
        return c;
    }

    /** Waits until a non-blocking call has finished (its async error leaves ncclInProgress). */
    private void settle(String call, long deadlineNanos) {
        long spinUntil = System.nanoTime() + 2_000_000; // enqueueing settles in microseconds: spin before sleeping
        while (true) {
            int state = asyncState(call);
            if (state != nccl.ncclInProgress) {
                verify(state, call);
                return;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                abort();
                throw new CollectiveTimeoutException(call, rank, JcollException.NONE, call
                        + " did not complete within JCOLL_TIMEOUT; the NCCL communicator was aborted");
            }
            if (System.nanoTime() - spinUntil > 0) {
                sleepBriefly();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** The communicator's asynchronous error: 0 while healthy (or ncclInProgress while a call settles). */
    public int asyncError() {
        return asyncState("ncclCommGetAsyncError");
    }

    /** The asynchronous state, read under the lock so that an abort cannot free the communicator meanwhile. */
    private synchronized int asyncState(String during) {
        requireLive(during);
        int[] state = new int[1];
        verify(nccl.ncclCommGetAsyncError(comm, state), "ncclCommGetAsyncError");
        return state[0];
    }

    public synchronized String errorString(int code) {
        return nccl.ncclGetErrorString(code).getString() + (destroyed ? "" : lastError(comm));
    }

    /** Refuses to hand NCCL a communicator it has freed. */
    private void requireLive(String call) {
        if (destroyed) {
            throw new NativeCallException(call, rank, call + " refused: the NCCL communicator was already aborted "
                    + "or destroyed", -1);
        }
    }

    /** Checks an NCCL result on this communicator, with NCCL's last error while it still exists. */
    private void verify(int result, String call) {
        if (result != 0) {
            synchronized (this) {
                check(result, destroyed ? null : comm, call, rank);
            }
        }
    }

    // ---- collectives: enqueue on a stream; completion is the caller's (an event after them).
    // Calls on one communicator are serialised by its owner, so the buffer arguments reuse two pointers.

    private final Pointers.Reusable first = new Pointers.Reusable();
    private final Pointers.Reusable second = new Pointers.Reusable();

    public void allReduce(long send, long recv, long count, DataType type, ReduceOp op, CUstream_st stream, long deadline) {
        requireLive("ncclAllReduce");
        enqueued(nccl.ncclAllReduce(first.at(send), second.at(recv), count, type(type), op(op), comm, stream),
                "ncclAllReduce", deadline);
    }

    public void allGather(long send, long recv, long count, DataType type, CUstream_st stream, long deadline) {
        requireLive("ncclAllGather");
        enqueued(nccl.ncclAllGather(first.at(send), second.at(recv), count, type(type), comm, stream),
                "ncclAllGather", deadline);
    }

    public void reduceScatter(long send, long recv, long count, DataType type, ReduceOp op, CUstream_st stream, long deadline) {
        requireLive("ncclReduceScatter");
        enqueued(nccl.ncclReduceScatter(first.at(send), second.at(recv), count, type(type), op(op), comm, stream),
                "ncclReduceScatter", deadline);
    }

    public void broadcast(long send, long recv, long count, DataType type, int root, CUstream_st stream, long deadline) {
        requireLive("ncclBroadcast");
        enqueued(nccl.ncclBroadcast(first.at(send), second.at(recv), count, type(type), root, comm, stream),
                "ncclBroadcast", deadline);
    }

    /** NCCL's own all-to-all where the loaded library has it (2.28+), otherwise grouped sends and receives. */
    public void allToAll(long send, long recv, long countPerRank, DataType type, int size, CUstream_st stream,
                         long deadline, int ncclVersion) {
        requireLive("ncclAlltoAll");
        if (ncclVersion >= 22800) {
            enqueued(nccl.ncclAlltoAll(first.at(send), second.at(recv), countPerRank, type(type), comm, stream),
                    "ncclAlltoAll", deadline);
            return;
        }
        long bytes = countPerRank * type.size();
        group(true, deadline);
        for (int peer = 0; peer < size; peer++) {
            enqueued(nccl.ncclSend(first.at(send + peer * bytes), countPerRank, type(type), peer, comm, stream), "ncclSend", deadline);
            enqueued(nccl.ncclRecv(first.at(recv + peer * bytes), countPerRank, type(type), peer, comm, stream), "ncclRecv", deadline);
        }
        group(false, deadline);
    }

    public void reduce(long send, long recv, long count, DataType type, ReduceOp op, int root, CUstream_st stream,
                       long deadline) {
        requireLive("ncclReduce");
        enqueued(nccl.ncclReduce(first.at(send), second.at(recv), count, type(type), op(op), root, comm, stream),
                "ncclReduce", deadline);
    }

    /** NCCL's own gather where the loaded library has it (2.28+), otherwise grouped sends and receives. */
    public void gather(long send, long recv, long count, DataType type, int root, int rank, int size,
                       CUstream_st stream, long deadline, int ncclVersion) {
        requireLive("ncclGather");
        if (ncclVersion >= 22800) {
            enqueued(nccl.ncclGather(first.at(send), second.at(recv), count, type(type), root, comm, stream),
                    "ncclGather", deadline);
            return;
        }
        long bytes = count * type.size();
        group(true, deadline);
        enqueued(nccl.ncclSend(first.at(send), count, type(type), root, comm, stream), "ncclSend", deadline);
        for (int peer = 0; rank == root && peer < size; peer++) {
            enqueued(nccl.ncclRecv(second.at(recv + peer * bytes), count, type(type), peer, comm, stream), "ncclRecv", deadline);
        }
        group(false, deadline);
    }

    /** NCCL's own scatter where the loaded library has it (2.28+), otherwise grouped sends and receives. */
    public void scatter(long send, long recv, long count, DataType type, int root, int rank, int size,
                        CUstream_st stream, long deadline, int ncclVersion) {
        requireLive("ncclScatter");
        if (ncclVersion >= 22800) {
            enqueued(nccl.ncclScatter(first.at(send), second.at(recv), count, type(type), root, comm, stream),
                    "ncclScatter", deadline);
            return;
        }
        long bytes = count * type.size();
        group(true, deadline);
        for (int peer = 0; rank == root && peer < size; peer++) {
            enqueued(nccl.ncclSend(first.at(send + peer * bytes), count, type(type), peer, comm, stream), "ncclSend", deadline);
        }
        enqueued(nccl.ncclRecv(second.at(recv), count, type(type), root, comm, stream), "ncclRecv", deadline);
        group(false, deadline);
    }

    /**
     * An uneven all-to-all as one group of sends and receives, as PyTorch's {@code all_to_all_single} does with
     * split sizes: a pair with nothing to move posts nothing. Counts and offsets are in elements.
     */
    public void allToAllV(long send, long[] sendCounts, long[] sendOffsets, long recv, long[] recvCounts,
                          long[] recvOffsets, DataType type, CUstream_st stream, long deadline) {
        requireLive("ncclSend");
        long t = type.size();
        group(true, deadline);
        for (int peer = 0; peer < sendCounts.length; peer++) {
            if (sendCounts[peer] > 0) {
                enqueued(nccl.ncclSend(first.at(send + sendOffsets[peer] * t), sendCounts[peer], type(type), peer, comm,
                        stream), "ncclSend", deadline);
            }
            if (recvCounts[peer] > 0) {
                enqueued(nccl.ncclRecv(second.at(recv + recvOffsets[peer] * t), recvCounts[peer], type(type), peer,
                        comm, stream), "ncclRecv", deadline);
            }
        }
        group(false, deadline);
    }

    /**
     * {@code ncclCommSplit}: every rank of this communicator calls it; those with the same color form a new one,
     * ordered by key, then by rank here. The new communicator is blocking, as the one {@link #join} hands out.
     * The caller guards the deadline (the watchdog aborts this communicator if the split hangs on a dead peer).
     *
     * @param color the new group's color, or negative to take part in none
     * @return the new communicator, or null for a rank that takes part in none
     */
    public Nccl split(int color, int key, int newRank, long deadlineNanos) {
        requireLive("ncclCommSplit");
        PointerPointer<ncclComm> handle = new PointerPointer<>(1);
        handle.put(0, (Pointer) null);
        int result = nccl.ncclCommSplit(comm, color < 0 ? nccl.NCCL_SPLIT_NOCOLOR : color, key, handle, config(true));
        if (result != nccl.ncclInProgress) {
            verify(result, "ncclCommSplit");
        }
        settle("ncclCommSplit", deadlineNanos);
        if (color < 0) {
            return null;
        }
        ncclComm child = handle.get(ncclComm.class, 0);
        if (child == null || child.isNull()) {
            throw new NativeCallException("ncclCommSplit", rank, "ncclCommSplit finished without a communicator", -1);
        }
        return new Nccl(child, newRank);
    }

    /** Opens (or closes) a group: NCCL launches what is enqueued between the two at once. */
    public void groupStart(long deadline) {
        group(true, deadline);
    }

    public void groupEnd(long deadline) {
        group(false, deadline);
    }

    public void send(long data, long count, DataType type, int peer, CUstream_st stream, long deadline) {
        requireLive("ncclSend");
        enqueued(nccl.ncclSend(first.at(data), count, type(type), peer, comm, stream), "ncclSend", deadline);
    }

    public void recv(long data, long count, DataType type, int peer, CUstream_st stream, long deadline) {
        requireLive("ncclRecv");
        enqueued(nccl.ncclRecv(first.at(data), count, type(type), peer, comm, stream), "ncclRecv", deadline);
    }

    private void group(boolean start, long deadline) {
        enqueued(start ? nccl.ncclGroupStart() : nccl.ncclGroupEnd(), start ? "ncclGroupStart" : "ncclGroupEnd", deadline);
    }

    /**
     * A non-blocking communicator may answer ncclInProgress; the call is then finished once its state settles.
     * A launch that blocked until the watchdog aborted the communicator returns here with it freed.
     */
    private void enqueued(int result, String call, long deadline) {
        if (result == nccl.ncclInProgress) {
            settle(call, deadline);
        } else {
            verify(result, call);
        }
    }

    /** Stops every operation of this communicator, even stuck ones, and frees it. Safe to call more than once. */
    public synchronized void abort() {
        if (!destroyed) {
            destroyed = true;
            nccl.ncclCommAbort(comm);
        }
    }

    /** Orderly end: finalize (waiting up to the deadline), then destroy; aborts if finalizing hangs. */
    public synchronized void close(long deadlineNanos) {
        if (destroyed) {
            return;
        }
        int r = nccl.ncclCommFinalize(comm);
        if (r == nccl.ncclInProgress || r == 0) {
            try {
                settle("ncclCommFinalize", deadlineNanos);
            } catch (JcollException e) {
                return; // settle aborted it
            }
        }
        destroyed = true;
        nccl.ncclCommDestroy(comm);
    }

    @Override
    public void close() {
        close(System.nanoTime() + 10_000_000_000L);
    }

    /** NCCL's own account of its last error, in parentheses, or nothing. */
    private static String lastError(ncclComm comm) {
        if (comm == null) {
            return "";
        }
        String s = nccl.ncclGetLastError(comm).getString();
        return s == null || s.isBlank() ? "" : " (" + s + ")";
    }

    private static void check(int result, ncclComm comm, String call, int rank) {
        if (result != 0) {
            throw new NativeCallException(call, rank, call + " failed with NCCL error " + result + ": "
                    + nccl.ncclGetErrorString(result).getString() + lastError(comm), result);
        }
    }

    /** NCCL's type code; fails for types NCCL does not reduce. */
    public static int type(DataType t) {
        return switch (t) {
            case INT8 -> nccl.ncclInt8;
            case UINT8 -> nccl.ncclUint8;
            case INT32 -> nccl.ncclInt32;
            case INT64 -> nccl.ncclInt64;
            case FLOAT16 -> nccl.ncclFloat16;
            case BFLOAT16 -> nccl.ncclBfloat16;
            case FLOAT32 -> nccl.ncclFloat32;
            case FLOAT64 -> nccl.ncclFloat64;
            case FLOAT8_E4M3 -> nccl.ncclFloat8e4m3;
            case FLOAT8_E5M2 -> nccl.ncclFloat8e5m2;
        };
    }

    public static int op(ReduceOp op) {
        return switch (op) {
            case SUM -> nccl.ncclSum;
            case PROD -> nccl.ncclProd;
            case MIN -> nccl.ncclMin;
            case MAX -> nccl.ncclMax;
            case AVG -> nccl.ncclAvg;
        };
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(0, 20_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
