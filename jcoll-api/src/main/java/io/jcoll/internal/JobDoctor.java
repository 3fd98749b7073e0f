package io.jcoll.internal;

import io.jcoll.JobReport;
import io.jcoll.JobReport.Finding;
import io.jcoll.JobReport.Link;
import io.jcoll.bootstrap.Store;
import io.jcoll.spi.Settings;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The doctor across a whole job. Every rank probes its node and puts the probe in the rendezvous store; rank 0
 * gathers them (a rank that never reports, or reports in another schema, is named), compares the nodes
 * ({@link JobChecks}), and names one process per host to measure the network between every pair of hosts
 * ({@link LinkTest}); then it writes the report to the store, where every rank reads it. Only the store is needed,
 * not a formed transport, so the doctor also runs where the transport cannot form. Every wait is bounded:
 * the whole run ends within {@link #bound}. Where every node can run NCCL, each pair of hosts is also tested over NCCL's
 * own send/recv ({@link PairLinkTest}), the path such a job really takes between nodes.
 */
final class JobDoctor {

    /**
     * How long rank 0 waits for the probes unless {@code JCOLL_DOCTOR_WAIT} says otherwise; NCCL's probe loads CUDA,
     * which can take a few seconds, and ranks start at different times.
     */
    static final Duration PROBE_WAIT = Duration.ofSeconds(15);
    /** A direction below this share of the median between hosts is flagged. */
    static final double SLOW_SHARE = 0.5;

    /**
     * What the doctor needs of the process it runs in.
     *
     * @param host        this process's host name (ranks with the same one share a node)
     * @param dataAddress the address its data connections use
     * @param settings    its configuration ({@code JCOLL_SYSFS_ROOT} included)
     */
    record Context(String host, InetAddress dataAddress, Settings settings) {
    }

    private final Store store;      // scoped to this run of the doctor
    private final int rank;
    private final int size;
    private final Duration probeWait;

    private JobDoctor(Store store, int rank, int size, Duration probeWait) {
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.probeWait = probeWait;
    }

    /**
     * An upper bound of one run with {@code hosts} hosts (rank 0's waits, one round per host and some slack), with
     * the test over the job's own transport where {@code pairs} names one.
     */
    static Duration bound(Duration probeWait, int hosts, String pairs, Duration pairLimit) {
        Duration round = LinkTest.PAIR_LIMIT.plus(LinkTest.CONNECT).plusSeconds(2);
        Duration tests = round.multipliedBy(Math.max(1, hosts));
        if (pairs != null) {
            tests = tests.plus(PairLinkTest.bound(hosts, pairLimit));
        }
        return probeWait.plus(tests).plusSeconds(5);
    }

    /**
     * Runs this rank's part; every rank of the job calls it with a store scoped alike.
     *
     * @param host        this rank's host name (ranks with the same one share a node)
     * @param dataAddress the address this rank's data connections use
     */
    static JobReport run(Store store, int rank, int size, String host, InetAddress dataAddress, Settings settings) {
        return new JobDoctor(store, rank, size, settings.getDuration("JCOLL_DOCTOR_WAIT", PROBE_WAIT))
                .run(host, dataAddress, settings);
    }

    private JobReport run(String host, InetAddress dataAddress, Settings settings) {
        long start = System.nanoTime();
        NodeProbe mine = NodeProbe.take(rank, host, dataAddress.getHostAddress(), settings);
        store.set("probe/" + rank, mine.encode());
        Plan plan;
        Gathered gathered = null;
        if (rank == 0) {
            gathered = gather(mine);
            plan = Plan.of(gathered.probes());
            store.set("plan", plan.encode());
        } else {
            plan = store.get("plan", probeWait.plusSeconds(5)).map(Plan::decode).orElse(null);
            if (plan == null) {
                throw new io.jcoll.exceptions.BootstrapException("doctor", rank, 0, "rank 0 published no plan within "
                        + probeWait.plusSeconds(5).toSeconds() + " s: it stopped or cannot reach its own store");
            }
        }
        int me = plan.ranks().indexOf(rank);
        if (me >= 0) {
            LinkTest.run(store, me, plan.hosts(), dataAddress);
            if (plan.pairs() != null) {
                PairLinkTest.run(store, plan.pairs(), me, plan.hosts(), settings);
            }
        }
        if (rank == 0) {
            // the rounds start together, so the others finish theirs within about one exchange of this rank
            long deadline = System.nanoTime() + LinkTest.PAIR_LIMIT.plusSeconds(1).toNanos();
            LinkTest.Direction[][] d = LinkTest.results(store, LinkTest.KEYS, plan.hosts().size(), deadline);
            LinkTest.Direction[][] p = null;
            if (plan.pairs() != null) {
                p = LinkTest.results(store, PairLinkTest.keys(plan.pairs()), plan.hosts().size(),
                        System.nanoTime() + PairLinkTest.limit(settings).plusSeconds(2).toNanos());
            }
            JobReport report = compose(gathered, plan, d, p, Duration.ofNanos(System.nanoTime() - start));
            store.set("report", encode(report));
            waitForReaders();
            return report;
        }
        Duration bound = bound(probeWait, plan.hosts().size(), plan.pairs(), PairLinkTest.limit(settings));
        byte[] raw = store.get("report", bound).orElseThrow(() -> new io.jcoll.exceptions.BootstrapException("doctor",
                rank, 0, "rank 0 published no report within " + bound.toSeconds() + " s"));
        store.add("report/read", 1);
        return decode(raw);
    }

    /** Rank 0 hosts the store in a standalone doctor: it stays until the others have read the report (2 s at most). */
    private void waitForReaders() {
        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (store.add("report/read", 0) < size - 1 && System.nanoTime() < until) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The probes that arrived, those that could not be read, and the ranks that sent none. */
    record Gathered(java.util.SortedMap<Integer, NodeProbe> probes, Map<Integer, String> unreadable, List<Integer> missing) {
    }

    private Gathered gather(NodeProbe mine) {
        java.util.SortedMap<Integer, NodeProbe> probes = new TreeMap<>();
        Map<Integer, String> unreadable = new TreeMap<>();
        List<Integer> missing = new ArrayList<>();
        probes.put(0, mine);
        long deadline = System.nanoTime() + probeWait.toNanos();
        for (int r = 1; r < size; r++) {
            var raw = store.get("probe/" + r, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (raw.isEmpty()) {
                missing.add(r);
                continue;
            }
            try {
                probes.put(r, NodeProbe.decode(raw.get(), r));
            } catch (NodeProbe.Unreadable e) {
                unreadable.put(r, e.getMessage());
            }
        }
        return new Gathered(probes, unreadable, missing);
    }

    /**
     * The hosts in the order of their lowest rank, the rank that tests each one's links, and the job's own transport
     * that is tested between them too ({@link PairLinkTest}), or null: it is tested where every node can run it.
     */
    record Plan(List<String> hosts, List<Integer> ranks, String pairs) {

        private static final String PAIRS = "pairs ";

        static Plan of(java.util.SortedMap<Integer, NodeProbe> probes) {
            Map<String, Integer> first = new LinkedHashMap<>();
            probes.forEach((r, p) -> first.putIfAbsent(p.host(), r));
            String pairs = null;
            for (String path : probes.get(probes.firstKey()).pairPaths()) {
                if (first.size() > 1 && probes.values().stream().allMatch(p -> p.pairPaths().contains(path))) {
                    pairs = path;
                    break;
                }
            }
            return new Plan(new ArrayList<>(first.keySet()), new ArrayList<>(first.values()), pairs);
        }

        byte[] encode() {
            StringBuilder b = new StringBuilder(pairs == null ? "" : PAIRS + pairs + "\n");
            for (int i = 0; i < hosts.size(); i++) {
                b.append(ranks.get(i)).append(' ').append(hosts.get(i).replace('\n', ' ')).append('\n');
            }
            return b.toString().getBytes(StandardCharsets.UTF_8);
        }

        static Plan decode(byte[] raw) {
            List<String> hosts = new ArrayList<>();
            List<Integer> ranks = new ArrayList<>();
            String pairs = null;
            for (String line : new String(raw, StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith(PAIRS)) {
                    pairs = line.substring(PAIRS.length());
                } else if (!line.isEmpty()) {
                    String[] f = line.split(" ", 2);
                    ranks.add(Integer.parseInt(f[0]));
                    hosts.add(f[1]);
                }
            }
            return new Plan(hosts, ranks, pairs);
        }
    }

    // ---- the report

    private JobReport compose(Gathered g, Plan plan, LinkTest.Direction[][] d, LinkTest.Direction[][] pairs,
                              Duration took) {
        List<Finding> findings = new ArrayList<>();
        if (!g.missing().isEmpty()) {
            findings.add(new Finding("rank(s) " + g.missing() + " sent no probe within " + probeWait.toSeconds()
                    + " s (not started, stuck before the doctor, or cut off from rank 0's store); their nodes are "
                    + "neither compared nor tested", "look at those ranks' output and hosts; run the doctor again "
                    + "once they start", List.of()));
        }
        g.unreadable().forEach((r, why) -> findings.add(new Finding("rank " + r + "'s probe could not be read: " + why,
                "run the same jcoll version on every node", List.of())));
        findings.addAll(JobChecks.compare(g.probes()));
        List<Link> links = new ArrayList<>(links(plan.hosts(), d, Link.TCP));
        findings.addAll(linkFindings(plan.hosts(), d));
        if (pairs != null) {
            links.addAll(links(plan.hosts(), pairs, plan.pairs()));
            findings.addAll(pairFindings(plan.hosts(), pairs, plan.pairs()));
        }
        String text = JobReportText.text(size, g, plan, links, findings, took);
        String json = JobReportText.json(size, g, plan, links, findings);
        return new JobReport(List.copyOf(plan.hosts()), List.copyOf(findings), List.copyOf(links), text, json);
    }

    /** Each ordered pair's direction of one test as the report's links. */
    private static List<Link> links(List<String> hosts, LinkTest.Direction[][] d, String path) {
        List<Link> links = new ArrayList<>();
        for (int from = 0; from < d.length; from++) {
            for (int to = 0; to < d.length; to++) {
                if (from != to) {
                    LinkTest.Direction x = d[from][to];
                    links.add(new Link(hosts.get(from), hosts.get(to), x.reachable(), x.gbitPerSecond(), x.note(), path));
                }
            }
        }
        return links;
    }

    /**
     * How the findings of one test are worded: the TCP test of the data interfaces, or the exchange over the job's own
     * transport. Pair texts take the pair ("node-1 and node-2") for {@code %s}.
     */
    record Wording(String nothing, String nothingFix, String slowHost, String slowHostFix, String noConnect,
                   String noConnectFix, String stalled, String stalledFix, String slow, String slowFix) {
    }

    static final Wording TCP = new Wording(" exchanged nothing with any other host on its data interface",
            "check that host's link (cable, 'ip link', 'ip route') and its firewall: the job's data ports must be open "
                    + "between all nodes",
            "'s link is slow with every other host",
            "check that host's port: 'ethtool IFACE' (speed, duplex), 'ip -s link' (errors, drops), the cable and the "
                    + "switch port",
            "%s cannot connect on their data interfaces",
            "open the job's ports between these two hosts (firewall, security group) and check the routes between them "
                    + "('ip route get ADDRESS' on each)",
            "the exchange between %s stalled",
            "look for drops between these two hosts ('ip -s link', switch counters, MTU mismatch on the path)",
            "the link between %s is slow",
            "check the path between them: each port's speed ('ethtool'), errors ('ip -s link'), cables and switch "
                    + "ports, shaping or policing on the way");

    /** The findings of the test over the job's own transport ({@code path}: "nccl"), in that transport's terms. */
    static List<Finding> pairFindings(List<String> hosts, LinkTest.Direction[][] d, String path) {
        String name = path.equals("nccl") ? "NCCL" : path;
        String debug = path.equals("nccl") ? "run one rank there with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: it "
                + "names the network NCCL chose (NET/IB, or NET/Socket when it fell back) and why a connection failed; "
                + "check that NCCL_SOCKET_IFNAME and NCCL_IB_HCA name interfaces that exist on every node, and that "
                + "'jcoll doctor' on that node finds libibverbs, the adapter's provider and GPUDirect"
                : "run one rank there with the transport's own debug output";
        String onEach = debug.replace("one rank there", "one rank on each"); // a pair's fix: both hosts
        return findings(hosts, d, new Wording(" exchanged nothing with any other host over " + name, debug,
                " is slow over " + name + " with every other host", debug, name + " between %s could not connect",
                onEach, "the " + name + " exchange between %s stalled", onEach, name + " between %s is slow", onEach));
    }

    /**
     * Unreachable pairs, stalled exchanges, and directions far below the median between hosts; a host whose every
     * pair is affected is named once as the host, not as each of its pairs. The TCP test's findings.
     */
    static List<Finding> linkFindings(List<String> hosts, LinkTest.Direction[][] d) {
        return findings(hosts, d, TCP);
    }

    private static List<Finding> findings(List<String> hosts, LinkTest.Direction[][] d, Wording w) {
        int n = hosts.size();
        List<Finding> findings = new ArrayList<>();
        double[] rates = java.util.stream.IntStream.range(0, n * n).filter(i -> i / n != i % n)
                .mapToObj(i -> d[i / n][i % n]).filter(x -> x.reachable() && x.note().isEmpty())
                .mapToDouble(LinkTest.Direction::gbitPerSecond).sorted().toArray();
        double median = rates.length == 0 ? 0 : rates.length % 2 == 1 ? rates[rates.length / 2]
                : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
        boolean[][] bad = new boolean[n][n];
        boolean[][] slow = new boolean[n][n];
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (a != b) {
                    bad[a][b] = !d[a][b].reachable() || !d[a][b].note().isEmpty();
                    slow[a][b] = !bad[a][b] && median > 0 && d[a][b].gbitPerSecond() < SLOW_SHARE * median;
                }
            }
        }
        boolean[] hostWide = new boolean[n];
        for (int h = 0; n >= 3 && h < n; h++) {
            boolean allBad = true;
            boolean allSlowOrBad = true;
            for (int o = 0; o < n; o++) {
                if (o != h) {
                    allBad &= bad[h][o] && bad[o][h];
                    allSlowOrBad &= (bad[h][o] || slow[h][o]) && (bad[o][h] || slow[o][h]);
                }
            }
            if (allBad) {
                hostWide[h] = true;
                findings.add(new Finding(hosts.get(h) + w.nothing() + " (" + firstNote(d, h) + ")", w.nothingFix(),
                        List.of(hosts.get(h))));
            } else if (allSlowOrBad && anySlow(slow, h)) {
                hostWide[h] = true;
                findings.add(new Finding(hosts.get(h) + w.slowHost() + ": " + rates(hosts, d, h) + ", against a median of "
                        + gbit(median) + " between hosts", w.slowHostFix(), List.of(hosts.get(h))));
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (hostWide[a] || hostWide[b]) {
                    continue;
                }
                String pair = hosts.get(a) + " and " + hosts.get(b);
                String both = hosts.get(a) + " -> " + hosts.get(b) + ": " + describe(d[a][b]) + "; " + hosts.get(b)
                        + " -> " + hosts.get(a) + ": " + describe(d[b][a]);
                if (!d[a][b].reachable() || !d[b][a].reachable()) {
                    findings.add(new Finding(String.format(w.noConnect(), pair) + " (" + both + ")", w.noConnectFix(),
                            List.of(hosts.get(a), hosts.get(b))));
                } else if (bad[a][b] || bad[b][a]) {
                    findings.add(new Finding(String.format(w.stalled(), pair) + " (" + both + ")", w.stalledFix(),
                            List.of(hosts.get(a), hosts.get(b))));
                } else if (slow[a][b] || slow[b][a]) {
                    findings.add(new Finding(String.format(w.slow(), pair) + " (" + both + "), against a median of "
                            + gbit(median) + " between hosts", w.slowFix(), List.of(hosts.get(a), hosts.get(b))));
                }
            }
        }
        return findings;
    }

    private static boolean anySlow(boolean[][] slow, int h) {
        for (int o = 0; o < slow.length; o++) {
            if (slow[h][o] || slow[o][h]) {
                return true;
            }
        }
        return false;
    }

    private static String firstNote(LinkTest.Direction[][] d, int h) {
        for (int o = 0; o < d.length; o++) {
            if (o != h && !d[o][h].note().isEmpty()) {
                return d[o][h].note();
            }
        }
        return "no exchange completed";
    }

    private static String rates(List<String> hosts, LinkTest.Direction[][] d, int h) {
        List<String> parts = new ArrayList<>();
        for (int o = 0; o < d.length; o++) {
            if (o != h) {
                parts.add("to " + hosts.get(o) + " " + describe(d[h][o]) + ", from it " + describe(d[o][h]));
            }
        }
        return String.join("; ", parts);
    }

    static String describe(LinkTest.Direction x) {
        if (!x.reachable()) {
            return "unreachable: " + x.note();
        }
        return gbit(x.gbitPerSecond()) + (x.note().isEmpty() ? "" : " (" + x.note() + ")");
    }

    static String gbit(double v) {
        return String.format(java.util.Locale.ROOT, "%.2f Gbit/s", v);
    }

    // ---- the report through the store

    private static byte[] encode(JobReport r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(r.hosts().size());
            for (String h : r.hosts()) {
                string(out, h);
            }
            out.writeInt(r.findings().size());
            for (Finding f : r.findings()) {
                string(out, f.problem());
                string(out, f.fix());
                out.writeInt(f.hosts().size());
                for (String h : f.hosts()) {
                    string(out, h);
                }
            }
            out.writeInt(r.links().size());
            for (Link l : r.links()) {
                string(out, l.from());
                string(out, l.to());
                out.writeBoolean(l.reachable());
                out.writeDouble(l.gbitPerSecond());
                string(out, l.note());
                string(out, l.path());
            }
            string(out, r.text());
            string(out, r.json());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private JobReport decode(byte[] raw) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw))) {
            List<String> hosts = new ArrayList<>();
            for (int i = count(in); i > 0; i--) {
                hosts.add(string(in));
            }
            List<Finding> findings = new ArrayList<>();
            for (int i = count(in); i > 0; i--) {
                String problem = string(in);
                String fix = string(in);
                List<String> fh = new ArrayList<>();
                for (int j = count(in); j > 0; j--) {
                    fh.add(string(in));
                }
                findings.add(new Finding(problem, fix, List.copyOf(fh)));
            }
            List<Link> links = new ArrayList<>();
            for (int i = count(in); i > 0; i--) {
                links.add(new Link(string(in), string(in), in.readBoolean(), in.readDouble(), string(in), string(in)));
            }
            return new JobReport(List.copyOf(hosts), List.copyOf(findings), List.copyOf(links), string(in), string(in));
        } catch (IOException | RuntimeException e) {
            throw new io.jcoll.exceptions.ProtocolException("doctor", rank, 0, "rank 0's report could not be read ("
                    + e + "): the ranks run different jcoll versions?");
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 20) {
            throw new IOException("a count of " + n);
        }
        return n;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String string(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("a string of " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
