package io.jcoll.probe;

/**
 * The kernel's TCP congestion control for new connections ({@code net.ipv4.tcp_congestion_control}), which paces
 * every stream between nodes that jcoll's TCP transport or NCCL's socket path opens. Most distributions default to
 * cubic; some cloud images pick BBR, whose PROBE_RTT state drains a connection to four packets for 200 ms whenever
 * it has seen no lower round trip for 10 s. A ring's streams never run empty, so their queues never show the lower
 * round trip, and each enters PROBE_RTT every 10 s; the whole ring waits for the stream that did.
 *
 * @param algorithm the algorithm's name as the kernel prints it, or null where the file cannot be read
 */
public record CongestionControl(String algorithm) {

    static final String PATH = "/proc/sys/net/ipv4/tcp_congestion_control";

    public static CongestionControl read(SystemFiles files) {
        return new CongestionControl(files.read(PATH).map(String::trim).filter(s -> !s.isEmpty()).orElse(null));
    }

    /** Whether long-lived connections stall every 10 s by design: BBR's PROBE_RTT. */
    public boolean probesRoundTrip() {
        return algorithm != null && algorithm.startsWith("bbr");
    }

    /** The name, or {@code unknown}. */
    public String describe() {
        return algorithm == null ? "unknown" : algorithm;
    }
}
