package io.jcoll.internal;

import io.jcoll.Buffer;
import io.jcoll.Group;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A group being recorded: each call is validated as it is added (collectives are numbered only when the group
 * is issued, so that a rejected call leaves the ranks in step), and {@link #end()} hands them all to the
 * communicator as one call.
 */
final class GroupImpl implements Group {

    private final CommunicatorImpl comm;
    private final CallValidator validator;
    private final List<Call> calls = new ArrayList<>();
    private Request ended;

    GroupImpl(CommunicatorImpl comm, CallValidator validator) {
        this.comm = comm;
        this.validator = validator;
    }

    private Group add(String operation, java.util.function.Supplier<Call> validation) {
        comm.checkCaller(operation);
        if (ended != null) {
            throw new InvalidArgumentException(operation, comm.rank(), JcollException.NONE,
                    "this group was already ended; start another with comm.group()");
        }
        try {
            calls.add(validation.get());
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            if (e instanceof InvalidArgumentException) {
                throw e;
            }
            throw new InvalidArgumentException(operation, comm.rank(), JcollException.NONE, e.getMessage());
        }
        return this;
    }

    @Override
    public Group send(Buffer data, long count, int peer) {
        return add("send", () -> validator.send(data, count, peer));
    }

    @Override
    public Group recv(Buffer data, long count, int peer) {
        return add("recv", () -> validator.recv(data, count, peer));
    }

    @Override
    public Group allReduce(Buffer send, Buffer recv, long count, ReduceOp op) {
        return add("allReduce", () -> validator.allReduce(send, recv, count, op, -1));
    }

    @Override
    public Group allGather(Buffer send, Buffer recv, long count) {
        return add("allGather", () -> validator.allGather(send, recv, count, -1));
    }

    @Override
    public Group reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op) {
        return add("reduceScatter", () -> validator.reduceScatter(send, recv, count, op, -1));
    }

    @Override
    public Group allToAll(Buffer send, Buffer recv, long countPerRank) {
        return add("allToAll", () -> validator.allToAll(send, recv, countPerRank, -1));
    }

    @Override
    public Group allToAllV(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                           long[] recvOffsets) {
        return add("allToAllV", () -> validator.allToAllV(send, sendCounts, sendOffsets, recv, recvCounts,
                recvOffsets, -1));
    }

    @Override
    public Group broadcast(Buffer send, Buffer recv, long count, int root) {
        return add("broadcast", () -> validator.broadcast(send, recv, count, root, -1));
    }

    @Override
    public Group reduce(Buffer send, Buffer recv, long count, ReduceOp op, int root) {
        return add("reduce", () -> validator.reduce(send, recv, count, op, root, -1));
    }

    @Override
    public Group gather(Buffer send, Buffer recv, long count, int root) {
        return add("gather", () -> validator.gather(send, recv, count, root, -1));
    }

    @Override
    public Group scatter(Buffer send, Buffer recv, long count, int root) {
        return add("scatter", () -> validator.scatter(send, recv, count, root, -1));
    }

    @Override
    public int size() {
        return calls.size();
    }

    @Override
    public Request end() {
        comm.checkCaller("group");
        if (ended == null) {
            ended = comm.submit(comm.issueGroup(this, calls, true));
        }
        return ended;
    }

    @Override
    public void close() {
        comm.checkCaller("group");
        if (ended == null) {
            ended = DONE;
            comm.run(comm.issueGroup(this, calls, false)); // on this thread: no hand-off to the worker
        } else {
            ended.await();
        }
    }

    private static final Request DONE = new Request() {
        @Override public boolean isDone() { return true; }
        @Override public void await() { }
        @Override public boolean await(Duration limit) { return true; }
    };
}
