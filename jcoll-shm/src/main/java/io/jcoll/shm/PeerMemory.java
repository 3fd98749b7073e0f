package io.jcoll.shm;

import io.jcoll.exceptions.PeerFailureException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads the peers' process memory with {@link ProcessVm} (Linux's cross-memory attach): one copy from a
 * peer's buffer into this rank's, as Open MPI's shared-memory path does for large messages. The kernel allows it
 * where this process may trace the peer (the same user and a Yama {@code ptrace_scope} that permits it, or root);
 * {@link #probe} finds out by reading a word whose address and value the peer published, which also proves that
 * the pid names the peer's process and not another one (of another pid namespace, say). A read at a wrong address
 * gives a clear failure or wrong bytes in this rank's own buffer, never a fault. A peer's memory is written only
 * within the range that the peer's own record grants for the current call ({@link WriteGrant}), read out of the
 * peer's private memory and never taken from the segment. Memory a peer allocated to be shared
 * ({@link io.jcoll.SharedMemory}) is read through this rank's own mapping of it instead ({@link PeerRegions}): a
 * plain copy, no system call, no pages pinned.
 */
final class PeerMemory {

    /** Bytes of the direct buffer a thread reads through where the destination has no address (a heap buffer). */
    private static final int BOUNCE_BYTES = 256 << 10;
    private static final ThreadLocal<ByteBuffer> BOUNCE = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BOUNCE_BYTES));
    // bytes of peers' memory read by every rank of this process, through mappings and by process_vm_readv: for
    // tests, which way a call went
    private static final LongAdder MAPPED_BYTES = new LongAdder();
    private static final LongAdder KERNEL_READ_BYTES = new LongAdder();
    private static final LongAdder KERNEL_WRITE_BYTES = new LongAdder();
    private static final ThreadLocal<ByteBuffer> GRANT = ThreadLocal.withInitial(
            () -> ByteBuffer.allocateDirect(WriteGrant.BYTES).order(ByteOrder.nativeOrder()));

    private final int rank;
    private final long[] pids;
    private final long[] grants;  // by rank: the address of its WriteGrant, as its canary proved; 0: unknown
    private final long[] canaries; // by rank: the canary its grant starts with
    private final PeerRegions regions;

    private PeerMemory(int rank, long[] pids, long[] grants, long[] canaries) {
        this.rank = rank;
        this.pids = pids;
        this.grants = grants;
        this.canaries = canaries;
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

    /** The memory of the processes {@code pids} (by rank), without a probe: read only, no grant known. */
    static PeerMemory of(int rank, long[] pids) {
        return new PeerMemory(rank, pids.clone(), new long[pids.length], new long[pids.length]);
    }

    /**
     * Reads each peer's canary word ({@code pids}, {@code canaryAddresses} and {@code canaryValues} by rank; this
     * rank's own entry is skipped): the memory, or null with the reason in {@code why[0]} where this JDK cannot
     * read another process's memory or a peer's word cannot be read or holds something else. Each canary starts its
     * rank's {@link WriteGrant}, whose address the memory keeps.
     */
    static PeerMemory probe(int rank, long[] pids, long[] canaryAddresses, long[] canaryValues, String[] why) {
        why[0] = ProcessVm.unavailableReason();
        if (why[0] != null) {
            return null;
        }
        PeerMemory memory = new PeerMemory(rank, pids.clone(), canaryAddresses.clone(), canaryValues.clone());
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
                int bytes = dst.remaining();
                readFully(peer, at, dst);
                KERNEL_READ_BYTES.add(bytes);
                return;
            }
            ByteBuffer bounce = BOUNCE.get();
            while (dst.hasRemaining()) {
                bounce.clear().limit(Math.min(bounce.capacity(), dst.remaining()));
                readFully(peer, at, bounce);
                KERNEL_READ_BYTES.add(bounce.position());
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

    /**
     * The range {@code peer} granted for its call number {@code call} (counted alike on every rank), read out of the
     * peer's own record ({@link WriteGrant}), at least {@code bytes} long.
     *
     * @throws PeerFailureException where the record cannot be read, does not hold the peer's canary, is for another
     *     call or grants less: the segment that said the peer takes writes was overwritten, or the peer is gone
     */
    WriteGrant.Range granted(int peer, long call, long bytes, String operation) {
        if (grants[peer] == 0) {
            throw new PeerFailureException(operation, rank, peer, "rank " + peer + "'s grant was never read, so its "
                    + "memory is not written");
        }
        ByteBuffer record = GRANT.get().clear();
        try {
            readFully(peer, grants[peer], record);
        } catch (IOException e) {
            throw new PeerFailureException(operation, rank, peer, "could not read rank " + peer + "'s grant (process "
                    + pids[peer] + "): " + e.getMessage(), e);
        }
        long canary = record.getLong(WriteGrant.CANARY_AT);
        long granted = record.getLong(WriteGrant.CALL_AT);
        WriteGrant.Range range = new WriteGrant.Range(record.getLong(WriteGrant.ADDRESS_AT),
                record.getLong(WriteGrant.LENGTH_AT));
        if (canary != canaries[peer] || granted != call || range.address() == 0 || range.length() < bytes) {
            throw new PeerFailureException(operation, rank, peer, "rank " + peer + "'s own record grants "
                    + (canary != canaries[peer] ? "nothing (its canary is gone)" : range.length() + " bytes in call #"
                    + granted) + " where the segment says it takes " + bytes + " bytes in call #" + call
                    + ": another process overwrote the segment; nothing was written");
        }
        return range;
    }

    /**
     * Writes {@code src.remaining()} bytes of the direct buffer {@code src} into {@code peer}'s memory at
     * {@code offset} within the range it {@code granted} ({@link #granted}); safe from several threads at once.
     */
    void write(int peer, WriteGrant.Range granted, long offset, ByteBuffer src, String operation) {
        if (!granted.holds(offset, src.remaining())) {
            throw new IllegalArgumentException(src.remaining() + " bytes at " + offset + " do not lie within the "
                    + granted.length() + " bytes rank " + peer + " granted");
        }
        long address = granted.address() + offset;
        int bytes = src.remaining();
        try {
            fully(ProcessVm::write, peer, address, src);
        } catch (IOException e) {
            throw new PeerFailureException(operation, rank, peer, "could not write rank " + peer + "'s buffer at 0x"
                    + Long.toHexString(address) + " (process " + pids[peer] + "): " + e.getMessage(), e);
        }
        KERNEL_WRITE_BYTES.add(bytes);
    }

    /** Fills the direct buffer {@code dst} from {@code peer}'s memory at {@code address}, as many reads as it takes. */
    private void readFully(int peer, long address, ByteBuffer dst) throws IOException {
        fully(ProcessVm::read, peer, address, dst);
    }

    /** One of {@link ProcessVm}'s copies between a local buffer's remaining bytes and a peer's memory. */
    @FunctionalInterface
    private interface Copy {
        int apply(long pid, long address, ByteBuffer local) throws IOException;
    }

    /** {@code copy} between all of {@code local}'s remaining bytes and {@code peer}'s memory from {@code address}. */
    private void fully(Copy copy, int peer, long address, ByteBuffer local) throws IOException {
        long at = address;
        while (local.hasRemaining()) {
            int n = copy.apply(pids[peer], at, local);
            if (n == 0) {
                throw new IOException("nothing could be copied at 0x" + Long.toHexString(at));
            }
            at += n;
        }
    }

    /** Bytes of peers' memory read through mappings by every rank of this process so far. */
    static long mappedBytes() {
        return MAPPED_BYTES.sum();
    }

    /** Bytes of peers' memory read with process_vm_readv by every rank of this process so far. */
    static long kernelReadBytes() {
        return KERNEL_READ_BYTES.sum();
    }

    /** Bytes of peers' memory written with process_vm_writev by every rank of this process so far. */
    static long kernelWriteBytes() {
        return KERNEL_WRITE_BYTES.sum();
    }
}
