package io.jcoll;

/**
 * Calls recorded now and issued together by {@link #end()}: see {@link Communicator#group()}. Each call is
 * checked when it is recorded, and a rejected one leaves the group as it was. Every rank issues the same
 * collectives in its groups in the same order; sends and receives between two ranks match in the order each
 * records them. Not for use from several threads at once.
 * <pre>{@code
 * // one step of a pipeline stage: activations forward and gradients backward, in flight together
 * try (Group g = comm.group()) {
 *     if (next >= 0) g.send(activations, n, next).recv(gradientsIn, n, next);
 *     if (previous >= 0) g.recv(input, n, previous).send(gradientsOut, n, previous);
 * }
 * }</pre>
 */
public interface Group extends AutoCloseable {

    /**
     * Records a send; see {@link Communicator#send}.
     *
     * @param data the buffer
     * @param count elements
     * @param peer the other rank
     * @return this group
     */
    Group send(Buffer data, long count, int peer);

    /**
     * Records a receive; see {@link Communicator#recv}.
     *
     * @param data the buffer
     * @param count elements
     * @param peer the other rank
     * @return this group
     */
    Group recv(Buffer data, long count, int peer);

    /**
     * Records an allReduce; see {@link Communicator#allReduce(Buffer, Buffer, long, ReduceOp)}.
     *
     * @param send input
     * @param recv output
     * @param count elements
     * @param op the reduction
     * @return this group
     */
    Group allReduce(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * Records an allGather; see {@link Communicator#allGather(Buffer, Buffer, long)}.
     *
     * @param send input
     * @param recv output
     * @param count elements per rank
     * @return this group
     */
    Group allGather(Buffer send, Buffer recv, long count);

    /**
     * Records a reduceScatter; see {@link Communicator#reduceScatter(Buffer, Buffer, long, ReduceOp)}.
     *
     * @param send input
     * @param recv output
     * @param count elements per rank
     * @param op the reduction
     * @return this group
     */
    Group reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * Records an allToAll; see {@link Communicator#allToAll(Buffer, Buffer, long)}.
     *
     * @param send input
     * @param recv output
     * @param countPerRank elements per block
     * @return this group
     */
    Group allToAll(Buffer send, Buffer recv, long countPerRank);

    /**
     * Records an uneven allToAll; see {@link Communicator#allToAllV}.
     *
     * @param send input
     * @param sendCounts per rank
     * @param sendOffsets per rank, or null
     * @param recv output
     * @param recvCounts per rank
     * @param recvOffsets per rank, or null
     * @return this group
     */
    Group allToAllV(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                    long[] recvOffsets);

    /**
     * Records a broadcast; see {@link Communicator#broadcast(Buffer, Buffer, long, int)}.
     *
     * @param send the root's input
     * @param recv output
     * @param count elements
     * @param root the root
     * @return this group
     */
    Group broadcast(Buffer send, Buffer recv, long count, int root);

    /**
     * Records a reduce; see {@link Communicator#reduce}.
     *
     * @param send input
     * @param recv the root's output
     * @param count elements
     * @param op the reduction
     * @param root the root
     * @return this group
     */
    Group reduce(Buffer send, Buffer recv, long count, ReduceOp op, int root);

    /**
     * Records a gather; see {@link Communicator#gather}.
     *
     * @param send input
     * @param recv the root's output
     * @param count elements per rank
     * @param root the root
     * @return this group
     */
    Group gather(Buffer send, Buffer recv, long count, int root);

    /**
     * Records a scatter; see {@link Communicator#scatter}.
     *
     * @param send the root's input
     * @param recv output
     * @param count elements per rank
     * @param root the root
     * @return this group
     */
    Group scatter(Buffer send, Buffer recv, long count, int root);

    /** {@return how many calls the group holds} */
    int size();

    /**
     * Issues every recorded call at once and closes the group; the communicator takes other calls again.
     * Don't touch the group's buffers until the request is done.
     *
     * @return the handle to wait on, done when every call of the group is
     */
    Request end();

    /** Ends the group if it is still open and waits for it. */
    @Override
    void close();
}
