package io.jcoll.shm;

import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Signature;
import io.jcoll.spi.StagedAccess;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.BooleanSupplier;

/**
 * Small collectives in one exchange: every rank writes its call's number, signature, history and whole input
 * side by side into a box of its own, and reads the peers' boxes it needs. A peer learns that the rank has arrived, which call
 * it is in and its data from the same cache lines, where the slots' path takes a progress counter, a call record
 * and a slot, each on lines of their own, and a second counter to free the slot; between cores that each pay a
 * cache-line transfer, that is most of a small call's time.
 *
 * <p>Each rank has {@link Layout#BOXES} boxes and uses them in turn: box call {@code c} goes in box
 * {@code (c - 1) mod BOXES}. With the call's number, a box says how far its rank was done with box calls when it
 * posted it (every box of every call up to there read, compared and copied from): its lag, the call's number less
 * that. A rank writes box call {@code c} only once every peer is done with its box of call {@code c - BOXES}, the
 * last that box held: a peer that read that box in its own call (every rank in an all-reduce, a broadcast's
 * receivers the root's) is done with it once it has posted its next call; any other, once a box of its says so by
 * its lag. So a rank that reads a peer's box of call {@code c} finds there call {@code c} or, until the peer gets
 * to it, an earlier one: never a later one (anything else was written by another process).
 *
 * <p>A rank reads in its call only the boxes it needs: every one for an all-reduce, say, only the root's for a
 * broadcast's receiver, none for a broadcast's root or a reduce's other ranks, which post and return, as Open MPI's
 * root does. It reads the rest later, in call order: those of the oldest calls whose boxes are all posted at its
 * next box call (between two ranks, only once {@link #TWO_RANK_BATCH} calls are unread), and all of them before a
 * call in which it reads every box, before a call through the slots, as it closes, and before it posts a call
 * {@code BOXES - 1} after one it left unread. So a root runs up to {@code BOXES - 1} calls ahead of its receivers,
 * a receiver waits on the root and on another receiver only when that one falls {@code BOXES - 1} calls behind,
 * and every rank's call is still compared with every other's, within {@code BOXES} calls at the latest.
 *
 * <p>Between two ranks, a broadcast's or scatter's receiver posts only every {@link #QUIET_PERIOD}th box call; it
 * leaves the others unposted, comparing the root's call with its own as it reads the root's box, and the history
 * in its next post covers them for the root. A box it leaves unposted keeps an earlier call, which the room for
 * its next write is waited for. The root takes the receiver to be done with its box once the receiver has posted
 * any later call, the first such being at most {@code QUIET_PERIOD} calls on. A box the receiver posted all the same
 * (their calls differed) is compared before a later difference or the receiver's failure is thrown, so that the
 * first difference is the one named; and as it closes, the root waits for the receiver's post of the last call,
 * which the receiver makes as it closes.
 *
 * <p>Why no wait can close a cycle: the lag a rank posts is at most {@code BOXES - 1}, so a peer that has posted
 * call {@code c - 1} is done with call {@code c - BOXES}, which is all that a rank writing box call {@code c}
 * needs. Where the peer of two left call {@code c - 1} unposted, its post of the last call before that both ranks
 * post, at most {@code QUIET_PERIOD} back, says the same: that post's lag is at most {@code QUIET_PERIOD}. A rank
 * waits for room only on peers behind it, and for boxes only of calls it has itself reached; the ranks furthest
 * behind wait for no one but each other, in a call they are all in.
 */
final class Boxes {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** A box's first word: the box calls its rank has begun, this one included, and its lag above: written last. */
    static final int SEQUENCE_AT = 0;
    static final int HISTORY_AT = 8;
    static final int SIGNATURE_AT = 16;
    /**
     * Where a box's data begins: right after the signature, on the header's 64-byte cache line, so that the first
     * 16 bytes of data (a small all-reduce's whole input) travel with the sequence number that announces them.
     */
    static final int DATA_AT = SIGNATURE_AT + Signature.BYTES;
    /** Bytes of data a box holds: larger calls go through the slots, where a phase's fixed cost matters less. */
    static final int CAPACITY = 4096;
    /** The sequence word's low bits hold the call's number, the high byte its lag. */
    private static final int LAG_SHIFT = 56;
    private static final long NUMBER_MASK = (1L << LAG_SHIFT) - 1;

    static {
        if (Integer.bitCount(Layout.BOXES) != 1 || Layout.BOXES > 128) {
            throw new AssertionError("Layout.BOXES must be a power of two whose lag fits the sequence word's byte");
        }
    }

    /**
     * Between two ranks, the calls a rank leaves unread before it reads what its peer has posted of them, all at
     * once. Each read of the peer's box is a cache line the peer has just written, a transfer between cores; read
     * call by call it is one more in every call of a Broadcast's root. In batches the reads of several lines
     * overlap: a two-rank Broadcast of 8 and 64 B took 0.80-0.86x its time on 16 Xeon cores in a trial of this
     * (3 alternated rounds; benchmarks/RESULTS.md, 2026-11-29). With more ranks it is the eager reading that
     * lets another rank have room to run ahead (its room waits on this one's lag), and the trial gained nothing
     * there (0.96-1.11x at 4 and 8 ranks). Half the boxes: a batch leaves the lag well below {@code BOXES - 1}.
     */
    static final int TWO_RANK_BATCH = Layout.BOXES / 2;

    /**
     * Between two ranks, a broadcast's or scatter's receiver posts its box of only every {@code QUIET_PERIOD}th box
     * call; of the others it compares the root's call with its own as it reads the root's box, and its next post's
     * history covers them for the root. What a receiver posts is one more line between the cores each call: the
     * receiver takes it back from the root, which has read it, and the root reads it once more. In the exchange
     * alone, with no call path around it, replies of every call took 117 ns a call on 32 Xeon cores where a counter
     * every half ring took 70 (benchmarks/RESULTS.md, "The small Broadcast taken apart"). A power of two, at most
     * half the boxes: every run of that many calls holds one that both ranks post, which carries the lag that room
     * needs ({@link #lagLimit}).
     */
    static final int QUIET_PERIOD = TWO_RANK_BATCH;

    private final int rank;
    private final int size;
    private final int settleBatch;      // unread calls before this rank reads what its peers posted of them
    private final Waiter waiter;
    private final ByteBuffer[][] boxes; // [rank][box], native order, each exactly one box long
    private final ByteBuffer[][] data;  // [rank][box]: each box's data, all its capacity (made once: a call makes none)
    private final ByteBuffer[][] part;  // [rank][box]: the last view from an offset into the data (partAt, partLength)
    private final int[][] partAt;
    private final int[][] partLength;
    private final long[] peersDone;     // per peer: the box calls it was done with, as its boxes last told this rank
    private final long[] peersPosted;   // per peer: the latest box call this rank has seen it post
    private final int[] readers = new int[Layout.BOXES];   // per own box: who read it in their call (EVERY, NONE, a peer)
    private final int[] readEarly = new int[Layout.BOXES]; // per own box of an unread call: the peer read in the
                                                           // call, or the one that left its box unposted
    private final long[] held = new long[Layout.BOXES];    // per own box: the box call last posted in it (0: none)
    private final boolean[] peerQuiet = new boolean[Layout.BOXES]; // per own box's call: the peer of two left its
                                                                   // box of the call unposted (QUIET_PERIOD)
    private final ByteBuffer unposted = ByteBuffer.allocateDirect(DATA_AT).order(ByteOrder.nativeOrder());
                                        // this rank's record of its latest call that it left unposted
    private long calls;                 // box calls this rank has begun
    private long unreadFrom;            // the first of the box calls this rank posted without reading its peers'
                                        // boxes (all since are such calls too); 0: none
    final KeptViews views = new KeptViews(); // of the caller's buffers, from one box call to the next
    final ByteBuffer[] reduceInputs;         // a box reduction's inputs, one per rank, refilled each call: a small
                                             // call makes no array

    Boxes(int rank, Layout layout, ByteBuffer map, Waiter waiter) {
        this.rank = rank;
        this.size = layout.size();
        this.settleBatch = size == 2 ? TWO_RANK_BATCH : 1;
        this.waiter = waiter;
        this.boxes = new ByteBuffer[size][Layout.BOXES];
        this.data = new ByteBuffer[size][Layout.BOXES];
        this.part = new ByteBuffer[size][Layout.BOXES];
        this.partAt = new int[size][Layout.BOXES];
        this.partLength = new int[size][Layout.BOXES];
        this.peersDone = new long[size];
        this.peersPosted = new long[size];
        this.reduceInputs = new ByteBuffer[size];
        for (int r = 0; r < size; r++) {
            for (int b = 0; b < Layout.BOXES; b++) {
                boxes[r][b] = map.slice((int) layout.boxOffset(r, b), Layout.BOX_BYTES).order(ByteOrder.nativeOrder());
                data[r][b] = Slots.view(boxes[r][b], DATA_AT, CAPACITY);
            }
        }
    }

    /** For {@link #exchange}: every peer (reads now, or reads this rank's box in the call). */
    static final int EVERY = -2;
    /** For {@link #exchange}: no peer. */
    static final int NONE = -1;

    /**
     * Posts this rank's part of a call ({@code bytes} of {@code in} from {@code byteOffset}; none where {@code in}
     * is null), and reads the boxes of the peers it needs now ({@code readNow}: {@link #EVERY}, {@link #NONE} or one
     * peer, a broadcast's root), waiting for each and comparing its call with theirs, as the slots' first wait does
     * ({@link Slots#compare}); the others' boxes of the call are read later ({@link #settle}). {@code readBy} says
     * which peers read this rank's box in their own call ({@link #EVERY}, {@link #NONE} or one): their having
     * posted a later call then tells that they are done with it. Between two ranks a broadcast's or scatter's
     * receiver leaves three calls in four unposted ({@link #QUIET_PERIOD}), writing its record of the call where
     * only it reads it. Returns the box the call's data lie in, for {@link #data}.
     */
    int exchange(Slots s, Call call, long history, StagedAccess in, long byteOffset, int bytes,
                 int readNow, int readBy) {
        long sequence = calls + 1;
        if (readNow == EVERY) {
            settle(s); // the calls it left unread first: calls are read in order
        } else if (unreadFrom != 0 && calls - unreadFrom + 1 >= settleBatch) {
            settleAvailable(s); // what its peers have posted: they may need it for room
        }
        int box = boxOf(sequence);
        boolean quiet = leavesUnposted(sequence, readNow, readBy);
        ByteBuffer mine = quiet ? unposted : boxes[rank][box];
        long done = quiet ? 0 : makeRoom(s, sequence);
        calls = sequence;
        peerQuiet[box] = peerLeavesUnposted(sequence, readNow, readBy);
        if (in != null && bytes > 0) {
            copy(mine, DATA_AT, views.readable(s, in, byteOffset, bytes), 0, bytes);
        }
        mine.putLong(HISTORY_AT, history);
        Signature.writeTo(call, mine, SIGNATURE_AT);
        if (!quiet) {
            publish(sequence, done, readBy);
        }
        if (readNow == EVERY) {
            readPeers(s, sequence, false, NONE);
        } else {
            if (readNow != NONE) {
                readPeer(s, readNow, sequence, false, mine);
            }
            readEarly[box] = peerQuiet[box] ? peerOfTwo() : readNow;
            if (unreadFrom == 0) {
                unreadFrom = sequence;
            }
        }
        return box;
    }

    /**
     * Before this rank posts box call {@code sequence}: room for it, and what it left unread settled far enough that
     * the lag it posts stays within bounds ({@link #lagLimit}). Returns the box calls it is done with.
     */
    private long makeRoom(Slots s, long sequence) {
        awaitRoom(s, sequence);
        settleUpTo(s, sequence - lagLimit(sequence));
        return unreadFrom != 0 ? unreadFrom - 1 : calls;
    }

    /**
     * The most box calls a rank's post of box call {@code sequence} may leave unread before it: below {@code BOXES},
     * so that its own oldest box is free to write; and between two ranks, at a call that no rank leaves unposted,
     * {@link #QUIET_PERIOD}. A peer about to write its box call {@code c} needs to know this rank is done with call
     * {@code c - BOXES}; where this rank left call {@code c - 1} unposted, the peer reads that in its post of the
     * last such call before, at most {@code QUIET_PERIOD} back, whose lag of at most {@code QUIET_PERIOD} takes in
     * every call up to {@code BOXES} back ({@link #lastCarrier}).
     */
    private long lagLimit(long sequence) {
        return size == 2 && sequence % QUIET_PERIOD == 0 ? QUIET_PERIOD : Layout.BOXES - 1;
    }

    /**
     * Whether this rank leaves its box of box call {@code sequence} unposted: as a two-rank broadcast's or scatter's
     * receiver ({@code readNow} the root, {@code readBy} none), but at every {@link #QUIET_PERIOD}th call.
     */
    private boolean leavesUnposted(long sequence, int readNow, int readBy) {
        return size == 2 && readNow >= 0 && readBy == NONE && sequence % QUIET_PERIOD != 0;
    }

    /** Whether this rank's side of box call {@code sequence} is the root's of a call its peer leaves unposted. */
    private boolean peerLeavesUnposted(long sequence, int readNow, int readBy) {
        return size == 2 && readNow == NONE && readBy == EVERY && sequence % QUIET_PERIOD != 0;
    }

    /** The other rank, of two. */
    private int peerOfTwo() {
        return 1 - rank;
    }

    /**
     * Bytes up to which {@link #copy} moves words itself rather than through the buffer's bulk copy: two words. Each
     * word moved through a buffer costs its index and state checks, so that on 32 Xeon cores, whose masked AVX-512
     * copies are fast, eight of them (64 bytes) made the two-rank 64-byte AllReduce and Broadcast slower where the
     * 8-byte ones gained (benchmarks/results/gpu-2026-11-30-lean-call).
     */
    static final int WORD_COPY_BYTES = 16;

    /**
     * {@code dst} from {@code dstAt} = {@code bytes} of {@code src} from {@code srcAt}. A buffer's bulk copy calls
     * the JVM's copy stub, which for a few bytes sets up masks and a call around one load and store: on the
     * development VM's AMD cores a rank of a two-rank 8-byte Broadcast spent 19 % of its samples on the stub's
     * masked AVX-512 load and store (perf, JDK 25). Up to {@link #WORD_COPY_BYTES}, words are moved in line instead, in
     * native order on both sides (whatever order the buffers are set to read in), the odd bytes one by one.
     */
    static void copy(ByteBuffer dst, int dstAt, ByteBuffer src, int srcAt, int bytes) {
        if (bytes > WORD_COPY_BYTES) {
            dst.put(dstAt, src, srcAt, bytes);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= bytes; i += Long.BYTES) {
            LONGS.set(dst, dstAt + i, (long) LONGS.get(src, srcAt + i));
        }
        for (; i < bytes; i++) {
            dst.put(dstAt + i, src.get(srcAt + i));
        }
    }

    /** Whether a box call of this rank's still waits for {@link #settle}. */
    boolean unsettled() {
        return unreadFrom != 0;
    }

    /**
     * Reads the peers' boxes of the calls this rank posted without reading them all, in call order, waiting for
     * each, and compares the calls: before this rank waits for every peer in a call of its own, and before it closes.
     */
    void settle(Slots s) {
        settleUpTo(s, calls);
    }

    /** {@link #settle} of the unread calls up to box call {@code last} only. */
    private void settleUpTo(Slots s, long last) {
        while (unreadFrom != 0 && unreadFrom <= last) {
            settleOldest(s);
        }
    }

    /**
     * {@link #settle} of the oldest unread calls whose boxes every peer has posted, without waiting: so that this
     * rank's lag, which its peers read for room, follows theirs.
     */
    private void settleAvailable(Slots s) {
        while (unreadFrom != 0 && everyBoxPosted(unreadFrom, readEarly[boxOf(unreadFrom)])) {
            settleOldest(s);
        }
    }

    private void settleOldest(Slots s) {
        long c = unreadFrom;
        unreadFrom = c < calls ? c + 1 : 0;
        readPeers(s, c, true, readEarly[boxOf(c)]);
    }

    /**
     * A peer that this rank took to leave its box of box call {@code c} unposted may have posted it all the same:
     * its call was another (both ranks took themselves for a broadcast's root, say), or it closed after it. Its box
     * is compared where it holds that call; one that holds an earlier call says nothing (the peer has not got to
     * it, or left it unposted).
     */
    private void compareIfPosted(Slots s, int p, long c) {
        if (posted(p, c) == c) {
            readPeer(s, p, c, true, boxes[rank][boxOf(c)]);
        }
    }

    /**
     * Before this rank closes: its last box call, where it left it unposted, is posted now, and its peers' boxes of
     * every call it left unread are read and compared, that of its last call waited for even where it took the peer
     * to leave it unposted (the peer posts it as it closes). So a disagreement about the last call is not lost, and a
     * peer that never came to it is named.
     */
    void settleBeforeClose(Slots s) {
        if (calls == 0) {
            return;
        }
        int last = boxOf(calls);
        if (held[last] != calls) {
            postLeftUnposted(s);
        }
        if (peerQuiet[last]) { // the peer posts it as it closes: it is read as any box left unread
            peerQuiet[last] = false;
            readEarly[last] = NONE;
        }
        settle(s);
    }

    /** Posts this rank's last box call, which it left unposted, from its record of it. */
    private void postLeftUnposted(Slots s) {
        long c = calls;
        long done = makeRoom(s, c);
        ByteBuffer mine = boxes[rank][boxOf(c)];
        for (int at = HISTORY_AT; at < DATA_AT; at += Long.BYTES) {
            mine.putLong(at, unposted.getLong(at));
        }
        publish(c, done, NONE); // a receiver's call: its root reads it later
    }

    /**
     * Makes this rank's box of box call {@code sequence}, written but for its first word, visible: the call's number
     * and lag (this rank done with box calls up to {@code done}) last, and remembers who reads it in their call.
     */
    private void publish(long sequence, long done, int readBy) {
        int box = boxOf(sequence);
        readers[box] = readBy;
        held[box] = sequence;
        LONGS.setRelease(boxes[rank][box], SEQUENCE_AT, sequence | (sequence - done) << LAG_SHIFT);
    }

    private boolean everyBoxPosted(long c, int skipped) {
        for (int p = 0; p < size; p++) {
            if (p != rank && p != skipped && posted(p, c) < c) {
                return false;
            }
        }
        return true;
    }

    /** The number of the call in {@code peer}'s box of box call {@code c}: below {@code c} until it is posted. */
    private long posted(int peer, long c) {
        return (long) LONGS.getAcquire(boxes[peer][boxOf(c)], SEQUENCE_AT) & NUMBER_MASK;
    }

    /** Box call {@code sequence}'s box. */
    private static int boxOf(long sequence) {
        return (int) ((sequence - 1) & (Layout.BOXES - 1));
    }

    /**
     * Until every peer is done with the call that this rank's box for box call {@code sequence} holds, the last it
     * posted there: known from the boxes last read for most calls. A peer that read the box in its own call is done
     * with it once it has posted a later call; one that read it later says so by its lag, in its box of the first
     * call after that one that it posts or, where it left calls unread, in a box of the last calls before
     * {@code sequence} ({@link #lastCarrier}).
     */
    private void awaitRoom(Slots s, long sequence) {
        long freed = held[boxOf(sequence)];
        if (freed <= 0 || freed < sequence - Layout.BOXES) {
            // nothing posted in the box yet; or this rank left the box's call BOXES back unposted, reading the
            // root's box of it, which told it the root had posted that later call and was done with every call up
            // to BOXES - 1 before it (its lag), which takes in the call the box holds
            return;
        }
        int readBy = readers[boxOf(freed)];
        for (int p = 0; p < size; p++) {
            if (p == rank || peersDone[p] >= freed) {
                continue;
            }
            int peer = p;
            if (readBy == EVERY || readBy == p) {
                if (peersPosted[p] <= freed && !postedAfter(p, freed)) {
                    awaitRoomFrom(s, peer, sequence, () -> postedAfter(peer, freed));
                }
            } else if (!doneWith(p, freed, sequence)) {
                awaitRoomFrom(s, peer, sequence, () -> doneWith(peer, freed, sequence));
            }
        }
    }

    /**
     * Until {@code peer} has left room ({@code done}); where it fails meanwhile, the boxes it may have posted of calls
     * this rank took it to leave unposted are compared first: its failure may be a difference they show here too.
     */
    private void awaitRoomFrom(Slots s, int peer, long sequence, BooleanSupplier done) {
        try {
            waiter.until(() -> peer, done);
        } catch (PeerFailureException e) {
            compareQuietCalls(s, peer, sequence);
            throw e;
        }
    }

    /**
     * Whether {@code peer} has posted a box call after {@code call}, one of this rank's last {@code BOXES}; remembers
     * it.
     */
    private boolean postedAfter(int peer, long call) {
        long first = firstPostedAfter(call);
        long number = posted(peer, first);
        if (number < first) {
            return false;
        }
        checkHolds(peer, first, number);
        peersPosted[peer] = Math.max(peersPosted[peer], number);
        return true;
    }

    /** Whether {@code peer}'s boxes say it is done with box call {@code freed}; remembers what they say. */
    private boolean doneWith(int peer, long freed, long sequence) {
        return saysDone(peer, firstPostedAfter(freed), freed) || saysDone(peer, lastCarrier(sequence), freed);
    }

    /**
     * The first box call after {@code call}, one of this rank's last {@code BOXES}, that the peer posts: the next,
     * but where the peer of two leaves it unposted ({@link #QUIET_PERIOD}: at most {@code QUIET_PERIOD - 1} in a
     * row).
     */
    private long firstPostedAfter(long call) {
        long c = call + 1;
        while (peerQuiet[boxOf(c)]) {
            c++;
        }
        return c;
    }

    /**
     * The box call before {@code sequence} in whose box a peer says, once it has posted it, that it is done with box
     * call {@code sequence - BOXES}: the one just before, its lag being below {@code BOXES}; where the peer of two
     * leaves that one unposted, the last call before it that both ranks post, whose lag is at most
     * {@link #QUIET_PERIOD} ({@link #lagLimit}).
     */
    private long lastCarrier(long sequence) {
        long c = sequence - 1;
        return peerQuiet[boxOf(c)] ? c & -QUIET_PERIOD : c;
    }

    /**
     * Whether {@code peer}'s box of box call {@code c} says it is done with box call {@code freed}: it holds that call
     * or, from a peer far ahead, a later one in the same box (which says at least as much).
     */
    private boolean saysDone(int peer, long c, long freed) {
        long word = (long) LONGS.getAcquire(boxes[peer][boxOf(c)], SEQUENCE_AT);
        long number = word & NUMBER_MASK;
        if (number < c) {
            return false;
        }
        checkHolds(peer, c, number);
        long done = number - (word >>> LAG_SHIFT);
        if (done >= freed) {
            peersDone[peer] = done;
            return true;
        }
        return false;
    }

    /** {@code peer}'s box of box call {@code c} holds only calls {@code c}, {@code c + BOXES}, ...: else it was damaged. */
    private void checkHolds(int peer, long c, long number) {
        if (((number - c) & (Layout.BOXES - 1)) != 0) {
            ProtocolException damage = waiter.damaged(peer);
            throw damage != null ? damage : waiter.corrupt(peer, "its box for box call " + c + " holds box call "
                    + number);
        }
    }

    /**
     * Waits for every peer's box of box call {@code sequence} but {@code skipped}'s (read earlier, or {@link #NONE}),
     * and compares each with this rank's.
     */
    private void readPeers(Slots s, long sequence, boolean earlier, int skipped) {
        for (int p = 0; p < size; p++) {
            if (p != rank && p != skipped) {
                readPeer(s, p, sequence, earlier, boxes[rank][boxOf(sequence)]);
            }
        }
    }

    /**
     * Waits for {@code p}'s box of box call {@code sequence} and compares it with this rank's record of the call,
     * {@code mine}: its box, or where it left its box unposted, {@link #unposted}.
     */
    private void readPeer(Slots s, int p, long sequence, boolean earlier, ByteBuffer mine) {
        int box = boxOf(sequence);
        try {
            awaitBox(p, box, sequence); // the wait compares the peer's record of the call as it goes
        } catch (CollectiveMismatchException e) {
            settleFirst(s, earlier);
            compareQuietCalls(s, p, sequence);
            throw e;
        } catch (PeerFailureException e) {
            compareQuietCalls(s, p, sequence); // it may have failed on a difference these show this rank
            throw e;
        }
        ByteBuffer theirs = boxes[p][box];
        if (!sameCall(theirs, mine)) {
            Signature theirCall = Signature.readFrom(theirs, SIGNATURE_AT);
            long theirHistory = theirs.getLong(HISTORY_AT);
            if (theirCall.equals(Signature.readFrom(mine, SIGNATURE_AT))) {
                settleFirst(s, earlier); // the same call after different ones
                compareQuietCalls(s, p, sequence);
            }
            throw earlier
                    ? s.compareEarlier(p, Signature.readFrom(mine, SIGNATURE_AT), mine.getLong(HISTORY_AT),
                            theirCall, theirHistory)
                    : s.compare(p, theirCall, theirHistory);
        }
    }

    /**
     * Before a disagreement found in a call of this rank's own is thrown: the calls it left unread, if any (their
     * boxes are posted), which throw the difference that came first where one of them holds it (a broadcast whose
     * root the ranks disagree about, found only as their histories differ in the next call).
     */
    private void settleFirst(Slots s, boolean earlier) {
        if (!earlier && unreadFrom != 0) {
            settle(s);
        }
    }

    /**
     * Before a difference in the calls before box call {@code sequence} is thrown: {@code p}'s boxes of the recent
     * calls this rank took it to leave unposted, compared where it posted them all the same, which throws the
     * difference that came first where one holds it (both ranks took themselves for a broadcast's root, say: each
     * posted, each took the other to leave its box unposted, and the calls after it differ only by history). The
     * peer has posted box call {@code sequence}, or entered it, or failed: every box call before it that it posts
     * is posted.
     */
    private void compareQuietCalls(Slots s, int p, long sequence) {
        for (long c = Math.max(1, Math.max(sequence, calls) - Layout.BOXES + 1); c < sequence; c++) {
            if (peerQuiet[boxOf(c)]) {
                compareIfPosted(s, p, c);
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
        long word = (long) LONGS.getAcquire(theirs, SEQUENCE_AT);
        if ((word & NUMBER_MASK) < sequence) {
            waiter.until(() -> peer, () -> ((long) LONGS.getAcquire(theirs, SEQUENCE_AT) & NUMBER_MASK) >= sequence);
            word = (long) LONGS.getAcquire(theirs, SEQUENCE_AT);
        }
        long v = word & NUMBER_MASK;
        if (v == sequence) {
            // what its box says it was done with: room for this rank's later calls, known without another read
            peersDone[peer] = Math.max(peersDone[peer], v - (word >>> LAG_SHIFT));
            peersPosted[peer] = Math.max(peersPosted[peer], v);
        } else {
            // a peer writes this box again only once this rank is done with it: anything else came from another process
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
