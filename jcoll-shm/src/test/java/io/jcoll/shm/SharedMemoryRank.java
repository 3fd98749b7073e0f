package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;

import java.util.Arrays;

/**
 * The process rank of {@link SharedMemoryReadTest}: joins the communicator its environment names and runs
 * {@link SharedCalls} on buffers from {@link io.jcoll.SharedMemory}, each result checked. Prints its network, then
 * {@code MAPPED b} (bytes it read through mappings of its peers' memory) and {@code DONE}; on a wrong result or a
 * failure, {@code FAILED} and what went wrong, and exits 3. Arguments: the seed, then the counts.
 */
public final class SharedMemoryRank {

    private SharedMemoryRank() {
    }

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int[] counts = Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray();
        try (Communicator comm = Jcoll.fromEnvironment()) {
            System.out.println("NETWORK " + comm.network().summary());
            SharedCalls.run(comm, seed, counts, true);
            System.out.println("MAPPED " + PeerMemory.mappedBytes());
            System.out.println("DONE");
        } catch (RuntimeException | AssertionError e) {
            System.out.println("FAILED " + e);
            System.exit(3);
        }
    }
}
