package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;

/**
 * The one data-moving loop under the ring, pairwise and point-to-point
 * algorithms: send a run of elements to one peer while receiving a run from
 * another, segment by segment, with {@link #DEPTH} segments in flight each way, so
 * that the network moves the next ones while segment k is reduced or copied.
 */
public final class Pipeline {

    /** Segments in flight each way: the network moves these while the oldest is reduced or copied. */
    public static final int DEPTH = 4;

    private Pipeline() {
    }

    /**
     * @param source    where the outgoing elements start (ignored when {@code sendCount} is 0)
     * @param sendCount elements to send to {@code to}
     * @param to        destination rank (ignored when nothing is sent)
     * @param from      source rank (ignored when nothing is received)
     * @param recvCount elements to receive from {@code from}
     * @param sink      what becomes of received elements
     */
    public static void exchange(AlgorithmContext ctx, Region source, long sendCount, int to,
                                int from, long recvCount, Sink sink, int typeSize) {
        PointToPoint p2p = ctx.p2p();
        Scratch scratch = ctx.scratch();
        // each run is cut by its own length, as its other end cuts it
        int sendSeg = ctx.tuning().segmentElements(typeSize, sendCount);
        int recvSeg = ctx.tuning().segmentElements(typeSize, recvCount);
        long sendSegs = segments(sendCount, sendSeg);
        long recvSegs = segments(recvCount, recvSeg);
        long segs = Math.max(sendSegs, recvSegs);
        Transfer[] sends = new Transfer[DEPTH];
        Transfer[] recvs = new Transfer[DEPTH];
        ByteBuffer[] landed = new ByteBuffer[DEPTH];
        Runs runs = new Runs(source, sendCount, sendSeg, to, from, recvCount, recvSeg, sink, typeSize);

        for (long k = 0; k < Math.min(DEPTH, segs); k++) {
            post(p2p, scratch, k, runs, sends, recvs, landed);
        }
        for (long k = 0; k < segs; k++) {
            int slot = (int) (k % DEPTH);
            p2p.await(sends[slot], recvs[slot]);
            if (k < recvSegs) {
                sink.arrived(k * recvSeg, length(k, recvSeg, recvCount), landed[slot]);
            }
            if (k + DEPTH < segs) {
                post(p2p, scratch, k + DEPTH, runs, sends, recvs, landed);
            }
        }
    }

    /** The two runs of one exchange, each with its own segmentation. */
    private record Runs(Region source, long sendCount, int sendSeg, int to,
                        int from, long recvCount, int recvSeg, Sink sink, int typeSize) {
    }

    private static void post(PointToPoint p2p, Scratch scratch, long k, Runs r, Transfer[] sends, Transfer[] recvs,
                             ByteBuffer[] landed) {
        int slot = (int) (k % DEPTH);
        if (k * r.recvSeg() < r.recvCount()) {
            int n = length(k, r.recvSeg(), r.recvCount());
            landed[slot] = r.sink().target(k * r.recvSeg(), n, scratch.recvStage(slot));
            recvs[slot] = p2p.recv(r.from(), landed[slot]);
        } else {
            recvs[slot] = null;
        }
        if (k * r.sendSeg() < r.sendCount()) {
            int n = length(k, r.sendSeg(), r.sendCount());
            ByteBuffer view = r.source().buffer().readable(r.source().byteOffset(k * r.sendSeg()), n * r.typeSize(),
                    scratch.sendStage(slot));
            sends[slot] = p2p.send(r.to(), view);
        } else {
            sends[slot] = null;
        }
    }

    static long segments(long count, int seg) {
        return (count + seg - 1) / seg;
    }

    static int length(long k, int seg, long count) {
        return (int) Math.min(seg, count - k * seg);
    }
}
