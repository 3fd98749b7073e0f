package io.jcoll.kernels;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Data;
import io.jcoll.testing.Reference;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each kernel against the reference on random values, two operands at a time, with AVG finished by divide. */
class ReductionsTest {

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

    private static ByteBuffer encode(DataType t, double[] v) {
        ByteBuffer b = ByteBuffer.allocateDirect(v.length * t.size()).order(ByteOrder.nativeOrder());
        for (int i = 0; i < v.length; i++) {
            Elements.put(t, b, i * t.size(), v[i]);
        }
        return b;
    }
}
