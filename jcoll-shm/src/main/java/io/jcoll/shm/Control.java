package io.jcoll.shm;

import io.jcoll.spi.FailureReason;
import io.jcoll.spi.Call;
import io.jcoll.spi.Signature;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The ranks' control blocks in a segment. Each rank writes only its own block and reads the others'; every
 * counter is written with release and read with acquire semantics, so that whatever a rank wrote before it
 * advanced a counter is visible to a peer that has seen the counter advance, across processes as across threads.
 *
 * <p>A block holds the rank's progress counter (every phase of every collective advances it by one, the same
 * sequence on every rank for the same calls), its state (open, closed, aborted, with a reason), its process (pid,
 * so that peers can tell it died), and a ring of its latest calls' signatures (so that peers
 * compare calls before they touch each other's data). For single copy ({@link SingleCopy}) it also holds where
 * peers are to read the rank's data in its current call, and what the rank's probe of its peers' memory found.
 */
final class Control {

    static final int OPEN = 0;
    static final int CLOSED = 1;
    static final int ABORTED = 2;

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private static final int FLAG_AT = 0;
    private static final int STATE_AT = Layout.LINE;
    private static final int PID_AT = STATE_AT + 8;
    private static final int REASON_LENGTH_AT = STATE_AT + 24;
    private static final int REASON_AT = STATE_AT + 28;
    private static final int REASON_MAX = 2 * Layout.LINE - 28 - 4;
    private static final int ENTERED_AT = 3 * Layout.LINE;
    private static final int CULPRIT_AT = ENTERED_AT + 8;
    // single copy (SingleCopy, PeerMemory): where the rank's memory is to be read, and its answer to the probe
    private static final int SOURCE_AT = ENTERED_AT + 16;
    private static final int CANARY_ADDRESS_AT = ENTERED_AT + 24;
    private static final int CANARY_VALUE_AT = ENTERED_AT + 32;
    private static final int READS_PEERS_AT = ENTERED_AT + 40;
    private static final int SINGLE_COPY_MIN_AT = ENTERED_AT + 48;
    private static final int SINGLE_COPY_GATHER_MIN_AT = ENTERED_AT + 56;
    private static final int SINGLE_COPY_BROADCAST_MIN_AT = ENTERED_AT + 64;
    private static final int CREW_AT = ENTERED_AT + 72;
    private static final int SOURCE_IN_PLACE_AT = ENTERED_AT + 80;
    private static final int SINGLE_COPY_IN_PLACE_MIN_AT = ENTERED_AT + 88;
    private static final int OUTPUT_AT = ENTERED_AT + 96;
    private static final int SINGLE_COPY_REDUCE_MIN_AT = ENTERED_AT + 104;
    private static final int PICK_AT = ENTERED_AT + 112;
    // the shared allocations (io.jcoll.SharedMemory) the source and output lie in: base, descriptor, id (0: none)
    private static final int REGIONS_AT = 4 * Layout.LINE;
    private static final int REGION_WORDS = 3;
    private static final int ROOT_SHARE_AT = REGIONS_AT + 2 * REGION_WORDS * 8; // after the two slots' regions
    private static final int COPY_NANOS_AT = ROOT_SHARE_AT + 8;
    private static final int CACHE_AT = COPY_NANOS_AT + 8; // the last-level cache this rank found (LastLevelCache)

    private static final int TAG_AT = 0;
    private static final int SIGNATURE_AT = 8;
    private static final int HISTORY_AT = SIGNATURE_AT + Signature.BYTES;

    private final ByteBuffer map;
    private final Layout layout;
    private final int[] flagAt;

    Control(ByteBuffer map, Layout layout) {
        this.map = map;
        this.layout = layout;
        this.flagAt = new int[layout.size()];
        for (int r = 0; r < flagAt.length; r++) {
            flagAt[r] = (int) layout.controlOffset(r) + FLAG_AT;
        }
    }

    /** Ranks with a block: the communicator's size. */
    int flagCount() {
        return flagAt.length;
    }

    long flag(int rank) {
        return (long) LONGS.getAcquire(map, flagAt[rank]);
    }

    void publishFlag(int rank, long value) {
        LONGS.setRelease(map, flagAt[rank], value);
    }

    /** Marks the block as this process's, open. */
    void claim(int rank, long pid) {
        int at = (int) layout.controlOffset(rank);
        map.putLong(at + PID_AT, pid);
        LONGS.setRelease(map, at + STATE_AT, (long) OPEN);
    }

    int state(int rank) {
        return (int) (long) LONGS.getAcquire(map, (int) layout.controlOffset(rank) + STATE_AT);
    }

    long pid(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + PID_AT);
    }

    /**
     * Leaves: closed on purpose, or aborted with a reason peers will quote and the rank it blames (-1 for none),
     * so that a failure that spreads from rank to rank is still attributed to the rank where it began. A long
     * reason keeps its end, where a failure passed on names its first cause.
     */
    void leave(int rank, int state, String reason, int culprit) {
        int at = (int) layout.controlOffset(rank);
        map.putInt(at + CULPRIT_AT, culprit + 1);
        byte[] text = FailureReason.fit(reason == null ? "" : reason, REASON_MAX);
        map.put(at + REASON_AT, text);
        map.putInt(at + REASON_LENGTH_AT, text.length);
        LONGS.setRelease(map, at + STATE_AT, (long) state);
    }

    /** The rank a peer that aborted blames, or -1. */
    int culprit(int rank) {
        int c = map.getInt((int) layout.controlOffset(rank) + CULPRIT_AT) - 1;
        return c >= -1 && c < flagAt.length ? c : -1;
    }

    /** The reason a peer gave when it left (bounded, whatever the bytes say). */
    String reason(int rank) {
        int at = (int) layout.controlOffset(rank);
        int n = Math.max(0, Math.min(REASON_MAX, map.getInt(at + REASON_LENGTH_AT)));
        byte[] text = new byte[n];
        map.get(at + REASON_AT, text);
        return new String(text, StandardCharsets.UTF_8);
    }

    /** The tag of a record being rewritten: no call's (tags are call index + 1; 0 is a record never written). */
    private static final long REWRITING = -1;

    /**
     * What a peer's record of one call says, read whole ({@link #record}): the call's signature and the history
     * before it.
     */
    record CallRecord(Signature signature, long history) {
        /** The rank has left the call behind: its record was reused by a later call. */
        static final CallRecord PASSED = new CallRecord(null, 0);
    }

    /**
     * Where peers read {@code rank}'s data in its current single-copy call (0: they cannot), whether the call
     * overwrites it (in place), and which way the rank picked for it, published by its next counter advance.
     */
    void publishSource(int rank, long address, OwnRegions.Found region, boolean inPlace, PathChooser.Pick pick) {
        int at = (int) layout.controlOffset(rank);
        map.putLong(at + SOURCE_AT, address);
        map.putLong(at + SOURCE_IN_PLACE_AT, inPlace ? 1 : 0);
        map.putLong(at + PICK_AT, pick.ordinal());
        publishRegion(at, PeerRegions.SOURCE, region);
    }

    private void publishRegion(int at, int slot, OwnRegions.Found region) {
        int words = at + REGIONS_AT + slot * REGION_WORDS * 8;
        map.putLong(words, region == null ? 0 : region.base());
        map.putLong(words + 8, region == null ? 0 : region.fd());
        map.putLong(words + 16, region == null ? 0 : region.id());
    }

    /**
     * The shared allocation that {@code rank}'s current single-copy source ({@link PeerRegions#SOURCE}) or output
     * ({@link PeerRegions#OUTPUT}) lies in, or null where it lies in none.
     */
    OwnRegions.Found region(int rank, int slot) {
        int words = (int) layout.controlOffset(rank) + REGIONS_AT + slot * REGION_WORDS * 8;
        long id = map.getLong(words + 16);
        long fd = map.getLong(words + 8);
        return id == 0 || fd < 0 || fd > Integer.MAX_VALUE ? null
                : new OwnRegions.Found(map.getLong(words), (int) fd, id);
    }

    /** The way {@code rank} picked for its current single-copy call ({@link PathChooser}). */
    PathChooser.Pick pick(int rank) {
        return PathChooser.Pick.of(map.getLong((int) layout.controlOffset(rank) + PICK_AT));
    }

    /** Where {@code rank}'s output starts in its current single-copy reduction, for peers to read; 0: nowhere. */
    void publishOutput(int rank, long address, OwnRegions.Found region) {
        int at = (int) layout.controlOffset(rank);
        map.putLong(at + OUTPUT_AT, address);
        publishRegion(at, PeerRegions.OUTPUT, region);
    }

    /**
     * The bytes at the start of a broadcast's message that {@code rank}, its root, writes into every receiver's output
     * in its current call ({@link ShareBalancer}); published with its input, before the first phase.
     */
    void publishRootShare(int rank, long bytes) {
        map.putLong((int) layout.controlOffset(rank) + ROOT_SHARE_AT, bytes);
    }

    long rootShare(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + ROOT_SHARE_AT);
    }

    /** How long {@code rank} copied in its current broadcast, a receiver's reads; published before it is done. */
    void publishCopyNanos(int rank, long nanos) {
        map.putLong((int) layout.controlOffset(rank) + COPY_NANOS_AT, nanos);
    }

    long copyNanos(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + COPY_NANOS_AT);
    }

    long output(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + OUTPUT_AT);
    }

    long source(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + SOURCE_AT);
    }

    /** Whether {@code rank}'s current single-copy call is in place ({@link #publishSource}). */
    boolean sourceInPlace(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + SOURCE_IN_PLACE_AT) == 1;
    }

    /** A word of {@code rank}'s private memory, at {@code address} and holding {@code value}, for peers to read. */
    void publishCanary(int rank, long address, long value) {
        int at = (int) layout.controlOffset(rank);
        map.putLong(at + CANARY_ADDRESS_AT, address);
        map.putLong(at + CANARY_VALUE_AT, value);
    }

    long canaryAddress(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + CANARY_ADDRESS_AT);
    }

    long canaryValue(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + CANARY_VALUE_AT);
    }

    /**
     * Whether {@code rank} read every peer's canary right, the sizes it was given from which to read its peers
     * (-1 where not given), how many threads share its copies and the last-level cache it found (0: unknown; rank
     * 0's sizes every rank's all-gathers), published by its next counter advance: every rank must take single copy
     * for the same calls.
     */
    void publishSingleCopy(int rank, boolean readsPeers, SingleCopy.Sizes given, int crew, long cacheBytes) {
        int at = (int) layout.controlOffset(rank);
        map.putLong(at + CACHE_AT, cacheBytes);
        map.putLong(at + READS_PEERS_AT, readsPeers ? 1 : 2);
        map.putLong(at + SINGLE_COPY_MIN_AT, given.minBytes());
        map.putLong(at + SINGLE_COPY_GATHER_MIN_AT, given.gatherMinBytes());
        map.putLong(at + SINGLE_COPY_BROADCAST_MIN_AT, given.broadcastMinBytes());
        map.putLong(at + SINGLE_COPY_IN_PLACE_MIN_AT, given.inPlaceMinBytes());
        map.putLong(at + SINGLE_COPY_REDUCE_MIN_AT, given.reduceMinBytes());
        map.putLong(at + CREW_AT, crew);
    }

    boolean readsPeers(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + READS_PEERS_AT) == 1;
    }

    /** The sizes {@code rank} was given ({@link #publishSingleCopy}). */
    SingleCopy.Sizes singleCopySizes(int rank) {
        int at = (int) layout.controlOffset(rank);
        return SingleCopy.Sizes.given(map.getLong(at + SINGLE_COPY_MIN_AT), map.getLong(at + SINGLE_COPY_GATHER_MIN_AT),
                map.getLong(at + SINGLE_COPY_BROADCAST_MIN_AT), map.getLong(at + SINGLE_COPY_IN_PLACE_MIN_AT),
                map.getLong(at + SINGLE_COPY_REDUCE_MIN_AT));
    }

    /** The last-level cache {@code rank} found ({@link #publishSingleCopy}); 0: unknown. */
    long cacheBytes(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + CACHE_AT);
    }

    long crew(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + CREW_AT);
    }

    /**
     * Records the call a rank has entered: the tag marked as being rewritten, then its signature and history, the
     * tag (index + 1) last, as a sequence lock does, so that a reader can tell a record it read whole from one
     * rewritten under it (the ring's place is reused 16 calls later).
     */
    void enter(int rank, long callIndex, Call call, long history) {
        int at = (int) layout.callEntryOffset(rank, callIndex);
        LONGS.setOpaque(map, at + TAG_AT, REWRITING);
        VarHandle.storeStoreFence(); // the mark before the fields
        Signature.writeTo(call, map, at + SIGNATURE_AT);
        map.putLong(at + HISTORY_AT, history);
        LONGS.setRelease(map, at + TAG_AT, callIndex + 1);
        map.putLong((int) layout.controlOffset(rank) + ENTERED_AT, callIndex);
    }

    /**
     * {@code rank}'s record of call {@code callIndex}, read whole; {@link CallRecord#PASSED} where the rank has
     * gone on to later calls and reused the record's place; null where it has not entered the call (its place
     * holds an earlier call's record, or none). Calls with nothing to move wait for no one, so a rank can be any
     * number of calls ahead of a peer that has just seen it reach a phase.
     */
    CallRecord record(int rank, long callIndex) {
        int at = (int) layout.callEntryOffset(rank, callIndex);
        long tag = (long) LONGS.getAcquire(map, at + TAG_AT);
        if (tag != callIndex + 1) {
            return tag == REWRITING || tag > callIndex + 1 ? CallRecord.PASSED : null;
        }
        CallRecord read = new CallRecord(Signature.readFrom(map, at + SIGNATURE_AT), map.getLong(at + HISTORY_AT));
        VarHandle.acquireFence(); // the fields' reads before the tag's second read
        return (long) LONGS.getAcquire(map, at + TAG_AT) == tag ? read : CallRecord.PASSED;
    }

    /** The index of the latest call {@code rank} entered, 0 before any (for diagnoses only: read without ordering). */
    private long entered(int rank) {
        return map.getLong((int) layout.controlOffset(rank) + ENTERED_AT);
    }

    /**
     * For messages: what {@code rank} is doing, from its latest record read whole ({@link #record}): "the latest call
     * it entered is ...", or that it has entered none, or that it is entering a later one as this reads.
     */
    String latestCall(int rank) {
        CallRecord latest = record(rank, entered(rank));
        if (latest == null) {
            return "it has entered no call on this communicator";
        }
        return latest == CallRecord.PASSED ? "it is entering a later call"
                : "the latest call it entered is " + latest.signature().describe();
    }
}
