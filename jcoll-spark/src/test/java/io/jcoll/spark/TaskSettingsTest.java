package io.jcoll.spark;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** What a task's communicator is built with: the stage's place always, Spark's knowledge unless someone said otherwise. */
class TaskSettingsTest {

    private static final TaskPlacement TWO_HOSTS = TaskPlacement.of(List.of("a:1", "b:1", "a:1", "b:1"), 3);
    private static final TaskPlacement ONE_HOST = TaskPlacement.of(List.of("a:1", "a:2"), 1);
    private static final Settings NOTHING = Settings.of(Map.of());

    @Test
    void theStagesPlaceTheHostRankZerosAddressAndTheGpu() {
        Map<String, String> s = SparkJcoll.taskSettings(TWO_HOSTS, "1", Map.of("JCOLL_TIMEOUT", "30s"), NOTHING);
        assertEquals(Map.of("JCOLL_RANK", "3", "JCOLL_WORLD_SIZE", "4", "JCOLL_LOCAL_RANK", "1",
                "JCOLL_LOCAL_WORLD_SIZE", "2", "JCOLL_HOST_ID", "b", "JCOLL_ADVERTISE_ADDR", "a", "JCOLL_DEVICE", "1",
                "JCOLL_TIMEOUT", "30s"), s);
    }

    @Test
    void oneHostMeetsOnLoopbackAndATaskWithoutGpuNamesNone() {
        Map<String, String> s = SparkJcoll.taskSettings(ONE_HOST, null, Map.of(), NOTHING);
        assertFalse(s.containsKey("JCOLL_ADVERTISE_ADDR"), s.toString());
        assertFalse(s.containsKey("JCOLL_DEVICE"), s.toString());
        assertEquals("1", s.get("JCOLL_LOCAL_RANK"));
    }

    @Test
    void theCallerAndTheEnvironmentWinOverSparksGuessesButNeverOverTheStagesPlace() {
        Map<String, String> s = SparkJcoll.taskSettings(TWO_HOSTS, "1", Map.of("JCOLL_DEVICE", "0",
                "JCOLL_RANK", "0", "JCOLL_WORLD_SIZE", "9"), Settings.of(Map.of("JCOLL_ADVERTISE_ADDR", "10.0.0.9",
                "JCOLL_HOST_ID", "rack1-a")));
        assertEquals("0", s.get("JCOLL_DEVICE"));               // the caller's
        assertFalse(s.containsKey("JCOLL_ADVERTISE_ADDR"));      // the environment's, read by jcoll itself
        assertFalse(s.containsKey("JCOLL_HOST_ID"));
        assertEquals("3", s.get("JCOLL_RANK"));                  // the stage's
        assertEquals("4", s.get("JCOLL_WORLD_SIZE"));
    }
}
