package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.Group;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.Request;

import java.util.Locale;

/**
 * The collectives the perf command measures, with nccl-tests' conventions: the
 * size of a test is the largest buffer involved (allGather's output,
 * reduceScatter's input, allToAll's whole buffer), and bus bandwidth is
 * algorithm bandwidth times the factor that makes it comparable with the link
 * speed whatever the rank count.
 */
public enum Collective {
    ALLREDUCE("allreduce", true) {
        @Override double busFactor(int n) { return 2.0 * (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.allReduce(l.send(), l.recv(), l.count(), op); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.allReduceAsync(l.send(), l.recv(), l.count(), op); }
    },
    ALLGATHER("allgather", false) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.allGather(l.send(), l.recv(), l.count()); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.allGatherAsync(l.send(), l.recv(), l.count()); }
    },
    REDUCESCATTER("reducescatter", true) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.reduceScatter(l.send(), l.recv(), l.count(), op); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.reduceScatterAsync(l.send(), l.recv(), l.count(), op); }
    },
    ALLTOALL("alltoall", false) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.allToAll(l.send(), l.recv(), l.count()); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.allToAllAsync(l.send(), l.recv(), l.count()); }
    },
    BROADCAST("broadcast", false) {
        @Override double busFactor(int n) { return 1; }
        @Override long perRankCount(long total, int n) { return total; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.broadcast(l.send(), l.recv(), l.count(), root); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.broadcastAsync(l.send(), l.recv(), l.count(), root); }
    },
    REDUCE("reduce", true) {
        @Override double busFactor(int n) { return 1; }
        @Override long perRankCount(long total, int n) { return total; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.reduce(l.send(), l.recv(), l.count(), op, root); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.reduceAsync(l.send(), l.recv(), l.count(), op, root); }
    },
    GATHER("gather", false) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.gather(l.send(), l.recv(), l.count(), root); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.gatherAsync(l.send(), l.recv(), l.count(), root); }
    },
    SCATTER("scatter", false) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) { c.scatter(l.send(), l.recv(), l.count(), root); }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return c.scatterAsync(l.send(), l.recv(), l.count(), root); }
    },
    /** Uneven all-to-all: blocks of {@link Layout.Uneven}'s sizes (with no skew, alltoall's). */
    ALLTOALLV("alltoallv", false) {
        @Override double busFactor(int n) { return (double) (n - 1) / n; }
        @Override long perRankCount(long total, int n) { return total / n; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) {
            Layout.Uneven u = l.uneven();
            c.allToAllV(l.send(), u.counts(), u.offsets(), l.recv(), u.counts(), u.offsets());
        }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) {
            Layout.Uneven u = l.uneven();
            return c.allToAllVAsync(l.send(), u.counts(), u.offsets(), l.recv(), u.counts(), u.offsets());
        }
    },
    /** nccl-tests' sendrecv_perf: each rank sends to the next and receives from the previous, in one group. */
    SENDRECV("sendrecv", false) {
        @Override double busFactor(int n) { return 1; }
        @Override long perRankCount(long total, int n) { return total; }
        @Override void run(Communicator c, Layout l, ReduceOp op, int root) {
            pair(c, l).close(); // closing an open group runs it on this thread, as every blocking call runs
        }
        @Override Request start(Communicator c, Layout l, ReduceOp op, int root) { return pair(c, l).end(); }

        private Group pair(Communicator c, Layout l) {
            int n = c.size();
            return c.group().send(l.send(), l.count(), (c.rank() + 1) % n).recv(l.recv(), l.count(), (c.rank() + n - 1) % n);
        }
    };

    private final String label;
    private final boolean reduces;

    Collective(String label, boolean reduces) {
        this.label = label;
        this.reduces = reduces;
    }

    public String label() {
        return label;
    }

    public boolean reduces() {
        return reduces;
    }

    /** Bus bandwidth = algorithm bandwidth x this (nccl-tests' definitions). */
    abstract double busFactor(int n);

    /** The count argument of the call, for a test whose largest buffer holds {@code total} elements. */
    abstract long perRankCount(long total, int n);

    /**
     * The step test sizes are rounded to, in bytes: one element, or one per rank where the largest buffer
     * holds a block for each rank (so that {@link #perRankCount} divides it exactly).
     */
    long unitBytes(DataType type, int n) {
        return (long) type.size() * (this == ALLREDUCE || this == BROADCAST || this == REDUCE || this == SENDRECV ? 1 : n);
    }

    abstract void run(Communicator c, Layout l, ReduceOp op, int root);

    /** Whether the operation has an in-place form (the perf table's in-place columns repeat out-of-place otherwise). */
    boolean hasInPlace() {
        return this != ALLTOALLV && this != SENDRECV;
    }

    /** Whether only the root's output holds a result (the others have nothing to check). */
    boolean rootOnlyOutput() {
        return this == REDUCE || this == GATHER;
    }

    /** The asynchronous form, for timing loops that launch every iteration before waiting (as nccl-tests does). */
    abstract Request start(Communicator c, Layout l, ReduceOp op, int root);

    public static Collective parse(String text) {
        String t = text.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        for (Collective c : values()) {
            if (c.label.equals(t)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown operation '" + text
                + "'; expected one of " + java.util.Arrays.stream(values()).map(Collective::label).toList());
    }
}
