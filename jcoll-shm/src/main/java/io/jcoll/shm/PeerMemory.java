package io.jcoll.shm;

import io.jcoll.exceptions.PeerFailureException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads the peers' process memory with {@link ProcessVmRead} (Linux's cross-memory attach): one copy from a
 * peer's buffer into this rank's, as Open MPI's shared-memory path does for large messages. The kernel allows it
 * where this process may trace the peer (the same user and a Yama {@code ptrace_scope} that permits it, or root);
 * {@link #probe} finds out by reading a word whose address and value the peer published, which also proves that
 * the pid names the peer's process and not another one (of another pid namespace, say). Only reads: nothing here
 * writes another process's memory, and a wrong address gives a clear failure or wrong bytes in this rank's own
 * buffer, never a fault. Memory a peer allocated to be shared ({@link io.jcoll.SharedMemory}) is read through this
 * rank's own mapping of it instead ({@link PeerRegions}): a plain copy, no system call, no pages pinned.
 */
final class PeerMemory {

    /** Bytes of the direct buffer a thread reads through where the destination has no address (a heap buffer). */
    private static final int BOUNCE_BYTES = 256 << 10;
    private static final ThreadLocal<ByteBuffer> BOUNCE = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BOUNCE_BYTES));
    // bytes of peers' memory read by every rank of this process, through mappings and by process_vm_readv: for
    // tests, which way a call went
    private static final LongAdder MAPPED_BYTES = new LongAdder();
    private static final LongAdder KERNEL_READ_BYTES = new LongAdder();

    private final int rank;
    private final long[] pids;
    private final PeerRegions regions;

    private PeerMemory(int rank, long[] pids) {
        this.rank = rank;
        this.pids = pids;
        this.regions = new PeerRegions(pids);
    }

    int rank() {
        return rank;
    }

    /** The peers' shared allocations this rank maps, and which of them their current calls read from. */
    PeerRegions regions() {
        return regions;
    }

    /**
     * {@code [address, address + length)} of {@code peer}'s memory as a view of this rank's mapping of it, where
     * the peer's current call has it in a shared allocation this rank has mapped; else null (read it instead).
     */
    ByteBuffer view(int peer, long address, int length) {
        ByteBuffer view = regions.view(peer, address, length);
        if (view != null) {
            MAPPED_BYTES.add(length);
        }
        return view;
    }

    /** The memory of the processes {@code pids} (by rank), without a probe. */
    static PeerMemory of(int rank, long[] pids) {
        return new PeerMemory(rank, pids.clone());
    }

    /**
     * Reads each peer's canary word ({@code pids}, {@code canaryAddresses} and {@code canaryValues} by rank; this
     * rank's own entry is skipped): the memory, or null with the reason in {@code why[0]} where this JDK cannot
     * read another process's memory or a peer's word cannot be read or holds something else.
     */
    static PeerMemory probe(int rank, long[] pids, long[] canaryAddresses, long[] canaryValues, String[] why) {
        why[0] = ProcessVmRead.unavailableReason();
        if (why[0] != null) {
            return null;
        }
        PeerMemory memory = of(rank, pids);
        ByteBuffer word = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        for (int peer = 0; peer < pids.length; peer++) {
            if (peer == rank) {
                continue;
            }
            try {
                memory.readFully(peer, canaryAddresses[peer], word.clear());
                if (word.getLong(0) != canaryValues[peer]) {
                    why[0] = "process " + pids[peer] + " does not hold rank " + peer + "'s canary (its pid names "
                            + "another process here, as from another pid namespace)";
                }
            } catch (IOException e) {
                why[0] = "rank " + rank + " could not read rank " + peer + "'s memory (process " + pids[peer] + "): "
                        + e.getMessage();
            }
            if (why[0] != null) {
                return null;
            }
        }
        return memory;
    }

    /**
     * {@code room.remaining()} bytes of {@code peer}'s memory at {@code address}: a view of this rank's mapping where
     * the peer's current call has them in a shared allocation, else read into {@code room}, which is returned.
     */
    ByteBuffer viewOrRead(int peer, long address, ByteBuffer room, String operation) {
        ByteBuffer view = view(peer, address, room.remaining());
        if (view != null) {
            return view;
        }
        read(peer, address, room.duplicate(), operation);
        return room;
    }

    /**
     * Copies {@code dst.remaining()} bytes of {@code peer}'s memory from {@code address} into {@code dst} (through
     * a bounce buffer of this thread's where {@code dst} is on the heap); safe from several threads at once.
     */
    void read(int peer, long address, ByteBuffer dst, String operation) {
        ByteBuffer mapped = view(peer, address, dst.remaining());
        if (mapped != null) {
            copyMapped(peer, mapped, dst, operation);
            return;
        }
        long at = address;
        try {
            if (dst.isDirect()) {
                readFully(peer, at, dst);
                return;
            }
            ByteBuffer bounce = BOUNCE.get();
            while (dst.hasRemaining()) {
                bounce.clear().limit(Math.min(bounce.capacity(), dst.remaining()));
                readFully(peer, at, bounce);
                at += bounce.position();
                dst.put(bounce.flip());
            }
        } catch (IOException e) {
            throw new PeerFailureException(operation, rank, peer, "could not read rank " + peer + "'s buffer from 0x"
                    + Long.toHexString(at) + " (process " + pids[peer] + "): " + e.getMessage(), e);
        }
    }

    /**
     * Copies a view of a peer's shared allocation into {@code dst}. A page of it that another process cut off (by
     * truncating the file) raises SIGBUS, which the JVM turns into an InternalError: named here as the damage it is.
     */
    private void copyMapped(int peer, ByteBuffer mapped, ByteBuffer dst, String operation) {
        try {
            dst.put(mapped);
            PendingFault.raise();
        } catch (InternalError e) {
            String damage = regions.damage();
            PendingFault.drop();
            throw new PeerFailureException(operation, rank, peer, (damage != null ? damage
                    : "a fault occurred reading rank " + peer + "'s shared buffer (another process truncated it)"), e);
        }
    }

    /** Fills the direct buffer {@code dst} from {@code peer}'s memory at {@code address}, as many reads as it takes. */
    private void readFully(int peer, long address, ByteBuffer dst) throws IOException {
        long at = address;
        while (dst.hasRemaining()) {
            int n = ProcessVmRead.read(pids[peer], at, dst);
            if (n == 0) {
                throw new IOException("nothing could be read at 0x" + Long.toHexString(at));
            }
            at += n;
        }
        KERNEL_READ_BYTES.add(at - address);
    }

    /** Bytes of peers' memory read through mappings by every rank of this process so far. */
    static long mappedBytes() {
        return MAPPED_BYTES.sum();
    }

    /** Bytes of peers' memory read with process_vm_readv by every rank of this process so far. */
    static long kernelReadBytes() {
        return KERNEL_READ_BYTES.sum();
    }
}
