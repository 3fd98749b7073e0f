/**
 * jcoll inside Apache Spark: the tasks of a barrier stage form a communicator ({@link io.jcoll.spark.SparkJcoll}).
 * {@link io.jcoll.spark.TaskPlacement} reads a task's place from what Spark tells every task,
 * {@link io.jcoll.spark.AllGatherExchange} carries rank 0's rendezvous address over the stage's {@code allGather},
 * and {@link io.jcoll.spark.TaskEnd} ends the communicator with its task.
 *
 * <p>Tested with Spark 4.0 in local mode ({@code local[4,3]}: tasks as threads of one JVM) and in
 * {@code local-cluster[2,2,1024]} mode, where a standalone master and two workers in the test's JVM start two
 * executor JVMs: that works from Maven dependencies alone once {@code SPARK_HOME} names a directory with an empty
 * {@code jars/} (the workers build the executors' command from it), {@code SPARK_SCALA_VERSION} is set, and the
 * executors get the test's class path through {@code spark.executor.extraClassPath}. There each worker announces two
 * GPUs (a discovery script), so that Spark assigns each task one, as on a GPU cluster. Spark 4.0 runs on Java 17 to
 * 22: its Hadoop client calls {@code Subject.getSubject}, which Java 23 and later refuse, so the Spark tests are
 * skipped on Java 25.
 */
package io.jcoll.spark;
