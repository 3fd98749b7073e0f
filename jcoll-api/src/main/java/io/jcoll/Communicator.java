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

    /** The color of a rank that takes part in no sub-communicator of a {@link #split}. */
    int NO_COLOR = -1;

    /** {@return this rank's index in the group, {@code 0} to {@code size() - 1}} */
    int rank();

    /** {@return the number of ranks in the group} */
    int size();

    /** {@return this rank's index among the ranks on its host} */
    int localRank();

    /** {@return the transport in use and why it was chosen} */
    TransportInfo transport();

    /**
     * What the transport really moves data over (NVLink, shared memory, InfiniBand, RoCE, sockets), as it
     * reports it. For NCCL this is read from NCCL's own log, and the paths between ranks are known once
     * the first collective has connected them.
     *
     * @return the report: paths between ranks, network, devices, GPUDirect RDMA, warnings
     */
    NetworkReport network();

    /** {@return the limit on every blocking wait ({@code JCOLL_TIMEOUT})} */
    Duration timeout();

    /**
     * The transport's own interface, if it offers {@code type}: for example
     * {@code io.jcoll.nccl.NcclAccess} to read this rank's GPU or to run the
     * collectives on a CUDA stream of your own.
     *
     * @param type the element type
     * @param <T> the type wanted
     * @return the transport as {@code type}, or empty if it does not offer it
     */
    <T> java.util.Optional<T> unwrap(Class<T> type);

    // ---- AllReduce: every rank gets op over every rank's count elements

    /**
     * Reduces {@code count} elements of every rank's {@code send} with {@code op}
     * and delivers the result to every rank's {@code recv}. {@code send} and
     * {@code recv} may be the same buffer (in place).
     * <pre>{@code
     * float[] grads = ...;                                   // this rank's gradients
     * float[] mean = new float[grads.length];
     * comm.allReduce(HostBuffer.of(grads), HostBuffer.of(mean), grads.length, ReduceOp.AVG);
     * }</pre>
     *
     * @param send  this rank's input, at least {@code count} elements
     * @param recv  the output, at least {@code count} elements, writable, same type
     * @param count elements per rank (0 is allowed: a no-op that still keeps ranks in step)
     * @param op    the reduction
     * @throws io.jcoll.exceptions.InvalidArgumentException for a bad argument, before any byte moves
     */
    void allReduce(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * {@link #allReduce(Buffer, Buffer, long, ReduceOp)} started now, finished
     * later: don't touch the buffers until the request is done.
     * <pre>{@code
     * Request r = comm.allReduceAsync(grads, grads, n, ReduceOp.SUM);
     * computeSomethingElse();
     * r.await();
     * }</pre>
     *
     * @return the handle to wait on
     * @param send this rank's input
     * @param recv the output
     * @param count elements (per rank; see the operation above)
     * @param op the reduction
     */
    Request allReduceAsync(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * In place over all of {@code data}.
     *
     * @param data the buffer, input and output at once
     * @param op the reduction
     */
    default void allReduce(Buffer data, ReduceOp op) {
        allReduce(data, data, data.count(), op);
    }

    // ---- AllGather: recv holds size * count; rank r's send lands at r * count

    /**
     * Gathers every rank's {@code count} elements into every rank's {@code recv},
     * rank {@code r}'s at element {@code r * count}.
     * <pre>{@code
     * long[] mine = {comm.rank()};
     * long[] all = new long[comm.size()];
     * comm.allGather(HostBuffer.of(mine), HostBuffer.of(all), 1);   // all = {0, 1, ..., size - 1}
     * }</pre>
     *
     * @param send  this rank's {@code count} elements
     * @param recv  the output, {@code size() * count} elements
     * @param count elements each rank contributes
     */
    void allGather(Buffer send, Buffer recv, long count);

    /**
     * {@link #allGather(Buffer, Buffer, long)} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the output
     * @param count elements (per rank; see the operation above)
     * @return the handle to wait on
     */
    Request allGatherAsync(Buffer send, Buffer recv, long count);

    /**
     * In place: {@code data} holds {@code size * count}; this rank's part is at {@code rank * count}.
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     */
    default void allGather(Buffer data, long count) {
        allGather(data.slice(Math.multiplyExact((long) rank(), count), count), data, count);
    }

    // ---- ReduceScatter: send holds size * count; rank r gets op over block r

    /**
     * Reduces every rank's {@code send} ({@code size() * count} elements) with
     * {@code op} and gives rank {@code r} block {@code r} of the result.
     * <pre>{@code
     * // each rank owns one shard of the summed gradient (ZeRO, FSDP)
     * comm.reduceScatter(HostBuffer.of(fullGrad), HostBuffer.of(myShard), shardLength, ReduceOp.SUM);
     * }</pre>
     *
     * @param send  {@code size() * count} elements
     * @param recv  the output, {@code count} elements
     * @param count elements each rank receives
     * @param op    the reduction
     */
    void reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * {@link #reduceScatter(Buffer, Buffer, long, ReduceOp)} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the output
     * @param count elements (per rank; see the operation above)
     * @param op the reduction
     * @return the handle to wait on
     */
    Request reduceScatterAsync(Buffer send, Buffer recv, long count, ReduceOp op);

    /**
     * In place: the result lands at {@code rank * count} of {@code data}; the rest becomes unspecified.
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     * @param op the reduction
     */
    default void reduceScatter(Buffer data, long count, ReduceOp op) {
        reduceScatter(data, data.slice(Math.multiplyExact((long) rank(), count), count), count, op);
    }

    // ---- AllToAll: block p of send goes to rank p; block p of recv comes from rank p

    /**
     * Sends block {@code p} of {@code send} to rank {@code p}, and receives
     * rank {@code p}'s block for this rank into block {@code p} of {@code recv};
     * blocks are {@code countPerRank} elements.
     * <pre>{@code
     * // mixture of experts: tokens grouped by the rank that owns their expert
     * comm.allToAll(HostBuffer.of(byDestination), HostBuffer.of(bySource), tokensPerBlock * width);
     * }</pre>
     *
     * @param send         {@code size() * countPerRank} elements
     * @param recv         {@code size() * countPerRank} elements
     * @param countPerRank elements in each block
     */
    void allToAll(Buffer send, Buffer recv, long countPerRank);

    /**
     * {@link #allToAll(Buffer, Buffer, long)} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the output
     * @param countPerRank elements in each block
     * @return the handle to wait on
     */
    Request allToAllAsync(Buffer send, Buffer recv, long countPerRank);

    /**
     * In place over {@code data}, which holds {@code size * countPerRank}.
     *
     * @param data the buffer, input and output at once
     * @param countPerRank elements in each block
     */
    default void allToAll(Buffer data, long countPerRank) {
        allToAll(data, data, countPerRank);
    }

    // ---- Broadcast: root's send reaches every rank's recv (send is ignored elsewhere and may be null)

    /**
     * Copies {@code count} elements of {@code root}'s {@code send} into every
     * rank's {@code recv} (the root's too).
     * <pre>{@code
     * comm.broadcast(HostBuffer.of(initialWeights), 0);   // in place: rank 0's weights everywhere
     * }</pre>
     *
     * @param send  the root's input; ignored on other ranks, where it may be null
     * @param recv  the output on every rank
     * @param count elements
     * @param root  the rank whose input is sent, {@code 0} to {@code size() - 1}
     */
    void broadcast(Buffer send, Buffer recv, long count, int root);

    /**
     * {@link #broadcast(Buffer, Buffer, long, int)} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the output
     * @param count elements (per rank; see the operation above)
     * @param root the rank whose input is sent
     * @return the handle to wait on
     */
    Request broadcastAsync(Buffer send, Buffer recv, long count, int root);

    /**
     * In place over all of {@code data}.
     *
     * @param data the buffer, input and output at once
     * @param root the rank whose input is sent
     */
    default void broadcast(Buffer data, int root) {
        broadcast(data, data, data.count(), root);
    }

    // ---- Uneven All-to-All: a different number of elements to and from each rank

    /**
     * Sends {@code sendCounts[p]} elements, starting at element {@code sendOffsets[p]} of {@code send}, to rank
     * {@code p}, and receives {@code recvCounts[p]} elements from rank {@code p} at element {@code recvOffsets[p]}
     * of {@code recv} (MPI_Alltoallv; torch's {@code all_to_all_single} with split sizes). What rank {@code a}
     * sends to rank {@code b} must be exactly what {@code b} expects from {@code a}: counts that disagree fail
     * on both ranks, naming both. Blocks of {@code recv} must not overlap.
     * <pre>{@code
     * // mixture of experts: first how many tokens go where, then the tokens themselves
     * comm.allToAll(HostBuffer.of(tokensFor), HostBuffer.of(tokensFrom), 1);
     * comm.allToAllV(HostBuffer.of(out), times(tokensFor, width), null, HostBuffer.of(in), times(tokensFrom, width), null);
     * }</pre>
     *
     * @param send        this rank's input
     * @param sendCounts  elements for each rank, {@code size()} of them
     * @param sendOffsets where each rank's elements start in {@code send}; null for packed (each right after the last)
     * @param recv        the output
     * @param recvCounts  elements from each rank, {@code size()} of them
     * @param recvOffsets where each rank's elements land in {@code recv}; null for packed
     */
    void allToAllV(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                   long[] recvOffsets);

    /**
     * {@link #allToAllV} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param sendCounts elements for each rank
     * @param sendOffsets where each rank's elements start, or null for packed
     * @param recv the output
     * @param recvCounts elements from each rank
     * @param recvOffsets where each rank's elements land, or null for packed
     * @return the handle to wait on
     */
    Request allToAllVAsync(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                           long[] recvOffsets);

    // ---- Rooted: Reduce, Gather, Scatter

    /**
     * Reduces {@code count} elements of every rank's {@code send} with {@code op} into {@code root}'s
     * {@code recv}; other ranks' {@code recv} is ignored and may be null.
     *
     * @param send  this rank's input
     * @param recv  the root's output, {@code count} elements; may be null elsewhere
     * @param count elements
     * @param op    the reduction
     * @param root  the rank that gets the result
     */
    void reduce(Buffer send, Buffer recv, long count, ReduceOp op, int root);

    /**
     * {@link #reduce} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the root's output
     * @param count elements
     * @param op the reduction
     * @param root the rank that gets the result
     * @return the handle to wait on
     */
    Request reduceAsync(Buffer send, Buffer recv, long count, ReduceOp op, int root);

    /**
     * Gathers every rank's {@code count} elements into {@code root}'s {@code recv}, rank {@code r}'s at element
     * {@code r * count}; other ranks' {@code recv} is ignored and may be null.
     *
     * @param send  this rank's {@code count} elements
     * @param recv  the root's output, {@code size() * count} elements; may be null elsewhere
     * @param count elements each rank contributes
     * @param root  the rank that gathers
     */
    void gather(Buffer send, Buffer recv, long count, int root);

    /**
     * {@link #gather} started now; the request says when it is done.
     *
     * @param send this rank's input
     * @param recv the root's output
     * @param count elements each rank contributes
     * @param root the rank that gathers
     * @return the handle to wait on
     */
    Request gatherAsync(Buffer send, Buffer recv, long count, int root);

    /**
     * Sends block {@code r} ({@code count} elements at {@code r * count}) of {@code root}'s {@code send} to rank
     * {@code r}'s {@code recv}; other ranks' {@code send} is ignored and may be null.
     *
     * @param send  the root's input, {@code size() * count} elements; may be null elsewhere
     * @param recv  this rank's output, {@code count} elements
     * @param count elements each rank receives
     * @param root  the rank that scatters
     */
    void scatter(Buffer send, Buffer recv, long count, int root);

    /**
     * {@link #scatter} started now; the request says when it is done.
     *
     * @param send the root's input
     * @param recv this rank's output
     * @param count elements each rank receives
     * @param root the rank that scatters
     * @return the handle to wait on
     */
    Request scatterAsync(Buffer send, Buffer recv, long count, int root);

    // ---- Groups of ranks and groups of calls

    /**
     * Forms sub-communicators: the ranks that pass the same {@code color} form one, ordered by {@code key},
     * then by rank in this communicator (MPI_Comm_split, ncclCommSplit, torch's {@code split_group}). A
     * collective over this communicator: every rank calls it, in the same place of its order. A rank that
     * passes {@link #NO_COLOR} takes part in none and gets an empty result.
     *
     * <p>The new communicator uses this one's transport, has its own order of calls (calls on the two never
     * mix, and each may be used from its own thread), and is closed with this one at the latest.
     * <pre>{@code
     * // 8 ranks as 2 nodes x 4 GPUs: tensor parallel inside a node, data parallel across
     * Communicator node = comm.split(comm.rank() / 4, comm.rank()).orElseThrow();
     * Communicator replicas = comm.split(comm.rank() % 4, comm.rank()).orElseThrow();
     * }</pre>
     *
     * @param color a number 0 or more naming the new group, or {@link #NO_COLOR}
     * @param key   this rank's place in the new group relative to the others of its color
     * @return this rank's new communicator, or empty for {@link #NO_COLOR}
     */
    java.util.Optional<Communicator> split(int color, int key);

    /**
     * Arranges the ranks as a grid of {@code shape} (its product must be {@code size()}), in row-major order
     * as torch's {@code DeviceMesh}: the communicators along each dimension hold the ranks that differ only in
     * that coordinate. A collective over this communicator.
     * <pre>{@code
     * try (ProcessMesh mesh = comm.mesh(2, 4)) {     // 2 replicas x 4 shards
     *     Communicator shards = mesh.along(1);      // the 4 ranks of this rank's replica
     *     Communicator replicas = mesh.along(0);    // the 2 ranks holding this rank's shard
     * }
     * }</pre>
     *
     * @param shape the size of each dimension
     * @return the mesh, with one communicator per dimension
     */
    ProcessMesh mesh(int... shape);

    /**
     * Starts a group of calls issued as one, as NCCL's {@code ncclGroupStart}/{@code ncclGroupEnd} and torch's
     * {@code batch_isend_irecv}: nothing runs until {@link Group#end()}, and then every send and receive of the
     * group is in flight at once, so a rank may send to the next stage and receive from the previous one without
     * ordering them by hand. While a group is open, other calls on this communicator are refused.
     * <pre>{@code
     * try (Group g = comm.group()) {                 // close() ends the group and waits for it
     *     g.send(activations, n, next).recv(incoming, n, previous);
     * }
     * }</pre>
     *
     * @return the open group
     */
    Group group();

    /**
     * Fails every pending and future call on this communicator and its sub-communicators at once, on this rank,
     * and on the others as soon as they hear of it (at once over TCP, within {@link #timeout()} at the latest),
     * each naming this rank; like {@code ncclCommAbort}. Callable from any thread, at any time, more than once.
     */
    void abort();

    /**
     * As {@link #abort()}, each failing call naming {@code reason} as the cause (a framework aborting for its own
     * reasons says which: jcoll-spark passes "Spark killed this task: ...").
     *
     * @param reason why this rank aborts, in a few words
     */
    void abort(String reason);

    /**
     * The doctor across the whole job (collective: every rank calls it). Each rank probes its node; the nodes are
     * compared (MTUs, RDMA ports, GPUDirect, NCCL/CUDA/driver versions, locked-memory and socket-buffer limits, CPU
     * placement), each node's own traps are gathered, and one process per host measures the network to every other
     * host with a short TCP exchange, flagging pairs that cannot connect and links far below the median. Uses only
     * the rendezvous store and sockets of its own, never this communicator's transport. Takes a few seconds per host;
     * every wait is bounded. {@code jcoll doctor --run} under a launcher prints the same report.
     *
     * <pre>{@code
     * JobReport report = comm.doctor();
     * if (comm.rank() == 0 && !report.healthy()) System.err.println(report.text());
     * }</pre>
     *
     * @return the same report on every rank
     */
    JobReport doctor();

    // ---- Barrier and point-to-point

    /** Returns once every rank has called it: {@code comm.barrier(); // all checkpoints are written} */
    void barrier();

    /** {@return {@link #barrier()} started now; the request is done once every rank has arrived} */
    Request barrierAsync();

    /**
     * Sends {@code count} elements to {@code peer}, which must {@link #recv} the same count and type.
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     * @param peer the other rank
     */
    void send(Buffer data, long count, int peer);

    /**
     * {@link #send(Buffer, long, int)} started now; the request says when {@code data} may be reused.
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     * @param peer the other rank
     * @return the handle to wait on
     */
    Request sendAsync(Buffer data, long count, int peer);

    /**
     * Receives {@code count} elements from {@code peer}, which must {@link #send}
     * the same count and type.
     * <pre>{@code
     * if (comm.rank() == 0) comm.send(HostBuffer.of(block), block.length, 1);
     * else if (comm.rank() == 1) comm.recv(HostBuffer.of(block), block.length, 0);
     * }</pre>
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     * @param peer the other rank
     */
    void recv(Buffer data, long count, int peer);

    /**
     * {@link #recv(Buffer, long, int)} started now; the request says when {@code data} holds the message.
     *
     * @param data the buffer, input and output at once
     * @param count elements (per rank; see the operation above)
     * @param peer the other rank
     * @return the handle to wait on
     */
    Request recvAsync(Buffer data, long count, int peer);

    /**
     * Waits for issued operations, then leaves the group; peers learn this rank
     * left on purpose. Idempotent.
     */
    @Override
    void close();
}
