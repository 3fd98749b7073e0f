package io.jcoll.bench;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.gpu.DeviceBuffer;
import io.jcoll.kernels.Elements;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The perf command's result check, like nccl-tests' {@code #wrong}: every rank
 * fills its input from a formula of (rank, index) whose reductions are exact
 * in every type (small integers), runs the call, and counts output elements
 * that differ from the formula's reduction over all ranks.
 */
final class DataCheck {

    private DataCheck() {
    }

    static double value(DataType t, ReduceOp op, int rank, long i) {
        if (op == ReduceOp.PROD) {
            return 1 + ((i + rank) & 1);
        }
        long v = (i * 13 + rank * 7L) % 9;
        return t == DataType.UINT8 ? v : v - 4;
    }

    /** The reduction of element {@code i} over {@code n} ranks, wrapped as the type wraps. */
    static double reduced(DataType t, ReduceOp op, int n, long i) {
        double acc = value(t, op, 0, i);
        for (int r = 1; r < n; r++) {
            double x = value(t, op, r, i);
            acc = switch (op) {
                case SUM, AVG -> acc + x;
                case PROD -> acc * x;
                case MIN -> Math.min(acc, x);
                case MAX -> Math.max(acc, x);
            };
        }
        if (!t.isFloatingPoint()) {
            long w = (long) acc;
            w = switch (t) {
                case INT8 -> (byte) w;
                case UINT8 -> w & 0xff;
                case INT32 -> (int) w;
                default -> w;
            };
            return op == ReduceOp.AVG ? w / n : w;
        }
        return op == ReduceOp.AVG ? acc / n : acc;
    }

    static void fill(Collective op, Layout l, DataType t, ReduceOp redop, int rank, int n, int root) {
        if ((op == Collective.BROADCAST || op == Collective.SCATTER) && rank != root) {
            return;
        }
        write(l.send(), t, i -> value(t, redop, rank, i));
    }

    /** Elements of this rank's output that are wrong. */
    static long wrong(Collective op, Layout l, DataType t, ReduceOp redop, int rank, int n, int root) {
        long count = l.count();
        double eps = switch (t) {
            case FLOAT16 -> 0x1p-10;
            case BFLOAT16 -> 0x1p-7;
            case FLOAT8_E4M3 -> 0x1p-3;
            case FLOAT8_E5M2 -> 0x1p-2;
            case FLOAT32, FLOAT64 -> 0x1p-22;
            default -> 0;
        };
        if (op.rootOnlyOutput() && rank != root) {
            return 0; // only the root's output holds a result
        }
        ByteBuffer out = bytes(l.recv());
        long wrong = 0;
        long elements = op == Collective.ALLTOALLV ? end(l.uneven()) : l.recv().count();
        for (long e = 0; e < elements; e++) {
            double expected = switch (op) {
                case ALLREDUCE, REDUCE -> reduced(t, redop, n, e);
                case REDUCESCATTER -> reduced(t, redop, n, rank * count + e);
                case ALLGATHER, GATHER -> value(t, redop, (int) (e / count), e % count);
                case ALLTOALL -> value(t, redop, (int) (e / count), rank * count + e % count);
                case BROADCAST -> value(t, redop, root, e);
                case SCATTER -> value(t, redop, root, rank * count + e);
                case SENDRECV -> value(t, redop, (rank + n - 1) % n, e);
                case ALLTOALLV -> {
                    int from = blockOf(l.uneven(), e);
                    // what rank `from` sent: its block for this rank, from where its own layout puts it
                    long at = Layout.Uneven.of(l.uneven().base(), l.uneven().skew(), from, n).offsets()[rank];
                    yield value(t, redop, from, at + e - l.uneven().offsets()[from]);
                }
            };
            double actual = Elements.get(t, out, (int) (e * t.size()));
            if (!(Math.abs(actual - expected) <= eps * Math.abs(expected))) {
                wrong++;
            }
        }
        return wrong;
    }

    private static long end(Layout.Uneven u) {
        int last = u.counts().length - 1;
        return u.offsets()[last] + u.counts()[last];
    }

    /** The rank whose block holds element {@code e} of an uneven layout. */
    private static int blockOf(Layout.Uneven u, long e) {
        int p = 0;
        while (p + 1 < u.counts().length && u.offsets()[p + 1] <= e) {
            p++;
        }
        return p;
    }

    private interface Formula {
        double at(long i);
    }

    private static void write(Buffer b, DataType t, Formula f) {
        ByteBuffer bytes = ByteBuffer.allocateDirect((int) b.byteSize()).order(ByteOrder.nativeOrder());
        for (long i = 0; i < b.count(); i++) {
            Elements.put(t, bytes, (int) (i * t.size()), f.at(i));
        }
        HostBuffer staged = HostBuffer.of(bytes, t);
        if (b instanceof DeviceBuffer d) {
            d.copyFrom(staged);
        } else {
            HostBuffer h = (HostBuffer) b;
            ByteBuffer w = h.writable(0, (int) h.byteSize(), null);
            w.put(0, bytes, 0, (int) h.byteSize());
        }
    }

    /** The bytes of a buffer, copied to the host if it lives on a GPU. */
    private static ByteBuffer bytes(Buffer b) {
        if (b instanceof DeviceBuffer d) {
            ByteBuffer out = ByteBuffer.allocateDirect((int) d.byteSize()).order(ByteOrder.nativeOrder());
            d.copyTo(HostBuffer.of(out, d.type()));
            return out;
        }
        HostBuffer h = (HostBuffer) b;
        return h.readable(0, (int) h.byteSize(), ByteBuffer.allocate(0)).order(ByteOrder.nativeOrder());
    }
}
