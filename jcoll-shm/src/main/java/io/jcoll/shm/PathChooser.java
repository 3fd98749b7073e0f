package io.jcoll.shm;

import io.jcoll.probe.Limits;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;

import java.util.Locale;

/**
 * Which way a large call goes where both can take it, single copy ({@link SingleCopy}: the kernel copies each byte
 * out of the peer's memory) or the slots (two copies through the segment), picked from their recent times on this
 * host. Neither is faster everywhere, nor on one host all the time: on the 2-vCPU VM, 2 ranks, the slots took
 * 0.56-0.88x Open MPI's time at every gather, all-to-all and broadcast of 128 KB-32 MB in one run and 1.13-3.58x in
 * the next, as the host moved between its states (a cache line handed between the vCPUs in 75-130 ns or in about
 * 450), where single copy took 0.94-1.17x at most points in both (benchmarks/RESULTS.md, 2026-11-30).
 *
 * <p>One rank decides (rank 0 of the communicator, so that every rank takes the same way without another word: it
 * publishes its choice with its input's address, {@link SingleCopy#run}). It keeps, for each kind of call
 * (operation, in place or not, size to within a factor of two), each way's latest {@link #KEPT} times per byte, a
 * call timed from its start to the next call's start on rank 0 ({@link #started}), and keeps to its way until the
 * median of the other's is {@link #MARGIN} below the median of its own. It takes each way for {@link #RUN} calls
 * first, then tries the other for {@link #RUN} calls {@link #FIRST_GAP} calls after its first choice and again at
 * gaps that double up to {@link #TRY_OTHER_EVERY} calls (more where the other took so long that its tries would
 * cost more than {@link #TRY_SHARE} of the time, {@link #gapLimit}): early tries mend a first choice that a size's
 * first calls misled (pages touched for the first time: 8 ranks' 16 MB all-to-alls kept the slots at 0.54-0.60x Open
 * MPI's time where single copy took 0.25-0.35x, tried every 256th call only), later ones cost little. A change of way
 * starts the gaps again: the times that made it may have been a passing slow stretch of the way left (at 128 KB, eight
 * calls of 11 us: a two-rank all-reduce on the VM kept reading, 1.6x the slots' time, until its next try up to 256
 * calls on). In runs, as the first call after a change of way pays for the change (the lines of the buffers and the
 * segment lie where the other way left them): tried one call at a time, the way that came first was kept, right or not
 * (benchmarks/results/dev-2026-11-30-path-chooser). The median leaves out that call and others slowed by something
 * else (a pause of the collector, a compilation), and rises within {@link #KEPT} calls on a host that turns slow;
 * the least time took the slots on a lucky call.
 *
 * <p>The first choice of each kind of call, each change of way and each try are logged at {@code DEBUG} (logger
 * {@code io.jcoll.shm.PathChooser}) with the medians that made them: once settled, a line every few hundred calls of
 * a kind, to tell whether a slow size kept the wrong way or a host that changed made it change.
 */
final class PathChooser {

    private static final System.Logger LOG = System.getLogger(PathChooser.class.getName());

    /** What rank 0 picked for a call and published with its input ({@link Control#pick}). */
    enum Pick {
        /** Nothing: the call goes as the sizes say. */
        NONE,
        /** The slots. */
        SLOTS,
        /** Single copy: the ranks read their peers (a two-rank all-reduce on ordinary buffers, each the whole). */
        READ;

        private static final Pick[] ALL = values();

        /** The pick a published word holds ({@link #ordinal}); {@link #NONE} for any other word. */
        static Pick of(long word) {
            return word >= 0 && word < ALL.length ? ALL[(int) word] : NONE;
        }
    }

    static final int TRY_OTHER_EVERY = 256;
    /**
     * At most this share of a kind's calls' time goes to tries of the slower way, as the latest medians see it:
     * the gap grows past {@link #TRY_OTHER_EVERY} to keep it so ({@link #gapLimit}). A way ten or thirty times as
     * slow is no rarity here: the slots at 128 KB in the 2-vCPU VM's slow state.
     */
    static final double TRY_SHARE = 1.0 / 32;
    /** Times a way keeps per kind of call: its estimate is their median. */
    static final int KEPT = 8;
    /** Calls of the other way in a row when it is tried: the first after a change pays for it. */
    static final int RUN = KEPT;
    /** Calls from the first choice to the first try; the gap doubles with every try up to its limit. */
    static final int FIRST_GAP = 4 * RUN;
    /** How much faster the other way must have been to be taken: each change costs a call. */
    static final double MARGIN = 0.1;
    private static final int SINGLE_COPY = 0;
    private static final int SLOTS = 1;
    static final int SIZES = 64; // by the bit length of a call's bytes: sizeClass
    private static final int KINDS = Operation.values().length * 2 * SIZES;

    private final Kind[] kinds = new Kind[KINDS];
    private Kind pending;          // the call started last, until the next one starts ({@link #started})
    private boolean pendingSlots;
    private long pendingBytes;
    private long pendingStart;

    /**
     * One kind of call's latest times per byte, {@link #KEPT} a way, and their medians; its way, and how many calls
     * it has seen.
     */
    private static final class Kind {
        final double[][] times = new double[2][KEPT]; // 0: none yet
        final double[] median = new double[2];        // 0 until a way has KEPT times
        final int[] next = new int[2];
        final double[] sorted = new double[KEPT];     // keep's own: no array made per call
        int way = SINGLE_COPY;
        long calls;
        long nextTry;     // the call at which the other way's next try begins; 0 until the first choice
        long gap;         // calls from the start of the latest try to the next
        int tryLeft;      // calls of the current try still to go

        /** Keeps {@code time} of {@code way}, in place of its oldest, and its median: once a call, not per choice. */
        void keep(int way, double time) {
            times[way][next[way]] = time;
            next[way] = (next[way] + 1) % KEPT;
            System.arraycopy(times[way], 0, sorted, 0, KEPT);
            java.util.Arrays.sort(sorted);
            median[way] = sorted[0] == 0 ? 0 : (sorted[KEPT / 2 - 1] + sorted[KEPT / 2]) / 2;
        }
    }

    /** Whether {@code call}, one that both ways can take, goes through the slots. */
    boolean slotsNext(Call call) {
        Kind kind = kind(call);
        long n = kind.calls++;
        if (n < 2 * RUN) {
            return n >= RUN; // a run of each way before any choice, single copy first
        }
        if (kind.tryLeft > 0) { // a try runs whole, whatever its first calls took
            kind.tryLeft--;
            return kind.way != SLOTS;
        }
        double mine = kind.median[kind.way];
        double other = kind.median[1 - kind.way];
        boolean first = kind.nextTry == 0;
        boolean change = other > 0 && other < mine * (1 - MARGIN);
        if (change) {
            kind.way = 1 - kind.way;
            if (!first) { // the way left is tried again soon: its times may have been an unlucky stretch
                kind.gap = FIRST_GAP;
                kind.nextTry = n + FIRST_GAP;
            }
        }
        if (first) {
            kind.gap = FIRST_GAP;
            kind.nextTry = n + FIRST_GAP;
        }
        if (change || first) {
            log(call, kind, n, change ? "takes" : "keeps", kind.way, change ? other : mine, change ? mine : other);
        }
        if (n < kind.nextTry) {
            return kind.way == SLOTS;
        }
        double slower = Math.max(mine, other) / Math.min(mine, other);
        kind.gap = Math.min(2 * kind.gap, gapLimit(slower));
        kind.nextTry = n + kind.gap;
        kind.tryLeft = RUN - 1;
        log(call, kind, n, "tries", 1 - kind.way, other, mine);
        return kind.way != SLOTS;
    }

    /**
     * One line for the log where the kind of {@code call}, at its {@code n}-th call, {@code takes}, {@code keeps} (its
     * first choice) or {@code tries} {@code way}: that way's median time per byte and the other's (0: none yet), and
     * the call at which the next try begins. The kind is named by the call's operation, whether it is in place, and
     * the range of counts (in bytes) its size class covers.
     */
    private static void log(Call call, Kind kind, long n, String verb, int way, double wayMedian, double otherMedian) {
        if (!LOG.isLoggable(System.Logger.Level.DEBUG)) {
            return;
        }
        int size = sizeClass(call);
        long low = size == 0 ? 0 : 1L << (size - 1);
        LOG.log(System.Logger.Level.DEBUG, String.format(Locale.ROOT,
                "%s %s, counts of %s to under %s, call %d: %s %s (%s %.1f us/MB, %s %.1f; next try at call %d)",
                call.operation().label(), call.inPlace() ? "in place" : "out of place", Limits.describe(low),
                Limits.describe(2 * Math.max(1, low)), n, verb, name(way), name(way), wayMedian * (1 << 20) / 1e3,
                name(1 - way), otherMedian * (1 << 20) / 1e3, kind.nextTry));
    }

    private static String name(int way) {
        return way == SLOTS ? "the slots" : "reading";
    }

    /**
     * The longest gap between tries where the slower way takes {@code slower} times the faster's: each try costs
     * {@link #RUN} calls of {@code slower - 1} calls' time more, kept to {@link #TRY_SHARE} of the gap's.
     */
    static long gapLimit(double slower) {
        return Math.max(TRY_OTHER_EVERY, (long) Math.ceil(RUN * (slower - 1) / TRY_SHARE));
    }

    /**
     * That {@code call} starts now ({@code startNanos}) and goes the way given; the call started before it, whatever
     * its kind, is timed to here. A call's time is the time from its start to the next call's start: where the ranks
     * pipeline calls (the slots let a rank begin its next call while its peers still read what it sent) that is
     * what a call costs, where its own end would count a part of its peers' calls twice.
     */
    void started(Call call, boolean slots, long startNanos) {
        if (pending != null && startNanos > pendingStart) {
            record(pending, pendingSlots, pendingBytes, startNanos - pendingStart);
        }
        pending = kind(call);
        pendingSlots = slots;
        pendingBytes = bytes(call);
        pendingStart = startNanos;
    }

    /** What {@code call} took, {@code nanos} from its start to its end, the way it went. */
    void record(Call call, boolean slots, long nanos) {
        record(kind(call), slots, bytes(call), nanos);
    }

    private static void record(Kind kind, boolean slots, long bytes, long nanos) {
        kind.keep(slots ? SLOTS : SINGLE_COPY, Math.max(1, nanos) / (double) Math.max(1, bytes));
    }

    private Kind kind(Call call) {
        int index = (call.operation().ordinal() * 2 + (call.inPlace() ? 1 : 0)) * SIZES + sizeClass(call);
        Kind kind = kinds[index];
        if (kind == null) {
            kind = new Kind();
            kinds[index] = kind;
        }
        return kind;
    }

    /** The bit length of the call's count in bytes (a block where it has blocks): calls within 2x share it. */
    private static int sizeClass(Call call) {
        return sizeClass(bytes(call));
    }

    /** The bit length of {@code bytes}, below {@link #SIZES}: sizes within 2x share it. */
    static int sizeClass(long bytes) {
        return Math.min(SIZES - 1, 64 - Long.numberOfLeadingZeros(bytes));
    }

    private static long bytes(Call call) {
        return call.count() * call.type().size();
    }
}
