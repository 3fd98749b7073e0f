package io.jcoll.examples;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.gpu.DeviceBuffer;
import io.jcoll.nccl.NcclAccess;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Data-parallel training, the way PyTorch's DistributedDataParallel does it:
 * every rank holds the whole model (a two-layer perceptron), trains on its
 * shard of each global batch, and the gradients are summed with AllReduce in a
 * few large buckets rather than one call per tensor. The local loss rides in
 * the last bucket, so a step costs no extra call. With {@code --check}, rank 0
 * also trains the same model in one process on whole batches and compares the
 * loss curves; every rank checks that the parameters stayed identical everywhere.
 * With {@code --device}, the buckets are AllReduced in GPU memory by NCCL.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.DataParallelTraining --check
 * ./jcoll launch -n 2 -- io.jcoll.examples.DataParallelTraining --check --device   # one GPU per rank
 * </pre>
 */
public final class DataParallelTraining {

    static final int INPUTS = 64;
    static final int HIDDEN = 256;
    static final int SAMPLES = 4096;
    static final int BATCH = 256;           // the global batch, shared out among the ranks
    static final int STEPS = 150;
    static final float LEARNING_RATE = 0.05f;
    static final int BUCKET = 8192;         // floats per AllReduce call

    private DataParallelTraining() {
    }

    public static void main(String[] args) {
        List<String> flags = Arrays.asList(args);
        try (Communicator comm = Jcoll.fromEnvironment()) {
            Dataset data = Dataset.synthetic(SAMPLES, INPUTS, 42);
            Mlp model = Mlp.initial(INPUTS, HIDDEN, 7);                   // the same start on every rank
            float[] grads = new float[model.params.length + 1];          // + 1: the loss sum rides along
            Buckets buckets = new Buckets(comm, grads, flags.contains("--device"));
            float[] losses = new float[STEPS];
            for (int step = 0; step < STEPS; step++) {
                int first = (step * BATCH) % SAMPLES;
                int from = first + comm.rank() * BATCH / comm.size();    // this rank's shard of the batch
                int to = first + (comm.rank() + 1) * BATCH / comm.size();
                Arrays.fill(grads, 0f);
                grads[grads.length - 1] = model.accumulateGradients(data, from, to, grads);
                buckets.sumAcrossRanks();
                losses[step] = grads[grads.length - 1] / BATCH;
                model.descend(grads, LEARNING_RATE / BATCH);             // the whole batch's mean gradient
                if (comm.rank() == 0 && (step % 30 == 0 || step == STEPS - 1)) {
                    System.out.printf("step %3d  loss %.6f%n", step, losses[step]);
                }
            }
            requireIdenticalEverywhere(comm, model.params);
            if (flags.contains("--check") && comm.rank() == 0) {
                float[] reference = singleProcessLosses(data);
                double worst = 0;
                for (int s = 0; s < STEPS; s++) {
                    worst = Math.max(worst, Math.abs(losses[s] - reference[s]) / Math.max(1e-6, Math.abs(reference[s])));
                }
                if (worst > 1e-4) {
                    throw new AssertionError("the loss curve differs from one process on whole batches by " + worst);
                }
                System.out.printf("loss curve matches one process on whole batches (worst relative difference %.2e);"
                        + " parameters identical on all %d ranks, %d AllReduce calls a step over %s%n", worst,
                        comm.size(), buckets.calls(), comm.transport().name());
            }
            buckets.close();
        }
    }

    /** Every rank's parameters must be bit for bit the same: their MIN and MAX across ranks agree. */
    static void requireIdenticalEverywhere(Communicator comm, float[] params) {
        float[] min = params.clone();
        float[] max = params.clone();
        comm.allReduce(HostBuffer.of(min), ReduceOp.MIN);
        comm.allReduce(HostBuffer.of(max), ReduceOp.MAX);
        if (!Arrays.equals(min, max) || !Arrays.equals(min, params)) {
            throw new AssertionError("rank " + comm.rank() + ": parameters differ across ranks");
        }
    }

    static float[] singleProcessLosses(Dataset data) {
        Mlp model = Mlp.initial(INPUTS, HIDDEN, 7);
        float[] grads = new float[model.params.length];
        float[] losses = new float[STEPS];
        for (int step = 0; step < STEPS; step++) {
            int first = (step * BATCH) % SAMPLES;
            Arrays.fill(grads, 0f);
            losses[step] = model.accumulateGradients(data, first, first + BATCH, grads) / BATCH;
            model.descend(grads, LEARNING_RATE / BATCH);
        }
        return losses;
    }

    /** The gradient buffer cut into buckets, each summed across ranks with one AllReduce. */
    static final class Buckets implements AutoCloseable {
        private final Communicator comm;
        private final float[] grads;
        private final DeviceBuffer device;     // null: host memory
        private int calls;

        Buckets(Communicator comm, float[] grads, boolean onDevice) {
            this.comm = comm;
            this.grads = grads;
            if (onDevice) {
                NcclAccess nccl = comm.unwrap(NcclAccess.class).orElseThrow(() -> new IllegalStateException(
                        "--device needs the NCCL transport; jcoll chose " + comm.transport()));
                device = DeviceBuffer.allocate(nccl.device(), DataType.FLOAT32, grads.length);
            } else {
                device = null;
            }
        }

        void sumAcrossRanks() {
            HostBuffer host = HostBuffer.of(grads);
            Buffer all = host;
            if (device != null) {
                device.copyFrom(host); // in a GPU framework the gradients are there already
                all = device;
            }
            calls = 0;
            for (long from = 0; from < grads.length; from += BUCKET) {
                long n = Math.min(BUCKET, grads.length - from);
                comm.allReduce(all.slice(from, n), ReduceOp.SUM);   // in place
                calls++;
            }
            if (device != null) {
                device.copyTo(host);
            }
        }

        int calls() {
            return calls;
        }

        @Override
        public void close() {
            if (device != null) {
                device.close();
            }
        }
    }

    /** Inputs and targets of a regression a small network can learn: y = sin(a.x) + 0.5 b.x. */
    record Dataset(float[][] x, float[] y) {
        static Dataset synthetic(int samples, int inputs, long seed) {
            SplittableRandom rnd = new SplittableRandom(seed);
            float[] a = new float[inputs];
            float[] b = new float[inputs];
            for (int j = 0; j < inputs; j++) {
                a[j] = (float) (rnd.nextGaussian() / Math.sqrt(inputs));
                b[j] = (float) (rnd.nextGaussian() / Math.sqrt(inputs));
            }
            float[][] x = new float[samples][inputs];
            float[] y = new float[samples];
            for (int i = 0; i < samples; i++) {
                double ax = 0;
                double bx = 0;
                for (int j = 0; j < inputs; j++) {
                    x[i][j] = (float) rnd.nextGaussian();
                    ax += a[j] * x[i][j];
                    bx += b[j] * x[i][j];
                }
                y[i] = (float) (Math.sin(ax) + 0.5 * bx);
            }
            return new Dataset(x, y);
        }
    }

    /**
     * y = w2 . relu(W1 x + b1) + b2, every parameter in one flat array
     * (W1, then b1, w2, b2), the layout the gradient buckets share.
     */
    static final class Mlp {
        final int inputs;
        final int hidden;
        final float[] params;

        private Mlp(int inputs, int hidden, float[] params) {
            this.inputs = inputs;
            this.hidden = hidden;
            this.params = params;
        }

        static Mlp initial(int inputs, int hidden, long seed) {
            SplittableRandom rnd = new SplittableRandom(seed);
            float[] p = new float[inputs * hidden + 2 * hidden + 1];
            for (int i = 0; i < inputs * hidden; i++) {
                p[i] = (float) (rnd.nextGaussian() * Math.sqrt(2.0 / inputs));
            }
            for (int i = 0; i < hidden; i++) {
                p[inputs * hidden + hidden + i] = (float) (rnd.nextGaussian() / Math.sqrt(hidden));
            }
            return new Mlp(inputs, hidden, p);
        }

        /** Adds the squared-error gradients of samples [from, to) to {@code grads}; returns their summed loss. */
        float accumulateGradients(Dataset data, int from, int to, float[] grads) {
            int b1 = inputs * hidden;
            int w2 = b1 + hidden;
            int b2 = w2 + hidden;
            float[] h = new float[hidden];
            float loss = 0;
            for (int i = from; i < to; i++) {
                float[] x = data.x()[i];
                float out = params[b2];
                for (int k = 0; k < hidden; k++) {
                    float z = params[b1 + k];
                    for (int j = 0; j < inputs; j++) {
                        z += params[k * inputs + j] * x[j];
                    }
                    h[k] = Math.max(0f, z);
                    out += params[w2 + k] * h[k];
                }
                float err = out - data.y()[i];
                loss += 0.5f * err * err;
                grads[b2] += err;
                for (int k = 0; k < hidden; k++) {
                    grads[w2 + k] += err * h[k];
                    if (h[k] > 0) {
                        float back = err * params[w2 + k];
                        grads[b1 + k] += back;
                        for (int j = 0; j < inputs; j++) {
                            grads[k * inputs + j] += back * x[j];
                        }
                    }
                }
            }
            return loss;
        }

        void descend(float[] grads, float step) {
            for (int i = 0; i < params.length; i++) {
                params[i] -= step * grads[i];
            }
        }
    }
}
