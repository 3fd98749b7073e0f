package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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
        int online = onlineCpus(files).size();
        String mask = allowedListIn(files.lines("/proc/self/status")).orElse(null);
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

    /** The CPU list a {@code status} file's lines give ({@code Cpus_allowed_list}), as written; empty for none. */
    public static Optional<String> allowedListIn(List<String> statusLines) {
        String mask = null;
        for (String line : statusLines) {
            if (line.startsWith("Cpus_allowed_list:")) {
                mask = line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        return Optional.ofNullable(mask);
    }

    /** {@code "1 CPU (CPU 5)"} or {@code "4 CPUs (0-3)"}. */
    public static String describe(List<Integer> cpus) {
        return cpus.size() == 1 ? "1 CPU (CPU " + cpus.get(0) + ")" : cpus.size() + " CPUs (" + ranges(cpus) + ")";
    }

    /**
     * A kernel CPU list ({@code 0-3,8,10-11}) as CPU numbers, ascending; empty for anything malformed (a list
     * that cannot be read is reported, never guessed at).
     */
    public static List<Integer> parseList(String text) {
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
        return Optional.of(new Warning("this process may run on " + describe(allowed) + " of the machine's " + online
                + ": a JVM running collectives starves there (its garbage collector and compiler threads, jcoll's "
                + "threads, NCCL's proxy and socket threads share the core); measured on 2x H200, NCCL's socket path "
                + "reached 0.42 GB/s or nothing in 100 s where 3.55-3.63 GB/s is possible.", fixFor(launcher)
                + " (Forming a communicator, jcoll widens such a mask to its node's CPUs unless JCOLL_CPU_AFFINITY=keep.)"));
    }

    /**
     * Where a mask too narrow for a JVM running collectives is widened to ({@link #widenedTo}).
     *
     * @param cpus  the CPUs, ascending
     * @param where what they are, for the account: "NUMA node 0, where its GPU 0000:18:00.0 is"
     */
    public record Widening(List<Integer> cpus, String where) {
    }

    /**
     * Where a mask too narrow for a JVM running collectives (fewer than {@link #ENOUGH} CPUs of several) is widened
     * to, as {@code --bind-to numa} would place the process: the CPUs of its GPU's NUMA node (NCCL keeps its own
     * threads there too), else of the nodes that hold the CPUs it has, else every online CPU. Empty when the mask
     * is wide enough, could not be read, or nothing wider is known.
     *
     * @param gpu        the GPU this process drives, or null for none or unknown
     * @param nodes      the CPUs of each NUMA node by node number ({@link #nodes}); empty where the machine does not say
     * @param onlineCpus the CPUs the machine has online
     */
    public Optional<Widening> widenedTo(GpuDevice gpu, Map<Integer, List<Integer>> nodes, List<Integer> onlineCpus) {
        if (problem != null || allowed.size() >= ENOUGH || online <= allowed.size()) {
            return Optional.empty();
        }
        List<Integer> gpuNode = gpu == null ? List.of() : nodes.getOrDefault(gpu.numaNode(), List.of());
        if (gpuNode.size() >= ENOUGH) {
            return Optional.of(new Widening(gpuNode, "NUMA node " + gpu.numaNode() + ", where its GPU " + gpu.busId()
                    + " is"));
        }
        TreeSet<Integer> ownNodes = new TreeSet<>();
        List<Integer> numbers = new ArrayList<>();
        nodes.forEach((n, cpus) -> {
            if (cpus.stream().anyMatch(allowed::contains)) {
                ownNodes.addAll(cpus);
                numbers.add(n);
            }
        });
        if (ownNodes.size() >= ENOUGH) {
            return Optional.of(new Widening(new ArrayList<>(ownNodes), "NUMA node" + (numbers.size() == 1 ? " " : "s ")
                    + numbers.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                    + ", the node of the CPU" + (allowed.size() == 1 ? "" : "s") + " it had"));
        }
        return onlineCpus.size() > allowed.size()
                ? Optional.of(new Widening(List.copyOf(onlineCpus), "every online CPU: no NUMA node of its own is "
                        + "listed with more"))
                : Optional.empty();
    }

    /** The CPUs of each NUMA node the machine lists, by node number; empty when it lists none. */
    public static Map<Integer, List<Integer>> nodes(SystemFiles files) {
        Map<Integer, List<Integer>> nodes = new TreeMap<>();
        for (String entry : files.list("/sys/devices/system/node")) {
            if (entry.matches("node\\d{1,6}")) {
                int n = Integer.parseInt(entry.substring(4));
                List<Integer> cpus = cpusOfNode(files, n);
                if (!cpus.isEmpty()) {
                    nodes.put(n, cpus);
                }
            }
        }
        return nodes;
    }

    /** The CPUs the machine has online ({@code /sys/devices/system/cpu/online}); empty when unknown. */
    public static List<Integer> onlineCpus(SystemFiles files) {
        return parseList(files.read("/sys/devices/system/cpu/online").orElse(""));
    }

    /**
     * The CPUs of NUMA node {@code node} ({@code /sys/devices/system/node/node<N>/cpulist}); empty when the node or
     * its list cannot be read.
     */
    public static List<Integer> cpusOfNode(SystemFiles files, int node) {
        return node < 0 ? List.of() : parseList(files.read("/sys/devices/system/node/node" + node + "/cpulist").orElse(""));
    }

    /**
     * The far-binding trap: this process may run only on CPUs of other NUMA nodes than its GPU's, so every copy
     * between host and device, and NCCL's proxy thread feeding the GPU, crosses the link between CPU sockets.
     *
     * @param gpu      the GPU this rank drives, with its NUMA node
     * @param nodeCpus the CPUs of that node ({@link #cpusOfNode}); nothing is said when it is empty (unknown)
     */
    public Optional<Warning> numaWarning(GpuDevice gpu, List<Integer> nodeCpus, LaunchEnvironment launcher) {
        if (problem != null || gpu.numaNode() < 0 || nodeCpus.isEmpty()
                || allowed.stream().anyMatch(nodeCpus::contains)) {
            return Optional.empty();
        }
        return Optional.of(new Warning("this process may run on CPUs " + ranges(allowed) + ", none of them on NUMA "
                + "node " + gpu.numaNode() + " (CPUs " + ranges(nodeCpus) + "), where its GPU " + gpu.busId()
                + " is: copies between host and GPU memory and NCCL's proxy thread cross the link between CPU "
                + "sockets.", switch (launcher.name()) {
                    case "Open MPI" -> "bind each rank near its GPU: `mpirun --map-by numa --bind-to numa ...`, or "
                            + "`--bind-to none`.";
                    case "Slurm" -> "bind each task near its GPU: `srun --cpu-bind=ldoms ...` (or "
                            + "`--gpu-bind=closest`), or `--cpu-bind=none`.";
                    default -> "bind the process to its GPU's node: `numactl --cpunodebind=" + gpu.numaNode()
                            + " ...`, or start it without a binding.";
                }));
    }

    /**
     * Ranks of one host bound to overlapping CPU sets compete for those CPUs (two `taskset` lists written by hand,
     * or ranks of two jobs placed on one host). Unbound ranks (every online CPU) overlap by design and are not
     * reported.
     *
     * @param rank   this rank
     * @param masks  the masks of this host's ranks, by rank, this rank's included
     * @param online CPUs the machine has online
     */
    public static Optional<Warning> overlapWarning(int rank, java.util.Map<Integer, List<Integer>> masks, int online) {
        List<Integer> mine = masks.get(rank);
        if (mine == null || mine.isEmpty() || mine.size() >= online) {
            return Optional.empty();
        }
        List<String> clashes = new ArrayList<>();
        for (var other : new java.util.TreeMap<>(masks).entrySet()) {
            List<Integer> theirs = other.getValue();
            if (other.getKey() == rank || theirs.isEmpty() || theirs.size() >= online) {
                continue;
            }
            List<Integer> shared = mine.stream().filter(theirs::contains).toList();
            if (!shared.isEmpty()) {
                clashes.add("rank " + other.getKey() + " (CPUs " + ranges(theirs) + ", sharing " + ranges(shared) + ")");
            }
        }
        if (clashes.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Warning("this rank is bound to CPUs " + ranges(mine) + ", which other ranks on this "
                + "host are bound to as well: " + String.join(", ", clashes) + "; they take turns on the shared CPUs.",
                "give each rank its own cores (`mpirun --map-by ppr:N:node:PE=K --bind-to core`, `srun "
                        + "--cpu-bind=cores --cpus-per-task=K`, or disjoint `taskset -c` lists), or bind none of them."));
    }

    /** A CPU list as the kernel writes one: {@code 0-3,8}. */
    public static String ranges(List<Integer> cpus) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cpus.size(); i++) {
            int first = cpus.get(i);
            int last = first;
            while (i + 1 < cpus.size() && cpus.get(i + 1) == last + 1) {
                last = cpus.get(++i);
            }
            b.append(b.length() == 0 ? "" : ",").append(first).append(first == last ? "" : "-" + last);
        }
        return b.toString();
    }

    /** The way to give a rank several CPUs under {@code launcher}. */
    public static String fixFor(LaunchEnvironment launcher) {
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
