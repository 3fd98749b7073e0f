package io.jcoll.testing;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;

/** The collectives a test case drives, over a real communicator or straight over the algorithms. */
public interface Ops {

    int rank();

    int size();

    void allReduce(HostBuffer send, HostBuffer recv, long count, ReduceOp op);

    void allGather(HostBuffer send, HostBuffer recv, long count);

    void reduceScatter(HostBuffer send, HostBuffer recv, long count, ReduceOp op);

    void allToAll(HostBuffer send, HostBuffer recv, long count);

    void broadcast(HostBuffer send, HostBuffer recv, long count, int root);

    /** Rooted and uneven operations: offered by communicators and the TCP algorithms, not by every test double. */
    default void reduce(HostBuffer send, HostBuffer recv, long count, ReduceOp op, int root) {
        throw new UnsupportedOperationException("reduce");
    }

    default void gather(HostBuffer send, HostBuffer recv, long count, int root) {
        throw new UnsupportedOperationException("gather");
    }

    default void scatter(HostBuffer send, HostBuffer recv, long count, int root) {
        throw new UnsupportedOperationException("scatter");
    }

    default void allToAllV(HostBuffer send, long[] sendCounts, long[] sendOffsets, HostBuffer recv, long[] recvCounts,
                           long[] recvOffsets) {
        throw new UnsupportedOperationException("allToAllV");
    }

    /** Through the public API; {@code async} uses the asynchronous forms and waits on their handles. */
    static Ops of(Communicator c, boolean async) {
        return new Ops() {
            @Override public int rank() { return c.rank(); }
            @Override public int size() { return c.size(); }

            @Override public void allReduce(HostBuffer s, HostBuffer r, long n, ReduceOp op) {
                if (async) c.allReduceAsync(s, r, n, op).await(); else c.allReduce(s, r, n, op);
            }

            @Override public void allGather(HostBuffer s, HostBuffer r, long n) {
                if (async) c.allGatherAsync(s, r, n).await(); else c.allGather(s, r, n);
            }

            @Override public void reduceScatter(HostBuffer s, HostBuffer r, long n, ReduceOp op) {
                if (async) c.reduceScatterAsync(s, r, n, op).await(); else c.reduceScatter(s, r, n, op);
            }

            @Override public void allToAll(HostBuffer s, HostBuffer r, long n) {
                if (async) c.allToAllAsync(s, r, n).await(); else c.allToAll(s, r, n);
            }

            @Override public void broadcast(HostBuffer s, HostBuffer r, long n, int root) {
                if (async) c.broadcastAsync(s, r, n, root).await(); else c.broadcast(s, r, n, root);
            }

            @Override public void reduce(HostBuffer s, HostBuffer r, long n, ReduceOp op, int root) {
                if (async) c.reduceAsync(s, r, n, op, root).await(); else c.reduce(s, r, n, op, root);
            }

            @Override public void gather(HostBuffer s, HostBuffer r, long n, int root) {
                if (async) c.gatherAsync(s, r, n, root).await(); else c.gather(s, r, n, root);
            }

            @Override public void scatter(HostBuffer s, HostBuffer r, long n, int root) {
                if (async) c.scatterAsync(s, r, n, root).await(); else c.scatter(s, r, n, root);
            }

            @Override public void allToAllV(HostBuffer s, long[] sc, long[] so, HostBuffer r, long[] rc, long[] ro) {
                if (async) c.allToAllVAsync(s, sc, so, r, rc, ro).await(); else c.allToAllV(s, sc, so, r, rc, ro);
            }
        };
    }
}
