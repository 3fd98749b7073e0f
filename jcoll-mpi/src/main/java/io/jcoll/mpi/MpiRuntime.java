package io.jcoll.mpi;

import com.sun.jna.Memory;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Settings;

/**
 * MPI's lifetime in this process. If the program already initialised MPI,
 * jcoll uses it as it is and never finalizes it. Otherwise jcoll initialises it
 * once (asking for {@code MPI_THREAD_MULTIPLE}) and finalizes it when the JVM
 * exits, because MPI cannot be initialised twice in a process and an MPI
 * launcher treats a process that exits without finalizing as failed.
 * jcoll's traffic runs on duplicates of {@code MPI_COMM_WORLD} that return
 * errors instead of aborting the job, so it never touches the program's own
 * communicators, messages or error handlers.
 */
final class MpiRuntime {

    private static MpiRuntime instance;
    private static JavaBindings javaBindings; // Open MPI's mpi.jar, when jcoll initialised MPI through it

    final MpiLibrary mpi;
    final boolean ownedByJcoll;
    final int threadLevel;
    /** Reductions on 8-bit integers ({@code "uint8 MIN"}) that this MPI library computes wrongly. */
    final java.util.Set<String> wrongByteReductions;

    private MpiRuntime(MpiLibrary mpi, boolean owned, int threadLevel) {
        this.mpi = mpi;
        this.ownedByJcoll = owned;
        this.threadLevel = threadLevel;
        this.wrongByteReductions = wrongByteReductions(mpi);
    }

    /**
     * Which reductions on 8-bit integers this library gets wrong, found with {@code MPI_Reduce_local} on
     * values whose right answers are known. Open MPI 4.1's AVX reduction component adds and multiplies
     * them with saturating instructions, unlike C, NCCL and jcoll's other transports, which wrap around;
     * jcoll turns that component off when it initialises MPI itself ({@code OMPI_MCA_op=^avx}, unless
     * you set {@code OMPI_MCA_op}), and the check catches it, or any other library's slip, when the
     * program initialised MPI with it on: such reductions are then refused with the reason.
     */
    private static java.util.Set<String> wrongByteReductions(MpiLibrary mpi) {
        java.util.Set<String> wrong = new java.util.TreeSet<>();
        int n = 64; // long enough for a vector path
        for (io.jcoll.DataType type : java.util.List.of(io.jcoll.DataType.INT8, io.jcoll.DataType.UINT8)) {
            for (io.jcoll.ReduceOp op : java.util.List.of(io.jcoll.ReduceOp.SUM, io.jcoll.ReduceOp.PROD,
                    io.jcoll.ReduceOp.MIN, io.jcoll.ReduceOp.MAX)) {
                try (Memory in = new Memory(n); Memory inout = new Memory(n)) {
                    byte[] a = new byte[n];
                    byte[] b = new byte[n];
                    byte[] want = new byte[n];
                    for (int i = 0; i < n; i++) {
                        // spread over all 256 values: sums and products overflow both as signed and as
                        // unsigned bytes, and signed and unsigned orders differ
                        a[i] = (byte) (37 * i + 100);
                        b[i] = (byte) (101 * i + 60);
                        want[i] = expected(type, op, a[i], b[i]);
                    }
                    in.write(0, a, 0, n);
                    inout.write(0, b, 0, n);
                    int rc = MpiNative.MPI_Reduce_local(MpiLibrary.address(in), MpiLibrary.address(inout), n,
                            mpi.abi.types().get(type), mpi.abi.ops().get(op));
                    if (rc != 0 || !java.util.Arrays.equals(inout.getByteArray(0, n), want)) {
                        wrong.add(type + " " + op);
                    }
                }
            }
        }
        return wrong;
    }

    /** C's answer, wrapping around: what every jcoll transport computes. */
    private static byte expected(io.jcoll.DataType type, io.jcoll.ReduceOp op, byte a, byte b) {
        int x = type == io.jcoll.DataType.UINT8 ? a & 0xff : a;
        int y = type == io.jcoll.DataType.UINT8 ? b & 0xff : b;
        return (byte) switch (op) {
            case SUM -> x + y;
            case PROD -> x * y;
            case MIN -> Math.min(x, y);
            default -> Math.max(x, y);
        };
    }

    /** The initialised runtime; initialises MPI on first use unless the program did. */
    static synchronized MpiRuntime get(Settings settings, int rank) {
        if (instance != null) {
            return instance;
        }
        MpiLibrary.Status status = MpiLibrary.load(settings);
        if (!status.available()) {
            throw new BootstrapException("bootstrap", rank, JcollException.NONE, status.reason());
        }
        MpiLibrary mpi = status.library();
        try (Memory flag = new Memory(4); Memory provided = new Memory(4)) {
            mpi.check(MpiNative.MPI_Finalized(MpiLibrary.address(flag)), "MPI_Finalized", rank);
            if (flag.getInt(0) != 0) {
                throw new BootstrapException("bootstrap", rank, JcollException.NONE,
                        "MPI was already finalized in this process; MPI cannot be initialised again");
            }
            mpi.check(MpiNative.MPI_Initialized(MpiLibrary.address(flag)), "MPI_Initialized", rank);
            boolean initialised = flag.getInt(0) != 0;
            if (initialised) {
                mpi.check(MpiNative.MPI_Query_thread(MpiLibrary.address(provided)), "MPI_Query_thread", rank);
            } else {
                if (mpi.abi.name().equals("Open MPI")) {
                    MpiLibrary.setenvUnlessSet("OMPI_MCA_op", "^avx"); // see wrongByteReductions
                }
                JavaBindings java = JavaBindings.find();
                if (java != null) {
                    // the program can then use Open MPI's Java API too: its own Init sets up its Java side
                    provided.setInt(0, java.initThread(MpiLibrary.THREAD_MULTIPLE));
                    javaBindings = java;
                } else {
                    mpi.check(MpiNative.MPI_Init_thread(0, 0, MpiLibrary.THREAD_MULTIPLE, MpiLibrary.address(provided)),
                            "MPI_Init_thread", rank);
                }
                Thread finalizer = new Thread(MpiRuntime::finalizeAtExit, "jcoll-mpi-finalize");
                Runtime.getRuntime().addShutdownHook(finalizer);
            }
            instance = new MpiRuntime(mpi, !initialised, provided.getInt(0));
            return instance;
        }
    }

    /** A collective that never completed was left in MPI (a peer stopped or died): MPI_Finalize would wait for it. */
    private static volatile boolean collectiveLeftBehind;

    /** Called by a transport that gives up on a collective MPI cannot cancel. */
    static void collectiveLeftBehind() {
        collectiveLeftBehind = true;
    }

    private static void finalizeAtExit() {
        MpiRuntime r;
        synchronized (MpiRuntime.class) {
            r = instance;
        }
        if (r == null || !r.ownedByJcoll) {
            return;
        }
        if (collectiveLeftBehind) {
            // MPI_Finalize would wait forever for the peer that never finished the collective; exiting without it
            // makes mpirun end the whole job (it reports the process that exited without finalizing)
            System.getLogger(MpiRuntime.class.getName()).log(System.Logger.Level.WARNING, "jcoll: not finalizing "
                    + "MPI: a collective that a peer never finished is still pending, and MPI_Finalize would wait for it");
            return;
        }
        try (Memory flag = new Memory(4)) {
            if (MpiNative.MPI_Finalized(MpiLibrary.address(flag)) == 0 && flag.getInt(0) == 0) {
                if (javaBindings != null) {
                    javaBindings.finalizeMpi();
                } else {
                    MpiNative.MPI_Finalize();
                }
            }
        }
    }

    /** A duplicate of MPI_COMM_WORLD for jcoll's own use, returning errors instead of aborting; collective. */
    long duplicateWorld(int rank) {
        try (Memory handle = new Memory(8)) {
            handle.setLong(0, 0);
            mpi.check(MpiNative.MPI_Comm_dup(mpi.abi.commWorld(), MpiLibrary.address(handle)), "MPI_Comm_dup", rank);
            long comm = mpi.abi.handleAt(handle);
            mpi.check(MpiNative.MPI_Comm_set_errhandler(comm, mpi.abi.errorsReturn()), "MPI_Comm_set_errhandler", rank);
            return comm;
        }
    }

    /**
     * MPI_Comm_split of {@code comm}, returning errors instead of aborting; collective over {@code comm}. A rank
     * with no color passes MPI_UNDEFINED and gets nothing (0).
     */
    long split(long comm, int color, int key, int rank) {
        try (Memory handle = new Memory(8)) {
            handle.setLong(0, 0);
            mpi.check(MpiNative.MPI_Comm_split(comm, color < 0 ? UNDEFINED : color, key, MpiLibrary.address(handle)),
                    "MPI_Comm_split", rank);
            if (color < 0) {
                return 0;
            }
            long split = mpi.abi.handleAt(handle);
            mpi.check(MpiNative.MPI_Comm_set_errhandler(split, mpi.abi.errorsReturn()), "MPI_Comm_set_errhandler", rank);
            return split;
        }
    }

    /** {@code MPI_UNDEFINED}: the same in Open MPI's and MPICH's {@code mpi.h}. */
    static final int UNDEFINED = -32766;

    /** This process's rank in {@code comm}. */
    int rankIn(long comm, int rank) {
        try (Memory v = new Memory(4)) {
            mpi.check(MpiNative.MPI_Comm_rank(comm, MpiLibrary.address(v)), "MPI_Comm_rank", rank);
            return v.getInt(0);
        }
    }

    void free(long comm, int rank) {
        try (Memory handle = new Memory(8)) {
            if (mpi.abi.intHandles()) {
                handle.setInt(0, (int) comm);
            } else {
                handle.setLong(0, comm);
            }
            mpi.check(MpiNative.MPI_Comm_free(MpiLibrary.address(handle)), "MPI_Comm_free", rank);
        }
    }

    /**
     * Why the program's own MPI cannot carry jcoll's calls, or null: the program initialised it (with Open MPI's
     * Java bindings, plain {@code MPI.Init}) below {@code MPI_THREAD_SERIALIZED}, and jcoll's asynchronous calls
     * reach MPI from its progress thread. Asked by the probe too, so that {@code auto} passes MPI over with this
     * reason instead of failing on it.
     */
    static String threadLevelShortfall(MpiLibrary mpi) {
        try (Memory flag = new Memory(4)) {
            if (MpiNative.MPI_Initialized(MpiLibrary.address(flag)) != 0 || flag.getInt(0) == 0
                    || MpiNative.MPI_Finalized(MpiLibrary.address(flag)) != 0 || flag.getInt(0) != 0
                    || MpiNative.MPI_Query_thread(MpiLibrary.address(flag)) != 0) {
                return null; // not initialised (jcoll will ask for MPI_THREAD_MULTIPLE), or finalized (said later)
            }
            return threadLevelShortfall(flag.getInt(0));
        }
    }

    private static String threadLevelShortfall(int level) {
        return level >= MpiLibrary.THREAD_SERIALIZED ? null : "the program initialised MPI at thread level " + level
                + "; jcoll's asynchronous calls need MPI_THREAD_SERIALIZED (2) or more: initialise MPI with "
                + "MPI_Init_thread(MPI_THREAD_MULTIPLE) (Java bindings: MPI.InitThread(args, MPI.THREAD_MULTIPLE)), "
                + "or let jcoll initialise it";
    }

    /** Why this runtime cannot carry jcoll's calls, or null. */
    String threadLevelShortfall() {
        return threadLevelShortfall(threadLevel);
    }

    /** This process's rank and the size of MPI_COMM_WORLD. */
    int[] worldRankAndSize(int rank) {
        try (Memory v = new Memory(8)) {
            mpi.check(MpiNative.MPI_Comm_rank(mpi.abi.commWorld(), MpiLibrary.address(v)), "MPI_Comm_rank", rank);
            mpi.check(MpiNative.MPI_Comm_size(mpi.abi.commWorld(), MpiLibrary.address(v.share(4))), "MPI_Comm_size", rank);
            return new int[] {v.getInt(0), v.getInt(4)};
        }
    }

    /**
     * Open MPI's own Java bindings ({@code mpi.jar}, class {@code mpi.MPI}) when the installation put them
     * on the class path, reached by reflection so that jcoll needs them neither to build nor to run.
     */
    static final class JavaBindings {
        private final Class<?> mpi;

        private JavaBindings(Class<?> mpi) {
            this.mpi = mpi;
        }

        static JavaBindings find() {
            try {
                return new JavaBindings(Class.forName("mpi.MPI", false, MpiRuntime.class.getClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }

        int initThread(int required) {
            try {
                return (int) mpi.getMethod("InitThread", String[].class, int.class).invoke(null, new String[0], required);
            } catch (ReflectiveOperationException e) {
                throw new BootstrapException("bootstrap", JcollException.NONE, JcollException.NONE,
                        "Open MPI's Java bindings (mpi.jar) could not initialise MPI: " + rootCause(e), e);
            }
        }

        void finalizeMpi() {
            try {
                mpi.getMethod("Finalize").invoke(null);
            } catch (ReflectiveOperationException e) {
                MpiNative.MPI_Finalize(); // the bindings failed; the library itself still must be finalized
            }
        }

        private static String rootCause(Throwable t) {
            while (t.getCause() != null) {
                t = t.getCause();
            }
            return t.toString();
        }
    }
}
