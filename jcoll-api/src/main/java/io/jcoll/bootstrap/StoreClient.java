package io.jcoll.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A rank's connection to the rendezvous store. Connecting retries until the
 * deadline, because rank 0 may start after the others. Requests are serialised.
 */
public final class StoreClient implements Store {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final String server;
    private final byte purpose;
    private volatile boolean requesting; // a request holds the connection: close() cannot say LEAVE on it
    private volatile String broken;      // why the connection is unusable (no reply in time, a failure), or null
    /** How long past its own wait a request waits for the store's reply, unless {@link #bounded} says less. */
    private static final long REPLY_SLACK_MILLIS = 30_000;

    private StoreClient(Socket socket, byte purpose) throws IOException {
        this.socket = socket;
        this.purpose = purpose;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        this.server = String.valueOf(socket.getRemoteSocketAddress());
    }

    /**
     * Connects and authenticates, retrying refused connections until {@code timeout}.
     *
     * @throws IOException when the store cannot be reached or authentication fails
     */
    public static StoreClient connect(InetSocketAddress address, byte[] token, int rank, int size, Duration timeout)
            throws IOException {
        return connect(address, token, rank, size, timeout, Handshake.PURPOSE_STORE);
    }

    /**
     * A second connection for a {@link Departures} watcher, which may be closed while it waits: the store does
     * not take its end for this rank's.
     */
    public static StoreClient connectWatcher(InetSocketAddress address, byte[] token, int rank, int size,
                                             Duration timeout) throws IOException {
        return connect(address, token, rank, size, timeout, Handshake.PURPOSE_WATCH);
    }

    private static StoreClient connect(InetSocketAddress address, byte[] token, int rank, int size, Duration timeout,
                                       byte purpose) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            Socket s = new Socket();
            try {
                long leftMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                s.connect(address, (int) Math.min(leftMillis, 5_000));
                s.setTcpNoDelay(true);
                s.setSoTimeout((int) Math.min(Math.max(leftMillis, 1000), 30_000));
                StoreClient c = new StoreClient(s, purpose);
                Handshake.connect(c.in, c.out, token, purpose, rank, size);
                s.setSoTimeout(0);
                return c;
            } catch (Handshake.AuthenticationException e) {
                s.close();
                throw e;
            } catch (IOException e) {
                s.close();
                last = e;
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to the store", ie);
                }
            }
        }
        throw new IOException("no rendezvous store answered at " + address + " within " + timeout.toSeconds()
                + " s" + (last == null ? "" : " (last error: " + last.getMessage() + ")"), last);
    }

    /** The local address this rank used to reach the store: the one its peers can reach it at. */
    public InetAddress localAddress() {
        return socket.getLocalAddress();
    }

    @Override
    public synchronized void set(String key, byte[] value) {
        if (value.length > StoreProtocol.MAX_VALUE) {
            throw new IllegalArgumentException("store value of " + value.length + " bytes exceeds " + StoreProtocol.MAX_VALUE);
        }
        set(key, value, REPLY_SLACK_MILLIS);
    }

    private synchronized void set(String key, byte[] value, long slack) {
        request(StoreProtocol.SET, key, () -> {
            out.writeInt(value.length);
            out.write(value);
        }, 0, slack);
    }

    @Override
    public Optional<byte[]> get(String key, Duration timeout) {
        return get(key, timeout, REPLY_SLACK_MILLIS);
    }

    private synchronized Optional<byte[]> get(String key, Duration timeout, long slack) {
        long millis = Math.max(0, timeout.toMillis());
        Reply r = request(StoreProtocol.GET, key, () -> out.writeLong(millis), millis, slack);
        return r.status == StoreProtocol.OK ? Optional.of(r.payload) : Optional.empty();
    }

    @Override
    public long add(String key, long delta) {
        return add(key, delta, REPLY_SLACK_MILLIS);
    }

    private synchronized long add(String key, long delta, long slack) {
        Reply r = request(StoreProtocol.ADD, key, () -> out.writeLong(delta), 0, slack);
        return ByteBuffer.wrap(r.payload).getLong();
    }

    @Override
    public void delete(String key) {
        delete(key, REPLY_SLACK_MILLIS);
    }

    private synchronized void delete(String key, long slack) {
        request(StoreProtocol.DELETE, key, () -> { }, 0, slack);
    }

    /** This connection, with replies awaited at most {@code replyLimit} beyond each request's own wait. */
    @Override
    public Store bounded(Duration replyLimit) {
        long slack = Math.max(1, replyLimit.toMillis());
        StoreClient c = this;
        return new Store() {
            @Override public void set(String key, byte[] value) { c.set(key, value, slack); }
            @Override public Optional<byte[]> get(String key, Duration timeout) { return c.get(key, timeout, slack); }
            @Override public long add(String key, long delta) { return c.add(key, delta, slack); }
            @Override public void delete(String key) { c.delete(key, slack); }
            @Override public void close() { c.close(); }
        };
    }

    private interface Body {
        void write() throws IOException;
    }

    private record Reply(byte status, byte[] payload) {
    }

    private Reply request(byte op, String key, Body body, long serverWaitMillis, long slackMillis) {
        if (broken != null) {
            // a request that got no reply leaves the stream mid-message: nothing later could be read right
            throw new StoreUnreachableException("rendezvous store at " + server + " is not used again for key '" + key
                    + "': " + broken, null);
        }
        requesting = true;
        try {
            byte[] k = StoreProtocol.keyBytes(key);
            // the server may legitimately hold a GET for serverWaitMillis; allow that plus slack
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, serverWaitMillis + slackMillis));
            out.writeByte(op);
            out.writeShort(k.length);
            out.write(k);
            body.write();
            out.flush();
            byte status = in.readByte();
            byte[] payload = StoreProtocol.readSized(in, StoreProtocol.MAX_VALUE, "store reply");
            if (status == StoreProtocol.ERROR) {
                throw new Refused(new String(payload, StandardCharsets.UTF_8));
            }
            return new Reply(status, payload);
        } catch (java.net.SocketTimeoutException e) {
            broken = "it did not answer a request within " + (serverWaitMillis + slackMillis) + " ms (its holder, "
                    + "rank 0 or node 0's jcoll launch, unreachable, or the network partitioned)";
            throw new StoreUnreachableException("rendezvous store at " + server + " " + broken + ", key '" + key + "'",
                    e);
        } catch (java.io.EOFException e) {
            broken = "it closed the connection";
            throw new StoreUnreachableException("rendezvous store at " + server + " closed the connection during key '"
                    + key + "': its holder (rank 0, or node 0's jcoll launch in a job of several nodes) left or died",
                    e);
        } catch (IOException e) {
            if (!(e instanceof Refused)) {
                broken = "the connection failed: " + e; // an error the store answered with leaves the stream in step
            }
            throw new StoreUnreachableException("rendezvous store at " + server + " failed on key '" + key + "': "
                    + e.getMessage(), e);
        } finally {
            requesting = false;
        }
    }

    /**
     * Says LEAVE first (best effort, a second at most), so that the store does not take this rank's orderly
     * end for its death; then closes.
     */
    @Override
    public void close() {
        if (purpose == Handshake.PURPOSE_STORE && !requesting && broken == null && !socket.isClosed()) {
            synchronized (this) {
                try {
                    request(StoreProtocol.LEAVE, "leave", () -> { }, 0, 1_000);
                } catch (StoreUnreachableException ignored) {
                    // the store is gone already: nobody is left to mistake this for a death
                }
            }
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort
        }
    }

    /** The store answered a request with an error. */
    private static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    /** The store stopped answering in the middle of a request. */
    public static final class StoreUnreachableException extends RuntimeException {
        StoreUnreachableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
