package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * ZeRO / FSDP-style sharding: each rank keeps the optimizer state (momentum)
 * for one shard of the parameters only. A step computes the local batch's
 * gradient for every parameter, ReduceScatter sums each shard's gradient onto
 * its owner, the owner updates its shard, and AllGather hands the new
 * parameters to everyone. The model is a linear least-squares fit, so that the
 * check is plain: rank 0 also runs the same momentum SGD unsharded in one
 * process on whole batches, and the two must agree to float32 tolerance.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.ShardedTraining
 * </pre>
 */
public final class ShardedTraining {

    static final int FEATURES = 1000;
    static final int SAMPLES = 2048;
    static final int BATCH = 128;
    static final int STEPS = 100;
    static final float LEARNING_RATE = 0.5f;
    static final float MOMENTUM = 0.9f;

    private ShardedTraining() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int n = comm.size();
            int shard = (FEATURES + n - 1) / n;                   // parameters padded to a multiple of the ranks
            float[][] x = Synthetic.matrix(SAMPLES, FEATURES, 3);
            float[] y = targets(x, 4);
            float[] weights = new float[shard * n];                // full parameters, gathered each step
            float[] grads = new float[shard * n];
            float[] myGrad = new float[shard];
            float[] myVelocity = new float[shard];                  // optimizer state: this rank's shard only
            float[] myWeights = new float[shard];
            for (int step = 0; step < STEPS; step++) {
                int first = (step * BATCH) % SAMPLES;
                Arrays.fill(grads, 0f);
                gradient(x, y, weights, first + comm.rank() * BATCH / n, first + (comm.rank() + 1) * BATCH / n, grads);
                comm.reduceScatter(HostBuffer.of(grads), HostBuffer.of(myGrad), shard, ReduceOp.SUM);
                System.arraycopy(weights, comm.rank() * shard, myWeights, 0, shard);
                for (int i = 0; i < shard; i++) {
                    myVelocity[i] = MOMENTUM * myVelocity[i] + myGrad[i] / BATCH;
                    myWeights[i] -= LEARNING_RATE * myVelocity[i];
                }
                comm.allGather(HostBuffer.of(myWeights), HostBuffer.of(weights), shard);
            }
            float[] reference = unshardedWeights(x, y);
            double worst = 0;
            for (int i = 0; i < FEATURES; i++) {
                worst = Math.max(worst, Math.abs(weights[i] - reference[i]));
            }
            if (worst > 1e-4) {
                throw new AssertionError("rank " + comm.rank() + ": weights differ from the unsharded run by " + worst);
            }
            System.out.printf("rank %d: %d steps, loss %.4f -> %.4f, momentum kept for %d of %d parameters; weights "
                    + "equal to the unsharded run within %.1e, over %s%n", comm.rank(), STEPS,
                    loss(x, y, new float[weights.length]), loss(x, y, weights), shard, FEATURES, worst,
                    comm.transport().name());
        }
    }

    /** Adds the squared-error gradient of samples [from, to) to {@code grads} (one entry per feature of x). */
    static void gradient(float[][] x, float[] y, float[] w, int from, int to, float[] grads) {
        for (int s = from; s < to; s++) {
            float err = -y[s];
            for (int i = 0; i < x[s].length; i++) {
                err += w[i] * x[s][i];
            }
            for (int i = 0; i < x[s].length; i++) {
                grads[i] += err * x[s][i];
            }
        }
    }

    static float[] unshardedWeights(float[][] x, float[] y) {
        float[] w = new float[FEATURES];
        float[] v = new float[FEATURES];
        float[] g = new float[FEATURES];
        for (int step = 0; step < STEPS; step++) {
            int first = (step * BATCH) % SAMPLES;
            Arrays.fill(g, 0f);
            gradient(x, y, w, first, first + BATCH, g);
            for (int i = 0; i < FEATURES; i++) {
                v[i] = MOMENTUM * v[i] + g[i] / BATCH;
                w[i] -= LEARNING_RATE * v[i];
            }
        }
        return w;
    }

    static float loss(float[][] x, float[] y, float[] w) {
        double sum = 0;
        for (int s = 0; s < SAMPLES; s++) {
            double err = -y[s];
            for (int i = 0; i < FEATURES; i++) {
                err += w[i] * x[s][i];
            }
            sum += err * err / 2;
        }
        return (float) (sum / SAMPLES);
    }

    static float[] targets(float[][] x, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] truth = new float[FEATURES];
        for (int i = 0; i < FEATURES; i++) {
            truth[i] = (float) rnd.nextGaussian();
        }
        float[] y = new float[x.length];
        for (int s = 0; s < x.length; s++) {
            double v = rnd.nextGaussian() * 0.01;
            for (int i = 0; i < FEATURES; i++) {
                v += truth[i] * x[s][i];
            }
            y[s] = (float) v;
        }
        return y;
    }
}
