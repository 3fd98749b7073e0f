package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Device memory on the TCP transport: the whole matrix through memory that can
 * only be copied a segment at a time, as GPU memory is, on real TCP ranks. It
 * proves the algorithms reach memory through nothing but the staged contract.
 */
class StagedMemoryTest {

    @Test
    void everyCollectiveWorksOnCopyOnlyMemory() {
        int n = 3;
        List<Case> cases = Case.matrix(new int[] {0, 1, 13, 1000}, true, n);
        int port = TcpGroup.freePort();
        Map<String, String> small = Map.of("JCOLL_TCP_SEGMENT", "1K", "JCOLL_TCP_SMALL_ALLREDUCE", "256",
                "JCOLL_TCP_SMALL_BROADCAST", "256");
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator c = TcpGroup.join(rank, n, port, small)) {
                Ops ops = copyOnly(c);
                for (Case k : cases) {
                    k.run(ops);
                }
            }
            return null;
        });
    }

    private static CopyOnlyMemory wrap(HostBuffer b) {
        return b == null ? null : new CopyOnlyMemory(b);
    }

    /** Every buffer a case hands over is wrapped, so aliasing between them is kept. */
    private static Ops copyOnly(Communicator c) {
        return new Ops() {
            @Override public int rank() { return c.rank(); }
            @Override public int size() { return c.size(); }
            @Override public void allReduce(HostBuffer s, HostBuffer r, long n, ReduceOp op) { c.allReduce(wrap(s), wrap(r), n, op); }
            @Override public void allGather(HostBuffer s, HostBuffer r, long n) { c.allGather(wrap(s), wrap(r), n); }
            @Override public void reduceScatter(HostBuffer s, HostBuffer r, long n, ReduceOp op) { c.reduceScatter(wrap(s), wrap(r), n, op); }
            @Override public void allToAll(HostBuffer s, HostBuffer r, long n) { c.allToAll(wrap(s), wrap(r), n); }
            @Override public void broadcast(HostBuffer s, HostBuffer r, long n, int root) { c.broadcast(wrap(s), wrap(r), n, root); }
        };
    }
}
