package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.HostBuffer;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.spi.HostMemory;
import io.jcoll.spi.Call;
import io.jcoll.spi.Signature;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Paces the collectives through the ranks' slots. A collective moves its data a chunk at a time; each chunk
 * takes the next slot of every rank in turn, and goes through phases: a rank writes its part into its own slot
 * and advances its counter, waits until its peers' counters show they have done the same, reads what it needs
 * from their slots, and so on. Every rank runs the same phases for the same calls, so a counter value names one
 * phase of one chunk on every rank, and a slot may be written again once every counter has passed the phase in
 * which its last reader finished with it. With two or more slots a rank fills the next chunk while its peers
 * still read the last: the pipeline.
 *
 * <p>Before a rank reads a peer's slot in a call, it compares the signature the peer recorded for that call
 * with its own: ranks in different calls fail, naming each other, before either reads the other's data.
 *
 * <p>Within a phase, a rank's own copies and reductions of a large chunk may be {@linkplain #share shared} with
 * its {@link Crew}: a run of pieces of the chunk for each member. The phases, their counters and every wait stay
 * on the calling thread.
 */
final class Slots {

    private final int rank;
    private final int size;
    private final Layout layout;
    private final Control control;
    private final Waiter waiter;
    private final ByteBuffer[][] slots;  // [rank][slot], native order, each exactly one slot long
    private final long[] freeAt;         // per slot: the counter every rank must reach before it is written again
    private final HostMemory stageMemory;
    private final Crew crew;
    private final int shareMinBytes;     // bytes below which a member's range is not worth a helper
    private boolean viewsOnly;           // the current call's buffers all give views: helpers may touch them
    private ByteBuffer stage;            // for buffers that cannot be viewed (arrays, GPU memory): one slot
    private long flag;                   // this rank's counter, as last published
    private long chunk;                  // chunks run on this communicator: picks the slot
    private long callIndex = -1;         // collectives begun on this communicator
    private Call call;                 // the current call: its signature is made only where calls are compared
    private long history;
    private boolean verified;
    private final java.util.function.IntFunction<JcollException> disagreements = this::disagreementWith;

    Slots(int rank, Layout layout, ByteBuffer map, Control control, Waiter waiter, HostMemory stageMemory,
          Crew crew, int shareMinBytes) {
        this.rank = rank;
        this.crew = crew;
        this.shareMinBytes = Math.max(1, shareMinBytes);
        this.size = layout.size();
        this.layout = layout;
        this.control = control;
        this.waiter = waiter;
        this.stageMemory = stageMemory;
        this.freeAt = new long[layout.slots()];
        this.slots = new ByteBuffer[size][layout.slots()];
        for (int r = 0; r < size; r++) {
            for (int k = 0; k < layout.slots(); k++) {
                slots[r][k] = map.slice((int) layout.slotOffset(r, k), layout.slotBytes()).order(ByteOrder.nativeOrder());
            }
        }
    }

    int rank() {
        return rank;
    }

    int size() {
        return size;
    }

    /** Bytes of one slot, the same on every rank. */
    int slotBytes() {
        return layout.slotBytes();
    }

    /** Elements of {@code typeSize} bytes a slot holds: a chunk of a message that each rank posts whole. */
    long elementsPerSlot(int typeSize) {
        return layout.slotBytes() / typeSize;
    }

    /**
     * Elements of an all-gather's chunk: each rank copies out every rank's chunk in a phase, {@code size} times the
     * chunk, so the chunk is two slots' worth shared among the ranks ({@code 2 * slotBytes / size}), never under the
     * smallest default slot nor over the slot: 256 KB under the default slots at every rank count, as before the
     * slots grew with the ranks. With the whole 1 MB slot at 8 ranks an AllGather took 1.00-1.37x the time of 256 KB
     * chunks on 32 cores (benchmarks/RESULTS.md): a phase's copies out no longer overlapped the next one's copies in.
     */
    long elementsPerGatherChunk(int typeSize) {
        long shared = Math.max(Layout.MIN_DEFAULT_SLOT_BYTES, 2L * layout.slotBytes() / size);
        return Math.min(layout.slotBytes(), shared) / Layout.LINE * Layout.LINE / typeSize;
    }

    /** Elements of each of the {@code size} pieces a slot holds side by side: a chunk of every rank's block. */
    long elementsPerPiece(int typeSize) {
        return layout.slotBytes() / ((long) size * typeSize);
    }

    /**
     * Records the call this rank enters, for its peers to compare before they read its slots; {@code send} and
     * {@code recv} are its buffers (null where it has none), which say whether helpers may share its copies.
     */
    void begin(Call call, long historyBefore, Buffer send, Buffer recv) {
        viewsOnly = givesViews(send) && givesViews(recv);
        callIndex++;
        this.call = call;
        history = historyBefore;
        verified = false;
        control.enter(rank, callIndex, call, historyBefore);
        waiter.compareCallsWith(disagreements);
    }

    /** The current call's signature, as peers compare it. */
    private Signature signature() {
        return Signature.of(call);
    }

    /** Whether the current call's buffers all give views, so that the crew may share its copies. */
    boolean viewsOnly() {
        return viewsOnly;
    }

    /** The next chunk's slot, once every rank has finished reading what it last held. */
    int nextSlot() {
        int k = (int) (chunk++ % freeAt.length);
        waiter.awaitAll(freeAt[k], flag);
        return k;
    }

    /** The next chunk's slot on a rank that will not write it (a broadcast's receivers): no wait. */
    int nextSlotUnwritten() {
        return (int) (chunk++ % freeAt.length);
    }

    ByteBuffer slot(int owner, int k) {
        return slots[owner][k];
    }

    /** Advances this rank's counter: a phase is done. */
    void publish() {
        control.publishFlag(rank, ++flag);
    }

    /** Advances the counter for the phase after the last read of slot {@code k}: it may be written again after. */
    void free(int k) {
        publish();
        freeAt[k] = flag;
    }

    /** Until every rank has done the phase this rank just published; the first such wait of a call compares calls. */
    void awaitAll() {
        waiter.awaitAll(flag);
        if (!verified) {
            for (int p = 0; p < size; p++) {
                verify(p);
            }
            verified = true;
        }
    }

    /** Until {@code peer} has done the phase this rank just published. */
    void awaitPeer(int peer) {
        waiter.awaitPeer(peer, flag);
        if (!verified) {
            verify(peer);
            verified = true;
        }
    }

    private void verify(int peer) {
        if (peer == rank) {
            return;
        }
        Control.CallRecord record = control.record(peer, callIndex);
        if (record == Control.CallRecord.PASSED) {
            return; // it got past this call, which it could only with this rank in it; later calls compare histories
        }
        if (record == null) {
            ProtocolException damage = waiter.damaged(peer);
            throw damage != null ? damage // garbage written over the records by another process
                    : new CollectiveMismatchException(waiter.operation(), rank, peer, "rank " + peer + " is not in "
                    + signature().describe() + " (" + control.latestCall(peer) + "); every rank must issue the same "
                    + "collectives, in the same order, with the same arguments");
        }
        JcollException disagreement = compare(peer, record.signature(), record.history());
        if (disagreement != null) {
            throw disagreement;
        }
    }

    /**
     * For a wait of this rank's current call that may not end: the disagreement between this call and
     * {@code peer}'s record of the same call, or null where the peer has not entered it, got past it, or agrees.
     * Ranks that disagree about a call's size may wait in different paths (boxes, slots) for each other.
     */
    JcollException disagreementWith(int peer) {
        Control.CallRecord record = peer == rank ? null : control.record(peer, callIndex);
        return record == null || record == Control.CallRecord.PASSED ? null
                : compare(peer, record.signature(), record.history());
    }

    /**
     * Why {@code peer}'s call ({@code theirs}, with the history of calls before it) is not this rank's current
     * call, or null where it is: damage done to the segment by another process, or a disagreement that names both.
     */
    JcollException compare(int peer, Signature theirs, long theirHistory) {
        return compare(peer, signature(), history, theirs, theirHistory, false);
    }

    /**
     * Why {@code peer}'s call ({@code theirs}) is not {@code mine}, an earlier call this rank finished without
     * waiting for its peers (a small broadcast's root, say), found at its next call or as it closes.
     */
    JcollException compareEarlier(int peer, Signature mine, long myHistory, Signature theirs, long theirHistory) {
        return compare(peer, mine, myHistory, theirs, theirHistory, true);
    }

    private JcollException compare(int peer, Signature mine, long myHistory, Signature theirs, long theirHistory,
                                   boolean earlier) {
        if (theirs.equals(mine) && theirHistory == myHistory) {
            return null;
        }
        ProtocolException damage = waiter.damaged(peer);
        if (damage != null) {
            return damage; // garbage written over the records by another process, not a disagreement
        }
        String when = earlier ? " (a call this rank finished without waiting for its peers, as the root of a small "
                + "broadcast or scatter and the other ranks of a small reduce or gather do; compared now)" : "";
        String is = earlier ? " was in " : " is in ";
        if (!theirs.equals(mine)) {
            return new CollectiveMismatchException(waiter.operation(), rank, peer, "this rank" + is + mine.describe()
                    + when + " but rank " + peer + is + theirs.describe()
                    + "; every rank must issue the same collectives, in the same order, with the same arguments");
        }
        return new CollectiveMismatchException(waiter.operation(), rank, peer, "rank " + peer + " and this rank "
                + "disagree about an earlier collective (before " + mine.describe() + ")" + when + ": one of them was "
                + "called with other arguments on one of the two (a different root, count, type or op) and "
                + "completed without either noticing; every rank must issue the same collectives, in the same "
                + "order, with the same arguments");
    }

    /**
     * Pieces a crew member's share of one copy is cut into, at most: enough that a helper the kernel leaves waiting
     * holds up little more than the piece it began ({@link Crew}); few enough that a piece (at least the minimum
     * share, 32 KB by default) stays a long copy beside the count it costs and, reading a peer, its system call.
     */
    static final int PIECES_PER_MEMBER = 4;

    /** A range {@code [from, to)} of a chunk's elements, for one piece of a crew's job. */
    @FunctionalInterface
    interface Range {
        void run(int from, int to);
    }

    /**
     * Runs {@code range} over elements {@code [0, elements)} of {@code typeSize} bytes: where the call's buffers give
     * views and the bytes make at least two minimum shares, cut into the same number of pieces for each member of
     * the crew (up to {@link #PIECES_PER_MEMBER}, none below the minimum share), each member's run of them the
     * range it would have alone ({@link Crew} says who runs which); else whole on this thread. Pieces are cut at
     * multiples of a cache line's worth of elements, so members writing a slot (slots start on a line) never
     * write one line. {@code range} must not itself share.
     */
    void share(int elements, int typeSize, Range range) {
        long bytes = (long) elements * typeSize;
        long shares = viewsOnly ? bytes / shareMinBytes : 1;
        int members = (int) Math.min(crew.size(), shares);
        if (members <= 1) {
            range.run(0, elements);
            return;
        }
        int pieces = members * (int) Math.min(PIECES_PER_MEMBER, shares / members);
        int align = Math.max(1, Layout.LINE / typeSize);
        crew.run(members, pieces, (piece, of) -> {
            int from = cut(elements, piece, of, align);
            int to = cut(elements, piece + 1, of, align);
            if (to > from) {
                range.run(from, to);
            }
        });
    }

    /** Where piece {@code m} of {@code of}'s range of {@code elements} starts, at a multiple of {@code align}. */
    static int cut(int elements, int m, int of, int align) {
        if (m >= of) {
            return elements;
        }
        long at = (long) elements * m / of;
        return (int) (at / align * align);
    }

    /** Buffers a helper thread may read and write: views of memory, never a stage (which is this thread's). */
    static boolean givesViews(Buffer b) {
        return b == null || b instanceof HostBuffer h && h.isByteAddressable();
    }

    /** Copies {@code length} bytes of {@code from} at {@code byteOffset} into {@code slot} at {@code at}. */
    void copyIn(StagedAccess from, long byteOffset, int length, ByteBuffer slot, int at) {
        if (length > 0) {
            slot.put(at, readable(from, byteOffset, length), 0, length);
        }
    }

    /**
     * Posts the same {@code bytes}-long range, from element {@code from}, of each of the {@code size} blocks of
     * {@code count} elements of {@code in} side by side in {@code slot}: block {@code d}'s at
     * {@code d * bytes}. What reduce-scatter, all-to-all and scatter each chunk begins with. Shared.
     */
    void copyBlocksIn(StagedAccess in, long count, long from, int bytes, int typeSize, ByteBuffer slot) {
        copyBlocksIn(in, count, from, bytes, typeSize, slot, -1);
    }

    /**
     * {@link #copyBlocksIn} leaving block {@code skipped} out (-1: none): a block that only this rank reads and that
     * is already where it goes (an in-place all-to-all's own block).
     */
    void copyBlocksIn(StagedAccess in, long count, long from, int bytes, int typeSize, ByteBuffer slot, int skipped) {
        share(bytes / typeSize, typeSize, (lo, hi) -> {
            for (int d = 0; d < size; d++) {
                if (d != skipped) {
                    copyIn(in, (d * count + from + lo) * typeSize, (hi - lo) * typeSize, slot,
                            d * bytes + lo * typeSize);
                }
            }
        });
    }

    /** {@link #copyIn} of {@code elements} elements of {@code typeSize} bytes, shared. */
    void copyInShared(StagedAccess from, long byteOffset, int elements, int typeSize, ByteBuffer slot, int at) {
        share(elements, typeSize, (lo, hi) -> copyIn(from, byteOffset + (long) lo * typeSize, (hi - lo) * typeSize,
                slot, at + lo * typeSize));
    }

    /**
     * {@code length} bytes of {@code from} at {@code fromOffset} straight to {@code to} at {@code toOffset}, no slot
     * between. One of the two at most may need the stage (the one stage is no room for two).
     */
    void copyAcross(StagedAccess from, long fromOffset, int length, StagedAccess to, long toOffset) {
        if (length > 0) {
            ByteBuffer room = writable(to, toOffset, length);
            room.put(0, readable(from, fromOffset, length), 0, length);
            to.commit(toOffset, room);
        }
    }

    /** {@link #copyAcross} of {@code elements} elements of {@code typeSize} bytes, shared: buffers that give views. */
    void copyAcrossShared(StagedAccess from, long fromOffset, int elements, int typeSize, StagedAccess to,
                          long toOffset) {
        share(elements, typeSize, (lo, hi) -> copyAcross(from, fromOffset + (long) lo * typeSize,
                (hi - lo) * typeSize, to, toOffset + (long) lo * typeSize));
    }

    /** {@link #copyOut} of {@code elements} elements of {@code typeSize} bytes, shared. */
    void copyOutShared(ByteBuffer slot, int at, int elements, int typeSize, StagedAccess to, long byteOffset) {
        share(elements, typeSize, (lo, hi) -> copyOut(slot, at + lo * typeSize, (hi - lo) * typeSize, to,
                byteOffset + (long) lo * typeSize));
    }

    /** Copies {@code length} bytes of {@code slot} at {@code at} into {@code to} at {@code byteOffset}. */
    void copyOut(ByteBuffer slot, int at, int length, StagedAccess to, long byteOffset) {
        if (length > 0) {
            ByteBuffer room = to.writable(byteOffset, length, stageFor(to, length));
            room.put(0, slot, at, length);
            to.commit(byteOffset, room);
        }
    }

    /** {@code length} bytes of {@code from} at {@code byteOffset}, indexed from 0, native order (a view or the stage). */
    ByteBuffer readable(StagedAccess from, long byteOffset, int length) {
        return from.readable(byteOffset, length, stageFor(from, length)).order(ByteOrder.nativeOrder());
    }

    /** Room to write {@code length} bytes of {@code to} at {@code byteOffset}; pass it to {@link StagedAccess#commit}. */
    ByteBuffer writable(StagedAccess to, long byteOffset, int length) {
        return to.writable(byteOffset, length, stageFor(to, length)).order(ByteOrder.nativeOrder());
    }

    /** The stage, for memory that needs one; none for views, so that helpers sharing a call never touch it. */
    private ByteBuffer stageFor(StagedAccess access, int length) {
        return givesViews(access) ? null : stage(length);
    }

    /** {@code length} bytes of {@code slot} from {@code at}, indexed from 0, native order. */
    static ByteBuffer view(ByteBuffer slot, int at, int length) {
        return slot.slice(at, length).order(ByteOrder.nativeOrder());
    }

    private ByteBuffer stage(int length) {
        if (stage == null) {
            stage = stageMemory.allocate(layout.slotBytes());
        }
        return stage.clear().limit(length);
    }

    /** Gives the stage back; no call runs any more. */
    void release() {
        if (stage != null) {
            stageMemory.free(stage);
            stage = null;
        }
    }
}
