package io.jcoll.examples;

import java.util.SplittableRandom;

/** Reproducible synthetic data for the examples: every rank derives the same values from the same seed. */
final class Synthetic {

    private Synthetic() {
    }

    /** A rows x cols matrix of Gaussian values scaled by 1/sqrt(cols), so that products stay near magnitude 1. */
    static float[][] matrix(int rows, int cols, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        float[][] m = new float[rows][cols];
        for (float[] row : m) {
            for (int j = 0; j < cols; j++) {
                row[j] = (float) (rnd.nextGaussian() / Math.sqrt(cols));
            }
        }
        return m;
    }
}
