package io.jcoll.testing;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;

/**
 * The independent reference for checking collectives: element values as
 * doubles (integers exactly as longs), reduced by a plain loop, and the
 * tolerance a correct implementation must meet for each type and op.
 */
public final class Reference {

    private Reference() {
    }

    /** Unit of least precision at 1.0 for each floating type. */
    public static double epsilon(DataType t) {
        switch (t) {
            case FLOAT16: return 0x1p-10;
            case BFLOAT16: return 0x1p-7;
            case FLOAT32: return 0x1p-23;
            case FLOAT64: return 0x1p-52;
            case FLOAT8_E4M3: return 0x1p-3;
            case FLOAT8_E5M2: return 0x1p-2;
            default: return 0;
        }
    }

    /**
     * Reduces {@code inputs[rank][i]} over ranks for element i. Integers wrap to
     * the type's width as two's complement (unsigned for uint8); AVG on integers
     * divides the wrapped sum and truncates toward zero.
     */
    public static double reduce(DataType t, ReduceOp op, double[][] inputs, int i) {
        int n = inputs.length;
        if (!t.isFloatingPoint()) {
            long acc = (long) inputs[0][i];
            for (int r = 1; r < n; r++) {
                long x = (long) inputs[r][i];
                switch (op) {
                    case SUM: case AVG: acc = wrap(t, acc + x); break;
                    case PROD: acc = wrap(t, acc * x); break;
                    case MIN: acc = Math.min(acc, x); break;
                    case MAX: acc = Math.max(acc, x); break;
                    default: throw new AssertionError(op);
                }
            }
            acc = wrap(t, acc);
            return op == ReduceOp.AVG ? acc / n : acc;
        }
        double acc = inputs[0][i];
        for (int r = 1; r < n; r++) {
            double x = inputs[r][i];
            switch (op) {
                case SUM: case AVG: acc += x; break;
                case PROD: acc *= x; break;
                case MIN: acc = Math.min(acc, x); break;
                case MAX: acc = Math.max(acc, x); break;
                default: throw new AssertionError(op);
            }
        }
        return op == ReduceOp.AVG ? acc / n : acc;
    }

    /** How far a correct result may be from {@link #reduce}: 0 for integers, MIN and MAX. */
    public static double tolerance(DataType t, ReduceOp op, double[][] inputs, int i) {
        if (!t.isFloatingPoint() || op == ReduceOp.MIN || op == ReduceOp.MAX) {
            return 0;
        }
        int n = inputs.length;
        double eps = epsilon(t);
        double tiny = switch (t) {
            case FLOAT16 -> 0x1p-24;
            case BFLOAT16 -> 0x1p-133;
            case FLOAT8_E4M3 -> 0x1p-9;  // the smallest subnormal
            case FLOAT8_E5M2 -> 0x1p-16;
            default -> Double.MIN_NORMAL;
        };
        if (op == ReduceOp.PROD) {
            return (n + 1) * eps * Math.abs(reduce(t, op, inputs, i)) + tiny;
        }
        double sumAbs = 0;
        for (double[] input : inputs) {
            sumAbs += Math.abs(input[i]);
        }
        // every partial sum is rounded once (ring, tree or chain alike); AVG divides once more
        double tol = (n + 1) * eps * sumAbs + tiny;
        return op == ReduceOp.AVG ? tol / n + eps * sumAbs / n : tol;
    }

    public static long wrap(DataType t, long v) {
        switch (t) {
            case INT8: return (byte) v;
            case UINT8: return v & 0xff;
            case INT32: return (int) v;
            default: return v;
        }
    }
}
