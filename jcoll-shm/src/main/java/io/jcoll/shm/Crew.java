package io.jcoll.shm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Helper threads that share one rank's copies and reductions with the thread that called. One core copies about
 * 10 GB/s on the GPU hosts, a fifth to a tenth of what their memory moves (benchmarks/RESULTS.md, the copy
 * ceiling), so a rank with cores to spare moves a large chunk's bytes faster by cutting them into ranges for
 * several threads than alone. Only data moves on the helpers: every wait for a peer, every counter and every check
 * stays on the calling thread, so the protocol between ranks is the same with a crew or without.
 *
 * <p>A job is cut into more pieces than members, a run of them for each: each member takes the pieces of its own
 * run, and the calling thread, once the others are later than its own run took, also takes what is left of
 * theirs. A helper the kernel does not run (a host whose other threads take its cores) then delays a job by about
 * a run and a piece it has begun, not by the time it waits for a core: with one fixed share a member, AllReduce
 * at 4 ranks beside busy processes took 2-372 ms a call, 2.0-67x the time of trial builds whose members took
 * pieces (benchmarks/RESULTS.md). Only the caller takes others' pieces, and only that late, so that on a quiet
 * host each core copies the same ranges call after call and finds its lines in its own cache: trials in which
 * any member took any piece, or took another's as soon as its own were done, were up to 1.48x slower at most
 * sizes there.
 *
 * <p>A helper polls, yielding, while jobs keep coming (one every few microseconds inside a large collective),
 * and parks after {@link #IDLE_POLL} without one, so that a communicator between calls costs no core. The
 * helpers start on the first shared job, not before: most communicators (a split's sub-group, one that moves
 * small messages) never need them.
 */
final class Crew implements AutoCloseable {

    /** A job: piece {@code piece} of {@code pieces}, on whichever member takes it. */
    @FunctionalInterface
    interface Part {
        void run(int piece, int pieces);
    }

    /**
     * One job as the helpers see it, published whole so that a helper never mixes two jobs' fields: the pieces
     * taken from each member's run and the pieces done are the job's own, so a helper that comes late to a
     * finished job finds nothing left and cannot take a piece of the next.
     */
    private record Job(long number, Part part, int members, int pieces, AtomicIntegerArray taken, AtomicInteger done) {

        static Job first() {
            return new Job(0, null, 0, 0, new AtomicIntegerArray(0), new AtomicInteger());
        }

        Job next(Part part, int members, int pieces) {
            return new Job(number + 1, part, members, pieces, new AtomicIntegerArray(members * PAD),
                    new AtomicInteger());
        }

        /** The first piece of member {@code m}'s run (of {@code members}: the end of the last). */
        int runStart(int m) {
            return (int) ((long) pieces * m / members);
        }

        /** Takes the next piece of member {@code owner}'s run: its number, or -1 when none is left. */
        int take(int owner) {
            int p = runStart(owner) + taken.getAndIncrement(owner * PAD);
            return p < runStart(owner + 1) ? p : -1;
        }
    }

    /** Ints between two members' counts of pieces taken: a cache line, so that members take without contending. */
    private static final int PAD = 16;
    /** Nanoseconds an idle helper polls for the next job before it parks: the gap between chunks, many times over. */
    static final long IDLE_POLL = 1_000_000;
    /** Nanoseconds the calling thread spins for its helpers, past its own run's time, before it yields its core. */
    private static final long HELPER_SPIN = 50_000;

    private final String name;
    private final int size;          // members, the calling thread included
    private final Runnable settle;   // after each run on a helper: lets a fault its copies left pending be raised
    private Thread[] helpers;        // started on first use
    private AtomicIntegerArray parked; // 1 while a helper is parked or about to park
    private volatile Job job = Job.first();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * @param size   members, the calling thread included (1: no helpers, every job runs on the caller)
     * @param settle run on a helper after each run of pieces, inside its failure handling
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
     * Runs the {@code pieces} pieces of {@code part} on at most {@code members} members (and at most {@link #size()}
     * and {@code pieces}), the calling thread among them, and returns when every piece is done; the first failure
     * of any piece is thrown here, and the pieces not begun by then are skipped.
     */
    void run(int members, int pieces, Part part) {
        if (closed) {
            throw new IllegalStateException("crew " + name + " is closed");
        }
        int m = Math.min(Math.min(members, size), pieces);
        if (m <= 1) {
            for (int p = 0; p < pieces; p++) {
                part.run(p, pieces);
            }
            return;
        }
        start();
        failure.set(null);
        Job j = job.next(part, m, pieces);
        job = j;
        for (int i = 1; i < m; i++) {
            if (parked.get(i) == 1) {
                LockSupport.unpark(helpers[i]);
            }
        }
        long began = System.nanoTime();
        takeRun(j, 0, false);
        long ownRun = System.nanoTime() - began;
        // the helpers' runs are as long as this one: a short wait, and never for a peer. Once they are later than
        // that, a helper the kernel has not run holds its run: take what is left of it. Later still, yield, so
        // that a helper descheduled mid-piece may have this core.
        long since = System.nanoTime();
        boolean taken = false;
        while (j.done().get() != pieces) {
            long waited = System.nanoTime() - since;
            if (!taken && waited >= ownRun) {
                for (int owner = 1; owner < m; owner++) {
                    takeRun(j, owner, false);
                }
                taken = true;
            } else if (waited < ownRun + HELPER_SPIN) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                requireHelpersAlive(m);
            }
        }
        Throwable first = failure.get();
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

    /**
     * Takes and runs what is left of member {@code owner}'s run on this thread, and counts the pieces done at once:
     * one count a run, not one a piece, on the line the caller polls. A piece that fails is recorded and the rest
     * are skipped, but every piece taken is counted, so the caller's wait ends. On a helper, {@link #settle} runs
     * after the run, before the count, so that a fault its copies left pending is this job's (once a run, as
     * once a share before: on JDK 17 it costs a few hundred nanoseconds, a tenth of a 32 KB piece's copy).
     */
    private void takeRun(Job j, int owner, boolean helper) {
        int ran = 0;
        try {
            for (int p = j.take(owner); p >= 0; p = j.take(owner)) {
                ran++;
                if (failure.get() == null) {
                    j.part().run(p, j.pieces());
                }
            }
            if (helper && ran > 0) {
                settle.run();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            while (j.take(owner) >= 0) {
                ran++; // skipped, but counted: the caller waits for every piece
            }
        } finally {
            j.done().addAndGet(ran);
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
                        takeRun(j, member, true);
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
