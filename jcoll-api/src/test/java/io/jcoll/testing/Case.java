package io.jcoll.testing;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Operation;

import java.util.ArrayList;
import java.util.List;

/**
 * One collective test case: an operation, a type, a reduce op, a count, a
 * memory kind and in- or out-of-place. {@link #run} executes it on one rank
 * and checks that rank's result against the double-precision reference built
 * from every rank's inputs (regenerated from their seeds); it returns the
 * result so that callers can also check that all ranks agree bit for bit.
 * Every buffer is a few elements longer than the call needs, and those
 * trailing elements must come back untouched.
 */
public record Case(Operation operation, DataType type, ReduceOp op, int count, boolean inPlace, Data.Kind kind,
                   int root, long id) {

    /** The collectives that move data, each case's operation. */
    public static final List<Operation> COLLECTIVES = List.of(Operation.ALL_REDUCE, Operation.ALL_GATHER,
            Operation.REDUCE_SCATTER, Operation.ALL_TO_ALL, Operation.BROADCAST);

    /** The rooted and uneven collectives of {@link #extendedMatrix}. */
    public static final List<Operation> ROOTED_AND_UNEVEN = List.of(Operation.REDUCE, Operation.GATHER,
            Operation.SCATTER, Operation.ALL_TO_ALL_V);

    /** Whether {@code o} takes a reduce op. */
    public static boolean reduces(Operation o) {
        return o == Operation.ALL_REDUCE || o == Operation.REDUCE_SCATTER || o == Operation.REDUCE;
    }

    /**
     * Elements rank {@code from} sends rank {@code to} in an uneven all-to-all case: 0 to {@code count},
     * derived from the case id so that both ends compute it; about one pair in four sends nothing.
     */
    public long pairCount(int from, int to) {
        long h = (id * 0x9E3779B97F4A7C15L) ^ (from * 0xBF58476D1CE4E5B9L) ^ (to * 0x94D049BB133111EBL);
        h ^= h >>> 29;
        h *= 0x2545F4914F6CDD1DL;
        h ^= h >>> 32;
        long r = Math.floorMod(h, 4L * (count + 1));
        return r < count + 1 ? 0 : Math.floorMod(h >>> 7, count + 1L);
    }

    /** Where rank {@code from}'s block for each peer starts: packed, with a one-element gap before each. */
    public long[] sendOffsets(int from, int n) {
        long[] o = new long[n];
        long at = 0;
        for (int to = 0; to < n; to++) {
            o[to] = at + 1;
            at = o[to] + pairCount(from, to);
        }
        return o;
    }

    /** Where the block from each peer lands: packed from the last rank to the first (offsets not in rank order). */
    public long[] recvOffsets(int to, int n) {
        long[] o = new long[n];
        long at = 0;
        for (int from = n - 1; from >= 0; from--) {
            o[from] = at;
            at += pairCount(from, to);
        }
        return o;
    }

    private static long end(long[] offsets, long[] counts) {
        long e = 0;
        for (int i = 0; i < offsets.length; i++) {
            e = Math.max(e, offsets[i] + counts[i]);
        }
        return e;
    }

    /** Every rank's input for this case. */
    public double[][] inputs(int n) {
        double[][] in = new double[n][];
        for (int r = 0; r < n; r++) {
            int perRank = switch (operation) {
                case REDUCE_SCATTER, ALL_TO_ALL, SCATTER -> count * n;
                case ALL_TO_ALL_V -> (int) end(sendOffsets(r, n), sendCounts(r, n));
                default -> count;
            };
            in[r] = Data.random(type, op, perRank, Ranks.seed(id, r));
        }
        return in;
    }

    private long[] sendCounts(int from, int n) {
        long[] c = new long[n];
        for (int to = 0; to < n; to++) {
            c[to] = pairCount(from, to);
        }
        return c;
    }

    private long[] recvCounts(int to, int n) {
        long[] c = new long[n];
        for (int from = 0; from < n; from++) {
            c[from] = pairCount(from, to);
        }
        return c;
    }

    /** Elements past what the call uses, in every buffer; they must not change. */
    private static final int TAIL = 3;

    /** A buffer of {@code used} elements (the values, or garbage) followed by the untouchable tail. */
    private HostBuffer buffer(int used, double[] values) {
        double[] all = java.util.Arrays.copyOf(values == null ? garbage(used) : values, used + TAIL);
        java.util.Arrays.fill(all, used, used + TAIL, garbage(1)[0]);
        return Data.buffer(type, kind, used + TAIL, all);
    }

    private void tailIntact(String what, HostBuffer b, int used) {
        double[] all = Data.read(b, used + TAIL);
        for (int i = used; i < used + TAIL; i++) {
            if (Double.compare(all[i], garbage(1)[0]) != 0) {
                throw new AssertionError(what + ": element " + i + " lies past the " + used
                        + " the call uses, and was overwritten with " + all[i]);
            }
        }
    }

    public double[] run(Ops ops) {
        int n = ops.size();
        int rank = ops.rank();
        double[][] in = inputs(n);
        double[] mine = in[rank];
        String what = this + " on rank " + rank + " of " + n;
        switch (operation) {
            case ALL_REDUCE -> {
                HostBuffer send = buffer(count, mine);
                HostBuffer recv = inPlace ? send : buffer(count, null);
                ops.allReduce(send, recv, count, op);
                double[] out = Data.read(recv, count);
                Verify.reduced(what, type, op, in, out, 0);
                if (!inPlace) {
                    Verify.equal(what + " (send buffer untouched)", mine, 0, Data.read(send, count), 0, count);
                }
                tailIntact(what, recv, count);
                return out;
            }
            case ALL_GATHER -> {
                HostBuffer recv = buffer(count * n, null);
                HostBuffer send;
                if (inPlace) {
                    send = recv.slice((long) rank * count, count);
                    Data.write(send, mine);
                } else {
                    send = buffer(count, mine);
                }
                ops.allGather(send, recv, count);
                double[] out = Data.read(recv, count * n);
                for (int r = 0; r < n; r++) {
                    Verify.equal(what + " block " + r, in[r], 0, out, r * count, count);
                }
                tailIntact(what, recv, count * n);
                return out;
            }
            case REDUCE_SCATTER -> {
                HostBuffer send = buffer(count * n, mine);
                HostBuffer recv = inPlace ? send.slice((long) rank * count, count) : buffer(count, null);
                ops.reduceScatter(send, recv, count, op);
                double[] out = Data.read(recv, count);
                Verify.reduced(what, type, op, in, out, rank * count);
                tailIntact(what, inPlace ? send : recv, inPlace ? count * n : count);
                return out;
            }
            case ALL_TO_ALL -> {
                HostBuffer send = buffer(count * n, mine);
                HostBuffer recv = inPlace ? send : buffer(count * n, null);
                ops.allToAll(send, recv, count);
                double[] out = Data.read(recv, count * n);
                for (int p = 0; p < n; p++) {
                    Verify.equal(what + " block from rank " + p, in[p], rank * count, out, p * count, count);
                }
                tailIntact(what, recv, count * n);
                return out;
            }
            case BROADCAST -> {
                HostBuffer send = rank == root ? buffer(count, mine) : null;
                HostBuffer recv = inPlace && rank == root ? send : buffer(count, null);
                ops.broadcast(send, recv, count, root);
                double[] out = Data.read(recv, count);
                Verify.equal(what, in[root], 0, out, 0, count);
                tailIntact(what, recv, count);
                return out;
            }
            case REDUCE -> {
                HostBuffer send = buffer(count, mine);
                HostBuffer recv = rank != root ? null : inPlace ? send : buffer(count, null);
                ops.reduce(send, recv, count, op, root);
                Verify.equal(what + " (send buffer untouched)", mine, 0, Data.read(send, count), 0,
                        rank == root && inPlace ? 0 : count);
                if (rank != root) {
                    return new double[0];
                }
                double[] out = Data.read(recv, count);
                Verify.reduced(what, type, op, in, out, 0);
                tailIntact(what, recv, count);
                return out;
            }
            case GATHER -> {
                HostBuffer recv = rank == root ? buffer(count * n, null) : null;
                HostBuffer send;
                if (inPlace && rank == root) {
                    send = recv.slice((long) rank * count, count);
                    Data.write(send, mine);
                } else {
                    send = buffer(count, mine);
                }
                ops.gather(send, recv, count, root);
                if (rank != root) {
                    return new double[0];
                }
                double[] out = Data.read(recv, count * n);
                for (int r = 0; r < n; r++) {
                    Verify.equal(what + " block " + r, in[r], 0, out, r * count, count);
                }
                tailIntact(what, recv, count * n);
                return out;
            }
            case SCATTER -> {
                HostBuffer send = rank == root ? buffer(count * n, mine) : null;
                HostBuffer recv = inPlace && rank == root ? send.slice((long) rank * count, count) : buffer(count, null);
                ops.scatter(send, recv, count, root);
                double[] out = Data.read(recv, count);
                Verify.equal(what, in[root], rank * count, out, 0, count);
                if (!(inPlace && rank == root)) {
                    tailIntact(what, recv, count);
                }
                return out;
            }
            case ALL_TO_ALL_V -> {
                long[] sc = sendCounts(rank, n);
                long[] so = sendOffsets(rank, n);
                long[] rc = recvCounts(rank, n);
                long[] ro = recvOffsets(rank, n);
                int total = (int) end(ro, rc);
                HostBuffer send = buffer(mine.length, mine);
                HostBuffer recv = buffer(total, null);
                ops.allToAllV(send, sc, so, recv, rc, ro);
                double[] out = Data.read(recv, total);
                for (int p = 0; p < n; p++) {
                    Verify.equal(what + " block from rank " + p, in[p], (int) sendOffsets(p, n)[rank], out, (int) ro[p],
                            (int) rc[p]);
                }
                tailIntact(what, recv, total);
                return out;
            }
            default -> throw new IllegalArgumentException(operation.toString());
        }
    }

    /**
     * The rooted and uneven collectives (reduce, gather, scatter, uneven all-to-all): every type, every reduce
     * op for reduce, in and out of place where the operation has an in-place form, roots varying with the id.
     */
    public static List<Case> extendedMatrix(int[] counts, int n, long firstId) {
        List<Case> cases = new ArrayList<>();
        long id = firstId;
        Data.Kind[] kinds = Data.Kind.values();
        for (Operation o : ROOTED_AND_UNEVEN) {
            for (DataType t : DataType.values()) {
                for (ReduceOp op : reduces(o) ? ReduceOp.values() : new ReduceOp[] {ReduceOp.SUM}) {
                    for (int count : counts) {
                        for (boolean inPlace : o == Operation.ALL_TO_ALL_V ? new boolean[] {false}
                                : new boolean[] {false, true}) {
                            Data.Kind kind = kinds[(int) (id % kinds.length)];
                            int root = (int) (id % n);
                            cases.add(new Case(o, t, reduces(o) ? op : null, count, inPlace, kind, root, id++));
                        }
                    }
                }
            }
        }
        return cases;
    }

    /** Values that are never a correct result, to prove every output element was written; exact in every type. */
    private double[] garbage(int length) {
        double[] g = new double[length];
        double v = type.isFloatingPoint() ? 96 : (type == DataType.UINT8 ? 177 : 77);
        java.util.Arrays.fill(g, v);
        return g;
    }

    /** The full matrix: every operation, type and (for reductions) reduce op, at the given counts. */
    public static List<Case> matrix(int[] counts, boolean withInPlace, int n) {
        return matrix(counts, withInPlace, n, 1);
    }

    /**
     * As {@link #matrix(int[], boolean, int)}, numbering the cases from {@code firstId}: the cases'
     * inputs derive from their ids, so a random first id gives fresh inputs that every process of a
     * multi-process job still derives alike.
     */
    public static List<Case> matrix(int[] counts, boolean withInPlace, int n, long firstId) {
        List<Case> cases = new ArrayList<>();
        long id = firstId;
        Data.Kind[] kinds = Data.Kind.values();
        for (Operation o : COLLECTIVES) {
            for (DataType t : DataType.values()) {
                for (ReduceOp op : reduces(o) ? ReduceOp.values() : new ReduceOp[] {ReduceOp.SUM}) {
                    for (int count : counts) {
                        for (boolean inPlace : withInPlace ? new boolean[] {false, true} : new boolean[] {false}) {
                            Data.Kind kind = kinds[(int) (id % kinds.length)];
                            int root = (int) (id % n);
                            cases.add(new Case(o, t, reduces(o) ? op : null, count, inPlace, kind, root, id++));
                        }
                    }
                }
            }
        }
        return cases;
    }

    @Override
    public String toString() {
        return operation.label() + "(" + count + " x " + type + (op == null ? "" : ", " + op)
                + (operation.isRooted() ? ", root " + root : "") + ", " + kind
                + (inPlace ? ", in place" : "") + ")";
    }

    /**
     * Runs {@code cases} in order on {@code comm}, blocking and asynchronous forms alternating; returns each
     * case's output (each case checks itself against the double-precision reference).
     */
    public static List<double[]> runAll(io.jcoll.Communicator comm, List<Case> cases) {
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            out.add(cases.get(i).run(Ops.of(comm, i % 2 == 1)));
        }
        return out;
    }

    /** Every AllReduce of {@code cases} gave every rank the same bits: {@code byRank} as {@link #runAll} returned. */
    public static void allReducesAgree(List<Case> cases, List<List<double[]>> byRank) {
        for (int i = 0; i < cases.size(); i++) {
            if (cases.get(i).operation() == Operation.ALL_REDUCE) {
                for (int r = 1; r < byRank.size(); r++) {
                    org.junit.jupiter.api.Assertions.assertArrayEquals(byRank.get(0).get(i), byRank.get(r).get(i),
                            cases.get(i) + ": rank " + r + " differs from rank 0");
                }
            }
        }
    }
}
