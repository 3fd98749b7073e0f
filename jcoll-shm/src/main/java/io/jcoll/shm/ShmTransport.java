package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.NetworkReport;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.spi.Call;
import io.jcoll.spi.HostMemory;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Signature;
import io.jcoll.spi.Settings;
import io.jcoll.spi.SplitRequest;
import io.jcoll.spi.StagedAccess;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.tcp.algorithm.AlgorithmContext;
import io.jcoll.tcp.algorithm.Collectives;
import io.jcoll.tcp.algorithm.PointToPointBatch;
import io.jcoll.tcp.algorithm.Scratch;
import io.jcoll.tcp.algorithm.Tuning;

import java.time.Duration;
import java.util.List;

/**
 * The shared-memory transport: collectives of up to a few kilobytes in one exchange of every rank's box
 * ({@link SmallCollectives}), larger ones through every rank's slots in one segment (large all-to-alls and gathers
 * read straight from the senders' buffers where the ranks may: {@link SingleCopy}), point-to-point messages through
 * its rings, progressed by the calling thread. Opened by {@link SegmentSetup}.
 */
final class ShmTransport implements Transport {

    /** Messages per rank up to this size are all-reduced in one step (JCOLL_SHM_ONE_STEP). */
    static final int DEFAULT_ONE_STEP_BYTES = 16 << 10;
    static final Duration DEFAULT_SPIN = Duration.ofNanos(200_000);
    /**
     * Most and fewest members of a rank's crew under {@code auto}: past four, the shares of one 256 KB slot grow
     * small; below three (8 ranks on 16 cores, crews of 2 and every core taken), 11 of 20 ops and sizes ran slower
     * than alone, against 1.3-3.6x faster at 37 of 40 at 2 and 4 ranks with crews of 4 (benchmarks/RESULTS.md).
     * Since late helpers' pieces go to the caller, crews of 2 there win on a quiet host (0.46-1.07x alone's time)
     * but lose beside four busy processes (AllReduce 1.37-1.98x), so the floor stays.
     */
    static final int MAX_AUTO_CREW = 4;
    static final int MIN_AUTO_CREW = 3;
    /** Bytes below which a crew member's share of a copy is not worth waking it for (JCOLL_SHM_SHARE_MIN). */
    static final int DEFAULT_SHARE_MIN_BYTES = 32 << 10;

    private final TransportContext context;
    private final Segment segment;
    private final Control control;
    private final Waiter waiter;
    private final Slots slots;
    private final Boxes boxes;
    private final int boxBytes;
    private final Crew crew;
    private final PairRings rings;
    private final AlgorithmContext pointToPoint;
    private final int oneStepBytes;
    private final String stagesDescription;
    private final SingleCopy.Offer singleCopyOffer;
    private SingleCopy singleCopy;       // these two once the ranks agree (open)
    private NetworkReport network;
    private long history;
    private boolean closed;

    private ShmTransport(TransportContext context, Segment segment) {
        this.context = context;
        this.segment = segment;
        Layout layout = segment.layout();
        this.control = new Control(segment.buffer(), layout);
        boolean oversubscribed = context.localSize() > Runtime.getRuntime().availableProcessors();
        this.waiter = new Waiter(context.rank(), control, segment,
                context.settings().getDuration("JCOLL_SHM_SPIN", DEFAULT_SPIN).toNanos(), oversubscribed,
                context.timeout().toNanos());
        HostMemory stages = HostMemory.pinnedOrDirect();
        this.crew = new Crew("jcoll-shm-crew-r" + context.rank(), crewSize(context.settings(), context.localSize(),
                Runtime.getRuntime().availableProcessors()), PendingFault::raise);
        this.slots = new Slots(context.rank(), layout, segment.buffer(), control, waiter, stages, crew,
                (int) context.settings().getBytes("JCOLL_SHM_SHARE_MIN", DEFAULT_SHARE_MIN_BYTES));
        this.boxes = new Boxes(context.rank(), layout, segment.buffer(), waiter);
        this.boxBytes = boxBytes(context.settings());
        this.rings = new PairRings(context.rank(), layout, segment.buffer(), waiter);
        Tuning tuning = Tuning.from(context.settings());
        this.pointToPoint = new AlgorithmContext(rings, new Scratch(tuning.segmentBytes(), stages), tuning);
        this.oneStepBytes = (int) context.settings().getBytes("JCOLL_SHM_ONE_STEP", DEFAULT_ONE_STEP_BYTES);
        this.stagesDescription = stages.describe();
        this.singleCopyOffer = SingleCopy.offer(context.settings(), control, context.rank(), crew.size());
        control.claim(context.rank(), ProcessHandle.current().pid());
    }

    private NetworkReport report(String singleCopyState) {
        Layout layout = segment.layout();
        return new NetworkReport("shared memory among the " + layout.size() + " ranks of this host: "
                + "one segment of " + (layout.totalBytes() >> 10) + " KiB (" + layout.slots() + " slots of "
                + (layout.slotBytes() >> 10) + " KiB per rank, rings of " + (layout.ringBytes() >> 10)
                + " KiB per pair), unlinked once mapped; " + singleCopyState + "; " + (crew.size() == 1
                ? "each rank copies alone" : "each rank's large copies shared by " + crew.size() + " threads")
                + "; stages in " + stagesDescription + " host memory",
                List.of("SHM"), null, List.of(segment.path().getParent().toString()), null,
                CopyAdvice.forThisJvm().stream().toList(), "jcoll's shm transport");
    }

    /** Whether large moves read the peers' buffers directly: every rank says what it found, and all agree. */
    private void agreeOnSingleCopy() {
        singleCopy = singleCopyOffer.agree(control, slots, waiter, segment.layout().size());
        network = report(singleCopy.describe());
    }

    /**
     * Threads that share each of this rank's large copies, itself included (JCOLL_SHM_THREADS: a number, or
     * {@code auto}, the default: the host's cores but one divided among its ranks, at most {@link #MAX_AUTO_CREW},
     * and none below {@link #MIN_AUTO_CREW}). The core left over is for the JIT, the collector and the system: with
     * every core taken by a spinning crew, a thread descheduled for a tick stalls every rank (8 ranks on 32 cores,
     * crews of 4: single 1-4 MB calls of 6-11 ms, AllGather at 1 MB 5.3x alone's time; crews of 3: 0.57-1.02x alone's
     * time for AllGather and AllReduce at 1-64 MB, benchmarks/RESULTS.md).
     */
    static int crewSize(Settings settings, int localRanks, int cores) {
        String value = settings.get("JCOLL_SHM_THREADS").orElse("auto");
        if (value.equals("auto")) {
            int perRank = (cores - 1) / Math.max(1, localRanks);
            return perRank < MIN_AUTO_CREW ? 1 : Math.min(MAX_AUTO_CREW, perRank);
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= 64) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException("JCOLL_SHM_THREADS must be auto or a number of threads from 1 to 64 (was "
                + value + ")");
    }

    /** Whether this process's ranks get crews ({@link #crewSize} above one), among {@code localRanks} on this host. */
    static boolean crewed(Settings settings, int localRanks) {
        return crewSize(settings, localRanks, Runtime.getRuntime().availableProcessors()) > 1;
    }

    /**
     * The largest call (bytes the rank that posts most posts) that goes through {@link Boxes} (JCOLL_SHM_BOX: up to
     * {@link Boxes#CAPACITY}, the default; 0 sends every call through the slots).
     */
    static int boxBytes(Settings settings) {
        long bytes = settings.getBytes("JCOLL_SHM_BOX", Boxes.CAPACITY);
        if (bytes < 0 || bytes > Boxes.CAPACITY) {
            throw new IllegalArgumentException("JCOLL_SHM_BOX must be from 0 to " + Boxes.CAPACITY + " bytes (was "
                    + bytes + ")");
        }
        return (int) bytes;
    }

    /** Opens the segment for {@code context}'s group; see {@link SegmentSetup}. */
    static ShmTransport open(TransportContext context) {
        Segment segment = SegmentSetup.join(context);
        ShmTransport transport;
        try {
            transport = new ShmTransport(context, segment);
        } catch (RuntimeException e) {
            segment.close();
            throw e;
        }
        try {
            // every rank has claimed its block before any call can wait on it
            transport.waiter.begin(null, System.nanoTime() + context.timeout().toNanos());
            transport.slots.publish();
            transport.waiter.awaitAll(1);
            transport.agreeOnSingleCopy();
            SegmentSetup.forget(context);
        } catch (JcollException e) {
            transport.abort(e);
            transport.segment.close();
            throw e;
        }
        return transport;
    }

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public NetworkReport network() {
        return network;
    }

    /** Yes: every wait watches each peer's process and state. */
    @Override
    public boolean detectsDeadPeers() {
        return true;
    }

    /** Yes: ranks compare each collective's recorded signature before reading each other's slots. */
    @Override
    public boolean checksSignatures() {
        return true;
    }

    @Override
    public String unsupportedReason(Buffer buffer) {
        return buffer instanceof StagedAccess ? null
                : "it can reach only buffers that offer staged access (host buffers, jcoll device buffers)";
    }

    /** Its waits read the clock once they have spun a while ({@link Waiter#until}), and it knows the timeout. */
    @Override
    public boolean timesFromFirstWait() {
        return true;
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        waiter.begin(call, deadlineNanos);
        try {
            run(call, deadlineNanos);
            PendingFault.raise(); // a fault this call left pending on JDK 17 is raised here, where it is caught below
        } catch (InternalError | RuntimeException e) {
            throw onSegment(call.operation().label(), call, e);
        }
    }

    /**
     * What to throw for {@code failure} of work on the segment ({@code call}'s, or null where it is no call's, for
     * messages): what damage done to the segment by another process made of it, as a clear exception.
     */
    private RuntimeException onSegment(String operation, Call call, Throwable failure) {
        if (failure instanceof InternalError e) {
            ProtocolException clear = truncated(operation, call, e);
            PendingFault.drop(); // a second fault of the same damage
            return clear;
        }
        RuntimeException e = (RuntimeException) failure;
        if (e instanceof JcollException) {
            PendingFault.drop();
            return e;
        }
        // values read from pages cut off by truncation are whatever the faulting loads left (a slot index of -1,
        // say): where the segment is damaged, that is the failure to report
        String damage = segment.damage();
        PendingFault.drop();
        return damage == null ? e
                : new ProtocolException(operation, context.rank(), JcollException.NONE, damage + during(call), e);
    }

    private static String during(Call call) {
        return call == null ? " while closing" : " during " + call.describe();
    }

    /**
     * A SIGBUS from a page of the segment that another process cut off. The JVM turns it into this error, raised
     * at the faulting thread's next safepoint poll, usually inside the call, so it is turned into a clear exception
     * here.
     */
    private ProtocolException truncated(String operation, Call call, InternalError e) {
        String damage;
        try {
            damage = segment.damage();
            if (damage == null && singleCopy != null) {
                damage = singleCopy.sharedDamage(); // a shared allocation read through a mapping, a peer's or its own
            }
        } catch (InternalError again) {
            damage = null;
        }
        return new ProtocolException(operation, context.rank(), JcollException.NONE,
                (damage != null ? damage : "a fault occurred reading the shared segment " + segment.path()
                        + " (another process truncated or replaced it)") + during(call), e);
    }

    private void run(Call call, long deadlineNanos) {
        switch (call.operation()) {
            case GROUP -> {
                runGroup(call, deadlineNanos);
                return;
            }
            case SEND, RECV -> {
                rings.begin(Signature.of(call), history, null, null);
                Collectives.run(pointToPoint, call);
                return;
            }
            default -> {
            }
        }
        // the call's signature is written from the call itself, object-free on a small call's path
        slots.begin(call, history, call.send(), call.recv());
        if (SmallCollectives.fits(call, slots.size(), boxBytes)) {
            SmallCollectives.run(boxes, slots, call, history);
        } else {
            boxes.settle(slots); // box calls this rank left unread are compared before it waits in the slots
            runThroughSlots(call);
        }
        history = Signature.foldInto(call, history);
    }

    /** A collective too large for the boxes (or one they do not take), chunk by chunk through the slots. */
    private void runThroughSlots(Call call) {
        if (singleCopy.covers(call) && singleCopy.run(slots, call)) {
            return;
        }
        switch (call.operation()) {
            case ALL_REDUCE -> ShmAllReduce.run(slots, call, -1, oneStepBytes);
            case REDUCE -> ShmAllReduce.run(slots, call, call.root(), oneStepBytes);
            case REDUCE_SCATTER -> ShmReduceScatter.run(slots, call);
            case ALL_GATHER, SPLIT -> ShmAllGather.run(slots, call, -1);
            case GATHER -> ShmAllGather.run(slots, call, call.root());
            case ALL_TO_ALL -> ShmAllToAll.run(slots, call);
            case BROADCAST -> ShmBroadcast.broadcast(slots, call);
            case SCATTER -> ShmBroadcast.scatter(slots, call);
            case BARRIER -> {
                slots.publish();
                slots.awaitAll();
            }
            case ALL_TO_ALL_V -> {
                io.jcoll.spi.Vectors v = call.vectors();
                rings.begin(Signature.of(call), history, v.sendCounts(), v.recvCounts());
                Collectives.run(pointToPoint, call);
            }
            default -> throw new IllegalArgumentException("unknown operation " + call.operation());
        }
    }

    /** A group: its sends and receives posted at once (no order of them can deadlock), then its collectives. */
    private void runGroup(Call group, long deadlineNanos) {
        PointToPointBatch.runSendsAndReceives(pointToPoint, group, c -> rings.begin(Signature.of(c), history, null, null));
        for (Call c : group.members()) {
            if (c.operation().isCollective()) {
                waiter.begin(c, deadlineNanos);
                run(c, deadlineNanos);
            }
        }
    }

    /** A sub-group gets a segment of its own, formed among its members through the store under the split's scope. */
    @Override
    public Transport split(SplitRequest request) {
        if (!request.included()) {
            return null;
        }
        return open(context.forGroup(request));
    }

    /** From another thread while a call runs: that call's wait fails at once, and the peers learn why. */
    @Override
    public void interrupt(Throwable cause) {
        waiter.interrupt(cause);
        leave(Control.ABORTED, cause);
    }

    /** Writes this rank's state for its peers; a segment cut short by another process cannot take it. */
    private void leave(int state, Throwable cause) {
        int culprit = cause instanceof JcollException j && j.peer() != context.rank() && j.peer() < context.size()
                ? j.peer() : -1;
        try {
            if (segment.damage() == null) {
                control.leave(context.rank(), state, reason(cause), culprit);
            }
        } catch (InternalError e) {
            // the page went in between: the peers find the segment damaged themselves
        }
        PendingFault.drop(); // a write to a page cut off in between faults later: here, not in the caller
    }

    /** What peers quote of {@code cause}: a jcoll failure's message says what it is; anything else, its type too. */
    private static String reason(Throwable cause) {
        if (cause == null) {
            return "closed";
        }
        return cause instanceof JcollException && cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /**
     * Tells the peers and stops. The file is closed but the mapping is left to the collector rather than unmapped
     * here: a thread of the failed call might, in a caller's bug, still touch it, and a touch of an unmapped page
     * would crash the JVM.
     */
    @Override
    public void abort(Throwable cause) {
        if (closed) {
            return;
        }
        closed = true;
        waiter.interrupt(cause);
        leave(Control.ABORTED, cause);
        crew.close();
        slots.release();
        segment.closeDescriptor();
        if (singleCopy != null) {
            singleCopy.close();
        }
    }

    /**
     * Leaves; a box call this rank finished without its peers (a small broadcast's root, say) is first compared
     * with theirs, so that a disagreement about the last call is not lost: it is thrown, and the peers are told.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        RuntimeException failure = null;
        if (boxes.unsettled()) {
            waiter.beginOutsideCalls("close", "close (comparing the last call, which this rank finished without "
                    + "waiting for its peers)", System.nanoTime() + context.timeout().toNanos());
            try {
                boxes.settleBeforeClose(slots);
                PendingFault.raise();
            } catch (InternalError | RuntimeException e) {
                failure = onSegment("close", null, e); // thrown once everything is released
            }
        }
        closed = true;
        leave(failure == null ? Control.CLOSED : Control.ABORTED, failure);
        crew.close();
        slots.release();
        segment.close();
        if (singleCopy != null) {
            singleCopy.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

}
