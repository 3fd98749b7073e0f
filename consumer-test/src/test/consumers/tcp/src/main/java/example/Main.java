package example;

import io.jcoll.*;

public class Main {
    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {          // RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
            float[] grads = new float[1_000_000];
            java.util.Arrays.fill(grads, comm.rank());
            comm.allReduce(HostBuffer.of(grads), ReduceOp.AVG);        // in place, on every rank
            System.out.println(comm.rank() + "/" + comm.size() + " via " + comm.transport());
            System.out.println("average " + grads[0] + " at the first element, " + grads[grads.length - 1] + " at the last");
        }
    }
}
