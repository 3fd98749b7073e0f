package io.jcoll.trace;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Signature;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A communicator's last calls, for the moment it hangs or fails: a bounded ring, as PyTorch's flight recorder keeps
 * for NCCL. Each call is recorded when issued, marked when it starts and when it ends; on a failure the
 * communicator writes the ring to a file ({@link TraceDump}) and {@code jcoll trace} merges every rank's file into
 * one account of who stopped where.
 *
 * <p>The ring is one array of longs, a row of eight words a call, filled in place: recording a call allocates
 * nothing and writes one row, a cache line or two, on the calling thread (measured in {@code benchmarks/RESULTS.md}).
 * Calls are recorded by the communicator's issuing thread (under its issue lock, or its one thread where it is
 * confined to one); a call's start and end by whichever thread runs or waits for it. The ring holds
 * {@code capacity} calls rounded up to a power of two (a call's slot is then its number's low bits: a division by
 * any other size is a few percent of a small call); {@link #entries} gives the last {@code capacity}. A slot is
 * reused that many calls later, so a call still pending then is dropped: its late start or end finds another call's
 * number in the slot and leaves it alone. {@link #entries} reads without locks, from any thread, while calls
 * run: an entry read as it is rewritten may mix two calls, which a diagnosis of a stopped job can bear.
 */
public final class FlightRecorder {

    /** The ring's size when {@code JCOLL_TRACE_BUFFER} is not set. */
    public static final int DEFAULT_CAPACITY = 2000;

    /** Where a recorded call stands. */
    public enum State {
        /** issued, waiting behind earlier calls */
        ISSUED,
        /** running on the transport (or enqueued on a GPU stream) */
        STARTED,
        /** finished without an error on this rank */
        COMPLETED,
        /** ended with an error on this rank */
        FAILED;

        /** The name in trace files. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One recorded call.
     *
     * @param id          this communicator's call number (0 for its first call)
     * @param signature   what the call is, as ranks compare it (operation, type, op, root, count, sequence)
     * @param peer        the peer of a send or recv, else -1
     * @param bytes       what this rank sends, in bytes
     * @param algorithm   how the transport runs it, or null where the transport (NCCL, MPI) decides inside
     * @param state       where it stands
     * @param issuedNanos {@link System#nanoTime} at issue; started and ended are 0 until then, and ended stays 0
     *                    for a small call that completed ({@link #UNTIMED_BYTES})
     */
    public record Entry(long id, Signature signature, int peer, long bytes, String algorithm, State state,
                        long issuedNanos, long startedNanos, long endedNanos) {

        /** The operation, or null for an ordinal this version does not know. */
        public Operation operation() {
            int op = signature.operation();
            return op >= 0 && op < Operation.values().length ? Operation.values()[op] : null;
        }
    }

    /**
     * A call that moves at most this many bytes a rank and completes is recorded without its end time, as ended
     * with no time ({@link Entry#endedNanos} 0). A clock read is 24-44 ns on the hosts measured, a tenth of a small
     * shared-memory call; what a hang's record needs of such a call is that it ended, and its issue and start are
     * still timed (one read serves both). Failed calls, groups and larger calls are timed.
     */
    public static final long UNTIMED_BYTES = 64 * 1024;

    // A row's words. The call's small fields share one word, each in its own byte but the root (or a send's or
    // recv's peer), which takes the high half; its state, rewritten as the call starts and ends, is one of the bytes.
    private static final int ID = 0;        // the call's number; -1 while the row is rewritten
    private static final int FIELDS = 1;    // operation, type, reduce op + 1, state, root
    private static final int COUNT = 2;
    private static final int SEQUENCE = 3;
    private static final int BYTES = 4;
    private static final int ISSUED = 5;
    private static final int STARTED = 6;
    private static final int ENDED = 7;
    /** Words a row: 64 bytes, where the columns this replaced (one array a field) touched eleven lines a call. */
    private static final int ROW = 8;
    private static final int STATE_SHIFT = 24;
    private static final long STATE_MASK = 0xFFL << STATE_SHIFT;

    private final int capacity;
    private final int slotMask; // the ring's size less one: a power of two, at least capacity
    private final long[] rows;
    private final String[] algorithms; // a row's algorithm: a reference, kept beside the rows
    private long next;                  // the next call's number; written by the issuing thread only
    @SuppressWarnings("unused")         // through PUBLISHED: a release store, no fence on the calling thread
    private long published;             // calls recorded, for readers on other threads

    private static final java.lang.invoke.VarHandle PUBLISHED;

    static {
        try {
            PUBLISHED = java.lang.invoke.MethodHandles.lookup().findVarHandle(FlightRecorder.class, "published",
                    long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @param capacity calls kept; 0 records nothing */
    public FlightRecorder(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("a flight recorder of " + capacity + " calls");
        }
        if (capacity > 1 << 30) {
            throw new IllegalArgumentException("a flight recorder of " + capacity + " calls (2^30 at most)");
        }
        this.capacity = capacity;
        int ring = capacity <= 1 ? capacity : Integer.highestOneBit(capacity - 1) << 1;
        this.slotMask = ring - 1;
        rows = new long[ring * ROW];
        for (int slot = 0; slot < ring; slot++) {
            rows[slot * ROW + ID] = -1;
        }
        algorithms = new String[ring];
    }

    /** Where call {@code id}'s entry lies: its index in {@link #algorithms}; its row starts at ROW times that. */
    private int slot(long id) {
        return (int) id & slotMask;
    }

    /** Calls kept; 0 when recording is off. */
    public int capacity() {
        return capacity;
    }

    /** Calls recorded since the communicator was formed (more than {@link #capacity} once the ring has wrapped). */
    public long recorded() {
        return (long) PUBLISHED.getAcquire(this);
    }

    /**
     * Records an issued call: a group as each of its calls, in order.
     *
     * @param call      the validated call
     * @param algorithm how the transport will run a call (null values are kept as "decided by the transport")
     * @return the number of the call's first entry, to pass to {@link #started} and {@link #ended}; -1 when off
     */
    public long issued(Call call, Function<Call, String> algorithm) {
        return issued(call, algorithm, System.nanoTime());
    }

    /** {@link #issued(Call, Function)} at {@code now}, a {@link System#nanoTime} the caller read (and reuses). */
    public long issued(Call call, Function<Call, String> algorithm, long now) {
        return record(call, algorithm, now, State.ISSUED);
    }

    /**
     * Records a call that starts as it is issued, at {@code now} (0: not timed): issued and started in one row's
     * writes, for a call that runs inline on its issuing thread with nothing to wait for first.
     *
     * @return as {@link #issued(Call, Function)}
     */
    public long issuedStarted(Call call, Function<Call, String> algorithm, long now) {
        return record(call, algorithm, now, State.STARTED);
    }

    private long record(Call call, Function<Call, String> algorithm, long now, State state) {
        if (capacity == 0) {
            return -1;
        }
        long first = next;
        if (call.members().isEmpty()) {
            put(call, algorithm.apply(call), now, state);
        } else {
            for (Call member : call.members()) {
                put(member, algorithm.apply(member), now, state);
            }
        }
        PUBLISHED.setRelease(this, next);
        return first;
    }

    private void put(Call call, String algorithm, long now, State state) {
        long id = next++;
        int slot = slot(id);
        int row = slot * ROW;
        long[] r = rows;
        r[row + ID] = -1; // while the row is rewritten, a reader on another thread passes over it
        Operation op = call.operation();
        int reduceOp = call.reduceOp() == null ? -1 : call.reduceOp().ordinal();
        r[row + FIELDS] = op.ordinal() | call.type().ordinal() << 8 | (reduceOp + 1) << 16
                | (long) state.ordinal() << STATE_SHIFT | (long) call.root() << 32;
        // an uneven all-to-all's count differs by peer: its signature holds none, and the entry its own share
        r[row + COUNT] = op == Operation.ALL_TO_ALL_V ? 0 : call.count();
        r[row + SEQUENCE] = call.sequence();
        r[row + BYTES] = bytes(call);
        r[row + ISSUED] = now;
        r[row + STARTED] = state == State.STARTED ? now : 0;
        r[row + ENDED] = 0;
        if (algorithms[slot] != algorithm) { // a loop's calls share one: no reference store, and its barrier, each
            algorithms[slot] = algorithm;
        }
        r[row + ID] = id;
    }

    /** Marks {@code calls} entries from {@code first} (one call, or a group's) as started now. */
    public void started(long first, int calls) {
        started(first, calls, System.nanoTime());
    }

    /** {@link #started(long, int)} at {@code now}, a {@link System#nanoTime} the caller read. */
    public void started(long first, int calls, long now) {
        if (first >= 0) {
            mark(first, calls, State.STARTED, STARTED, now);
        }
    }

    /**
     * Marks {@code calls} entries from {@code first} as ended now, completed or failed: with the time, but for a
     * small call that completed ({@link #UNTIMED_BYTES}).
     */
    public void ended(long first, int calls, boolean completed) {
        if (first >= 0) {
            boolean timed = !completed || calls > 1 || rows[slot(first) * ROW + BYTES] > UNTIMED_BYTES;
            mark(first, calls, completed ? State.COMPLETED : State.FAILED, ENDED, timed ? System.nanoTime() : 0);
        }
    }

    /** Marks entries from {@code first} (not -1: the recorder is on), where they still hold those calls. */
    private void mark(long first, int calls, State state, int time, long now) {
        long[] r = rows;
        for (long id = first; id < first + calls; id++) {
            int row = slot(id) * ROW;
            long fields = r[row + FIELDS];
            if (r[row + ID] == id && state(fields) < State.COMPLETED.ordinal()) {
                r[row + time] = now;
                r[row + FIELDS] = fields & ~STATE_MASK | (long) state.ordinal() << STATE_SHIFT;
            }
        }
    }

    private static int state(long fields) {
        return (int) (fields >>> STATE_SHIFT) & 0xFF;
    }

    /** The kept entries, oldest first. */
    public List<Entry> entries() {
        long end = recorded();
        Operation[] ops = Operation.values();
        List<Entry> out = new ArrayList<>((int) Math.min(end, capacity));
        for (long id = Math.max(0, end - capacity); id < end; id++) {
            int slot = slot(id);
            int row = slot * ROW;
            if (rows[row + ID] != id) {
                continue; // being rewritten, or past
            }
            long fields = rows[row + FIELDS];
            Operation op = ops[(int) fields & 0xFF];
            int root = (int) (fields >>> 32);
            Signature s = new Signature(op.ordinal(), (int) (fields >>> 8) & 0xFF, ((int) (fields >>> 16) & 0xFF) - 1,
                    op.isRooted() ? root : -1, rows[row + COUNT], rows[row + SEQUENCE]);
            boolean p2p = !op.isCollective();
            out.add(new Entry(id, s, p2p ? root : -1, rows[row + BYTES], algorithms[slot],
                    State.values()[state(fields)], rows[row + ISSUED], rows[row + STARTED], rows[row + ENDED]));
        }
        return out;
    }

    /**
     * What a call sends from this rank, in bytes, as the recorder and JFR events report it: the message (a rank's
     * block for allGather and the like), an uneven all-to-all's whole send layout, a group's calls summed.
     */
    public static long bytes(Call call) {
        if (!call.members().isEmpty()) {
            return call.members().stream().mapToLong(FlightRecorder::bytes).sum();
        }
        return call.operation() == Operation.ALL_TO_ALL_V ? call.vectors().sendExtent() * call.type().size()
                : call.bytes();
    }

    /**
     * Whether {@code call} is small: one call (not a group) of at most {@link #UNTIMED_BYTES}. Its end is recorded
     * without a time when it completes; where it runs as soon as it is issued, on a transport that times its waits
     * from the first that blocks, its issue and start too.
     */
    public static boolean isSmall(Call call) {
        return call.members().isEmpty() && bytes(call) <= UNTIMED_BYTES;
    }

    /** Entries of a call: 1, or the calls of a group. */
    public static int calls(Call call) {
        return call.members().isEmpty() ? 1 : call.members().size();
    }

    /** {@link DataType} and {@link ReduceOp} names, as the trace files write them. */
    static String typeName(int ordinal) {
        return ordinal >= 0 && ordinal < DataType.values().length ? DataType.values()[ordinal].toString()
                : "type " + ordinal;
    }

    static String reduceOpName(int ordinal) {
        return ordinal >= 0 && ordinal < ReduceOp.values().length ? ReduceOp.values()[ordinal].toString() : null;
    }
}
