package io.jcoll.testing;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;

/** Assertions against {@link Reference}, with messages that show the first wrong element. */
public final class Verify {

    private Verify() {
    }

    /** Elements of {@code actual} outside the reference's tolerance (NaN where the reference is a number counts). */
    public static int countWrong(DataType t, ReduceOp op, double[][] inputs, double[] actual, int from) {
        int wrong = 0;
        for (int i = 0; i < actual.length; i++) {
            double expected = Reference.reduce(t, op, inputs, from + i);
            if (!(Math.abs(actual[i] - expected) <= Reference.tolerance(t, op, inputs, from + i))) {
                wrong++;
            }
        }
        return wrong;
    }

    /** {@code actual[i]} is op over {@code inputs[*][from + i]}. */
    public static void reduced(String what, DataType t, ReduceOp op, double[][] inputs, double[] actual, int from) {
        for (int i = 0; i < actual.length; i++) {
            double expected = Reference.reduce(t, op, inputs, from + i);
            double tol = Reference.tolerance(t, op, inputs, from + i);
            if (!(Math.abs(actual[i] - expected) <= tol)) {
                throw new AssertionError(what + ": element " + i + " (of " + actual.length + ") is " + actual[i]
                        + ", expected " + expected + " within " + tol + " (" + t + " " + op + " over "
                        + inputs.length + " ranks)");
            }
        }
    }

    /** Exact equality, element by element. */
    public static void equal(String what, double[] expected, int from, double[] actual, int at, int count) {
        for (int i = 0; i < count; i++) {
            if (Double.compare(expected[from + i], actual[at + i]) != 0) {
                throw new AssertionError(what + ": element " + (at + i) + " is " + actual[at + i] + ", expected "
                        + expected[from + i]);
            }
        }
    }
}
