package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.TransportInfo;
import io.jcoll.bootstrap.Departures;
import io.jcoll.bootstrap.Handshake;
import io.jcoll.bootstrap.StoreClient;
import io.jcoll.bootstrap.StoreServer;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Transport;
import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank's process dies while a call on a transport that does not notice dead peers waits for it (NCCL over
 * NVLink waits until its timeout): the store sees the process's connection close, and the survivor's call
 * fails within a second naming the rank, long before JCOLL_TIMEOUT. Orderly ends are never taken for deaths.
 */
class DepartureWatchTest {

    private static final byte[] TOKEN = "departure-test-token".getBytes(StandardCharsets.UTF_8);
    private static final TransportInfo INFO = new TransportInfo("waiting", "waiting", "test", List.of());
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Every collective waits for peers that never answer: it ends at its deadline, or when interrupted. */
    static final class Waiting implements Transport {
        private final Object lock = new Object();
        private Throwable interrupted;
        volatile boolean aborted;

        @Override public String name() { return "waiting"; }
        @Override public String unsupportedReason(io.jcoll.Buffer buffer) { return null; }

        @Override
        public void execute(Call call, long deadlineNanos) {
            synchronized (lock) {
                while (interrupted == null) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        throw new CollectiveTimeoutException(call.operation().label(), 0, JcollException.NONE,
                                "timed out");
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                throw new JcollException(call.operation().label(), 0, JcollException.NONE, "interrupted: " + interrupted);
            }
        }

        @Override
        public void interrupt(Throwable cause) {
            synchronized (lock) {
                interrupted = cause;
                lock.notifyAll();
            }
        }

        @Override public void abort(Throwable cause) { aborted = true; interrupt(cause); }
        @Override public void close() { }
    }

    private static Process member(StoreServer server, int rank) throws Exception {
        Process p = new ProcessBuilder(Commands.java(), "-cp", System.getProperty("java.class.path"),
                StoreMember.class.getName(), Integer.toString(server.port()), new String(TOKEN, StandardCharsets.UTF_8),
                Integer.toString(rank), "3").redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        assertEquals("connected", line, "rank " + rank + "'s process did not connect");
        return p;
    }

    /** An AllReduce on its own thread: what it threw, or null once it returned. */
    private static CompletableFuture<Throwable> pendingAllReduce(Communicator comm) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                comm.allReduce(HostBuffer.of(new float[7]), ReduceOp.SUM);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
    }

    /** Rank 0's communicator, hosting the store, with a watcher as Bootstrap starts one. */
    private static Communicator rankZero(StoreServer server, Waiting transport) {
        DepartureWatch watch = new DepartureWatch(server.local(), null, 0);
        CommunicatorImpl comm = new CommunicatorImpl(0, 3, 0, 0, INFO, TIMEOUT, transport, watch, server.local());
        watch.start(comm::peerDeparted);
        return comm;
    }

    @Test
    void aKilledRanksProcessFailsTheWaitingCallWithinASecondNamingIt() throws Exception {
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN)) {
            Process one = member(server, 1);
            Process two = member(server, 2);
            Waiting transport = new Waiting();
            Communicator comm = rankZero(server, transport);
            CompletableFuture<Throwable> call = pendingAllReduce(comm);
            Thread.sleep(300);
            long killed = System.nanoTime();
            two.destroyForcibly(); // SIGKILL: no goodbye, no shutdown hook
            Throwable e = call.get(10, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - killed) / 1e9;
            one.destroyForcibly();
            PeerFailureException failure = assertInstanceOf(PeerFailureException.class, e, String.valueOf(e));
            assertEquals(2, failure.peer(), failure.getMessage());
            assertTrue(failure.getMessage().contains("rank 2 is gone"), failure.getMessage());
            assertTrue(seconds < 1.0, "named " + seconds + " s after the kill; JCOLL_TIMEOUT is 60 s");
            CommunicatorClosedException later = assertThrows(CommunicatorClosedException.class,
                    () -> comm.barrier(), "a later call fails at once");
            assertTrue(later.getMessage().contains("rank 2 is gone"), later.getMessage());
            comm.close();
        }
    }

    /**
     * A rank that aborts its communicator stays alive, so no connection closes: its abort goes through the store,
     * and a peer waiting on a transport that would not notice (NCCL over NVLink) ends its call within a second,
     * naming it and its reason.
     */
    @Test
    void anAbortIsNamedByThePeersWithinASecond() throws Exception {
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN)) {
            Process two = member(server, 2);
            Waiting transport = new Waiting();
            Communicator comm = rankZero(server, transport);
            StoreClient client = StoreClient.connect(
                    new InetSocketAddress("127.0.0.1", server.port()), TOKEN, 1, 3, Duration.ofSeconds(10));
            CommunicatorImpl one = new CommunicatorImpl(1, 3, 0, 0, INFO, TIMEOUT, new Waiting(), client, client);
            one.announceAbortsWith(reason -> Departures.record(client, 1, Departures.Kind.ABORTED,
                    reason));
            CompletableFuture<Throwable> call = pendingAllReduce(comm);
            Thread.sleep(300);
            long aborted = System.nanoTime();
            one.abort("rank 1's training loop gave up");
            Throwable e = call.get(10, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - aborted) / 1e9;
            PeerFailureException failure = assertInstanceOf(PeerFailureException.class, e, String.valueOf(e));
            assertEquals(1, failure.peer(), failure.getMessage());
            assertTrue(failure.getMessage().contains("rank 1 aborted its communicator (at "), failure.getMessage());
            assertTrue(failure.getMessage().contains("rank 1's training loop gave up"), failure.getMessage());
            assertTrue(seconds < 1.0, "named " + seconds + " s after the abort; JCOLL_TIMEOUT is 60 s");
            one.abort("again"); // a second abort announces nothing more
            assertTrue(transport.aborted, "rank 0's transport was aborted so that its call could end");
            one.close();
            comm.close();
            two.destroyForcibly();
        }
    }

    @Test
    void rankZerosDeathIsSeenByTheOthersThroughTheirWatchConnection() throws Exception {
        StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN);
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", server.port());
        StoreClient store = StoreClient.connect(at, TOKEN, 1, 2, Duration.ofSeconds(5));
        StoreClient own = StoreClient.connectWatcher(at, TOKEN, 1, 2, Duration.ofSeconds(5));
        DepartureWatch watch = new DepartureWatch(own, own, 1);
        Waiting transport = new Waiting();
        CommunicatorImpl comm = new CommunicatorImpl(1, 2, 1, 0, INFO, TIMEOUT, transport, () -> {
            watch.close();
            store.close();
        }, store);
        watch.start(comm::peerDeparted);
        CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
            try {
                comm.barrier();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(300);
        long died = System.nanoTime();
        server.close(); // rank 0's process ending takes its store with it, with no LEFT record
        Throwable e = call.get(10, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - died) / 1e9;
        PeerFailureException failure = assertInstanceOf(PeerFailureException.class, e, String.valueOf(e));
        assertEquals(0, failure.peer(), failure.getMessage());
        assertTrue(failure.getMessage().contains("rank 0 is gone"), failure.getMessage());
        assertTrue(seconds < 1.0, "named " + seconds + " s after rank 0's store went");
        comm.close();
    }

    @Test
    void orderlyEndsAreNotDeaths() throws Exception {
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN)) {
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", server.port());
            // a rank that closes its store connection says LEAVE; a watcher's connection never counts
            StoreClient.connect(at, TOKEN, 1, 2, Duration.ofSeconds(5)).close();
            StoreClient.connectWatcher(at, TOKEN, 1, 2, Duration.ofSeconds(5)).close();
            Thread.sleep(200);
            assertEquals(0, Departures.next(server.local()), "no departure recorded for orderly ends");

            // a connection that ends without LEAVE is a death, named with its rank
            try (java.net.Socket raw = new java.net.Socket("127.0.0.1", server.port())) {
                var in = new java.io.DataInputStream(raw.getInputStream());
                var out = new java.io.DataOutputStream(raw.getOutputStream());
                Handshake.connect(in, out, TOKEN, Handshake.PURPOSE_STORE, 2, 3);
            }
            Departures.Departure d = Departures.await(server.local(), 0, Duration.ofSeconds(5)).orElseThrow();
            assertEquals(2, d.rank());
            assertEquals(Departures.Kind.DIED, d.kind());
        }
    }

    /** Rank 0 records that it left before its store goes: the others' calls then are not failed for a death. */
    @Test
    void theStoreEndingAfterRankZeroLeftInOrderIsNoDeath() throws Exception {
        StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN);
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", server.port());
        StoreClient own = StoreClient.connectWatcher(at, TOKEN, 1, 2, Duration.ofSeconds(5));
        DepartureWatch watch = new DepartureWatch(own, own, 1);
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        watch.start((rank, account) -> heard.add(rank + ": " + account));
        Thread.sleep(200);
        Departures.record(server.local(), 0, Departures.Kind.LEFT, "closed its communicators");
        Thread.sleep(200);
        server.close();
        Thread.sleep(500);
        watch.close();
        assertEquals(List.of(), heard);
    }
}
