package io.jcoll.spark;

import io.jcoll.Communicator;

import java.io.Serializable;
import java.util.Iterator;

/**
 * The work of one task of a barrier stage, given its partition's rows and the stage's communicator
 * ({@link SparkJcoll#run}). Spark ships it to the executors, so it must be serializable, as every Spark closure is.
 *
 * @param <T> the rows' type
 * @param <R> what each task returns to the driver
 */
@FunctionalInterface
public interface BarrierTask<T, R> extends Serializable {

    /**
     * Runs on every task at once.
     *
     * @param rows this task's partition
     * @param comm the communicator of all the stage's tasks, rank = partition id; closed when this returns
     * @return this task's result, collected at the driver by rank
     * @throws Exception anything: the stage fails, and Spark retries it with a fresh communicator
     */
    R run(Iterator<T> rows, Communicator comm) throws Exception;
}
