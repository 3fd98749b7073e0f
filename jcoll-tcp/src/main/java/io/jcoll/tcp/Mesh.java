package io.jcoll.tcp;

import io.jcoll.bootstrap.Handshake;
import io.jcoll.bootstrap.RefusalLog;
import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Builds the full mesh of data connections: every rank listens, publishes its
 * endpoint in the store, connects to each lower rank and accepts each higher
 * one. Lower ranks never connect upward, so no two ranks wait on each other.
 * Every connection is authenticated with the job token; a stranger that
 * connects to the listener is dropped and logged once per host, and accepting goes on.
 */
final class Mesh {

    private static final System.Logger LOG = System.getLogger(Mesh.class.getName());

    private Mesh() {
    }

    /**
     * @param keyPrefix where in the store ranks publish their endpoints, one prefix per mesh (a transport with
     *                  several channels builds one mesh for each)
     */
    static Connection[] connect(int rank, int size, Store store, String keyPrefix, InetAddress advertise,
                                byte[] token, Duration timeout, int socketBufferBytes) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Connection[] connections = new Connection[size];
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(0), size + 16);
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            store.set(keyPrefix + rank, (advertise.getHostAddress() + " " + port).getBytes(StandardCharsets.UTF_8));
            RefusalLog refusals = new RefusalLog(LOG, "rank " + rank + "'s data listener");
            try {
                for (int peer = 0; peer < rank; peer++) {
                    connections[peer] = dial(rank, size, peer, store, keyPrefix, token, deadline, socketBufferBytes);
                }
                int expected = size - 1 - rank;
                while (expected > 0) {
                    Connection c = answer(rank, size, listener, token, deadline, connections, socketBufferBytes, refusals);
                    if (c != null) {
                        connections[c.peer] = c;
                        expected--;
                    }
                }
            } catch (IOException | RuntimeException e) {
                for (Connection c : connections) {
                    if (c != null) {
                        c.channel.close();
                    }
                }
                throw e;
            }
        }
        return connections;
    }

    private static Connection dial(int rank, int size, int peer, Store store, String keyPrefix, byte[] token,
                                   long deadline, int socketBufferBytes) throws IOException {
        Optional<byte[]> endpoint = store.get(keyPrefix + peer, left(deadline));
        if (endpoint.isEmpty()) {
            throw new BootstrapException("bootstrap", rank, peer, "rank " + peer + " never published its address");
        }
        String[] hostPort = new String(endpoint.get(), StandardCharsets.UTF_8).split(" ");
        InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        SocketChannel ch = SocketChannel.open();
        try {
            configure(ch, socketBufferBytes);
            ch.socket().connect(address, (int) Math.max(1, Math.min(left(deadline).toMillis(), Integer.MAX_VALUE)));
            ch.socket().setSoTimeout((int) Math.max(1, Math.min(left(deadline).toMillis(), Integer.MAX_VALUE)));
            // unbuffered input: bytes after the handshake belong to the data stream
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            int answered = Handshake.connect(in, out, token, Handshake.PURPOSE_DATA, rank, size);
            if (answered != peer) {
                throw new IOException("the endpoint published by rank " + peer + " at " + address
                        + " answered as rank " + answered);
            }
            return new Connection(peer, ch);
        } catch (SocketTimeoutException e) {
            ch.close();
            throw new BootstrapException("bootstrap", rank, peer, "rank " + peer + " at " + address
                    + " did not complete the connection handshake in time");
        } catch (IOException e) {
            ch.close();
            throw new BootstrapException("bootstrap", rank, peer, "could not connect to rank " + peer + " at "
                    + address + ": " + e.getMessage(), e);
        }
    }

    /** Accepts one connection; null if it was not a valid, new, higher rank of this job. */
    private static Connection answer(int rank, int size, ServerSocketChannel listener, byte[] token, long deadline,
                                     Connection[] connections, int socketBufferBytes, RefusalLog refusals)
            throws IOException {
        SocketChannel ch;
        try {
            listener.socket().setSoTimeout((int) Math.max(1, Math.min(left(deadline).toMillis(), Integer.MAX_VALUE)));
            ch = listener.socket().accept().getChannel();
        } catch (SocketTimeoutException e) {
            StringBuilder missing = new StringBuilder();
            for (int r = rank + 1; r < size; r++) {
                if (connections[r] == null) {
                    missing.append(missing.length() == 0 ? "" : ", ").append(r);
                }
            }
            throw new BootstrapException("bootstrap", rank, JcollException.NONE, "rank(s) " + missing
                    + " never connected to this rank within JCOLL_TIMEOUT");
        }
        try {
            configure(ch, socketBufferBytes);
            ch.socket().setSoTimeout((int) Math.max(1, Math.min(Math.min(left(deadline).toMillis(), 10_000), Integer.MAX_VALUE)));
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            Handshake.Hello hello = Handshake.accept(in, out, token, Handshake.PURPOSE_DATA, rank);
            if (hello.size() != size || hello.rank() <= rank || hello.rank() >= size || connections[hello.rank()] != null) {
                throw new IOException("unexpected peer: rank " + hello.rank() + " of " + hello.size()
                        + " (this rank " + rank + " of " + size + " accepts each higher rank once)");
            }
            return new Connection(hello.rank(), ch);
        } catch (IOException e) {
            refusals.refused(ch.socket().getRemoteSocketAddress(), e.getMessage());
            ch.close();
            return null;
        }
    }

    private static void configure(SocketChannel ch, int socketBufferBytes) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (socketBufferBytes > 0) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, socketBufferBytes);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, socketBufferBytes);
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }
}
