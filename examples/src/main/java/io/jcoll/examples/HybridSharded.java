package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ProcessMesh;
import io.jcoll.ReduceOp;

import java.util.Arrays;

/**
 * Hybrid sharded data parallelism (HSDP, FSDP's {@code HYBRID_SHARD}): the ranks form {@code replicas x shards}
 * (4 ranks: 2 x 2). Inside a shard group the parameters are sharded: each step AllGathers them, computes the
 * local batch's gradient, and ReduceScatters it so that each rank gets its shard's gradient; across the
 * replica groups the ranks holding the same shard then AllReduce that shard's gradient, and each updates its
 * own shard. Memory per rank is a shard; traffic between replica groups is a shard's gradient per rank. Rank 0
 * also runs the same SGD unsharded in one process on whole batches: the parameters must agree.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.HybridSharded
 * </pre>
 */
public final class HybridSharded {

    static final int FEATURES = 256;
    static final int SAMPLES = 1024;
    static final int BATCH = 128;
    static final int STEPS = 50;
    static final float LEARNING_RATE = 0.5f;

    private HybridSharded() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int shards = comm.size() % 2 == 0 ? 2 : 1;
            int replicas = comm.size() / shards;
            float[][] x = Synthetic.matrix(SAMPLES, FEATURES, 11);
            float[] y = targets(x);
            int shard = FEATURES / shards;
            float[] weights = new float[FEATURES];
            try (ProcessMesh mesh = comm.mesh(replicas, shards)) {
                Communicator shardGroup = mesh.along(1);    // the ranks that together hold one copy of the model
                Communicator replicaGroup = mesh.along(0);  // the ranks that hold the same shard
                float[] mine = new float[shard];            // this rank's shard: all it keeps between steps
                float[] grads = new float[FEATURES];
                float[] myGrad = new float[shard];
                int workers = comm.size();
                int worker = replicaGroup.rank() * shards + shardGroup.rank();
                for (int step = 0; step < STEPS; step++) {
                    shardGroup.allGather(HostBuffer.of(mine), HostBuffer.of(weights), shard);
                    int first = (step * BATCH) % SAMPLES;
                    Arrays.fill(grads, 0f);
                    ShardedTraining.gradient(x, y, weights, first + worker * BATCH / workers,
                            first + (worker + 1) * BATCH / workers, grads);
                    shardGroup.reduceScatter(HostBuffer.of(grads), HostBuffer.of(myGrad), shard, ReduceOp.SUM);
                    replicaGroup.allReduce(HostBuffer.of(myGrad), ReduceOp.SUM);
                    for (int i = 0; i < shard; i++) {
                        mine[i] -= LEARNING_RATE * myGrad[i] / BATCH;
                    }
                }
                shardGroup.allGather(HostBuffer.of(mine), HostBuffer.of(weights), shard);
            }
            if (comm.rank() == 0) {
                float[] reference = oneProcess(x, y);
                double worst = 0;
                for (int i = 0; i < FEATURES; i++) {
                    worst = Math.max(worst, Math.abs(weights[i] - reference[i]));
                }
                if (worst > 1e-4) {
                    throw new AssertionError("parameters differ from the unsharded run by up to " + worst);
                }
                System.out.println("hybrid sharded (" + replicas + " replicas x " + shards + " shards): " + STEPS
                        + " steps, parameters equal to the unsharded run (largest difference "
                        + String.format("%.1e", worst) + "), over " + comm.transport().name());
            }
        }
    }

    static float[] targets(float[][] x) {
        float[] truth = Synthetic.matrix(1, FEATURES, 12)[0];
        float[] y = new float[x.length];
        for (int s = 0; s < x.length; s++) {
            for (int i = 0; i < FEATURES; i++) {
                y[s] += truth[i] * x[s][i];
            }
        }
        return y;
    }

    static float[] oneProcess(float[][] x, float[] y) {
        float[] w = new float[FEATURES];
        float[] grads = new float[FEATURES];
        for (int step = 0; step < STEPS; step++) {
            int first = (step * BATCH) % SAMPLES;
            Arrays.fill(grads, 0f);
            ShardedTraining.gradient(x, y, w, first, first + BATCH, grads);
            for (int i = 0; i < FEATURES; i++) {
                w[i] -= LEARNING_RATE * grads[i] / BATCH;
            }
        }
        return w;
    }
}
