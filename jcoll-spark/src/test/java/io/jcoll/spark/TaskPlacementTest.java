package io.jcoll.spark;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A task's place read from the executors' addresses Spark hands every barrier task. */
class TaskPlacementTest {

    @Test
    void tasksOfExecutorsOnOneHostShareItWhicheverExecutorTheyRunIn() {
        // partitions 0..5: two executors on host a (ports 7001, 7002), one on b; a's tasks interleaved with b's
        List<String> addresses = List.of("a:7001", "b:7001", "a:7002", "a:7001", "b:7001", "a:7002");
        int[] localRank = new int[6];
        int[] localSize = new int[6];
        for (int p = 0; p < 6; p++) {
            TaskPlacement t = TaskPlacement.of(addresses, p);
            assertEquals(p, t.rank());
            assertEquals(6, t.size());
            assertEquals("a", t.rankZeroHost());
            assertFalse(t.oneHost());
            localRank[p] = t.localRank();
            localSize[p] = t.localSize();
        }
        assertEquals(Arrays.toString(new int[] {0, 0, 1, 2, 1, 3}), Arrays.toString(localRank));
        assertEquals(Arrays.toString(new int[] {4, 2, 4, 4, 2, 4}), Arrays.toString(localSize));
    }

    @Test
    void localModeIsOneHost() {
        List<String> addresses = List.of("10.0.0.5:40123", "10.0.0.5:40123", "10.0.0.5:40123");
        TaskPlacement t = TaskPlacement.of(addresses, 2);
        assertTrue(t.oneHost());
        assertEquals(2, t.localRank());
        assertEquals("10.0.0.5", t.host());
    }

    @Test
    void hostsAreReadFromEveryFormSparkWrites() {
        assertEquals("node-7.cluster", TaskPlacement.hostOf("node-7.cluster:35001", 0));
        assertEquals("::1", TaskPlacement.hostOf("[::1]:35001", 0));
        assertEquals("fe80::1", TaskPlacement.hostOf("fe80::1", 0)); // bare IPv6, no port
        assertEquals("node-7", TaskPlacement.hostOf(" node-7 ", 0));
    }

    @Test
    void addressesThatNameNoHostAreRefusedNamingThePartition() {
        for (String bad : new String[] {"", ":7001", "[", "[]:7001", "   "}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TaskPlacement.of(List.of("a:1", bad, "a:2"), 0), bad);
            assertTrue(e.getMessage().contains("partition 1"), e.getMessage());
        }
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class,
                () -> TaskPlacement.of(Arrays.asList("a:1", null), 1));
        assertTrue(nul.getMessage().contains("partition 1"), nul.getMessage());
    }

    @Test
    void aPartitionOutsideTheStageIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TaskPlacement.of(List.of(), 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TaskPlacement.of(List.of("a:1", "a:1"), 2));
        assertTrue(e.getMessage().contains("partition 2") && e.getMessage().contains("0 to 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TaskPlacement.of(List.of("a:1"), -1));
    }
}
