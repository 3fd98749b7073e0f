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
 * {@code JCOLL_TIMEOUT} and {@code JCOLL_TRANSPORT}.
 *
 * @param rank         this rank, 0 to size - 1
 * @param size         number of ranks
 * @param localRank    index on this host (defaults to rank)
 * @param localSize    ranks on this host (defaults to size)
 * @param masterAddr   host of rank 0's rendezvous store
 * @param masterPort   port of rank 0's rendezvous store
 * @param token        the job's secret (empty: connections are not authenticated)
 * @param timeout      limit of every blocking wait
 * @param transport    {@code auto} or a transport name
 */
public record JobConfig(int rank, int size, int localRank, int localSize, String masterAddr, int masterPort,
                        byte[] token, Duration timeout, String transport) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    /** Reads and checks the configuration; the message lists every missing or wrong variable at once. */
    public static JobConfig from(Settings s) {
        List<String> problems = new ArrayList<>();
        Integer size = integer(s, "WORLD_SIZE", problems, true);
        Integer rank = integer(s, "RANK", problems, true);
        Integer localRank = integer(s, "LOCAL_RANK", problems, false);
        Integer localSize = integer(s, "LOCAL_WORLD_SIZE", problems, false);
        Integer port = integer(s, "MASTER_PORT", problems, size != null && size > 1);
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
                            + ". Start ranks with `jcoll launch`, torchrun-style variables, or Jcoll.builder()");
        }
        return new JobConfig(rank, size,
                localRank == null ? rank : localRank,
                localSize == null ? size : localSize,
                s.get("MASTER_ADDR").orElse("127.0.0.1"),
                port == null ? 0 : port,
                s.get("JCOLL_TOKEN").orElse("").getBytes(StandardCharsets.UTF_8),
                timeout,
                s.get("JCOLL_TRANSPORT").orElse("auto").toLowerCase(java.util.Locale.ROOT));
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
