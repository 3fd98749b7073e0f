package io.jcoll.launch;

import io.jcoll.bootstrap.JobConfig;
import io.jcoll.spi.Settings;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * {@code jcoll launch -n N [-cp EXTRA] [--] MAIN_CLASS [ARGS...]}: starts N
 * local JVM ranks of a class with the bootstrap variables and a fresh job
 * token, prefixes each output line with its rank, and if any rank exits
 * non-zero, gives the others a grace period to report, stops them, and exits
 * non-zero naming the rank that failed first.
 */
public final class Launcher {

    /**
     * Options every rank's JVM starts with, before the caller's own (JCOLL_JAVA_OPTS, which may override them):
     * native access declared, since JDK 22 and later warn on every process that loads a native library without it
     * (JNA for MPI, JavaCPP for CUDA and NCCL; JDK 17 accepts the option); log records on one line each instead of
     * the JDK's two (a date line, then the message), so that each is one prefixed line of output; and, from JDK 23
     * (which knows the option; the ranks run the launcher's own {@code java}), {@code sun.misc.Unsafe}'s memory
     * methods allowed as they were, since JDK 24 and later warn at their first use, and the shared-memory transport
     * unmaps a closed communicator's segment with {@code invokeCleaner} (the only way to free it at once without the
     * per-access checks that an arena's buffers cost small calls).
     */
    public static final List<String> RANK_JVM_OPTIONS = rankJvmOptions(Runtime.version().feature());

    static List<String> rankJvmOptions(int jdk) {
        List<String> options = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
                "-Djava.util.logging.SimpleFormatter.format=%4$s: %5$s%6$s%n"));
        if (jdk >= 23) {
            options.add("--sun-misc-unsafe-memory-access=allow");
        }
        return List.copyOf(options);
    }

    /** Variables a launched rank must take from the launcher, not from the caller's environment. */
    private static final List<String> OWNED = List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
            "MASTER_ADDR", "MASTER_PORT", "JCOLL_TOKEN", io.jcoll.internal.Bootstrap.LAUNCHER_STORE);

    /**
     * What to launch.
     *
     * @param ranks     number of ranks
     * @param classpath class path of the ranks
     * @param mainClass class whose main each rank runs
     * @param args      its arguments
     * @param jvmOptions options for each rank's JVM
     * @param grace     how long the other ranks may run on after one fails
     * @param nodes     where this node stands in a job of several
     * @param rankZeroBare whether rank 0's lines go out as it wrote them, without the {@code [0] } prefix (a
     *                  report that tools parse, as {@code jcoll perf}'s table is parsed like nccl-tests' output);
     *                  the other ranks' lines keep theirs
     */
    public record Plan(int ranks, String classpath, String mainClass, List<String> args, List<String> jvmOptions,
                       Duration grace, Nodes nodes, boolean rankZeroBare) {

        public Plan(int ranks, String classpath, String mainClass, List<String> args, List<String> jvmOptions,
                    Duration grace, Nodes nodes) {
            this(ranks, classpath, mainClass, args, jvmOptions, grace, nodes, false);
        }

        public Plan(int ranks, String classpath, String mainClass, List<String> args, List<String> jvmOptions,
                    Duration grace) {
            this(ranks, classpath, mainClass, args, jvmOptions, grace, Nodes.ONE);
        }

        /** The same plan with rank 0's output unprefixed. */
        public Plan withRankZeroBare() {
            return new Plan(ranks, classpath, mainClass, args, jvmOptions, grace, nodes, true);
        }
    }

    /**
     * Where this node stands in a job of several (torchrun's meaning: the user, a scheduler or {@code srun} starts
     * one launcher on each node): {@code nnodes} nodes, this one {@code nodeRank}, rank 0's store at
     * {@code masterAddr:masterPort} (port 0: one node, a free port is picked).
     */
    public record Nodes(int nnodes, int nodeRank, String masterAddr, int masterPort) {
        static final Nodes ONE = new Nodes(1, 0, "127.0.0.1", 0);
    }

    private Launcher() {
    }

    public static void main(String[] argv) {
        System.exit(run(Arrays.asList(argv), System.out, System.err));
    }

    /** Parses the command line and launches; returns the exit code. */
    public static int run(List<String> argv, PrintStream out, PrintStream err) {
        Plan plan;
        try {
            plan = parse(argv);
        } catch (IllegalArgumentException e) {
            err.println("jcoll launch: " + e.getMessage());
            err.println("usage: jcoll launch -n RANKS [-cp EXTRA_CLASSPATH] [--] MAIN_CLASS [ARGS...]");
            err.println("       jcoll launch --nnodes N --node-rank R --nproc-per-node K --master-addr A "
                    + "--master-port P [--] MAIN_CLASS [ARGS...]   (once on each node; under Slurm the node count, "
                    + "node rank and master address come from srun)");
            return 2;
        }
        return launch(plan, out, err);
    }

    static Plan parse(List<String> argv) {
        return parse(argv, System.getenv());
    }

    static Plan parse(List<String> argv, Map<String, String> env) {
        int ranks = -1;
        String extra = null;
        Integer nnodes = null;
        Integer nodeRank = null;
        String masterAddr = null;
        Integer masterPort = null;
        int i = 0;
        for (; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals("--")) {
                i++;
                break;
            } else if (a.equals("-n") || a.equals("--ranks") || a.equals("--nproc-per-node")) {
                ranks = whole(value(argv, ++i, a), a, 1, 1024);
            } else if (a.equals("--nnodes")) {
                nnodes = whole(value(argv, ++i, a), a, 1, 100_000);
            } else if (a.equals("--node-rank")) {
                nodeRank = whole(value(argv, ++i, a), a, 0, 99_999);
            } else if (a.equals("--master-addr")) {
                masterAddr = value(argv, ++i, a);
            } else if (a.equals("--master-port")) {
                masterPort = whole(value(argv, ++i, a), a, 1, 65535);
            } else if (a.equals("-cp") || a.equals("--classpath")) {
                extra = value(argv, ++i, a);
            } else if (a.startsWith("-")) {
                throw new IllegalArgumentException("unknown option " + a);
            } else {
                break;
            }
        }
        if (ranks < 0) {
            throw new IllegalArgumentException("say how many ranks with -n (or --nproc-per-node)");
        }
        Nodes nodes = nodes(nnodes, nodeRank, masterAddr, masterPort, env);
        if (i >= argv.size()) {
            throw new IllegalArgumentException("name the main class to run");
        }
        String cp = System.getProperty("java.class.path");
        if (extra != null && !extra.isEmpty()) {
            cp = extra + java.io.File.pathSeparator + cp;
        }
        String opts = System.getenv().getOrDefault("JCOLL_JAVA_OPTS", "").trim();
        List<String> jvm = opts.isEmpty() ? List.of() : Arrays.asList(opts.split("\\s+"));
        Duration grace = Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("JCOLL_LAUNCH_GRACE", "15")));
        return new Plan(ranks, cp, argv.get(i), List.copyOf(argv.subList(i + 1, argv.size())), jvm, grace, nodes);
    }

    /**
     * The job's nodes from the options, filled in under Slurm from {@code SLURM_NNODES}, {@code SLURM_NODEID} and
     * {@code SLURM_LAUNCH_NODE_IPADDR} (the node srun ran on) where not given, and checked together: a node of
     * several needs its rank and the master's address and port.
     */
    private static Nodes nodes(Integer nnodes, Integer nodeRank, String masterAddr, Integer masterPort,
                               Map<String, String> env) {
        if (nnodes == null && env.containsKey("SLURM_NNODES") && env.containsKey("SLURM_NODEID")) {
            nnodes = whole(env.get("SLURM_NNODES"), "SLURM_NNODES", 1, 100_000);
            nodeRank = nodeRank != null ? nodeRank : whole(env.get("SLURM_NODEID"), "SLURM_NODEID", 0, 99_999);
            masterAddr = masterAddr != null ? masterAddr : env.getOrDefault("MASTER_ADDR",
                    env.get("SLURM_LAUNCH_NODE_IPADDR"));
        }
        if (masterPort == null && env.containsKey("MASTER_PORT")) {
            masterPort = whole(env.get("MASTER_PORT"), "MASTER_PORT", 1, 65535);
        }
        if (nnodes == null || nnodes == 1) {
            if (nodeRank != null && nodeRank != 0) {
                throw new IllegalArgumentException("--node-rank " + nodeRank + " needs --nnodes above " + nodeRank);
            }
            // one node: its ranks meet on loopback, whatever MASTER_ADDR the caller's environment holds
            return new Nodes(1, 0, "127.0.0.1", masterPort == null ? 0 : masterPort);
        }
        masterAddr = masterAddr != null ? masterAddr : env.get("MASTER_ADDR");
        List<String> missing = new ArrayList<>();
        if (nodeRank == null) {
            missing.add("--node-rank");
        }
        if (masterAddr == null) {
            missing.add("--master-addr");
        }
        if (masterPort == null) {
            missing.add("--master-port");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("a job of " + nnodes + " nodes needs " + String.join(", ", missing)
                    + " on every node (the same address and port on all, each node its own rank)");
        }
        if (nodeRank >= nnodes) {
            throw new IllegalArgumentException("--node-rank " + nodeRank + " is not below --nnodes " + nnodes);
        }
        return new Nodes(nnodes, nodeRank, masterAddr, masterPort);
    }

    private static int whole(String v, String what, int min, int max) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException(what + " " + v + " must be " + min + " to " + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " " + v + " is not a number");
        }
    }

    private static String value(List<String> argv, int i, String option) {
        if (i >= argv.size()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return argv.get(i);
    }

    /**
     * Starts the ranks and supervises them; returns 0 if every rank exited 0. In a job of several nodes the
     * launchers first meet ({@link NodeRendezvous}: node 0's holds the job's store, every node's options are
     * compared) and then end their ranks on the first failure on any node.
     */
    public static int launch(Plan plan, PrintStream out, PrintStream err) {
        Nodes nodes = plan.nodes();
        String port = nodes.masterPort() > 0 ? Integer.toString(nodes.masterPort()) : Integer.toString(freePort());
        String token;
        if (nodes.nnodes() > 1) {
            // the launchers of other nodes cannot learn a token drawn here: the user gives them all the same one
            token = System.getenv().getOrDefault("JCOLL_TOKEN", "");
        } else {
            byte[] secret = new byte[24];
            new SecureRandom().nextBytes(secret);
            token = HexFormat.of().formatHex(secret);
        }
        NodeRendezvous others = null;
        if (nodes.nnodes() > 1) {
            try {
                others = NodeRendezvous.meet(nodes, plan.ranks(), token.getBytes(StandardCharsets.UTF_8),
                        Settings.fromEnvironment().getDuration("JCOLL_TIMEOUT", JobConfig.DEFAULT_TIMEOUT));
            } catch (NodeRendezvous.NodeFailure | IllegalArgumentException e) {
                err.println("jcoll launch: " + e.getMessage());
                return 1;
            }
        }
        int worldSize = nodes.nnodes() * plan.ranks();
        int firstRank = nodes.nodeRank() * plan.ranks();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

        List<Process> processes = new ArrayList<>();
        List<Thread> pumps = new ArrayList<>();
        Thread reaper = new Thread(() -> processes.forEach(Process::destroyForcibly));
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            for (int r = 0; r < plan.ranks(); r++) {
                List<String> cmd = new ArrayList<>();
                cmd.add(java);
                cmd.addAll(RANK_JVM_OPTIONS);
                cmd.addAll(plan.jvmOptions());
                cmd.add("-cp");
                cmd.add(plan.classpath());
                cmd.add(plan.mainClass());
                cmd.addAll(plan.args());
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                Map<String, String> env = pb.environment();
                for (String k : OWNED) {
                    env.remove(k);
                    env.remove("JCOLL_" + k);
                }
                env.put("RANK", Integer.toString(firstRank + r));
                env.put("WORLD_SIZE", Integer.toString(worldSize));
                env.put("LOCAL_RANK", Integer.toString(r));
                env.put("LOCAL_WORLD_SIZE", Integer.toString(plan.ranks()));
                env.put("MASTER_ADDR", nodes.masterAddr());
                env.put("MASTER_PORT", port);
                env.put("JCOLL_TOKEN", token);
                env.put("JCOLL_LAUNCHED", "1");
                if (others != null) {
                    env.put(io.jcoll.internal.Bootstrap.LAUNCHER_STORE, "1");
                }
                Process p;
                try {
                    p = pb.start();
                } catch (IOException e) {
                    err.println("jcoll launch: could not start rank " + r + ": " + e.getMessage());
                    if (others != null) {
                        others.rankFailed(firstRank + r, 1);
                    }
                    stop(processes, Duration.ZERO);
                    return 1;
                }
                processes.add(p);
                pumps.add(pump(firstRank + r, worldSize, p, out, plan.rankZeroBare()));
            }
            return supervise(plan, processes, pumps, others, err);
        } finally {
            stop(processes, Duration.ZERO);
            if (others != null) {
                others.ranksEnded();
                others.close();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    /**
     * The longest the supervisor sleeps while every rank runs and nothing else needs watching: a rank's exit wakes
     * it at once. It used to look every 20 ms; on two CPUs with two spinning ranks those wake-ups took a rank's
     * core often enough to show in the ranks' timings (2 ranks, AllReduce at 128 KB first in a sweep over TCP:
     * 374-426 us a call in three runs, 83-335 with the supervisor looking every 500 ms; benchmarks/RESULTS.md).
     */
    private static final long IDLE_WAIT_MILLIS = 1_000;

    /** Sleeps until one of the ranks still running (no exit code yet) exits, or {@code millis} pass. */
    private static void awaitAnyExit(List<Process> processes, Integer[] codes, long millis) throws InterruptedException {
        List<java.util.concurrent.CompletableFuture<Process>> exits = new ArrayList<>();
        for (int r = 0; r < codes.length; r++) {
            if (codes[r] == null) {
                exits.add(processes.get(r).onExit());
            }
        }
        try {
            java.util.concurrent.CompletableFuture.anyOf(exits.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                    .get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // the caller looks at every rank again either way
        }
    }

    /**
     * Waits for the ranks; on the first failure (one of them exiting non-zero, or, with {@code others}, any other
     * node's) gives those still running the grace period to end by themselves, then stops them.
     */
    private static int supervise(Plan plan, List<Process> processes, List<Thread> pumps, NodeRendezvous others,
                                 PrintStream err) {
        int n = processes.size();
        int first = plan.nodes().nodeRank() * plan.ranks(); // the job's rank of this node's first process
        Integer[] codes = new Integer[n];
        int firstFailed = -1; // of this node's ranks
        NodeRendezvous.Failure failure = null; // the job's first
        long stopAt = Long.MAX_VALUE;
        while (true) {
            boolean running = false;
            for (int r = 0; r < n; r++) {
                if (codes[r] != null) {
                    continue;
                }
                Process p = processes.get(r);
                if (p.isAlive()) {
                    running = true;
                    continue;
                }
                codes[r] = p.exitValue();
                if (codes[r] != 0 && firstFailed < 0) {
                    firstFailed = r;
                    NodeRendezvous.Failure here = new NodeRendezvous.Failure("rank " + (first + r) + " failed first "
                            + "(exit code " + codes[r] + ")", codes[r]);
                    failure = failure != null ? failure : others == null ? here : others.rankFailed(first + r, codes[r]);
                    stopAt = Math.min(stopAt, System.nanoTime() + plan.grace().toNanos());
                }
            }
            if (!running) {
                break;
            }
            if (failure == null && others != null) {
                failure = others.failureSoFar().orElse(null);
                if (failure != null) {
                    stopAt = System.nanoTime() + plan.grace().toNanos();
                }
            }
            if (System.nanoTime() - stopAt > 0) {
                List<Integer> stopped = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    if (codes[r] == null) {
                        stopped.add(r);
                    }
                }
                err.println("jcoll launch: stopping rank(s) " + stopped.stream().map(r -> first + r).toList()
                        + ", still running " + plan.grace().toSeconds() + " s after " + failure.account());
                stop(processes, Duration.ofSeconds(1)); // exits within the grace period + 1 s
                for (int r : stopped) {
                    codes[r] = processes.get(r).exitValue();
                }
                break;
            }
            try {
                // nothing to watch but the ranks: sleep until one exits; other nodes and a grace period are polled
                awaitAnyExit(processes, codes, others == null && stopAt == Long.MAX_VALUE ? IDLE_WAIT_MILLIS : 20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 130;
            }
        }
        for (Thread t : pumps) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure == null) {
            return 0;
        }
        err.println("jcoll launch: " + failure.account() + "; exit codes by rank" + (first == 0 ? "" : " from rank "
                + first) + ": " + Arrays.toString(codes) + (plan.nodes().nnodes() > 1 ? " (node "
                + plan.nodes().nodeRank() + " of " + plan.nodes().nnodes() + "; the other nodes' launchers report "
                + "their own ranks)" : ""));
        return failure.exitCode() > 0 && failure.exitCode() < 256 ? failure.exitCode() : 1;
    }

    /** Copies a rank's output, each line prefixed with its rank (but rank 0's, where it is to go out bare). */
    private static Thread pump(int rank, int ranks, Process p, PrintStream out, boolean rankZeroBare) {
        String prefix = rank == 0 && rankZeroBare ? ""
                : "[" + String.format("%" + Integer.toString(ranks - 1).length() + "d", rank) + "] ";
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (out) {
                        out.println(prefix + line);
                    }
                }
            } catch (IOException ignored) {
                // the rank is gone
            }
        }, "jcoll-launch-output-" + rank);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Asks every live rank to stop, then forces those still alive after {@code patience}. */
    /**
     * Ends the ranks still running: SIGTERM, and SIGKILL for those still there after {@code patience}. A rank
     * that is stopped (SIGSTOP, a debugger) cannot act on SIGTERM until it is continued, so it gets SIGKILL at once
     * instead of holding the launcher for the whole patience.
     */
    private static void stop(List<Process> processes, Duration patience) {
        processes.stream().filter(Process::isAlive).forEach(p -> {
            p.descendants().forEach(d -> end(d, isStopped(d)));
            end(p.toHandle(), isStopped(p.toHandle()));
        });
        long until = System.nanoTime() + patience.toNanos();
        for (Process p : processes) {
            try {
                long left = Math.max(0, until - System.nanoTime());
                if (!p.waitFor(left, java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void end(ProcessHandle p, boolean stopped) {
        if (stopped) {
            p.destroyForcibly();
        } else {
            p.destroy();
        }
    }

    /** Whether the process is stopped (state T or t in {@code /proc/PID/stat}); false where that cannot be read. */
    static boolean isStopped(ProcessHandle p) {
        try {
            String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            int afterName = stat.lastIndexOf(')');
            if (afterName < 0 || afterName + 2 >= stat.length()) {
                return false;
            }
            char state = stat.charAt(afterName + 2);
            return state == 'T' || state == 't';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port for the rendezvous store", e);
        }
    }

    /** Whether this process was started as one rank of a job (by jcoll launch, torchrun, or by hand). */
    public static boolean underLauncher() {
        Map<String, String> env = System.getenv();
        return env.containsKey("RANK") || env.containsKey("JCOLL_RANK")
                || io.jcoll.bootstrap.JobConfig.launcherOf(io.jcoll.spi.Settings.fromEnvironment()) != null;
    }
}
