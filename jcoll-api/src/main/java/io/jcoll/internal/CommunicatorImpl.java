package io.jcoll.internal;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.TransportInfo;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Transport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The communicator every transport shares: it validates, numbers and orders
 * calls, runs blocking ones on the caller's thread (no hand-off on the hot
 * path) and asynchronous ones on one worker thread, and aborts the transport
 * on the first failure so that no later call waits on a broken group.
 *
 * <p>Calls from several threads are serialised: each is numbered when issued,
 * and runs in that order. Ranks must still issue the same sequence.
 */
public final class CommunicatorImpl implements Communicator {

    private final int rank;
    private final int size;
    private final int localRank;
    private final TransportInfo info;
    private final Duration timeout;
    private final Transport transport;
    private final AutoCloseable rendezvous;
    private final CallValidator validator;

    private final Object issueLock = new Object();
    private final ReentrantLock runLock = new ReentrantLock();
    private final AtomicInteger queued = new AtomicInteger();
    private ExecutorService worker;           // created on the first asynchronous call
    private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
    private long nextSequence;
    private volatile JcollException failure;
    private volatile boolean closed;

    public CommunicatorImpl(int rank, int size, int localRank, TransportInfo info, Duration timeout,
                            Transport transport, AutoCloseable rendezvous) {
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.info = info;
        this.timeout = timeout;
        this.transport = transport;
        this.rendezvous = rendezvous;
        this.validator = new CallValidator(rank, size, transport);
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
        run(issue("allReduce", () -> validator.allReduce(send, recv, count, op, nextSequence)));
    }

    @Override
    public Request allReduceAsync(Buffer send, Buffer recv, long count, ReduceOp op) {
        return submit(issue("allReduce", () -> validator.allReduce(send, recv, count, op, nextSequence)));
    }

    @Override
    public void allGather(Buffer send, Buffer recv, long count) {
        run(issue("allGather", () -> validator.allGather(send, recv, count, nextSequence)));
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
        return submit(issue("allGather", () -> validator.allGather(send, recv, count, nextSequence)));
    }

    @Override
    public void reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op) {
        run(issue("reduceScatter", () -> validator.reduceScatter(send, recv, count, op, nextSequence)));
    }

    @Override
    public Request reduceScatterAsync(Buffer send, Buffer recv, long count, ReduceOp op) {
        return submit(issue("reduceScatter", () -> validator.reduceScatter(send, recv, count, op, nextSequence)));
    }

    @Override
    public void allToAll(Buffer send, Buffer recv, long countPerRank) {
        run(issue("allToAll", () -> validator.allToAll(send, recv, countPerRank, nextSequence)));
    }

    @Override
    public Request allToAllAsync(Buffer send, Buffer recv, long countPerRank) {
        return submit(issue("allToAll", () -> validator.allToAll(send, recv, countPerRank, nextSequence)));
    }

    @Override
    public void broadcast(Buffer send, Buffer recv, long count, int root) {
        run(issue("broadcast", () -> validator.broadcast(send, recv, count, root, nextSequence)));
    }

    @Override
    public Request broadcastAsync(Buffer send, Buffer recv, long count, int root) {
        return submit(issue("broadcast", () -> validator.broadcast(send, recv, count, root, nextSequence)));
    }

    @Override
    public void barrier() {
        run(issue("barrier", () -> validator.barrier(nextSequence)));
    }

    @Override
    public Request barrierAsync() {
        return submit(issue("barrier", () -> validator.barrier(nextSequence)));
    }

    @Override
    public void send(Buffer data, long count, int peer) {
        run(issue("send", () -> validator.send(data, count, peer)));
    }

    @Override
    public Request sendAsync(Buffer data, long count, int peer) {
        return submit(issue("send", () -> validator.send(data, count, peer)));
    }

    @Override
    public void recv(Buffer data, long count, int peer) {
        run(issue("recv", () -> validator.recv(data, count, peer)));
    }

    @Override
    public Request recvAsync(Buffer data, long count, int peer) {
        return submit(issue("recv", () -> validator.recv(data, count, peer)));
    }

    // ---- ordering and execution

    private interface Validation {
        Call validate();
    }

    /** A call, and whether it must queue behind asynchronous calls issued before it. */
    private record Issued(Call call, boolean inline) {
    }

    /**
     * Validates and numbers a call. An inline call leaves here holding the run
     * lock, so that no call issued after it can run before it.
     */
    private Issued issue(String operation, Validation v) {
        synchronized (issueLock) {
            ensureOpen(operation);
            Call call;
            try {
                call = v.validate();
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                throw new InvalidArgumentException(operation, rank, JcollException.NONE, e.getMessage());
            }
            if (call.operation().isCollective()) {
                nextSequence++; // numbered only once accepted, so a rejected call leaves ranks in step
            }
            boolean inline = queued.get() == 0;
            if (inline) {
                runLock.lock();
            }
            return new Issued(call, inline);
        }
    }

    private void run(Issued issued) {
        if (!issued.inline()) {
            submit(issued).await();
            return;
        }
        try {
            execute(issued.call());
        } finally {
            runLock.unlock();
        }
    }

    private Request submit(Issued issued) {
        if (transport.enqueues()) {
            return enqueue(issued);
        }
        if (issued.inline()) {
            runLock.unlock(); // asynchronous calls always go through the worker, in issue order
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (issueLock) {
            queued.incrementAndGet();
            last = done;
            worker().execute(() -> {
                runLock.lock();
                try {
                    execute(issued.call());
                    done.complete(null);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                } finally {
                    runLock.unlock();
                    queued.decrementAndGet();
                }
            });
        }
        return new FutureRequest(done, issued.call().operation().label());
    }

    /** A transport with its own queue (a GPU stream): start the call here, in issue order, and wait on its end. */
    private Request enqueue(Issued issued) {
        if (!issued.inline()) {
            runLock.lock();
        }
        Call call = issued.call();
        Transport.Completion completion;
        try {
            completion = guarded(call, () -> transport.enqueue(call, System.nanoTime() + timeout.toNanos()));
        } finally {
            runLock.unlock();
        }
        return new CompletionRequest(completion, call);
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

    private void execute(Call call) {
        guarded(call, () -> {
            transport.execute(call, System.nanoTime() + timeout.toNanos());
            return null;
        });
    }

    /** Runs transport work; a failure other than a rejected argument aborts the communicator. */
    private <T> T guarded(Call call, java.util.function.Supplier<T> work) {
        ensureOpen(call.operation().label());
        try {
            return work.get();
        } catch (InvalidArgumentException e) {
            throw e;
        } catch (JcollException e) {
            fail(e);
            throw e;
        } catch (RuntimeException | Error e) {
            JcollException wrapped = new JcollException(call.operation().label(), rank, JcollException.NONE,
                    "internal failure in the " + transport.name() + " transport: " + e, e);
            fail(wrapped);
            throw wrapped;
        }
    }

    private void fail(JcollException e) {
        if (failure == null) {
            failure = e;
            transport.abort(e);
        }
    }

    private void ensureOpen(String operation) {
        JcollException f = failure;
        if (f != null) {
            throw new CommunicatorClosedException(operation, rank, f.peer(),
                    "the communicator was aborted by an earlier failure: " + f.getMessage(), f);
        }
        if (closed) {
            throw new CommunicatorClosedException(operation, rank, JcollException.NONE, "the communicator is closed");
        }
    }

    @Override
    public void close() {
        CompletableFuture<Void> pending;
        synchronized (issueLock) {
            if (closed) {
                return;
            }
            pending = last;
        }
        try {
            pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (Exception ignored) {
            // its failure was reported to whoever waited on it; closing goes on
        }
        synchronized (issueLock) {
            closed = true;
        }
        runLock.lock();
        try {
            if (failure == null) {
                transport.close();
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
        }
    }

    /** A request over a transport's own completion (a CUDA event): waiting costs no thread hand-off. */
    private final class CompletionRequest implements Request {
        private final Transport.Completion completion;
        private final Call call;

        CompletionRequest(Transport.Completion completion, Call call) {
            this.completion = completion;
            this.call = call;
        }

        @Override
        public boolean isDone() {
            return completion.isDone();
        }

        @Override
        public void await() {
            guarded(call, () -> {
                completion.await(System.nanoTime() + timeout.toNanos());
                return null;
            });
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
    private final class FutureRequest implements Request {
        private final CompletableFuture<Void> future;
        private final String operation;

        FutureRequest(CompletableFuture<Void> future, String operation) {
            this.future = future;
            this.operation = operation;
        }

        @Override
        public boolean isDone() {
            return future.isDone();
        }

        @Override
        public void await() {
            // the operation enforces its own deadline; the slack covers time spent queued
            if (!await(timeout.plus(timeout))) {
                throw new CollectiveTimeoutException(operation, rank, JcollException.NONE,
                        "did not complete within " + timeout.plus(timeout).toSeconds() + " s");
            }
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
