import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.mpi.MpiJobMain;
import mpi.MPI;

import java.util.SplittableRandom;

/**
 * A program written against Open MPI's own Java bindings (the real {@code mpi.jar}, built by
 * {@code tools/build-mpi-jar.sh}), as a user would write it, that also forms a jcoll communicator: one rank of an
 * {@code mpirun} job ({@code MpirunJobTest}), compiled by the test against the jar. The first argument says who
 * initialises MPI:
 * <ul>
 * <li>{@code multiple}: the program, with {@code MPI.InitThread(args, MPI.THREAD_MULTIPLE)}, and it finalizes;
 * <li>{@code plain}: the program, with {@code MPI.Init(args)} (thread level single), and it finalizes;
 * <li>{@code jcoll}: jcoll, through the jar, and jcoll finalizes at exit; the program still uses the jar's API.
 * </ul>
 * Between and after jcoll's calls the program runs its own {@code MPI.COMM_WORLD} AllReduce and checks it against
 * a plain double loop, so that both users of the one MPI library are seen to coexist. Exit 0 only if all was right.
 */
public final class MpiJavaProgram {

    private static final int COUNT = 97; // prime: no rank count divides it

    private MpiJavaProgram() {
    }

    public static void main(String[] args) throws Exception {
        String init = args[0];
        long seed = Long.parseLong(System.getenv().getOrDefault("JCOLL_TEST_FIRST_ID", "1"));
        switch (init) {
            case "multiple" -> {
                int provided = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
                check(provided == MPI.THREAD_MULTIPLE, "MPI.InitThread gave thread level " + provided);
            }
            case "plain" -> MPI.Init(args);
            case "jcoll" -> check(!MPI.isInitialized(), "MPI is initialised before anyone asked");
            default -> throw new IllegalArgumentException("first argument: multiple, plain or jcoll, not " + init);
        }
        if (!init.equals("jcoll")) {
            worldAllReduce(seed);
        }
        String outcome;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            check(MPI.isInitialized(), "MPI is not initialised after jcoll formed its communicator");
            int rank = MPI.COMM_WORLD.getRank();
            check(rank == comm.rank() && MPI.COMM_WORLD.getSize() == comm.size(), "MPI.COMM_WORLD says rank "
                    + rank + " of " + MPI.COMM_WORLD.getSize() + ", jcoll " + comm.rank() + " of " + comm.size());
            if (init.equals("jcoll")) {
                check(MPI.queryThread() == MPI.THREAD_MULTIPLE, "jcoll initialised MPI at level " + MPI.queryThread());
            }
            worldAllReduce(seed + 1);
            outcome = MpiJobMain.everyCollective(comm, seed);
            worldAllReduce(seed + 2);
        } catch (BootstrapException e) { // TransportUnavailableException, where a transport was named
            outcome = "rank " + MPI.COMM_WORLD.getRank() + " refused by jcoll: " + e.getMessage();
        }
        worldAllReduce(seed + 3); // jcoll's close left MPI to the program
        System.out.println(outcome + "; MPI.COMM_WORLD right before, between and after");
        if (!init.equals("jcoll")) {
            MPI.Finalize();
            System.out.println("rank finalized by the program");
        }
    }

    /** An AllReduce through the jar's own API, checked against the sum of every rank's inputs in a plain loop. */
    private static void worldAllReduce(long seed) throws Exception {
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        double[] data = inputs(seed, rank);
        MPI.COMM_WORLD.allReduce(data, COUNT, MPI.DOUBLE, MPI.SUM);
        double[] expected = new double[COUNT];
        for (int r = 0; r < size; r++) {
            double[] theirs = inputs(seed, r);
            for (int i = 0; i < COUNT; i++) {
                expected[i] += theirs[i];
            }
        }
        for (int i = 0; i < COUNT; i++) {
            check(Math.abs(data[i] - expected[i]) <= 1e-12 * size, "MPI.COMM_WORLD.allReduce element " + i + " is "
                    + data[i] + ", expected " + expected[i] + " (rank " + rank + ")");
        }
    }

    private static double[] inputs(long seed, int rank) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + rank);
        double[] values = new double[COUNT];
        for (int i = 0; i < COUNT; i++) {
            values[i] = random.nextDouble(-1, 1);
        }
        return values;
    }

    private static void check(boolean right, String otherwise) {
        if (!right) {
            throw new AssertionError(otherwise);
        }
    }
}
