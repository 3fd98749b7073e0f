package io.jcoll.kernels;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Data;
import io.jcoll.testing.Reference;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each kernel against the reference on random values, two operands or many at a time, with AVG finished by divide. */
class ReductionsTest {

    /** A prime count of elements over several chunks of every wide type: a multiple of none of them. */
    private static final int LONG_RUN =
            java.math.BigInteger.valueOf(3L * ArrayKernels.FLOAT_CHUNK).nextProbablePrime().intValueExact();

    @Test
    void everyTypeAndOpMatchesTheReference() {
        int count = 997;
        long seed = System.nanoTime();
        for (DataType t : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                double[][] in = {Data.random(t, op, count, seed), Data.random(t, op, count, seed + 1)};
                ByteBuffer a = encode(t, in[0]);
                ByteBuffer b = encode(t, in[1]);
                Reductions.combine(t, op, a, b, a, count);
                if (op == ReduceOp.AVG) {
                    Reductions.divide(t, a, count, 2);
                }
                for (int i = 0; i < count; i++) {
                    double expected = Reference.reduce(t, op, in, i);
                    double actual = Elements.get(t, a, i * t.size());
                    double tol = Reference.tolerance(t, op, in, i);
                    assertEquals(expected, actual, tol, t + " " + op + " element " + i + " of seed " + seed);
                }
            }
        }
    }

    /**
     * Long runs of the wide types take the array path: every element must be bit-identical to the single
     * primitive operation, across chunk boundaries (a prime count), with the output aliasing an input, buffers
     * whose position is not 0 (as a stage is after a receive), and heap as well as direct memory.
     */
    @Test
    void longRunsAreBitIdenticalToOneOperationPerElement() {
        int count = LONG_RUN;
        java.util.Random random = new java.util.Random();
        DataType[] wide = {DataType.FLOAT32, DataType.FLOAT64, DataType.INT32, DataType.INT64};
        for (DataType t : wide) {
            for (ReduceOp op : ReduceOp.values()) {
                for (boolean direct : new boolean[] {true, false}) {
                    ByteBuffer a = allocate(t, count, direct);
                    ByteBuffer b = allocate(t, count, direct);
                    for (int i = 0; i < count; i++) {
                        putRandom(t, a, i, random);
                        putRandom(t, b, i, random);
                    }
                    ByteBuffer expected = allocate(t, count, true);
                    for (int i = 0; i < count; i++) {
                        expect(t, op, a, b, expected, i);
                    }
                    a.position(a.limit()); // as a stage is left after a receive
                    Reductions.combine(t, op, a, b, b, count); // the output is an input
                    for (int i = 0; i < count; i++) {
                        int at = i * t.size();
                        long want = t.size() == 4 ? expected.getInt(at) : expected.getLong(at);
                        long got = t.size() == 4 ? b.getInt(at) : b.getLong(at);
                        assertEquals(want, got, t + " " + op + (direct ? " direct" : " heap") + " element " + i);
                    }
                }
            }
        }
    }

    /**
     * Any number of inputs at once (a reduction over every rank's slot), against the reference in double
     * precision: every type and op, 1 to 8 inputs, counts of 0, 1, one under the array path, and a prime over
     * several chunks, into a buffer of its own and into the first input.
     */
    @Test
    void manyInputsMatchTheReference() {
        long seed = System.nanoTime();
        int[] counts = {0, 1, Reductions.ARRAY_PATH_MIN - 1, LONG_RUN};
        for (DataType t : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                for (int n : new int[] {1, 2, 3, 5, 8}) {
                    for (int count : counts) {
                        for (boolean intoFirst : new boolean[] {false, true}) {
                            double[][] in = new double[n][];
                            ByteBuffer[] buffers = new ByteBuffer[n];
                            for (int j = 0; j < n; j++) {
                                in[j] = Data.random(t, op, count, seed + 31L * j + count);
                                buffers[j] = encode(t, in[j]);
                            }
                            ByteBuffer dst = intoFirst ? buffers[0] : allocate(t, count, true);
                            Reductions.combineAll(t, op, buffers, dst, count);
                            if (op == ReduceOp.AVG) {
                                Reductions.divide(t, dst, count, n);
                            }
                            for (int i = 0; i < count; i++) {
                                assertEquals(Reference.reduce(t, op, in, i), Elements.get(t, dst, i * t.size()),
                                        Reference.tolerance(t, op, in, i), t + " " + op + ", " + n + " inputs, "
                                                + count + " elements" + (intoFirst ? " into the first" : "")
                                                + ", element " + i + " of seed " + seed);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * The wide types' array path over many inputs gives the bits of one primitive operation after another, left
     * to right (what pairwise combines give, and what makes every rank's result the same): 7 inputs with NaNs,
     * signed zeros and overflow, across chunk boundaries, heap and direct, into the second input.
     */
    @Test
    void manyInputsAreBitIdenticalToOperationsLeftToRight() {
        int count = LONG_RUN;
        int n = 7;
        java.util.Random random = new java.util.Random();
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT64, DataType.INT32, DataType.INT64}) {
            for (ReduceOp op : ReduceOp.values()) {
                for (boolean direct : new boolean[] {true, false}) {
                    ByteBuffer[] in = new ByteBuffer[n];
                    for (int j = 0; j < n; j++) {
                        in[j] = allocate(t, count, direct);
                        for (int i = 0; i < count; i++) {
                            putRandom(t, in[j], i, random);
                        }
                    }
                    ByteBuffer expected = allocate(t, count, true);
                    for (int i = 0; i < count; i++) {
                        expect(t, op, in[0], in[1], expected, i);
                        for (int j = 2; j < n; j++) {
                            expect(t, op, expected, in[j], expected, i);
                        }
                    }
                    Reductions.combineAll(t, op, in, in[1], count);
                    for (int i = 0; i < count; i++) {
                        int at = i * t.size();
                        long want = t.size() == 4 ? expected.getInt(at) : expected.getLong(at);
                        long got = t.size() == 4 ? in[1].getInt(at) : in[1].getLong(at);
                        assertEquals(want, got, t + " " + op + (direct ? " direct" : " heap") + " element " + i);
                    }
                }
            }
        }
    }

    /** An output that is a later input would be overwritten before it is read (where the narrow types go pairwise). */
    @Test
    void anOutputThatIsALaterInputIsRefused() {
        ByteBuffer[] in = {encode(DataType.FLOAT16, new double[4]), encode(DataType.FLOAT16, new double[4]),
                encode(DataType.FLOAT16, new double[4])};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Reductions.combineAll(DataType.FLOAT16, ReduceOp.SUM, in, in[2], 4));
        assertTrue(e.getMessage().contains("input 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Reductions.combineAll(DataType.FLOAT32, ReduceOp.SUM, new ByteBuffer[0], in[0], 0));
    }

    private static ByteBuffer allocate(DataType t, int count, boolean direct) {
        int bytes = count * t.size();
        return (direct ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes)).order(ByteOrder.nativeOrder());
    }

    /** Random values that include the edge cases of each type's operation: NaN, signed zeros, overflow. */
    private static void putRandom(DataType t, ByteBuffer b, int i, java.util.Random r) {
        int at = i * t.size();
        int pick = r.nextInt(20);
        switch (t) {
            case FLOAT32 -> b.putFloat(at, pick == 0 ? Float.NaN : pick == 1 ? -0.0f : pick == 2 ? 0.0f
                    : (float) (r.nextGaussian() * 1e3));
            case FLOAT64 -> b.putDouble(at, pick == 0 ? Double.NaN : pick == 1 ? -0.0 : pick == 2 ? 0.0
                    : r.nextGaussian() * 1e6);
            case INT32 -> b.putInt(at, r.nextInt());
            case INT64 -> b.putLong(at, r.nextLong());
            default -> throw new AssertionError(t);
        }
    }

    /** The reference: one Java operation on the two elements, written as raw bits. */
    private static void expect(DataType t, ReduceOp op, ByteBuffer a, ByteBuffer b, ByteBuffer out, int i) {
        int at = i * t.size();
        boolean sum = op == ReduceOp.SUM || op == ReduceOp.AVG;
        switch (t) {
            case FLOAT32 -> {
                float x = a.getFloat(at), y = b.getFloat(at);
                out.putInt(at, Float.floatToRawIntBits(sum ? x + y : op == ReduceOp.PROD ? x * y
                        : op == ReduceOp.MIN ? Math.min(x, y) : Math.max(x, y)));
            }
            case FLOAT64 -> {
                double x = a.getDouble(at), y = b.getDouble(at);
                out.putLong(at, Double.doubleToRawLongBits(sum ? x + y : op == ReduceOp.PROD ? x * y
                        : op == ReduceOp.MIN ? Math.min(x, y) : Math.max(x, y)));
            }
            case INT32 -> {
                int x = a.getInt(at), y = b.getInt(at);
                out.putInt(at, sum ? x + y : op == ReduceOp.PROD ? x * y : op == ReduceOp.MIN ? Math.min(x, y)
                        : Math.max(x, y));
            }
            case INT64 -> {
                long x = a.getLong(at), y = b.getLong(at);
                out.putLong(at, sum ? x + y : op == ReduceOp.PROD ? x * y : op == ReduceOp.MIN ? Math.min(x, y)
                        : Math.max(x, y));
            }
            default -> throw new AssertionError(t);
        }
    }

    private static ByteBuffer encode(DataType t, double[] v) {
        ByteBuffer b = ByteBuffer.allocateDirect(v.length * t.size()).order(ByteOrder.nativeOrder());
        for (int i = 0; i < v.length; i++) {
            Elements.put(t, b, i * t.size(), v[i]);
        }
        return b;
    }
}
