package io.jcoll.shm;

import io.jcoll.HostBuffer;
import io.jcoll.probe.Limits;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Settings;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * Large all-to-alls and gathers with one copy a byte: each rank reads what it receives straight out of the
 * sending rank's buffer ({@link PeerMemory}) instead of the sender copying it into its slot and the receiver out
 * again. Two phases a call: every rank publishes where its input is (0 where it cannot be read: a heap buffer, an
 * array, GPU memory) and waits for all; if every rank published an address, each reads its blocks and the ranks
 * wait for each other again before any returns (a sender's buffer must stay as it is until every reader is done);
 * otherwise every rank, having seen the same addresses, passes the second phase and takes the slots.
 *
 * <p>Where it pays, measured against the slots (benchmarks/RESULTS.md): an all-to-all from 512 KB
 * (JCOLL_SHM_SINGLE_COPY_MIN) took 0.36-0.52x the time at 8 ranks on 32 cores and 0.26-0.95x at 4 and 8 on 16,
 * most points of 1-64 MB; an all-gather 0.78-0.95x at 64 MB but up to 1.9x below 4 MB, and either way at 16 MB
 * (JCOLL_SHM_SINGLE_COPY_GATHER_MIN, default 32 MB). Not for broadcast and scatter: every receiver reading the one
 * root's memory contends for its page tables (up to 3.8x the slots' time at 8 ranks), nor for reductions, where
 * what a rank reads must still be combined with its own, the second pass the slots make.
 */
final class SingleCopy {

    static final long DEFAULT_MIN_BYTES = 512 << 10;
    static final long DEFAULT_GATHER_MIN_BYTES = 32 << 20;
    /** Bytes a crew member reads in one go from memory it can view: a read is one system call. */
    private static final int VIEW_CHUNK_BYTES = 4 << 20;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Control control;
    private final PeerMemory memory; // null: off
    private final int size;
    private final long minBytes;
    private final long gatherMinBytes;
    private final String offBecause;

    private SingleCopy(Control control, PeerMemory memory, int size, long minBytes, long gatherMinBytes,
                       String offBecause) {
        this.control = control;
        this.memory = memory;
        this.size = size;
        this.minBytes = minBytes;
        this.gatherMinBytes = gatherMinBytes;
        this.offBecause = offBecause;
    }

    /**
     * What a rank brings to the agreement, made before it claims its block in the segment: its settings
     * (JCOLL_SHM_SINGLE_COPY, JCOLL_SHM_SINGLE_COPY_MIN, JCOLL_SHM_SINGLE_COPY_GATHER_MIN) and a canary, a word of
     * its memory whose address and random value it publishes for its peers to read.
     */
    static Offer offer(Settings settings, Control control, int rank) {
        String mode = settings.get("JCOLL_SHM_SINGLE_COPY").orElse("auto");
        if (!mode.equals("auto") && !mode.equals("off")) {
            throw new IllegalArgumentException("JCOLL_SHM_SINGLE_COPY must be auto or off (was " + mode + ")");
        }
        long min = settings.getBytes("JCOLL_SHM_SINGLE_COPY_MIN", DEFAULT_MIN_BYTES);
        long gatherMin = settings.getBytes("JCOLL_SHM_SINGLE_COPY_GATHER_MIN", DEFAULT_GATHER_MIN_BYTES);
        if (min < 0 || gatherMin < 0) {
            throw new IllegalArgumentException("JCOLL_SHM_SINGLE_COPY_MIN and JCOLL_SHM_SINGLE_COPY_GATHER_MIN must be "
                    + "sizes of 0 or more (were " + min + " and " + gatherMin + ")");
        }
        ByteBuffer canary = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        long value = RANDOM.nextLong();
        canary.putLong(0, value);
        boolean on = mode.equals("auto");
        // off: not even bound (binding a native call makes the JVM warn without --enable-native-access)
        control.publishCanary(rank, on ? ProcessVmRead.address(canary) : 0, value);
        return new Offer(rank, on, min, gatherMin, canary);
    }

    /** A rank's settings and canary (kept reachable until every peer has read it). */
    record Offer(int rank, boolean on, long minBytes, long gatherMinBytes, ByteBuffer canary) {

        /**
         * Once every rank has claimed its block (its pid and canary are there): reads every peer's canary (where
         * on), publishes whether it could and its sizes, waits for all, and is on only where every rank could and
         * all have the same sizes. One phase of the ranks' counters.
         */
        SingleCopy agree(Control control, Slots slots, Waiter waiter, int size) {
            String[] why = {on ? null : "JCOLL_SHM_SINGLE_COPY=off"};
            PeerMemory memory = null;
            if (on) {
                long[] pids = new long[size];
                long[] addresses = new long[size];
                long[] values = new long[size];
                for (int r = 0; r < size; r++) {
                    pids[r] = control.pid(r);
                    addresses[r] = control.canaryAddress(r);
                    values[r] = control.canaryValue(r);
                }
                memory = PeerMemory.probe(rank, pids, addresses, values, why);
            }
            control.publishSingleCopy(rank, memory != null, minBytes, gatherMinBytes);
            slots.publish();
            waiter.awaitAll(2); // every peer has read this rank's canary
            java.lang.ref.Reference.reachabilityFence(canary);
            for (int r = 0; r < size && why[0] == null; r++) {
                if (!control.readsPeers(r)) {
                    why[0] = "rank " + r + " may not read its peers' memory";
                } else if (control.singleCopyMin(r) != minBytes || control.singleCopyGatherMin(r) != gatherMinBytes) {
                    why[0] = "rank " + r + " has JCOLL_SHM_SINGLE_COPY_MIN=" + control.singleCopyMin(r)
                            + " and JCOLL_SHM_SINGLE_COPY_GATHER_MIN=" + control.singleCopyGatherMin(r)
                            + " where rank " + rank + " has " + minBytes + " and " + gatherMinBytes
                            + ": the ranks must take single copy for the same calls; set them alike";
                }
            }
            return why[0] != null ? new SingleCopy(control, null, size, 0, 0, why[0])
                    : new SingleCopy(control, memory, size, minBytes, gatherMinBytes, null);
        }
    }

    /** For the network report: on from which sizes, or off and why. */
    String describe() {
        return memory == null ? "single copy off (" + offBecause + ")"
                : "single copy (each rank reads its peers' buffers with process_vm_readv) for all-to-alls from "
                + Limits.describe(minBytes) + " and gathers from " + Limits.describe(gatherMinBytes);
    }

    /** Whether {@code call} is one this path takes (the same answer on every rank: it depends on the signature only). */
    boolean covers(Call call) {
        if (memory == null || call.count() == 0) {
            return false;
        }
        long bytes = call.count() * call.type().size() * size; // the whole output (the root's, for a gather)
        return switch (call.operation()) {
            case ALL_TO_ALL -> !call.inPlace() && bytes >= minBytes; // in place, a block is overwritten as it is read
            case ALL_GATHER, GATHER -> bytes >= gatherMinBytes;
            default -> false;
        };
    }

    /** Runs {@code call} with one copy a byte and returns true, or returns false for the slots to run it. */
    boolean run(Slots s, Call call) {
        control.publishSource(s.rank(), sourceAddress(call));
        s.publish();
        s.awaitAll();
        long[] sources = sources(s.size());
        if (sources != null) {
            move(s, call, sources);
        }
        s.publish(); // done reading
        s.awaitAll();
        return sources != null;
    }

    /** Where this rank's input starts, for its peers to read; 0 where it cannot be read. */
    private static long sourceAddress(Call call) {
        if (!(call.send() instanceof HostBuffer in) || !in.isByteAddressable()) {
            return 0;
        }
        return ProcessVmRead.address(in.readable(0, 1, null));
    }

    /** Every rank's published address, or null where a rank published none. */
    private long[] sources(int size) {
        long[] at = new long[size];
        for (int r = 0; r < size; r++) {
            at[r] = control.source(r);
            if (at[r] == 0) {
                return null;
            }
        }
        return at;
    }

    /**
     * This rank's blocks of {@code count} elements, read from each peer (all-to-all: block {@code rank} of the
     * peer's input; the gathers: its whole input) or copied from its own input, in chunks that the crew shares
     * where the output can be viewed (else a slot's worth at a time through the stage). A gather's other ranks
     * read nothing: they only wait.
     */
    private void move(Slots s, Call call, long[] sources) {
        int me = s.rank();
        int n = s.size();
        if (call.operation() == Operation.GATHER && me != call.root()) {
            return;
        }
        int typeSize = call.type().size();
        long count = call.count();
        long block = count * typeSize;
        long offset = call.operation() == Operation.ALL_TO_ALL ? me * block : 0; // where this rank's block starts
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        long chunk = s.viewsOnly() ? Math.max(1, VIEW_CHUNK_BYTES / typeSize) : s.elementsPerSlot(typeSize);
        String operation = call.operation().label();
        for (long from = 0; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            long first = from * typeSize;
            s.share(elements, typeSize, (lo, hi) -> {
                long at = first + (long) lo * typeSize;
                int length = (hi - lo) * typeSize;
                // the peers in turn from the next rank on, so that the ranks do not all read one peer at once
                for (int k = 1; k < n; k++) {
                    int peer = (me + k) % n;
                    ByteBuffer room = s.writable(out, peer * block + at, length);
                    memory.read(peer, sources[peer] + offset + at, room.duplicate(), operation);
                    out.commit(peer * block + at, room);
                }
                if (!call.inPlace()) { // this rank's input is direct memory here: a view, whatever the output is
                    ByteBuffer room = s.writable(out, me * block + at, length);
                    room.put(0, s.readable(in, offset + at, length), 0, length);
                    out.commit(me * block + at, room);
                }
            });
        }
    }
}
