package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.Group;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

/**
 * Pipeline parallelism: a model of one {@code tanh(W x)} layer per rank, each rank a stage, trained on
 * microbatches with the GPipe schedule (every microbatch forward, then every one backward, gradients summed,
 * one step). Activations travel forward and gradients backward with grouped sends and receives: each stage
 * sends microbatch m on while it receives microbatch m + 1, both in flight together in one group, as
 * {@code batch_isend_irecv} does in PyTorch's pipeline schedules. The last stage computes the loss; at the end
 * every stage's weights are gathered and rank 0 trains the whole model in one process: same loss curve, same
 * weights.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.PipelineParallel
 * </pre>
 */
public final class PipelineParallel {

    static final int WIDTH = 32;
    static final int MICROBATCHES = 4;
    static final int MICRO = 8;            // samples per microbatch
    static final int STEPS = 30;
    static final float LEARNING_RATE = 0.05f;

    private PipelineParallel() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int stages = comm.size();
            int stage = comm.rank();
            int size = MICRO * WIDTH;                       // one microbatch's activations
            float[][] w = Synthetic.matrix(WIDTH, WIDTH, 50 + stage);
            float[][] inputs = Synthetic.matrix(MICROBATCHES * MICRO, WIDTH, 5);
            float[][] targets = Synthetic.matrix(MICROBATCHES * MICRO, WIDTH, 6);
            float[] losses = new float[STEPS];
            for (int step = 0; step < STEPS; step++) {
                float[][] in = new float[MICROBATCHES][size];     // what each microbatch entered this stage with
                float[][] out = new float[MICROBATCHES][size];    // and left it with
                // forward: receive microbatch 0, then each group sends m on and receives m + 1
                if (stage == 0) {
                    for (int m = 0; m < MICROBATCHES; m++) {
                        in[m] = rows(inputs, m * MICRO, MICRO);
                    }
                } else {
                    comm.recv(HostBuffer.of(in[0]), size, stage - 1);
                }
                for (int m = 0; m < MICROBATCHES; m++) {
                    out[m] = layer(w, in[m]);
                    try (Group g = comm.group()) {
                        if (stage < stages - 1) {
                            g.send(HostBuffer.of(out[m]), size, stage + 1);
                        }
                        if (stage > 0 && m + 1 < MICROBATCHES) {
                            g.recv(HostBuffer.of(in[m + 1]), size, stage - 1);
                        }
                    }
                }
                // backward: the last stage starts from the loss; gradients flow towards stage 0 the same way
                float[][] gradOut = new float[MICROBATCHES][size];
                float loss = 0;
                if (stage == stages - 1) {
                    for (int m = 0; m < MICROBATCHES; m++) {
                        float[] t = rows(targets, m * MICRO, MICRO);
                        for (int i = 0; i < size; i++) {
                            float err = out[m][i] - t[i];
                            loss += err * err / (MICROBATCHES * MICRO);
                            gradOut[m][i] = 2 * err / (MICROBATCHES * MICRO);
                        }
                    }
                } else {
                    comm.recv(HostBuffer.of(gradOut[0]), size, stage + 1);
                }
                float[][] gradW = new float[WIDTH][WIDTH];
                for (int m = 0; m < MICROBATCHES; m++) {
                    float[] gradIn = backward(w, in[m], out[m], gradOut[m], gradW);
                    try (Group g = comm.group()) {
                        if (stage > 0) {
                            g.send(HostBuffer.of(gradIn), size, stage - 1);
                        }
                        if (stage < stages - 1 && m + 1 < MICROBATCHES) {
                            g.recv(HostBuffer.of(gradOut[m + 1]), size, stage + 1);
                        }
                    }
                }
                for (int r = 0; r < WIDTH; r++) {
                    for (int c = 0; c < WIDTH; c++) {
                        w[r][c] -= LEARNING_RATE * gradW[r][c];
                    }
                }
                losses[step] = loss;
            }
            comm.broadcast(HostBuffer.of(losses), stages - 1);              // the loss curve, from the last stage
            float[] flat = TwoDimensionalParallel.flatten(w);
            float[] all = new float[stages * flat.length];
            comm.gather(HostBuffer.of(flat), comm.rank() == 0 ? HostBuffer.of(all) : null, flat.length, 0);
            if (comm.rank() == 0) {
                check(losses, all, stages, inputs, targets);
                System.out.println("pipeline of " + stages + " stages, " + MICROBATCHES + " microbatches: " + STEPS
                        + " steps, loss " + losses[0] + " -> " + losses[STEPS - 1] + ", loss curve and weights equal "
                        + "to one process's, over " + comm.transport().name());
            }
        }
    }

    /** The whole model in one process, microbatch by microbatch in the same order: same losses, same weights. */
    static void check(float[] losses, float[] gathered, int stages, float[][] inputs, float[][] targets) {
        float[][][] w = new float[stages][][];
        for (int k = 0; k < stages; k++) {
            w[k] = Synthetic.matrix(WIDTH, WIDTH, 50 + k);
        }
        int size = MICRO * WIDTH;
        for (int step = 0; step < STEPS; step++) {
            float[][][] acts = new float[stages + 1][MICROBATCHES][];
            for (int m = 0; m < MICROBATCHES; m++) {
                acts[0][m] = rows(inputs, m * MICRO, MICRO);
                for (int k = 0; k < stages; k++) {
                    acts[k + 1][m] = layer(w[k], acts[k][m]);
                }
            }
            float loss = 0;
            float[][] grad = new float[MICROBATCHES][size];
            for (int m = 0; m < MICROBATCHES; m++) {
                float[] t = rows(targets, m * MICRO, MICRO);
                for (int i = 0; i < size; i++) {
                    float err = acts[stages][m][i] - t[i];
                    loss += err * err / (MICROBATCHES * MICRO);
                    grad[m][i] = 2 * err / (MICROBATCHES * MICRO);
                }
            }
            if (Math.abs(loss - losses[step]) > 1e-5 * Math.max(1, Math.abs(loss))) {
                throw new AssertionError("step " + step + ": loss " + losses[step] + ", one process " + loss);
            }
            for (int k = stages - 1; k >= 0; k--) {
                float[][] gradW = new float[WIDTH][WIDTH];
                for (int m = 0; m < MICROBATCHES; m++) {
                    grad[m] = backward(w[k], acts[k][m], acts[k + 1][m], grad[m], gradW);
                }
                for (int r = 0; r < WIDTH; r++) {
                    for (int c = 0; c < WIDTH; c++) {
                        w[k][r][c] -= LEARNING_RATE * gradW[r][c];
                    }
                }
            }
        }
        for (int k = 0; k < stages; k++) {
            float[] flat = TwoDimensionalParallel.flatten(w[k]);
            for (int i = 0; i < flat.length; i++) {
                if (Math.abs(flat[i] - gathered[k * flat.length + i]) > 1e-5) {
                    throw new AssertionError("stage " + k + " weight " + i + ": " + gathered[k * flat.length + i]
                            + ", one process " + flat[i]);
                }
            }
        }
    }

    /** y = tanh(W x) for each sample of a microbatch (rows of WIDTH). */
    static float[] layer(float[][] w, float[] x) {
        float[] y = new float[x.length];
        for (int s = 0; s < MICRO; s++) {
            for (int r = 0; r < WIDTH; r++) {
                float z = 0;
                for (int c = 0; c < WIDTH; c++) {
                    z += w[r][c] * x[s * WIDTH + c];
                }
                y[s * WIDTH + r] = (float) Math.tanh(z);
            }
        }
        return y;
    }

    /** Adds this microbatch's weight gradient to {@code gradW}; returns the gradient with respect to the input. */
    static float[] backward(float[][] w, float[] x, float[] y, float[] gradY, float[][] gradW) {
        float[] gradX = new float[x.length];
        for (int s = 0; s < MICRO; s++) {
            for (int r = 0; r < WIDTH; r++) {
                float gz = gradY[s * WIDTH + r] * (1 - y[s * WIDTH + r] * y[s * WIDTH + r]);
                for (int c = 0; c < WIDTH; c++) {
                    gradW[r][c] += gz * x[s * WIDTH + c];
                    gradX[s * WIDTH + c] += gz * w[r][c];
                }
            }
        }
        return gradX;
    }

    static float[] rows(float[][] m, int first, int count) {
        float[] out = new float[count * m[0].length];
        for (int i = 0; i < count; i++) {
            System.arraycopy(m[first + i], 0, out, i * m[0].length, m[0].length);
        }
        return out;
    }
}
