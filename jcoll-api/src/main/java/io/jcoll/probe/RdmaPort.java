package io.jcoll.probe;

/**
 * One port of an RDMA adapter, as {@code /sys/class/infiniband/DEV/ports/N/} shows it.
 *
 * @param adapter        the adapter's name, such as {@code mlx5_0}
 * @param number         the port number (from 1)
 * @param state          {@code state}, such as {@code 4: ACTIVE} (the logical state)
 * @param physicalState  {@code phys_state}, such as {@code 5: LinkUp}
 * @param linkLayer      {@code link_layer}: {@code InfiniBand}, or {@code Ethernet} for RoCE
 * @param rate           {@code rate}, such as {@code 400 Gb/sec (4X NDR)}
 * @param roceV2GidIndex for RoCE, the GID index NCCL should use (type {@code RoCE v2}, an IPv4 address
 *                       preferred), or -1
 * @param netDevice      for RoCE, the network interface of that GID (or of any GID), else null
 */
public record RdmaPort(String adapter, int number, String state, String physicalState, String linkLayer, String rate,
                       int roceV2GidIndex, String netDevice) {

    /** Whether the port can carry traffic: logical state ACTIVE. */
    public boolean active() {
        return state != null && state.toUpperCase(java.util.Locale.ROOT).endsWith("ACTIVE");
    }

    /** RDMA over Converged Ethernet, as opposed to native InfiniBand. */
    public boolean roce() {
        return "Ethernet".equalsIgnoreCase(linkLayer);
    }

    /** {@code mlx5_0:1}, the form {@code NCCL_IB_HCA} takes. */
    public String label() {
        return adapter + ":" + number;
    }

    /** {@code InfiniBand} or {@code RoCE}. */
    public String kind() {
        return roce() ? "RoCE" : "InfiniBand".equalsIgnoreCase(linkLayer) ? "InfiniBand" : String.valueOf(linkLayer);
    }
}
