package io.jcoll.shm;

import io.jcoll.exceptions.ProtocolException;
import io.jcoll.spi.Signature;
import io.jcoll.spi.StagedAccess;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Small collectives in one exchange: every rank writes its call's number, signature, history and whole input
 * side by side into a box of its own, and reads every peer's. A peer learns that the rank has arrived, which call
 * it is in and its data from the same cache lines, where the slots' path takes a progress counter, a call record
 * and a slot, each on lines of their own, and a second counter to free the slot; between cores that each pay a
 * cache-line transfer, that is most of a small call's time.
 *
 * <p>Each rank has two boxes and uses them in turn, with no counter to say that a box may be written again: a rank
 * writes box call {@code b + 2} only after it has read every rank's box of call {@code b + 1}, and every rank
 * writes that one only after it has read every box of call {@code b}. So every rank reads every rank's box of
 * every box call, no rank is ever more than one box call ahead of another, and a box a peer waits on holds either
 * the call before last or this one.
 *
 * <p>A rank that needs nothing from its peers (a broadcast's or scatter's root, a reduce's or gather's other
 * ranks) posts and returns, as Open MPI's root does, and reads its peers' boxes of that call at the start of its
 * next box call, before it posts that one, or when it closes: the rule above holds, one call later, and the
 * comparison of every rank's call is made all the same, on that rank at its next call at the latest. The ranks
 * that do need data still wait for every box (the root's is one), so that they compare every rank's call at once.
 */
final class Boxes {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    static final int SEQUENCE_AT = 0;      // box calls this rank has begun, this one included: written last
    static final int HISTORY_AT = 8;
    static final int SIGNATURE_AT = 16;
    /**
     * Where a box's data begins: right after the signature, on the header's 64-byte cache line, so that the first
     * 16 bytes of data (a small all-reduce's whole input) travel with the sequence number that announces them.
     */
    static final int DATA_AT = SIGNATURE_AT + Signature.BYTES;
    /** Bytes of data a box holds: larger calls go through the slots, where a phase's fixed cost matters less. */
    static final int CAPACITY = 4096;

    private final int rank;
    private final int size;
    private final Waiter waiter;
    private final ByteBuffer[][] boxes; // [rank][box], native order, each exactly one box long
    private final ByteBuffer[][] data;  // [rank][box]: each box's data, all its capacity (made once: a call makes none)
    private final ByteBuffer[][] part;  // [rank][box]: the last view from an offset into the data (partAt, partLength)
    private final int[][] partAt;
    private final int[][] partLength;
    private long calls;                 // box calls this rank has begun
    private long unread;                // the box call this rank posted without reading its peers' boxes; 0: none
    final KeptViews views = new KeptViews(); // of the caller's buffers, from one box call to the next

    Boxes(int rank, Layout layout, ByteBuffer map, Waiter waiter) {
        this.rank = rank;
        this.size = layout.size();
        this.waiter = waiter;
        this.boxes = new ByteBuffer[size][Layout.BOXES];
        this.data = new ByteBuffer[size][Layout.BOXES];
        this.part = new ByteBuffer[size][Layout.BOXES];
        this.partAt = new int[size][Layout.BOXES];
        this.partLength = new int[size][Layout.BOXES];
        for (int r = 0; r < size; r++) {
            for (int b = 0; b < Layout.BOXES; b++) {
                boxes[r][b] = map.slice((int) layout.boxOffset(r, b), Layout.BOX_BYTES).order(ByteOrder.nativeOrder());
                data[r][b] = Slots.view(boxes[r][b], DATA_AT, CAPACITY);
            }
        }
    }

    /**
     * Posts this rank's part of a call ({@code bytes} of {@code in} from {@code byteOffset}; none where {@code in}
     * is null) and, where {@code awaitPeers}, waits until every peer has posted its part of the same box call and
     * compares the calls, as the slots' first wait does ({@link Slots#compare}); otherwise that is left to
     * {@link #settle}. Returns the box the call's data lie in, for {@link #data}.
     */
    int exchange(Slots s, Signature signature, long history, StagedAccess in, long byteOffset, int bytes,
                 boolean awaitPeers) {
        settle(s);
        int box = (int) (calls & 1);
        long sequence = ++calls;
        ByteBuffer mine = boxes[rank][box];
        if (in != null && bytes > 0) {
            mine.put(DATA_AT, views.readable(s, in, byteOffset, bytes), 0, bytes);
        }
        mine.putLong(HISTORY_AT, history);
        signature.writeTo(mine, SIGNATURE_AT);
        LONGS.setRelease(mine, SEQUENCE_AT, sequence);
        if (awaitPeers) {
            readPeers(s, sequence, false);
        } else {
            unread = sequence;
        }
        return box;
    }

    /** Whether a box call of this rank's still waits for {@link #settle}. */
    boolean unsettled() {
        return unread != 0;
    }

    /**
     * Reads the peers' boxes of the call this rank posted without reading them, waiting for each, and compares
     * the calls: before this rank's next box call may write the box they read it from, and before it closes.
     */
    void settle(Slots s) {
        if (unread != 0) {
            long sequence = unread;
            unread = 0;
            readPeers(s, sequence, true);
        }
    }

    /** Waits for every peer's box of box call {@code sequence}, and compares each with this rank's. */
    private void readPeers(Slots s, long sequence, boolean earlier) {
        int box = (int) ((sequence - 1) & 1);
        ByteBuffer mine = boxes[rank][box];
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                awaitBox(p, box, sequence);
                ByteBuffer theirs = boxes[p][box];
                if (!sameCall(theirs, mine)) {
                    Signature theirCall = Signature.readFrom(theirs, SIGNATURE_AT);
                    long theirHistory = theirs.getLong(HISTORY_AT);
                    throw earlier
                            ? s.compareEarlier(p, Signature.readFrom(mine, SIGNATURE_AT), mine.getLong(HISTORY_AT),
                                    theirCall, theirHistory)
                            : s.compare(p, theirCall, theirHistory);
                }
            }
        }
    }

    /**
     * {@code owner}'s data in {@code box} from {@code at}, indexed from 0, native order: at least {@code length} bytes
     * (from the start, the whole box: the readers take what they need by index). A view from an offset (this rank's
     * block of a reduce-scatter or all-to-all) is kept for the next call, which in a loop asks for the same one.
     */
    ByteBuffer data(int owner, int box, int at, int length) {
        if (at == 0) {
            return data[owner][box];
        }
        if (part[owner][box] == null || partAt[owner][box] != at || partLength[owner][box] != length) {
            part[owner][box] = Slots.view(boxes[owner][box], DATA_AT + at, length);
            partAt[owner][box] = at;
            partLength[owner][box] = length;
        }
        return part[owner][box];
    }

    private void awaitBox(int peer, int box, long sequence) {
        ByteBuffer theirs = boxes[peer][box];
        long v = (long) LONGS.getAcquire(theirs, SEQUENCE_AT);
        if (v < sequence) {
            waiter.until(() -> peer, () -> (long) LONGS.getAcquire(theirs, SEQUENCE_AT) >= sequence);
            v = (long) LONGS.getAcquire(theirs, SEQUENCE_AT);
        }
        if (v != sequence) {
            // one box call ahead at most, and then in the other box: anything else was written by another process
            ProtocolException damage = waiter.damaged(peer);
            throw damage != null ? damage : waiter.corrupt(peer, "its box holds box call " + v + " where this rank "
                    + "waits for box call " + sequence);
        }
    }

    /** Whether two boxes hold the same signature and history: compared as words, without decoding either. */
    private static boolean sameCall(ByteBuffer a, ByteBuffer b) {
        for (int at = HISTORY_AT; at < SIGNATURE_AT + Signature.BYTES; at += 8) {
            if (a.getLong(at) != b.getLong(at)) {
                return false;
            }
        }
        return true;
    }
}
