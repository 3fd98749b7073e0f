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
    /** Reductions on 8-bit integers that this MPI computes with saturation instead of C's wrap-around. */
    final java.util.Set<io.jcoll.ReduceOp> saturatingByteOps;

    private MpiRuntime(MpiLibrary mpi, boolean owned, int threadLevel) {
        this.mpi = mpi;
        this.ownedByJcoll = owned;
        this.threadLevel = threadLevel;
        this.saturatingByteOps = saturatingByteOps(mpi);
    }

    /**
     * Open MPI 4.1's AVX reduction component adds and multiplies 8-bit integers with saturating
     * instructions, unlike C, NCCL and jcoll's other transports, which wrap around. jcoll turns that
     * component off when it initialises MPI itself ({@code OMPI_MCA_op=^avx}, unless you set
     * {@code OMPI_MCA_op}), and checks what the library really does with {@code MPI_Reduce_local}, so
     * that a program that initialised MPI with the component on gets a clear refusal instead of
     * different sums.
     */
    private static java.util.Set<io.jcoll.ReduceOp> saturatingByteOps(MpiLibrary mpi) {
        java.util.Set<io.jcoll.ReduceOp> saturating = java.util.EnumSet.noneOf(io.jcoll.ReduceOp.class);
        int n = 64; // long enough for the vector path
        for (io.jcoll.ReduceOp op : java.util.List.of(io.jcoll.ReduceOp.SUM, io.jcoll.ReduceOp.PROD)) {
            try (Memory in = new Memory(n); Memory inout = new Memory(n)) {
                for (int i = 0; i < n; i++) {
                    in.setByte(i, (byte) 100);
                    inout.setByte(i, (byte) 100);
                }
                int rc = MpiNative.MPI_Reduce_local(MpiLibrary.address(in), MpiLibrary.address(inout), n,
                        mpi.abi.types().get(io.jcoll.DataType.INT8), mpi.abi.ops().get(op));
                byte wrapped = (byte) (op == io.jcoll.ReduceOp.SUM ? 200 : 10000);
                if (rc == 0 && inout.getByte(n - 1) != wrapped) {
                    saturating.add(op);
                }
            }
        }
        return saturating;
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
                    com.sun.jna.NativeLibrary.getInstance("c").getFunction("setenv")
                            .invokeInt(new Object[] {"OMPI_MCA_op", "^avx", 0}); // 0: a value you set wins
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

    private static void finalizeAtExit() {
        MpiRuntime r;
        synchronized (MpiRuntime.class) {
            r = instance;
        }
        if (r == null || !r.ownedByJcoll) {
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
