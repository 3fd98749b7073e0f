package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spark.SparkJcoll;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Logistic regression trained by data-parallel mini-batch SGD inside one Spark barrier stage: each task is a rank
 * holding one partition of a DataFrame; every step each rank sums the loss gradient over its rows of the step's
 * batch, and one AllReduce adds up the gradients, the loss and the row count of all ranks, so that every rank takes
 * the same step, the one a single process over the whole batch would take. Sums and a count, not averages: the
 * partitions need not be equal.
 *
 * <p>{@code --check} trains the same model in this one process on all the data and requires the loss curve to
 * agree within 1e-6, and the weights to be bit-identical on every rank; it also fits Spark MLlib's
 * {@code LogisticRegression} on the same DataFrame and requires the two accuracies to be close.
 * {@code --tasks N} sets the number of tasks (ranks; default: Spark's default parallelism, one per core).
 * {@code --fail-once} makes rank 2 throw in the middle of the first attempt: the stage fails, Spark retries it, and
 * the retry trains from the start with a fresh communicator.
 *
 * <pre>
 * ./jcoll spark io.jcoll.examples.SparkDataParallel --check          # local[4,2], 4 tasks in this JVM
 * spark-submit --master spark://host:7077 --class io.jcoll.examples.SparkDataParallel \
 *   --jars jcoll-api.jar,jcoll-tcp.jar,jcoll-shm.jar,jcoll-spark.jar examples.jar --check
 * </pre>
 */
public final class SparkDataParallel {

    static final int FEATURES = 8;
    static final int ROWS = 20_000;
    static final int BATCHES = 8;          // step t trains on the rows whose id is t mod 8: wherever they lie
    static final int STEPS = 120;
    static final double LEARNING_RATE = 0.5;

    private SparkDataParallel() {
    }

    /** What each rank brings back to the driver. */
    record Trained(int rank, int attempt, double[] weights, double[] losses, String transport) implements Serializable {
    }

    public static void main(String[] args) {
        List<String> flags = Arrays.asList(args);
        SparkConf conf = new SparkConf().setAppName("jcoll SparkDataParallel");
        if (!conf.contains("spark.master")) {   // spark-submit sets it; the plain java command runs in local mode
            conf.setMaster("local[4,2]").set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1");
        }
        SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
        spark.sparkContext().setLogLevel("WARN"); // Spark's INFO lines (and jcoll's, naming each task's transport) off
        try {
            // one task per free slot unless told: a barrier stage's tasks must all run at once
            int at = flags.indexOf("--tasks");
            int tasks = at >= 0 && at + 1 < flags.size() ? Integer.parseInt(flags.get(at + 1))
                    : spark.sparkContext().defaultParallelism();
            Dataset<Row> data = spark.createDataFrame(synthetic(ROWS, FEATURES, 42), schema()).repartition(tasks);
            boolean failOnce = flags.contains("--fail-once");

            List<Trained> ranks = SparkJcoll.run(data.javaRDD(), Map.of(), (rows, comm) -> train(rows, comm, failOnce));

            Trained first = ranks.get(0);
            for (int s = 0; s < STEPS; s += 20) {
                System.out.printf("step %3d  loss %.6f%n", s, first.losses()[s]);
            }
            System.out.printf("step %3d  loss %.6f%n", STEPS - 1, first.losses()[STEPS - 1]);
            System.out.printf("%d tasks over %s, stage attempt %d%n", ranks.size(), first.transport(), first.attempt());
            for (Trained r : ranks) {
                if (!Arrays.equals(r.weights(), first.weights())) {
                    throw new AssertionError("rank " + r.rank() + "'s weights differ from rank 0's");
                }
            }
            double ours = accuracy(first.weights(), data.collectAsList());
            LogisticRegressionModel mllib = new LogisticRegression().setMaxIter(100).setRegParam(0).fit(data);
            double theirs = accuracy(mllib, data.collectAsList());
            System.out.printf("accuracy %.4f (jcoll data-parallel SGD, %d steps), Spark MLlib LogisticRegression %.4f%n",
                    ours, STEPS, theirs);
            if (flags.contains("--check")) {
                double worst = worstDifference(first.losses(), oneProcess(data.collectAsList()));
                if (worst > 1e-6) {
                    throw new AssertionError("the loss curve differs from one process on all the data by " + worst);
                }
                if (Math.abs(ours - theirs) > 0.02) {
                    throw new AssertionError("accuracy " + ours + " is far from MLlib's " + theirs);
                }
                System.out.printf("loss curve equal to one process's within %.1e; weights identical on all %d ranks%n",
                        worst, ranks.size());
            }
        } finally {
            spark.stop();
        }
    }

    /** One rank's training: its partition held in memory, {@link #STEPS} steps, one AllReduce each. */
    static Trained train(Iterator<Row> rows, Communicator comm, boolean failOnce) {
        int attempt = BarrierTaskContext.get().stageAttemptNumber();
        List<Row> mine = new ArrayList<>();
        rows.forEachRemaining(mine::add);
        double[] w = new double[FEATURES + 1];            // weights, then the bias: zero on every rank
        double[] sums = new double[FEATURES + 3];         // gradient, then loss sum and row count, summed across ranks
        double[] losses = new double[STEPS];
        for (int step = 0; step < STEPS; step++) {
            if (failOnce && attempt == 0 && comm.rank() == 2 && step == STEPS / 2) {
                throw new IllegalStateException("--fail-once: rank 2 fails at step " + step + " of the first attempt");
            }
            Arrays.fill(sums, 0);
            for (Row r : mine) {
                if (r.getLong(0) % BATCHES == step % BATCHES) {
                    accumulate(w, (Vector) r.get(1), r.getDouble(2), sums);
                }
            }
            comm.allReduce(HostBuffer.of(sums), HostBuffer.of(sums), sums.length, ReduceOp.SUM);
            losses[step] = descend(w, sums);
        }
        return new Trained(comm.rank(), attempt, w, losses, comm.transport().name());
    }

    /** Adds one row's logistic-loss gradient, loss and count to {@code sums}. */
    static void accumulate(double[] w, Vector x, double label, double[] sums) {
        double z = w[FEATURES];
        for (int j = 0; j < FEATURES; j++) {
            z += w[j] * x.apply(j);
        }
        double p = 1 / (1 + Math.exp(-z));
        for (int j = 0; j < FEATURES; j++) {
            sums[j] += (p - label) * x.apply(j);
        }
        sums[FEATURES] += p - label;
        // log(1 + e^z) - label * z, written to stay finite for large |z|
        sums[FEATURES + 1] += Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - label * z;
        sums[FEATURES + 2] += 1;
    }

    /** One step along the batch's mean gradient; returns the batch's mean loss before it. */
    static double descend(double[] w, double[] sums) {
        double rows = sums[FEATURES + 2];
        for (int j = 0; j <= FEATURES; j++) {
            w[j] -= LEARNING_RATE * sums[j] / rows;
        }
        return sums[FEATURES + 1] / rows;
    }

    /** The same training in this one process over all the rows: the reference for the loss curve. */
    static double[] oneProcess(List<Row> all) {
        double[] w = new double[FEATURES + 1];
        double[] sums = new double[FEATURES + 3];
        double[] losses = new double[STEPS];
        for (int step = 0; step < STEPS; step++) {
            Arrays.fill(sums, 0);
            for (Row r : all) {
                if (r.getLong(0) % BATCHES == step % BATCHES) {
                    accumulate(w, (Vector) r.get(1), r.getDouble(2), sums);
                }
            }
            losses[step] = descend(w, sums);
        }
        return losses;
    }

    static double worstDifference(double[] a, double[] b) {
        double worst = 0;
        for (int i = 0; i < a.length; i++) {
            worst = Math.max(worst, Math.abs(a[i] - b[i]));
        }
        return worst;
    }

    static double accuracy(double[] w, List<Row> rows) {
        int right = 0;
        for (Row r : rows) {
            Vector x = (Vector) r.get(1);
            double z = w[FEATURES];
            for (int j = 0; j < FEATURES; j++) {
                z += w[j] * x.apply(j);
            }
            right += (z > 0 ? 1.0 : 0.0) == r.getDouble(2) ? 1 : 0;
        }
        return (double) right / rows.size();
    }

    static double accuracy(LogisticRegressionModel model, List<Row> rows) {
        int right = 0;
        for (Row r : rows) {
            right += model.predict((Vector) r.get(1)) == r.getDouble(2) ? 1 : 0;
        }
        return (double) right / rows.size();
    }

    static StructType schema() {
        return new StructType().add("id", DataTypes.LongType).add("features", new VectorUDT())
                .add("label", DataTypes.DoubleType);
    }

    /** Rows whose labels a hidden logistic model draws: features standard normal, the label 1 with its probability. */
    static List<Row> synthetic(int n, int features, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] truth = new double[features];
        for (int j = 0; j < features; j++) {
            truth[j] = random.nextDouble(-2, 2);
        }
        List<Row> rows = new ArrayList<>(n);
        for (long id = 0; id < n; id++) {
            double[] x = new double[features];
            double z = 0.3;
            for (int j = 0; j < features; j++) {
                x[j] = gaussian(random);
                z += truth[j] * x[j];
            }
            double label = random.nextDouble() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
            rows.add(RowFactory.create(id, Vectors.dense(x), label));
        }
        return rows;
    }

    private static double gaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();   // (0, 1]: Box-Muller's logarithm stays finite
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
