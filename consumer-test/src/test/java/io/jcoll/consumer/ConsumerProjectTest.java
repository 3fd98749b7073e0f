package io.jcoll.consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the published artifacts gets: small Maven projects that import
 * jcoll-bom and depend on jcoll's modules are built offline against the local
 * repository (where {@code mvn install} just put them), their dependency trees
 * are checked, and the README's quick start runs on two ranks.
 */
class ConsumerProjectTest {

    private static final String VERSION = System.getProperty("jcoll.version", "0.1.0-SNAPSHOT");

    record Result(int exit, String output) {
    }

    static Path project(String name, Path into) throws IOException {
        Path from = Path.of("src/test/consumers", name);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path to = into.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.writeString(to, Files.readString(f).replace("JCOLL_VERSION", VERSION)
                            .replace("SLF4J_VERSION", System.getProperty("slf4j.version", "2.0.17"))
                            .replace("LOGBACK_VERSION", System.getProperty("logback.version", "1.5.18"))
                            .replace("LOG4J_VERSION", System.getProperty("log4j.version", "2.24.3")));
                }
            }
        }
        return into;
    }

    static Result run(Path dir, List<String> command, java.util.Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
        return new Result(p.exitValue(), out);
    }

    static Result mvn(Path dir, String... goals) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("mvn", "-o", "-q", "-B"));
        cmd.addAll(List.of(goals));
        return run(dir, cmd, java.util.Map.of());
    }

    /** The project's runtime dependencies as {@code group:artifact:type[:classifier]}, from dependency:list. */
    static List<String> runtimeDependencies(Path dir) throws Exception {
        return dependencies(dir, "runtime");
    }

    /** The project's dependencies of {@code scope} (compile: compile, provided and system) as runtimeDependencies. */
    static List<String> dependencies(Path dir, String scope) throws Exception {
        Result r = mvn(dir, "dependency:list", "-DincludeScope=" + scope, "-DoutputFile=deps.txt");
        assertEquals(0, r.exit(), r.output());
        List<String> deps = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("deps.txt"))) {
            String[] f = line.trim().split(":");
            if (f.length >= 5) {
                // group:artifact:type[:classifier]:version:scope
                deps.add(f.length == 6 ? f[0] + ":" + f[1] + ":" + f[2] + ":" + f[3] : f[0] + ":" + f[1] + ":" + f[2]);
            }
        }
        deps.sort(null);
        return deps;
    }

    /** The README's ten lines are this project's code, line for line and in order: what CI runs is what readers copy. */
    @Test
    void theReadmesExampleIsTheCodeThisProjectRuns() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("```java\n");
        assertTrue(start >= 0, "README.md has no java block");
        String block = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 1));
        List<String> code = Files.readAllLines(Path.of("src/test/consumers/tcp/src/main/java/example/Main.java"))
                .stream().map(String::strip).toList();
        int at = 0;
        for (String line : block.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            int found = code.subList(at, code.size()).indexOf(line);
            assertTrue(found >= 0, "the README's line '" + line + "' is not in the consumer project's Main.java, in order");
            at += found + 1;
        }
    }

    @Test
    void apiAndTcpBringNoNativeJarsAndTheQuickStartRuns(@TempDir Path tmp) throws Exception {
        Path dir = project("tcp", tmp);
        assertEquals(List.of("io.jcoll:jcoll-api:jar", "io.jcoll:jcoll-tcp:jar"), runtimeDependencies(dir));
        Result build = mvn(dir, "package", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt");
        assertEquals(0, build.exit(), build.output());
        String cp = dir.resolve("target/classes") + java.io.File.pathSeparator + Files.readString(dir.resolve("cp.txt")).trim();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<Process> ranks = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", cp, "example.Main").redirectErrorStream(true);
            pb.environment().putAll(java.util.Map.of("RANK", Integer.toString(rank), "WORLD_SIZE", "2",
                    "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", Integer.toString(port), "JCOLL_TOKEN", "consumer-test",
                    "JCOLL_TRANSPORT", "auto"));
            ranks.add(pb.start());
        }
        for (int rank = 0; rank < 2; rank++) {
            Process p = ranks.get(rank);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains(rank + "/2 via tcp"), out);
            assertTrue(out.contains("average 0.5 at the first element, 0.5 at the last"), out);
        }
    }

    /**
     * An application that logs through SLF4J and Logback, or through Log4j 2, adds the platform-logging bridge its
     * logging publishes, and jcoll's records (System.Logger) come out in its own format: here, a one-rank job that
     * aborts, and the record saying where its flight recorder went. The JDK's own two-line format must not appear.
     */
    @Test
    void jcollsRecordsReachSlf4jAndLog4jThroughTheirBridges(@TempDir Path tmp) throws Exception {
        for (String[] c : new String[][] {{"logging-slf4j", "LOGBACK INFO "}, {"logging-log4j", "LOG4J INFO "}}) {
            Path dir = project(c[0], Files.createDirectory(tmp.resolve(c[0])));
            Result build = mvn(dir, "package", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt");
            assertEquals(0, build.exit(), build.output());
            String cp = dir.resolve("target/classes") + java.io.File.pathSeparator
                    + Files.readString(dir.resolve("cp.txt")).trim();
            Result r = run(dir, List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp,
                    "example.Main"), java.util.Map.of("JCOLL_TRACE_DIR", dir.resolve("traces").toString()));
            assertTrue(r.output().contains(c[1] + "io.jcoll.internal.CommunicatorImpl - rank 0 wrote the last calls "
                    + "of its 1 communicator to "), c[0] + ": " + r.output());
            assertTrue(!r.output().contains("INFO: rank 0 wrote"), "the JDK's own format: " + r.output());
            assertTrue(Files.list(dir.resolve("traces")).count() == 1, r.output());
        }
    }

    @Test
    void theNcclTransportBringsOnlyJavacppAndTheCudaPresetsForLinux(@TempDir Path tmp) throws Exception {
        List<String> deps = runtimeDependencies(project("nccl", tmp));
        assertEquals(List.of("io.jcoll:jcoll-api:jar", "io.jcoll:jcoll-native:jar", "io.jcoll:jcoll-nccl:jar",
                "org.bytedeco:cuda:jar", "org.bytedeco:cuda:jar:linux-x86_64", "org.bytedeco:javacpp:jar",
                "org.bytedeco:javacpp:jar:linux-x86_64"), deps);
        assertTrue(deps.stream().noneMatch(d -> d.contains("redist")), deps.toString());
    }

    @Test
    void theMpiModuleBringsOnlyJna(@TempDir Path tmp) throws Exception {
        assertEquals(List.of("io.jcoll:jcoll-api:jar", "io.jcoll:jcoll-mpi:jar", "net.java.dev.jna:jna:jar"),
                runtimeDependencies(project("mpi", tmp)));
    }

    @Test
    void theSparkModuleBringsNothingOfSparkOrScala(@TempDir Path tmp) throws Exception {
        Path dir = project("spark", tmp);
        List<String> expected = List.of("io.jcoll:jcoll-api:jar", "io.jcoll:jcoll-shm:jar", "io.jcoll:jcoll-spark:jar",
                "io.jcoll:jcoll-tcp:jar");
        assertEquals(expected, runtimeDependencies(dir));
        assertEquals(expected, dependencies(dir, "compile"));
    }
}
