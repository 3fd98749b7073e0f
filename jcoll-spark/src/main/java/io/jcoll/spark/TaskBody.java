package io.jcoll.spark;

import io.jcoll.Communicator;
import org.apache.spark.BarrierTaskContext;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What {@link SparkJcoll#run} has Spark run on each partition of its barrier stage: form the communicator, run the
 * user's task over the partition's rows, return the task's one result with its rank. The communicator ends with the
 * task ({@link TaskEnd}: aborted when the task failed, so that the other tasks fail at once, then closed).
 */
final class TaskBody<T, R> extends AbstractFunction1<Iterator<T>, Iterator<Tuple2<Integer, R>>> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Map<String, String> settings;
    private final BarrierTask<T, R> work;

    TaskBody(Map<String, String> settings, BarrierTask<T, R> work) {
        this.settings = settings;
        this.work = work;
    }

    @Override
    public Iterator<Tuple2<Integer, R>> apply(Iterator<T> rows) {
        Communicator comm = SparkJcoll.communicator(BarrierTaskContext.get(), settings);
        try {
            R result = work.run(CollectionConverters.asJava(rows), comm);
            return CollectionConverters.asScala(List.of(new Tuple2<>(comm.rank(), result)).iterator());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new TaskFailedException(e);
        }
    }

    /** A checked exception out of the user's task, carried through Spark's unchecked world. */
    static final class TaskFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TaskFailedException(Exception cause) {
            super(cause.toString(), cause);
        }
    }
}
