package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Settings;

/**
 * The knobs of the algorithms. Every rank must use the same values (segment
 * boundaries decide message lengths), so the transport adopts rank 0's.
 *
 * @param segmentBytes        pipeline unit: messages move in segments of this size, two in flight each way
 * @param smallAllReduceBytes at or below this, allReduce uses recursive doubling instead of the ring
 * @param smallBroadcastBytes at or below this, broadcast uses a binomial tree instead of a pipelined chain
 */
public record Tuning(int segmentBytes, int smallAllReduceBytes, int smallBroadcastBytes) {

    public static final Tuning DEFAULT = new Tuning(512 << 10, 64 << 10, 64 << 10);

    public Tuning {
        if (segmentBytes < 64 || smallAllReduceBytes < 0 || smallBroadcastBytes < 0
                || segmentBytes > (256 << 20)) {
            throw new IllegalArgumentException("tuning out of range: segment " + segmentBytes + " bytes (64 bytes to 256M), "
                    + "small thresholds " + smallAllReduceBytes + " and " + smallBroadcastBytes + " (at least 0)");
        }
        if (smallAllReduceBytes > segmentBytes || smallBroadcastBytes > segmentBytes) {
            // small messages travel whole, staged through one segment
            throw new IllegalArgumentException("small-message thresholds (" + smallAllReduceBytes + ", "
                    + smallBroadcastBytes + " bytes) may not exceed the segment size (" + segmentBytes + " bytes)");
        }
    }

    /** Reads JCOLL_TCP_SEGMENT, JCOLL_TCP_SMALL_ALLREDUCE, JCOLL_TCP_SMALL_BROADCAST (byte sizes, K/M suffixes). */
    public static Tuning from(Settings s) {
        return new Tuning(
                (int) s.getBytes("JCOLL_TCP_SEGMENT", DEFAULT.segmentBytes),
                (int) s.getBytes("JCOLL_TCP_SMALL_ALLREDUCE", DEFAULT.smallAllReduceBytes),
                (int) s.getBytes("JCOLL_TCP_SMALL_BROADCAST", DEFAULT.smallBroadcastBytes));
    }

    /** Elements of {@code typeSize} bytes per segment. */
    public int segmentElements(int typeSize) {
        return Math.max(1, segmentBytes / typeSize);
    }

    public String encode() {
        return segmentBytes + "," + smallAllReduceBytes + "," + smallBroadcastBytes;
    }

    public static Tuning decode(String text) {
        String[] f = text.split(",");
        return new Tuning(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]));
    }
}
