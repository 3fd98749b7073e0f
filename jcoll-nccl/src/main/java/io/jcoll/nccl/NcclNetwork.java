package io.jcoll.nccl;

import io.jcoll.NetworkReport;
import io.jcoll.probe.RdmaPort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What NCCL really uses, from its log ({@link NcclLogParser}) and the probe:
 * the report behind {@link io.jcoll.Communicator#network()}. Warns loudly when
 * NCCL chose TCP sockets although an RDMA port is active, the silent 5 to 10
 * times slowdown this exists to catch. NCCL's own warnings, which its log file
 * would otherwise hide, are passed on to the logger once each.
 */
final class NcclNetwork {

    private static final System.Logger LOG = System.getLogger(NcclNetwork.class.getName());
    private static final Set<String> PCIE = Set.of("PIX", "PXB", "PHB", "P2C", "SYS");
    private static final Set<String> relayed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static volatile boolean socketWarned;

    private NcclNetwork() {
    }

    static NetworkReport report(NcclEnvironment.Prepared env) {
        if (env.log() == null) {
            return NetworkReport.unknown(env.logNote());
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(env.log(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return NetworkReport.unknown("NCCL's log " + env.log() + " cannot be read: " + e.getMessage());
        }
        return report(NcclLogParser.parse(lines), env.machine().activePorts(), env.log().toString());
    }

    static NetworkReport report(NcclLogParser.Findings f, List<RdmaPort> activePorts, String source) {
        List<String> warnings = new ArrayList<>();
        for (String w : f.warnings()) {
            if (relayed.add(w)) {
                LOG.log(System.Logger.Level.WARNING, "NCCL: " + w);
            }
            warnings.add("NCCL warned: " + w);
        }
        if ("Socket".equalsIgnoreCase(f.network()) && !activePorts.isEmpty()) {
            String w = "NCCL chose TCP sockets although RDMA port(s) "
                    + activePorts.stream().map(RdmaPort::label).collect(Collectors.joining(", "))
                    + " are ACTIVE: traffic between nodes will be 5 to 10 times slower. Check NCCL_IB_DISABLE and "
                    + "NCCL_IB_HCA, that libibverbs and the adapter's user-space driver (rdma-core) are installed, and "
                    + "'jcoll doctor'.";
            warnings.add(w);
            if (!socketWarned) {
                socketWarned = true;
                LOG.log(System.Logger.Level.WARNING, w);
            }
        }
        String between = f.paths().isEmpty()
                ? "the ranks are not connected yet (NCCL connects them at the first collective)"
                : "NCCL connects the ranks through " + f.paths().stream().map(p -> describe(p, f.intraNodeLink()))
                .collect(Collectors.joining(" and "));
        String net = f.network() == null ? "NCCL has not chosen a network yet"
                : "its network between nodes is " + f.network()
                + (f.devices().isEmpty() ? "" : " on " + String.join(", ", f.devices()))
                + (f.gpuDirectRdma() == null ? "" : f.gpuDirectRdma() ? ", GPUDirect RDMA on" : ", GPUDirect RDMA off");
        return new NetworkReport(between + "; " + net + ".", List.copyOf(f.paths()), f.network(), f.devices(),
                f.gpuDirectRdma(), warnings, source);
    }

    private static String describe(String path, String intraLink) {
        if (path.startsWith("P2P")) {
            String link = "NVL".equals(intraLink) || "NVB".equals(intraLink) ? "NVLink"
                    : intraLink != null && PCIE.contains(intraLink) ? "PCIe" : "GPU";
            return link + " peer-to-peer (" + path + ")";
        }
        if (path.equals("SHM")) {
            return "shared host memory (SHM)";
        }
        if (path.startsWith("NET/")) {
            String[] p = path.split("/");
            return "the " + p[1] + " network" + (path.endsWith("/GDRDMA") ? " with GPUDirect RDMA" : "") + " (" + path + ")";
        }
        return path;
    }
}
