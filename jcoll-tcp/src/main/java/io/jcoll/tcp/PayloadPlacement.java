package io.jcoll.tcp;

import io.jcoll.tcp.p2p.Frame;

import java.nio.ByteBuffer;

/**
 * Where a long payload lands in the kernel's socket memory, and the padding that keeps it clear of the user
 * memory it is copied from and to.
 *
 * <p>A TCP send copies the payload into pages the kernel keeps per sending thread, filled one write after another
 * and started again at their beginning once the peer has read everything in them; a receive on the same host
 * copies out of those very pages. Both copies (the kernel's {@code rep movsb}) ran two to four times slower on
 * the development machines' AMD EPYC when the store side was 1 to 31 bytes ahead of the load side modulo a page
 * (a store that a later load falsely seems to depend on). Measured with jcoll's All-to-All between 2 ranks over
 * loopback, 512 KB, user buffers at page offset x, and the payload at page offset h in the kernel (h the header's
 * length): with h = 100, x = 72, 80, 92, 104, 112 and 128 took 179-326 us a call, x = 0, 40, 68, 100, 132, 140
 * and 2048 took 84-121 (benchmarks/RESULTS.md). With the 36-byte header of before, every buffer from
 * {@code ByteBuffer.allocateDirect} of 128 KB or more (at page offset 16: malloc's large blocks) sat in the slow
 * window.
 *
 * <p>The sender knows the page offset of its own memory, not the receiver's; it pads so that the payload lands at
 * least {@link #CLEARANCE} bytes from its source and from the offsets most receive buffers have (page-aligned
 * allocations and malloc's large blocks; a receiver's buffer at the sender's offset, as symmetric code has, is
 * covered by the first). Where the payload lands depends on whether the kernel's page was started again before
 * this write (the peer had read everything) or goes on from the end of the thread's last write; the padding
 * keeps clear in both cases. A guess about kernel memory, so it is only padding: a wrong guess costs a few
 * bytes, never a wrong result.
 */
final class PayloadPlacement {

    static final int PAGE = 4096;
    /** How close, either way modulo a page, the payload's place in the kernel may come to a buffer's. */
    static final int CLEARANCE = 64;
    /** Page offsets that receive buffers commonly have: page-aligned allocations, and malloc's large blocks. */
    private static final int[] COMMON_OFFSETS = {0, 16};

    /** The page offset at which this thread's next write would start were the kernel's page not started again. */
    private int continuedAt;

    /**
     * The padding to put before {@code payload} (its remaining bytes are the frame's payload): 0 for a payload
     * shorter than {@link Frame#MIN_PADDED_PAYLOAD} or in heap memory (whose address the JDK does not tell).
     */
    int paddingFor(ByteBuffer payload) {
        if (payload.remaining() < Frame.MIN_PADDED_PAYLOAD || !payload.isDirect()) {
            return 0;
        }
        return padding(payload.alignmentOffset(payload.position(), PAGE), continuedAt);
    }

    /** Notes bytes this thread wrote to any socket of the link: the kernel's page fills on from there. */
    void wrote(long bytes) {
        continuedAt = (int) ((continuedAt + bytes) % PAGE);
    }

    /**
     * The least padding that puts the payload, after a header of {@link Frame#HEADER_BYTES}, at least
     * {@link #CLEARANCE} bytes from {@code sourceOffset} and from the common receive offsets, whether the write
     * starts at page offset 0 or at {@code continuedAt}.
     */
    static int padding(int sourceOffset, int continuedAt) {
        int[] starts = {0, continuedAt};
        int[] avoid = {sourceOffset, COMMON_OFFSETS[0], COMMON_OFFSETS[1]};
        int pad = 0;
        boolean moved = true;
        // each window is 2 * CLEARANCE - 1 wide and there are six, so a place outside all of them is found within a
        // page; every step moves past one window, and a window once passed is met again only after a whole page
        while (moved) {
            moved = false;
            for (int start : starts) {
                for (int offset : avoid) {
                    int at = Math.floorMod(start + Frame.HEADER_BYTES + pad - offset, PAGE);
                    if (at < CLEARANCE) {
                        pad += CLEARANCE - at;
                        moved = true;
                    } else if (at > PAGE - CLEARANCE) {
                        pad += PAGE - at + CLEARANCE;
                        moved = true;
                    }
                }
            }
        }
        if (pad > Frame.MAX_PADDING) {
            throw new AssertionError("no placement within a page for source offset " + sourceOffset);
        }
        return pad;
    }
}
