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
 */
public record Case(Operation operation, DataType type, ReduceOp op, int count, boolean inPlace, Data.Kind kind,
                   int root, long id) {

    /** Every rank's input for this case. */
    public double[][] inputs(int n) {
        int perRank = switch (operation) {
            case REDUCE_SCATTER, ALL_TO_ALL -> count * n;
            default -> count;
        };
        double[][] in = new double[n][];
        for (int r = 0; r < n; r++) {
            in[r] = Data.random(type, op, perRank, Ranks.seed(id, r));
        }
        return in;
    }

    public double[] run(Ops ops) {
        int n = ops.size();
        int rank = ops.rank();
        double[][] in = inputs(n);
        double[] mine = in[rank];
        String what = this + " on rank " + rank + " of " + n;
        switch (operation) {
            case ALL_REDUCE -> {
                HostBuffer send = Data.buffer(type, kind, count, mine);
                HostBuffer recv = inPlace ? send : Data.buffer(type, kind, count, garbage(count));
                ops.allReduce(send, recv, count, op);
                double[] out = Data.read(recv, count);
                Verify.reduced(what, type, op, in, out, 0);
                if (!inPlace) {
                    Verify.equal(what + " (send buffer untouched)", mine, 0, Data.read(send, count), 0, count);
                }
                return out;
            }
            case ALL_GATHER -> {
                HostBuffer recv = Data.buffer(type, kind, count * n, garbage(count * n));
                HostBuffer send;
                if (inPlace) {
                    send = recv.slice((long) rank * count, count);
                    Data.write(send, mine);
                } else {
                    send = Data.buffer(type, kind, count, mine);
                }
                ops.allGather(send, recv, count);
                double[] out = Data.read(recv, count * n);
                for (int r = 0; r < n; r++) {
                    Verify.equal(what + " block " + r, in[r], 0, out, r * count, count);
                }
                return out;
            }
            case REDUCE_SCATTER -> {
                HostBuffer send = Data.buffer(type, kind, count * n, mine);
                HostBuffer recv = inPlace ? send.slice((long) rank * count, count)
                        : Data.buffer(type, kind, count, garbage(count));
                ops.reduceScatter(send, recv, count, op);
                double[] out = Data.read(recv, count);
                Verify.reduced(what, type, op, in, out, rank * count);
                return out;
            }
            case ALL_TO_ALL -> {
                HostBuffer send = Data.buffer(type, kind, count * n, mine);
                HostBuffer recv = inPlace ? send : Data.buffer(type, kind, count * n, garbage(count * n));
                ops.allToAll(send, recv, count);
                double[] out = Data.read(recv, count * n);
                for (int p = 0; p < n; p++) {
                    Verify.equal(what + " block from rank " + p, in[p], rank * count, out, p * count, count);
                }
                return out;
            }
            case BROADCAST -> {
                HostBuffer send = rank == root ? Data.buffer(type, kind, count, mine) : null;
                HostBuffer recv = inPlace ? (rank == root ? send : Data.buffer(type, kind, count, garbage(count)))
                        : Data.buffer(type, kind, count, garbage(count));
                ops.broadcast(send, recv, count, root);
                double[] out = Data.read(recv, count);
                Verify.equal(what, in[root], 0, out, 0, count);
                return out;
            }
            default -> throw new IllegalArgumentException(operation.toString());
        }
    }

    /** Values that are never a correct result, to prove every output element was written. */
    private double[] garbage(int length) {
        double[] g = new double[length];
        double v = type.isFloatingPoint() ? 99 : (type == DataType.UINT8 ? 177 : 77);
        java.util.Arrays.fill(g, v);
        return g;
    }

    /** The full matrix: every operation, type and (for reductions) reduce op, at the given counts. */
    public static List<Case> matrix(int[] counts, boolean withInPlace, int n) {
        List<Case> cases = new ArrayList<>();
        long id = 1;
        Data.Kind[] kinds = Data.Kind.values();
        for (Operation o : List.of(Operation.ALL_REDUCE, Operation.ALL_GATHER, Operation.REDUCE_SCATTER,
                Operation.ALL_TO_ALL, Operation.BROADCAST)) {
            boolean reduces = o == Operation.ALL_REDUCE || o == Operation.REDUCE_SCATTER;
            for (DataType t : DataType.values()) {
                for (ReduceOp op : reduces ? ReduceOp.values() : new ReduceOp[] {ReduceOp.SUM}) {
                    for (int count : counts) {
                        for (boolean inPlace : withInPlace ? new boolean[] {false, true} : new boolean[] {false}) {
                            Data.Kind kind = kinds[(int) (id % kinds.length)];
                            int root = (int) (id % n);
                            cases.add(new Case(o, t, reduces ? op : null, count, inPlace, kind, root, id++));
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
                + (operation == Operation.BROADCAST ? ", root " + root : "") + ", " + kind
                + (inPlace ? ", in place" : "") + ")";
    }
}
