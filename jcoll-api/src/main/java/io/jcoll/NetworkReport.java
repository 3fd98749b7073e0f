package io.jcoll;

import java.util.List;

/**
 * What a communicator's transport really moves data over, as the transport
 * itself reports it after setting up (for NCCL: read from NCCL's own log), as
 * opposed to what a probe expected.
 * <pre>{@code
 * comm.allReduce(HostBuffer.of(new float[1]), ReduceOp.SUM);   // NCCL connects at the first collective
 * NetworkReport n = comm.network();
 * System.out.println(n.summary());                             // "... through NVLink peer-to-peer (P2P/CUMEM) ..."
 * n.warnings().forEach(System.err::println);
 * }</pre>
 *
 * @param summary        one sentence for people
 * @param paths          the paths between ranks, such as {@code P2P/CUMEM/read}, {@code SHM},
 *                       {@code NET/IB/GDRDMA}, {@code NET/Socket} or {@code TCP}; empty until known
 * @param network        the network chosen for traffic between nodes: {@code IB} (InfiniBand or RoCE),
 *                       {@code Socket}, a plugin's name, or {@code TCP}; null if unknown
 * @param devices        the devices that network uses, such as {@code mlx5_0:1/RoCE} or {@code eth0}
 * @param gpuDirectRdma  whether RDMA adapters read GPU memory directly; null if unknown or not applicable
 * @param warnings       what looks wrong, such as sockets chosen while an RDMA adapter is active
 * @param source         where this was learned, such as the path of NCCL's log
 */
public record NetworkReport(String summary, List<String> paths, String network, List<String> devices,
                            Boolean gpuDirectRdma, List<String> warnings, String source) {

    /**
     * Copies the lists, so that a report never changes.
     *
     * @param summary       one sentence for people
     * @param paths         the paths between ranks
     * @param network       the network between nodes, or null
     * @param devices       that network's devices
     * @param gpuDirectRdma whether RDMA reads GPU memory directly, or null
     * @param warnings      what looks wrong
     * @param source        where this was learned
     */
    public NetworkReport {
        paths = List.copyOf(paths);
        devices = List.copyOf(devices);
        warnings = List.copyOf(warnings);
    }

    /**
     * A transport that cannot say.
     *
     * @param why why the transport cannot say
     * @return a report that says only why
     */
    public static NetworkReport unknown(String why) {
        return new NetworkReport(why, List.of(), null, List.of(), null, List.of(), "none");
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(summary);
        for (String w : warnings) {
            b.append(" WARNING: ").append(w);
        }
        return b.toString();
    }
}
