package io.jcoll.shm;

import io.jcoll.spi.Settings;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Lets this rank's sibling ranks read its memory where Linux's Yama module would not. Under Yama's
 * {@code ptrace_scope} 1 (Ubuntu's default) a process may read another's memory only if it is that one's ancestor,
 * or a descendant of the process that one declared with {@code prctl(PR_SET_PTRACER)}. Ranks are siblings, not
 * ancestors, so without a declaration single copy would be off on such hosts. Each rank of a job in several
 * processes declares its parent (JCOLL_SHM_TRACER={@code parent}, the default): the launcher that started the
 * host's ranks ({@code jcoll launch}, mpirun or its orted, Slurm's slurmstepd), whose descendants are those ranks
 * and whatever else it started; never init, from which every process descends. {@code any} lets every process of
 * the user in ({@code PR_SET_PTRACER_ANY}, what Open MPI's shared-memory path declares), for ranks that different
 * parents started; {@code none} declares nothing. Scopes 2 and 3 admit only processes with
 * {@code CAP_SYS_PTRACE}, which no declaration changes. A process holds one declaration: this one replaces any it
 * made before. Written from Yama's documented rules and exercised against a kernel without Yama only (the
 * development machines and the GPU host have none: there the call is EINVAL and never made), so
 * {@code comm.network()} says what was declared, and a probe that still fails says so beside it.
 */
final class Tracer {

    /** Whom a rank lets read its memory under Yama's scope 1: JCOLL_SHM_TRACER. */
    enum Mode { PARENT, ANY, NONE }

    static final Path YAMA_SCOPE = Path.of("/proc/sys/kernel/yama/ptrace_scope");
    /** prctl's option: "Yama" in ASCII. */
    private static final int PR_SET_PTRACER = 0x59616d61;
    /** The tracer that stands for any process ({@code (unsigned long) -1}). */
    static final long ANY = -1;
    /** No tracer to declare. */
    static final long NOBODY = 0;

    private Tracer() {
    }

    /** JCOLL_SHM_TRACER: parent (the default), any or none. */
    static Mode mode(Settings settings) {
        String value = settings.get("JCOLL_SHM_TRACER").orElse("parent");
        return switch (value) {
            case "parent" -> Mode.PARENT;
            case "any" -> Mode.ANY;
            case "none" -> Mode.NONE;
            default -> throw new IllegalArgumentException("JCOLL_SHM_TRACER must be parent, any or none (was "
                    + value + ")");
        };
    }

    /** Yama's {@code ptrace_scope} as {@code file} gives it; -1 where there is no such file (a kernel without Yama). */
    static int yamaScope(Path file) {
        try {
            return Integer.parseInt(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * What a rank declares: {@code tracer} (a pid, {@link #ANY} or {@link #NOBODY}), and {@code says}, for the
     * network report, what Yama asks and what was done about it (null where Yama asks nothing).
     */
    record Plan(long tracer, String says) {
    }

    /** The plan for {@code mode} under Yama scope {@code scope} (-1: no Yama), this process's parent {@code parent}. */
    static Plan plan(Mode mode, int scope, long parent) {
        if (scope <= 0) {
            return new Plan(NOBODY, null);
        }
        if (scope >= 2) {
            return new Plan(NOBODY, "Yama's ptrace_scope is " + scope + ": only a process with CAP_SYS_PTRACE may read "
                    + "another's memory");
        }
        return switch (mode) {
            case NONE -> new Plan(NOBODY, "Yama's ptrace_scope is 1 and JCOLL_SHM_TRACER=none: this rank let no "
                    + "process read its memory");
            case ANY -> new Plan(ANY, "Yama's ptrace_scope is 1: this rank let any process of its user read its "
                    + "memory (JCOLL_SHM_TRACER=any)");
            case PARENT -> parent > 1
                    ? new Plan(parent, "Yama's ptrace_scope is 1: this rank let its parent process " + parent
                            + " and the parent's other children read its memory (JCOLL_SHM_TRACER=parent; ranks that "
                            + "different parents started need JCOLL_SHM_TRACER=any)")
                    : new Plan(NOBODY, "Yama's ptrace_scope is 1 and this rank's parent is init: it let no process "
                            + "read its memory (JCOLL_SHM_TRACER=any lets any process of its user)");
        };
    }

    /**
     * Makes {@code mode}'s declaration on this host (this process's, shared by its thread ranks): returns what Yama
     * asks and what was done, null where it asks nothing. Never throws: a declaration that fails is said, and the
     * probe that follows decides.
     */
    static String letSiblingsRead(Mode mode) {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        Plan plan = plan(mode, yamaScope(YAMA_SCOPE), parent);
        if (plan.tracer() == NOBODY) {
            return plan.says();
        }
        try {
            int errno = declare(plan.tracer());
            return errno == 0 ? plan.says() : plan.says() + ", but prctl(PR_SET_PTRACER) failed: " + describe(errno);
        } catch (IllegalStateException e) {
            // no prctl to call: the probe finds out what that costs, and single copy is a speed-up, not a need
            return plan.says() + ", but prctl could not be called: " + e.getMessage();
        }
    }

    /**
     * {@code prctl(PR_SET_PTRACER, tracer)}: {@code tracer} (a pid, {@link #ANY}, or {@link #NOBODY} to take a
     * declaration back) may trace this process from now on, with its descendants. Returns 0, or the errno (EINVAL
     * where the kernel has no Yama or no such process runs).
     */
    static int declare(long tracer) {
        MethodHandle prctl = Prctl.FUNCTION.handle();
        if (prctl == null) {
            throw new IllegalStateException(Prctl.FUNCTION.unavailable());
        }
        Libc.Errno errno = Libc.Errno.own();
        int result;
        try {
            // int prctl(int option, ...): the four unsigned longs after the option are variadic
            result = (int) prctl.invokeExact(errno.segment, PR_SET_PTRACER, tracer, 0L, 0L, 0L);
        } catch (Throwable e) {
            throw new IllegalStateException("prctl failed: " + e, e);
        }
        return result == 0 ? 0 : errno.value();
    }

    static String describe(int errno) {
        return switch (errno) {
            case 1 -> "EPERM";
            case 22 -> "EINVAL (no Yama in this kernel, or no such process)";
            default -> "errno " + errno;
        };
    }

    /** prctl, bound on first use: only where a declaration is due. */
    private static final class Prctl {
        static final Libc.Function FUNCTION = Libc.find("prctl", "JAVA_INT", 1, "JAVA_INT", "JAVA_LONG", "JAVA_LONG",
                "JAVA_LONG", "JAVA_LONG");
    }
}
