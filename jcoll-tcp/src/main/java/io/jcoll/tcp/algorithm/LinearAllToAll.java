package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;

/**
 * All-to-all for small messages: every receive and every send posted at once,
 * then one wait, so the whole exchange costs about one message latency instead
 * of the pairwise algorithm's n-1 in a row. Blocks leave from (a copy of) the
 * input and land in a work buffer, and reach the output only after every send
 * is done, which makes in-place use safe. The whole message fits one segment.
 */
public final class LinearAllToAll {

    private LinearAllToAll() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long countPerRank) {
        PointToPoint p2p = ctx.p2p();
        int n = ctx.size();
        int rank = ctx.rank();
        int block = (int) (countPerRank * send.buffer().type().size());
        int total = block * n;
        ByteBuffer out = send.buffer().readable(send.byteOffset(0), total, ctx.scratch().whole(0, total));
        ByteBuffer in = ctx.scratch().whole(1, total);
        Transfer[] posted = new Transfer[2 * (n - 1)];
        // receives before sends, in the order the peers send, so that each message finds its receive posted
        for (int s = 1; s < n; s++) {
            int from = ctx.peer(-s);
            posted[s - 1] = p2p.recv(from, in.slice(from * block, block));
        }
        for (int s = 1; s < n; s++) {
            int to = ctx.peer(s);
            posted[n - 2 + s] = p2p.send(to, out.slice(to * block, block));
        }
        p2p.await(posted);
        in.put(rank * block, out, rank * block, block);
        ByteBuffer place = recv.buffer().writable(recv.byteOffset(0), total, ctx.scratch().dstStage());
        place.put(0, in, 0, total);
        recv.buffer().commit(recv.byteOffset(0), place);
    }
}
