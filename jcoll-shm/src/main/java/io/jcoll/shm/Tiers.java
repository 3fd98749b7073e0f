package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.tcp.TcpTransport;
import io.jcoll.tcp.algorithm.HostLayout;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The two tiers a collective of {@link TieredTransport} runs over, and what its algorithms share: shared memory
 * among the {@code k} ranks of this rank's host, TCP among the {@code h} ranks that stand where this one stands on
 * every host, a thread that works the links while the calling thread works within the host, and a scratch area.
 *
 * <p>Each tier numbers its own calls; every rank issues them in one order (the calling thread's host calls, and
 * the across calls one after another on the across thread), so each tier's signature checks compare like with
 * like.
 */
final class Tiers {

    final ShmTransport host;
    final TcpTransport across;
    /** Hosts, {@code h}. */
    final int hosts;
    /** Ranks on each host, {@code k}. */
    final int ranksPerHost;
    /** This rank's host, in host order: its rank in the across tier. */
    final int hostIndex;
    /** This rank's place among its host's ranks: its rank in the host tier. */
    final int indexOnHost;
    /** Bytes of message per piece of a pipelined collective. */
    final long pieceBytes;
    /**
     * Pieces of at most this many bytes unless JCOLL_TIERS_PIECE says otherwise: small enough that the steps within
     * hosts hide behind the links, large enough that each piece's calls cost little beside its bytes.
     */
    static final long DEFAULT_PIECE_BYTES = 2L << 20;
    /**
     * The ranks in the order a collective of blocks meets them in the tiers: position {@code j * h + b} holds the
     * rank at place {@code j} on host {@code b}. The host tier gives its rank {@code j} positions {@code j * h} to
     * {@code j * h + h - 1}, and the across tier among them gives host {@code b} position {@code b}: its own rank.
     */
    private final int[] tierOrder;
    private long hostSequence;
    private long acrossSequence; // advanced on the across thread, or by the calling thread once it is idle
    private final ExecutorService acrossThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jcoll-tiers-across");
        t.setDaemon(true);
        return t;
    });
    private ByteBuffer scratch = ByteBuffer.allocateDirect(0);
    /** Each tier's numbering of the ranks: what a tier raises, and what it is handed, is renumbered through it. */
    private final TierRanks hostRanks;
    private final TierRanks acrossRanks;

    Tiers(ShmTransport host, TcpTransport across, HostLayout layout, int rank, long pieceBytes) {
        this.host = host;
        this.across = across;
        this.pieceBytes = pieceBytes;
        this.hosts = layout.hosts();
        this.ranksPerHost = layout.ranksPerHost();
        int[] beside = layout.ranksBeside(rank);
        this.indexOnHost = Arrays.binarySearch(beside, rank);
        this.hostIndex = Arrays.binarySearch(layout.ranksAcross(beside[0]), beside[0]);
        this.hostRanks = new TierRanks("shared memory on host " + hostIndex, beside);
        this.acrossRanks = new TierRanks("TCP across hosts", layout.ranksAcross(rank));
        int[] firstHost = layout.ranksBeside(0); // rank 0's host comes first in host order
        this.tierOrder = new int[layout.size()];
        for (int j = 0; j < ranksPerHost; j++) {
            int[] atJ = layout.ranksAcross(firstHost[j]);
            System.arraycopy(atJ, 0, tierOrder, j * hosts, hosts);
        }
    }

    /** Runs a call in this host's shared memory, on the calling thread. */
    void onHost(Operation op, Buffer send, Buffer recv, long count, DataType type, ReduceOp reduceOp,
                boolean inPlace, long deadlineNanos) {
        try {
            host.execute(new Call(op, send, recv, count, type, reduceOp, -1, hostSequence++, inPlace),
                    deadlineNanos);
        } catch (JcollException e) {
            throw hostRanks.toCommunicator(e);
        }
    }

    /** Runs a call among the ranks at this place on every host, on the calling thread. */
    void acrossHosts(Operation op, Buffer send, Buffer recv, long count, DataType type, ReduceOp reduceOp,
                     boolean inPlace, long deadlineNanos) {
        try {
            across.execute(new Call(op, send, recv, count, type, reduceOp, -1, acrossSequence++, inPlace),
                    deadlineNanos);
        } catch (JcollException e) {
            throw acrossRanks.toCommunicator(e);
        }
    }

    /** From another thread while a call runs: both tiers' waits fail at once with {@code cause}. */
    void interrupt(Throwable cause) {
        host.interrupt(hostRanks.toTier(cause));
        across.interrupt(acrossRanks.toTier(cause));
    }

    /** Tells both tiers' peers why this rank stops, and stops them. */
    void abort(Throwable cause) {
        close();
        host.abort(hostRanks.toTier(cause));
        across.abort(acrossRanks.toTier(cause));
    }

    /** Runs work (across calls) on the across thread, after what it was given before. */
    Future<?> later(Runnable work) {
        return acrossThread.submit(work);
    }

    /** Waits for work given to {@link #later}; its failure is the call's, as the across tier threw it. */
    static void finish(Future<?> work) {
        try {
            work.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcollException("collective", JcollException.NONE, JcollException.NONE,
                    "interrupted while the hosts' links carried a piece", e);
        }
    }

    /**
     * After {@code failure} on the calling thread: ends the across tier's waits at once and waits for the work
     * still given to it, so that nothing of the failed call runs on after it returns.
     */
    void abandon(Throwable failure, Future<?>... work) {
        boolean pending = false;
        for (Future<?> w : work) {
            pending |= w != null && !w.isDone();
        }
        if (pending) {
            across.interrupt(acrossRanks.toTier(failure));
        }
        for (Future<?> w : work) {
            if (w == null) {
                continue;
            }
            try {
                w.get();
            } catch (ExecutionException e) {
                // the failure being thrown already stands for it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Host memory of this rank's own, at least {@code bytes}, kept for later calls: a pipeline's pieces are
     * bounded, so this stays a few pieces whatever the message.
     */
    ByteBuffer scratch(long bytes) {
        if (scratch.capacity() < bytes) {
            scratch = ByteBuffer.allocateDirect(Math.toIntExact(bytes));
        }
        return scratch;
    }

    /** A buffer of {@code count} elements of {@code type} at byte {@code at} of {@code memory}. */
    static HostBuffer view(ByteBuffer memory, long at, long count, DataType type) {
        return HostBuffer.of(memory.slice(Math.toIntExact(at), Math.toIntExact(count * type.size())), type);
    }

    /**
     * Scratch for a collective of blocks ({@link TieredReduceScatter}, {@link TieredAllGather}) that goes in pieces,
     * a piece being the same range of every rank's block: one packed piece (every rank's part in the tiers'
     * order) and two pieces of this rank's share in the host tier ({@code h} parts), used in turn so that the
     * across thread works on one while the calling thread fills the other.
     */
    final class Pieces {
        /** Elements of each block in a piece (the last may hold fewer). */
        final long count;
        /** The packed piece, as {@link #pack} fills it and {@link #unpack} reads it. */
        final ByteBuffer packed;
        private final ByteBuffer memory;
        private final DataType type;
        private final long shareBytes;

        private Pieces(Call call) {
            this.type = call.type();
            int ranks = tierOrder.length;
            this.count = Math.max(1, Math.min(call.count(), pieceBytes / type.size() / ranks));
            long packedBytes = ranks * count * type.size();
            this.shareBytes = hosts * count * type.size();
            this.memory = scratch(packedBytes + 2 * shareBytes);
            this.packed = memory.slice(0, Math.toIntExact(packedBytes));
        }

        /** The packed piece as a buffer, for a piece of {@code elements} per block. */
        HostBuffer packed(long elements) {
            return view(packed, 0, tierOrder.length * elements, type);
        }

        /** Share {@code slot} (0 or 1) as a buffer, for a piece of {@code elements} per block. */
        HostBuffer share(int slot, long elements) {
            return view(memory, packed.capacity() + slot * shareBytes, hosts * elements, type);
        }
    }

    /** Scratch for {@code call}'s pieces. */
    Pieces pieces(Call call) {
        return new Pieces(call);
    }

    /**
     * Copies elements {@code [from, from + count)} of every rank's block of {@code blocks} (blocks of
     * {@code blockCount} elements in rank order) into {@code packed}, one after another in {@link #tierOrder}.
     */
    void pack(Buffer blocks, long blockCount, long from, long count, ByteBuffer packed) {
        int size = blocks.type().size();
        int length = Math.toIntExact(count * size);
        io.jcoll.spi.StagedAccess source = (io.jcoll.spi.StagedAccess) blocks;
        for (int q = 0; q < tierOrder.length; q++) {
            ByteBuffer room = packed.slice(q * length, length);
            ByteBuffer bytes = source.readable((tierOrder[q] * blockCount + from) * size, length, room);
            if (bytes != room) { // a view of the source: copy it; a stage filled in place is the copy
                room.put(0, bytes, 0, length);
            }
        }
    }

    /** The reverse of {@link #pack}: each rank's part of {@code packed} goes to its block of {@code blocks}. */
    void unpack(ByteBuffer packed, Buffer blocks, long blockCount, long from, long count) {
        int size = blocks.type().size();
        int length = Math.toIntExact(count * size);
        io.jcoll.spi.StagedAccess target = (io.jcoll.spi.StagedAccess) blocks;
        for (int q = 0; q < tierOrder.length; q++) {
            ByteBuffer part = packed.slice(q * length, length);
            long at = (tierOrder[q] * blockCount + from) * size;
            ByteBuffer room = target.writable(at, length, part);
            if (room != part) {
                room.put(0, part, 0, length);
            }
            target.commit(at, room);
        }
    }

    void close() {
        acrossThread.shutdown();
    }
}
