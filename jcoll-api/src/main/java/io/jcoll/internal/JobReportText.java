package io.jcoll.internal;

import io.jcoll.JobReport.Finding;
import io.jcoll.JobReport.Link;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The job-wide doctor's report written out: text for people, JSON for tools. */
final class JobReportText {

    /** Changes only when a JSON field changes meaning or goes away. */
    static final int SCHEMA = 1;

    /** The per-host facts shown in the text's table, in order. */
    private static final List<String> SHOWN = List.of(NodeProbe.MTU, NodeProbe.RDMA, NodeProbe.GPUDIRECT,
            NodeProbe.NCCL, NodeProbe.MEMLOCK);

    private JobReportText() {
    }

    static String text(int size, JobDoctor.Gathered g, JobDoctor.Plan plan, List<Link> links, List<Finding> findings,
                       Duration took) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "jcoll doctor across the job: %d rank(s) on %d host(s); probes from %d of "
                + "%d rank(s); %.1f s%n", size, plan.hosts().size(), g.probes().size(), size, took.toMillis() / 1e3));
        b.append("\nhosts:\n");
        Map<String, List<Integer>> ranks = ranksByHost(g);
        for (String host : plan.hosts()) {
            NodeProbe p = g.probes().get(ranks.get(host).get(0));
            b.append("  ").append(host).append("  ranks ").append(ranks.get(host)).append("  data ")
                    .append(p.get(NodeProbe.DATA_ADDRESS));
            for (String key : SHOWN) {
                b.append("  ").append(key).append(' ').append(p.get(key));
            }
            b.append('\n');
        }
        if (plan.hosts().size() > 1) {
            matrix(b, plan.hosts(), links, Link.TCP, "network between hosts (Gbit/s, measured at the receiver over "
                    + LinkTest.WINDOW.toMillis() + " ms; x = unreachable, ! = incomplete)");
            if (plan.pairs() != null) {
                matrix(b, plan.hosts(), links, plan.pairs(), (plan.pairs().equals("nccl") ? "NCCL" : plan.pairs())
                        + " send/recv between hosts (Gbit/s, measured at the receiver; x = could not connect, "
                        + "! = incomplete)");
            }
        }
        b.append("\nfindings: ").append(findings.isEmpty() ? "none: the nodes agree and every link is alike" : findings.size())
                .append('\n');
        for (Finding f : findings) {
            b.append("  ! ").append(f.problem()).append("\n    fix: ").append(f.fix()).append('\n');
        }
        return b.toString();
    }

    /** One test's links as a table, from each host (rows) to each (columns). */
    private static void matrix(StringBuilder b, List<String> hosts, List<Link> links, String path, String title) {
        b.append('\n').append(title).append(":\n");
        int width = Math.max(8, hosts.stream().mapToInt(String::length).max().orElse(8) + 2);
        b.append(String.format("  %-" + width + "s", "from \\ to"));
        hosts.forEach(h -> b.append(String.format("%" + width + "s", h)));
        b.append('\n');
        for (String from : hosts) {
            b.append(String.format("  %-" + width + "s", from));
            for (String to : hosts) {
                String cell = "-";
                for (Link l : links) {
                    if (l.path().equals(path) && l.from().equals(from) && l.to().equals(to)) {
                        cell = !l.reachable() ? "x" : String.format(Locale.ROOT, "%.2f%s", l.gbitPerSecond(),
                                l.note().isEmpty() ? "" : "!");
                    }
                }
                b.append(String.format("%" + width + "s", cell));
            }
            b.append('\n');
        }
    }

    static String json(int size, JobDoctor.Gathered g, JobDoctor.Plan plan, List<Link> links, List<Finding> findings) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", SCHEMA);
        doc.put("ranks", size);
        doc.put("reported", new ArrayList<>(g.probes().keySet()));
        doc.put("missing", g.missing());
        Map<String, Object> unreadable = new LinkedHashMap<>();
        g.unreadable().forEach((r, why) -> unreadable.put(Integer.toString(r), why));
        doc.put("unreadable", unreadable);
        List<Object> hosts = new ArrayList<>();
        Map<String, List<Integer>> ranks = ranksByHost(g);
        for (String host : plan.hosts()) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("name", host);
            h.put("ranks", ranks.get(host));
            Map<String, Object> facts = new LinkedHashMap<>(g.probes().get(ranks.get(host).get(0)).facts());
            facts.remove(NodeProbe.SCHEMA_KEY);
            facts.remove(NodeProbe.RANK);
            facts.remove(NodeProbe.HOST);
            facts.remove(NodeProbe.CPU_WARNING);
            h.put("facts", facts);
            hosts.add(h);
        }
        doc.put("hosts", hosts);
        List<Object> ls = new ArrayList<>();
        for (Link l : links) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("from", l.from());
            m.put("to", l.to());
            m.put("reachable", l.reachable());
            m.put("gbit_per_s", Math.round(l.gbitPerSecond() * 1000) / 1000.0);
            m.put("note", l.note());
            m.put("path", l.path());
            ls.add(m);
        }
        doc.put("links", ls);
        List<Object> fs = new ArrayList<>();
        for (Finding f : findings) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("problem", f.problem());
            m.put("fix", f.fix());
            m.put("hosts", f.hosts());
            fs.add(m);
        }
        doc.put("findings", fs);
        doc.put("healthy", findings.isEmpty());
        return Json.write(doc);
    }

    private static Map<String, List<Integer>> ranksByHost(JobDoctor.Gathered g) {
        Map<String, List<Integer>> ranks = new LinkedHashMap<>();
        g.probes().forEach((r, p) -> ranks.computeIfAbsent(p.host(), k -> new ArrayList<>()).add(r));
        return ranks;
    }
}
