package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Vectors;
import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Uneven all-to-all for small messages, as {@link LinearAllToAll} for even ones: every receive and every send
 * posted at once, then one wait, about one message latency instead of a pipeline's steps. Each block is cut into
 * the segments {@link Pipeline} would cut it into, and an empty block still goes as one empty message, so a
 * rank that takes this path meets a peer whose larger blocks took {@link PairwiseAllToAll}'s, frame for frame.
 * Blocks leave from a copy of the input and land in a work buffer; each reaches its place in the output only
 * after every transfer is done, and nothing between blocks is touched.
 */
public final class LinearAllToAllV {

    private LinearAllToAllV() {
    }

    /** Whether {@code v} is small enough: both extents within the small all-to-all threshold. */
    public static boolean fits(AlgorithmContext ctx, Vectors v, int typeSize) {
        long limit = ctx.tuning().smallAllToAllBytes();
        return v.sendExtent() * typeSize <= limit && v.recvExtent() * typeSize <= limit;
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, Vectors v) {
        PointToPoint p2p = ctx.p2p();
        int n = ctx.size();
        int rank = ctx.rank();
        int t = send.buffer().type().size();
        int sendBytes = (int) (v.sendExtent() * t);
        int recvBytes = (int) (v.recvExtent() * t);
        ByteBuffer out = send.buffer().readable(send.byteOffset(0), sendBytes, ctx.scratch().whole(0, sendBytes));
        ByteBuffer in = ctx.scratch().whole(1, recvBytes);
        List<Transfer> posted = new ArrayList<>(4 * n);
        // receives before sends, in the order the peers send, so that each message finds its receive posted
        for (int s = 1; s < n; s++) {
            int from = ctx.peer(-s);
            post(ctx, in, v.recvOffsets()[from], v.recvCounts()[from], t, b -> posted.add(p2p.recv(from, b)));
        }
        for (int s = 1; s < n; s++) {
            int to = ctx.peer(s);
            post(ctx, out, v.sendOffsets()[to], v.sendCounts()[to], t, b -> posted.add(p2p.send(to, b)));
        }
        p2p.await(posted.toArray(new Transfer[0]));
        long own = v.recvCounts()[rank];
        if (own > 0) {
            in.put((int) (v.recvOffsets()[rank] * t), out, (int) (v.sendOffsets()[rank] * t), (int) (own * t));
        }
        for (int p = 0; p < n; p++) {
            int bytes = (int) (v.recvCounts()[p] * t);
            if (bytes > 0) {
                long at = recv.byteOffset(v.recvOffsets()[p]);
                ByteBuffer place = recv.buffer().writable(at, bytes, ctx.scratch().dstStage());
                place.put(0, in, (int) (v.recvOffsets()[p] * t), bytes);
                recv.buffer().commit(at, place);
            }
        }
    }

    /** The block's segments, as {@link Pipeline} cuts a run of {@code count}; one empty message for none. */
    private static void post(AlgorithmContext ctx, ByteBuffer whole, long offset, long count, int t,
                             java.util.function.Consumer<ByteBuffer> transfer) {
        int seg = ctx.tuning().segmentElements(t, count);
        int from = (int) (offset * t);
        if (count == 0) {
            transfer.accept(whole.duplicate().clear().limit(0).slice());
            return;
        }
        for (long k = 0; k * seg < count; k++) {
            int length = Pipeline.length(k, seg, count) * t;
            int at = from + (int) (k * seg * t);
            transfer.accept(whole.duplicate().clear().position(at).limit(at + length).slice());
        }
    }
}
