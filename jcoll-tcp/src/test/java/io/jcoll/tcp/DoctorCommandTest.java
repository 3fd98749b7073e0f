package io.jcoll.tcp;

import io.jcoll.testing.JsonReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jcoll doctor} as a command, in its own JVM: exit codes, {@code --json}, {@code --run}. */
class DoctorCommandTest {

    record Result(int exit, String out, String err) {
    }

    static Result doctor(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.jcoll.internal.Doctor"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JCOLL_TRANSPORT");
        pb.environment().remove("MASTER_ADDR");
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "doctor did not finish");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    @SuppressWarnings("unchecked")
    void runsARealJobAndReportsWhatItUsed() throws Exception {
        Result r = doctor(Map.of(), "--json", "--run", "3", "--sysfs-root", "../jcoll-api/src/test/machines/cloud-vm-ethernet");
        assertEquals(0, r.exit(), r.err() + r.out());
        Map<String, Object> doc = (Map<String, Object>) JsonReader.parse(r.out());
        assertEquals("tcp", ((Map<String, Object>) doc.get("selection")).get("chosen"));
        Map<String, Object> run = (Map<String, Object>) doc.get("run");
        assertEquals(Boolean.TRUE, run.get("ok"), String.valueOf(run.get("error")));
        assertEquals(3.0, run.get("ranks"));
        Map<String, Object> network = (Map<String, Object>) run.get("network");
        assertEquals(List.of("TCP"), network.get("paths"));
        assertTrue(((List<String>) network.get("devices")).stream().allMatch(d -> d.startsWith("lo:")), network.toString());
        assertEquals(Boolean.TRUE, doc.get("healthy"));
    }

    @Test
    void exitsNonZeroWhenTheRequestedTransportCannotWork() throws Exception {
        Result r = doctor(Map.of("JCOLL_TRANSPORT", "nccl"));
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("JCOLL_TRANSPORT=nccl: NOTHING CAN RUN"), r.out());
        assertEquals(0, doctor(Map.of("JCOLL_TRANSPORT", "tcp")).exit());
        Result bad = doctor(Map.of(), "--sysfs-root", "/no/such/dir");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("--sysfs-root needs a directory"), bad.err());
    }
}
