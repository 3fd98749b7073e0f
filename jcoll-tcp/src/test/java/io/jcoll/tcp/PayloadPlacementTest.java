package io.jcoll.tcp;

import io.jcoll.tcp.p2p.Frame;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The padding keeps a payload's place in the kernel clear of its source and of the common receive offsets, in
 * both places the kernel may put it, and is the least that does: checked here against a plain search of every
 * padding, for every source offset.
 */
class PayloadPlacementTest {

    private static final int PAGE = PayloadPlacement.PAGE;
    private static final int CLEARANCE = PayloadPlacement.CLEARANCE;

    /** Circular distance between two page offsets. */
    private static int distance(int a, int b) {
        int d = Math.floorMod(a - b, PAGE);
        return Math.min(d, PAGE - d);
    }

    private static boolean clear(int pad, int source, int continuedAt) {
        for (int start : new int[] {0, continuedAt}) {
            int at = Math.floorMod(start + Frame.HEADER_BYTES + pad, PAGE);
            for (int avoid : new int[] {source, 0, 16}) {
                if (distance(at, avoid) < CLEARANCE) {
                    return false;
                }
            }
        }
        return true;
    }

    @Test
    void everySourceOffsetGetsTheLeastClearPadding() {
        Random random = new Random();
        for (int source = 0; source < PAGE; source++) {
            // the page started again, a write that ended where this one's header begins, and one at random
            for (int continuedAt : new int[] {0, Math.floorMod(source - Frame.HEADER_BYTES, PAGE), random.nextInt(PAGE)}) {
                int pad = PayloadPlacement.padding(source, continuedAt);
                assertTrue(pad >= 0 && pad <= Frame.MAX_PADDING, "padding " + pad);
                assertTrue(clear(pad, source, continuedAt), "source " + source + ", continued at " + continuedAt
                        + ": padding " + pad + " leaves the payload too close");
                for (int less = 0; less < pad; less++) {
                    assertTrue(!clear(less, source, continuedAt), "source " + source + ", continued at " + continuedAt
                            + ": " + less + " bytes would do, not " + pad);
                }
            }
        }
    }

    @Test
    void malloccedBuffersNoLongerMeetTheHeader() {
        // a large ByteBuffer.allocateDirect starts 16 bytes into a page; its payload must land 64 or more away
        int pad = PayloadPlacement.padding(16, 0);
        assertEquals(80, Frame.HEADER_BYTES + pad, "payload at page offset " + (Frame.HEADER_BYTES + pad));
    }

    @Test
    void shortAndHeapPayloadsAreNotPadded() {
        PayloadPlacement placement = new PayloadPlacement();
        assertEquals(0, placement.paddingFor(ByteBuffer.allocateDirect(Frame.MIN_PADDED_PAYLOAD - 1)));
        assertEquals(0, placement.paddingFor(ByteBuffer.allocate(Frame.MIN_PADDED_PAYLOAD * 4)));
    }

    @Test
    void aDirectPayloadIsPlacedByItsOwnAddress() {
        PayloadPlacement placement = new PayloadPlacement();
        ByteBuffer memory = ByteBuffer.allocateDirect(Frame.MIN_PADDED_PAYLOAD + 2 * PAGE);
        for (int shift : new int[] {0, 16, 40, 1000, 4000}) {
            ByteBuffer payload = memory.duplicate().position(shift).limit(shift + Frame.MIN_PADDED_PAYLOAD);
            int source = payload.alignmentOffset(shift, PAGE);
            assertEquals(PayloadPlacement.padding(source, 0), placement.paddingFor(payload), "shift " + shift);
        }
        placement.wrote(100);
        ByteBuffer payload = memory.duplicate().limit(Frame.MIN_PADDED_PAYLOAD);
        assertEquals(PayloadPlacement.padding(payload.alignmentOffset(0, PAGE), 100), placement.paddingFor(payload));
    }
}
