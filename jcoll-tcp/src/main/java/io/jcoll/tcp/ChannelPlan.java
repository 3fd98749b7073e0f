package io.jcoll.tcp;

import io.jcoll.spi.Settings;

/**
 * How many independent channels (a mesh of connections, a progress thread and
 * scratch each) a large collective is split over. One loopback or NIC stream
 * is bound by the one core that copies its bytes in and out of the kernel;
 * several channels copy on several cores at once, as NCCL's channels do. Each
 * channel takes the same part of every rank's block (a contiguous slice of the
 * message for AllReduce and Broadcast), so every channel runs the ordinary
 * algorithms on its part. Rank 0's plan is every rank's.
 *
 * @param channels         channels per rank pair, at least 1
 * @param minBytesPerChannel a call is split only into parts of at least this size
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
     * most 4; JCOLL_TCP_CHANNEL_MIN (default 1 MB). Measured on 32 cores (benchmarks/RESULTS.md): at 8 ranks, 4
     * channels moved more than 2 in 10 of 12 AllReduce and All-to-All cases at 4-64 MB over two alternated rounds.
     */
    static ChannelPlan from(Settings s, int localRanks, int cores) {
        int share = Math.max(1, cores / Math.max(1, localRanks));
        int fallback = Math.min(4, share);
        return new ChannelPlan(s.getInt("JCOLL_TCP_CHANNELS", fallback),
                s.getBytes("JCOLL_TCP_CHANNEL_MIN", 1 << 20));
    }

    /** How many channels a call that moves {@code bytes} per rank uses. */
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
