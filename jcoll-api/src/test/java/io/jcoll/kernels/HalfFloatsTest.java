package io.jcoll.kernels;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HalfFloatsTest {

    @Test
    void everyHalfSurvivesTheRoundTrip() {
        for (int bits = 0; bits < 0x10000; bits++) {
            float f = HalfFloats.halfToFloat((short) bits);
            short back = HalfFloats.floatToHalf(f);
            if (Float.isNaN(f)) {
                assertTrue(Float.isNaN(HalfFloats.halfToFloat(back)), "NaN stays NaN: " + Integer.toHexString(bits));
            } else {
                assertEquals(bits, back & 0xffff, "half 0x" + Integer.toHexString(bits) + " = " + f);
            }
        }
    }

    /** Independent reference: the nearest of all finite halves, ties to the even bit pattern. */
    @Test
    void floatToHalfRoundsToNearestEven() {
        double[] values = new double[0x7c00];
        for (int bits = 0; bits < 0x7c00; bits++) {
            values[bits] = HalfFloats.halfToFloat((short) bits); // positive finite halves, increasing
        }
        SplittableRandom rnd = new SplittableRandom(42);
        for (int k = 0; k < 200_000; k++) {
            float f = switch (k % 4) {
                case 0 -> (float) (rnd.nextDouble() * 70000);
                case 1 -> (float) (rnd.nextDouble() * 1e-4);          // subnormal halves
                case 2 -> (float) ((rnd.nextInt(0x7bff) + 0.5));      // exact ties between integers... and others
                default -> (float) values[rnd.nextInt(0x7bff)] + (float) (values[1] / 2); // near ties
            };
            assertEquals(reference(values, f), HalfFloats.floatToHalf(f) & 0xffff, "float " + f);
            assertEquals(reference(values, f) | 0x8000, HalfFloats.floatToHalf(-f) & 0xffff, "float " + -f);
        }
    }

    private static int reference(double[] values, float f) {
        if (f >= 65520f) {
            return 0x7c00; // beyond the largest half plus half an ulp: infinity
        }
        int i = Arrays.binarySearch(values, f);
        if (i >= 0) {
            return i;
        }
        int above = -i - 1;
        int below = above - 1;
        if (above >= values.length) {
            return values.length - 1;
        }
        double dBelow = f - values[below];
        double dAbove = values[above] - f;
        if (dBelow < dAbove) {
            return below;
        }
        if (dAbove < dBelow) {
            return above;
        }
        return (below & 1) == 0 ? below : above;
    }

    @Test
    void bfloat16RoundsToNearestEven() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int k = 0; k < 200_000; k++) {
            float f = Float.intBitsToFloat(rnd.nextInt() & 0x7f7fffff); // finite, positive
            int low = Float.floatToRawIntBits(f) >>> 16;
            double a = HalfFloats.bfloat16ToFloat((short) low);
            // past the largest finite value the next grid point is 2^128, which encodes as infinity
            double b = low + 1 == 0x7f80 ? 0x1p128 : HalfFloats.bfloat16ToFloat((short) (low + 1));
            int expected = (f - a < b - f) ? low : (b - f < f - a) ? low + 1 : ((low & 1) == 0 ? low : low + 1);
            assertEquals(expected, HalfFloats.floatToBfloat16(f) & 0xffff, "float " + f);
        }
        assertTrue(Float.isNaN(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(Float.NaN))));
        assertEquals(Float.POSITIVE_INFINITY, HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(Float.POSITIVE_INFINITY)));
    }
}
