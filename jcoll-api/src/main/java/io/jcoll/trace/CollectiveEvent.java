package io.jcoll.trace;

import io.jcoll.spi.Call;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One call of a communicator, as a JDK Flight Recorder event ({@value #NAME}): its duration is the call's, from
 * the moment it starts on the transport to its end (for a GPU transport, to when its completion is observed).
 * Recorded when a recording enables it, as the JDK's own profiles do for every event without settings of its own;
 * {@code jcoll.jfc} in the repository turns it on alone. Free while no recording runs: the communicator asks
 * {@link #enabled()} (a field read) before it makes one.
 */
@Name(CollectiveEvent.NAME)
@Label("Collective")
@Category({"jcoll"})
@Description("A communicator's call: a collective, a send or recv, a group")
@StackTrace(false)
public final class CollectiveEvent extends Event {

    /** The event's name in recordings and settings files. */
    public static final String NAME = "io.jcoll.Collective";

    private static final CollectiveEvent PROBE = new CollectiveEvent();

    @Label("Operation")
    public String operation;

    @Label("Call")
    @Description("The call as messages describe it: allReduce #12 (1000 x float32, sum)")
    public String call;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Type")
    public String type;

    @Label("Transport")
    public String transport;

    @Label("Algorithm")
    @Description("How the transport runs it; empty where NCCL or MPI decide inside")
    public String algorithm;

    @Label("Communicator")
    @Description("world, or world/split#3(color 1) for one split from it")
    public String communicator;

    @Label("Rank")
    @Description("This process's rank in the job")
    public int rank;

    @Label("Sequence")
    @Description("The collective's number in its communicator, the same on every rank; -1 for send and recv")
    public long sequence;

    @Label("Completed")
    public boolean completed;

    /** Whether a recording wants these events now (cheap: no event is made when not). */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /** A started event, or null while no recording wants one. */
    public static CollectiveEvent startIfEnabled() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        CollectiveEvent e = new CollectiveEvent();
        e.begin();
        return e;
    }

    /**
     * Ends {@code event} (null: nothing) and commits it with the call's facts, if its duration passes the
     * recording's threshold.
     */
    public static void finish(CollectiveEvent event, Call call, String algorithm, String transport,
                              String communicator, int jobRank, boolean completed) {
        if (event == null) {
            return;
        }
        event.end();
        if (!event.shouldCommit()) {
            return;
        }
        event.operation = call.operation().label();
        event.call = call.describe();
        event.bytes = FlightRecorder.bytes(call);
        event.type = call.members().isEmpty() ? call.type().toString() : "";
        event.transport = transport;
        event.algorithm = algorithm == null ? "" : algorithm;
        event.communicator = communicator;
        event.rank = jobRank;
        event.sequence = call.sequence();
        event.completed = completed;
        event.commit();
    }
}
