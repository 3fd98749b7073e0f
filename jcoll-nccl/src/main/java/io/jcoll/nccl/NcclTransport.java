package io.jcoll.nccl;

import io.jcoll.Buffer;
import io.jcoll.HostBuffer;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.gpu.Cuda;
import io.jcoll.gpu.DeviceBuffer;
import io.jcoll.gpu.GpuRuntime;
import io.jcoll.gpu.Nccl;
import io.jcoll.spi.Call;
import io.jcoll.spi.StallDiagnosis;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

import java.nio.ByteBuffer;

/**
 * Collectives through NCCL, one rank per GPU. Device buffers are handed to
 * NCCL as they are, enqueued on this communicator's stream (or the caller's);
 * completion is a CUDA event. A {@link Watchdog} thread guards every launch and
 * wait: past the deadline or on NCCL's asynchronous error it aborts the NCCL
 * communicator, and the waiting thread raises the same exceptions as every
 * other transport. Host buffers are staged through pinned memory and device scratch.
 */
final class NcclTransport implements Transport, NcclAccess {

    private final int rank;
    private final int size;
    private final int device;
    private final int ncclVersion;
    private final Nccl nccl;
    private final CUstream_st ownStream;
    private CUstream_st stream;          // the own stream, or one the user chose
    private final CUevent_st[] events = new CUevent_st[64]; // a ring: each wait records the next one
    private int nextEvent;
    private final Watchdog watchdog;
    private final StallDiagnosis diagnosis; // names the ranks that never reached a collective that timed out
    private final HostStaging staging;
    private final DeviceBuffer barrierWord;
    private DeviceBuffer allToAllInput; // NCCL's all-to-all cannot run in place: the input is copied here first
    private final NcclEnvironment.Prepared environment; // what was set up for NCCL, and where its log goes
    private final EventWait blockingWait = new EventWait(); // reused by blocking calls, which are serialised
    private io.jcoll.NetworkReport network;                  // read from NCCL's log until the paths are known
    private TransportContext context;                        // for the store and settings of sub-communicators

    private NcclTransport(int rank, int size, int device, int ncclVersion, Nccl nccl, CUstream_st stream,
                          StallDiagnosis diagnosis, NcclEnvironment.Prepared environment) {
        this.rank = rank;
        this.environment = environment;
        this.size = size;
        this.device = device;
        this.ncclVersion = ncclVersion;
        this.nccl = nccl;
        this.ownStream = stream;
        this.stream = stream;
        for (int i = 0; i < events.length; i++) {
            events[i] = Cuda.createEvent();
        }
        this.staging = new HostStaging(device, size, () -> this.stream);
        this.watchdog = new Watchdog(nccl, rank);
        this.diagnosis = diagnosis;
        this.barrierWord = DeviceBuffer.allocate(device, io.jcoll.DataType.INT32, 1);
    }

    static NcclTransport open(TransportContext ctx) {
        GpuRuntime.Status status = GpuRuntime.require("bootstrap", ctx.rank());
        long deadline = System.nanoTime() + ctx.timeout().toNanos();
        int device;
        try {
            device = GpuRuntime.deviceFor(ctx.settings(), ctx.localRank(), status.devices());
        } catch (IllegalArgumentException e) {
            throw new BootstrapException("bootstrap", ctx.rank(), JcollException.NONE, e.getMessage());
        }
        Cuda.setDevice(device);
        // before NCCL's first look at its variables: the derived settings, and its log routed where jcoll can read it
        NcclEnvironment.Prepared env = NcclEnvironment.prepare(ctx.settings());
        byte[] id;
        if (ctx.rank() == 0) {
            id = Nccl.uniqueId();
            ctx.store().set("nccl/unique-id", id);
        } else {
            id = ctx.store().get("nccl/unique-id", ctx.timeout()).orElseThrow(() -> new BootstrapException("bootstrap",
                    ctx.rank(), 0, "rank 0 never published the NCCL unique id"));
        }
        // created non-blocking, so a peer that dies meanwhile cannot hang us; then, by default, swapped for a
        // blocking twin: a non-blocking communicator settles every launch on a helper thread, 56-71 us a small
        // call against 9-14 us (benchmarks/RESULTS.md). The watchdog aborts a stuck call either way.
        // JCOLL_NCCL_BLOCKING=0 keeps the non-blocking communicator.
        boolean blocking = ctx.settings().getInt("JCOLL_NCCL_BLOCKING", 1) == 1;
        Nccl comm = Nccl.join(id, ctx.rank(), ctx.size(), deadline, blocking);
        NcclTransport t = new NcclTransport(ctx.rank(), ctx.size(), device, status.ncclVersion(), comm,
                Cuda.createStream(), new StallDiagnosis(ctx.store(), ctx.rank(), ctx.size(), ctx.timeout()), env);
        t.context = ctx;
        return t;
    }

    /**
     * {@code ncclCommSplit}, every rank of this communicator taking part (NCCL's rule for the new ranks, key then
     * rank here, is jcoll's). The new communicator has its own stream, events and watchdog, on this GPU; the
     * watchdog of this one guards the split against a peer that never joins.
     */
    @Override
    public Transport split(io.jcoll.spi.SplitRequest request) {
        Cuda.setDevice(device);
        long deadline = System.nanoTime() + context.timeout().toNanos();
        Nccl child;
        watchdog.arm(deadline);
        try {
            child = nccl.split(request.included() ? request.color() : -1, request.key(), request.rank(), deadline);
        } catch (RuntimeException e) {
            String why = watchdog.reason();
            throw new BootstrapException("split", rank, JcollException.NONE, "ncclCommSplit failed: "
                    + (why != null ? why : e.getMessage()), e);
        } finally {
            watchdog.disarm();
        }
        if (child == null) {
            return null;
        }
        TransportContext c = context.forGroup(request);
        NcclTransport t = new NcclTransport(request.rank(), request.size(), device, ncclVersion, child,
                Cuda.createStream(), new StallDiagnosis(c.store(), request.rank(), request.size(), c.timeout()),
                environment);
        t.context = c;
        return t;
    }

    /** From another thread while a call runs: NCCL's abort unblocks it, and the waiting thread sees why. */
    @Override
    public void interrupt(Throwable cause) {
        watchdog.abortNow(cause.getMessage());
    }

    @Override
    public String name() {
        return "nccl";
    }

    @Override
    public io.jcoll.NetworkReport network() {
        // NCCL logs its paths once, when it connects the ranks; after that the log has nothing new to say
        if (network == null || network.paths().isEmpty()) {
            network = NcclNetwork.report(environment);
        }
        return network;
    }

    @Override
    public int device() {
        return device;
    }

    @Override
    public long stream() {
        return stream.address();
    }

    @Override
    public void useStream(long cudaStream) {
        Cuda.setDevice(device);
        Cuda.synchronize(stream); // what was queued before keeps its place in the order
        stream = cudaStream == ownStream.address() ? ownStream : Cuda.stream(cudaStream);
    }

    @Override
    public String unsupportedReason(Buffer buffer) {
        if (buffer instanceof DeviceBuffer d) {
            return d.device() == device ? null
                    : "it is on GPU " + d.device() + " but this rank's communicator uses GPU " + device;
        }
        return buffer instanceof HostBuffer ? null : "unknown buffer type " + buffer.getClass().getName();
    }

    @Override
    public boolean enqueues() {
        return true;
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        if (start(call, deadlineNanos)) {
            blockingWait.reset(call).await(deadlineNanos); // reused: a blocking call allocates no waiter
        }
    }

    @Override
    public Completion enqueue(Call call, long deadlineNanos) {
        return start(call, deadlineNanos) ? new EventWait().reset(call) : Completion.DONE;
    }

    /**
     * Launches the call; returns whether it is still running on the stream (false: host buffers, which
     * share one pinned stage and so are finished here before the next call starts).
     */
    private boolean start(Call call, long deadlineNanos) {
        Cuda.setDevice(device); // the current device is per thread
        boolean staged = call.send() instanceof HostBuffer || call.recv() instanceof HostBuffer;
        if (call.operation() == io.jcoll.spi.Operation.GROUP && usesHostMemory(call)) {
            runGroupStaged(call, deadlineNanos);
            return false;
        }
        // the watchdog is armed around the launch, so that a launch blocking on a dead peer is aborted
        watchdog.arm(deadlineNanos);
        try {
            if (staged) {
                staging.run(call, this::launch, deadlineNanos);
            } else {
                launch(call, address(call.send()), address(call.recv()), deadlineNanos); // allocates nothing
            }
        } catch (RuntimeException e) {
            throw aborted(call, e);
        } finally {
            watchdog.disarm();
        }
        if (!staged) {
            return true;
        }
        // host memory shares one pinned stage, so such calls finish before the next starts
        blockingWait.reset(call).await(deadlineNanos);
        if (call.recv() instanceof HostBuffer) {
            staging.finish(call);
        }
        return false;
    }

    private static boolean usesHostMemory(Call group) {
        for (Call member : group.members()) {
            if (member.send() instanceof HostBuffer || member.recv() instanceof HostBuffer) {
                return true;
            }
        }
        return false;
    }

    /**
     * A group some of whose calls use host memory: each such call gets device copies of its own (the shared
     * pinned stage serves one call at a time, and a group's calls run together), the group runs as one NCCL
     * group on them, and once it is done the outputs are copied back. Host memory here costs an allocation
     * and two copies per call, as it does for a lone call.
     */
    private void runGroupStaged(Call group, long deadlineNanos) {
        java.util.List<DeviceBuffer> scratch = new java.util.ArrayList<>();
        java.util.List<Call> onDevice = new java.util.ArrayList<>();
        try {
            for (Call m : group.members()) {
                Buffer send = m.send() instanceof HostBuffer h ? deviceCopy(h, m.sendElements(size), scratch) : m.send();
                Buffer recv = m.recv() instanceof HostBuffer h ? deviceCopy(h, m.recvElements(size), scratch) : m.recv();
                onDevice.add(new Call(m.operation(), send, recv, m.count(), m.type(), m.reduceOp(), m.root(),
                        m.sequence(), false, m.vectors(), java.util.List.of())); // separate copies: out of place
            }
            Call staged = Call.group(onDevice);
            watchdog.arm(deadlineNanos);
            try {
                launch(staged, 0, 0, deadlineNanos);
            } catch (RuntimeException e) {
                throw aborted(group, e);
            } finally {
                watchdog.disarm();
            }
            blockingWait.reset(group).await(deadlineNanos);
            for (int i = 0; i < onDevice.size(); i++) {
                Call m = group.members().get(i);
                if (m.recv() instanceof HostBuffer h && m.recvElements(size) > 0) {
                    ((DeviceBuffer) onDevice.get(i).recv()).copyTo(h.slice(0, m.recvElements(size)));
                }
            }
        } finally {
            scratch.forEach(DeviceBuffer::close);
        }
    }

    /** A device buffer holding the first {@code elements} of {@code host} (its output's old bytes too: in place). */
    private DeviceBuffer deviceCopy(HostBuffer host, long elements, java.util.List<DeviceBuffer> scratch) {
        DeviceBuffer d = DeviceBuffer.allocate(device, host.type(), Math.max(1, elements));
        scratch.add(d);
        if (elements > 0) {
            d.copyFrom(host.slice(0, elements));
        }
        return d;
    }

    private static long address(Buffer b) {
        return b == null ? 0 : ((DeviceBuffer) b).address();
    }

    /** Enqueues the NCCL call for device addresses {@code send} and {@code recv}. */
    void launch(Call call, long send, long recv, long deadline) {
        long n = call.count();
        switch (call.operation()) {
            case ALL_REDUCE -> nccl.allReduce(send, recv, n, call.type(), call.reduceOp(), stream, deadline);
            case ALL_GATHER -> nccl.allGather(send, recv, n, call.type(), stream, deadline);
            case REDUCE_SCATTER -> nccl.reduceScatter(send, recv, n, call.type(), call.reduceOp(), stream, deadline);
            case ALL_TO_ALL -> nccl.allToAll(send == recv ? copyOfInput(send, n * size * call.type().size()) : send,
                    recv, n, call.type(), size, stream, deadline, ncclVersion);
            case BROADCAST -> nccl.broadcast(rank == call.root() ? send : recv, recv, n, call.type(), call.root(), stream, deadline);
            case BARRIER -> nccl.allReduce(barrierWord.address(), barrierWord.address(), 1, io.jcoll.DataType.INT32,
                    io.jcoll.ReduceOp.SUM, stream, deadline);
            case REDUCE -> nccl.reduce(send, recv, n, call.type(), call.reduceOp(), call.root(), stream, deadline);
            case GATHER -> nccl.gather(send, recv, n, call.type(), call.root(), rank, size, stream, deadline, ncclVersion);
            case SCATTER -> nccl.scatter(send, recv, n, call.type(), call.root(), rank, size, stream, deadline,
                    ncclVersion);
            case ALL_TO_ALL_V -> {
                io.jcoll.spi.Vectors v = call.vectors();
                nccl.allToAllV(send, v.sendCounts(), v.sendOffsets(), recv, v.recvCounts(), v.recvOffsets(),
                        call.type(), stream, deadline);
            }
            case SPLIT -> nccl.allGather(send, recv, n, call.type(), stream, deadline);
            case GROUP -> {
                // one ncclGroupStart/End around every call of the group: NCCL launches them together
                nccl.groupStart(deadline);
                for (Call member : call.members()) {
                    launch(member, address(member.send()), address(member.recv()), deadline);
                }
                nccl.groupEnd(deadline);
            }
            case SEND -> nccl.send(send, n, call.type(), call.root(), stream, deadline);
            case RECV -> nccl.recv(recv, n, call.type(), call.root(), stream, deadline);
            default -> throw new IllegalArgumentException("unknown operation " + call.operation());
        }
    }

    /** Copies an in-place all-to-all's input to scratch, on the stream, so NCCL reads it while the output is written. */
    private long copyOfInput(long data, long bytes) {
        if (allToAllInput == null || allToAllInput.byteSize() < bytes) {
            if (allToAllInput != null) {
                Cuda.synchronize(stream); // the old scratch may still be read by queued work
                allToAllInput.close();
            }
            allToAllInput = DeviceBuffer.allocate(device, io.jcoll.DataType.INT8, Math.max(bytes, 1));
        }
        Cuda.copyDevice(allToAllInput.address(), data, bytes, stream);
        return allToAllInput.address();
    }

    /**
     * Waits for a launched call by polling a CUDA event while the watchdog guards the deadline and
     * NCCL's health. The event is recorded when first polled, not at launch: it then also covers
     * calls launched since, which is still correct, and a loop of launches followed by one wait
     * records one event instead of one per call.
     */
    private final class EventWait implements Completion {
        private Call call;
        private CUevent_st event;
        private boolean done;

        EventWait reset(Call call) {
            this.call = call;
            this.event = null;
            this.done = false;
            return this;
        }

        @Override
        public boolean isDone() {
            if (!done) {
                Cuda.setDevice(device);
                if (event == null) {
                    event = events[nextEvent];
                    nextEvent = (nextEvent + 1) % events.length;
                    Cuda.record(event, stream);
                }
                done = Cuda.done(event);
            }
            return done;
        }

        @Override
        public void await(long deadline) {
            watchdog.arm(deadline);
            try {
                // the watchdog owns the deadline and NCCL's health; this thread only notices its verdict
                long polls = 0;
                while (!isDone()) {
                    if ((++polls & 0xff) == 0) {
                        abandonedByWatchdog(call);
                    }
                }
                // an aborted communicator lets its stuck kernels exit, so "done" is not "succeeded"
                abandonedByWatchdog(call);
            } catch (RuntimeException e) {
                throw aborted(call, e);
            } finally {
                watchdog.disarm();
            }
        }
    }

    /** Signals only; the one caller's catch turns it into the exception, once. */
    private void abandonedByWatchdog(Call call) {
        if (watchdog.reason() != null) {
            throw new IllegalStateException("the watchdog aborted " + call.describe());
        }
    }

    /** After the watchdog aborted the communicator, any failure of the waiting thread is reported as what it saw. */
    private RuntimeException aborted(Call call, RuntimeException e) {
        String why = watchdog.reason();
        RuntimeException failure = e;
        if (why != null && !(e instanceof CollectiveTimeoutException) && !(e instanceof PeerFailureException)) {
            String op = call.operation().label();
            failure = watchdog.peerFailure()
                    ? new PeerFailureException(op, rank, JcollException.NONE, call.describe() + ": " + why, e)
                    : new CollectiveTimeoutException(op, rank, JcollException.NONE, call.describe() + ": " + why, e);
        }
        if (!call.operation().isCollective() || !(failure instanceof JcollException)) {
            return failure;
        }
        // NCCL cannot say which peer stalled or died; the store can say who never reached this call
        return failure instanceof CollectiveTimeoutException t ? diagnosis.explain(call, t)
                : diagnosis.attribute(call, (JcollException) failure);
    }

    @Override
    public void abort(Throwable cause) {
        watchdog.close();
        nccl.abort();
    }

    @Override
    public void close() {
        watchdog.close();
        Cuda.setDevice(device);
        try {
            Cuda.synchronize(stream);
        } finally {
            nccl.close(System.nanoTime() + 10_000_000_000L);
            barrierWord.close();
            if (allToAllInput != null) {
                allToAllInput.close();
            }
            staging.close();
            for (CUevent_st e : events) {
                Cuda.destroy(e);
            }
            Cuda.destroy(ownStream);
        }
    }

    /** Pinned host memory and device scratch for calls on host buffers, grown to the largest call. */
    private static final class HostStaging implements AutoCloseable {
        private final int device;
        private final int size;
        private final java.util.function.Supplier<CUstream_st> streams;
        private ByteBuffer pinned;
        private DeviceBuffer sendScratch;
        private DeviceBuffer recvScratch;

        HostStaging(int device, int size, java.util.function.Supplier<CUstream_st> streams) {
            this.device = device;
            this.size = size;
            this.streams = streams;
        }

        interface Launch {
            void launch(Call call, long send, long recv, long deadline);
        }

        /** Copies the host input to the GPU and enqueues the call on scratch. */
        void run(Call call, Launch launch, long deadline) {
            CUstream_st stream = streams.get();
            // what the call touches, not the buffers' capacity: bytes past it are the user's and stay as they are
            long sendBytes = call.sendElements(size) * call.type().size();
            long recvBytes = call.recvElements(size) * call.type().size();
            ensure(Math.max(sendBytes, recvBytes));
            // on the GPU the call runs out of place: the copy back to the host buffer makes it in place there
            long send = sendScratch.address();
            long recv = recvScratch.address();
            if (call.send() instanceof HostBuffer h && sendBytes > 0) {
                int bytes = (int) sendBytes;
                ByteBuffer in = h.readable(0, bytes, pinned.clear());
                if (in != pinned) {
                    pinned.clear().put(0, in, 0, bytes);
                }
                Cuda.copyToDevice(send, pinned.duplicate().position(0).limit(bytes), stream);
                Cuda.synchronize(stream); // the pinned buffer is reused right away
            }
            launch.launch(call, send, recv, deadline);
            if (call.recv() instanceof HostBuffer && recvBytes > 0) {
                Cuda.copyToHost(pinned.duplicate().position(0).limit((int) recvBytes), recv, stream);
            }
        }

        /** After the stream finished: copies the result from pinned memory into the host output. */
        void finish(Call call) {
            HostBuffer out = (HostBuffer) call.recv();
            int bytes = (int) (call.recvElements(size) * call.type().size());
            if (bytes == 0) {
                return;
            }
            ByteBuffer stage = pinned.duplicate().clear().limit(bytes);
            if (out.isByteAddressable()) {
                out.writable(0, bytes, null).put(0, stage, 0, bytes);
            } else {
                out.commit(0, stage); // an array: copy straight from pinned memory
            }
        }

        private void ensure(long bytes) {
            if (bytes > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("host buffers of " + bytes + " bytes are too large to stage");
            }
            if (pinned == null || pinned.capacity() < bytes) {
                close();
                int n = (int) Math.max(bytes, 4096);
                pinned = Cuda.mallocHost(n);
                sendScratch = DeviceBuffer.allocate(device, io.jcoll.DataType.INT8, n);
                recvScratch = DeviceBuffer.allocate(device, io.jcoll.DataType.INT8, n);
            }
        }

        @Override
        public void close() {
            if (pinned != null) {
                Cuda.freeHost(pinned);
                sendScratch.close();
                recvScratch.close();
                pinned = null;
            }
        }
    }
}
