package io.jcoll.mpi;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;

import java.util.List;
import java.util.Set;

/**
 * One rank of a job that {@code mpirun} starts ({@link MpirunJobTest}): forms a
 * communicator from the launcher's environment alone (no MASTER_ADDR), runs the
 * whole case matrix with fresh inputs ({@code JCOLL_TEST_FIRST_ID}) and
 * point-to-point around a ring, and checks every result against the
 * double-precision reference. Exit 0 only if every result was right. With
 * argument {@code die=R}, rank R exits with code 3 once everyone is in, while
 * the others start an AllReduce.
 */
public final class MpiJobMain {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000};
    private static final Set<DataType> MPI_REDUCES = Set.of(DataType.FLOAT32, DataType.FLOAT64, DataType.INT8,
            DataType.UINT8, DataType.INT32, DataType.INT64);

    private MpiJobMain() {
    }

    public static void main(String[] args) {
        int die = args.length > 0 && args[0].startsWith("die=") ? Integer.parseInt(args[0].substring(4)) : -1;
        if (args.length > 0 && args[0].equals("user-init")) {
            userInitialisedMpi();
            return;
        }
        if (args.length > 0 && args[0].startsWith("abuse=")) {
            try (Communicator comm = Jcoll.fromEnvironment()) {
                var tally = io.jcoll.testing.Abuse.run(comm, Long.parseLong(args[0].substring(6)), 2000, List.of());
                System.out.println("rank " + comm.rank() + " over " + comm.transport().name() + " refused " + tally);
            } catch (Throwable t) {
                t.printStackTrace();
                System.exit(1);
            }
            System.exit(0);
        }
        if (args.length > 0 && args[0].startsWith("mismatch=")) {
            mismatch(args[0].substring("mismatch=".length()));
            return;
        }
        long firstId = Long.parseLong(System.getenv().getOrDefault("JCOLL_TEST_FIRST_ID", "1"));
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int rank = comm.rank();
            String expected = System.getenv().getOrDefault("JCOLL_TRANSPORT", "auto");
            if (!expected.equals("auto") && !comm.transport().name().equals(expected)) {
                throw new AssertionError("transport " + comm.transport().name() + ", expected " + expected);
            }
            if (die >= 0) {
                comm.barrier();
                if (rank == die) {
                    System.out.println("rank " + rank + " exits early on purpose");
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
                comm.allReduce(HostBuffer.of(new float[1 << 20]), ReduceOp.SUM);
                System.out.println("rank " + rank + " finished an AllReduce a rank left: WRONG");
                System.exit(1);
            }
            System.out.println(everyCollective(comm, firstId));
        } catch (Throwable t) {
            t.printStackTrace();
            System.out.flush();
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * Runs the whole case matrix (fresh inputs from {@code firstId}), a ring of sends, groups and splits on
     * {@code comm}, each result checked against the double-precision reference, and says how it went; throws on
     * the first wrong result. On MPI, the reductions the standard lacks must be refused, and are counted.
     */
    public static String everyCollective(Communicator comm, long firstId) {
        boolean mpi = comm.transport().name().equals("mpi");
        List<Case> cases = new java.util.ArrayList<>(Case.matrix(COUNTS, true, comm.size(), firstId));
        cases.addAll(Case.extendedMatrix(COUNTS, comm.size(), firstId + 1_000_000));
        int ran = 0;
        int refused = 0;
        java.util.Set<String> libraryRefused = new java.util.TreeSet<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            boolean mpiLacks = mpi && c.op() != null && (c.op() == ReduceOp.AVG || !MPI_REDUCES.contains(c.type()));
            try {
                c.run(Ops.of(comm, i % 2 == 1));
                if (mpiLacks) {
                    throw new AssertionError(c + " ran although MPI has no such reduction");
                }
                ran++;
            } catch (InvalidArgumentException e) {
                if (mpi && e.getMessage().contains("wrongly (checked with MPI_Reduce_local")) {
                    libraryRefused.add(c.type() + " " + c.op()); // the library's own slip, found and refused
                    continue;
                }
                if (!mpiLacks || !e.getMessage().contains("the MPI standard has no")) {
                    throw e;
                }
                refused++;
            }
        }
        ringOfSends(comm);
        groupsAndSplits(comm, firstId);
        comm.barrier();
        return "rank " + comm.rank() + " of " + comm.size() + " over " + comm.transport().name() + ": "
                + ran + " cases right, " + refused + " refused as MPI lacks them"
                + (libraryRefused.isEmpty() ? "" : ", refused as this library gets them wrong: " + libraryRefused)
                + ", sends right";
    }

    /**
     * Rank 1 issues a different second collective from the others (another operation, or another count): every
     * rank must raise {@link io.jcoll.exceptions.CollectiveMismatchException} and print its message.
     */
    private static void mismatch(String kind) {
        int exit = 1;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            HostBuffer data = HostBuffer.of(new float[16]);
            comm.allReduce(data, data, 10, ReduceOp.SUM);
            try {
                if (kind.equals("pairs")) {
                    int n = comm.size();
                    long[] counts = new long[n];
                    java.util.Arrays.fill(counts, 1);
                    long[] expected = counts.clone();
                    if (comm.rank() == 0) {
                        counts[1] = 5;
                    }
                    if (comm.rank() == 1) {
                        expected[0] = 3;
                    }
                    comm.allToAllV(HostBuffer.of(new float[16]), counts, null, HostBuffer.of(new float[16]), expected,
                            null);
                } else if (comm.rank() == 1 && kind.equals("operation")) {
                    comm.broadcast(data, data, 10, 0);
                } else {
                    comm.allReduce(data, data, comm.rank() == 1 && kind.equals("count") ? 11 : 10, ReduceOp.SUM);
                }
                System.out.println("rank " + comm.rank() + ": the mismatched call returned: WRONG");
            } catch (io.jcoll.exceptions.CollectiveMismatchException e) {
                System.out.println("rank " + comm.rank() + " raised: " + e.getMessage());
                exit = 0;
            }
        } catch (Throwable t) {
            t.printStackTrace();
        }
        System.out.flush();
        System.exit(exit);
    }

    /**
     * The program initialises MPI itself, then uses jcoll: jcoll must reuse MPI and leave it initialised
     * when its communicator closes; the program finalizes it.
     */
    private static void userInitialisedMpi() {
        MpiLibrary mpi = MpiLibrary.load(io.jcoll.spi.Settings.fromEnvironment()).library();
        try (com.sun.jna.Memory word = new com.sun.jna.Memory(4)) {
            mpi.check(MpiNative.MPI_Init_thread(0, 0, MpiLibrary.THREAD_MULTIPLE, MpiLibrary.address(word)),
                    "MPI_Init_thread", -1);
            int rank;
            try (Communicator comm = Jcoll.fromEnvironment()) {
                rank = comm.rank();
                long[] one = {1};
                comm.allReduce(HostBuffer.of(one), ReduceOp.SUM);
                if (one[0] != comm.size() || !comm.transport().name().equals("mpi")) {
                    throw new AssertionError("sum " + one[0] + " over " + comm.transport().name());
                }
            }
            mpi.check(MpiNative.MPI_Finalized(MpiLibrary.address(word)), "MPI_Finalized", rank);
            boolean finalized = word.getInt(0) != 0;
            mpi.check(MpiNative.MPI_Initialized(MpiLibrary.address(word)), "MPI_Initialized", rank);
            if (finalized || word.getInt(0) == 0) {
                throw new AssertionError("jcoll finalized MPI that the program had initialised");
            }
            mpi.check(MpiNative.MPI_Finalize(), "MPI_Finalize", rank);
            System.out.println("rank " + rank + ": jcoll reused the program's MPI and left it to the program");
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    /** Each rank sends a block derived from its rank to the next and checks the one from the previous. */
    /**
     * A ring of sends and receives in one group (sends first: without the group, MPI's blocking sends of this
     * size could wait on each other), and sub-communicators by parity running collectives of their own.
     */
    private static void groupsAndSplits(Communicator comm, long firstId) {
        int n = comm.size();
        int rank = comm.rank();
        float[] out = new float[1 << 20];
        float[] in = new float[1 << 20];
        java.util.Arrays.fill(out, rank);
        try (io.jcoll.Group g = comm.group()) {
            g.send(HostBuffer.of(out), out.length, (rank + 1) % n).recv(HostBuffer.of(in), in.length, (rank + n - 1) % n);
        }
        if (in[in.length - 1] != (rank + n - 1) % n) {
            throw new AssertionError("the grouped ring delivered " + in[in.length - 1]);
        }
        // a thousand splits, each closed: MPI communicators, native memory, threads and files must not pile up
        for (int i = 0; i < 50; i++) {
            comm.split(rank % 2, rank).orElseThrow().close();
        }
        int threads = Thread.activeCount();
        int files = openFiles();
        for (int i = 0; i < 1000; i++) {
            try (Communicator sub = comm.split(rank % 2, rank).orElseThrow()) {
                sub.barrier();
            }
        }
        if (Thread.activeCount() > threads || openFiles() > files + 2) {
            throw new AssertionError("1000 splits left threads " + threads + " -> " + Thread.activeCount()
                    + ", open files " + files + " -> " + openFiles());
        }
        try (Communicator half = comm.split(rank % 2, -rank).orElseThrow()) {
            List<Case> cases = Case.matrix(new int[] {1, 97}, false, half.size(), firstId + 2_000_000).stream()
                    .filter(c -> c.op() == null || (c.op() != ReduceOp.AVG && (c.type() == DataType.FLOAT32
                            || c.type() == DataType.FLOAT64))).toList(); // (byte reductions: see the main matrix)
            cases.forEach(c -> c.run(Ops.of(half, false)));
            long[] members = new long[half.size()];
            half.allGather(HostBuffer.of(new long[] {rank}), HostBuffer.of(members), 1);
            if (members[0] < members[members.length - 1]) {
                throw new AssertionError("keys -rank should order the split by descending rank: " + java.util.Arrays
                        .toString(members));
            }
        }
    }

    private static int openFiles() {
        String[] fds = new java.io.File("/proc/self/fd").list();
        return fds == null ? 0 : fds.length;
    }

    private static void ringOfSends(Communicator comm) {
        int n = comm.size();
        int rank = comm.rank();
        if (n < 2) {
            return;
        }
        long[] out = new long[257];
        long[] in = new long[257];
        for (int i = 0; i < out.length; i++) {
            out[i] = rank * 1_000_003L + i;
        }
        int next = (rank + 1) % n;
        int prev = (rank + n - 1) % n;
        if (rank % 2 == 0) {
            comm.send(HostBuffer.of(out), out.length, next);
            comm.recv(HostBuffer.of(in), in.length, prev);
        } else {
            comm.recv(HostBuffer.of(in), in.length, prev);
            comm.send(HostBuffer.of(out), out.length, next);
        }
        for (int i = 0; i < in.length; i++) {
            if (in[i] != prev * 1_000_003L + i) {
                throw new AssertionError("rank " + rank + " received " + in[i] + " at " + i + " from rank " + prev);
            }
        }
    }
}
