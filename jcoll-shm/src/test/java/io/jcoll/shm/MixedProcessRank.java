package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.testing.Case;

import java.util.List;

/**
 * The process rank of {@link ShmMixedRanksTest}: joins the communicator its environment names (whose other ranks
 * are threads of the test's JVM) and runs the same cases as they do, each checked against the reference. Prints
 * its network, then {@code HASH h} (its all-reduce outputs' bits, folded) and {@code DONE}; on a wrong result or a
 * failure, {@code FAILED} and what went wrong, and exits 3. Arguments: the seed, the number of mixed calls, and how
 * many times to run them (1 unless given).
 */
public final class MixedProcessRank {

    private MixedProcessRank() {
    }

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int calls = Integer.parseInt(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            System.out.println("NETWORK " + comm.network().summary());
            List<Case> cases = ShmSoakTest.cases(comm.size(), calls, seed);
            long hash = 1;
            for (int round = 0; round < rounds; round++) {
                hash = ShmMixedRanksTest.run(comm, cases);
            }
            System.out.println("HASH " + hash);
            System.out.println("DONE");
        } catch (RuntimeException | AssertionError e) {
            System.out.println("FAILED " + e);
            System.exit(3);
        }
    }
}
