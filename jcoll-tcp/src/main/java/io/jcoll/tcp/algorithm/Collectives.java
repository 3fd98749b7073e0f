package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Operation;
import io.jcoll.spi.StagedAccess;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;

import java.nio.ByteBuffer;
import java.util.function.LongToIntFunction;

/**
 * Runs a validated call over buffers reached through {@link StagedAccess} by choosing an algorithm: the size
 * thresholds in {@link Tuning} pick latency- or bandwidth-optimal ones. Written
 * once against {@link io.jcoll.tcp.p2p.PointToPoint}, so any transport that can
 * move bytes between ranks gets every collective from here.
 *
 * <p>A call can also be run a part at a time: {@link #runPart} moves elements {@code [from, to)} of every rank's
 * block (of the whole message for allReduce and broadcast), so that the parts of one large call can travel over
 * independent connections at once and together do exactly what the whole call does.
 */
public final class Collectives {

    private Collectives() {
    }

    public static void run(AlgorithmContext ctx, Call call) {
        runShare(ctx, call, 0, 1);
    }

    /**
     * Share {@code part} of {@code parts} of every block of {@code call} ({@link Blocks#share}): what one of
     * several channels moves. The shares of a call, run in any order or side by side, do exactly what the whole
     * call does. An uneven all-to-all cuts each direction of each pair by its own length instead: see
     * {@link #runUnevenShare}, with every block in {@code parts} shares.
     */
    public static void runShare(AlgorithmContext ctx, Call call, int part, int parts) {
        if (call.operation() == Operation.ALL_TO_ALL_V) {
            runUnevenShare(ctx, call, part, bytes -> parts);
            return;
        }
        long count = call.count();
        runPart(ctx, call, count * part / parts, count * (part + 1) / parts);
    }

    /**
     * Share {@code part} of an uneven all-to-all: the block for (from) each peer is cut into
     * {@code sharesFor(its bytes)} shares, a number both ends of that direction compute alike from the length
     * they agree on, and this runs share {@code part} of each (nothing of a block with fewer shares). Share 0
     * exchanges a message with every peer even where its block is empty, so that a receiver always sees the
     * count its sender meant.
     */
    public static void runUnevenShare(AlgorithmContext ctx, Call call, int part, LongToIntFunction sharesFor) {
        io.jcoll.spi.Vectors v = call.vectors();
        int typeSize = call.type().size();
        Blocks out = Blocks.share(Blocks.explicit(v.sendCounts(), v.sendOffsets()), part,
                i -> sharesFor.applyAsInt(v.sendCounts()[i] * typeSize));
        Blocks in = Blocks.share(Blocks.explicit(v.recvCounts(), v.recvOffsets()), part,
                i -> sharesFor.applyAsInt(v.recvCounts()[i] * typeSize));
        Region send = region(call.send());
        Region recv = region(call.recv());
        if (ctx.size() == 1) {
            LocalCopy.now(send.plus(out.start(0)), recv.plus(in.start(0)), in.length(0), ctx.scratch());
            return;
        }
        if (part == 0 && LinearAllToAllV.fits(ctx, v, typeSize) && oneShareEach(v, typeSize, sharesFor)) {
            // small, and every block in share 0 (as its other end cuts it too): everything in flight at once
            LinearAllToAllV.run(ctx, send, recv, v);
            return;
        }
        PairwiseAllToAll.run(ctx, send, recv, out, in, false, part == 0);
    }

    /** Whether every block, both ways, is cut into one share only (so share 0 is the whole call). */
    private static boolean oneShareEach(io.jcoll.spi.Vectors v, int typeSize, LongToIntFunction sharesFor) {
        for (int p = 0; p < v.sendCounts().length; p++) {
            if (sharesFor.applyAsInt(v.sendCounts()[p] * typeSize) != 1
                    || sharesFor.applyAsInt(v.recvCounts()[p] * typeSize) != 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * Elements {@code [from, to)} of every block of {@code call}: of the message for allReduce, broadcast, send and
     * recv; of each rank's contribution (allGather), result (reduceScatter) or block (allToAll) otherwise. A part
     * of allReduce or broadcast is a message of its own and picks its algorithm by its size; allGather,
     * reduceScatter and allToAll use their small-message algorithms only for a whole call (those reorder whole
     * blocks). A barrier has no parts.
     */
    public static void runPart(AlgorithmContext ctx, Call call, long from, long to) {
        if (call.operation() == Operation.BARRIER) {
            DisseminationBarrier.run(ctx);
            return;
        }
        if (to <= from) {
            return; // nothing to move, as in NCCL; arguments were still checked
        }
        Region send = region(call.send());
        Region recv = region(call.recv());
        long count = call.count();
        long part = to - from;
        boolean whole = part == count;
        int n = ctx.size();
        long outputBytes = count * n * call.type().size(); // allGather's and allToAll's output
        switch (call.operation()) {
            case ALL_REDUCE -> allReduce(ctx, send.plus(from), recv.plus(from), part, call.reduceOp());
            case ALL_GATHER, SPLIT -> {
                if (bruckAllGather(ctx, whole, outputBytes)) {
                    BruckAllGather.run(ctx, send, recv, count); // log2(n) steps for small blocks
                } else {
                    RingAllGather.run(ctx.hostOrdered(), send.plus(from), recv,
                            ctx.inRingOrder(Blocks.part(count, from, to)));
                }
            }
            case REDUCE_SCATTER -> reduceScatter(ctx, call, send, recv, from, to);
            case ALL_TO_ALL -> {
                if (linearAllToAll(ctx, whole, outputBytes)) {
                    LinearAllToAll.run(ctx, send, recv, count);
                } else {
                    PairwiseAllToAll.run(ctx, send, recv, Blocks.part(count, from, to), call.inPlace());
                }
            }
            case BROADCAST -> broadcast(ctx, call, send == null ? null : send.plus(from), recv.plus(from), part);
            case REDUCE -> RootedReduce.run(ctx, send.plus(from), recv == null ? null : recv.plus(from), part,
                    call.reduceOp(), call.root());
            case GATHER -> RootedExchange.gather(ctx, send.plus(from), recv, Blocks.part(count, from, to), call.root());
            case SCATTER -> RootedExchange.scatter(ctx, send, recv.plus(from), Blocks.part(count, from, to), call.root());
            case SEND -> Pipeline.exchange(ctx, send.plus(from), part, call.root(), -1, 0, null, call.type().size());
            case RECV -> Pipeline.exchange(ctx, null, 0, -1, call.root(), part, Sink.into(recv.plus(from)),
                    call.type().size());
            default -> throw new IllegalArgumentException("unknown operation " + call.operation());
        }
    }

    /** Small messages by recursive doubling; large ones in two levels where the hosts allow, else one ring. */
    private static void allReduce(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        if (ctx.size() == 1) {
            LocalCopy.now(send, recv, count, ctx.scratch());
        } else if (smallAllReduce(ctx, count * send.buffer().type().size())) {
            RecursiveDoublingAllReduce.run(ctx, send, recv, count, op);
        } else if (ctx.hosts().hierarchical()) {
            HierarchicalAllReduce.run(ctx, send, recv, count, op);
        } else {
            RingAllReduce.run(ctx.hostOrdered(), send, recv, count, op);
        }
    }

    private static void broadcast(AlgorithmContext ctx, Call call, Region send, Region recv, long count) {
        boolean root = ctx.rank() == call.root();
        if (chainBroadcast(ctx, count * call.type().size())) {
            // the root streams from its input and copies it into its output while it waits on the chain
            // the chain in ring order: it crosses each host's link once
            ChainBroadcast.run(ctx.hostOrdered(), root ? send : null, recv, count, ctx.hosts().ringPosition(call.root()));
            return;
        }
        if (root) {
            LocalCopy.now(send, recv, count, ctx.scratch());
        }
        if (ctx.size() > 1) {
            BinomialBroadcast.run(ctx, recv, count, call.root());
        }
    }

    private static void reduceScatter(AlgorithmContext ctx, Call call, Region send, Region recv, long from, long to) {
        int n = ctx.size();
        long count = call.count();
        ReduceOp op = call.reduceOp();
        if (n == 1) {
            LocalCopy.now(send.plus(from), recv.plus(from), to - from, ctx.scratch());
            return;
        }
        int typeSize = send.buffer().type().size();
        boolean whole = to - from == count;
        long inputBytes = count * n * typeSize;
        if (whole && halvingReduceScatter(ctx, inputBytes)) {
            // log2(n) steps moving what the ring moves; no pipeline to lose within one segment
            RecursiveHalvingReduceScatter.run(ctx, send, recv, count, op);
            return;
        }
        if (whole && smallAllReduce(ctx, inputBytes)) {
            // small: log2(n) steps of recursive doubling over the whole input beat the ring's n-1 latencies,
            // though each step moves all of it; this rank keeps its block (AVG is divided inside)
            ByteBuffer all = RecursiveDoublingAllReduce.reduce(ctx, send, count * n, op);
            int bytes = (int) (count * typeSize);
            ByteBuffer out = recv.buffer().writable(recv.byteOffset(0), bytes, ctx.scratch().dstStage());
            out.put(0, all, (int) (ctx.rank() * count * typeSize), bytes);
            recv.buffer().commit(recv.byteOffset(0), out);
            return;
        }
        Blocks blocks = ctx.inRingOrder(Blocks.part(count, from, to));
        // in place, partials live in the input's own blocks; otherwise in the output's part, reused at every step
        RingReduceScatter.run(ctx.hostOrdered(), send, blocks,
                call.inPlace() ? block -> send.plus(blocks.start(block)) : block -> recv.plus(from), op);
    }

    // ---- the choices, named once: the runner above and algorithm() below ask the same questions

    private static boolean smallAllReduce(AlgorithmContext ctx, long bytes) {
        return bytes <= ctx.tuning().smallAllReduceBytes();
    }

    private static boolean bruckAllGather(AlgorithmContext ctx, boolean whole, long outputBytes) {
        return ctx.size() > 1 && whole && outputBytes <= ctx.tuning().smallAllGatherBytes();
    }

    private static boolean linearAllToAll(AlgorithmContext ctx, boolean whole, long outputBytes) {
        return ctx.size() > 1 && whole && outputBytes <= ctx.tuning().smallAllToAllBytes();
    }

    private static boolean chainBroadcast(AlgorithmContext ctx, long bytes) {
        return ctx.size() > 1 && bytes > ctx.tuning().smallBroadcastBytes();
    }

    private static boolean halvingReduceScatter(AlgorithmContext ctx, long inputBytes) {
        return RecursiveHalvingReduceScatter.fits(ctx.size()) && inputBytes <= ctx.tuning().segmentBytes();
    }

    /**
     * The algorithm {@link #run} takes for the whole of {@code call}, in words, for the flight recorder and JFR
     * events. A call split over channels runs each share by its own size; this names the whole call's choice.
     */
    public static String algorithm(AlgorithmContext ctx, Call call) {
        int n = ctx.size();
        int typeSize = call.type().size();
        long bytes = call.count() * typeSize;
        if (n == 1 && call.operation() != Operation.BARRIER) {
            return "local copy";
        }
        return switch (call.operation()) {
            case ALL_REDUCE -> smallAllReduce(ctx, bytes) ? "recursive doubling"
                    : ctx.hosts().hierarchical() ? "two levels (within hosts, then across)" : "ring";
            case ALL_GATHER, SPLIT -> bruckAllGather(ctx, true, bytes * n) ? "bruck" : "ring";
            case REDUCE_SCATTER -> halvingReduceScatter(ctx, bytes * n) ? "recursive halving"
                    : smallAllReduce(ctx, bytes * n) ? "recursive doubling" : "ring";
            case ALL_TO_ALL -> linearAllToAll(ctx, true, bytes * n) ? "linear" : "pairwise";
            case ALL_TO_ALL_V -> LinearAllToAllV.fits(ctx, call.vectors(), typeSize) ? "linear" : "pairwise";
            case BROADCAST -> chainBroadcast(ctx, bytes) ? "chain" : "binomial tree";
            case REDUCE -> smallAllReduce(ctx, bytes) ? "recursive doubling" : "ring reduce-scatter, gather";
            case GATHER, SCATTER -> "direct";
            case SEND, RECV -> "pipeline";
            case BARRIER -> "dissemination";
            default -> null;
        };
    }

    private static Region region(io.jcoll.Buffer b) {
        return b == null ? null : new Region((StagedAccess) b, 0);
    }
}
