package io.jcoll.tcp;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The multi-host bench's script ({@code benchmarks/netns/hosts.sh}) as the namespace tests drive it: "hosts" that
 * are network namespaces, made and removed around a test class. Needs root, {@code ip} and {@code unshare}.
 */
final class NamespaceHosts {

    static final Path SCRIPT = Path.of("..", "benchmarks", "netns", "hosts.sh").toAbsolutePath().normalize();

    private NamespaceHosts() {
    }

    /** Builds hosts with {@code hosts.sh up ARGS...}, or skips the class, saying why. */
    static void upOrSkip(List<String> args, Map<String, String> env) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "SKIPPED: namespaces need root");
        Assumptions.assumeTrue(Commands.onPath("ip") && Commands.onPath("unshare"), "SKIPPED: no ip or unshare");
        List<String> up = new ArrayList<>(List.of("up"));
        up.addAll(args);
        Commands.Result r = run(up, env, 60);
        Assumptions.assumeTrue(r.exit() == 0, "SKIPPED: these hosts cannot be made here: " + r.output());
    }

    /** {@code hosts.sh ARGS...} with {@code env} added, within {@code timeoutSeconds}. */
    static Commands.Result run(List<String> args, Map<String, String> env, int timeoutSeconds) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(args);
        return Commands.run(cmd, env, timeoutSeconds);
    }

    /** Removes every host, and the switch behind them. */
    static void down() throws Exception {
        if (Files.exists(SCRIPT)) {
            run(List.of("down"), Map.of(), 60);
        }
    }
}
