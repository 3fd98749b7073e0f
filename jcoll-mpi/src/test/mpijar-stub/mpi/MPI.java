package mpi;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;

/**
 * A stand-in for Open MPI's Java bindings (mpi.jar, which Debian does not ship), with the two
 * methods jcoll calls by reflection. It initialises and finalizes the real library, and says so,
 * so that a test can see that jcoll went through it. Compiled by MpirunJobTest at run time.
 * Like the real bindings, it binds Open MPI's own library by its soname: plain "mpi" would take
 * whichever libmpi.so the system's alternatives name, MPICH's once libmpich-dev is installed.
 */
public final class MPI {

    public static final int THREAD_MULTIPLE = 3;

    private static final String OPEN_MPI = "libmpi.so.40";

    private MPI() {
    }

    public static int InitThread(String[] args, int required) {
        NativeLibrary lib = NativeLibrary.getInstance(OPEN_MPI);
        try (Memory provided = new Memory(4)) {
            int rc = lib.getFunction("MPI_Init_thread").invokeInt(new Object[] {null, null, required, provided});
            if (rc != 0) {
                throw new IllegalStateException("MPI_Init_thread failed: " + rc);
            }
            System.out.println("mpi.jar stand-in: InitThread(" + required + ") -> " + provided.getInt(0));
            return provided.getInt(0);
        }
    }

    public static void Finalize() {
        System.out.println("mpi.jar stand-in: Finalize");
        System.out.flush();
        NativeLibrary.getInstance(OPEN_MPI).getFunction("MPI_Finalize").invokeInt(new Object[0]);
    }
}
