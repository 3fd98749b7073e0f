package io.jcoll.shm;

import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;

import io.jcoll.spi.Call;
import io.jcoll.spi.Transport;

import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/**
 * How a rank waits on its peers through shared memory: it spins, then yields its core, then sleeps briefly, and
 * while it waits it watches everything that can end the wait other than the peer arriving: this rank being
 * interrupted, the deadline, a peer that left or aborted, a peer's process that died, the segment damaged by
 * another process. Every way out names the peer.
 */
final class Waiter {

    /**
     * How far a peer's counter may run ahead of the last phase this rank has published: beyond it the counter is
     * garbage. A peer waits for this rank's phases before it writes a slot again, so the true lead is a few phases.
     */
    static final long MAX_LEAD = 1L << 20;
    private static final long CHECK_EVERY_NANOS = 1_000_000;
    private static final long SLEEP_AFTER_NANOS = 20_000_000;

    private final int rank;
    private final Control control;
    private final Segment segment;
    private final long spinNanos;
    private final boolean yieldAtOnce;
    private final long timeoutNanos;          // a deadline FROM_FIRST_WAIT is this after the first timed turn
    private final long ownPid = ProcessHandle.current().pid();
    private volatile Throwable interrupted;
    private final Optional<ProcessHandle>[] processes;

    private String operation = "bootstrap";
    private Call call;                        // described only for a message: not on every call's path
    private long deadline = Long.MAX_VALUE;
    private boolean deadlineAtFirstWait;      // the call's deadline is its first timed turn's clock plus the timeout
    private String outsideCalls = "the setup of the shared segment"; // what waits outside calls are for (close
                                                                      // sets its own: nothing is set up after it)
    private IntFunction<JcollException> disagreement; // the current collective against a peer's record; null: none

    Waiter(int rank, Control control, Segment segment, long spinNanos, boolean yieldAtOnce, long timeoutNanos) {
        this.rank = rank;
        this.timeoutNanos = timeoutNanos;
        this.control = control;
        this.segment = segment;
        this.spinNanos = spinNanos;
        this.yieldAtOnce = yieldAtOnce;
        @SuppressWarnings("unchecked")
        Optional<ProcessHandle>[] none = new Optional[control.flagCount()];
        this.processes = none;
    }

    /**
     * What the next waits belong to, for messages (null: the segment's setup), and when they must end: by
     * {@code deadlineNanos}, or, for {@link Transport#FROM_FIRST_WAIT}, within the timeout of the first wait that
     * goes on long enough to read the clock ({@link #until}), so that a call whose waits all end sooner reads none.
     */
    void begin(Call call, long deadlineNanos) {
        this.operation = call == null ? "bootstrap" : call.operation().label();
        this.call = call;
        this.deadlineAtFirstWait = deadlineNanos == Transport.FROM_FIRST_WAIT;
        this.deadline = deadlineAtFirstWait ? Long.MAX_VALUE : deadlineNanos;
        this.disagreement = null;
    }

    /** For waits outside any call: {@code operation} and {@code what} name them in messages. */
    void beginOutsideCalls(String operation, String what, long deadlineNanos) {
        this.operation = operation;
        this.call = null;
        this.outsideCalls = what;
        this.deadlineAtFirstWait = false;
        this.deadline = deadlineNanos;
        this.disagreement = null;
    }

    /**
     * Until the next {@link #begin}: how to tell that a peer is in another collective than this rank, for waits that
     * a disagreement would leave waiting (ranks that disagree about a call's size may wait in different paths).
     */
    void compareCallsWith(IntFunction<JcollException> disagreement) {
        this.disagreement = disagreement;
    }

    /** The call the waits belong to, in words. */
    private String call() {
        return call == null ? outsideCalls : call.describe();
    }

    String operation() {
        return operation;
    }

    /** From any thread: the wait in progress (or the next) fails at once with {@code cause}. */
    void interrupt(Throwable cause) {
        interrupted = cause;
    }

    /** Until every rank's counter has reached {@code target}, a phase this rank has just published. */
    void awaitAll(long target) {
        awaitAll(target, target);
    }

    /**
     * Until every rank's counter has reached {@code target}, which may lie any distance behind {@code reached}, the
     * phase this rank has published last (a slot waited for with the phase it was last freed in, before a run of
     * single copy's phases, which free none): a peer's lead is counted from {@code reached}.
     */
    void awaitAll(long target, long reached) {
        for (int p = 0; p < control.flagCount(); p++) {
            if (p != rank) {
                awaitPeer(p, target, reached);
            }
        }
    }

    /** Until {@code peer}'s counter has reached {@code target}, a phase this rank has just published. */
    void awaitPeer(int peer, long target) {
        awaitPeer(peer, target, target);
    }

    private void awaitPeer(int peer, long target, long reached) {
        long v = control.flag(peer);
        if (v < target) {
            until(() -> peer, () -> control.flag(peer) >= target);
            v = control.flag(peer);
        }
        if (v - reached > MAX_LEAD) {
            // a page cut off by truncation reads as whatever the faulting load left (the JVM raises its fault
            // later): the truncation, if that is what it was, is the cause to name
            ProtocolException damage = damaged(peer);
            throw damage != null ? damage : corrupt(peer, "its progress counter reads " + v + " where this rank's "
                    + "last phase is " + reached);
        }
    }

    /**
     * Until {@code done} says so. It spins on {@code done}; every 64th turn it reads the clock, backs off as the wait
     * grows ({@link #pause}) and, at most every millisecond, looks for the fault that ends the wait ({@link #fault}),
     * naming the rank {@code awaited} gives then; it tests {@code done} once more before it throws, as a peer's last
     * step may have come just before the peer left. The wait is timed from its 64th turn (a few microseconds in):
     * most waits end before it, and a clock read is a tenth of a small call.
     */
    void until(IntSupplier awaited, BooleanSupplier done) {
        long start = 0;
        long nextCheck = 0;
        boolean timed = false;
        int turns = 0;
        while (!done.getAsBoolean()) {
            if (interrupted != null) {
                throw interruptedNow();
            }
            if ((++turns & 63) != 0) {
                if (yieldAtOnce) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            long now = System.nanoTime();
            if (!timed) {
                timed = true;
                start = now;
                nextCheck = now + CHECK_EVERY_NANOS;
                if (deadlineAtFirstWait) {
                    deadlineAtFirstWait = false;
                    deadline = now + timeoutNanos;
                }
            }
            if (now >= nextCheck) {
                JcollException fault = fault(awaited.getAsInt(), now);
                if (fault != null && !done.getAsBoolean()) {
                    throw fault;
                }
                nextCheck = now + CHECK_EVERY_NANOS;
            }
            pause(now - start);
        }
    }

    private void pause(long waitedNanos) {
        if (waitedNanos < spinNanos && !yieldAtOnce) {
            Thread.onSpinWait();
        } else if (waitedNanos < SLEEP_AFTER_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000); // a long wait: a slow peer, not a fast handoff; leave the core alone
        }
    }

    /**
     * What, other than {@code awaited}'s arrival, ends a wait for it, or null: the segment damaged, a rank that
     * died, the awaited rank closed, a rank in another collective, a rank that aborted, the deadline passed. A rank
     * other than the awaited one may close: it may have finished everything it had to do.
     */
    private JcollException fault(int awaited, long now) {
        ProtocolException damage = damaged(awaited);
        if (damage != null) {
            return damage;
        }
        // the processes first: a rank that died is the cause of every abort it set off
        for (int p = 0; p < control.flagCount(); p++) {
            if (p == rank) {
                continue;
            }
            int state = control.state(p);
            if (state == Control.CLOSED && p == awaited) {
                return new PeerFailureException(operation, rank, p, "rank " + p + " closed its communicator while "
                        + "this rank was in " + call() + " (it had issued fewer calls than this rank)");
            }
            if (state == Control.OPEN && !alive(p)) {
                return new PeerFailureException(operation, rank, p, "rank " + p + " (pid " + control.pid(p)
                        + ") died while this rank was in " + call());
            }
        }
        // a peer in another call, before a peer that aborted: it may have aborted on finding the same disagreement
        if (disagreement != null) {
            for (int p = 0; p < control.flagCount(); p++) {
                JcollException d = disagreement.apply(p);
                if (d != null) {
                    return d;
                }
            }
        }
        for (int p = 0; p < control.flagCount(); p++) {
            if (p != rank && control.state(p) == Control.ABORTED) {
                int culprit = control.culprit(p);
                int named = culprit >= 0 && culprit != rank ? culprit : p;
                return new PeerFailureException(operation, rank, named, "rank " + p + " aborted while this rank was in "
                        + call() + (named == p ? "" : ", because of rank " + named) + ": " + control.reason(p));
            }
        }
        if (now - deadline >= 0) {
            return timeout(awaited);
        }
        return null;
    }

    /**
     * Whether {@code peer}'s process still runs. The handle is taken once: it holds the process's start time, so a
     * pid reused by another process later reads as dead, as it should.
     */
    private boolean alive(int peer) {
        long pid = control.pid(peer);
        if (pid == ownPid || pid <= 0) {
            return true; // a rank on a thread of this process lives as long as this process does
        }
        if (processes[peer] == null) {
            processes[peer] = ProcessHandle.of(pid);
        }
        return processes[peer].map(ProcessHandle::isAlive).orElse(false);
    }

    private CollectiveTimeoutException timeout(int peer) {
        return new CollectiveTimeoutException(operation, rank, peer, "rank " + peer + " did not answer in " + call()
                + " within JCOLL_TIMEOUT (" + control.latestCall(peer) + "); it is stopped, busy elsewhere, or issuing "
                + "other calls");
    }

    private JcollException interruptedNow() {
        Throwable cause = interrupted;
        if (cause instanceof JcollException j) {
            return j;
        }
        return new JcollException(operation, rank, JcollException.NONE, "aborted while in " + call()
                + (cause == null ? "" : ": " + cause), cause);
    }

    /** The damage another process did to the segment, as the exception to throw, or null if it is whole. */
    ProtocolException damaged(int peer) {
        String damage = segment.damage();
        return damage == null ? null : new ProtocolException(operation, rank, peer, damage + " while this rank was in "
                + call() + "; the shared segment must not be touched by other processes");
    }

    ProtocolException corrupt(int peer, String what) {
        return new ProtocolException(operation, rank, peer, "the shared segment " + segment.path()
                + " holds garbage for rank " + peer + " (" + what + "): another process wrote into it");
    }
}
