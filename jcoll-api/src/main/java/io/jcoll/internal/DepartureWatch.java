package io.jcoll.internal;

import io.jcoll.bootstrap.Departures;
import io.jcoll.bootstrap.Store;
import io.jcoll.bootstrap.StoreClient;
import io.jcoll.exceptions.JcollException;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * Tells a communicator when another rank's process has ended, within milliseconds, for transports that do not
 * notice a dead peer themselves (NCCL over NVLink waits on a dead peer until its timeout; under mpirun the job
 * is ended about two seconds later, with no exception in the survivors). It follows the store's
 * {@link Departures} on a thread of its own: over a second store connection of its own on ranks that do not host
 * the store, whose end says the store's holder is gone (rank 0, unless it recorded that it left in order; or, in a
 * job of several nodes, node 0's {@code jcoll launch}); over the hosted store directly on a rank 0 that hosts it.
 */
final class DepartureWatch implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DepartureWatch.class.getName());
    /** How long one wait for the next record lasts before it is asked again. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * A call that only needs what the dead rank already sent may still finish: it gets this long before the
     * communicator fails. Well inside the second a survivor has to name the rank.
     */
    private static final long GRACE_MILLIS = 100;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());

    /** Who hears of a departure: the rank as the job numbers it, and what happened to it. */
    interface Listener {
        void departed(int rank, String account);
    }

    /** Who holds the store, and so whose end its end is. */
    enum Holder {
        /** Rank 0's process (a job of one node, or ranks started by hand). */
        RANK_ZERO,
        /** Node 0's {@code jcoll launch}, in a job of several nodes: it outlives every rank. */
        LAUNCHER
    }

    private final Store store;
    private final AutoCloseable connection; // the watcher's own store connection; null on rank 0
    private final int rank;
    private final Holder holder;
    private final Thread thread;
    private volatile Listener listener;
    private volatile boolean closing;

    /**
     * @param store      where the records are read
     * @param connection the connection behind {@code store} when it is this watcher's own (closed with it), or null
     * @param rank       this rank, whose own records are skipped
     */
    DepartureWatch(Store store, AutoCloseable connection, int rank) {
        this(store, connection, rank, Holder.RANK_ZERO);
    }

    /** As above, the store held by {@code holder}. */
    DepartureWatch(Store store, AutoCloseable connection, int rank, Holder holder) {
        this.store = store;
        this.connection = connection;
        this.rank = rank;
        this.holder = holder;
        this.thread = new Thread(this::watch, "jcoll-departures-rank" + rank);
        thread.setDaemon(true);
    }

    void start(Listener listener) {
        this.listener = listener;
        thread.start();
    }

    private void watch() {
        boolean hostLeft = false;
        long next;
        try {
            next = Departures.next(store);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": cannot watch for dead peers (" + e.getMessage()
                    + "); a dead peer is then found at JCOLL_TIMEOUT");
            return;
        }
        while (!closing) {
            Optional<Departures.Departure> d;
            try {
                d = Departures.await(store, next, WAIT);
            } catch (StoreClient.StoreUnreachableException e) {
                if (!closing && holder == Holder.LAUNCHER) {
                    report(JcollException.NONE, "node 0's jcoll launch, which holds the job's rendezvous store, is "
                            + "gone (at about " + CLOCK.format(Instant.now()) + "): the store dropped this rank's "
                            + "connection (" + e.getMessage() + ")");
                } else if (!closing && !hostLeft) {
                    report(0, "rank 0 is gone (at about " + CLOCK.format(Instant.now()) + "): the rendezvous "
                            + "store its process hosts dropped this rank's connection (" + e.getMessage() + ")");
                }
                return;
            } catch (IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": skipped a departure record: " + e.getMessage());
                next++;
                continue;
            }
            if (d.isEmpty()) {
                continue; // nothing yet, or interrupted by close()
            }
            next++;
            Departures.Departure gone = d.get();
            if (gone.rank() == rank) {
                continue;
            }
            if (gone.kind() == Departures.Kind.LEFT) {
                hostLeft |= gone.rank() == 0;
                continue;
            }
            String at = CLOCK.format(Instant.ofEpochMilli(gone.epochMillis()));
            report(gone.rank(), gone.kind() == Departures.Kind.ABORTED
                    ? "rank " + gone.rank() + " aborted its communicator (at " + at + "): " + gone.account()
                    : "rank " + gone.rank() + " is gone (at " + at + "): " + gone.account());
            return; // the communicator has failed; what happens next is its own end
        }
    }

    private void report(int departed, String account) {
        try {
            Thread.sleep(GRACE_MILLIS);
        } catch (InterruptedException e) {
            return; // closed meanwhile
        }
        if (!closing) {
            LOG.log(System.Logger.Level.DEBUG, "rank " + rank + ": " + account);
            listener.departed(departed, account + "; noticed through the rendezvous store, not waiting for "
                    + "JCOLL_TIMEOUT");
        }
    }

    @Override
    public void close() {
        closing = true;
        thread.interrupt(); // rank 0: its wait on the hosted store ends at once
        if (connection != null) {
            try {
                connection.close(); // other ranks: the wait on the socket ends with it
            } catch (Exception ignored) {
                // best effort
            }
        }
    }
}
