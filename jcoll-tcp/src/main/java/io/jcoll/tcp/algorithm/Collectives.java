package io.jcoll.tcp.algorithm;

import io.jcoll.spi.StagedAccess;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;

import java.nio.ByteBuffer;

/**
 * Runs a validated call over buffers reached through {@link StagedAccess} by choosing an algorithm: the size
 * thresholds in {@link Tuning} pick latency- or bandwidth-optimal ones. Written
 * once against {@link io.jcoll.tcp.p2p.PointToPoint}, so any transport that can
 * move bytes between ranks gets every collective from here.
 */
public final class Collectives {

    private Collectives() {
    }

    public static void run(AlgorithmContext ctx, Call call) {
        if (call.count() == 0 && call.operation() != io.jcoll.spi.Operation.BARRIER) {
            return; // nothing to move, as in NCCL; arguments were still checked
        }
        Region send = region(call.send());
        Region recv = region(call.recv());
        long count = call.count();
        int n = ctx.size();
        switch (call.operation()) {
            case ALL_REDUCE -> allReduce(ctx, send, recv, count, call.reduceOp());
            case ALL_GATHER -> {
                if (n > 1 && count * n * call.type().size() <= ctx.tuning().smallAllGatherBytes()) {
                    BruckAllGather.run(ctx, send, recv, count); // log2(n) steps for small blocks
                } else {
                    LocalOps.copy(send, recv.plus(ctx.rank() * count), count, ctx.scratch());
                    RingAllGather.run(ctx, recv, Blocks.uniform(count));
                }
            }
            case REDUCE_SCATTER -> reduceScatter(ctx, send, recv, count, call.reduceOp(), call.inPlace());
            case ALL_TO_ALL -> PairwiseAllToAll.run(ctx, send, recv, count, call.inPlace());
            case BROADCAST -> {
                if (ctx.rank() == call.root()) {
                    LocalOps.copy(send, recv, count, ctx.scratch());
                }
                if (n > 1) {
                    if (count * call.type().size() <= ctx.tuning().smallBroadcastBytes()) {
                        BinomialBroadcast.run(ctx, recv, count, call.root());
                    } else {
                        ChainBroadcast.run(ctx, recv, count, call.root());
                    }
                }
            }
            case BARRIER -> DisseminationBarrier.run(ctx);
            case SEND -> Pipeline.exchange(ctx, send, count, call.root(), -1, 0, null, call.type().size());
            case RECV -> Pipeline.exchange(ctx, null, 0, -1, call.root(), count, Sink.into(recv), call.type().size());
            default -> throw new IllegalArgumentException("unknown operation " + call.operation());
        }
    }

    private static void allReduce(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        if (ctx.size() == 1) {
            LocalOps.copy(send, recv, count, ctx.scratch());
        } else if (count * send.buffer().type().size() <= ctx.tuning().smallAllReduceBytes()) {
            RecursiveDoublingAllReduce.run(ctx, send, recv, count, op);
        } else {
            RingAllReduce.run(ctx, send, recv, count, op);
        }
    }

    private static void reduceScatter(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op,
                                      boolean inPlace) {
        int n = ctx.size();
        if (n == 1) {
            LocalOps.copy(send, recv, count, ctx.scratch());
            return;
        }
        int typeSize = send.buffer().type().size();
        if (count * n * typeSize <= ctx.tuning().smallAllReduceBytes()) {
            // small: log2(n) steps of recursive doubling over the whole input beat the ring's n-1 latencies,
            // though each step moves all of it; this rank keeps its block (AVG is divided inside)
            ByteBuffer all = RecursiveDoublingAllReduce.reduce(ctx, send, count * n, op);
            int bytes = (int) (count * typeSize);
            ByteBuffer out = recv.buffer().writable(recv.byteOffset(0), bytes, ctx.scratch().dstStage());
            out.put(0, all, (int) (ctx.rank() * count * typeSize), bytes);
            recv.buffer().commit(recv.byteOffset(0), out);
            return;
        }
        Blocks blocks = Blocks.uniform(count);
        // in place, partials live in the input's own blocks; otherwise in the one output block
        RingReduceScatter.run(ctx, send, blocks, inPlace ? block -> send.plus(blocks.start(block)) : block -> recv, op);
        if (op == ReduceOp.AVG) {
            LocalOps.divide(recv, count, n, ctx.scratch());
        }
    }

    private static Region region(io.jcoll.Buffer b) {
        return b == null ? null : new Region((StagedAccess) b, 0);
    }
}
