package io.jcoll.shm.it;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A rank process that runs all-reduces of its rank-dependent values and checks every result, until something
 * goes wrong or {@code rounds} are done. Prints its pid once the first all-reduce is in, and what it caught with
 * the wall-clock time. Arguments: kilobytes per all-reduce, rounds.
 */
public final class LoopingRankMain {

    private LoopingRankMain() {
    }

    public static void main(String[] args) {
        int count = Integer.parseInt(args[0]) * 256;
        long rounds = Long.parseLong(args[1]);
        try (Communicator comm = Jcoll.fromEnvironment()) {
            ByteBuffer data = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            HostBuffer buffer = HostBuffer.of(data, DataType.FLOAT32);
            int n = comm.size();
            try {
                for (long round = 0; round < rounds; round++) {
                    for (int i = 0; i < count; i++) {
                        data.putFloat(i * 4, comm.rank() + (i % 7));
                    }
                    comm.allReduce(buffer, ReduceOp.SUM);
                    for (int i = 0; i < count; i++) {
                        float expected = n * (n - 1) / 2f + n * (i % 7);
                        if (data.getFloat(i * 4) != expected) {
                            System.out.println("WRONG element " + i + ": " + data.getFloat(i * 4) + " != " + expected);
                            System.exit(3);
                        }
                    }
                    if (round == 0) {
                        System.out.println("IN pid=" + ProcessHandle.current().pid() + " transport="
                                + comm.transport().name());
                    }
                }
                System.out.println("DONE");
            } catch (JcollException e) {
                System.out.printf("CAUGHT %s peer=%d at=%d: %s%n", e.getClass().getSimpleName(), e.peer(),
                        System.currentTimeMillis(), e.getMessage());
                System.exit(7);
            }
        }
    }
}
