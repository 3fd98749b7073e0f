package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

import java.nio.ByteBuffer;

/**
 * Dissemination barrier: in round k each rank signals rank {@code r + 2^k} and
 * waits for rank {@code r - 2^k}; after ceil(log2 n) rounds every rank has
 * heard, directly or through others, from every rank.
 */
public final class DisseminationBarrier {

    private DisseminationBarrier() {
    }

    public static void run(AlgorithmContext ctx) {
        PointToPoint p2p = ctx.p2p();
        ByteBuffer token = ctx.scratch().whole(0, 1);
        ByteBuffer heard = ctx.scratch().whole(1, 1);
        for (int distance = 1; distance < ctx.size(); distance <<= 1) {
            p2p.await(p2p.send(ctx.peer(distance), token.clear().limit(1)),
                    p2p.recv(ctx.peer(-distance), heard.clear().limit(1)));
        }
    }
}
