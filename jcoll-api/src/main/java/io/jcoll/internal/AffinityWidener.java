package io.jcoll.internal;

import io.jcoll.probe.CpuAffinity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Widens the CPU mask of every thread of this process through util-linux's {@code taskset -a -p -c}. Java has no
 * call for {@code sched_setaffinity}, and a mask is per thread: the threads the JVM started before this (its
 * garbage collector and compiler threads, the store client's) must widen as well as the one asking, which
 * {@code taskset -a} does over {@code /proc/PID/task}. Threads started afterwards inherit the wider mask.
 */
final class AffinityWidener {

    /**
     * What the threads may run on afterwards.
     *
     * @param now     the CPUs every thread of this process may now run on (the narrowest thread's), ascending
     * @param problem why the mask is not (all of) the one asked for, or null
     */
    record Outcome(List<Integer> now, String problem) {
    }

    private static final long LIMIT_SECONDS = 5;

    private AffinityWidener() {
    }

    /** Widens every thread to {@code target}; threads started meanwhile are caught by a second pass. */
    static Outcome widen(List<Integer> target) {
        String list = CpuAffinity.ranges(target);
        List<Integer> now = List.of();
        for (int pass = 0; pass < 2; pass++) {
            String failed = taskset(list);
            now = narrowestThread();
            if (failed != null || now.containsAll(target)) {
                return new Outcome(now, failed);
            }
        }
        return new Outcome(now, "the kernel kept CPUs " + CpuAffinity.ranges(now) + " of the " + list + " asked for "
                + "(a cpuset, such as a container's or the batch system's cgroup, allows no more)");
    }

    /** Runs {@code taskset}; null when it succeeded, else what went wrong. */
    private static String taskset(String list) {
        List<String> command = List.of("taskset", "-a", "-p", "-c", list, Long.toString(ProcessHandle.current().pid()));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "'" + String.join(" ", command) + "' did not finish in " + LIMIT_SECONDS + " s";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                String last = out.lines().reduce((a, b) -> b).orElse("no output");
                return "'" + String.join(" ", command) + "' exited with " + p.exitValue() + ": " + last;
            }
            return null;
        } catch (IOException e) {
            return "taskset (util-linux) could not be run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while taskset ran";
        }
    }

    /** The mask of this process's narrowest thread, from {@code /proc/self/task/TID/status}. */
    static List<Integer> narrowestThread() {
        TreeSet<Integer> common = null;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                List<Integer> cpus = mask(task.resolve("status"));
                if (cpus == null) {
                    continue; // the thread ended while we looked
                }
                if (common == null) {
                    common = new TreeSet<>(cpus);
                } else {
                    common.retainAll(cpus);
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return common == null ? List.of() : new ArrayList<>(common);
    }

    private static List<Integer> mask(Path status) {
        try {
            return CpuAffinity.allowedListIn(Files.readAllLines(status, StandardCharsets.UTF_8))
                    .map(CpuAffinity::parseList).orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
