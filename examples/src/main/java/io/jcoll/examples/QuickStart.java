package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

/**
 * The README's quick start: every rank averages a gradient-sized array with
 * AllReduce. Run it with {@code ./jcoll launch -n 4 -- io.jcoll.examples.QuickStart}.
 */
public final class QuickStart {

    private QuickStart() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {          // RANK, WORLD_SIZE, MASTER_ADDR, ...
            float[] grads = new float[1_000_000];
            java.util.Arrays.fill(grads, comm.rank());                 // rank r contributes r
            comm.allReduce(HostBuffer.of(grads), ReduceOp.AVG);        // in place, on every rank
            float expected = (comm.size() - 1) / 2f;
            if (grads[0] != expected || grads[grads.length - 1] != expected) {
                throw new AssertionError("expected " + expected + ", got " + grads[0]);
            }
            System.out.println("rank " + comm.rank() + " of " + comm.size() + " over " + comm.transport().name()
                    + ": average is " + grads[0]);
        }
    }
}
