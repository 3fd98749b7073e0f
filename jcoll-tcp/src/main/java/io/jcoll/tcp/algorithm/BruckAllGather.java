package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

import java.nio.ByteBuffer;

/**
 * Bruck's all-gather for small messages: ceil(log2 n) steps instead of the
 * ring's n-1, for any n. Blocks collect in a work buffer starting with this
 * rank's own: at the step of distance d, a rank that holds blocks r..r+h-1
 * sends the first min(h, n-h) of them to rank r-d and receives as many from
 * rank r+d, which are blocks r+h onwards. At the end work position j holds
 * block r+j (mod n), and each goes to its place in the output.
 */
public final class BruckAllGather {

    private BruckAllGather() {
    }

    /**
     * @param own   this rank's block ({@code count} elements)
     * @param out   the output: block i at {@code i * count}
     * @param count elements per block
     */
    public static void run(AlgorithmContext ctx, Region own, Region out, long count) {
        PointToPoint p2p = ctx.p2p();
        int n = ctx.size();
        int rank = ctx.rank();
        int block = (int) (count * own.buffer().type().size());
        ByteBuffer work = ctx.scratch().whole(0, block * n);
        work.put(0, own.buffer().readable(own.byteOffset(0), block, ctx.scratch().sendStage(0)), 0, block);
        int held = 1;
        for (int distance = 1; distance < n; distance <<= 1) {
            int moving = Math.min(held, n - held);
            ByteBuffer outgoing = work.duplicate().position(0).limit(moving * block);
            ByteBuffer incoming = work.duplicate().position(held * block).limit((held + moving) * block);
            p2p.await(p2p.send(ctx.peer(-distance), outgoing.slice()), p2p.recv(ctx.peer(distance), incoming.slice()));
            held += moving;
        }
        for (int j = 0; j < n; j++) {
            long at = out.byteOffset((long) ((rank + j) % n) * count);
            ByteBuffer place = out.buffer().writable(at, block, ctx.scratch().dstStage());
            place.put(0, work, j * block, block);
            out.buffer().commit(at, place);
        }
    }
}
