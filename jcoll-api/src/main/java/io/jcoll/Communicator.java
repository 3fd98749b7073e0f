package io.jcoll;

import java.time.Duration;

/**
 * One rank's handle on a group of ranks that run collectives together.
 *
 * <p>Every rank must issue the same collectives in the same order with
 * matching arguments. Counts are in elements of the buffers' type. Each
 * operation has a blocking form and an asynchronous form returning a
 * {@link Request}; operations run in issue order. Every argument is checked
 * before any byte moves, and a rejected call leaves the communicator usable.
 * A failure while data moves (a peer died, a timeout) aborts the communicator.
 *
 * <p>In-place use follows NCCL and MPI: pass the same buffer as input and
 * output for allReduce, allToAll and broadcast; for allGather the input is
 * the output's slice at {@code rank * count}; for reduceScatter the output is
 * the input's slice at {@code rank * count}. The one-buffer overloads do that
 * for you.
 *
 * <pre>{@code
 * try (Communicator comm = Jcoll.fromEnvironment()) {
 *     float[] grads = new float[1 << 20];
 *     comm.allReduce(HostBuffer.of(grads), ReduceOp.AVG);   // in place
 * }
 * }</pre>
 */
public interface Communicator extends AutoCloseable {

    int rank();

    int size();

    /** This rank's index among the ranks on its host. */
    int localRank();

    /** The transport in use and why it was chosen. */
    TransportInfo transport();

    /**
     * What the transport really moves data over (NVLink, shared memory, InfiniBand, RoCE, sockets), as it
     * reports it. For NCCL this is read from NCCL's own log, and the paths between ranks are known once
     * the first collective has connected them.
     */
    NetworkReport network();

    /** The limit on every blocking wait ({@code JCOLL_TIMEOUT}). */
    Duration timeout();

    /**
     * The transport's own interface, if it offers {@code type}: for example
     * {@code io.jcoll.nccl.NcclAccess} to read this rank's GPU or to run the
     * collectives on a CUDA stream of your own.
     */
    <T> java.util.Optional<T> unwrap(Class<T> type);

    // ---- AllReduce: every rank gets op over every rank's count elements

    void allReduce(Buffer send, Buffer recv, long count, ReduceOp op);

    Request allReduceAsync(Buffer send, Buffer recv, long count, ReduceOp op);

    /** In place over all of {@code data}. */
    default void allReduce(Buffer data, ReduceOp op) {
        allReduce(data, data, data.count(), op);
    }

    // ---- AllGather: recv holds size * count; rank r's send lands at r * count

    void allGather(Buffer send, Buffer recv, long count);

    Request allGatherAsync(Buffer send, Buffer recv, long count);

    /** In place: {@code data} holds {@code size * count}; this rank's part is at {@code rank * count}. */
    default void allGather(Buffer data, long count) {
        allGather(data.slice(Math.multiplyExact((long) rank(), count), count), data, count);
    }

    // ---- ReduceScatter: send holds size * count; rank r gets op over block r

    void reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op);

    Request reduceScatterAsync(Buffer send, Buffer recv, long count, ReduceOp op);

    /** In place: the result lands at {@code rank * count} of {@code data}; the rest becomes unspecified. */
    default void reduceScatter(Buffer data, long count, ReduceOp op) {
        reduceScatter(data, data.slice(Math.multiplyExact((long) rank(), count), count), count, op);
    }

    // ---- AllToAll: block p of send goes to rank p; block p of recv comes from rank p

    void allToAll(Buffer send, Buffer recv, long countPerRank);

    Request allToAllAsync(Buffer send, Buffer recv, long countPerRank);

    /** In place over {@code data}, which holds {@code size * countPerRank}. */
    default void allToAll(Buffer data, long countPerRank) {
        allToAll(data, data, countPerRank);
    }

    // ---- Broadcast: root's send reaches every rank's recv (send is ignored elsewhere and may be null)

    void broadcast(Buffer send, Buffer recv, long count, int root);

    Request broadcastAsync(Buffer send, Buffer recv, long count, int root);

    /** In place over all of {@code data}. */
    default void broadcast(Buffer data, int root) {
        broadcast(data, data, data.count(), root);
    }

    // ---- Barrier and point-to-point

    void barrier();

    Request barrierAsync();

    /** Sends {@code count} elements to {@code peer}, which must {@link #recv} the same count and type. */
    void send(Buffer data, long count, int peer);

    Request sendAsync(Buffer data, long count, int peer);

    void recv(Buffer data, long count, int peer);

    Request recvAsync(Buffer data, long count, int peer);

    /**
     * Waits for issued operations, then leaves the group; peers learn this rank
     * left on purpose. Idempotent.
     */
    @Override
    void close();
}
