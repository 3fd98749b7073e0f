package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the RDMA adapters from {@code /sys/class/infiniband}, laid out as the
 * kernel's {@code Documentation/ABI/stable/sysfs-class-infiniband} describes:
 * per port {@code state}, {@code phys_state}, {@code link_layer}, {@code rate},
 * the GID table in {@code gids/I}, and for each GID its type
 * ({@code gid_attrs/types/I}: {@code IB/RoCE v1} or {@code RoCE v2}) and network
 * device ({@code gid_attrs/ndevs/I}). Unused GID slots cannot be read; they are skipped.
 */
public final class RdmaAdapters {

    static final String CLASS_DIR = "/sys/class/infiniband";

    /** An IPv4 address mapped into a GID: {@code 0000:0000:0000:0000:0000:ffff:0a00:0005}. */
    private static final String IPV4_MAPPED_PREFIX = "0000:0000:0000:0000:0000:ffff:";
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";

    private RdmaAdapters() {
    }

    public static List<RdmaAdapter> read(SystemFiles files) {
        List<RdmaAdapter> adapters = new ArrayList<>();
        for (String name : files.list(CLASS_DIR)) {
            String dir = CLASS_DIR + "/" + name;
            List<RdmaPort> ports = new ArrayList<>();
            for (String port : files.list(dir + "/ports")) {
                int number = index(port);
                if (number >= 0) {
                    ports.add(readPort(files, name, number, dir + "/ports/" + port));
                }
            }
            String pci = files.realPath(dir + "/device").orElse(null);
            adapters.add(new RdmaAdapter(name, files.read(dir + "/hca_type").orElse(null),
                    files.read(dir + "/fw_ver").orElse(null), pci,
                    (int) files.readLong(dir + "/device/numa_node", -1), ports));
        }
        return adapters;
    }

    private static RdmaPort readPort(SystemFiles files, String adapter, int number, String dir) {
        String linkLayer = files.read(dir + "/link_layer").orElse(null);
        int gidIndex = -1;
        String netDevice = null;
        if ("Ethernet".equalsIgnoreCase(linkLayer)) {
            int best = -1;
            int bestScore = 0;
            for (String slot : files.list(dir + "/gid_attrs/types")) {
                int index = index(slot);
                if (index < 0) {
                    continue;
                }
                String type = files.read(dir + "/gid_attrs/types/" + slot).orElse("");
                String gid = files.read(dir + "/gids/" + slot).orElse(ZERO_GID).toLowerCase(Locale.ROOT);
                if (netDevice == null) {
                    netDevice = files.read(dir + "/gid_attrs/ndevs/" + slot).orElse(null);
                }
                if (!type.equalsIgnoreCase("RoCE v2") || gid.equals(ZERO_GID)) {
                    continue;
                }
                // NCCL and the vendors' guides want RoCE v2 on the interface's IPv4 address (routable,
                // what the switches' QoS is set up for); a link-local IPv6 GID is the fallback
                int score = gid.startsWith(IPV4_MAPPED_PREFIX) ? 2 : 1;
                if (score > bestScore || (score == bestScore && index < best)) {
                    best = index;
                    bestScore = score;
                }
            }
            if (best >= 0) {
                gidIndex = best;
                netDevice = files.read(dir + "/gid_attrs/ndevs/" + best).orElse(netDevice);
            }
        }
        return new RdmaPort(adapter, number, files.read(dir + "/state").orElse(null),
                files.read(dir + "/phys_state").orElse(null), linkLayer, files.read(dir + "/rate").orElse(null),
                gidIndex, netDevice);
    }

    /** A directory entry named by a number (a port, a GID slot), or -1 for anything else. */
    private static int index(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
