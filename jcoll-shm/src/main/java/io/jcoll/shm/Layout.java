package io.jcoll.shm;

import io.jcoll.spi.Settings;

/**
 * Where everything lies in a communicator's segment. Every offset is a multiple of {@link #LINE}, so that no two
 * ranks ever write the same cache line: a header; one control block per rank (its progress counter, its state,
 * the signatures of its latest calls); {@link #BOXES} boxes per rank for small collectives (a call's signature and
 * data side by side, {@link Boxes}); one ring per ordered pair of ranks for point-to-point messages; and
 * {@code slots} slots of {@code slotBytes} per rank, through which the collectives move data. The segment's size
 * follows from the rank count and these sizes, never from a message's size: a 1 GB all-reduce goes through the
 * same slots a chunk at a time.
 *
 * @param size      ranks
 * @param slotBytes bytes of one slot (a chunk of a collective per rank)
 * @param slots     slots per rank: chunks in flight before a rank waits for its peers to free the oldest
 * @param ringBytes bytes of each point-to-point ring
 */
record Layout(int size, int slotBytes, int slots, int ringBytes) {

    static final int LINE = 128;           // two cache lines: adjacent-line prefetch must not couple two writers
    static final int HEADER_BYTES = 4096;
    static final int CONTROL_BYTES = 5 * LINE;
    /** Entries in each rank's ring of call signatures: more than a rank can run ahead of the slowest. */
    static final int CALL_ENTRIES = 16;
    static final int CALL_ENTRY_BYTES = 64;
    static final int RING_HEADER_BYTES = 2 * LINE;
    /**
     * Boxes per rank, a power of two: a rank that waits for no one in a run of small calls (a broadcast's root)
     * posts up to this many less one before its receivers' first (see {@link Boxes}). Fewer than
     * {@link #CALL_ENTRIES}, which must outlast every call a rank can run ahead.
     */
    static final int BOXES = 8;
    /** Bytes of one box: its header, then up to {@link Boxes#CAPACITY} bytes of data. */
    static final int BOX_BYTES = (Boxes.DATA_AT + Boxes.CAPACITY + LINE - 1) / LINE * LINE;

    /**
     * The slot a rank gets where JCOLL_SHM_SLOT is not given: 128 KB a rank, from 256 KB (two ranks; 512 KB where the
     * ranks have crews, {@link #MIN_CREW_SLOT_BYTES}) to 1 MB (eight or more). Each chunk of a collective ends in a
     * wait for the slowest rank, and what a wait costs grows with the ranks (the spread of their arrival): with
     * 256 KB slots on 32 cores, a 1 MB ReduceScatter at 8 ranks took 240-350 us a call where 1 MB slots took
     * 105-140, and AllReduce at 4 and 8 ranks 0.59-0.80x the time at 1-16 MB (benchmarks/RESULTS.md). Bounded so
     * that a host's 16 ranks still fit in 64 MB of /dev/shm (a container's default), and smaller again where the
     * directory has no room ({@link #from}).
     */
    static final int SLOT_BYTES_PER_RANK = 128 << 10;
    static final int MIN_DEFAULT_SLOT_BYTES = 256 << 10;
    /**
     * The least default slot where each rank's large copies are shared by a crew: a chunk through the slots is cut
     * into the crew's shares and ends in a wait for all of them, so a 256 KB slot's 64 KB shares pay that wait
     * twice as often as 512 KB ones. At 2 ranks with crews of 4 (16 cores; 512 KB against 256 KB slots, 3-4
     * alternated rounds, benchmarks/RESULTS.md): Broadcast 0.63x the time at 1 MB and 0.87x at 4 MB, AllReduce
     * 0.83 and 0.81x, AllGather 0.80x at 4 MB and 0.72x at 16 MB, All-to-All 0.96-1.04x, ReduceScatter 0.93x at
     * 1 MB but 1.09-1.32x at 4-16 MB (where it stays 9-12x Open MPI's bus bandwidth), 256 KB calls 0.96-1.10x.
     * Ranks that copy alone (a host of a few cores) keep 256 KB: 1 MB slots went either way there.
     */
    static final int MIN_CREW_SLOT_BYTES = 512 << 10;
    static final int MAX_DEFAULT_SLOT_BYTES = 1 << 20;
    static final int DEFAULT_SLOTS = 2;
    static final int DEFAULT_RING_BYTES = 64 << 10;

    Layout {
        if (size < 1 || slots < 2 || slots > 4 || slotBytes < 4096 || slotBytes % LINE != 0
                || ringBytes < 4096 || Integer.bitCount(ringBytes) != 1) {
            throw new IllegalArgumentException("shared segment layout out of range: " + this
                    + " (slots 2-4, slot bytes >= 4K in multiples of " + LINE + ", ring bytes a power of two >= 4K)");
        }
    }

    /**
     * The layout JCOLL_SHM_SLOT, JCOLL_SHM_SLOTS and JCOLL_SHM_RING ask for, for {@code size} ranks, with crews or
     * not ({@code crews}: rank 0's, {@link ShmTransport#crewed}); where the slot size is not given,
     * {@link #defaultSlotBytes}, or the smallest default where that segment would not fit in {@code room} bytes (the
     * segment directory's free space; {@link Long#MAX_VALUE} where unknown), so that a small /dev/shm costs
     * bandwidth rather than the transport.
     */
    static Layout from(Settings settings, int size, long room, boolean crews) {
        long slot = settings.getBytes("JCOLL_SHM_SLOT", defaultSlotBytes(size, crews));
        boolean given = settings.get("JCOLL_SHM_SLOT").isPresent();
        long ring = settings.getBytes("JCOLL_SHM_RING", DEFAULT_RING_BYTES);
        if (slot > (64 << 20) || ring > (16 << 20)) {
            throw new IllegalArgumentException("JCOLL_SHM_SLOT may be at most 64M and JCOLL_SHM_RING at most 16M");
        }
        // a ring per ordered pair: many ranks share a host's memory, so the rings shrink as pairs multiply
        int rings = (int) Math.max(4096, Math.min(ring, Integer.highestOneBit((int) Math.max(4096,
                (64L << 20) / Math.max(1, (long) size * size)))));
        int slots = settings.getInt("JCOLL_SHM_SLOTS", DEFAULT_SLOTS);
        Layout layout = new Layout(size, (int) (slot / LINE * LINE), slots, rings);
        if (!given && layout.totalBytes() > room && slot > MIN_DEFAULT_SLOT_BYTES) {
            return new Layout(size, MIN_DEFAULT_SLOT_BYTES, slots, rings);
        }
        return layout;
    }

    /** {@link #SLOT_BYTES_PER_RANK} for each of {@code size} ranks, within the default's bounds. */
    static int defaultSlotBytes(int size, boolean crews) {
        return (int) Math.min(MAX_DEFAULT_SLOT_BYTES, Math.max(crews ? MIN_CREW_SLOT_BYTES : MIN_DEFAULT_SLOT_BYTES,
                (long) size * SLOT_BYTES_PER_RANK));
    }

    long controlOffset(int rank) {
        return HEADER_BYTES + (long) rank * CONTROL_BYTES;
    }

    long callEntryOffset(int rank, long callIndex) {
        return HEADER_BYTES + (long) size * CONTROL_BYTES
                + ((long) rank * CALL_ENTRIES + Math.floorMod(callIndex, CALL_ENTRIES)) * CALL_ENTRY_BYTES;
    }

    long boxOffset(int rank, int box) {
        return HEADER_BYTES + (long) size * CONTROL_BYTES + (long) size * CALL_ENTRIES * CALL_ENTRY_BYTES
                + ((long) rank * BOXES + box) * BOX_BYTES;
    }

    private long ringsOffset() {
        return boxOffset(size, 0);
    }

    /** The ring that carries messages from {@code from} to {@code to}: its header, then its bytes. */
    long ringOffset(int from, int to) {
        return ringsOffset() + ((long) from * size + to) * (RING_HEADER_BYTES + ringBytes);
    }

    private long slotsOffset() {
        return ringsOffset() + (long) size * size * (RING_HEADER_BYTES + ringBytes);
    }

    long slotOffset(int rank, int slot) {
        return slotsOffset() + ((long) rank * slots + slot) * slotBytes;
    }

    long totalBytes() {
        return slotsOffset() + (long) size * slots * slotBytes;
    }

    String encode() {
        return size + "," + slotBytes + "," + slots + "," + ringBytes;
    }

    static Layout decode(String text) {
        String[] f = text.split(",");
        if (f.length != 4) {
            throw new IllegalArgumentException("not a shared segment layout: " + text);
        }
        return new Layout(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                Integer.parseInt(f[3]));
    }
}
