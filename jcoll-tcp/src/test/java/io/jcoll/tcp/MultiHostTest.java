package io.jcoll.tcp;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jobs across four "hosts": network namespaces on one bridge with 1 Gbit/s links and their own host names
 * ({@code benchmarks/netns/hosts.sh}), one {@code jcoll launch --nnodes 4 --node-rank k} per host. Every
 * collective is checked against its reference, local ranks are counted per host, and a host whose link is cut
 * mid-AllReduce is named by the others, and raises itself, within JCOLL_TIMEOUT + 2 s. Needs root (CI and the
 * development machines are); traffic stays inside the namespaces.
 */
class MultiHostTest {

    private static final int TIMEOUT_SECONDS = 5;

    @BeforeAll
    static void fourHosts() throws Exception {
        NamespaceHosts.upOrSkip(List.of("4", "--rate", "1gbit"), env());
    }

    @AfterAll
    static void down() throws Exception {
        NamespaceHosts.down();
    }

    private static Commands.Result hosts(List<String> args, int timeout) throws Exception {
        return NamespaceHosts.run(args, env(), timeout);
    }

    private static Map<String, String> env() {
        return Map.of("CP", System.getProperty("java.class.path"), "JAVA", Commands.java(),
                "MASTER_PORT", "29511");
    }

    @Test
    void everyCollectiveIsRightAcrossFourHostsAndEachRankIsLocalRankZero() throws Exception {
        Commands.Result r = hosts(List.of("launch", "4", "1", "JCOLL_TIMEOUT=60s", "--",
                "io.jcoll.tcp.it.VerifyMain"), 240);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.output().matches("(?s).*host " + rank + ": \\[" + rank + "\\] rank " + rank
                    + " verified \\d+ cases over tcp; local rank 0\\b.*"), r.output());
        }
    }

    @Test
    void twoRanksOnEachOfTwoHostsCountThemselvesPerHostAndAllReduceInTwoLevels() throws Exception {
        // the data connections on the interface named in NCCL's syntax, as a user with several networks would;
        // small thresholds, so that AllReduces of a few KB already go in two levels
        Commands.Result r = hosts(List.of("launch", "2", "2", "JCOLL_TIMEOUT=60s", "JCOLL_SOCKET_IFNAME=^lo,docker",
                "JCOLL_TCP_SEGMENT=1K", "JCOLL_TCP_SMALL_ALLREDUCE=256", "--", "io.jcoll.tcp.it.VerifyMain"), 240);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.output().contains("[" + rank + "] rank " + rank + " verified") && r.output().contains(
                    "rank " + rank + " verified 1040 cases over tcp; local rank " + rank % 2), r.output());
        }
        assertTrue(r.output().contains("2 hosts x 2 ranks: rings in rank order (each host's ranks are neighbours); "
                + "large AllReduce in two levels"), r.output());
    }

    @Test
    void anInterfaceListThatAdmitsNothingFailsEveryNodeNamingTheInterfaces() throws Exception {
        Commands.Result r = hosts(List.of("launch", "2", "1", "JCOLL_TIMEOUT=20s", "JCOLL_SOCKET_IFNAME=ib", "--",
                "io.jcoll.tcp.it.VerifyMain"), 120);
        assertTrue(r.exit() != 0, r.output());
        assertTrue(r.output().contains("JCOLL_SOCKET_IFNAME=ib admits no interface that is up with an address here; "
                + "this host has [eth0 10.77.0."), r.output());
    }

    /**
     * The job-wide doctor on four hosts where the link between hosts 1 and 2 is shaped to a tenth of the others and
     * host 1 drops everything to host 3 (a blackhole route: this machine has no iptables or nft): it must name
     * exactly those two pairs, and nothing else.
     */
    @Test
    void theJobWideDoctorNamesTheSlowPairAndTheBlockedPairAndNothingElse() throws Exception {
        try {
            assertEquals(0, hosts(List.of("slow", "1", "2", "100mbit"), 30).exit());
            assertEquals(0, hosts(List.of("block", "1", "3"), 30).exit());
            long start = System.nanoTime();
            Commands.Result r = hosts(List.of("launch", "4", "1", "--", "io.jcoll.internal.Doctor", "--run"), 120);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("job-wide doctor on 4 hosts: %.1f s%n%s%n", seconds, r.output());
            assertEquals(1, r.exit(), "findings make the doctor exit 1: " + r.output());
            String out = r.output();
            assertTrue(out.contains("host 0: [0] findings: 2\n"), out);
            assertTrue(out.matches("(?s).*! the link between host1 and host2 is slow \\(host1 -> host2: 0\\.\\d\\d Gbit/s; "
                    + "host2 -> host1: 0\\.\\d\\d Gbit/s\\).*"), out);
            assertTrue(out.contains("! host1 and host3 cannot connect on their data interfaces"), out);
            assertTrue(seconds < 40, "the doctor took " + seconds + " s");
        } finally {
            // back to four plain hosts for the other tests
            hosts(List.of("up", "4", "--rate", "1gbit"), 60);
        }
    }

    @Test
    void aHostCutOffMidAllReduceIsNamedByTheOthersAndRaisesItself() throws Exception {
        File log = Files.createTempFile("multihost-cut", ".log").toFile();
        List<String> cmd = List.of("bash", NamespaceHosts.SCRIPT.toString(), "launch", "4", "1", "JCOLL_TIMEOUT=" + TIMEOUT_SECONDS
                + "s", "JCOLL_LAUNCH_GRACE=30", "--", "io.jcoll.tcp.it.LoopMain");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log);
        pb.environment().putAll(env());
        Process job = pb.start();
        long cut;
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (Files.readString(log.toPath()).split(" IN\n", -1).length - 1 < 4) {
                assertTrue(job.isAlive() && System.nanoTime() < until, "the job never got going: "
                        + Files.readString(log.toPath()));
                Thread.sleep(100);
            }
            Thread.sleep(500);
            cut = System.currentTimeMillis();
            assertEquals(0, hosts(List.of("cut", "3"), 30).exit());
            assertTrue(job.waitFor(60, TimeUnit.SECONDS), "a host's launcher did not end: "
                    + Files.readString(log.toPath()));
        } finally {
            job.descendants().forEach(ProcessHandle::destroyForcibly);
            job.destroyForcibly();
            hosts(List.of("heal", "3"), 30);
        }
        String out = Files.readString(log.toPath());
        for (int rank = 0; rank < 4; rank++) {
            Matcher m = Pattern.compile("\\[" + rank + "\\] CAUGHT (\\w+) peer=(-?\\d+) at=(\\d+)").matcher(out);
            assertTrue(m.find(), "rank " + rank + " did not raise: " + out);
            long after = Long.parseLong(m.group(3)) - cut;
            System.out.println("link of host 3 cut: rank " + rank + " raised " + m.group(1) + " naming rank "
                    + m.group(2) + " " + after + " ms after the cut");
            if (rank < 3) {
                assertEquals("3", m.group(2), "the connected ranks must name the cut-off rank: " + out);
            }
            assertTrue(after < (TIMEOUT_SECONDS + 2) * 1000L, "rank " + rank + " raised " + after
                    + " ms after the cut; JCOLL_TIMEOUT is " + TIMEOUT_SECONDS + " s: " + out);
        }
    }
}
