package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection closed under live ranks in the middle of 16 MB AllReduces (rank
 * 0's socket to rank 1, closed from outside the transport, as a middlebox or a
 * failing NIC would): every rank raises an exception, none hangs, and the two
 * ends name each other. The socket is reached by reflection: a fault injected
 * from outside, with no hook in the transport for it.
 */
class ConnectionResetTest {

    static SocketChannel channelBetween(Communicator comm, int peer) throws ReflectiveOperationException {
        TcpTransport t = comm.unwrap(TcpTransport.class).orElseThrow();
        Field link = TcpTransport.class.getDeclaredField("link");
        link.setAccessible(true);
        Field connections = TcpLink.class.getDeclaredField("connections");
        connections.setAccessible(true);
        Connection c = ((Connection[]) connections.get(link.get(t)))[peer];
        return c.channel;
    }

    /** With one channel, and with the 16 MB AllReduce split over three (the cut one stops the other two). */
    @ParameterizedTest(name = "{0} channel(s)")
    @ValueSource(ints = {1, 3})
    void aConnectionClosedMidTransferFailsEveryRankNamingTheEnds(int channels) {
        int n = 3;
        int port = TcpGroup.freePort();
        CountDownLatch running = new CountDownLatch(n);
        SocketChannel[] victim = new SocketChannel[1];
        Thread saboteur = new Thread(() -> {
            try {
                running.await();
                Thread.sleep(300);
                victim[0].close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        saboteur.start();
        List<String> seen = Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "10s",
                    "JCOLL_TCP_CHANNELS", Integer.toString(channels), "JCOLL_TCP_CHANNEL_MIN", "1M"))) {
                if (rank == 0) {
                    victim[0] = channelBetween(comm, 1);
                }
                ByteBuffer data = ByteBuffer.allocateDirect(16 << 20).order(ByteOrder.nativeOrder());
                comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM);
                running.countDown();
                long start = System.nanoTime();
                try {
                    for (int i = 0; i < 100_000; i++) {
                        comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM);
                    }
                    return "rank " + rank + ": no failure";
                } catch (JcollException e) {
                    return String.format("rank %d after %.2f s: %s peer=%d: %s", rank, (System.nanoTime() - start) / 1e9,
                            e.getClass().getSimpleName(), e.peer(), e.getMessage());
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        seen.forEach(System.out::println);
        for (String s : seen) {
            assertTrue(!s.contains("no failure"), s);
        }
        assertTrue(seen.get(0).contains("rank 1") && seen.get(1).contains("rank 0"), String.join("\n", seen));
    }
}
