package io.jcoll.kernels;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Float8Test {

    @Test
    void everyPatternSurvivesTheRoundTripAndTheKnownValuesAreRight() {
        for (Float8 f : Float8.values()) {
            for (int bits = 0; bits < 256; bits++) {
                float v = f.toFloat((byte) bits);
                if (Float.isNaN(v)) {
                    assertTrue(Float.isNaN(f.toFloat(f.fromFloat(v))));
                } else if (bits != 0x80) { // -0 comes back as -0 too, but compare bits for the rest
                    assertEquals(bits, f.fromFloat(v) & 0xff, f + " pattern 0x" + Integer.toHexString(bits) + " = " + v);
                }
            }
        }
        assertEquals(448f, Float8.E4M3.toFloat((byte) 0x7e));
        assertEquals(0x1p-9f, Float8.E4M3.toFloat((byte) 0x01));
        assertEquals(57344f, Float8.E5M2.toFloat((byte) 0x7b));
        assertEquals(Float.POSITIVE_INFINITY, Float8.E5M2.toFloat((byte) 0x7c));
        assertEquals(448f, Float8.E4M3.toFloat(Float8.E4M3.fromFloat(1e6f)), "E4M3 saturates");
        assertEquals(Float.POSITIVE_INFINITY, Float8.E5M2.toFloat(Float8.E5M2.fromFloat(1e6f)), "E5M2 overflows");
    }

    /** Independent reference: the nearest of every finite value, ties to the even pattern. */
    @Test
    void roundsToNearestEven() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (Float8 f : Float8.values()) {
            List<float[]> finite = new ArrayList<>(); // {value, pattern}, positive, increasing with the pattern
            for (int bits = 0; bits < 0x80; bits++) {
                float v = f.toFloat((byte) bits);
                if (!Float.isNaN(v) && !Float.isInfinite(v)) {
                    finite.add(new float[] {v, bits});
                }
            }
            float max = finite.get(finite.size() - 1)[0];
            for (int k = 0; k < 100_000; k++) {
                float x = k % 3 == 0 ? (float) (rnd.nextDouble() * max)
                        : k % 3 == 1 ? (float) (rnd.nextDouble() * 0.05) // subnormals and small normals
                        : (finite.get(rnd.nextInt(finite.size() - 1))[0] + finite.get(rnd.nextInt(finite.size() - 1) + 1)[0]) / 2;
                if (x > max) {
                    continue;
                }
                int best = 0;
                for (int i = 1; i < finite.size(); i++) {
                    double d = Math.abs(finite.get(i)[0] - x);
                    double b = Math.abs(finite.get(best)[0] - x);
                    if (d < b || d == b && ((int) finite.get(i)[1] & 1) == 0) {
                        best = i;
                    }
                }
                assertEquals((int) finite.get(best)[1], f.fromFloat(x) & 0xff, f + " of " + x);
            }
        }
    }
}
