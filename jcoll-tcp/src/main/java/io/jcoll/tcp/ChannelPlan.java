package io.jcoll.tcp;

import io.jcoll.spi.Settings;

/**
 * How many independent channels (a mesh of connections, a progress thread and
 * scratch each) a large AllReduce or Broadcast is split over. One loopback or
 * NIC stream is bound by the one core that copies its bytes in and out of the
 * kernel; several channels copy on several cores at once, as NCCL's channels
 * do. Each channel takes a contiguous slice of the message, so every channel
 * runs the ordinary algorithms on its slice. Rank 0's plan is every rank's.
 *
 * @param channels         channels per rank pair, at least 1
 * @param minBytesPerChannel a message is split only into slices of at least this size
 */
record ChannelPlan(int channels, long minBytesPerChannel) {

    static final int MAX_CHANNELS = 8;

    ChannelPlan {
        if (channels < 1 || channels > MAX_CHANNELS || minBytesPerChannel < 1) {
            throw new IllegalArgumentException("JCOLL_TCP_CHANNELS must be 1.." + MAX_CHANNELS + " (was " + channels
                    + ") and JCOLL_TCP_CHANNEL_MIN positive (was " + minBytesPerChannel + ")");
        }
    }

    /**
     * JCOLL_TCP_CHANNELS, else a channel per core this rank has to itself (its share of the host's cores), at
     * most 4; JCOLL_TCP_CHANNEL_MIN (default 1 MB). Measured on 32 cores (benchmarks/RESULTS.md): 8 ranks went from
     * 1.1-1.2x the best peer at 16-64 MB with 2 channels to 1.6-1.8x with 4.
     */
    static ChannelPlan from(Settings s, int localRanks, int cores) {
        int share = Math.max(1, cores / Math.max(1, localRanks));
        int fallback = Math.min(4, share);
        return new ChannelPlan(s.getInt("JCOLL_TCP_CHANNELS", fallback),
                s.getBytes("JCOLL_TCP_CHANNEL_MIN", 1 << 20));
    }

    /** How many channels a message of {@code bytes} uses. */
    int channelsFor(long bytes) {
        return (int) Math.max(1, Math.min(channels, bytes / minBytesPerChannel));
    }

    String encode() {
        return channels + "," + minBytesPerChannel;
    }

    static ChannelPlan decode(String text) {
        String[] f = text.split(",");
        return new ChannelPlan(Integer.parseInt(f[0]), Long.parseLong(f[1]));
    }
}
