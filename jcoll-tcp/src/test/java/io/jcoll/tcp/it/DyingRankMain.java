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
 * A launched rank of a job in which rank {@code args[0]} dies (halts, as a
 * SIGKILL would leave it) in the middle of a large AllReduce. The others print
 * what they caught and exit 7.
 */
public final class DyingRankMain {

    private DyingRankMain() {
    }

    public static void main(String[] args) throws Exception {
        int victim = Integer.parseInt(args[0]);
        try (Communicator comm = Jcoll.fromEnvironment()) {
            ByteBuffer data = ByteBuffer.allocateDirect(64 << 20).order(ByteOrder.nativeOrder());
            comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM); // warm: all ranks are in
            if (comm.rank() == victim) {
                Thread killer = new Thread(() -> {
                    sleep(20);
                    Runtime.getRuntime().halt(42);
                });
                killer.start();
            }
            long start = System.nanoTime();
            try {
                for (int i = 0; i < 1000; i++) {
                    comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM);
                }
                System.out.println("no failure seen");
                System.exit(0);
            } catch (JcollException e) {
                System.out.printf("CAUGHT %s peer=%d after %.3f s: %s%n", e.getClass().getSimpleName(), e.peer(),
                        (System.nanoTime() - start) / 1e9, e.getMessage());
                System.exit(7);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
