package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The CPUs this process may run on ({@code Cpus_allowed_list} in {@code /proc/self/status}, what
 * {@code sched_getaffinity} returns), against the CPUs the machine has online. {@code mpirun} binds each rank to
 * one core by default with two ranks a node, and a JVM starves there: its garbage collector and compiler
 * threads, jcoll's threads and NCCL's proxy and socket threads all share the core. Measured on 2x H200 with
 * NCCL's socket path, 64 MB AllReduce under {@code mpirun -np 2}: 0.42 GB/s in one run and no result in 100 s in
 * the next, 3.55-3.63 GB/s with {@code --bind-to none}.
 *
 * @param allowed the CPUs this process may run on, ascending; empty when they could not be read
 * @param online  CPUs the machine has online, or 0 when unknown
 * @param problem why the mask could not be read, or null
 */
public record CpuAffinity(List<Integer> allowed, int online, String problem) {

    /** Fewer CPUs than this and a JVM running collectives starves. */
    public static final int ENOUGH = 2;

    public CpuAffinity {
        allowed = List.copyOf(allowed);
    }

    /** Reads this process's mask and the online CPUs under {@code files}' root. */
    public static CpuAffinity read(SystemFiles files) {
        int online = parseList(files.read("/sys/devices/system/cpu/online").orElse("")).size();
        String mask = null;
        for (String line : files.lines("/proc/self/status")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                mask = line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        if (mask == null) {
            return new CpuAffinity(List.of(), online, "/proc/self/status has no Cpus_allowed_list (unreadable, "
                    + "empty, or not Linux)");
        }
        List<Integer> allowed = parseList(mask);
        if (allowed.isEmpty()) {
            return new CpuAffinity(List.of(), online, "Cpus_allowed_list '" + mask + "' is not a CPU list");
        }
        return new CpuAffinity(allowed, online, null);
    }

    /**
     * A kernel CPU list ({@code 0-3,8,10-11}) as CPU numbers, ascending; empty for anything malformed (a list
     * that cannot be read is reported, never guessed at).
     */
    static List<Integer> parseList(String text) {
        TreeSet<Integer> cpus = new TreeSet<>();
        if (text.isBlank()) {
            return List.of();
        }
        for (String part : text.trim().split(",")) {
            String[] ends = part.trim().split("-", -1);
            try {
                int first = Integer.parseInt(ends[0].trim());
                int last = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : first;
                if (ends.length > 2 || first < 0 || last < first || last - first > 1 << 16) {
                    return List.of();
                }
                for (int c = first; c <= last; c++) {
                    cpus.add(c);
                }
            } catch (NumberFormatException e) {
                return List.of();
            }
        }
        return new ArrayList<>(cpus);
    }

    /**
     * The trap, with the fix for the launcher that started this process, when this process may run on fewer CPUs
     * than {@link #ENOUGH} although the machine has more.
     */
    public Optional<Warning> warning(LaunchEnvironment launcher) {
        if (problem != null || allowed.size() >= ENOUGH || online <= allowed.size()) {
            return Optional.empty();
        }
        return Optional.of(new Warning("this process may run on " + (allowed.size() == 1 ? "1 CPU (CPU "
                + allowed.get(0) + ")" : allowed.size() + " CPUs " + allowed) + " of the machine's " + online
                + ": a JVM running collectives starves there (its garbage collector and compiler threads, jcoll's "
                + "threads, NCCL's proxy and socket threads share the core); measured on 2x H200, NCCL's socket path "
                + "reached 0.42 GB/s or nothing in 100 s where 3.55-3.63 GB/s is possible.", fixFor(launcher)));
    }

    private static String fixFor(LaunchEnvironment launcher) {
        return switch (launcher.name()) {
            case "Open MPI" -> "start the job with `mpirun --bind-to none ...` (or give each rank several cores: "
                    + "`mpirun --map-by ppr:N:node:PE=K ...`, N ranks a node, K cores each).";
            case "MPICH/PMI" -> "start the job with `mpiexec -bind-to none ...` (Hydra), or bind each rank to several "
                    + "cores (`-bind-to core:K`).";
            case "Slurm" -> "give each task several cores: `srun --cpus-per-task=K ...` (or `#SBATCH "
                    + "--cpus-per-task=K`), and no `--cpu-bind=cores` narrower than that.";
            default -> "start the process without a one-CPU binding (`taskset`, `numactl --physcpubind`, a "
                    + "container's cpuset): give each rank at least " + ENOUGH + " cores.";
        };
    }
}
