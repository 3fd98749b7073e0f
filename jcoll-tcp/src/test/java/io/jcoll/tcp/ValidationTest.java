package io.jcoll.tcp;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of bad argument is refused before any byte moves, with a message
 * that names the operation, the rank and the numbers; the communicator stays
 * usable afterwards, which a real collective after each refusal proves.
 */
class ValidationTest {

    @Test
    void badArgumentsAreRefusedAndTheCommunicatorStaysUsable() {
        int n = 3;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator c = TcpGroup.join(rank, n, port, Map.of())) {
                HostBuffer f10 = HostBuffer.of(new float[10]);
                HostBuffer f30 = HostBuffer.of(new float[30]);
                HostBuffer d10 = HostBuffer.of(new double[10]);
                HostBuffer readOnly = HostBuffer.of(ByteBuffer.allocate(40).asReadOnlyBuffer(), DataType.FLOAT32);

                refused(c, () -> c.allReduce(f10, f10, -1, ReduceOp.SUM), "allReduce", "count -1 is negative");
                refused(c, () -> c.allReduce(f10, f10, 11, ReduceOp.SUM), "allReduce", "holds 10 float32 elements but count = 11");
                refused(c, () -> c.allReduce(f10, d10, 10, ReduceOp.SUM), "allReduce", "send holds float32 but recv holds float64");
                refused(c, () -> c.allReduce(f10, readOnly, 10, ReduceOp.SUM), "allReduce", "read-only");
                refused(c, () -> c.allReduce(null, f10, 10, ReduceOp.SUM), "allReduce", "send buffer is null");
                refused(c, () -> c.allReduce(f10, f10, 10, null), "allReduce", "reduce op is null");
                refused(c, () -> c.allGather(f10, f10, 4), "allGather", "size * count = 3 * 4 = 12");
                refused(c, () -> c.reduceScatter(f10, f30, 4, ReduceOp.SUM), "reduceScatter", "size * count = 3 * 4 = 12");
                refused(c, () -> c.allToAll(f30, f10, 10), "allToAll", "recv buffer holds 10");
                refused(c, () -> c.allToAll(f10, f10, Long.MAX_VALUE / 2), "allToAll", "overflows");
                refused(c, () -> c.broadcast(f10, f10, 10, 3), "broadcast", "root 3 is out of range: ranks are 0..2");
                refused(c, () -> c.broadcast(f10, f10, 10, -1), "broadcast", "root -1 is out of range");
                refused(c, () -> c.send(f10, 10, 7), "send", "peer 7 is out of range");
                refused(c, () -> c.send(f10, 10, c.rank()), "send", "is this rank itself");
                refused(c, () -> c.recv(readOnly, 10, (c.rank() + 1) % n), "recv", "read-only");
                refused(c, () -> c.allGather(f10, 11), "allGather", "");
                refused(c, () -> c.allReduceAsync(f10, f10, 20, ReduceOp.SUM), "allReduce", "count = 20");
                refused(c, () -> c.allReduce(foreign(), f10, 1, ReduceOp.SUM), "allReduce", "cannot be used with the tcp transport");
                // non-root ranks may pass no send buffer to broadcast
                float[] data = {c.rank() == 1 ? 42f : 0f};
                c.broadcast(c.rank() == 1 ? HostBuffer.of(data) : null, HostBuffer.of(data), 1, 1);
                assertEquals(42f, data[0]);
            }
            return null;
        });
    }

    /** Thousands of random bad calls, the same on every rank: each refused, the group still right afterwards. */
    @Test
    void randomBadArgumentsAreAllRefused() {
        int n = 3;
        int port = TcpGroup.freePort();
        long seed = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator c = TcpGroup.join(rank, n, port, Map.of())) {
                Map<String, Integer> tally = io.jcoll.testing.Abuse.run(c, seed, 3000, java.util.List.of());
                if (rank == 0) {
                    System.out.println("seed " + seed + ": refused " + tally);
                }
                assertEquals(10, tally.size(), "every kind of bad call was tried: " + tally);
            }
            return null;
        });
    }

    /** Asserts the refusal and its message, then proves the group still works with a real allReduce. */
    private static void refused(Communicator c, Executable call, String operation, String text) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        String m = e.getMessage();
        assertTrue(m.startsWith(operation + " on rank " + c.rank()), m);
        assertTrue(m.contains(text), "'" + m + "' should mention '" + text + "'");
        assertEquals(c.rank(), e.rank());
        int[] one = {1};
        c.allReduce(HostBuffer.of(one), ReduceOp.SUM);
        assertEquals(c.size(), one[0], "the communicator works after a refused call");
    }

    /** A buffer type the TCP transport does not know, standing in for device memory. */
    private static Buffer foreign() {
        return new Buffer() {
            @Override public DataType type() { return DataType.FLOAT32; }
            @Override public long count() { return 10; }
            @Override public boolean isReadOnly() { return false; }
            @Override public Location location() { return Location.DEVICE; }
            @Override public Buffer slice(long offset, long count) { return this; }
            @Override public boolean sameMemoryAs(Buffer other) { return other == this; }
        };
    }

    @Test
    void aClosedCommunicatorRefusesEverything() {
        Communicator c = TcpGroup.join(0, 1, TcpGroup.freePort(), Map.of());
        c.close();
        c.close(); // idempotent
        CommunicatorClosedException e = assertThrows(CommunicatorClosedException.class,
                () -> c.allReduce(HostBuffer.of(new float[1]), ReduceOp.SUM));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(CommunicatorClosedException.class, c::barrier);
    }
}
