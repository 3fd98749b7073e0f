package io.jcoll.internal;

import io.jcoll.NetworkReport;
import io.jcoll.bootstrap.JobConfig;
import io.jcoll.exceptions.JcollException;
import io.jcoll.probe.GpuDevice;
import io.jcoll.probe.Machine;
import io.jcoll.probe.NcclAdvice;
import io.jcoll.probe.NcclAdvisor;
import io.jcoll.probe.NcclSetting;
import io.jcoll.probe.NetInterface;
import io.jcoll.probe.RdmaAdapter;
import io.jcoll.probe.RdmaPort;
import io.jcoll.probe.Warning;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.TransportProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything {@code jcoll doctor} tells, gathered once and written as text or
 * as the JSON document docs/doctor.md describes (its {@code schema} number changes
 * only when a field changes meaning or goes away).
 */
final class DoctorReport {

    static final int SCHEMA = 1;

    /** The outcome of {@code --run}: a real job formed on this machine. */
    record Run(int ranks, boolean ok, String transport, NetworkReport network, String error) {
    }

    final Machine machine;
    final Map<String, Availability> verdicts;
    final String requested;
    final String chosen;        // null when nothing can run
    final String choiceReason;
    final NcclAdvice advice;
    final Settings settings;
    Run run;

    DoctorReport(Settings settings) {
        this.settings = settings;
        this.machine = Machine.probe(settings);
        List<TransportProvider> providers = TransportSelection.providers();
        this.verdicts = TransportSelection.probe(providers, settings);
        this.requested = settings.get("JCOLL_TRANSPORT").orElse("auto").toLowerCase(java.util.Locale.ROOT);
        List<TransportSelection.Verdict> mine = new ArrayList<>();
        verdicts.forEach((name, a) -> mine.add(new TransportSelection.Verdict(0, name, a.usable(), a.reason())));
        String chosen = null;
        String why;
        try {
            TransportSelection.Choice c = TransportSelection.choose(requested, providers, mine, 0, 1);
            chosen = c.provider().name();
            why = c.info().reason();
        } catch (JcollException e) {
            why = e.detail();
        }
        this.chosen = chosen;
        this.choiceReason = why;
        this.advice = NcclAdvisor.advise(machine, settings);
    }

    /** Whether what was asked for can work here (and, with --run, did). */
    boolean healthy() {
        return chosen != null && (run == null || run.ok());
    }

    // ---- JSON

    Map<String, Object> toJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", SCHEMA);
        doc.put("root", machine.root());
        doc.put("launcher", map("name", machine.launcher().name(), "evidence", machine.launcher().evidence()));
        doc.put("cpus", map("allowed", machine.cpus().allowed(), "online", machine.cpus().online(),
                "problem", machine.cpus().problem()));
        doc.put("data_interface", dataInterface());
        List<Object> gpus = new ArrayList<>();
        for (GpuDevice g : machine.gpus()) {
            Map<String, Object> m = map("minor", g.minor(), "model", g.model(), "bus_id", g.busId(), "numa_node", g.numaNode());
            m.put("nearest_rdma", machine.gpuAffinity().stream().filter(a -> a.gpu().equals(g)).findFirst()
                    .map(a -> (Object) map("adapter", a.adapter().name(), "distance", a.distance().name())).orElse(null));
            gpus.add(m);
        }
        doc.put("gpus", map("driver_version", machine.driverVersion(), "devices", gpus));
        List<Object> rdma = new ArrayList<>();
        for (RdmaAdapter a : machine.rdmaAdapters()) {
            List<Object> ports = new ArrayList<>();
            for (RdmaPort p : a.ports()) {
                Map<String, Object> m = map("port", p.number(), "state", p.state(), "phys_state", p.physicalState(),
                        "link_layer", p.linkLayer(), "rate", p.rate(), "active", p.active());
                m.put("roce_v2_gid_index", p.roceV2GidIndex() >= 0 ? p.roceV2GidIndex() : null);
                m.put("netdev", p.netDevice());
                ports.add(m);
            }
            Map<String, Object> m = map("name", a.name(), "hca_type", a.hcaType(), "firmware", a.firmware(),
                    "numa_node", a.numaNode());
            m.put("ports", ports);
            rdma.add(m);
        }
        doc.put("rdma_adapters", rdma);
        doc.put("gpudirect_rdma", map("peer_memory_module", machine.peerMemory(), "dma_buf",
                map("supported", machine.dmaBuf().supported(), "why", machine.dmaBuf().why())));
        doc.put("rdma_libraries", machine.rdmaLibraries() == null ? null : map("libibverbs",
                machine.rdmaLibraries().verbs(), "providers", new LinkedHashMap<>(machine.rdmaLibraries().providers())));
        io.jcoll.probe.Limits limits = machine.limits();
        doc.put("limits", map("memlock_soft", bytes(limits.memlockSoft()), "memlock_hard", bytes(limits.memlockHard()),
                "rmem_max", bytes(limits.rmemMax()), "wmem_max", bytes(limits.wmemMax()),
                "tcp_rmem_max", bytes(limits.tcpRmemMax()), "tcp_wmem_max", bytes(limits.tcpWmemMax())));
        doc.put("tcp_congestion_control", machine.congestion().algorithm());
        List<Object> nets = new ArrayList<>();
        for (NetInterface i : machine.interfaces()) {
            Map<String, Object> m = map("name", i.name(), "operstate", i.operstate(), "mtu", i.mtu(), "loopback", i.loopback());
            m.put("speed_mbps", i.speedMbps() > 0 ? i.speedMbps() : null);
            nets.add(m);
        }
        doc.put("interfaces", nets);
        doc.put("master", machine.master() == null ? null
                : map("address", machine.master().master(), "interface", machine.master().iface(), "how", machine.master().how()));
        List<Object> transports = new ArrayList<>();
        verdicts.forEach((name, a) -> {
            Map<String, Object> m = map("name", name, "usable", a.usable(), "reason", a.reason());
            m.put("facts", new LinkedHashMap<>(a.facts()));
            transports.add(m);
        });
        doc.put("transports", transports);
        Map<String, Object> selection = map("requested", requested);
        selection.put("chosen", chosen);
        selection.put("reason", choiceReason);
        doc.put("selection", selection);
        List<Object> nccl = new ArrayList<>();
        for (NcclSetting s : advice.settings()) {
            Map<String, Object> m = map("name", s.name());
            m.put("value", s.value());
            m.put("reason", s.reason());
            m.put("user_value", s.userValue());
            m.put("applies", s.applies());
            nccl.add(m);
        }
        doc.put("nccl_settings", nccl);
        List<Object> warnings = new ArrayList<>();
        for (Warning w : advice.warnings()) {
            warnings.add(map("problem", w.problem(), "fix", w.fix()));
        }
        doc.put("warnings", warnings);
        doc.put("job", job().map(c -> (Object) map("rank", c.rank(), "size", c.size(), "local_rank", c.localRank(),
                "master_addr", c.masterAddr(), "master_port", c.masterPort(), "token_set", c.token().length > 0))
                .orElse(null));
        if (run != null) {
            Map<String, Object> m = map("ranks", run.ranks(), "ok", run.ok());
            m.put("transport", run.transport());
            m.put("error", run.error());
            NetworkReport n = run.network();
            m.put("network", n == null ? null : map("summary", n.summary(), "paths", n.paths(), "network", n.network(),
                    "devices", n.devices(), "gpudirect_rdma", n.gpuDirectRdma(), "warnings", n.warnings(), "source", n.source()));
            doc.put("run", m);
        }
        doc.put("healthy", healthy());
        return doc;
    }

    private Optional<JobConfig> job() {
        try {
            return Optional.of(JobConfig.from(settings));
        } catch (JcollException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** An ordered map from alternating keys and values (values may be null). */
    /** This process's CPUs in words: {@code 2 of 32 online CPUs [0, 1]}, or why they are unknown. */
    /** The interface the TCP transport's data connections would use here, and why. */
    String dataInterface() {
        String list = settings.get(io.jcoll.probe.SocketInterface.VARIABLE).orElse(null);
        if (list == null) {
            return machine.master() == null || machine.master().iface() == null
                    ? "the one this rank reaches MASTER_ADDR through (set JCOLL_SOCKET_IFNAME to choose)"
                    : machine.master().iface() + ", which reaches MASTER_ADDR=" + machine.master().master()
                    + " (set JCOLL_SOCKET_IFNAME to choose)";
        }
        var here = io.jcoll.probe.SocketInterface.live();
        return io.jcoll.probe.SocketInterface.choose(list, here).map(c -> c.name() + " "
                + c.address().getHostAddress() + " (JCOLL_SOCKET_IFNAME=" + list + ")")
                .orElseGet(() -> "none: " + io.jcoll.probe.SocketInterface.noneMatched(list, here));
    }

    static String describe(io.jcoll.probe.CpuAffinity cpus) {
        if (cpus.problem() != null) {
            return "unknown: " + cpus.problem();
        }
        return "this process may run on " + cpus.allowed().size() + " of " + (cpus.online() > 0 ? cpus.online()
                : "?") + " online CPUs " + cpus.allowed();
    }

    /** A limit for JSON: bytes, {@code "unlimited"}, or null when unknown. */
    private static Object bytes(long value) {
        return value == io.jcoll.probe.Limits.UNLIMITED ? "unlimited" : value == io.jcoll.probe.Limits.UNKNOWN ? null : value;
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    // ---- text

    String toText() {
        StringBuilder b = new StringBuilder();
        b.append("jcoll doctor (machine files read under ").append(machine.root()).append(")\n\n");
        b.append("launcher: ").append(machine.launcher().name()).append(" (").append(machine.launcher().evidence()).append(")\n");
        b.append("cpus: ").append(describe(machine.cpus())).append('\n');
        b.append("data interface (tcp): ").append(dataInterface()).append('\n');
        b.append("\nGPUs: ").append(machine.gpus().size()).append(machine.driverVersion() == null
                ? " (no NVIDIA kernel driver loaded)" : " (NVIDIA driver " + machine.driverVersion() + ")").append('\n');
        for (GpuDevice g : machine.gpus()) {
            b.append(String.format("  %s  %-26s NUMA %2d", g.busId(), g.model(), g.numaNode()));
            machine.gpuAffinity().stream().filter(a -> a.gpu().equals(g)).findFirst().ifPresent(a ->
                    b.append("  nearest active RDMA adapter: ").append(a.adapter().name()).append(" (").append(a.distance()).append(')'));
            b.append('\n');
        }
        b.append("\nRDMA adapters: ").append(machine.rdmaAdapters().isEmpty() ? "none (/sys/class/infiniband is empty)" : "").append('\n');
        for (RdmaAdapter a : machine.rdmaAdapters()) {
            for (RdmaPort p : a.ports()) {
                b.append(String.format("  %-10s %-10s %-12s %-12s %-22s", p.label(), p.kind(), p.state(), p.physicalState(), p.rate()));
                if (p.roce()) {
                    b.append(" RoCE v2 GID index ").append(p.roceV2GidIndex() >= 0 ? p.roceV2GidIndex() : "none")
                            .append(" on ").append(p.netDevice());
                }
                b.append('\n');
            }
        }
        b.append("GPUDirect RDMA peer memory: ").append(machine.peerMemory() == null ? "no module loaded" : machine.peerMemory()).append('\n');
        b.append("GPUDirect RDMA through DMA-BUF: ").append(machine.dmaBuf().supported() ? "possible: " : "no: ")
                .append(machine.dmaBuf().why()).append('\n');
        if (machine.rdmaLibraries() != null) {
            b.append("RDMA libraries: libibverbs.so.1 ").append(machine.rdmaLibraries().verbs() == null ? "NOT FOUND"
                    : machine.rdmaLibraries().verbs());
            machine.rdmaLibraries().providers().forEach((p, where) -> b.append("; ").append(p).append(" provider ")
                    .append(where == null ? "NOT FOUND" : where));
            b.append('\n');
        }
        io.jcoll.probe.Limits limits = machine.limits();
        b.append("limits: locked memory ").append(io.jcoll.probe.Limits.describe(limits.memlockSoft()))
                .append(" (hard ").append(io.jcoll.probe.Limits.describe(limits.memlockHard())).append("), socket buffers ")
                .append(limits.socketBuffers()).append('\n');
        b.append("TCP congestion control: ").append(machine.congestion().describe()).append('\n');
        b.append("\nnetwork interfaces:\n");
        for (NetInterface i : machine.interfaces()) {
            b.append(String.format("  %-14s %-8s mtu %-6d %s%n", i.name(), i.operstate(), i.mtu(),
                    i.loopback() ? "loopback" : i.speedMbps() > 0 ? i.speedMbps() + " Mb/s" : "speed unknown"));
        }
        b.append(machine.master() == null ? "MASTER_ADDR is not set: not inside a job\n"
                : "master " + machine.master().master() + ": " + (machine.master().iface() == null ? "" : "through "
                + machine.master().iface() + ", ") + machine.master().how() + "\n");
        b.append("\ntransports on the class path (most preferred first):\n");
        verdicts.forEach((name, a) -> {
            b.append(String.format("  %-6s %-9s %s%n", name, a.usable() ? "usable" : "unusable", a.reason()));
            a.facts().forEach((k, v) -> b.append(String.format("           %-22s %s%n", k, v)));
        });
        b.append("\nJCOLL_TRANSPORT=").append(requested).append(": ")
                .append(chosen == null ? "NOTHING CAN RUN: " : chosen + " would be chosen on this machine: ").append(choiceReason)
                .append("\n  (in a job every rank probes, and all agree on a transport every rank can run)\n");
        b.append("\nNCCL settings from the probe (jcoll sets them before NCCL starts, unless you set them first):\n");
        for (NcclSetting s : advice.settings()) {
            if (s.userValue() != null) {
                b.append(String.format("  %-20s kept yours: %s%s%n", s.name(), s.userValue(),
                        s.value() == null || s.value().equals(s.userValue()) ? "" : " (the probe would derive " + s.value() + ")"));
            } else if (s.value() != null) {
                b.append(String.format("  %-20s %-12s %s%n", s.name(), s.value(), s.reason()));
            } else {
                b.append(String.format("  %-20s %-12s %s%n", s.name(), "(NCCL's)", s.reason()));
            }
        }
        b.append("\nwarnings: ").append(advice.warnings().isEmpty() ? "none" : "").append('\n');
        for (Warning w : advice.warnings()) {
            b.append("  ! ").append(w.problem()).append("\n    fix: ").append(w.fix()).append('\n');
        }
        b.append("\njob configuration from the environment: ");
        b.append(job().map(c -> String.format("rank %d of %d (local %d), store at %s:%d, token %s", c.rank(), c.size(),
                c.localRank(), c.masterAddr(), c.masterPort(), c.token().length == 0 ? "NOT SET" : "set"))
                .orElse("not inside a job")).append('\n');
        if (run != null) {
            b.append("\nrun: ").append(run.ranks()).append(" rank(s) as threads of this JVM: ")
                    .append(run.ok() ? "AllReduce results right" : "FAILED: " + run.error()).append('\n');
            if (run.transport() != null) {
                b.append("  transport: ").append(run.transport()).append('\n');
            }
            if (run.network() != null) {
                b.append("  what it really used: ").append(run.network().summary()).append('\n');
                for (String w : run.network().warnings()) {
                    b.append("  ! ").append(w).append('\n');
                }
            }
        }
        return b.toString();
    }
}
