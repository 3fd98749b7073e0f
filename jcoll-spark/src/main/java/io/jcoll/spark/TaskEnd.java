package io.jcoll.spark;

import io.jcoll.Communicator;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;

/**
 * Ends a task's communicator with the task. Spark calls the listeners when the task ends: a failed task's
 * communicator is aborted (its peers' calls fail at once naming it), every one is then closed, so that no thread,
 * socket or port outlives the task. While the task runs, a watcher aborts the communicator as soon as Spark marks
 * the task killed: Spark kills the rest of a barrier stage when one task fails, but without interrupting them, and
 * a task blocked in a collective would otherwise wait for its timeout.
 */
final class TaskEnd implements TaskCompletionListener, TaskFailureListener, Runnable {

    /** How often the watcher looks at the task's kill flag: a killed task's calls fail within this. */
    private static final long WATCH_MILLIS = 100;

    private final Communicator comm;
    private final BarrierTaskContext task;
    private final Thread watcher;
    private volatile boolean ended;

    private TaskEnd(BarrierTaskContext task, Communicator comm, String stage) {
        this.task = task;
        this.comm = comm;
        this.watcher = new Thread(this, "jcoll-spark-watch-" + stage.replaceAll("\\D+", "-") + "-task" + task.partitionId());
        watcher.setDaemon(true);
    }

    static void watch(BarrierTaskContext task, Communicator comm, String stage) {
        TaskEnd end = new TaskEnd(task, comm, stage);
        task.addTaskFailureListener(end);
        task.addTaskCompletionListener(end);
        end.watcher.start();
    }

    @Override
    public void run() {
        while (!ended) {
            if (task.isInterrupted()) {
                comm.abort("Spark killed the task of partition " + task.partitionId() + ": "
                        + task.getKillReason().getOrElse(() -> "no reason given"));
                return;
            }
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return; // the task ended
            }
        }
    }

    @Override
    public void onTaskFailure(TaskContext context, Throwable error) {
        comm.abort("the task of partition " + task.partitionId() + " failed: " + error);
    }

    @Override
    public void onTaskCompletion(TaskContext context) {
        ended = true;
        watcher.interrupt();
        comm.close();
    }
}
