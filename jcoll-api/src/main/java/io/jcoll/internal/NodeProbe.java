package io.jcoll.internal;

import io.jcoll.probe.Limits;
import io.jcoll.probe.Machine;
import io.jcoll.probe.NcclAdvisor;
import io.jcoll.probe.NetInterface;
import io.jcoll.probe.RdmaPort;
import io.jcoll.probe.Warning;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What one rank tells the job-wide doctor about its node: the facts that must
 * agree between nodes (versions, MTUs, RDMA, GPUDirect, limits) and its own
 * warnings. Travels through the rendezvous store as {@code key=value} lines
 * (values escaped), led by the schema number, so that a probe from another
 * jcoll version or a hostile byte string is named instead of misread.
 *
 * @param facts the values by key ({@link #HOST}, {@link #MTU}, ...), in a fixed order
 * @param warnings this node's own traps, as the single-node doctor reports them
 */
record NodeProbe(Map<String, String> facts, List<String> warnings) {

    /** Changes when a key changes meaning or goes away; a reader refuses a probe of another schema. */
    static final int SCHEMA = 1;

    static final String SCHEMA_KEY = "schema";
    static final String RANK = "rank";
    static final String HOST = "host";
    static final String DATA_ADDRESS = "data_address";
    static final String MTU = "mtu";
    static final String RDMA = "rdma";
    static final String HCAS = "hcas";
    static final String GID_INDEX = "roce_gid_index";
    static final String GPUDIRECT = "gpudirect";
    static final String NCCL = "nccl_version";
    static final String CUDA_RUNTIME = "cuda_runtime_version";
    static final String CUDA_DRIVER = "cuda_driver_version";
    static final String NVIDIA_DRIVER = "nvidia_driver";
    static final String MEMLOCK = "memlock";
    static final String SOCKET_BUFFERS = "socket_buffers";
    static final String CONGESTION = "tcp_congestion_control";
    static final String CPUS = "cpus";
    static final String CPU_WARNING = "cpu_warning";
    /** The exchanges over the job's own transport this process can run for the link test ({@link PairLinkTest}). */
    static final String PAIR_PATHS = "pair_paths";
    private static final String WARNING = "warning";

    /** Past this a probe is refused: a node's facts are a few hundred bytes. */
    static final int MAX_BYTES = 256 * 1024;

    NodeProbe {
        facts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(facts));
        warnings = List.copyOf(warnings);
    }

    /** This rank's probe: its machine ({@code JCOLL_SYSFS_ROOT} or the live one) and the transports' facts. */
    static NodeProbe take(int rank, String host, String dataAddress, Settings settings) {
        Machine m = Machine.probe(settings);
        Map<String, Availability> verdicts = TransportSelection.probe(TransportSelection.providers(), settings);
        Map<String, String> transportFacts = new LinkedHashMap<>();
        verdicts.values().forEach(a -> a.facts().forEach(transportFacts::putIfAbsent));
        List<RdmaPort> active = m.activePorts();

        Map<String, String> f = new LinkedHashMap<>();
        f.put(SCHEMA_KEY, Integer.toString(SCHEMA));
        f.put(RANK, Integer.toString(rank));
        f.put(HOST, host);
        f.put(DATA_ADDRESS, dataAddress);
        f.put(MTU, jobMtus(m, active));
        f.put(RDMA, active.isEmpty() ? "none" : active.stream().map(RdmaPort::kind).distinct().sorted()
                .reduce((a, b) -> a + "," + b).orElse("") + " (" + active.size() + " active port(s))");
        f.put(HCAS, active.stream().map(RdmaPort::label).sorted().reduce((a, b) -> a + "," + b).orElse("none"));
        f.put(GID_INDEX, active.stream().filter(RdmaPort::roce).map(p -> p.roceV2GidIndex() < 0 ? "none"
                : Integer.toString(p.roceV2GidIndex())).distinct().sorted().reduce((a, b) -> a + "," + b).orElse("-"));
        String nccl = transportFacts.get("nccl_version");
        var dmaBuf = m.dmaBuf().withNccl(nccl);
        f.put(GPUDIRECT, active.isEmpty() || m.gpus().isEmpty() ? "-" : m.peerMemory() != null
                ? m.peerMemory().split(" ")[0] : dmaBuf.supported() ? "dma-buf" : "none (" + dmaBuf.why() + ")");
        f.put(NCCL, nccl == null ? "-" : nccl);
        f.put(CUDA_RUNTIME, transportFacts.getOrDefault("cuda_runtime_version", "-"));
        f.put(CUDA_DRIVER, transportFacts.getOrDefault("cuda_driver_version", "-"));
        f.put(NVIDIA_DRIVER, m.driverVersion() == null ? "-" : m.driverVersion());
        Limits l = m.limits();
        f.put(MEMLOCK, Limits.describe(l.memlockSoft()));
        f.put(SOCKET_BUFFERS, l.socketBuffers());
        f.put(CONGESTION, m.congestion().describe());
        f.put(CPUS, m.cpus().problem() != null ? "unknown" : Integer.toString(m.cpus().allowed().size()));
        f.put(CPU_WARNING, m.cpus().warning(m.launcher()).map(Warning::toString).orElse(""));
        List<String> pairs = PairLinkTest.usable(settings);
        f.put(PAIR_PATHS, pairs.isEmpty() ? "-" : String.join(",", pairs));
        List<String> warnings = new ArrayList<>();
        NcclAdvisor.advise(m, settings).warnings().stream()
                .filter(w -> !w.toString().equals(f.get(CPU_WARNING))) // reported per rank, not per node
                .forEach(w -> warnings.add(w.toString()));
        return new NodeProbe(f, warnings);
    }

    /** The MTUs of the interfaces that carry the job: the RoCE ports' and the data interface unless loopback. */
    private static String jobMtus(Machine m, List<RdmaPort> active) {
        TreeSet<Integer> mtus = new TreeSet<>();
        active.stream().filter(RdmaPort::roce).map(RdmaPort::netDevice).filter(java.util.Objects::nonNull)
                .flatMap(n -> m.networkInterface(n).stream()).forEach(i -> mtus.add(i.mtu()));
        if (m.master() != null && m.master().iface() != null && !m.oneHost()) {
            m.networkInterface(m.master().iface()).map(NetInterface::mtu).ifPresent(mtus::add);
        }
        return mtus.isEmpty() ? "-" : mtus.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("-");
    }

    String get(String key) {
        return facts.getOrDefault(key, "-");
    }

    int rank() {
        return Integer.parseInt(facts.get(RANK));
    }

    String host() {
        return facts.get(HOST);
    }

    /** The exchanges over the job's own transport this node's process could run; empty for none. */
    List<String> pairPaths() {
        String v = get(PAIR_PATHS);
        return v.equals("-") ? List.of() : List.of(v.split(","));
    }

    // ---- codec

    byte[] encode() {
        StringBuilder b = new StringBuilder();
        facts.forEach((k, v) -> b.append(k).append('=').append(escape(v)).append('\n'));
        for (String w : warnings) {
            b.append(WARNING).append('=').append(escape(w)).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A probe that cannot be read, and why. */
    static final class Unreadable extends Exception {
        Unreadable(String why) {
            super(why, null, false, false);
        }
    }

    static NodeProbe decode(byte[] bytes, int expectedRank) throws Unreadable {
        if (bytes.length > MAX_BYTES) {
            throw new Unreadable("it is " + bytes.length + " bytes, over the " + MAX_BYTES + " a probe may take");
        }
        Map<String, String> facts = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        String text = new String(bytes, StandardCharsets.UTF_8);
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new Unreadable("line '" + abbreviate(line) + "' is not key=value");
            }
            String key = line.substring(0, eq);
            String value = unescape(line.substring(eq + 1));
            if (key.equals(WARNING)) {
                warnings.add(value);
            } else {
                facts.put(key, value);
            }
        }
        String schema = facts.get(SCHEMA_KEY);
        if (schema == null) {
            throw new Unreadable("it has no schema number (not a jcoll probe)");
        }
        if (!schema.equals(Integer.toString(SCHEMA))) {
            throw new Unreadable("it is of schema " + abbreviate(schema) + ", and this jcoll reads schema " + SCHEMA
                    + ": the ranks run different jcoll versions");
        }
        for (String required : List.of(RANK, HOST)) {
            if (!facts.containsKey(required)) {
                throw new Unreadable("it lacks '" + required + "'");
            }
        }
        if (!facts.get(RANK).equals(Integer.toString(expectedRank))) {
            throw new Unreadable("it says rank " + abbreviate(facts.get(RANK)) + " in rank " + expectedRank + "'s place");
        }
        return new NodeProbe(facts, warnings);
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static String unescape(String v) {
        StringBuilder b = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\' && i + 1 < v.length()) {
                char n = v.charAt(++i);
                b.append(n == 'n' ? '\n' : n);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static String abbreviate(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", "?");
        return clean.length() <= 40 ? clean : clean.substring(0, 40) + "...";
    }
}
