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
 * writes that one only after it has read every box of call {@code b}. So every rank reads every rank's box in
 * every box call, whether it needs the data or not (a broadcast's root, a reduce's non-roots), no rank is ever more
 * than one box call ahead of another, and a box a peer waits on holds either the call before last or this one.
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
     * is null), waits until every peer has posted its part of the same box call, and compares the calls, as the
     * slots' first wait does ({@link Slots#compare}). Returns the box the call's data lie in, for {@link #data}.
     */
    int exchange(Slots s, Signature signature, long history, StagedAccess in, long byteOffset, int bytes) {
        int box = (int) (calls & 1);
        long sequence = ++calls;
        ByteBuffer mine = boxes[rank][box];
        if (in != null && bytes > 0) {
            mine.put(DATA_AT, views.readable(s, in, byteOffset, bytes), 0, bytes);
        }
        mine.putLong(HISTORY_AT, history);
        signature.writeTo(mine, SIGNATURE_AT);
        LONGS.setRelease(mine, SEQUENCE_AT, sequence);
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                awaitBox(p, box, sequence);
                if (!sameCall(boxes[p][box], mine)) {
                    ByteBuffer theirs = boxes[p][box];
                    throw s.compare(p, Signature.readFrom(theirs, SIGNATURE_AT), theirs.getLong(HISTORY_AT));
                }
            }
        }
        return box;
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
