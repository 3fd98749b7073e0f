package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;

/**
 * The process rank of {@link ShmMixedRanksTest}: joins the communicator its environment names (whose other ranks
 * are threads of the test's JVM) and runs the same cases as they do, each checked against the reference. Prints
 * its network, then {@code HASH h} (its all-reduce outputs' bits, folded) and {@code DONE}; on a wrong result or a
 * failure, {@code FAILED} and what went wrong, and exits 3. Arguments: the seed and the number of mixed calls.
 */
public final class MixedProcessRank {

    private MixedProcessRank() {
    }

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int calls = Integer.parseInt(args[1]);
        try (Communicator comm = Jcoll.fromEnvironment()) {
            System.out.println("NETWORK " + comm.network().summary());
            System.out.println("HASH " + ShmMixedRanksTest.run(comm, ShmMixedRanksTest.cases(comm.size(), seed, calls)));
            System.out.println("DONE");
        } catch (RuntimeException | AssertionError e) {
            System.out.println("FAILED " + e);
            System.exit(3);
        }
    }
}
