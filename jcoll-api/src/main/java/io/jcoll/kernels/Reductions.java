package io.jcoll.kernels;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;

import java.nio.ByteBuffer;

/**
 * Element-wise reduction kernels over native-order byte buffers. Every index
 * is absolute from 0: callers pass views that start at the first element.
 *
 * <p>One loop per type and operator, with the operator chosen outside the loop,
 * so that each loop body is a single primitive operation the JIT compiles tight.
 * Long runs of the four wide types go through {@link ArrayKernels}, whose loops
 * over primitive arrays the JIT vectorises; short runs stay here, where making
 * the array views would cost more than it saves.
 * AVG combines as SUM; {@link #divide} finishes it once the sum is complete.
 */
public final class Reductions {

    /** From this many elements on, the wide types take the array path. */
    static final int ARRAY_PATH_MIN = 256;

    private Reductions() {
    }

    /** {@code dst[i] = a[i] op b[i]} for {@code i < count}. {@code dst} may be {@code a} or {@code b}. */
    public static void combine(DataType type, ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer dst, int count) {
        if (count >= ARRAY_PATH_MIN && arrayPath(type, op, new ByteBuffer[] {a, b}, dst, count)) {
            return;
        }
        combineElements(type, op, a, b, dst, count);
    }

    /**
     * {@code dst[i] = in[0][i] op in[1][i] op ... op in[n - 1][i]} for {@code i < count}, combined left to right
     * (the same bits as {@link #combine} of {@code in[0]} and {@code in[1]}, then of that and {@code in[2]}, and
     * so on), at least one input. {@code dst} may be {@code in[0]} or {@code in[1]}, not a later input (the
     * narrow types still pass over the running result in {@code dst}). Long runs of the wide types read each
     * input once and write {@code dst} once, where pairwise combines would pass over the running result n - 1
     * times.
     */
    public static void combineAll(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer dst, int count) {
        if (in.length == 0) {
            throw new IllegalArgumentException("nothing to combine");
        }
        for (int j = 2; j < in.length; j++) {
            if (in[j] == dst) {
                throw new IllegalArgumentException("the output is input " + j + ": only the first two may be it");
            }
        }
        if (in.length == 1) {
            if (in[0] != dst) {
                dst.put(0, in[0], 0, count * type.size());
            }
            return;
        }
        if (count >= ARRAY_PATH_MIN && arrayPath(type, op, in, dst, count)) {
            return;
        }
        combineElements(type, op, in[0], in[1], dst, count);
        for (int j = 2; j < in.length; j++) {
            combineElements(type, op, dst, in[j], dst, count);
        }
    }

    /** The wide types' long runs through {@link ArrayKernels}: whether {@code type} is one. */
    private static boolean arrayPath(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer dst, int count) {
        switch (type) {
            case FLOAT32: ArrayKernels.float32(op, in, dst, count); return true;
            case FLOAT64: ArrayKernels.float64(op, in, dst, count); return true;
            case INT32: ArrayKernels.int32(op, in, dst, count); return true;
            case INT64: ArrayKernels.int64(op, in, dst, count); return true;
            default: return false; // the narrow types convert per element anyway
        }
    }

    /** {@link #combine} one element at a time. */
    private static void combineElements(DataType type, ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer dst,
                                        int count) {
        switch (type) {
            case FLOAT32: float32(op, a, b, dst, count); break;
            case FLOAT64: float64(op, a, b, dst, count); break;
            case INT32: int32(op, a, b, dst, count); break;
            case INT64: int64(op, a, b, dst, count); break;
            case INT8: int8(op, a, b, dst, count, false); break;
            case UINT8: int8(op, a, b, dst, count, true); break;
            case FLOAT16: sixteenBit(op, a, b, dst, count, false); break;
            case BFLOAT16: sixteenBit(op, a, b, dst, count, true); break;
            case FLOAT8_E4M3: eightBit(op, a, b, dst, count, Float8.E4M3); break;
            case FLOAT8_E5M2: eightBit(op, a, b, dst, count, Float8.E5M2); break;
            default: throw new IllegalArgumentException("no kernel for " + type);
        }
    }

    /** Finishes AVG: {@code buf[i] /= n} (integers divide and truncate toward zero). */
    public static void divide(DataType type, ByteBuffer buf, int count, int n) {
        switch (type) {
            case FLOAT32: for (int i = 0; i < count; i++) buf.putFloat(i * 4, buf.getFloat(i * 4) / n); break;
            case FLOAT64: for (int i = 0; i < count; i++) buf.putDouble(i * 8, buf.getDouble(i * 8) / n); break;
            case INT32: for (int i = 0; i < count; i++) buf.putInt(i * 4, buf.getInt(i * 4) / n); break;
            case INT64: for (int i = 0; i < count; i++) buf.putLong(i * 8, buf.getLong(i * 8) / n); break;
            case INT8: for (int i = 0; i < count; i++) buf.put(i, (byte) (buf.get(i) / n)); break;
            case UINT8: for (int i = 0; i < count; i++) buf.put(i, (byte) ((buf.get(i) & 0xff) / n)); break;
            case FLOAT16:
                for (int i = 0; i < count; i++) {
                    buf.putShort(i * 2, HalfFloats.floatToHalf(HalfFloats.halfToFloat(buf.getShort(i * 2)) / n));
                }
                break;
            case BFLOAT16:
                for (int i = 0; i < count; i++) {
                    buf.putShort(i * 2, HalfFloats.floatToBfloat16(HalfFloats.bfloat16ToFloat(buf.getShort(i * 2)) / n));
                }
                break;
            case FLOAT8_E4M3: case FLOAT8_E5M2: {
                Float8 f = type == DataType.FLOAT8_E4M3 ? Float8.E4M3 : Float8.E5M2;
                for (int i = 0; i < count; i++) buf.put(i, f.fromFloat(f.toFloat(buf.get(i)) / n));
                break;
            }
            default: throw new IllegalArgumentException("no kernel for " + type);
        }
    }

    private static void float32(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n) {
        switch (op) {
            case SUM: case AVG: for (int i = 0, j = 0; i < n; i++, j += 4) d.putFloat(j, a.getFloat(j) + b.getFloat(j)); break;
            case PROD: for (int i = 0, j = 0; i < n; i++, j += 4) d.putFloat(j, a.getFloat(j) * b.getFloat(j)); break;
            case MIN: for (int i = 0, j = 0; i < n; i++, j += 4) d.putFloat(j, Math.min(a.getFloat(j), b.getFloat(j))); break;
            case MAX: for (int i = 0, j = 0; i < n; i++, j += 4) d.putFloat(j, Math.max(a.getFloat(j), b.getFloat(j))); break;
            default: throw new AssertionError(op);
        }
    }

    private static void float64(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n) {
        switch (op) {
            case SUM: case AVG: for (int i = 0, j = 0; i < n; i++, j += 8) d.putDouble(j, a.getDouble(j) + b.getDouble(j)); break;
            case PROD: for (int i = 0, j = 0; i < n; i++, j += 8) d.putDouble(j, a.getDouble(j) * b.getDouble(j)); break;
            case MIN: for (int i = 0, j = 0; i < n; i++, j += 8) d.putDouble(j, Math.min(a.getDouble(j), b.getDouble(j))); break;
            case MAX: for (int i = 0, j = 0; i < n; i++, j += 8) d.putDouble(j, Math.max(a.getDouble(j), b.getDouble(j))); break;
            default: throw new AssertionError(op);
        }
    }

    private static void int32(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n) {
        switch (op) {
            case SUM: case AVG: for (int i = 0, j = 0; i < n; i++, j += 4) d.putInt(j, a.getInt(j) + b.getInt(j)); break;
            case PROD: for (int i = 0, j = 0; i < n; i++, j += 4) d.putInt(j, a.getInt(j) * b.getInt(j)); break;
            case MIN: for (int i = 0, j = 0; i < n; i++, j += 4) d.putInt(j, Math.min(a.getInt(j), b.getInt(j))); break;
            case MAX: for (int i = 0, j = 0; i < n; i++, j += 4) d.putInt(j, Math.max(a.getInt(j), b.getInt(j))); break;
            default: throw new AssertionError(op);
        }
    }

    private static void int64(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n) {
        switch (op) {
            case SUM: case AVG: for (int i = 0, j = 0; i < n; i++, j += 8) d.putLong(j, a.getLong(j) + b.getLong(j)); break;
            case PROD: for (int i = 0, j = 0; i < n; i++, j += 8) d.putLong(j, a.getLong(j) * b.getLong(j)); break;
            case MIN: for (int i = 0, j = 0; i < n; i++, j += 8) d.putLong(j, Math.min(a.getLong(j), b.getLong(j))); break;
            case MAX: for (int i = 0, j = 0; i < n; i++, j += 8) d.putLong(j, Math.max(a.getLong(j), b.getLong(j))); break;
            default: throw new AssertionError(op);
        }
    }

    private static void int8(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n, boolean unsigned) {
        // sums and products wrap identically for signed and unsigned bytes; only ordering differs
        int mask = unsigned ? 0xff : -1; // orders bytes as unsigned or signed values
        switch (op) {
            case SUM: case AVG: for (int i = 0; i < n; i++) d.put(i, (byte) (a.get(i) + b.get(i))); break;
            case PROD: for (int i = 0; i < n; i++) d.put(i, (byte) (a.get(i) * b.get(i))); break;
            case MIN: for (int i = 0; i < n; i++) d.put(i, (byte) Math.min(a.get(i) & mask, b.get(i) & mask)); break;
            case MAX: for (int i = 0; i < n; i++) d.put(i, (byte) Math.max(a.get(i) & mask, b.get(i) & mask)); break;
            default: throw new AssertionError(op);
        }
    }

    private static void eightBit(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n, Float8 f) {
        for (int i = 0; i < n; i++) {
            d.put(i, f.fromFloat(widened(op, f.toFloat(a.get(i)), f.toFloat(b.get(i)))));
        }
    }

    private static void sixteenBit(ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer d, int n, boolean bfloat) {
        for (int i = 0, j = 0; i < n; i++, j += 2) {
            float x = bfloat ? HalfFloats.bfloat16ToFloat(a.getShort(j)) : HalfFloats.halfToFloat(a.getShort(j));
            float y = bfloat ? HalfFloats.bfloat16ToFloat(b.getShort(j)) : HalfFloats.halfToFloat(b.getShort(j));
            float r = widened(op, x, y);
            d.putShort(j, bfloat ? HalfFloats.floatToBfloat16(r) : HalfFloats.floatToHalf(r));
        }
    }

    /** The narrow float types reduce in float, then round once: correctly rounded for these formats. */
    private static float widened(ReduceOp op, float x, float y) {
        switch (op) {
            case SUM: case AVG: return x + y;
            case PROD: return x * y;
            case MIN: return Math.min(x, y);
            case MAX: return Math.max(x, y);
            default: throw new AssertionError(op);
        }
    }
}
