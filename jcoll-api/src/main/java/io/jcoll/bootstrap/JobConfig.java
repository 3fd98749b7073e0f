package io.jcoll.bootstrap;

import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Settings;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where this rank stands in its job and how to reach the others, read from
 * the torchrun variables ({@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK},
 * {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR}, {@code MASTER_PORT}) or their
 * {@code JCOLL_}-prefixed overrides, plus {@code JCOLL_TOKEN},
 * {@code JCOLL_TIMEOUT} and {@code JCOLL_TRANSPORT}. Where those are not set,
 * the launcher's own variables place the rank: Open MPI's
 * {@code OMPI_COMM_WORLD_RANK}/{@code _SIZE}/{@code _LOCAL_RANK}/{@code _LOCAL_SIZE},
 * MPICH's and PMI's {@code PMI_RANK}/{@code PMI_SIZE} (with Hydra's
 * {@code MPI_LOCALRANKID}/{@code MPI_LOCALNRANKS}), and Slurm's
 * {@code SLURM_PROCID}/{@code SLURM_NTASKS}/{@code SLURM_LOCALID}. A job placed
 * that way needs no {@code MASTER_ADDR}: the rendezvous address can travel
 * through the launcher's own channel ({@link io.jcoll.spi.RendezvousExchange}).
 *
 * @param rank         this rank, 0 to size - 1
 * @param size         number of ranks
 * @param localRank    index on this host (until the ranks have counted their hosts, rank when not given)
 * @param localSize    ranks on this host (until then, size when not given)
 * @param masterAddr   host of rank 0's rendezvous store
 * @param masterPort   port of rank 0's rendezvous store
 * @param token        the job's secret (empty: connections are not authenticated)
 * @param timeout      limit of every blocking wait
 * @param transport    {@code auto} or a transport name
 * @param launcher     the launcher whose variables placed this rank ({@code Open MPI}, ...), or null when
 *                     the torchrun-style variables did
 * @param localRankGiven whether LOCAL_RANK (or a launcher's own) was given: the ranks count who shares their
 *                     host through the store, and a given value must agree with the count
 * @param localSizeGiven the same for LOCAL_WORLD_SIZE
 */
public record JobConfig(int rank, int size, int localRank, int localSize, String masterAddr, int masterPort,
                        byte[] token, Duration timeout, String transport, String launcher, boolean localRankGiven,
                        boolean localSizeGiven) {

    /** One launcher's names for rank, size, local rank and local size (null: it has none). */
    private record LauncherVariables(String launcher, String rank, String size, String localRank, String localSize) {
    }

    private static final List<LauncherVariables> LAUNCHERS = List.of(
            new LauncherVariables("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                    "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
            new LauncherVariables("MPICH/PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
            new LauncherVariables("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", null));

    /** The same job with rank 0's store at {@code addr:port}, guarded by {@code token}. */
    public JobConfig withRendezvous(String addr, int port, byte[] token) {
        return new JobConfig(rank, size, localRank, localSize, addr, port, token, timeout, transport, launcher,
                localRankGiven, localSizeGiven);
    }

    /** The same job with this rank's place on its host as the ranks counted it. */
    public JobConfig withLocal(int counted, int countedSize) {
        return new JobConfig(rank, size, counted, countedSize, masterAddr, masterPort, token, timeout, transport,
                launcher, localRankGiven, localSizeGiven);
    }

    /**
     * The launcher whose variables place this process in a job ({@code Open MPI}, {@code MPICH/PMI},
     * {@code Slurm}), or null. Slurm counts only inside a job step that srun started: a batch script
     * also sees SLURM_PROCID and SLURM_NTASKS, but it is one process, not a rank.
     */
    public static String launcherOf(Settings s) {
        for (LauncherVariables l : LAUNCHERS) {
            if (places(l, s)) {
                return l.launcher();
            }
        }
        return null;
    }

    /** The variables that place this process, as {@code NAME=value, ...}; empty when no launcher's do. */
    public static String placementEvidence(Settings s) {
        for (LauncherVariables l : LAUNCHERS) {
            if (places(l, s)) {
                return l.rank() + "=" + s.get(l.rank()).orElseThrow() + ", " + l.size() + "=" + s.get(l.size()).orElseThrow();
            }
        }
        return "";
    }

    private static boolean places(LauncherVariables l, Settings s) {
        if (s.get(l.rank()).isEmpty() || s.get(l.size()).isEmpty()) {
            return false;
        }
        return !l.launcher().equals("Slurm") || s.get("SLURM_STEP_ID").filter(v -> v.matches("\\d+")).isPresent();
    }

    /** Whether rank 0's store address must come through the launcher's channel instead of MASTER_ADDR/PORT. */
    public boolean rendezvousThroughLauncher() {
        return launcher != null && masterPort == 0 && size > 1;
    }

    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    /** Reads and checks the configuration; the message lists every missing or wrong variable at once. */
    public static JobConfig from(Settings s) {
        return from(s, null);
    }

    /**
     * As {@link #from(Settings)}, for a job whose rendezvous address comes through {@code channel}, a channel the
     * caller holds (Spark's barrier tasks' {@code allGather}, ...), which places the job as a launcher would:
     * MASTER_ADDR and MASTER_PORT are neither needed nor read.
     */
    public static JobConfig from(Settings s, String channel) {
        List<String> problems = new ArrayList<>();
        String launcher = null;
        if (s.get("RANK").isEmpty() && s.get("WORLD_SIZE").isEmpty()) {
            for (LauncherVariables l : LAUNCHERS) {
                if (places(l, s)) {
                    launcher = l.launcher();
                    s = s.with("JCOLL_RANK", s.get(l.rank()).get()).with("JCOLL_WORLD_SIZE", s.get(l.size()).get());
                    if (s.get("LOCAL_RANK").isEmpty() && s.get(l.localRank()).isPresent()) {
                        s = s.with("JCOLL_LOCAL_RANK", s.get(l.localRank()).get());
                    }
                    if (l.localSize() != null && s.get("LOCAL_WORLD_SIZE").isEmpty() && s.get(l.localSize()).isPresent()) {
                        s = s.with("JCOLL_LOCAL_WORLD_SIZE", s.get(l.localSize()).get());
                    }
                    break;
                }
            }
        }
        Integer size = integer(s, "WORLD_SIZE", problems, true);
        Integer rank = integer(s, "RANK", problems, true);
        Integer localRank = integer(s, "LOCAL_RANK", problems, false);
        Integer localSize = integer(s, "LOCAL_WORLD_SIZE", problems, false);
        // under a launcher, rank 0's address can come through the launcher instead
        Integer port = channel != null ? null
                : integer(s, "MASTER_PORT", problems, size != null && size > 1 && launcher == null);
        if (size != null && size < 1) {
            problems.add("WORLD_SIZE=" + size + " must be at least 1");
        }
        if (size != null && rank != null && (rank < 0 || rank >= size)) {
            problems.add("RANK=" + rank + " must be in 0.." + (size - 1) + " for WORLD_SIZE=" + size);
        }
        if (port != null && (port < 1 || port > 65535)) {
            problems.add("MASTER_PORT=" + port + " must be in 1..65535");
        }
        Duration timeout = DEFAULT_TIMEOUT;
        try {
            timeout = s.getDuration("JCOLL_TIMEOUT", DEFAULT_TIMEOUT);
            if (timeout.isNegative() || timeout.isZero()) {
                problems.add("JCOLL_TIMEOUT must be positive");
            }
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (!problems.isEmpty()) {
            throw new BootstrapException("bootstrap", rank == null ? JcollException.NONE : rank, JcollException.NONE,
                    "cannot read this rank's place in the job from the environment: " + String.join("; ", problems)
                            + ". Start ranks with `jcoll launch`, torchrun-style variables, mpirun or srun, "
                            + "or Jcoll.builder()");
        }
        return new JobConfig(rank, size,
                localRank == null ? rank : localRank,
                localSize == null ? size : localSize,
                s.get("MASTER_ADDR").orElse("127.0.0.1"),
                port == null ? 0 : port,
                s.get("JCOLL_TOKEN").orElse("").getBytes(StandardCharsets.UTF_8),
                timeout,
                s.get("JCOLL_TRANSPORT").orElse("auto").toLowerCase(java.util.Locale.ROOT),
                channel != null ? channel : launcher,
                localRank != null, localSize != null);
    }

    private static Integer integer(Settings s, String name, List<String> problems, boolean required) {
        var v = s.get(name);
        if (v.isEmpty()) {
            if (required) {
                problems.add(name + " is not set");
            }
            return null;
        }
        try {
            return Integer.parseInt(v.get());
        } catch (NumberFormatException e) {
            problems.add(s.sourceOf(name) + "='" + v.get() + "' is not a whole number");
            return null;
        }
    }
}
