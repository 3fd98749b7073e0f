package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A launched rank that runs large AllReduces until something goes wrong, for a
 * test that signals one of the ranks from outside (SIGKILL, SIGSTOP). Prints its
 * pid once every rank is in, and what it caught with the wall-clock time.
 * Argument: megabytes per AllReduce.
 */
public final class SignalledRankMain {

    private SignalledRankMain() {
    }

    public static void main(String[] args) {
        int megabytes = Integer.parseInt(args[0]);
        try (Communicator comm = Jcoll.fromEnvironment()) {
            ByteBuffer data = ByteBuffer.allocateDirect(megabytes << 20).order(ByteOrder.nativeOrder());
            HostBuffer buffer = HostBuffer.of(data, DataType.FLOAT32);
            comm.allReduce(buffer, ReduceOp.SUM); // every rank is in, and the connections are warm
            System.out.println("IN pid=" + ProcessHandle.current().pid());
            try {
                for (int i = 0; i < 100_000; i++) {
                    comm.allReduce(buffer, ReduceOp.SUM);
                }
                System.out.println("no failure seen");
                System.exit(0);
            } catch (JcollException e) {
                System.out.printf("CAUGHT %s peer=%d at=%d: %s%n", e.getClass().getSimpleName(), e.peer(),
                        System.currentTimeMillis(), e.getMessage());
                System.exit(7);
            }
        }
    }
}
