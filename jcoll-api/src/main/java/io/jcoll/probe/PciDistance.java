package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How far apart two PCI devices are, in the words of {@code nvidia-smi topo -m}
 * and NCCL's {@code NCCL_NET_GDR_LEVEL}, from their sysfs paths
 * ({@code /sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/...}): the first
 * component is the host bridge (root complex), the rest the chain of bridges
 * down to the device. Nearest first, so {@code compareTo} orders by distance.
 */
public enum PciDistance {
    /** Behind one PCIe switch: at most one bridge on each side below where the paths meet. */
    PIX,
    /** Several switch levels, without going through the host bridge. */
    PXB,
    /** Through the PCIe host bridge of one root complex (typically one CPU socket). */
    PHB,
    /** Different host bridges within one NUMA node. */
    NODE,
    /** Across the interconnect between NUMA nodes (CPU sockets). */
    SYS,
    /** A path is not a PCI device (virtual, or not found). */
    UNKNOWN;

    private static final Pattern FUNCTION = Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

    /**
     * The distance between devices at two sysfs device paths, with their NUMA
     * nodes ({@code -1} when unknown) to tell {@link #NODE} from {@link #SYS}.
     */
    public static PciDistance between(String pathA, int numaA, String pathB, int numaB) {
        Chain a = Chain.of(pathA);
        Chain b = Chain.of(pathB);
        if (a == null || b == null) {
            return UNKNOWN;
        }
        if (!a.hostBridge.equals(b.hostBridge)) {
            return numaA >= 0 && numaB >= 0 && numaA != numaB ? SYS : NODE;
        }
        // bridges above each device (the device itself is the chain's last element)
        int bridgesA = a.functions.size() - 1;
        int bridgesB = b.functions.size() - 1;
        int common = 0;
        while (common < bridgesA && common < bridgesB && a.functions.get(common).equals(b.functions.get(common))) {
            common++;
        }
        if (common == 0) {
            return PHB; // they meet only at the host bridge: different root ports
        }
        int hops = (bridgesA - common) + (bridgesB - common);
        return hops <= 2 ? PIX : PXB;
    }

    /** A device path split into host bridge and PCI functions. */
    private record Chain(String hostBridge, List<String> functions) {
        static Chain of(String path) {
            if (path == null) {
                return null;
            }
            String hostBridge = null;
            List<String> functions = new ArrayList<>();
            for (String part : path.split("/")) {
                if (hostBridge == null) {
                    if (part.startsWith("pci") && part.length() > 3) {
                        hostBridge = part;
                    }
                } else if (FUNCTION.matcher(part).matches()) {
                    functions.add(part.toLowerCase(java.util.Locale.ROOT));
                } else {
                    break; // below the PCI function: a class directory such as infiniband/mlx5_0
                }
            }
            return hostBridge == null || functions.isEmpty() ? null : new Chain(hostBridge, functions);
        }
    }
}
