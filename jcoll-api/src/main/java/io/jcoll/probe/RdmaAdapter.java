package io.jcoll.probe;

import java.util.List;

/**
 * An RDMA adapter under {@code /sys/class/infiniband}.
 *
 * @param name      such as {@code mlx5_0}
 * @param hcaType   {@code hca_type}, such as {@code MT4129}, or null
 * @param firmware  {@code fw_ver}, or null
 * @param pciPath   the sysfs path of its PCI function, or null
 * @param numaNode  its NUMA node, or -1
 * @param ports     its ports
 */
public record RdmaAdapter(String name, String hcaType, String firmware, String pciPath, int numaNode,
                          List<RdmaPort> ports) {

    public RdmaAdapter {
        ports = List.copyOf(ports);
    }

    /** Whether any port is ACTIVE. */
    public boolean active() {
        return ports.stream().anyMatch(RdmaPort::active);
    }
}
