package io.jcoll.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** External commands tests start (mpirun, mpiexec.mpich, java): whether they are installed, and running them. */
public final class Commands {

    /** Variables that place a process in a job: a command started by a test must not inherit a stray one. */
    private static final List<String> JOB_VARIABLES = List.of("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE",
            "LOCAL_RANK", "LOCAL_WORLD_SIZE", "JCOLL_TOKEN", "JCOLL_TRANSPORT");

    /** How a command ended: its exit code and its output, standard error included. */
    public record Result(int exit, String output) {
    }

    private Commands() {
    }

    /** Whether {@code command} is an executable in a directory of the {@code PATH}. */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /** The {@code java} of the JVM running the tests. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Runs {@code command} with this environment less any job placement (and any MPI launcher's variables),
     * plus {@code env}; fails the test if it runs past {@code timeoutSeconds}.
     */
    public static Result run(List<String> command, Map<String, String> env, int timeoutSeconds)
            throws IOException, InterruptedException {
        Process p = builder(command, env).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // until it closes its output
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command.get(0) + " did not finish in " + timeoutSeconds + " s:\n" + out);
        }
        return new Result(p.exitValue(), out);
    }

    /**
     * Starts {@code command} as {@link #run} does and returns it running, its output discarded: for a process the
     * test ends itself (a rank it kills).
     */
    public static Process start(List<String> command, Map<String, String> env) throws IOException {
        return builder(command, env).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static ProcessBuilder builder(List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> JOB_VARIABLES.contains(k) || k.startsWith("OMPI_") || k.startsWith("PMI_"));
        pb.environment().putAll(env);
        return pb;
    }
}
