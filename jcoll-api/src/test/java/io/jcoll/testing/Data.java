package io.jcoll.testing;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Elements;
import io.jcoll.kernels.Float8;
import io.jcoll.kernels.HalfFloats;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Test data: random values exactly representable in each type, kept as
 * doubles for the reference, and written into or read out of any kind of host
 * buffer (arrays, heap and direct byte buffers).
 */
public final class Data {

    /** The kinds of host memory a test can use. */
    public enum Kind { DIRECT, HEAP, ARRAY }

    private Data() {
    }

    /** {@code count} random values for {@code op}: PROD stays near magnitude 1 so products neither explode nor vanish. */
    public static double[] random(DataType t, ReduceOp op, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            v[i] = value(t, op, rnd);
        }
        return v;
    }

    private static double value(DataType t, ReduceOp op, SplittableRandom rnd) {
        boolean prod = op == ReduceOp.PROD;
        switch (t) {
            case INT8: return prod ? rnd.nextInt(-3, 4) : rnd.nextInt(-128, 128);
            case UINT8: return prod ? rnd.nextInt(0, 4) : rnd.nextInt(0, 256);
            case INT32: return prod ? rnd.nextInt(-5, 6) : rnd.nextInt();
            case INT64: return prod ? rnd.nextInt(-5, 6) : (double) (rnd.nextLong() >> 11); // exact in a double
            default: break;
        }
        double x = prod ? (rnd.nextBoolean() ? 1 : -1) * (0.5 + 1.5 * rnd.nextDouble()) : 2 * rnd.nextDouble() - 1;
        switch (t) {
            case FLOAT16: return HalfFloats.halfToFloat(HalfFloats.floatToHalf((float) x));
            case BFLOAT16: return HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16((float) x));
            case FLOAT8_E4M3: return Float8.E4M3.toFloat(Float8.E4M3.fromFloat((float) x));
            case FLOAT8_E5M2: return Float8.E5M2.toFloat(Float8.E5M2.fromFloat((float) x));
            case FLOAT32: return (float) x;
            default: return x;
        }
    }

    /** A buffer of {@code count} elements of kind {@code kind}, filled with {@code values} (zeros if null). */
    public static HostBuffer buffer(DataType t, Kind kind, int count, double[] values) {
        HostBuffer b;
        if (kind == Kind.ARRAY) {
            switch (t) {
                case FLOAT32: b = HostBuffer.of(new float[count]); break;
                case FLOAT64: b = HostBuffer.of(new double[count]); break;
                case INT32: b = HostBuffer.of(new int[count]); break;
                case INT64: b = HostBuffer.of(new long[count]); break;
                case INT8: case UINT8: case FLOAT8_E4M3: case FLOAT8_E5M2: b = HostBuffer.of(new byte[count], t); break;
                default: b = HostBuffer.of(new short[count], t); break;
            }
        } else {
            ByteBuffer bb = kind == Kind.DIRECT ? ByteBuffer.allocateDirect(count * t.size() + 8)
                    : ByteBuffer.allocate(count * t.size() + 8);
            // an offset position and a big-endian order prove that both are respected
            bb.order(ByteOrder.BIG_ENDIAN).position(8);
            b = HostBuffer.of(bb, t);
        }
        if (values != null) {
            write(b, values);
        }
        return b;
    }

    public static void write(HostBuffer b, double[] values) {
        int size = b.type().size();
        ByteBuffer stage = ByteBuffer.allocate(values.length * size).order(ByteOrder.nativeOrder());
        for (int i = 0; i < values.length; i++) {
            Elements.put(b.type(), stage, i * size, values[i]);
        }
        ByteBuffer w = b.writable(0, values.length * size, stage.duplicate().order(ByteOrder.nativeOrder()));
        if (w != stage) {
            w.put(0, stage, 0, values.length * size);
        }
        b.commit(0, w);
    }

    public static double[] read(HostBuffer b, int count) {
        int size = b.type().size();
        ByteBuffer v = b.readable(0, count * size, ByteBuffer.allocate(count * size).order(ByteOrder.nativeOrder()));
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            out[i] = Elements.get(b.type(), v, i * size);
        }
        return out;
    }

}
