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
        };
    }
}
