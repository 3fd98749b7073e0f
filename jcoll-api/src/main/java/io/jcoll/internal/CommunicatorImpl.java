package io.jcoll.internal;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.Group;
import io.jcoll.ProcessMesh;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.TransportInfo;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.SplitRequest;
import io.jcoll.spi.Transport;
import io.jcoll.trace.CollectiveEvent;
import io.jcoll.trace.FlightRecorder;
import io.jcoll.trace.TraceConfig;
import io.jcoll.trace.TraceDump;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The communicator every transport shares: it validates, numbers and orders
 * calls, runs blocking ones on the caller's thread (no hand-off on the hot
 * path) and asynchronous ones on one worker thread, and aborts the transport
 * on the first failure so that no later call waits on a broken group.
 *
 * <p>Calls from several threads are serialised: each is numbered when issued,
 * and runs in that order. Ranks must still issue the same sequence.
 *
 * <p>Sub-communicators ({@link #split}) are communicators of their own over a transport the parent's forms;
 * the parent knows them so that closing or aborting it does the same to them first.
 *
 * <p>Every call is recorded in the communicator's flight recorder as it is issued, starts and ends, and reported
 * to JDK Flight Recorder where a recording wants it ({@link CollectiveEvent}); on the first failure the process
 * writes the recorders of its whole communicator tree to a file ({@link TraceDump}).
 */
public final class CommunicatorImpl implements Communicator {

    private static final System.Logger LOG = System.getLogger(CommunicatorImpl.class.getName());

    private final int rank;
    private final int size;
    private final int localRank;
    private final long hostId;
    private final TransportInfo info;
    private final Duration timeout;
    private final long timeoutNanos;
    private final Transport transport;
    private final AutoCloseable rendezvous;
    private final CallValidator validator;
    private final io.jcoll.bootstrap.Store store;           // scoped to this communicator; null where there is none
    private final HistoryCheck history;                     // null where the transport compares calls itself
    private final CommunicatorImpl parent;                  // null for a communicator formed by bootstrap
    private final int[] members;                            // this communicator's ranks in the parent's; null without one
    private final Set<CommunicatorImpl> children = ConcurrentHashMap.newKeySet();
    private volatile java.util.function.Consumer<String> abortNotice; // null: the transport tells peers itself
    private final JobDoctor.Context doctor;                 // what the job-wide doctor needs here; null without bootstrap
    private final TraceConfig trace;
    private final FlightRecorder recorder;
    private final String traceName;                         // the same on every member: world, world/split#3(color 1)
    private final int[] jobRanks;                           // this communicator's ranks as the job numbers them
    private final java.util.concurrent.atomic.AtomicBoolean traceWritten; // shared by a tree: one file a failure
    private final java.util.function.Function<Call, String> algorithmOf;   // made once: issuing allocates nothing

    private final boolean confined;           // only one thread may call it, its owner (JCOLL_THREADS=one)
    private final boolean smallCallsUntimed;  // the transport times waits from the first that blocks
    private volatile Thread owner;            // under confined: the first thread that called it; null until then
    private final Object issueLock = new Object();
    private final ReentrantLock runLock = new ReentrantLock();
    private final AtomicInteger queued = new AtomicInteger();
    private ExecutorService worker;           // created on the first asynchronous call
    private CompletableFuture<?> last = CompletableFuture.completedFuture(null);
    private long nextSequence;
    private GroupImpl openGroup;              // guarded by issueLock
    private volatile JcollException failure;
    private volatile boolean imposed;         // failure came from outside the calls (abort(), a peer's death):
                                              // every later failure is reported as it
    private volatile boolean abortedByUser;   // ... and from abort()
    private volatile boolean closed;
    private volatile boolean transportDone;   // closed or aborted for good

    /**
     * @param store the rendezvous store, scoped to this communicator (null for none: then ranks that disagree
     *              about a call on a transport that does not compare calls are not told when they close)
     */
    public CommunicatorImpl(int rank, int size, int localRank, long hostId, TransportInfo info, Duration timeout,
                            Transport transport, AutoCloseable rendezvous, io.jcoll.bootstrap.Store store) {
        this(rank, size, localRank, hostId, info, timeout, transport, rendezvous, store, null, null, null,
                TraceConfig.from(io.jcoll.spi.Settings.fromEnvironment()), "world", false);
    }

    /**
     * A communicator bootstrap formed, which can run the job-wide doctor.
     *
     * @param confined whether only one thread may call it, the first that does ({@code JCOLL_THREADS=one})
     */
    CommunicatorImpl(int rank, int size, int localRank, long hostId, TransportInfo info, Duration timeout,
                     Transport transport, AutoCloseable rendezvous, io.jcoll.bootstrap.Store store,
                     JobDoctor.Context doctor, TraceConfig trace, boolean confined) {
        this(rank, size, localRank, hostId, info, timeout, transport, rendezvous, store, null, null, doctor, trace,
                "world", confined);
    }

    private CommunicatorImpl(int rank, int size, int localRank, long hostId, TransportInfo info, Duration timeout,
                             Transport transport, AutoCloseable rendezvous, io.jcoll.bootstrap.Store store,
                             CommunicatorImpl parent, int[] members, JobDoctor.Context doctor, TraceConfig trace,
                             String traceName, boolean confined) {
        this.confined = confined;
        this.doctor = doctor;
        this.trace = trace;
        this.recorder = new FlightRecorder(trace.capacity());
        this.traceName = traceName;
        this.algorithmOf = transport::algorithm;
        this.traceWritten = parent == null ? new java.util.concurrent.atomic.AtomicBoolean() : parent.traceWritten;
        this.jobRanks = new int[size];
        for (int r = 0; r < size; r++) {
            jobRanks[r] = parent == null ? r : parent.jobRanks[members[r]];
        }
        this.store = store;
        this.history = store != null && size > 1 && !transport.checksSignatures()
                ? new HistoryCheck(store, rank, size) : null;
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.hostId = hostId;
        this.info = info;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.transport = transport;
        this.smallCallsUntimed = transport.timesFromFirstWait();
        this.rendezvous = rendezvous;
        this.parent = parent;
        this.members = members;
        this.validator = new CallValidator(rank, size, transport);
    }

    /**
     * Whether a communicator formed now is confined to one thread ({@code JCOLL_THREADS}): {@code one}, the first
     * that calls it, whose calls then take no lock; {@code any} (the default), any thread.
     *
     * @throws IllegalArgumentException for another value
     */
    static boolean confinedUnder(io.jcoll.spi.Settings settings) {
        String threads = settings.get("JCOLL_THREADS").orElse("any").trim();
        return switch (threads.toLowerCase(java.util.Locale.ROOT)) {
            case "any" -> false;
            case "one" -> true;
            default -> throw new IllegalArgumentException("JCOLL_THREADS=" + threads + " is neither any (calls from "
                    + "any thread, the default) nor one (calls from one thread only, which then take no lock)");
        };
    }

    private static final java.lang.invoke.VarHandle OWNER;

    static {
        try {
            OWNER = java.lang.invoke.MethodHandles.lookup().findVarHandle(CommunicatorImpl.class, "owner",
                    Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override public int rank() { return rank; }
    @Override public int size() { return size; }
    @Override public int localRank() { return localRank; }
    @Override public TransportInfo transport() { return info; }
    @Override public io.jcoll.NetworkReport network() { return transport.network(); }
    @Override public Duration timeout() { return timeout; }

    @Override
    public <T> java.util.Optional<T> unwrap(Class<T> type) {
        Transport working = transport instanceof SignatureAudit audit ? audit.inner() : transport;
        return type.isInstance(working) ? java.util.Optional.of(type.cast(working)) : java.util.Optional.empty();
    }

    // ---- operations: each validates under the issue lock, then runs or queues

    @Override
    public void allReduce(Buffer send, Buffer recv, long count, ReduceOp op) {
        call("allReduce", () -> validator.allReduce(send, recv, count, op, nextSequence));
    }

    @Override
    public Request allReduceAsync(Buffer send, Buffer recv, long count, ReduceOp op) {
        return submit(issueAsync("allReduce", () -> validator.allReduce(send, recv, count, op, nextSequence)));
    }

    @Override
    public void allGather(Buffer send, Buffer recv, long count) {
        call("allGather", () -> validator.allGather(send, recv, count, nextSequence));
    }

    @Override
    public void allGather(Buffer data, long count) {
        allGather(validator.ownBlock(Operation.ALL_GATHER, data, count), data, count);
    }

    @Override
    public void reduceScatter(Buffer data, long count, ReduceOp op) {
        reduceScatter(data, validator.ownBlock(Operation.REDUCE_SCATTER, data, count), count, op);
    }

    @Override
    public Request allGatherAsync(Buffer send, Buffer recv, long count) {
        return submit(issueAsync("allGather", () -> validator.allGather(send, recv, count, nextSequence)));
    }

    @Override
    public void reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op) {
        call("reduceScatter", () -> validator.reduceScatter(send, recv, count, op, nextSequence));
    }

    @Override
    public Request reduceScatterAsync(Buffer send, Buffer recv, long count, ReduceOp op) {
        return submit(issueAsync("reduceScatter", () -> validator.reduceScatter(send, recv, count, op, nextSequence)));
    }

    @Override
    public void allToAll(Buffer send, Buffer recv, long countPerRank) {
        call("allToAll", () -> validator.allToAll(send, recv, countPerRank, nextSequence));
    }

    @Override
    public Request allToAllAsync(Buffer send, Buffer recv, long countPerRank) {
        return submit(issueAsync("allToAll", () -> validator.allToAll(send, recv, countPerRank, nextSequence)));
    }

    @Override
    public void allToAllV(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                          long[] recvOffsets) {
        call("allToAllV", () -> validator.allToAllV(send, sendCounts, sendOffsets, recv, recvCounts, recvOffsets,
                nextSequence));
    }

    @Override
    public Request allToAllVAsync(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                                  long[] recvOffsets) {
        return submit(issueAsync("allToAllV", () -> validator.allToAllV(send, sendCounts, sendOffsets, recv, recvCounts,
                recvOffsets, nextSequence)));
    }

    @Override
    public void broadcast(Buffer send, Buffer recv, long count, int root) {
        call("broadcast", () -> validator.broadcast(send, recv, count, root, nextSequence));
    }

    @Override
    public Request broadcastAsync(Buffer send, Buffer recv, long count, int root) {
        return submit(issueAsync("broadcast", () -> validator.broadcast(send, recv, count, root, nextSequence)));
    }

    @Override
    public void reduce(Buffer send, Buffer recv, long count, ReduceOp op, int root) {
        call("reduce", () -> validator.reduce(send, recv, count, op, root, nextSequence));
    }

    @Override
    public Request reduceAsync(Buffer send, Buffer recv, long count, ReduceOp op, int root) {
        return submit(issueAsync("reduce", () -> validator.reduce(send, recv, count, op, root, nextSequence)));
    }

    @Override
    public void gather(Buffer send, Buffer recv, long count, int root) {
        call("gather", () -> validator.gather(send, recv, count, root, nextSequence));
    }

    @Override
    public Request gatherAsync(Buffer send, Buffer recv, long count, int root) {
        return submit(issueAsync("gather", () -> validator.gather(send, recv, count, root, nextSequence)));
    }

    @Override
    public void scatter(Buffer send, Buffer recv, long count, int root) {
        call("scatter", () -> validator.scatter(send, recv, count, root, nextSequence));
    }

    @Override
    public Request scatterAsync(Buffer send, Buffer recv, long count, int root) {
        return submit(issueAsync("scatter", () -> validator.scatter(send, recv, count, root, nextSequence)));
    }

    @Override
    public void barrier() {
        call("barrier", () -> validator.barrier(nextSequence));
    }

    @Override
    public Request barrierAsync() {
        return submit(issueAsync("barrier", () -> validator.barrier(nextSequence)));
    }

    @Override
    public void send(Buffer data, long count, int peer) {
        call("send", () -> validator.send(data, count, peer));
    }

    @Override
    public Request sendAsync(Buffer data, long count, int peer) {
        return submit(issueAsync("send", () -> validator.send(data, count, peer)));
    }

    @Override
    public void recv(Buffer data, long count, int peer) {
        call("recv", () -> validator.recv(data, count, peer));
    }

    @Override
    public Request recvAsync(Buffer data, long count, int peer) {
        return submit(issueAsync("recv", () -> validator.recv(data, count, peer)));
    }

    // ---- sub-communicators

    @Override
    public Optional<Communicator> split(int color, int key) {
        long[] mine = {color, key, hostId};
        long[] all = new long[3 * size];
        Issued issued = issue("split", () -> validator.split(mine, all, nextSequence));
        Call exchange = issued.call();
        return runExclusive(issued, () -> {
            long start = issued.startNanos();
            return traced(issued, start, () -> {
                transport.execute(exchange, deadline(issued, start));
                SplitRequest request = SplitGroups.request(rank, all, "split" + exchange.sequence() + "/");
                Transport child = transport.split(request);
                if (child == null) {
                    return Optional.<Communicator>empty();
                }
                CommunicatorImpl c = new CommunicatorImpl(request.rank(), request.size(), request.localRank(), hostId,
                        childInfo(request), timeout, child, () -> { },
                        store == null ? null : store.scoped(request.scope()), this, request.members(), doctor, trace,
                        traceName + "/split#" + exchange.sequence() + "(color " + request.color() + ")", confined);
                children.add(c);
                return Optional.<Communicator>of(c);
            });
        });
    }

    private TransportInfo childInfo(SplitRequest request) {
        return new TransportInfo(info.name(), info.requested(), info.reason() + "; this communicator is ranks "
                + java.util.Arrays.toString(request.members()) + " of its parent (color " + request.color() + ")",
                info.rejected());
    }

    @Override
    public ProcessMesh mesh(int... shape) {
        int[] coordinates = MeshLayout.coordinates(rank, size, shape);
        List<Communicator> along = new ArrayList<>();
        try {
            for (int d = 0; d < shape.length; d++) {
                along.add(split(MeshLayout.colorAlong(coordinates, shape, d), coordinates[d]).orElseThrow());
            }
        } catch (RuntimeException e) {
            along.forEach(Communicator::close);
            throw e;
        }
        return new ProcessMesh(shape, coordinates, along);
    }

    // ---- groups of calls

    @Override
    public Group group() {
        checkCaller("group");
        synchronized (issueLock) {
            ensureOpen("group");
            if (openGroup != null) {
                throw new InvalidArgumentException("group", rank, JcollException.NONE, "a group is already open on this "
                        + "communicator (" + openGroup.size() + " calls recorded); end it before starting another");
            }
            openGroup = new GroupImpl(this, validator);
            return openGroup;
        }
    }

    /**
     * The group's calls, numbered now, as one call, blocking or {@code async}; the group is closed whatever happens.
     */
    Issued issueGroup(GroupImpl group, List<Call> calls, boolean async) {
        synchronized (issueLock) {
            if (openGroup == group) {
                openGroup = null;
            }
        }
        return issue("group", () -> {
            List<Call> numbered = new ArrayList<>(calls.size());
            for (Call c : calls) {
                numbered.add(c.operation().isCollective() ? c.withSequence(nextSequence++) : c);
            }
            return Call.group(numbered);
        }, async);
    }

    // ---- abort

    @Override
    public void abort() {
        abort("comm.abort() was called on rank " + rank);
    }

    /**
     * Where the transport does not tell peers of an abort itself (NCCL, MPI: the ranks that run a
     * {@link DepartureWatch}), {@code notice} tells them through the rendezvous store. Only the job's own
     * communicator announces: departures are the job's, and aborting it aborts every communicator split from it.
     */
    void announceAbortsWith(java.util.function.Consumer<String> notice) {
        this.abortNotice = notice;
    }

    @Override
    public void abort(String reason) {
        CommunicatorClosedException why = new CommunicatorClosedException("abort", rank, rank, reason
                + (parent == null ? "" : " (of a sub-communicator, or on its parent)"));
        boolean first = !closed && failure == null;
        if (first) {
            writeTrace(why); // before the children's aborts, so that the file says what was aborted here
        }
        java.util.function.Consumer<String> notice = abortNotice;
        if (first && notice != null) {
            // on a thread of its own: this rank's calls must end now, not after a store round trip that a
            // communicator thread blocked in the store could hold up
            Thread t = new Thread(() -> {
                try {
                    notice.accept(reason);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "rank " + rank + ": the store did not take the abort notice ("
                            + e.getMessage() + "); peers then learn at their timeout");
                }
            }, "jcoll-abort-notice-rank" + rank);
            t.setDaemon(true);
            t.start();
        }
        for (CommunicatorImpl child : children) {
            child.abort(reason);
        }
        impose(why, true);
    }

    /**
     * Rank {@code peer}'s process is gone ({@link DepartureWatch}, for transports that do not notice a dead peer
     * themselves): every pending and later call fails at once naming it, here and in every communicator split
     * from this one, instead of waiting for JCOLL_TIMEOUT. A process that died leaves the job broken, so a
     * sub-communicator without that rank fails too, as the transport's own abort would take it down.
     *
     * @param peer    the rank in this communicator, or {@link JcollException#NONE} for a rank outside it
     * @param account what happened, naming the rank as the job numbers it
     */
    void peerDeparted(int peer, String account) {
        io.jcoll.exceptions.PeerFailureException why = new io.jcoll.exceptions.PeerFailureException("departure", rank,
                peer, account);
        if (!closed && failure == null) {
            writeTrace(why); // before the children's, so that the file says it as this communicator numbers the ranks
        }
        for (CommunicatorImpl child : children) {
            int mine = JcollException.NONE;
            for (int i = 0; i < child.members.length; i++) {
                mine = child.members[i] == peer ? i : mine;
            }
            child.peerDeparted(mine, peer == JcollException.NONE ? account : account + (mine == JcollException.NONE
                    ? " (rank " + peer + " of the parent communicator, not a member of this one)"
                    : " (rank " + mine + " of this sub-communicator)"));
        }
        impose(why, false);
    }

    /**
     * Fails every pending and later call with {@code why}; tears the transport down, or interrupts a running call
     * (on a communicator confined to one thread, any call of its owner's from another thread: it holds no lock that
     * would say whether one runs).
     */
    private void impose(JcollException why, boolean byUser) {
        impose(why, byUser, true);
    }

    /** {@link #impose(JcollException, boolean)}, the flight recorder written out where {@code traced}. */
    private void impose(JcollException why, boolean byUser, boolean traced) {
        synchronized (this) {
            if (failure != null || closed) {
                return;
            }
            imposed = true;
            abortedByUser = byUser;
            failure = why;
        }
        if (traced) {
            writeTrace(why);
        }
        if (confined && Thread.currentThread() != owner) {
            transport.interrupt(why); // a confined call takes no run lock: the owner's next call or close tears down
        } else if (runLock.tryLock()) {
            try {
                if (!transportDone) {
                    transportDone = true;
                    transport.abort(why); // nothing runs: tear down at once
                }
            } finally {
                runLock.unlock();
            }
        } else {
            transport.interrupt(why); // a call is running: it fails soon, and its thread tears down
        }
    }

    // ---- ordering and execution

    private interface Validation {
        Call validate();
    }

    /**
     * A call, its flight-recorder entry, and either, for a call that runs inline (on the caller's thread, or enqueued
     * by it on a transport's own queue), the {@link System#nanoTime} at which it was free to run (the moment it was
     * issued unless another thread's call held the run lock, so that one clock read usually serves the call's record,
     * start and deadline: each read is 20-30 ns, a tenth of a small shared-memory call), or, for any other, its place
     * in the worker's queue. An inline call holds the run lock, but on a communicator confined to one thread, which
     * takes none. A small inline call of a confined communicator whose transport times its waits itself reads no
     * clock at all: it is {@code untimed}, and its limit runs from its first wait that blocks
     * ({@link Transport#FROM_FIRST_WAIT}).
     */
    record Issued(Call call, long traceId, long freeNanos, boolean untimed, WorkerSlot slot) {

        /** Whether the call runs inline: it has no place in the worker's queue. */
        boolean inline() {
            return slot == null;
        }

        /** When the call starts running: when it was free to run where it runs inline, else now (on the worker). */
        long startNanos() {
            return inline() ? freeNanos : System.nanoTime();
        }
    }

    /**
     * A call's place in the worker's queue, taken as the call is issued, and its work, handed over once the caller
     * has it: so that the worker runs calls in issue order whichever thread issued them, and however soon after
     * issuing each hands its work over.
     */
    private static final class WorkerSlot {
        final CompletableFuture<Supplier<?>> work = new CompletableFuture<>();
        final CompletableFuture<Object> done = new CompletableFuture<>();
    }

    /** {@link #issue(String, Validation, boolean)} of a blocking call. */
    private Issued issue(String operation, Validation v) {
        return issue(operation, v, false);
    }

    /** {@link #issue(String, Validation, boolean)} of an asynchronous call (a request is returned). */
    private Issued issueAsync(String operation, Validation v) {
        return issue(operation, v, true);
    }

    /** A blocking call, issued and run: in effect {@link #run}({@link #issue}), on its thread mode's lean path. */
    private void call(String operation, Validation v) {
        if (confined) {
            callConfined(operation, v);
        } else {
            callFromAnyThread(operation, v);
        }
    }

    /**
     * {@link #call} on a communicator any thread may call. Where nothing is queued on the worker and the run lock is
     * free at once, no other call can come between this one's issue and its start: it is recorded issued and started
     * in one row's writes and run with no {@link Issued} record, and a small one reads no clock where the transport
     * times its waits from the first that blocks, as on a confined communicator. Only the two locks remain of what a
     * confined call leaves out. Any other call waits its turn as {@link #issue} places it.
     * Through {@link #issue} and {@link #run}, with a clock read and two recorder writes, a 2-rank 8-byte Broadcast
     * over shared memory on 32 Xeon cores took 1.46-1.49x this path's time (benchmarks/RESULTS.md, "Calls from any
     * thread made lean").
     */
    private void callFromAnyThread(String operation, Validation v) {
        Issued waiting = null;
        Call call;
        long traceId = -1;
        long deadlineNanos = 0;
        synchronized (issueLock) {
            call = numbered(operation, v);
            if (runsInline(false) && runLock.tryLock()) {
                try { // nothing comes between issue and start: this thread alone runs until it unlocks
                    boolean untimed = untimed(call);
                    long now = startTime(untimed);
                    traceId = recorder.issuedStarted(call, algorithmOf, now);
                    deadlineNanos = deadline(untimed, now);
                } catch (RuntimeException | Error e) {
                    runLock.unlock();
                    throw e;
                }
            } else {
                waiting = place(call, false);
            }
        }
        if (waiting != null) {
            run(waiting); // its turn is waited for out of the issue lock: other threads issue meanwhile
            return;
        }
        try {
            executeStarted(call, traceId, deadlineNanos);
        } finally {
            runLock.unlock();
        }
    }

    /**
     * {@link #call} on a communicator confined to one thread: where it runs inline, as it does unless asynchronous
     * calls are still queued on the worker, it is recorded as issued and started at once, and run with no
     * {@link Issued} record between: its issue and start are the same moment, as nothing can come between on the
     * one thread that calls. With this, the recorder's one row a call and the shared-memory transport's leaner
     * path, a confined two-rank 8-byte Broadcast over shared memory on 32 Xeon cores took 0.55-0.83x the time it
     * took before, 1.27x Open MPI's in the last lease (benchmarks/RESULTS.md, "A small call's path made lean"). The
     * transport's work is {@link #executeStarted}'s, as for any other call: a copy of it written out here, as that
     * build had it, was not told apart from it on the development VM (benchmarks/results/gpu-2026-11-30-lean-call).
     */
    private void callConfined(String operation, Validation v) {
        if (!runsInline(false)) {
            run(issueConfined(operation, v, false)); // behind the asynchronous calls queued on the worker
            return;
        }
        // only this thread queues calls on the worker: none is queued now, and none will be before this one runs
        requireOwner(operation);
        Call call = numbered(operation, v);
        boolean untimed = untimed(call);
        long now = startTime(untimed);
        executeStarted(call, recorder.issuedStarted(call, algorithmOf, now), deadline(untimed, now));
    }

    /**
     * Validates and numbers a call, and fixes its place in the order calls run in before any other call can be
     * issued: a call runs inline where nothing is queued on the worker and it blocks (or the transport has a queue of
     * its own, a GPU stream), and leaves here holding the run lock; any other takes its place in the worker's queue
     * here ({@link WorkerSlot}). Both happen under the issue lock, so that a call issued after it, by any thread, runs
     * after it. A communicator confined to one thread takes neither lock ({@link #issueConfined}).
     */
    private Issued issue(String operation, Validation v, boolean async) {
        if (confined) {
            return issueConfined(operation, v, async);
        }
        synchronized (issueLock) {
            return place(numbered(operation, v), async);
        }
    }

    /**
     * {@link #issue} of a numbered call, under the issue lock: records it issued and gives it its place, the run lock
     * for a call that runs inline (once another thread's call gives it back), else the worker's queue.
     */
    private Issued place(Call call, boolean async) {
        long now = System.nanoTime();
        long traceId = recorder.issued(call, algorithmOf, now);
        if (!runsInline(async)) {
            return new Issued(call, traceId, 0, false, queueOnWorker());
        }
        if (!runLock.tryLock()) {
            runLock.lock(); // another thread's call is running: this one starts after it
            now = System.nanoTime();
        }
        return new Issued(call, traceId, now, false, null);
    }

    /**
     * {@link #issue} on a communicator confined to one thread ({@code JCOLL_THREADS=one}): only its owner, the first
     * thread that called it, issues calls, so they are numbered and run in the order it issues them, and an inline
     * call needs no run lock, as nothing else runs then: the worker has finished every call queued on it
     * ({@link #queued} is 0), and another thread's abort only interrupts ({@link #impose}). Every lock taken or given
     * back is an atomic instruction, which waits for the call's stores into shared memory to reach other cores; with
     * neither lock, and no clock read where the transport times its waits from the first that blocks, small
     * Broadcasts and AllReduces over shared memory took 0.76-1.12x the time of calls from any thread on 32 Xeon
     * cores, less at 12 of 16 points (benchmarks/RESULTS.md, "Calls confined to one thread").
     */
    private Issued issueConfined(String operation, Validation v, boolean async) {
        requireOwner(operation);
        Call call = numbered(operation, v);
        boolean inline = runsInline(async);
        boolean untimed = inline && untimed(call);
        long now = startTime(untimed);
        long traceId = recorder.issued(call, algorithmOf, now);
        return new Issued(call, traceId, now, untimed, inline ? null : queueOnWorker());
    }

    /**
     * The checks and numbering of {@link #issue}: the communicator open, no group open, the arguments valid. A
     * collective is numbered only once accepted, so that a rejected call leaves ranks in step.
     */
    private Call numbered(String operation, Validation v) {
        ensureOpen(operation);
        if (openGroup != null && !operation.equals("group")) {
            throw new InvalidArgumentException(operation, rank, JcollException.NONE, "a group is open on this "
                    + "communicator (" + openGroup.size() + " calls recorded): record this call in the group, or "
                    + "end() the group first; a call made now would run before the group's calls");
        }
        Call call;
        try {
            call = v.validate();
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new InvalidArgumentException(operation, rank, JcollException.NONE, e.getMessage());
        }
        if (call.operation().isCollective()) {
            nextSequence++;
        }
        if (history != null) {
            history.issued(call);
        }
        return call;
    }

    /** Whether a call runs inline ({@link #issue}): nothing queued on the worker, and it blocks or is enqueued. */
    private boolean runsInline(boolean async) {
        return queued.get() == 0 && (!async || transport.enqueues());
    }

    /**
     * On a communicator confined to one thread, that the caller is its owner, the first thread that called it (which
     * it becomes here): another thread's call would run alongside the owner's, with no lock between them.
     */
    private void requireOwner(String operation) {
        Thread caller = Thread.currentThread();
        Thread first = owner;
        if (first == caller || first == null && OWNER.compareAndSet(this, null, caller)) {
            return;
        }
        throw new InvalidArgumentException(operation, rank, JcollException.NONE, "this communicator is confined to "
                + "one thread (JCOLL_THREADS=one), \"" + owner.getName() + "\", the first that called it, and thread \""
                + caller.getName() + "\" called it; make every call from that thread (abort() may come from any), or "
                + "leave JCOLL_THREADS unset to call it from several");
    }

    /**
     * On a communicator confined to one thread, refuses {@code operation} from any thread but its owner's: for what
     * does not go through {@link #issue} (a group opened, its calls recorded, the group ended; close), before
     * anything changes.
     */
    void checkCaller(String operation) {
        if (confined) {
            requireOwner(operation);
        }
    }

    /** Gives back the run lock an inline call took: every one but on a communicator confined to one thread. */
    private void releaseRun() {
        if (!confined) {
            runLock.unlock();
        }
    }

    /** The deadline {@code issued}'s transport work gets, started at {@code start}. */
    private long deadline(Issued issued, long start) {
        return deadline(issued.untimed(), start);
    }

    /**
     * Whether a call that starts as soon as it is issued reads no clock: a small one, on a transport that times its
     * waits from the first that blocks.
     */
    private boolean untimed(Call call) {
        return smallCallsUntimed && FlightRecorder.isSmall(call);
    }

    /** When an inline call starts: {@link System#nanoTime}, or 0, the flight recorder's "not timed", if untimed. */
    private static long startTime(boolean untimed) {
        return untimed ? 0 : System.nanoTime();
    }

    /** The deadline of transport work started at {@code start}: from its first wait that blocks where untimed. */
    private long deadline(boolean untimed, long start) {
        return untimed ? Transport.FROM_FIRST_WAIT : start + timeoutNanos;
    }

    /**
     * Runs an issued call in issue order and waits for it (a group closed by try-with-resources, too): on the worker
     * where calls are queued before it, else on this thread. That common case runs straight into {@link #execute}
     * rather than through the supplier of {@link #runExclusive}: each level of calls between the caller and the
     * transport's stores is one the JIT may no longer inline into (its depth limit), and a small call is a few
     * hundred nanoseconds.
     */
    void run(Issued issued) {
        if (!issued.inline()) {
            submit(issued).await(); // on the worker, behind the calls queued before it
            return;
        }
        try {
            execute(issued);
        } finally {
            releaseRun();
        }
    }

    /**
     * Runs an issued call's transport work, recorded as the call's start and end (flight recorder, JFR), a failure
     * other than a rejected argument aborting the communicator: {@link #traced} and {@link #guarded} written out,
     * without their suppliers, for the reason {@link #run} gives. The work is a method of its own,
     * {@link #executeStarted}, which the JIT compiles on its own (so the transport's path, inlined there, starts
     * the JIT's depth limit afresh, it seems). With the two written out in one method, the two-rank AllReduce over
     * shared memory took 1.16x / 1.20x the previous build's time at 8 / 64 B on 32 Xeon cores; split, 0.91x / 0.98x
     * (benchmarks/results/gpu-2026-11-30-lean-call, leases 5 and 6).
     */
    private void execute(Issued issued) {
        long start = issued.startNanos();
        recorder.started(issued.traceId(), FlightRecorder.calls(issued.call()), start);
        executeStarted(issued.call(), issued.traceId(), deadline(issued, start));
    }

    /** {@link #execute} of a call whose start is recorded. */
    private void executeStarted(Call call, long traceId, long deadlineNanos) {
        CollectiveEvent event = CollectiveEvent.startIfEnabled();
        boolean completed = false;
        try {
            ensureOpen(call.operation().label());
            try {
                transport.execute(call, deadlineNanos);
            } catch (RuntimeException | Error e) {
                throw failure(call, e);
            }
            completed = true;
        } finally {
            ended(call, traceId, event, completed);
        }
    }

    /** Runs {@code work} after every call issued before it, and before any issued after it; returns its result. */
    @SuppressWarnings("unchecked") // the slot's result is what work returns
    private <T> T runExclusive(Issued issued, Supplier<T> work) {
        if (!issued.inline()) {
            return (T) onWorker(issued, work).result();
        }
        try {
            return work.get();
        } finally {
            releaseRun();
        }
    }

    /** Starts an issued call and returns its request ({@link Group#end()}, too). */
    Request submit(Issued issued) {
        if (issued.inline()) {
            return enqueue(issued); // only a transport with a queue of its own runs an asynchronous call inline
        }
        return onWorker(issued, () -> {
            execute(issued);
            return null;
        });
    }

    /** Hands {@code work} to the worker at the place {@code issued} took in its queue; the request waits for it. */
    private FutureRequest<Object> onWorker(Issued issued, Supplier<?> work) {
        issued.slot().work.complete(work);
        return new FutureRequest<>(issued.slot().done, issued.call().operation().label());
    }

    /**
     * A place in the worker's queue, taken under the issue lock: the worker runs its work, once handed over, after
     * everything queued before it, under the run lock.
     */
    private WorkerSlot queueOnWorker() {
        WorkerSlot slot = new WorkerSlot();
        queued.incrementAndGet();
        last = slot.done;
        worker().execute(() -> {
            try {
                Supplier<?> work = slot.work.join(); // handed over as soon as issue() returns
                runLock.lock();
                try {
                    slot.done.complete(work.get());
                } finally {
                    runLock.unlock();
                }
            } catch (Throwable t) {
                slot.done.completeExceptionally(t);
            } finally {
                queued.decrementAndGet();
            }
        });
        return slot;
    }

    /** A transport with its own queue (a GPU stream): start the call here, in issue order, and wait on its end. */
    private Request enqueue(Issued issued) {
        Call call = issued.call();
        long start = issued.startNanos();
        CollectiveEvent event = started(issued, start);
        Transport.Completion completion;
        try {
            completion = guarded(call, () -> transport.enqueue(call, deadline(issued, start)));
        } catch (RuntimeException e) {
            ended(issued.call(), issued.traceId(), event, false);
            throw e;
        } finally {
            releaseRun();
        }
        return new CompletionRequest(completion, issued, event);
    }

    private ExecutorService worker() {
        if (worker == null) {
            worker = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "jcoll-rank" + rank + "-async");
                t.setDaemon(true);
                return t;
            });
        }
        return worker;
    }

    /** {@link #guarded} work, recorded as the call's start and end (flight recorder, JFR). */
    private <T> T traced(Issued issued, long start, Supplier<T> work) {
        CollectiveEvent event = started(issued, start);
        boolean completed = false;
        try {
            T result = guarded(issued.call(), work);
            completed = true;
            return result;
        } finally {
            ended(issued.call(), issued.traceId(), event, completed);
        }
    }

    /** Records the call's start; returns its JFR event, or null while no recording wants one. */
    private CollectiveEvent started(Issued issued, long start) {
        recorder.started(issued.traceId(), FlightRecorder.calls(issued.call()), start);
        return CollectiveEvent.startIfEnabled();
    }

    /** Records the call's end, and commits its JFR event ({@link #started}'s, or null). */
    private void ended(Call call, long traceId, CollectiveEvent event, boolean completed) {
        recorder.ended(traceId, FlightRecorder.calls(call), completed);
        if (event != null) {
            CollectiveEvent.finish(event, call, transport.algorithm(call), info.name(), traceName, jobRanks[rank],
                    completed);
        }
    }

    /** Runs transport work; a failure other than a rejected argument aborts the communicator. */
    private <T> T guarded(Call call, Supplier<T> work) {
        ensureOpen(call.operation().label());
        try {
            return work.get();
        } catch (RuntimeException | Error e) {
            throw failure(call, e);
        }
    }

    /**
     * What a caller gets for {@code e}, thrown by transport work for {@code call}: a rejected argument as it is;
     * anything else aborts the communicator ({@link #fail}), a failure that is not jcoll's named as internal.
     */
    private RuntimeException failure(Call call, Throwable e) {
        if (e instanceof InvalidArgumentException invalid) {
            return invalid;
        }
        if (e instanceof JcollException j) {
            return fail(call, j);
        }
        return fail(call, new JcollException(call.operation().label(), rank, JcollException.NONE,
                "internal failure in the " + transport.name() + " transport: " + e, e));
    }

    /**
     * Records the first failure and tears the transport down (this thread ran the failed call, so nothing else
     * touches the transport's memory now); returns what the caller throws. After {@link #abort()} every failure
     * is the abort, whatever the transport saw as it was cut.
     */
    private JcollException fail(Call call, JcollException e) {
        boolean first;
        synchronized (this) {
            first = failure == null;
            if (first) {
                failure = e;
            }
        }
        if (!transportDone) {
            transportDone = true;
            transport.abort(failure);
        }
        if (first) {
            try {
                writeTrace(e);
            } catch (RuntimeException | InternalError late) {
                // the file is an aid; the failure itself must reach the caller (an InternalError here is a fault
                // the JVM raised late, from the memory the failed call touched: the failure already names it)
                LOG.log(System.Logger.Level.WARNING, "rank " + jobRanks[rank] + ": no flight-recorder file: " + late);
            }
        }
        if (imposed) {
            String account = call.describe() + " was stopped: " + failure.detail();
            return failure instanceof io.jcoll.exceptions.PeerFailureException
                    ? new io.jcoll.exceptions.PeerFailureException(call.operation().label(), rank, failure.peer(),
                            account, e)
                    : new CommunicatorClosedException(call.operation().label(), rank, failure.peer(), account, e);
        }
        return e;
    }

    // ---- the flight recorder's file

    /**
     * Writes the flight recorders of this communicator's whole tree (the communicator formed at start and every
     * one split from it) to a file, once a failure: the first failure anywhere in the tree is the one worth a
     * file, and what every ring held at that moment.
     */
    private void writeTrace(JcollException why) {
        CommunicatorImpl root = this;
        while (root.parent != null) {
            root = root.parent;
        }
        if (trace.capacity() == 0 || !traceWritten.compareAndSet(false, true)) {
            return;
        }
        List<TraceDump.Ring> rings = new ArrayList<>();
        root.collectRings(rings);
        String host = doctor == null ? "" : doctor.host();
        java.nio.file.Path file = TraceDump.write(trace.dir(), jobRanks[rank], host, why.getMessage(), rings);
        if (file != null) {
            LOG.log(System.Logger.Level.INFO, "rank " + jobRanks[rank] + " wrote the last calls of its "
                    + rings.size() + (rings.size() == 1 ? " communicator" : " communicators") + " to " + file
                    + " (JCOLL_TRACE_DIR); ./jcoll trace " + file.toAbsolutePath().getParent()
                    + " merges every rank's file into one account");
        }
    }

    private void collectRings(List<TraceDump.Ring> into) {
        into.add(new TraceDump.Ring(traceName, rank, size, jobRanks.clone(), info.name(), recorder));
        for (CommunicatorImpl child : children) {
            child.collectRings(into);
        }
    }

    // ---- the job-wide doctor

    @Override
    public io.jcoll.JobReport doctor() {
        ensureOpen("doctor");
        if (doctor == null || store == null) {
            throw new io.jcoll.exceptions.InvalidArgumentException("doctor", rank, JcollException.NONE, "this "
                    + "communicator was not formed through a rendezvous store (Jcoll.init or Jcoll.create do that)");
        }
        // the n-th doctor each rank runs on this communicator is the same run on all of them
        long run = store.add("doctor/runs/rank" + rank, 1);
        return JobDoctor.run(store.scoped("doctor" + run + "/"), rank, size, doctor.host(), doctor.dataAddress(),
                doctor.settings());
    }

    private void ensureOpen(String operation) {
        JcollException f = failure;
        if (f != null) {
            throw new CommunicatorClosedException(operation, rank, f.peer(), (abortedByUser ? "" : "the communicator "
                    + "was aborted by an earlier failure: ") + f.getMessage(), f);
        }
        if (closed) {
            throw new CommunicatorClosedException(operation, rank, JcollException.NONE, parent != null && parent.closed
                    ? "the communicator is closed: its parent was closed, which closes every communicator split from it"
                    : "the communicator is closed");
        }
    }

    @Override
    public void close() {
        checkCaller("close"); // confined: another thread's teardown could pull the transport from under the owner
        RuntimeException first = null;
        // children first: a parent's close must not leave one of them running on its own
        for (CommunicatorImpl child : children) {
            try {
                child.closeWithParent();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        CompletableFuture<?> pending;
        synchronized (issueLock) {
            if (closed) {
                return;
            }
            if (openGroup != null) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + " closes its communicator with a group of "
                        + openGroup.size() + " calls that was never ended: those calls were not issued, and peers "
                        + "waiting for them fail as this rank leaves");
                openGroup = null;
            }
            pending = last;
        }
        try {
            pending.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (Exception ignored) {
            // its failure was reported to whoever waited on it; closing goes on
        }
        synchronized (this) {
            closed = true;
        }
        runLock.lock();
        try {
            if (history != null && failure == null) {
                RuntimeException disagreement = history.compare();
                first = first == null ? disagreement : first;
            }
            if (!transportDone) {
                transportDone = true;
                if (failure == null) {
                    transport.close();
                } else {
                    transport.abort(failure);
                }
            }
        } catch (RuntimeException e) {
            if (!abortedByUser) {
                first = first == null ? e : first; // a disagreement found while leaving: the caller must hear of it
            }
        } finally {
            runLock.unlock();
            if (worker != null) {
                worker.shutdownNow();
            }
            try {
                rendezvous.close();
            } catch (Exception ignored) {
                // best effort
            }
            if (parent != null) {
                parent.children.remove(this);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * This communicator's part in its parent's close: closed here; or, where it is confined to another thread, which
     * may be in one of its calls now (no lock would say), failed, so that the owner's wait ends and its next call is
     * refused, and released by the owner's close, as after an abort from another thread.
     */
    private void closeWithParent() {
        Thread first = owner;
        if (!confined || first == null || first == Thread.currentThread()) {
            close();
            return;
        }
        for (CommunicatorImpl child : children) {
            child.closeWithParent();
        }
        impose(new CommunicatorClosedException("close", rank, JcollException.NONE, "the communicator is closed: its "
                + "parent was closed (on thread \"" + Thread.currentThread().getName() + "\"), which closes every "
                + "communicator split from it; close() it on thread \"" + first.getName() + "\", whose calls it is "
                + "confined to, to release it"), true, false); // a close, not a failure: no flight-recorder file
    }

    /** A request over a transport's own completion (a CUDA event): waiting costs no thread hand-off. */
    private final class CompletionRequest implements Request {
        private final Transport.Completion completion;
        private final Issued issued;
        private CollectiveEvent event;     // until the end is seen, by await or isDone
        private boolean ended;

        CompletionRequest(Transport.Completion completion, Issued issued, CollectiveEvent event) {
            this.completion = completion;
            this.issued = issued;
            this.event = event;
        }

        @Override
        public boolean isDone() {
            boolean done = completion.isDone();
            if (done) {
                end(true);
            }
            return done;
        }

        @Override
        public void await() {
            boolean completed = false;
            try {
                guarded(issued.call(), () -> {
                    completion.await(System.nanoTime() + timeoutNanos);
                    return null;
                });
                completed = true;
            } finally {
                end(completed);
            }
        }

        /** The call's end, recorded once whichever way it is seen. */
        private synchronized void end(boolean completed) {
            if (!ended) {
                ended = true;
                ended(issued.call(), issued.traceId(), event, completed);
                event = null;
            }
        }

        @Override
        public boolean await(Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            while (!completion.isDone()) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                Thread.onSpinWait();
            }
            await();
            return true;
        }
    }

    /** A request over a future, waiting with the communicator's timeout by default. */
    private final class FutureRequest<T> implements Request {
        private final CompletableFuture<T> future;
        private final String operation;

        FutureRequest(CompletableFuture<T> future, String operation) {
            this.future = future;
            this.operation = operation;
        }

        @Override
        public boolean isDone() {
            return future.isDone();
        }

        @Override
        public void await() {
            result();
        }

        /** Waits, then returns what the work returned. */
        T result() {
            // the operation enforces its own deadline; the slack covers time spent queued
            if (!await(timeout.plus(timeout))) {
                throw new CollectiveTimeoutException(operation, rank, JcollException.NONE,
                        "did not complete within " + timeout.plus(timeout).toSeconds() + " s");
            }
            return future.getNow(null);
        }

        @Override
        public boolean await(Duration limit) {
            try {
                future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JcollException(operation, rank, JcollException.NONE, "interrupted while waiting", e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                throw new JcollException(operation, rank, JcollException.NONE, cause.toString(), cause);
            }
        }
    }
}
