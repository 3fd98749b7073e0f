package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ProcessMesh;
import io.jcoll.ReduceOp;

/**
 * Tensor parallelism inside a group of ranks times data parallelism across groups, on a mesh of
 * {@code data x tensor} ranks (4 ranks: 2 x 2). The model is one linear layer {@code y = W x} fitted by least
 * squares. Its weight matrix is split by columns over the tensor-parallel ranks: each holds the columns of its
 * slice of the input features, computes a partial {@code y}, and an AllReduce inside its tensor group sums the
 * partials into the full output. Each data-parallel replica takes its own part of every batch; the gradient of
 * each column slice is averaged across the replicas holding that slice (an AllReduce along the data dimension).
 * Rank 0 of the whole job also trains the unsplit layer in one process on whole batches: the two must agree.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.TwoDimensionalParallel
 * </pre>
 */
public final class TwoDimensionalParallel {

    static final int IN = 64;
    static final int OUT = 16;
    static final int SAMPLES = 512;
    static final int BATCH = 64;
    static final int STEPS = 60;
    static final float LEARNING_RATE = 0.3f;

    private TwoDimensionalParallel() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int tensor = comm.size() % 2 == 0 ? 2 : 1;
            int data = comm.size() / tensor;
            float[][] x = Synthetic.matrix(SAMPLES, IN, 7);
            float[][] target = times(x, Synthetic.matrix(OUT, IN, 8));
            float[][] w;
            try (ProcessMesh mesh = comm.mesh(data, tensor)) {
                Communicator replicas = mesh.along(0);
                Communicator shards = mesh.along(1);
                int cols = IN / tensor;
                int first = shards.rank() * cols;                       // this rank's input features
                float[][] mine = new float[OUT][cols];                  // W[:, first .. first + cols)
                for (int step = 0; step < STEPS; step++) {
                    int from = (step * BATCH) % SAMPLES + replicas.rank() * BATCH / data;
                    int to = from + BATCH / data;
                    float[] y = new float[(to - from) * OUT];           // this slice's part of the batch's outputs
                    for (int s = from; s < to; s++) {
                        for (int o = 0; o < OUT; o++) {
                            for (int c = 0; c < cols; c++) {
                                y[(s - from) * OUT + o] += mine[o][c] * x[s][first + c];
                            }
                        }
                    }
                    shards.allReduce(HostBuffer.of(y), ReduceOp.SUM);     // the full y = W x, for the whole batch
                    float[][] grad = new float[OUT][cols];
                    for (int s = from; s < to; s++) {
                        for (int o = 0; o < OUT; o++) {
                            float err = y[(s - from) * OUT + o] - target[s][o];
                            for (int c = 0; c < cols; c++) {
                                grad[o][c] += err * x[s][first + c] / BATCH;
                            }
                        }
                    }
                    float[] flat = flatten(grad);
                    replicas.allReduce(HostBuffer.of(flat), ReduceOp.SUM);   // every replica's share of the batch
                    for (int o = 0; o < OUT; o++) {
                        for (int c = 0; c < cols; c++) {
                            mine[o][c] -= LEARNING_RATE * flat[o * cols + c];
                        }
                    }
                }
                // assemble the whole matrix on every rank: each tensor slice from the replica-0 ranks
                float[] all = new float[OUT * IN];
                float[] slice = flatten(mine);
                shards.allGather(HostBuffer.of(slice), HostBuffer.of(all), slice.length);
                w = unflatten(all, tensor, cols);
            }
            if (comm.rank() == 0) {
                float[][] reference = oneProcess(x, target);
                double worst = 0;
                for (int o = 0; o < OUT; o++) {
                    for (int i = 0; i < IN; i++) {
                        worst = Math.max(worst, Math.abs(w[o][i] - reference[o][i]));
                    }
                }
                if (worst > 1e-4) {
                    throw new AssertionError("weights differ from the one-process run by up to " + worst);
                }
                System.out.println("tensor x data parallel (" + data + " x " + tensor + " ranks): " + STEPS
                        + " steps, weights equal to one process's (largest difference " + String.format("%.1e", worst)
                        + "), over " + comm.transport().name());
            }
        }
    }

    /** The same training on the whole layer and whole batches, in one process. */
    static float[][] oneProcess(float[][] x, float[][] target) {
        float[][] w = new float[OUT][IN];
        for (int step = 0; step < STEPS; step++) {
            int from = (step * BATCH) % SAMPLES;
            float[][] grad = new float[OUT][IN];
            for (int s = from; s < from + BATCH; s++) {
                for (int o = 0; o < OUT; o++) {
                    float y = 0;
                    for (int i = 0; i < IN; i++) {
                        y += w[o][i] * x[s][i];
                    }
                    float err = y - target[s][o];
                    for (int i = 0; i < IN; i++) {
                        grad[o][i] += err * x[s][i] / BATCH;
                    }
                }
            }
            for (int o = 0; o < OUT; o++) {
                for (int i = 0; i < IN; i++) {
                    w[o][i] -= LEARNING_RATE * grad[o][i];
                }
            }
        }
        return w;
    }

    static float[][] times(float[][] x, float[][] w) {
        float[][] y = new float[x.length][w.length];
        for (int s = 0; s < x.length; s++) {
            for (int o = 0; o < w.length; o++) {
                for (int i = 0; i < x[s].length; i++) {
                    y[s][o] += w[o][i] * x[s][i];
                }
            }
        }
        return y;
    }

    static float[] flatten(float[][] m) {
        float[] f = new float[m.length * m[0].length];
        for (int r = 0; r < m.length; r++) {
            System.arraycopy(m[r], 0, f, r * m[0].length, m[0].length);
        }
        return f;
    }

    /** Slices gathered one after another ({@code OUT x cols} each) back into one {@code OUT x IN} matrix. */
    static float[][] unflatten(float[] slices, int count, int cols) {
        float[][] w = new float[OUT][IN];
        for (int k = 0; k < count; k++) {
            for (int o = 0; o < OUT; o++) {
                System.arraycopy(slices, k * OUT * cols + o * cols, w[o], k * cols, cols);
            }
        }
        return w;
    }
}
