package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;

/**
 * A launched rank that runs 1 MB AllReduces until something fails: prints "IN" once every rank is in, and on the
 * failure "CAUGHT", the exception, the peer it names and the epoch millisecond, then exits 7 (a partition drill).
 */
public final class LoopMain {

    private LoopMain() {
    }

    public static void main(String[] args) {
        Communicator comm = Jcoll.fromEnvironment();
        float[] data = new float[256 << 10];
        comm.allReduce(HostBuffer.of(data), ReduceOp.SUM);
        System.out.println("rank " + comm.rank() + " IN");
        try {
            for (long i = 0; ; i++) {
                comm.allReduce(HostBuffer.of(data), ReduceOp.SUM);
            }
        } catch (JcollException e) {
            System.out.println("CAUGHT " + e.getClass().getSimpleName() + " peer=" + e.peer() + " at="
                    + System.currentTimeMillis() + ": " + e.getMessage());
        }
        comm.abort();
        System.out.println("rank " + comm.rank() + " EXIT at=" + System.currentTimeMillis());
        System.exit(7);
    }
}
