package io.jcoll.shm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Helper threads that share one rank's copies and reductions with the thread that called. One core copies about
 * 10 GB/s on the GPU hosts, a fifth to a tenth of what their memory moves (benchmarks/RESULTS.md, the copy
 * ceiling), so a rank with cores to spare moves a large chunk's bytes faster by cutting them into ranges, one
 * per member, than alone. Only data moves on the helpers: every wait for a peer, every counter and every check
 * stays on the calling thread, so the protocol between ranks is the same with a crew or without.
 *
 * <p>A helper polls, yielding, while jobs keep coming (one every few microseconds inside a large collective),
 * and parks after {@link #IDLE_POLL} without one, so that a communicator between calls costs no core. The
 * helpers start on the first shared job, not before: most communicators (a split's sub-group, one that moves
 * small messages) never need them.
 */
final class Crew implements AutoCloseable {

    /** A job: member {@code member} of {@code members} does its part. */
    @FunctionalInterface
    interface Part {
        void run(int member, int members);
    }

    /** One job as the helpers see it, published whole so that a helper never mixes two jobs' fields. */
    private record Job(long number, Part part, int members) {
    }

    /** Nanoseconds an idle helper polls for the next job before it parks: the gap between chunks, many times over. */
    static final long IDLE_POLL = 1_000_000;
    /** Nanoseconds the calling thread spins for its helpers before it yields its core while it waits. */
    private static final long HELPER_SPIN = 50_000;

    private final String name;
    private final int size;          // members, the calling thread included
    private final Runnable settle;   // after each part on a helper: lets a fault its copy left pending be raised
    private final AtomicInteger unfinished = new AtomicInteger();
    private Thread[] helpers;        // started on first use
    private AtomicIntegerArray parked; // 1 while a helper is parked or about to park
    private volatile Job job = new Job(0, null, 0);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * @param size   members, the calling thread included (1: no helpers, every job runs on the caller)
     * @param settle run on a helper after each part, inside its failure handling
     */
    Crew(String name, int size, Runnable settle) {
        if (size < 1) {
            throw new IllegalArgumentException("a crew has at least the calling thread (was " + size + ")");
        }
        this.name = name;
        this.size = size;
        this.settle = settle;
    }

    /** Members, the calling thread included. */
    int size() {
        return size;
    }

    /**
     * Runs {@code part} on {@code members} members (at most {@link #size()}), the calling thread as member 0, and
     * returns when all are done; the first failure of any member is thrown here.
     */
    void run(int members, Part part) {
        if (closed) {
            throw new IllegalStateException("crew " + name + " is closed");
        }
        int m = Math.min(members, size);
        if (m <= 1) {
            part.run(0, 1);
            return;
        }
        start();
        failure.set(null);
        unfinished.set(m - 1);
        job = new Job(job.number() + 1, part, m);
        for (int i = 1; i < m; i++) {
            if (parked.get(i) == 1) {
                LockSupport.unpark(helpers[i]);
            }
        }
        Throwable mine = null;
        try {
            part.run(0, m);
        } catch (Throwable t) {
            mine = t;
        }
        // the helpers' parts are as long as this one: a short wait, and never for a peer; yielding after a while
        // lets a helper that the kernel descheduled have this core
        long since = System.nanoTime();
        while (unfinished.get() != 0) {
            if (System.nanoTime() - since < HELPER_SPIN) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                requireHelpersAlive(m);
            }
        }
        Throwable first = mine != null ? mine : failure.get();
        if (first instanceof RuntimeException r) {
            throw r;
        }
        if (first instanceof Error e) {
            throw e; // an error from a cut-off page stays one for the transport to name
        }
        if (first != null) {
            throw new IllegalStateException(first);
        }
    }

    /** A helper that died (it never should) would leave its part's count standing: fail rather than wait forever. */
    private void requireHelpersAlive(int members) {
        for (int i = 1; i < members; i++) {
            if (!helpers[i].isAlive()) {
                throw new IllegalStateException("helper thread " + helpers[i].getName() + " of crew " + name
                        + " stopped; the call's copies are incomplete");
            }
        }
    }

    private void start() {
        if (helpers != null) {
            return;
        }
        helpers = new Thread[size];
        parked = new AtomicIntegerArray(size);
        for (int i = 1; i < size; i++) {
            int member = i;
            Thread t = new Thread(() -> work(member), name + "-" + i);
            t.setDaemon(true);
            helpers[i] = t;
        }
        for (int i = 1; i < size; i++) {
            helpers[i].start();
        }
    }

    private void work(int member) {
        long seen = 0;
        long idleSince = System.nanoTime();
        while (!closed) {
            try {
                Job j = job;
                if (j.number() != seen) {
                    seen = j.number();
                    if (member < j.members()) {
                        runPart(j, member);
                    }
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < IDLE_POLL) {
                    // yield, not a bare spin: where the host's threads outnumber its cores (a crew set larger than
                    // the cores per rank), a spinning helper would hold the core its own rank or a peer needs
                    Thread.yield();
                } else {
                    parked.set(member, 1);
                    // a job published after the flag was set finds it and unparks; one published before is seen here
                    if (job.number() == seen && !closed) {
                        LockSupport.park(this);
                    }
                    parked.set(member, 0);
                    idleSince = System.nanoTime();
                }
            } catch (Throwable late) {
                // a fault raised after its part returned (a page cut off under a copy, on JDK 17): the damage it
                // comes from is met again, and named, by the next call that touches the segment
            }
        }
    }

    private void runPart(Job j, int member) {
        try {
            j.part().run(member, j.members());
            settle.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            unfinished.decrementAndGet();
        }
    }

    /** Stops the helpers and waits for them (they never wait on anything but a job). */
    @Override
    public void close() {
        closed = true;
        if (helpers == null) {
            return;
        }
        for (int i = 1; i < size; i++) {
            LockSupport.unpark(helpers[i]);
        }
        for (int i = 1; i < size; i++) {
            try {
                helpers[i].join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
