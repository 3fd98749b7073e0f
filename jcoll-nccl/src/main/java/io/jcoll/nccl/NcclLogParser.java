package io.jcoll.nccl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what NCCL decided from its own INFO log (subsystems INIT, NET and
 * GRAPH): the network it chose ({@code Using network IB}), that network's
 * devices ({@code NET/IB : Using [0]mlx5_0:1/RoCE ...}), how each pair of
 * ranks is connected ({@code Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read},
 * {@code ... via NET/IB/0/GDRDMA}), whether GPUDirect RDMA is on, and the
 * intra-node link type the topology search settled on
 * ({@code Pattern 4, ... type NVL/PIX ...}). Lines it does not know are skipped,
 * so a newer NCCL's extra lines do no harm.
 */
final class NcclLogParser {

    /** What the log showed. */
    record Findings(String network, List<String> devices, Set<String> paths, Boolean gpuDirectRdma,
                    String intraNodeLink, List<String> warnings) {
    }

    private static final Pattern NETWORK = Pattern.compile("Using network (.+?)\\s*$");
    private static final Pattern NET_DEVICES = Pattern.compile("NET/(\\S+?) ?: Using (.+)$");
    private static final Pattern DEVICE = Pattern.compile("\\[\\d+\\]([^\\s\\[;]+)");
    private static final Pattern VIA = Pattern.compile("Channel \\d+/\\d+ : .* via (.+?)\\s*$");
    private static final Pattern GDR = Pattern.compile("GPU Direct RDMA (Enabled|Disabled)");
    private static final Pattern GRAPH_TYPE = Pattern.compile("Pattern \\d+, .*type ([A-Z0-9]+)/([A-Z0-9]+)");
    private static final String INFO = "NCCL INFO ";
    private static final String WARN = "NCCL WARN ";

    private NcclLogParser() {
    }

    static Findings parse(List<String> lines) {
        String network = null;
        Map<String, List<String>> devicesByNet = new LinkedHashMap<>();
        Set<String> paths = new LinkedHashSet<>();
        Boolean gdr = null;
        String intra = null;
        List<String> warnings = new ArrayList<>();
        for (String line : lines) {
            int w = line.indexOf(WARN);
            if (w >= 0) {
                warnings.add(line.substring(w + WARN.length()).trim());
                continue;
            }
            int i = line.indexOf(INFO);
            if (i < 0) {
                continue;
            }
            String msg = line.substring(i + INFO.length());
            Matcher m;
            if ((m = NETWORK.matcher(msg)).find() && !msg.startsWith("NET/")) {
                network = m.group(1);
            } else if ((m = NET_DEVICES.matcher(msg)).find()) {
                String list = m.group(2);
                int oob = list.indexOf(';'); // "; OOB eth0:10.0.0.1<0>": the out-of-band socket, not a data device
                Matcher d = DEVICE.matcher(oob >= 0 ? list.substring(0, oob) : list);
                List<String> devices = new ArrayList<>();
                while (d.find()) {
                    devices.add(d.group(1).replaceAll("<\\d+>$", ""));
                }
                devicesByNet.put(m.group(1), devices);
            } else if ((m = VIA.matcher(msg)).find()) {
                paths.add(normalise(m.group(1)));
            } else if ((m = GDR.matcher(msg)).find()) {
                gdr = (gdr != null && gdr) || m.group(1).equals("Enabled");
            } else if ((m = GRAPH_TYPE.matcher(msg)).find()) {
                intra = nearer(intra, m.group(1));
            }
        }
        if (paths.stream().anyMatch(p -> p.endsWith("/GDRDMA"))) {
            gdr = true;
        }
        List<String> devices = network == null ? List.of() : devicesByNet.getOrDefault(network, List.of());
        return new Findings(network, devices, paths, gdr, intra, warnings);
    }

    /** {@code NET/IB/0/GDRDMA} as {@code NET/IB/GDRDMA}: the device index says nothing about the kind of path. */
    static String normalise(String via) {
        if (via.startsWith("NET/")) {
            String[] parts = via.split("/");
            return "NET/" + (parts.length > 1 ? parts[1] : "?") + (via.contains("GDRDMA") ? "/GDRDMA" : "");
        }
        if (via.startsWith("SHM")) {
            return "SHM";
        }
        return via;
    }

    /** NCCL's path types from nearest to farthest; the search reports one per graph, the nearest tells the link. */
    private static final List<String> ORDER = List.of("LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS", "NET");

    private static String nearer(String a, String b) {
        if (a == null) {
            return b;
        }
        int ia = ORDER.indexOf(a);
        int ib = ORDER.indexOf(b);
        return ib >= 0 && (ia < 0 || ib < ia) ? b : a;
    }
}
