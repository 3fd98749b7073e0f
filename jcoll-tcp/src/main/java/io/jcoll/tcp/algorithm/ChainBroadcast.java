package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;

/**
 * Pipelined chain broadcast for large messages: the ranks form a chain from
 * the root, and each forwards segment k to the next rank while segment k+1 is
 * arriving. Time is about (message + (n-2) segments) / bandwidth, close to
 * one message time whatever n.
 */
public final class ChainBroadcast {

    private ChainBroadcast() {
    }

    /**
     * @param input the root's input (ignored elsewhere): the root sends from it, and copies it into {@code data}
     *              while it waits on the chain (nothing to copy in place)
     * @param data  the output
     */
    public static void run(AlgorithmContext ctx, Region input, Region data, long count, int root) {
        int n = ctx.size();
        int position = Math.floorMod(ctx.rank() - root, n);
        int next = position == n - 1 ? -1 : Math.floorMod(ctx.rank() + 1, n);
        int typeSize = data.buffer().type().size();
        if (position == 0) {
            Pipeline.exchange(ctx, typeSize, new LocalCopy(input, data, count, ctx.scratch()),
                    new Pipeline.Leg(input, count, next, -1, 0, null));
            return;
        }
        int previous = Math.floorMod(ctx.rank() - 1, n);
        if (next < 0) {
            Pipeline.exchange(ctx, null, 0, -1, previous, count, Sink.into(data), typeSize);
            return;
        }
        relay(ctx, data, count, previous, next, typeSize);
    }

    /** Receives each segment from {@code previous}, stores it, and forwards it to {@code next}. */
    private static void relay(AlgorithmContext ctx, Region data, long count, int previous, int next, int typeSize) {
        PointToPoint p2p = ctx.p2p();
        int seg = ctx.tuning().segmentElements(typeSize, count); // as the other ranks cut it
        long segs = Pipeline.segments(count, seg);
        Sink sink = Sink.into(data);
        Transfer[] recvs = new Transfer[2];
        Transfer[] sends = new Transfer[2];
        ByteBuffer[] landed = new ByteBuffer[2];
        recvs[0] = post(p2p, sink, ctx.scratch(), 0, seg, count, previous, landed);
        for (long k = 0; k < segs; k++) {
            int slot = (int) (k & 1);
            p2p.await(recvs[slot]);
            if (k + 1 < segs) {
                int other = slot ^ 1;
                p2p.await(sends[other]); // its stage is about to be reused
                recvs[other] = post(p2p, sink, ctx.scratch(), k + 1, seg, count, previous, landed);
            }
            int length = Pipeline.length(k, seg, count);
            sink.arrived(k * seg, length, landed[slot]);
            // forward the bytes as they arrived: a view of the output, or the stage before it is reused
            sends[slot] = p2p.send(next, landed[slot].duplicate().position(0).limit(length * typeSize));
        }
        p2p.await(sends[0], sends[1]);
    }

    private static Transfer post(PointToPoint p2p, Sink sink, Scratch scratch, long k, int seg, long count,
                                 int previous, ByteBuffer[] landed) {
        int slot = (int) (k & 1);
        landed[slot] = sink.target(k * seg, Pipeline.length(k, seg, count), scratch.recvStage(slot));
        return p2p.recv(previous, landed[slot]);
    }
}
