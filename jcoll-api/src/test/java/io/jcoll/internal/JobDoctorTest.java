package io.jcoll.internal;

import io.jcoll.JobReport;
import io.jcoll.bootstrap.Store;
import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job-wide doctor with real ranks (threads of this JVM, each with its own rendezvous connection), each rank
 * standing for a node of its own: its own {@code JCOLL_HOST_ID} and its own fixture machine under
 * {@code JCOLL_SYSFS_ROOT}. The link test runs for real over loopback.
 */
class JobDoctorTest {

    private static final String MACHINES = "src/test/machines/";

    private static Settings node(int rank, int size, int port, String host, String machine) {
        Map<String, String> m = new HashMap<>();
        m.put("JCOLL_RANK", Integer.toString(rank));
        m.put("JCOLL_WORLD_SIZE", Integer.toString(size));
        m.put("JCOLL_MASTER_ADDR", "127.0.0.1");
        m.put("JCOLL_MASTER_PORT", Integer.toString(port));
        m.put("JCOLL_TOKEN", "doctor-test");
        m.put("JCOLL_TIMEOUT", "30s");
        m.put("JCOLL_DOCTOR_WAIT", "3s");
        m.put("JCOLL_HOST_ID", host);
        m.put("JCOLL_SYSFS_ROOT", Path.of(MACHINES + machine).toAbsolutePath().toString());
        return Settings.of(m);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs the doctor as rank {@code settings}' rank, the way {@code jcoll doctor --run} does. */
    private static JobReport doctor(Settings settings) {
        Bootstrap.Joined joined = Bootstrap.join(settings);
        try {
            return JobDoctor.run(joined.store().scoped("test/"), joined.cfg().rank(), joined.cfg().size(),
                    HostIdentity.name(settings), joined.dataAddress(), settings);
        } finally {
            try {
                joined.rendezvous().close();
            } catch (Exception ignored) {
                // the test looks at the report
            }
        }
    }

    /** Runs {@code rank -> work} on threads for every rank given; returns their results by rank. */
    private static <T> List<T> ranks(int count, Function<Integer, T> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < count; r++) {
                int rank = r;
                futures.add(pool.submit(() -> work.apply(rank)));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get(120, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static JobReport.Finding finding(JobReport report, String... fragments) {
        return report.findings().stream().filter(f -> {
            for (String fragment : fragments) {
                if (!(f.problem() + " " + f.fix()).contains(fragment)) {
                    return false;
                }
            }
            return true;
        }).findFirst().orElseThrow(() -> new AssertionError("no finding with " + List.of(fragments) + " in:\n"
                + report.text()));
    }

    @Test
    void nodesThatDifferAreNamedAndEveryRankGetsTheSameReport() throws Exception {
        int port = freePort();
        String[] machines = {"roce-cx6-mtu9000", "roce-cx6-mtu9000", "roce-mtu1500-nopeermem", "roce-dmabuf-defaults"};
        List<JobReport> reports = ranks(4, r -> doctor(node(r, 4, port, "node-" + r, machines[r])));
        JobReport report = reports.get(0);
        for (JobReport other : reports) {
            assertEquals(report.text(), other.text(), "every rank reads rank 0's report");
        }
        assertEquals(List.of("node-0", "node-1", "node-2", "node-3"), report.hosts());

        JobReport.Finding mtu = finding(report, "the MTU of the interfaces that carry the job differs between nodes: "
                + "9000 on node-0, node-1, node-3; 1500 on node-2");
        assertEquals(List.of("node-2"), mtu.hosts());
        JobReport.Finding gpudirect = finding(report, "how GPUDirect RDMA is served differs", "nvidia_peermem on node-0, "
                + "node-1", "dma-buf on node-3", "none (", "kernel 5.4");
        assertEquals(List.of("node-2", "node-3"), gpudirect.hosts().stream().sorted().toList());
        assertEquals(List.of("node-3"), finding(report, "the locked-memory limit (ulimit -l) differs between nodes: "
                + "unlimited on node-0, node-1, node-2; 64 KiB on node-3").hosts());
        finding(report, "the socket buffer limits differ", "rmem_max 208 KiB");
        assertEquals(List.of("node-3"), finding(report, "on node-3: the locked-memory limit (ulimit -l) is 64 KiB").hosts());
        finding(report, "on node-3: RDMA adapters are present (mlx5_0) but the mlx5 provider");
        finding(report, "on node-2: RoCE port mlx5_0:1 runs over ens1f0np0 with MTU 1500");
        finding(report, "on node-2: RDMA ports are ACTIVE and there are GPUs, but no peer-memory module");
        assertTrue(report.findings().stream().noneMatch(f -> f.problem().contains("NCCL version")),
                "no rank has NCCL here, so all agree: " + report.text());

        assertEquals(12, report.links().size(), report.text());
        assertTrue(report.links().stream().allMatch(l -> l.reachable() && l.gbitPerSecond() > 0), report.text());
        assertTrue(report.findings().stream().noneMatch(f -> f.problem().contains("cannot connect")), report.text());
        assertTrue(report.json().contains("\"schema\": 1") && report.json().contains("\"gbit_per_s\""), report.json());
        assertTrue(!report.healthy());
    }

    @Test
    void aNodeWithAnotherCongestionControlIsNamed() throws Exception {
        int port = freePort();
        String[] machines = {"ethernet-untuned", "ethernet-bbr", "ethernet-untuned"};
        JobReport report = ranks(3, r -> doctor(node(r, 3, port, "node-" + r, machines[r]))).get(0);
        assertEquals(List.of("node-1"), finding(report, "the TCP congestion control differs between nodes: cubic on "
                + "node-0, node-2; bbr on node-1", "net.ipv4.tcp_congestion_control").hosts());
    }

    /**
     * Rank 3 never starts, and rank 2 sends a probe of another jcoll's schema: both are named, the others are
     * compared and tested, and the doctor ends within its bound.
     */
    @Test
    void aRankThatNeverReportsAndAProbeOfAnotherSchemaAreNamed() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        List<JobReport> reports = ranks(3, r -> {
            Settings s = node(r, 4, port, "node-" + r, "roce-cx6-mtu9000");
            if (r < 2) {
                return doctor(s);
            }
            Bootstrap.Joined joined = Bootstrap.join(s); // an older or newer jcoll: its probe is not ours
            joined.store().scoped("test/").set("probe/2", "schema=2\nrank=2\nhost=node-2\nmtu=9000\n"
                    .getBytes(StandardCharsets.UTF_8));
            return null;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        JobReport report = reports.get(0);
        finding(report, "rank(s) [3] sent no probe within 3 s");
        finding(report, "rank 2's probe could not be read: it is of schema 2, and this jcoll reads schema 1",
                "same jcoll version");
        assertEquals(List.of("node-0", "node-1"), report.hosts());
        assertEquals(2, report.links().size());
        assertTrue(seconds < JobDoctor.bound(Duration.ofSeconds(3), 2, null, PairLinkTest.PAIR_LIMIT).toSeconds(), "took " + seconds + " s");
        assertEquals(report.text(), reports.get(1).text());
    }

    /**
     * A host whose doctor accepts connections and then never reads or writes (a link that swallows traffic):
     * the watchdog ends each of its exchanges at the pair's limit, the report names it, and the run ends in time.
     */
    @Test
    void aHostThatHangsTheExchangeIsNamedWithinTheBound() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        List<JobReport> reports = ranks(3, r -> {
            Settings s = node(r, 3, port, r == 2 ? "node-stuck" : "node-" + r, "roce-cx6-mtu9000");
            if (r < 2) {
                return doctor(s);
            }
            Bootstrap.Joined joined = Bootstrap.join(s);
            Store store = joined.store().scoped("test/");
            store.set("probe/2", NodeProbe.take(2, "node-stuck", "127.0.0.1", s).encode());
            JobDoctor.Plan plan = JobDoctor.Plan.decode(store.get("plan", Duration.ofSeconds(30)).orElseThrow());
            int me = plan.ranks().indexOf(2);
            List<Socket> swallowed = new ArrayList<>();
            try (ServerSocket sink = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
                store.set("links/endpoint/" + me, ("127.0.0.1 " + sink.getLocalPort()).getBytes(StandardCharsets.UTF_8));
                for (int round = 0; round < LinkTest.rounds(plan.hosts().size()).length; round++) {
                    if (store.add("links/round/" + round, 1) == plan.hosts().size()) {
                        store.set("links/round/" + round + "/go", new byte[] {1});
                    }
                }
                sink.setSoTimeout(12_000);
                try {
                    swallowed.add(sink.accept()); // and never a byte back
                } catch (IOException ignored) {
                    // the partner that should dial here is the one waiting for this host's connection instead
                }
                store.get("report", Duration.ofSeconds(60));
                for (Socket sock : swallowed) {
                    sock.close();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return null;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        JobReport report = reports.get(0);
        assertTrue(report.findings().stream().anyMatch(f -> f.hosts().contains("node-stuck")
                && (f.problem().contains("stalled") || f.problem().contains("cannot connect")
                || f.problem().contains("exchanged nothing"))), report.text());
        assertTrue(report.findings().stream().noneMatch(f -> f.hosts().equals(List.of("node-0", "node-1"))),
                "the pair of working hosts is fine: " + report.text());
        assertTrue(seconds < JobDoctor.bound(Duration.ofSeconds(3), 3, null, PairLinkTest.PAIR_LIMIT).toSeconds(), "took " + seconds + " s");
    }

    /** Nodes that can all run the job's own transport (the in-memory stand-in for NCCL), one of them in {@code mode}. */
    private static List<JobReport> pairDoctor(int hosts, int odd, String mode) throws Exception {
        int port = freePort();
        return ranks(hosts, r -> {
            return doctor(node(r, hosts, port, "node-" + r, "roce-cx6-mtu9000")
                    .with(MemoryPairExchange.MODE, r == odd ? mode : "ok").with(PairLinkTest.LIMIT_SETTING, "3s"));
        });
    }

    @Test
    void everyPairIsAlsoTestedOverTheJobsOwnTransport() throws Exception {
        List<JobReport> reports = pairDoctor(4, -1, "ok");
        JobReport report = reports.get(0);
        assertEquals(report.text(), reports.get(3).text());
        List<JobReport.Link> nccl = report.links().stream().filter(l -> l.path().equals("nccl")).toList();
        assertEquals(12, nccl.size(), report.text());
        assertEquals(12, report.links().stream().filter(l -> l.path().equals(JobReport.Link.TCP)).count());
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) {
                String from = "node-" + a;
                String to = "node-" + b;
                assertEquals(a == b ? 0 : 1, nccl.stream().filter(l -> l.from().equals(from) && l.to().equals(to)
                        && l.reachable() && l.gbitPerSecond() > 0 && l.note().isEmpty()).count(), report.text());
            }
        }
        assertTrue(report.text().contains("NCCL send/recv between hosts (Gbit/s"), report.text());
        assertTrue(report.json().contains("\"path\": \"nccl\""), report.json());
        assertTrue(report.findings().stream().noneMatch(f -> f.problem().contains("NCCL")), report.text());
    }

    @Test
    void aNodeWhoseTransportCannotConnectIsNamedAndItsTcpLinksAreNot() throws Exception {
        long start = System.nanoTime();
        JobReport report = pairDoctor(3, 2, "refuse").get(0);
        double seconds = (System.nanoTime() - start) / 1e9;
        JobReport.Finding f = finding(report, "node-2 exchanged nothing with any other host over NCCL",
                "this node's network refused", "NCCL_DEBUG=INFO");
        assertEquals(List.of("node-2"), f.hosts());
        // TCP between the same hosts is fine: every link of node-2 carried data and no other finding blames its
        // network. The link test measures real loopback sockets, and on two busy cores it may find one pair slow
        // (seen in CI: node-1 -> node-2 at 9.1 against a median of 21.5 Gbit/s), so speed is not asserted here
        assertTrue(report.links().stream().filter(l -> l.path().equals(JobReport.Link.TCP)
                && (l.from().equals("node-2") || l.to().equals("node-2")))
                .allMatch(l -> l.reachable() && l.gbitPerSecond() > 0), report.text());
        assertTrue(report.findings().stream().noneMatch(x -> x != f && x.hosts().contains("node-2")
                && !x.problem().contains(" is slow ")), report.text());
        assertTrue(report.links().stream().filter(l -> l.path().equals("nccl") && !l.from().equals("node-2")
                && !l.to().equals("node-2")).allMatch(l -> l.reachable() && l.gbitPerSecond() > 0), report.text());
        assertTrue(seconds < JobDoctor.bound(Duration.ofSeconds(3), 3, "nccl", Duration.ofSeconds(3)).toSeconds(),
                "took " + seconds + " s");
    }

    @Test
    void aTransportThatHangsPastItsDeadlineIsNamedWithinTheBound() throws Exception {
        long start = System.nanoTime();
        JobReport report = pairDoctor(3, 1, "hang").get(0);
        double seconds = (System.nanoTime() - start) / 1e9;
        JobReport.Finding f = finding(report, "node-1 exchanged nothing with any other host over NCCL");
        assertEquals(List.of("node-1"), f.hosts());
        assertTrue(report.links().stream().anyMatch(l -> l.path().equals("nccl") && l.note().contains(
                "did not end within 3 s")), report.text());
        assertTrue(report.links().stream().anyMatch(l -> l.path().equals("nccl") && l.note().contains(
                "still receiving at the deadline")), report.text());
        // the hang is one finding, not one per link; the TCP link test beside it measures real loopback sockets,
        // and on two busy cores it may find one pair slow (seen once in CI: 13.8 against a median of 28.7 Gbit/s)
        assertTrue(report.findings().stream().noneMatch(x -> x != f && x.problem().contains("NCCL")), report.text());
        assertTrue(seconds < JobDoctor.bound(Duration.ofSeconds(3), 3, "nccl", Duration.ofSeconds(3)).toSeconds(),
                "took " + seconds + " s");
    }

    @Test
    void theTransportIsTestedOnlyWhereEveryNodeCanRunIt() throws Exception {
        int port = freePort();
        JobReport report = ranks(3, r -> {
            Settings s = node(r, 3, port, "node-" + r, "roce-cx6-mtu9000");
            return doctor(r == 1 ? s : s.with(MemoryPairExchange.MODE, "ok"));
        }).get(0);
        assertTrue(report.links().stream().allMatch(l -> l.path().equals(JobReport.Link.TCP)), report.text());
        assertTrue(!report.text().contains("NCCL send/recv"), report.text());
    }

    @Test
    void probesThatAreNotProbesAreRefusedByName() throws Exception {
        NodeProbe good = new NodeProbe(Map.of(NodeProbe.SCHEMA_KEY, "1", NodeProbe.RANK, "5", NodeProbe.HOST,
                "a\nb=c\\d"), List.of("line one\nline two"));
        NodeProbe back = NodeProbe.decode(good.encode(), 5);
        assertEquals("a\nb=c\\d", back.host(), "values with newlines, = and backslashes survive");
        assertEquals(good.warnings(), back.warnings());

        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            try {
                NodeProbe.decode(junk, 1);
            } catch (NodeProbe.Unreadable expected) {
                assertTrue(!expected.getMessage().isEmpty());
            }
        }
        assertTrue(assertThrows(NodeProbe.Unreadable.class, () -> NodeProbe.decode(good.encode(), 4)).getMessage()
                .contains("it says rank 5 in rank 4's place"));
        assertTrue(assertThrows(NodeProbe.Unreadable.class, () -> NodeProbe.decode("host=x\n".getBytes(
                StandardCharsets.UTF_8), 0)).getMessage().contains("no schema number"));
        assertTrue(assertThrows(NodeProbe.Unreadable.class, () -> NodeProbe.decode(new byte[NodeProbe.MAX_BYTES + 1],
                0)).getMessage().contains("over the"));
    }

    /** The tournament: every pair of hosts meets exactly once, and no host is in two pairs of one round. */
    @Test
    void everyPairOfHostsMeetsOnceAndNoHostTwiceInARound() {
        for (int hosts = 1; hosts <= 9; hosts++) {
            int[][] rounds = LinkTest.rounds(hosts);
            int[][] met = new int[hosts][hosts];
            for (int[] round : rounds) {
                for (int h = 0; h < hosts; h++) {
                    int p = round[h];
                    if (p >= 0) {
                        assertEquals(h, round[p], "pairs are mutual");
                        met[h][p]++;
                    }
                }
            }
            for (int a = 0; a < hosts; a++) {
                for (int b = 0; b < hosts; b++) {
                    assertEquals(a == b ? 0 : 1, met[a][b], hosts + " hosts: " + a + " and " + b);
                }
            }
        }
    }

    /** Link findings from measured directions: a slow pair, an unreachable pair, and a host slow with everyone. */
    @Test
    void slowAndUnreachableLinksAreNamedByPairOrByHost() {
        List<String> hosts = List.of("h0", "h1", "h2", "h3");
        LinkTest.Direction fast = new LinkTest.Direction(true, 1_000_000_000L, 8_000_000_000L, ""); // 1 Gbit/s
        LinkTest.Direction slow = new LinkTest.Direction(true, 100_000_000L, 8_000_000_000L, "");   // 0.1 Gbit/s
        LinkTest.Direction none = new LinkTest.Direction(false, 0, 0, "no connection");
        LinkTest.Direction[][] d = new LinkTest.Direction[4][4];
        for (LinkTest.Direction[] row : d) {
            java.util.Arrays.fill(row, fast);
        }
        d[1][2] = slow;
        d[2][1] = slow;
        d[1][3] = none;
        d[3][1] = none;
        List<JobReport.Finding> f = JobDoctor.linkFindings(hosts, d);
        assertEquals(2, f.size(), f.toString());
        assertTrue(f.stream().anyMatch(x -> x.problem().startsWith("h1 and h3 cannot connect")
                && x.hosts().equals(List.of("h1", "h3"))), f.toString());
        assertTrue(f.stream().anyMatch(x -> x.problem().startsWith("the link between h1 and h2 is slow (h1 -> h2: "
                + "0.10 Gbit/s") && x.hosts().equals(List.of("h1", "h2"))), f.toString());

        for (LinkTest.Direction[] row : d) {
            java.util.Arrays.fill(row, fast);
        }
        for (int o = 0; o < 4; o++) {
            d[2][o] = slow;
            d[o][2] = slow;
        }
        f = JobDoctor.linkFindings(hosts, d);
        assertEquals(1, f.size(), f.toString());
        assertTrue(f.get(0).problem().startsWith("h2's link is slow with every other host"), f.toString());
        assertEquals(List.of("h2"), f.get(0).hosts());
    }
}
