package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Settings;

/**
 * The knobs of the algorithms. Every rank must use the same values (segment
 * boundaries decide message lengths), so the transport adopts rank 0's.
 *
 * @param segmentBytes        pipeline unit: messages move in segments of this size, two in flight each way
 * @param smallAllReduceBytes at or below this, allReduce uses recursive doubling instead of the ring
 * @param smallBroadcastBytes at or below this, broadcast uses a binomial tree instead of a pipelined chain
 * @param smallAllGatherBytes at or below this output size, allGather uses Bruck's algorithm instead of the ring
 */
public record Tuning(int segmentBytes, int smallAllReduceBytes, int smallBroadcastBytes, int smallAllGatherBytes) {

    public static final Tuning DEFAULT = new Tuning(512 << 10, 64 << 10, 64 << 10, 64 << 10);

    /** The three-threshold form, with allGather's threshold equal to allReduce's. */
    public Tuning(int segmentBytes, int smallAllReduceBytes, int smallBroadcastBytes) {
        this(segmentBytes, smallAllReduceBytes, smallBroadcastBytes, smallAllReduceBytes);
    }

    public Tuning {
        if (segmentBytes < 64 || smallAllReduceBytes < 0 || smallBroadcastBytes < 0 || smallAllGatherBytes < 0
                || segmentBytes > (256 << 20)) {
            throw new IllegalArgumentException("tuning out of range: segment " + segmentBytes + " bytes (64 bytes to 256M), "
                    + "small thresholds " + smallAllReduceBytes + " and " + smallBroadcastBytes + " (at least 0)");
        }
        if (smallAllReduceBytes > segmentBytes || smallBroadcastBytes > segmentBytes || smallAllGatherBytes > segmentBytes) {
            // small messages travel whole, staged through one segment
            throw new IllegalArgumentException("small-message thresholds (" + smallAllReduceBytes + ", "
                    + smallBroadcastBytes + " bytes) may not exceed the segment size (" + segmentBytes + " bytes)");
        }
    }

    /**
     * Reads JCOLL_TCP_SEGMENT, JCOLL_TCP_SMALL_ALLREDUCE, JCOLL_TCP_SMALL_BROADCAST, JCOLL_TCP_SMALL_ALLGATHER
     * (byte sizes, K/M suffixes).
     */
    public static Tuning from(Settings s) {
        int segment = (int) s.getBytes("JCOLL_TCP_SEGMENT", DEFAULT.segmentBytes);
        return new Tuning(segment,
                (int) s.getBytes("JCOLL_TCP_SMALL_ALLREDUCE", DEFAULT.smallAllReduceBytes),
                (int) s.getBytes("JCOLL_TCP_SMALL_BROADCAST", DEFAULT.smallBroadcastBytes),
                (int) s.getBytes("JCOLL_TCP_SMALL_ALLGATHER", Math.min(DEFAULT.smallAllGatherBytes, segment)));
    }

    /** Elements of {@code typeSize} bytes per segment. */
    public int segmentElements(int typeSize) {
        return Math.max(1, segmentBytes / typeSize);
    }

    public String encode() {
        return segmentBytes + "," + smallAllReduceBytes + "," + smallBroadcastBytes + "," + smallAllGatherBytes;
    }

    public static Tuning decode(String text) {
        String[] f = text.split(",");
        return new Tuning(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]));
    }
}
