package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

import java.nio.ByteBuffer;

/**
 * Binomial-tree broadcast for small messages: the set of ranks holding the
 * message doubles each round, so it arrives everywhere in ceil(log2 n) hops.
 * Positions are relative to the root; a rank receives from the position that
 * differs in its lowest set bit, then sends to the positions below that bit.
 */
public final class BinomialBroadcast {

    private BinomialBroadcast() {
    }

    public static void run(AlgorithmContext ctx, Region data, long count, int root) {
        PointToPoint p2p = ctx.p2p();
        int n = ctx.size();
        int position = Math.floorMod(ctx.rank() - root, n);
        int bytes = (int) (count * data.buffer().type().size());
        ByteBuffer message;
        int mask = 1;
        if (position == 0) {
            message = data.buffer().readable(data.byteOffset(0), bytes, ctx.scratch().sendStage(0));
            mask = Integer.highestOneBit(Math.max(1, n - 1)) << 1;
        } else {
            while ((position & mask) == 0) {
                mask <<= 1;
            }
            message = data.buffer().writable(data.byteOffset(0), bytes, ctx.scratch().recvStage(0));
            p2p.await(p2p.recv(Math.floorMod(position - mask + root, n), message));
            data.buffer().commit(data.byteOffset(0), message);
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (position + mask < n) {
                p2p.await(p2p.send(Math.floorMod(position + mask + root, n), message.duplicate().position(0).limit(bytes)));
            }
        }
    }
}
