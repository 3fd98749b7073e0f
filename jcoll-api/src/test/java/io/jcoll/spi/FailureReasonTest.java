package io.jcoll.spi;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailureReasonTest {

    @Test
    void aReasonThatFitsStaysWhole() {
        for (String text : new String[] {"", "x", "rank 3 died", "é".repeat(16)}) {
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), FailureReason.fit(text, 32));
        }
    }

    /** A reason passed on three times: the hop that reported it and the first cause both survive. */
    @Test
    void aLongReasonKeepsItsBeginningAndItsFirstCause() {
        String first = "abort on rank 3 (peer rank 3): comm.abort() was called on rank 3";
        String text = first;
        for (int hop = 0; hop < 3; hop++) {
            text = "allGather on rank " + hop + " (peer rank " + (hop + 1) + "): rank " + (hop + 1)
                    + " aborted while this rank was in allGather #347 (128 x float32): " + text;
        }
        String fitted = new String(FailureReason.fit(text, 224), StandardCharsets.UTF_8);
        assertTrue(fitted.startsWith("allGather on rank 2"), fitted);
        assertTrue(fitted.endsWith(first), fitted);
        assertTrue(fitted.contains(FailureReason.GAP), fitted);
        assertTrue(fitted.getBytes(StandardCharsets.UTF_8).length <= 224, fitted);
    }

    /** Every length and room, with characters of one to four bytes: never over the room, never half a character. */
    @Test
    void neverOverTheRoomNorInsideACharacter() {
        Random random = new Random();
        String[] alphabet = {"a", "é", "€", "𝄞"};
        for (int trial = 0; trial < 2000; trial++) {
            StringBuilder b = new StringBuilder();
            int chars = random.nextInt(400);
            for (int i = 0; i < chars; i++) {
                b.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String text = b.toString();
            int room = 32 + random.nextInt(300);
            byte[] fitted = FailureReason.fit(text, room);
            byte[] whole = text.getBytes(StandardCharsets.UTF_8);
            assertTrue(fitted.length <= room, "room " + room + ", got " + fitted.length);
            String decoded = new String(fitted, StandardCharsets.UTF_8);
            assertEquals(fitted.length, decoded.getBytes(StandardCharsets.UTF_8).length, "a character was cut");
            if (whole.length > room) {
                int gap = decoded.indexOf(FailureReason.GAP);
                assertTrue(text.startsWith(decoded.substring(0, gap)));
                assertTrue(text.endsWith(decoded.substring(gap + FailureReason.GAP.length())));
                assertTrue(fitted.length >= room - 3 - FailureReason.GAP.length(), "room wasted: " + fitted.length);
            } else {
                assertEquals(text, decoded);
            }
        }
    }

    @Test
    void tooLittleRoomIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> FailureReason.fit("x", 31));
    }
}
