package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How settings become the tuning every rank adopts, and how a run is cut into segments. */
class TuningTest {

    @Test
    void defaultsCutRunsIntoWholeSegments() {
        Tuning t = Tuning.from(Settings.of(Map.of()));
        assertEquals(Tuning.DEFAULT, t);
        assertEquals(512 << 10, t.minSegmentBytes());
        assertEquals((512 << 10) / 4, t.segmentElements(4, 100L << 20), "long run: whole segments");
        assertEquals((512 << 10) / 4, t.segmentElements(4, 1000), "short run: still one whole segment of room");
    }

    @Test
    void aMinimumSegmentCutsShortRunsToFillThePipeline() {
        Tuning t = Tuning.from(Settings.of(Map.of("JCOLL_TCP_MIN_SEGMENT", "64K")));
        int typeSize = 4;
        // a 512 KB run: DEPTH segments of 128 KB
        assertEquals((512 << 10) / Pipeline.DEPTH / typeSize, t.segmentElements(typeSize, (512 << 10) / typeSize));
        // a 64 KB run: not below the minimum
        assertEquals((64 << 10) / typeSize, t.segmentElements(typeSize, (64 << 10) / typeSize));
        // a long run: never above the segment
        assertEquals((512 << 10) / typeSize, t.segmentElements(typeSize, 1L << 30));
        // an odd element size: whole elements, at least one
        assertEquals(1, new Tuning(64, 1, 0, 0, 0, 0).segmentElements(8, 3));
    }

    @Test
    void settingsOutOfRangeAreRefusedNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tuning.from(Settings.of(Map.of("JCOLL_TCP_MIN_SEGMENT", "1M"))));
        assertTrue(e.getMessage().contains("JCOLL_TCP_MIN_SEGMENT"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> Tuning.from(Settings.of(Map.of("JCOLL_TCP_SMALL_ALLTOALL", "1M"))));
        assertTrue(e.getMessage().contains("segment size"), e.getMessage());
    }

    @Test
    void rankZerosTuningTravelsIntact() {
        Tuning t = new Tuning(1 << 20, 32 << 10, 1000, 2000, 3000, 4000);
        assertEquals(t, Tuning.decode(t.encode()));
    }
}
