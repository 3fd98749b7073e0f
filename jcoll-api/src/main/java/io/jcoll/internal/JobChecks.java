package io.jcoll.internal;

import io.jcoll.JobReport.Finding;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job-wide comparisons: facts that must agree between nodes and do not, each node's own traps gathered across
 * nodes, and ranks whose CPU placement is too narrow. One finding per difference, naming the hosts that stand out
 * (those whose value is not the most common one).
 */
final class JobChecks {

    /** A fact compared between nodes: its key in the probe, how to say it, and the fix when it differs. */
    private record Fact(String key, String what, String fix) {
    }

    private static final List<Fact> FACTS = List.of(
            new Fact(NodeProbe.MTU, "the MTU of the interfaces that carry the job",
                    "set one MTU on every node's job interfaces and on the switch ports between them (9000 for RoCE): "
                            + "'ip link set dev IFACE mtu 9000'; a path MTU mismatch drops large frames silently."),
            new Fact(NodeProbe.RDMA, "the ACTIVE RDMA ports",
                    "bring the ports up on the nodes without them ('ibstat', cable, subnet manager), or the job runs at "
                            + "socket speed on them and waits for them everywhere else."),
            new Fact(NodeProbe.HCAS, "the set of ACTIVE RDMA ports",
                    "make the adapters alike, or set NCCL_IB_HCA to the ports every node has."),
            new Fact(NodeProbe.GID_INDEX, "the RoCE v2 GID index",
                    "give the RoCE interfaces the same addressing on every node (one IPv4 address each), so that one "
                            + "NCCL_IB_GID_INDEX fits all."),
            new Fact(NodeProbe.GPUDIRECT, "how GPUDirect RDMA is served",
                    "load nvidia_peermem on every node, or run the open kernel modules on kernel 5.12+ with NCCL 2.19+ "
                            + "(DMA-BUF) everywhere: a node without it copies through host memory and slows every step."),
            new Fact(NodeProbe.NCCL, "the NCCL version",
                    "install one NCCL on every node (or ship it with the job): mixed versions may not interoperate and "
                            + "a node without NCCL cannot join a GPU job."),
            new Fact(NodeProbe.CUDA_RUNTIME, "the CUDA runtime version", "use one CUDA runtime on every node."),
            new Fact(NodeProbe.CUDA_DRIVER, "the CUDA version the driver supports", "install one driver on every node."),
            new Fact(NodeProbe.NVIDIA_DRIVER, "the NVIDIA kernel driver", "install one driver version on every node."),
            new Fact(NodeProbe.MEMLOCK, "the locked-memory limit (ulimit -l)",
                    "set memlock unlimited on every node (limits.conf, LimitMEMLOCK=infinity, --ulimit memlock=-1)."),
            new Fact(NodeProbe.SOCKET_BUFFERS, "the socket buffer limits",
                    "set the same net.core.rmem_max/wmem_max and net.ipv4.tcp_rmem/tcp_wmem on every node "
                            + "(/etc/sysctl.d)."),
            new Fact(NodeProbe.CONGESTION, "the TCP congestion control",
                    "set one net.ipv4.tcp_congestion_control on every node (/etc/sysctl.d): streams under different "
                            + "algorithms share a link unevenly, and a ring runs at its slowest stream."));

    private JobChecks() {
    }

    /** The findings from every rank's probe that arrived, by rank in rank order (one per host is compared). */
    static List<Finding> compare(java.util.SortedMap<Integer, NodeProbe> probes) {
        Map<String, NodeProbe> byHost = new LinkedHashMap<>();
        probes.values().forEach(p -> byHost.putIfAbsent(p.host(), p));
        List<Finding> findings = new ArrayList<>();
        if (byHost.size() > 1) {
            for (Fact fact : FACTS) {
                Map<String, List<String>> hostsByValue = new LinkedHashMap<>();
                byHost.forEach((host, p) -> {
                    if (p.facts().containsKey(fact.key())) { // a jcoll from before the fact was probed says nothing
                        hostsByValue.computeIfAbsent(p.get(fact.key()), v -> new ArrayList<>()).add(host);
                    }
                });
                if (hostsByValue.size() > 1) {
                    findings.add(difference(fact, hostsByValue));
                }
            }
        }
        // each node's own traps, once for all the nodes that share them
        Map<String, List<String>> hostsByWarning = new LinkedHashMap<>();
        byHost.forEach((host, p) -> p.warnings().forEach(w -> hostsByWarning.computeIfAbsent(w, k -> new ArrayList<>()).add(host)));
        hostsByWarning.forEach((w, hosts) -> findings.add(fromWarning(w, hosts, byHost.size())));
        // CPU placement is per rank
        Map<String, List<Integer>> ranksByCpuWarning = new LinkedHashMap<>();
        probes.forEach((rank, p) -> {
            String w = p.get(NodeProbe.CPU_WARNING);
            if (!w.isEmpty() && !w.equals("-")) {
                ranksByCpuWarning.computeIfAbsent(w, k -> new ArrayList<>()).add(rank);
            }
        });
        ranksByCpuWarning.forEach((w, ranks) -> {
            String[] parts = split(w);
            List<String> hosts = ranks.stream().map(r -> probes.get(r).host()).distinct().toList();
            findings.add(new Finding("rank(s) " + ranks + " on " + String.join(", ", hosts) + ": " + parts[0], parts[1], hosts));
        });
        return findings;
    }

    private static Finding difference(Fact fact, Map<String, List<String>> hostsByValue) {
        List<Map.Entry<String, List<String>>> values = new ArrayList<>(hostsByValue.entrySet());
        values.sort(Comparator.comparingInt((Map.Entry<String, List<String>> e) -> -e.getValue().size()));
        StringBuilder problem = new StringBuilder(fact.what()).append(" differs between nodes: ");
        List<String> outliers = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            Map.Entry<String, List<String>> e = values.get(i);
            problem.append(i == 0 ? "" : "; ").append(e.getKey()).append(" on ").append(String.join(", ", e.getValue()));
            if (i > 0) {
                outliers.addAll(e.getValue());
            }
        }
        problem.append('.');
        return new Finding(problem.toString(), fact.fix(), List.copyOf(outliers));
    }

    private static Finding fromWarning(String warning, List<String> hosts, int nodes) {
        String[] parts = split(warning);
        String where = hosts.size() == nodes && nodes > 1 ? "on every node (" + String.join(", ", hosts) + ")"
                : "on " + String.join(", ", hosts);
        return new Finding(where + ": " + parts[0], parts[1], List.copyOf(hosts));
    }

    /** A warning's text ({@code problem Fix: fix}) as problem and fix. */
    private static String[] split(String warning) {
        int at = warning.lastIndexOf(" Fix: ");
        return at < 0 ? new String[] {warning, ""} : new String[] {warning.substring(0, at), warning.substring(at + 6)};
    }
}
