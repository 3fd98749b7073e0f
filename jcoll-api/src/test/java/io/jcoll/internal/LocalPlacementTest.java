package io.jcoll.internal;

import io.jcoll.bootstrap.JobConfig;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.spi.Settings;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ranks count who shares their host through the store (real ranks as threads, one store, hosts by id). */
class LocalPlacementTest {

    private static JobConfig config(int rank, int size, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(Map.of("RANK", Integer.toString(rank), "WORLD_SIZE",
                Integer.toString(size), "MASTER_PORT", "29500", "JCOLL_TIMEOUT", "2s"));
        env.putAll(extra);
        return JobConfig.from(Settings.of(env));
    }

    /** Runs {@code size} ranks; rank r is on host {@code hostOf[r]}; returns "localRank/localSize" or the error. */
    private static List<Ranks.Outcome<String>> place(int size, long[] hostOf, Map<Integer, Map<String, String>> given) {
        MemoryStore store = new MemoryStore();
        return Ranks.outcomes(size, Duration.ofSeconds(30), rank -> {
            JobConfig c = LocalPlacement.count(store, config(rank, size, given.getOrDefault(rank, Map.of())),
                    hostOf[rank], "").cfg();
            return c.localRank() + "/" + c.localSize();
        });
    }

    @Test
    void ranksPlacedAcrossHostsInAnyOrderGetTheirPlaceOnTheirHost() {
        // 2 hosts x 2 ranks, interleaved: {0, 2} on host 7, {1, 3} on host 9
        List<Ranks.Outcome<String>> o = place(4, new long[] {7, 9, 7, 9}, Map.of());
        assertEquals(List.of("0/2", "0/2", "1/2", "1/2"), o.stream().map(Ranks.Outcome::get).toList());
        // one rank per host: every rank is local rank 0 (not rank r, which would take GPU r)
        assertEquals(List.of("0/1", "0/1", "0/1", "0/1"), place(4, new long[] {1, 2, 3, 4}, Map.of()).stream()
                .map(Ranks.Outcome::get).toList());
        // 3 ranks on one host, 2 on another, 1 alone: sizes 3, 2, 1
        assertEquals(List.of("0/3", "0/2", "1/3", "1/2", "2/3", "0/1"), place(6, new long[] {5, 6, 5, 6, 5, 8},
                Map.of()).stream().map(Ranks.Outcome::get).toList());
    }

    @Test
    void eachRankHearsWhatTheRanksOfItsOwnHostSaidOfThemselves() {
        MemoryStore store = new MemoryStore();
        long[] hostOf = {7, 9, 7, 9};
        List<Ranks.Outcome<Map<Integer, String>>> o = Ranks.outcomes(4, Duration.ofSeconds(30), rank ->
                LocalPlacement.count(store, config(rank, 4, Map.of()), hostOf[rank], "cpus-of-" + rank).notes());
        assertEquals(Map.of(0, "cpus-of-0", 2, "cpus-of-2"), o.get(0).get());
        assertEquals(Map.of(1, "cpus-of-1", 3, "cpus-of-3"), o.get(3).get());
    }

    @Test
    void givenValuesAreCheckedAgainstTheCount() {
        Map<Integer, Map<String, String>> given = Map.of(
                0, Map.of("LOCAL_RANK", "0", "LOCAL_WORLD_SIZE", "1"),
                1, Map.of("LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "1"), // rank 1 is alone on its host: local rank 0
                2, Map.of("LOCAL_RANK", "0", "LOCAL_WORLD_SIZE", "1"));
        List<Ranks.Outcome<String>> o = place(3, new long[] {1, 2, 3}, given);
        assertEquals("0/1", o.get(0).get());
        assertEquals("0/1", o.get(2).get());
        BootstrapException e = assertInstanceOf(BootstrapException.class, o.get(1).error());
        assertTrue(e.getMessage().contains("LOCAL_RANK=1 where this rank is local rank 0: the ranks on this host "
                + "(by host name, or JCOLL_HOST_ID) are [1]"), e.getMessage());
        assertEquals(1, e.rank());
        BootstrapException size = assertInstanceOf(BootstrapException.class, place(2, new long[] {4, 4},
                Map.of(0, Map.of("LOCAL_WORLD_SIZE", "1"))).get(0).error());
        assertTrue(size.getMessage().contains("LOCAL_WORLD_SIZE=1 where 2 rank(s) run here"), size.getMessage());
    }

    @Test
    void aJobOfTheWrongShapeFailsNamingTheCause() {
        MemoryStore store = new MemoryStore();
        List<Ranks.Outcome<String>> o = Ranks.outcomes(3, Duration.ofSeconds(30), rank -> {
            // rank 2 believes the job has 4 ranks (its node was started with another --nproc-per-node)
            JobConfig c = LocalPlacement.count(store, config(rank, rank == 2 ? 4 : 3, Map.of()), rank, "").cfg();
            return c.localRank() + "/" + c.localSize();
        });
        BootstrapException e = assertInstanceOf(BootstrapException.class, o.get(2).error());
        assertTrue(e.getMessage().contains("started with WORLD_SIZE=4 but rank 0 with 3"), e.getMessage());
        MemoryStore twice = new MemoryStore();
        List<Ranks.Outcome<String>> dup = Ranks.outcomes(2, Duration.ofSeconds(30), thread -> {
            JobConfig c = LocalPlacement.count(twice, config(1, 2, Map.of()), thread, "").cfg(); // both claim rank 1
            return c.localRank() + "/" + c.localSize();
        });
        long named = dup.stream().filter(d -> d.error() != null && d.error().getMessage()
                .contains("another process already joined this job as rank 1")).count();
        assertEquals(1, named, dup.toString());
    }

    @Test
    void aRankThatNeverArrivesIsReportedAtTheTimeout() {
        MemoryStore store = new MemoryStore();
        List<Ranks.Outcome<String>> o = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            JobConfig c = LocalPlacement.count(store, config(rank, 3, Map.of()), 1, "").cfg();
            return c.localRank() + "/" + c.localSize();
        });
        for (Ranks.Outcome<String> r : o) {
            assertNull(r.value());
            assertTrue(r.error().getMessage().contains("only 2 of 3 ranks reached the rendezvous within 2 s "
                    + "(JCOLL_TIMEOUT): rank(s) [2] never arrived"), String.valueOf(r.error()));
            assertEquals(2, ((BootstrapException) r.error()).peer());
        }
    }
}
