package io.jcoll.spark;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.spi.Settings;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.resource.ResourceInformation;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Communicators for the tasks of an Apache Spark barrier stage: the stage's tasks are the job's ranks, with nothing
 * else to start or configure.
 *
 * <pre>{@code
 * // Java: one call runs a function on every partition at once, each with its communicator
 * List<double[]> weights = SparkJcoll.run(rows.javaRDD(), (partition, comm) -> train(partition, comm));
 *
 * // Scala, or inside an RDD's barrier().mapPartitions of one's own
 * rdd.barrier().mapPartitions { rows =>
 *   val comm = SparkJcoll.communicator(BarrierTaskContext.get())  // closed when the task ends
 *   ...
 * }
 * }</pre>
 *
 * <p>Rank is the task's partition id and size the number of tasks. Rank 0 hosts the rendezvous store on a free port
 * and hands its address and a fresh token to the other tasks through the stage's {@code allGather}, so no port is
 * fixed or open before the stage starts. Tasks whose executors share a host share a host in jcoll (local rank and
 * size, shared memory). A task given GPUs by Spark's resource scheduling ({@code spark.task.resource.gpu.amount})
 * drives the first of them ({@code JCOLL_DEVICE}). The transport is chosen as everywhere: NCCL when every task has
 * a GPU and {@code io.jcoll:jcoll-nccl} is on the class path, shared memory or TCP otherwise; the task's log says
 * which and why.
 *
 * <p>When the task ends, its communicator is closed (aborted when it failed, so that the other tasks' calls fail at
 * once instead of waiting for it), and when Spark kills the task (another task of the stage failed) its calls fail
 * within a fraction of a second: Spark then retries the whole stage, which forms a fresh communicator. A task that
 * stops responding without failing makes the others fail within {@code JCOLL_TIMEOUT}.
 *
 * <p>Settings: the executors' environment ({@code spark.executorEnv.JCOLL_TIMEOUT=60s}, ...) and, overriding it, the
 * map given here, by jcoll's variable names. Rank, size and the rendezvous are always the stage's.
 */
public final class SparkJcoll {

    private static final System.Logger LOG = System.getLogger(SparkJcoll.class.getName());

    private SparkJcoll() {
    }

    /**
     * This task's communicator among all the tasks of its barrier stage; every task must call it, once, at the same
     * point. Blocks until every task has arrived (within {@code JCOLL_TIMEOUT}).
     *
     * @param task {@code BarrierTaskContext.get()}
     * @return the communicator, closed by jcoll when the task ends
     */
    public static Communicator communicator(BarrierTaskContext task) {
        return communicator(task, Map.of());
    }

    /**
     * As {@link #communicator(BarrierTaskContext)}, with jcoll settings by their variable names
     * ({@code JCOLL_TIMEOUT}, {@code JCOLL_TRANSPORT}, ...) over the executor's environment.
     *
     * @param task     {@code BarrierTaskContext.get()}
     * @param settings jcoll settings for this communicator
     * @return the communicator, closed by jcoll when the task ends
     */
    public static Communicator communicator(BarrierTaskContext task, Map<String, String> settings) {
        TaskPlacement place = TaskPlacement.of(addresses(task), task.partitionId());
        String stage = "Spark barrier stage " + task.stageId() + " (attempt " + task.stageAttemptNumber() + ")";
        String gpu = assignedGpu(task);
        Jcoll.Builder builder = Jcoll.builder();
        taskSettings(place, gpu, settings, Settings.fromEnvironment()).forEach(builder::set);
        Communicator comm = builder.rendezvous(stage, new AllGatherExchange(task)).build();
        TaskEnd.watch(task, comm, stage);
        LOG.log(System.Logger.Level.INFO, () -> stage + ", partition " + place.rank() + ": rank " + place.rank()
                + " of " + place.size() + " (" + place.localRank() + " of " + place.localSize() + " on "
                + place.host() + ")" + (gpu == null ? "" : ", GPU " + gpu) + ", transport " + comm.transport());
        return comm;
    }

    /**
     * Runs {@code work} on every partition of {@code data} at once, in one barrier stage, each task with the stage's
     * communicator; returns the tasks' results by rank. The Java face of {@code data.rdd().barrier().mapPartitions}.
     * A failed task fails the stage and Spark retries the whole stage, each attempt with a fresh communicator (up to
     * {@code spark.stage.maxConsecutiveAttempts} times; in local mode give the master a task failure count too,
     * {@code local[4,2]}). The results reach the driver through a one-partition shuffle, which makes the barrier
     * stage one Spark retries: a barrier stage whose output is the job's result ({@code barrier().mapPartitions(..)
     * .collect()}) fails the job at its first failed task.
     *
     * @param data the partitions, one task (rank) each; all of them must fit in the cluster's free task slots at once
     * @param work what each task does
     * @param <T>  the rows' type
     * @param <R>  each task's result
     * @return the results, by rank
     */
    public static <T, R> List<R> run(JavaRDD<T> data, BarrierTask<T, R> work) {
        return run(data, Map.of(), work);
    }

    /**
     * As {@link #run(JavaRDD, BarrierTask)}, with jcoll settings by their variable names for every task.
     *
     * @param data     the partitions, one task (rank) each
     * @param settings jcoll settings for the tasks' communicators
     * @param work     what each task does
     * @param <T>      the rows' type
     * @param <R>      each task's result
     * @return the results, by rank
     */
    public static <T, R> List<R> run(JavaRDD<T> data, Map<String, String> settings, BarrierTask<T, R> work) {
        @SuppressWarnings("unchecked")
        ClassTag<Tuple2<Integer, R>> pair = (ClassTag<Tuple2<Integer, R>>) (ClassTag<?>) ClassTag$.MODULE$.apply(Tuple2.class);
        @SuppressWarnings("unchecked")
        ClassTag<R> any = (ClassTag<R>) ClassTag$.MODULE$.AnyRef();
        RDD<Tuple2<Integer, R>> ranked = data.rdd().barrier()
                .mapPartitions(new TaskBody<>(new TreeMap<>(settings), work), false, pair);
        // through a one-partition shuffle: Spark retries a failed barrier stage only when it is a shuffle-map stage
        // (a failed barrier result stage fails the job, as its output may be committed already)
        List<Tuple2<Integer, R>> results = new ArrayList<>(JavaPairRDD.fromRDD(ranked, ClassTag$.MODULE$.apply(Integer.class), any)
                .partitionBy(new HashPartitioner(1)).collect());
        results.sort(Comparator.comparing(Tuple2::_1));
        List<R> byRank = new ArrayList<>();
        results.forEach(r -> byRank.add(r._2()));
        return byRank;
    }

    private static List<String> addresses(BarrierTaskContext task) {
        List<String> out = new ArrayList<>();
        for (BarrierTaskInfo info : task.getTaskInfos()) {
            out.add(info.address());
        }
        return out;
    }

    /** The GPU Spark assigned this task (the first where it assigned several), or null. */
    static String assignedGpu(BarrierTaskContext task) {
        ResourceInformation gpus = task.resourcesJMap().get("gpu");
        if (gpus == null || gpus.addresses().length == 0) {
            return null;
        }
        String first = gpus.addresses()[0].strip();
        if (!first.matches("\\d{1,4}")) {
            throw new IllegalArgumentException("Spark assigned partition " + task.partitionId() + " the GPU '" + first
                    + "'; jcoll needs a CUDA device index (make the GPU discovery script print indices, as Spark's "
                    + "getGpusResources.sh does)");
        }
        if (gpus.addresses().length > 1) {
            LOG.log(System.Logger.Level.INFO, () -> "partition " + task.partitionId() + " was given GPUs "
                    + String.join(",", gpus.addresses()) + "; its rank drives GPU " + first);
        }
        return first;
    }

    /**
     * The settings a task's communicator is built with: the caller's, then the stage's place for the task (always
     * Spark's: rank, size, local rank and size), then what Spark knows and the caller and the executor's environment
     * did not say: the host as Spark names it (so that the local ranks jcoll counts agree with the stage's), where
     * the ranks reach rank 0 when the stage spans hosts (partition 0's executor host, as the driver reaches it), and
     * the GPU Spark assigned.
     */
    static Map<String, String> taskSettings(TaskPlacement place, String gpu, Map<String, String> settings,
                                            Settings environment) {
        Map<String, String> out = new TreeMap<>(settings);
        out.put("JCOLL_RANK", Integer.toString(place.rank()));
        out.put("JCOLL_WORLD_SIZE", Integer.toString(place.size()));
        out.put("JCOLL_LOCAL_RANK", Integer.toString(place.localRank()));
        out.put("JCOLL_LOCAL_WORLD_SIZE", Integer.toString(place.localSize()));
        putUnlessGiven(out, "JCOLL_HOST_ID", place.host(), environment);
        if (!place.oneHost()) {
            putUnlessGiven(out, "JCOLL_ADVERTISE_ADDR", place.rankZeroHost(), environment);
        }
        if (gpu != null) {
            putUnlessGiven(out, "JCOLL_DEVICE", gpu, environment);
        }
        return out;
    }

    private static void putUnlessGiven(Map<String, String> out, String name, String value, Settings environment) {
        if (!out.containsKey(name) && environment.get(name).isEmpty()) {
            out.put(name, value);
        }
    }
}
