package io.jcoll.shm;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The helpers that share a rank's copies: every range done once, failures brought home, nothing left running. */
class CrewTest {

    @Test
    void everyElementIsCoveredByExactlyOneMemberAtEveryCut() {
        SplittableRandom rnd = new SplittableRandom();
        for (int trial = 0; trial < 2000; trial++) {
            int elements = rnd.nextInt(0, 5000);
            int of = rnd.nextInt(1, 9);
            int align = new int[] {1, 16, 32, 128}[rnd.nextInt(4)];
            int[] hits = new int[elements];
            int previousEnd = 0;
            for (int m = 0; m < of; m++) {
                int from = Slots.cut(elements, m, of, align);
                int to = Slots.cut(elements, m + 1, of, align);
                assertEquals(previousEnd, from, "ranges must be contiguous");
                assertTrue(to >= from, "range " + m + " ends at " + to + " before it starts at " + from);
                assertTrue(from % align == 0 || from == elements, "cut at " + from + " is not a multiple of " + align);
                for (int i = from; i < to; i++) {
                    hits[i]++;
                }
                previousEnd = to;
            }
            for (int i = 0; i < elements; i++) {
                assertEquals(1, hits[i], "element " + i + " of " + elements + " in " + of + " ranges of " + align);
            }
        }
    }

    @Test
    void jobsRunOnTheRightMembersBeforeRunReturnsAlsoAfterTheHelpersPark() throws InterruptedException {
        try (Crew crew = new Crew("test-crew", 4, () -> { })) {
            for (int round = 0; round < 3; round++) {
                for (int members = 1; members <= 5; members++) {
                    AtomicIntegerArray ran = new AtomicIntegerArray(5);
                    int[] seenOf = new int[5];
                    crew.run(members, (member, of) -> {
                        ran.incrementAndGet(member);
                        seenOf[member] = of;
                    });
                    int expected = Math.min(members, 4);
                    for (int m = 0; m < 5; m++) {
                        assertEquals(m < expected ? 1 : 0, ran.get(m), "member " + m + " of " + expected);
                        if (m < expected) {
                            assertEquals(expected, seenOf[m]);
                        }
                    }
                }
                Thread.sleep(Crew.IDLE_POLL / 1_000_000 + 20); // the helpers park; the next round must wake them
            }
        }
    }

    @Test
    void aHelpersFailureIsThrownToTheCaller() {
        try (Crew crew = new Crew("test-crew", 3, () -> { })) {
            IllegalStateException boom = new IllegalStateException("member 2 failed");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> crew.run(3, (member, of) -> {
                if (member == 2) {
                    throw boom;
                }
            }));
            assertSame(boom, e);
            InternalError fault = new InternalError("a fault in a cut-off page");
            assertSame(fault, assertThrows(InternalError.class, () -> crew.run(3, (member, of) -> {
                if (member == 1) {
                    throw fault;
                }
            })));
            int[] after = new int[1];
            crew.run(3, (member, of) -> {
                if (member == 0) {
                    after[0]++;
                }
            });
            assertEquals(1, after[0], "the crew keeps working after a failed job");
        }
    }

    @Test
    void closingStopsEveryHelper() {
        Crew crew = new Crew("test-crew-closing", 4, () -> { });
        crew.run(4, (member, of) -> { });
        assertTrue(helpers("test-crew-closing") > 0);
        crew.close();
        assertEquals(0, helpers("test-crew-closing"));
        assertThrows(IllegalStateException.class, () -> crew.run(2, (member, of) -> { }));
    }

    @Test
    void theCrewSizeFollowsTheCoresPerRankOrTheSetting() {
        Settings none = Settings.of(Map.of());
        assertEquals(1, ShmTransport.crewSize(none, 2, 2));
        assertEquals(1, ShmTransport.crewSize(none, 8, 2));
        assertEquals(1, ShmTransport.crewSize(none, 8, 16)); // 2 cores a rank: alone
        assertEquals(1, ShmTransport.crewSize(none, 4, 8));  // crews of 2 (one core left over): alone
        assertEquals(3, ShmTransport.crewSize(none, 4, 16)); // one core left over for the JIT and the system
        assertEquals(3, ShmTransport.crewSize(none, 8, 32));
        assertEquals(4, ShmTransport.crewSize(none, 4, 17));
        assertEquals(4, ShmTransport.crewSize(none, 2, 16));
        assertEquals(ShmTransport.MAX_AUTO_CREW, ShmTransport.crewSize(none, 2, 32));
        assertEquals(6, ShmTransport.crewSize(Settings.of(Map.of("JCOLL_SHM_THREADS", "6")), 2, 2));
        for (String bad : new String[] {"0", "-1", "many", "65"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ShmTransport.crewSize(Settings.of(Map.of("JCOLL_SHM_THREADS", bad)), 2, 2));
            assertTrue(e.getMessage().contains("JCOLL_SHM_THREADS") && e.getMessage().contains(bad), e.getMessage());
        }
    }

    private static long helpers(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }
}
