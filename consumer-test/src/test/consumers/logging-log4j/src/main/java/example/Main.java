package example;

import io.jcoll.*;

/** A one-rank job that aborts: jcoll logs where it wrote its flight recorder, through the application's logging. */
public class Main {
    public static void main(String[] args) {
        try (Communicator comm = Jcoll.builder().rank(0).size(1).transport("tcp").build()) {
            comm.allReduce(HostBuffer.of(new float[4]), ReduceOp.SUM);
            comm.abort("the consumer test aborts");
        }
    }
}
