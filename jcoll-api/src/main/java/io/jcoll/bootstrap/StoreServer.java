package io.jcoll.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * The rendezvous store's server, hosted by rank 0. Each connection is
 * authenticated with the job token before it may read or write; one that
 * cannot, or that sends anything malformed, is dropped and the job carries
 * on. Refusals are logged once per remote host ({@link RefusalLog}). Connections are bounded in number, handshakes in time.
 */
public final class StoreServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(StoreServer.class.getName());
    /** Two a rank where a departure watcher runs (NCCL, MPI), for jobs of a few thousand ranks. */
    private static final int MAX_CONNECTIONS = 8192;
    private static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(10);

    private final ServerSocket listener;
    private final byte[] token;
    private final MemoryStore data = new MemoryStore();
    private final Semaphore connectionSlots = new Semaphore(MAX_CONNECTIONS);
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final RefusalLog refusals;
    /**
     * At JVM exit with ranks still connected (a failing job: rank 0 caught an error and exits), the store stays
     * up a moment, so that the other ranks can still read the failure records that name who stalled or died.
     */
    private static final Duration LINGER_AT_EXIT = Duration.ofSeconds(1);
    private final Thread lingerAtExit = new Thread(this::lingerWhileConnected, "jcoll-store-exit");
    private volatile boolean closed;

    /** Starts listening on {@code bind} (port 0 picks a free port). */
    public StoreServer(InetSocketAddress bind, byte[] token) throws IOException {
        this.token = token.clone();
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(bind, 128);
        refusals = new RefusalLog(LOG, "store on port " + listener.getLocalPort());
        acceptor = new Thread(this::acceptLoop, "jcoll-store-acceptor-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
        Runtime.getRuntime().addShutdownHook(lingerAtExit);
    }

    private void lingerWhileConnected() {
        long until = System.nanoTime() + LINGER_AT_EXIT.toNanos();
        while (!closed && !open.isEmpty() && System.nanoTime() < until) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** This process's own view of the store: no socket, same data. */
    public Store local() {
        return new Store() {
            @Override public void set(String key, byte[] value) { data.set(key, value); }
            @Override public Optional<byte[]> get(String key, Duration timeout) { return data.get(key, timeout); }
            @Override public long add(String key, long delta) { return data.add(key, delta); }
            @Override public void delete(String key) { data.delete(key); }
            @Override public void close() { }
        };
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "store: accept failed: " + e);
                }
                continue;
            }
            if (!connectionSlots.tryAcquire()) {
                refusals.refused(s.getRemoteSocketAddress(), "already " + MAX_CONNECTIONS + " connections");
                closeQuietly(s);
                continue;
            }
            open.add(s);
            Thread t = new Thread(() -> serve(s), "jcoll-store-" + s.getRemoteSocketAddress());
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Socket s) {
        SocketAddress remote = s.getRemoteSocketAddress();
        String who = String.valueOf(remote);
        Handshake.Hello hello = null;
        boolean left = false;
        String ended = "its connection to the rendezvous store closed";
        try (s) {
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) HANDSHAKE_LIMIT.toMillis());
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            hello = Handshake.accept(in, out, token, 0, Handshake.PURPOSE_STORE, Handshake.PURPOSE_WATCH);
            who = "rank " + hello.rank() + " at " + who;
            while (!closed) {
                s.setSoTimeout(0); // an authenticated rank may stay quiet for the whole job
                int op = in.read();
                if (op < 0) {
                    return;
                }
                s.setSoTimeout((int) HANDSHAKE_LIMIT.toMillis()); // the rest of a request comes at once
                StoreProtocol.answer((byte) op, in, out, data);
                out.flush();
                left |= op == StoreProtocol.LEAVE;
            }
        } catch (IOException e) {
            if (closed) {
                return;
            }
            String reason = e instanceof EOFException ? "connection closed mid-message"
                    : e instanceof SocketTimeoutException ? "silent for " + HANDSHAKE_LIMIT.toSeconds()
                            + " s in the middle of a handshake or request"
                    : e.getMessage();
            ended = "its connection to the rendezvous store failed (" + reason + ")";
            if (hello != null) {
                LOG.log(System.Logger.Level.WARNING, "store: dropped " + who + ": " + reason);
            } else {
                refusals.refused(remote, reason);
            }
        } finally {
            open.remove(s);
            connectionSlots.release();
            if (hello != null && hello.purpose() == Handshake.PURPOSE_STORE && !left && !closed) {
                recordDeath(hello.rank(), ended);
            }
        }
    }

    /** A rank's store connection ended without its saying goodbye: its process is gone ({@link Departures}). */
    private void recordDeath(int rank, String how) {
        try {
            Departures.record(data, rank, Departures.Kind.DIED, how + " before it closed its communicator: its "
                    + "process was killed, crashed or exited without close(), or its network was cut");
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "store: could not record rank " + rank + "'s departure: " + e);
        }
    }

    /** @return connections refused before they authenticated, since the server started */
    public long refusedConnections() {
        return refusals.total();
    }

    @Override
    public void close() {
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(lingerAtExit);
        } catch (IllegalStateException exiting) {
            // the JVM is exiting: the hook runs and sees closed
        }
        closeQuietly(listener);
        for (Socket s : open) {
            closeQuietly(s);
        }
        data.close();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing is best effort
        }
    }
}
