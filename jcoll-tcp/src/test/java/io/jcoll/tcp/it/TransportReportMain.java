package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

/** A launched rank that runs one AllReduce and prints what {@code comm.transport()} says. */
public final class TransportReportMain {

    private TransportReportMain() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            comm.allReduce(HostBuffer.of(new float[] {1}), ReduceOp.SUM);
            System.out.println("rank " + comm.rank() + " transport: " + comm.transport());
        }
    }
}
