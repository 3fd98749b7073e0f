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
 * A rank process that runs all-reduces (or all-to-alls) of its rank-dependent values and checks every result,
 * until something goes wrong or {@code rounds} are done. Prints its pid and its network once the first call is
 * in, and what it caught with the wall-clock time. Arguments: kilobytes per call, rounds, and optionally
 * {@code alltoall}, {@code alltoall-in-place}, {@code gather} (to rank 0, each rank the first block of its
 * values, the output the call's size) or {@code broadcast} (from rank 0, in place: its receivers wait on it alone).
 */
public final class LoopingRankMain {

    private LoopingRankMain() {
    }

    public static void main(String[] args) {
        int count = Integer.parseInt(args[0]) * 256;
        long rounds = Long.parseLong(args[1]);
        boolean allToAll = args.length > 2 && args[2].startsWith("alltoall");
        boolean inPlace = args.length > 2 && args[2].equals("alltoall-in-place");
        boolean broadcast = args.length > 2 && args[2].equals("broadcast");
        boolean gather = args.length > 2 && args[2].equals("gather");
        try (Communicator comm = Jcoll.fromEnvironment()) {
            ByteBuffer data = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            ByteBuffer out = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            HostBuffer buffer = HostBuffer.of(data, DataType.FLOAT32);
            int n = comm.size();
            int block = count / n;
            int me = comm.rank();
            try {
                for (long round = 0; round < rounds; round++) {
                    for (int i = 0; i < count; i++) {
                        data.putFloat(i * 4, me + (i % 7) + (round % 5));
                    }
                    if (broadcast) {
                        comm.broadcast(buffer, 0);
                    } else if (inPlace) {
                        comm.allToAll(buffer, block);
                    } else if (gather) {
                        comm.gather(HostBuffer.of(data.slice(0, block * 4), DataType.FLOAT32),
                                me == 0 ? HostBuffer.of(out, DataType.FLOAT32) : null, block, 0);
                    } else if (allToAll) {
                        comm.allToAll(buffer, HostBuffer.of(out, DataType.FLOAT32), block);
                    } else {
                        comm.allReduce(buffer, ReduceOp.SUM);
                    }
                    int checked = gather && me != 0 ? 0 : allToAll || gather ? block * n : count;
                    for (int i = 0; i < checked; i++) {
                        // all-to-all: element i comes from rank i / block, its block for this rank; gather: from
                        // rank i / block, the first block of its values
                        float expected = allToAll ? i / block + ((me * block + i % block) % 7) + (round % 5)
                                : gather ? i / block + ((i % block) % 7) + (round % 5)
                                : broadcast ? (i % 7) + (round % 5) // rank 0's values
                                : n * (n - 1) / 2f + n * (i % 7) + n * (round % 5);
                        float got = (allToAll && !inPlace || gather ? out : data).getFloat(i * 4);
                        if (got != expected) {
                            System.out.println("WRONG element " + i + ": " + got + " != " + expected);
                            System.exit(3);
                        }
                    }
                    if (round == 0) {
                        System.out.println("IN pid=" + ProcessHandle.current().pid() + " transport="
                                + comm.transport().name() + " network=" + comm.network().summary());
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
