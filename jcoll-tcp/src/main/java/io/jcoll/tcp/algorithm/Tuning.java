package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Settings;

/**
 * The knobs of the algorithms. Every rank must use the same values (segment
 * boundaries decide message lengths), so the transport adopts rank 0's.
 *
 * @param segmentBytes        pipeline unit: messages move in segments of at most this size (shorter runs in
 *                            shorter ones, see {@link #segmentElements}), {@link Pipeline#DEPTH} in flight
 * @param minSegmentBytes     the shortest segment a run is cut into to fill the pipeline (at most the segment)
 * @param smallAllReduceBytes at or below this, allReduce uses recursive doubling instead of the ring (and so does
 *                            reduceScatter, for its whole input, in a group whose size is not a power of two)
 * @param smallBroadcastBytes at or below this, broadcast uses a binomial tree instead of a pipelined chain
 * @param smallAllGatherBytes at or below this output size, allGather uses Bruck's algorithm instead of the ring
 * @param smallAllToAllBytes  at or below this output size, allToAll posts every block at once instead of pairwise steps
 */
public record Tuning(int segmentBytes, int minSegmentBytes, int smallAllReduceBytes, int smallBroadcastBytes,
                     int smallAllGatherBytes, int smallAllToAllBytes) {

    /**
     * Whole segments only by default: on 32 cores, shorter segments for short runs (an eighth of the segment) helped
     * neither AllReduce nor All-to-All clearly in two alternated rounds, and slowed 8-rank All-to-All at 16 MB
     * from 1.74-1.86x the better peer to 1.11-1.26x (benchmarks/RESULTS.md).
     */
    public static final Tuning DEFAULT = new Tuning(512 << 10, 512 << 10, 64 << 10, 64 << 10, 64 << 10, 64 << 10);

    /**
     * The three-threshold form, for tests: the shortest segment an eighth of the segment (so that short runs are
     * cut finer, as JCOLL_TCP_MIN_SEGMENT allows), allGather's and allToAll's thresholds equal to allReduce's.
     */
    public Tuning(int segmentBytes, int smallAllReduceBytes, int smallBroadcastBytes) {
        this(segmentBytes, Math.max(1, segmentBytes / 8), smallAllReduceBytes, smallBroadcastBytes, smallAllReduceBytes,
                smallAllReduceBytes);
    }

    public Tuning {
        if (segmentBytes < 64 || segmentBytes > (256 << 20)) {
            throw new IllegalArgumentException("JCOLL_TCP_SEGMENT must be 64 bytes to 256M (was " + segmentBytes + ")");
        }
        if (minSegmentBytes < 1 || minSegmentBytes > segmentBytes) {
            throw new IllegalArgumentException("JCOLL_TCP_MIN_SEGMENT must be 1 byte to the segment size ("
                    + segmentBytes + " bytes); was " + minSegmentBytes);
        }
        int[] thresholds = {smallAllReduceBytes, smallBroadcastBytes, smallAllGatherBytes, smallAllToAllBytes};
        for (int t : thresholds) {
            // small messages travel whole, staged through one segment
            if (t < 0 || t > segmentBytes) {
                throw new IllegalArgumentException("small-message thresholds must be 0 to the segment size ("
                        + segmentBytes + " bytes); were " + java.util.Arrays.toString(thresholds));
            }
        }
    }

    /**
     * Reads JCOLL_TCP_SEGMENT, JCOLL_TCP_MIN_SEGMENT (default the segment: whole segments), JCOLL_TCP_SMALL_ALLREDUCE,
     * JCOLL_TCP_SMALL_BROADCAST, JCOLL_TCP_SMALL_ALLGATHER, JCOLL_TCP_SMALL_ALLTOALL (byte sizes, K/M suffixes); a
     * threshold defaults to at most the segment.
     */
    public static Tuning from(Settings s) {
        int segment = (int) s.getBytes("JCOLL_TCP_SEGMENT", DEFAULT.segmentBytes);
        return new Tuning(segment, (int) s.getBytes("JCOLL_TCP_MIN_SEGMENT", segment),
                threshold(s, "JCOLL_TCP_SMALL_ALLREDUCE", DEFAULT.smallAllReduceBytes, segment),
                threshold(s, "JCOLL_TCP_SMALL_BROADCAST", DEFAULT.smallBroadcastBytes, segment),
                threshold(s, "JCOLL_TCP_SMALL_ALLGATHER", DEFAULT.smallAllGatherBytes, segment),
                threshold(s, "JCOLL_TCP_SMALL_ALLTOALL", DEFAULT.smallAllToAllBytes, segment));
    }

    private static int threshold(Settings s, String name, int fallback, int segment) {
        return (int) s.getBytes(name, Math.min(fallback, segment));
    }

    /**
     * Elements per segment for a run of {@code count} elements of {@code typeSize} bytes: cut into at least
     * {@link Pipeline#DEPTH} segments, so that the network moves the next ones while one is reduced or copied
     * (a block of one segment would leave nothing to overlap), but none shorter than the minimum segment (each
     * message costs system calls) nor longer than the segment (the stages' size). Both ends of a message cut it
     * alike, since both know the run's length.
     */
    public int segmentElements(int typeSize, long count) {
        long wanted = (count * typeSize + Pipeline.DEPTH - 1) / Pipeline.DEPTH;
        long bytes = Math.max(minSegmentBytes, Math.min(segmentBytes, wanted));
        return (int) Math.max(1, bytes / typeSize);
    }

    public String encode() {
        return segmentBytes + "," + minSegmentBytes + "," + smallAllReduceBytes + "," + smallBroadcastBytes + ","
                + smallAllGatherBytes + "," + smallAllToAllBytes;
    }

    public static Tuning decode(String text) {
        String[] f = text.split(",");
        return new Tuning(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                Integer.parseInt(f[4]), Integer.parseInt(f[5]));
    }
}
