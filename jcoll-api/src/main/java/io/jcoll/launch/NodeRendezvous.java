package io.jcoll.launch;

import io.jcoll.bootstrap.Store;
import io.jcoll.bootstrap.StoreClient;
import io.jcoll.bootstrap.StoreServer;
import io.jcoll.internal.HostIdentity;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The launchers of a job of several nodes, meeting before any rank starts and watching each other while the ranks
 * run, as torchrun's agents do through their store.
 *
 * <p>Node 0's launcher holds the job's rendezvous store at {@code --master-addr:--master-port} for the whole job:
 * every rank, rank 0 included, reaches it as a client (its launcher sets
 * {@link io.jcoll.internal.Bootstrap#LAUNCHER_STORE}), so the store
 * outlives any one rank and still carries the departure records when rank 0 dies. Every launcher
 * <ol>
 *   <li>claims its node rank (a second claimant fails, naming both hosts),</li>
 *   <li>publishes its options and waits, within the job's timeout, for every node's, comparing them: a node started
 *       with another {@code --nnodes} or {@code --nproc-per-node}, or one that never arrives, fails every launcher
 *       before any rank starts,</li>
 *   <li>then posts the failure of any of its ranks and watches for the other nodes', so that the first failure
 *       anywhere ends every node's ranks and is the one every launcher names,</li>
 *   <li>says when its ranks have all ended; node 0's launcher keeps the store until every node has said so, or has
 *       been silent for the timeout.</li>
 * </ol>
 * Every step that waits on the network is bounded by the timeout.
 */
final class NodeRendezvous implements AutoCloseable {


    private static final String KEYS = "jcoll/launch/";
    private static final String FAILURES = KEYS + "failures/";
    private static final Duration POLL = Duration.ofMillis(200);
    /** How often a launcher says it is alive while its ranks run. */
    private static final long BEAT_NANOS = 1_000_000_000L;

    /** A failure every node's launcher ends on: what happened, where, and the exit code to return. */
    record Failure(String account, int exitCode) {
    }

    /** The launchers could not meet, or disagree: nothing was started; the message names the node and cause. */
    static final class NodeFailure extends RuntimeException {
        NodeFailure(String message) {
            super(message);
        }
    }

    private final Launcher.Nodes nodes;
    private final String me; // "node R (host)"
    private final Duration timeout;
    private final StoreServer server; // node 0 only
    private final StoreClient client;
    /** The client's requests, each bounded by the timeout (at most the client's own 30 s), partitions included. */
    private final Store store;
    private long nextBeat;
    private long nextCheck;
    private Failure first;

    private NodeRendezvous(Launcher.Nodes nodes, String me, Duration timeout, StoreServer server, StoreClient client) {
        this.nodes = nodes;
        this.me = me;
        this.timeout = timeout;
        this.server = server;
        this.client = client;
        this.store = client.bounded(timeout.compareTo(REPLY_LIMIT) < 0 ? timeout : REPLY_LIMIT);
    }

    private static final Duration REPLY_LIMIT = Duration.ofSeconds(30);

    /**
     * Meets every other node's launcher: returns once all {@code nodes.nnodes()} have arrived with the same options.
     *
     * @param nodes   where this node stands
     * @param nproc   ranks this node starts ({@code --nproc-per-node})
     * @param token   the job's secret that guards the store (the same on every node)
     * @param timeout the limit on reaching the store and on waiting for the other nodes
     * @throws NodeFailure naming the node and the cause, on every node that can still learn it
     */
    static NodeRendezvous meet(Launcher.Nodes nodes, int nproc, byte[] token, Duration timeout) {
        String host = HostIdentity.name(Settings.fromEnvironment());
        String me = "node " + nodes.nodeRank() + " (" + host + ")";
        InetAddress master;
        try {
            master = InetAddress.getByName(nodes.masterAddr());
        } catch (UnknownHostException e) {
            throw new NodeFailure(me + ": --master-addr " + nodes.masterAddr() + " does not resolve here; give every "
                    + "node an address or name of node 0 that they all reach");
        }
        StoreServer server = null;
        StoreClient client = null;
        try {
            if (nodes.nodeRank() == 0) {
                server = hostStore(nodes, token, me);
            }
            try {
                client = StoreClient.connectWatcher(new InetSocketAddress(master, nodes.masterPort()), token,
                        nodes.nodeRank() * nproc, nodes.nnodes() * nproc, timeout);
            } catch (IOException e) {
                throw new NodeFailure(me + ": node 0's jcoll launch did not answer at " + nodes.masterAddr() + ":"
                        + nodes.masterPort() + " within " + timeout.toSeconds() + " s (JCOLL_TIMEOUT): start node 0 "
                        + "with the same --master-addr and --master-port, or see node 0's output for why it "
                        + "stopped (" + e.getMessage() + ")");
            }
            NodeRendezvous r = new NodeRendezvous(nodes, me, timeout, server, client);
            r.agree(nproc, host);
            return r;
        } catch (RuntimeException e) {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                lingerThenClose(server, client != null); // a failure was posted: let the others read it
            }
            throw e;
        }
    }

    private static StoreServer hostStore(Launcher.Nodes nodes, byte[] token, String me) {
        try {
            return new StoreServer(new InetSocketAddress(nodes.masterPort()), token);
        } catch (BindException e) {
            throw new NodeFailure(me + ": --master-port " + nodes.masterPort() + " is already in use on this host ("
                    + e.getMessage() + "); give every node the same free port");
        } catch (IOException e) {
            throw new NodeFailure(me + ": cannot hold the job's store on port " + nodes.masterPort() + ": "
                    + e.getMessage());
        }
    }

    /** Claims this node's rank, publishes its options, and waits for every node's, comparing them. */
    private void agree(int nproc, String host) {
        int r = nodes.nodeRank();
        String mine = nodes.nnodes() + "|" + nproc + "|" + host + "|" + ProcessHandle.current().pid();
        byte[] mineBytes = mine.getBytes(StandardCharsets.UTF_8);
        if (store.add(KEYS + "claims/" + r, 1) > 1) {
            String other = store.get(KEYS + "node/" + r, Duration.ofSeconds(5))
                    .map(v -> describe(r, parse(v))).orElse("another launcher");
            fail("two launchers claim --node-rank " + r + ": " + other + " and " + describe(r, parse(mineBytes))
                    + "; give each node its own --node-rank", 1);
        }
        store.set(KEYS + "node/" + r, mineBytes);
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Integer> missing = new ArrayList<>();
        List<String> arrived = new ArrayList<>();
        for (int k = 0; k < nodes.nnodes(); k++) {
            Optional<byte[]> v = store.get(KEYS + "node/" + k, Duration.ZERO); // asked once even past the deadline
            while (v.isEmpty() && System.nanoTime() < deadline) {
                failureSoFar().ifPresent(f -> {
                    throw new NodeFailure(f.account());
                });
                v = store.get(KEYS + "node/" + k, POLL);
            }
            if (v.isEmpty()) {
                missing.add(k);
                continue;
            }
            String[] theirs = parse(v.get());
            arrived.add(describe(k, theirs));
            if (!theirs[0].equals(Integer.toString(nodes.nnodes())) || !theirs[1].equals(Integer.toString(nproc))) {
                fail(describe(k, theirs) + " was started with --nnodes " + theirs[0] + " --nproc-per-node "
                        + theirs[1] + ", " + me + " with --nnodes " + nodes.nnodes() + " --nproc-per-node " + nproc
                        + ": every node takes the same values", 1);
            }
        }
        if (!missing.isEmpty()) {
            fail("node(s) " + missing + " of " + nodes.nnodes() + " never arrived within " + timeout.toSeconds()
                    + " s (JCOLL_TIMEOUT); " + (arrived.isEmpty() ? "none did" : String.join(", ", arrived) + " did")
                    + ": start `jcoll launch --node-rank R` on each with the same --master-addr and --master-port", 1);
        }
    }

    private static String describe(int node, String[] fields) {
        return "node " + node + " (" + fields[2] + ", pid " + fields[3] + ")";
    }

    private static String[] parse(byte[] v) {
        String[] f = new String(v, StandardCharsets.UTF_8).split("\\|", 4);
        return f.length == 4 ? f : new String[] {"?", "?", "unknown host", "?"};
    }

    /** Posts a failure (the first posted is the one every node names) and throws it as a {@link NodeFailure}. */
    private void fail(String account, int exitCode) {
        post(account, exitCode);
        readFirst();
        throw new NodeFailure(first != null ? first.account() : account);
    }

    /**
     * Says that one of this node's ranks failed; returns the job's first failure, which is this one unless another
     * node posted earlier.
     */
    Failure rankFailed(int rank, int exitCode) {
        String account = "rank " + rank + " on " + me + " failed first (exit code " + exitCode + ")";
        post(account, exitCode);
        readFirst();
        return first != null ? first : new Failure(account, exitCode);
    }

    private void post(String account, int exitCode) {
        try {
            long index = store.add(FAILURES + "count", 1) - 1;
            store.set(FAILURES + index, (exitCode + "|" + account).getBytes(StandardCharsets.UTF_8));
        } catch (StoreClient.StoreUnreachableException e) {
            // node 0's launcher is gone: the other nodes learn that from the store's end
        }
    }

    /**
     * The job's first failure where one was posted, or node 0's launcher gone (its store with it). Called from the
     * launcher's supervising loop: asks the store at most every {@link #POLL}, and says this node is alive.
     */
    Optional<Failure> failureSoFar() {
        long now = System.nanoTime();
        if (first == null && now - nextCheck >= 0) {
            nextCheck = now + POLL.toNanos();
            try {
                if (now - nextBeat >= 0) {
                    nextBeat = now + BEAT_NANOS;
                    store.add(KEYS + "beat/" + nodes.nodeRank(), 1);
                }
            } catch (StoreClient.StoreUnreachableException e) {
                // readFirst says it
            }
            readFirst();
        }
        return Optional.ofNullable(first);
    }

    private void readFirst() {
        if (first != null) {
            return;
        }
        try {
            Optional<byte[]> v = store.get(FAILURES + "0", Duration.ZERO);
            if (v.isPresent()) {
                String[] f = new String(v.get(), StandardCharsets.UTF_8).split("\\|", 2);
                int code = f.length == 2 && f[0].matches("\\d{1,3}") ? Integer.parseInt(f[0]) : 1;
                first = new Failure(f.length == 2 ? f[1] : f[0], code);
            }
        } catch (StoreClient.StoreUnreachableException e) {
            first = new Failure("node 0's jcoll launch, which holds the job's store at " + nodes.masterAddr() + ":"
                    + nodes.masterPort() + ", is gone or cannot be reached (" + e.getMessage() + "); its own output "
                    + "says why", 1);
        }
    }

    /**
     * Says this node's ranks have all ended. Node 0's launcher then keeps the store until every node has said the
     * same (their ranks may still be using it), giving up on a node silent for the timeout.
     */
    void ranksEnded() {
        try {
            store.set(KEYS + "done/" + nodes.nodeRank(), new byte[] {1});
            if (server == null) {
                return;
            }
            for (int k = 1; k < nodes.nnodes(); k++) {
                long lastBeat = -1;
                long silentSince = System.nanoTime();
                while (store.get(KEYS + "done/" + k, POLL).isEmpty()) {
                    long beat = store.add(KEYS + "beat/" + k, 0);
                    if (beat != lastBeat) {
                        lastBeat = beat;
                        silentSince = System.nanoTime();
                    } else if (System.nanoTime() - silentSince > timeout.toNanos()) {
                        break; // its launcher is gone or cut off: its ranks cannot be waited for any longer
                    }
                }
            }
        } catch (StoreClient.StoreUnreachableException e) {
            // node 0's launcher is gone: nothing is left to tell
        }
    }

    @Override
    public void close() {
        client.close();
        if (server != null) {
            lingerThenClose(server, first != null);
        }
    }

    /** Node 0's store stays a moment after a failure so that the other launchers can read what happened. */
    private static void lingerThenClose(StoreServer server, boolean failed) {
        if (failed) {
            try {
                Thread.sleep(2 * POLL.toMillis() + 500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        server.close();
    }
}
