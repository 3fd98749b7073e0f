package io.jcoll.mpi;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.jcoll.spi.Settings;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds and loads the host's MPI library at run time and makes every MPI call
 * jcoll needs, checking each return code (with {@code MPI_Error_string}).
 * Looked for: {@code JCOLL_MPI_LIBRARY}; then in the installation that
 * {@code OPAL_PREFIX}, {@code MPI_HOME} or {@code MPI_ROOT} names, and the one
 * the {@code mpirun} on the {@code PATH} belongs to ({@code PREFIX/lib}); then
 * Open MPI's {@code libmpi.so.40} (4.x and 5.x), MPICH's {@code libmpi.so.12} or
 * {@code libmpich.so.12} (first when MPICH's launcher placed the rank) and
 * {@code libmpi.so} through the dynamic linker ({@code LD_LIBRARY_PATH},
 * its cache). Loaded with
 * {@code RTLD_GLOBAL}, because Open MPI's plug-ins resolve their symbols against it.
 */
final class MpiLibrary {

    /** What loading found. */
    record Status(MpiLibrary library, String reason) {
        boolean available() {
            return library != null;
        }
    }

    private static final int RTLD_NOW_GLOBAL = 0x2 | 0x100;
    static final int THREAD_SERIALIZED = 2;
    static final int THREAD_MULTIPLE = 3;
    private static Status status;

    final NativeLibrary native_;
    final MpiAbi abi;
    final String file;
    final String version;

    private MpiLibrary(NativeLibrary lib, MpiAbi abi, String file, String version) {
        this.native_ = lib;
        this.abi = abi;
        this.file = file;
        this.version = version;
    }

    static synchronized Status load(Settings settings) {
        if (status == null) {
            status = find(settings);
        }
        return status;
    }

    private static Status find(Settings settings) {
        // before the library loads, because UCX (under MPICH, and Open MPI's ucx layer) reads its settings
        // when it is loaded: otherwise it catches SIGSEGV, which the JVM raises on purpose for its implicit
        // null checks, and kills the process
        setenvUnlessSet("UCX_ERROR_SIGNALS", "");
        List<String> candidates = new ArrayList<>();
        settings.get("JCOLL_MPI_LIBRARY").ifPresent(candidates::add);
        for (java.nio.file.Path prefix : installations(settings)) {
            for (String name : List.of("libmpi.so.40", "libmpi.so.12", "libmpi.so")) {
                java.nio.file.Path file = prefix.resolve("lib").resolve(name);
                if (java.nio.file.Files.isRegularFile(file) && !candidates.contains(file.toString())) {
                    candidates.add(file.toString());
                }
            }
        }
        // the launcher's own library first: an MPICH job on a host that also has Open MPI must load MPICH's
        boolean mpich = "MPICH/PMI".equals(io.jcoll.bootstrap.JobConfig.launcherOf(settings));
        candidates.addAll(mpich ? List.of("libmpi.so.12", "libmpich.so.12", "libmpi.so.40", "libmpi.so")
                : List.of("libmpi.so.40", "libmpi.so.12", "libmpich.so.12", "libmpi.so"));
        Map<String, String> tried = new LinkedHashMap<>();
        for (String candidate : candidates) {
            try {
                NativeLibrary lib = NativeLibrary.getInstance(candidate, Map.of(Library.OPTION_OPEN_FLAGS, RTLD_NOW_GLOBAL));
                MpiNative.bind(lib);
                MpiAbi abi = MpiAbi.of(lib);
                String file = lib.getFile() == null ? candidate : lib.getFile().getPath();
                return new Status(new MpiLibrary(lib, abi, file, libraryVersion()), null);
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                tried.put(candidate, String.valueOf(e.getMessage()).split("\n")[0]);
            }
        }
        StringBuilder why = new StringBuilder("no MPI library could be loaded; tried ");
        tried.forEach((c, e) -> why.append(c).append(" (").append(e).append("); "));
        why.append("install Open MPI (Debian/Ubuntu: openmpi-bin) or point JCOLL_MPI_LIBRARY at a libmpi.so");
        return new Status(null, why.toString());
    }

    /** Installation prefixes named by the environment, and the one the mpirun on the PATH lives in. */
    private static List<java.nio.file.Path> installations(Settings settings) {
        List<java.nio.file.Path> prefixes = new ArrayList<>();
        for (String v : List.of("OPAL_PREFIX", "MPI_HOME", "MPI_ROOT")) {
            settings.get(v).ifPresent(p -> prefixes.add(java.nio.file.Path.of(p)));
        }
        for (String dir : settings.get("PATH").orElse("").split(":")) {
            java.nio.file.Path mpirun = java.nio.file.Path.of(dir.isEmpty() ? "." : dir, "mpirun");
            if (java.nio.file.Files.isExecutable(mpirun)) {
                try {
                    java.nio.file.Path bin = mpirun.toRealPath().getParent();
                    if (bin != null && bin.getParent() != null) {
                        prefixes.add(bin.getParent()); // PREFIX/bin/mpirun
                    }
                } catch (java.io.IOException e) {
                    // a broken link: nothing to learn from it
                }
                break;
            }
        }
        return prefixes;
    }

    /** Sets a variable in the C environment (which MPI and UCX read), unless it is already set. */
    static void setenvUnlessSet(String name, String value) {
        NativeLibrary.getInstance("c").getFunction("setenv").invokeInt(new Object[] {name, value, 0});
    }

    /** {@code MPI_Get_library_version}'s first line; callable before MPI_Init. */
    private static String libraryVersion() {
        try (Memory text = new Memory(8192); Memory length = new Memory(4)) {
            if (MpiNative.MPI_Get_library_version(address(text), address(length)) != 0) {
                return "unknown version";
            }
            String v = new String(text.getByteArray(0, Math.max(0, Math.min(8192, length.getInt(0)))),
                    StandardCharsets.UTF_8).trim();
            int nl = v.indexOf('\n');
            return (nl > 0 ? v.substring(0, nl) : v).replaceAll(",? *package:.*", "").trim();
        }
    }

    static long address(Pointer p) {
        return Pointer.nativeValue(p);
    }

    /** Throws {@link MpiException} naming the call and MPI's text unless {@code rc} is MPI_SUCCESS. */
    void check(int rc, String call, int rank) {
        if (rc != 0) {
            throw new MpiException(call, rank, call + " failed: MPI error " + rc + " (" + errorString(rc) + ")", rc);
        }
    }

    private static String errorString(int code) {
        try (Memory text = new Memory(1024); Memory length = new Memory(4)) {
            if (MpiNative.MPI_Error_string(code, address(text), address(length)) != 0) {
                return "no text";
            }
            return new String(text.getByteArray(0, Math.max(0, Math.min(1024, length.getInt(0)))), StandardCharsets.UTF_8);
        }
    }

    /** One line for reports: {@code Open MPI v4.1.4 from /usr/lib/x86_64-linux-gnu/libmpi.so.40}. */
    String describe() {
        return version + " (" + abi.name() + " ABI) from " + file;
    }
}
