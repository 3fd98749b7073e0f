package io.jcoll.shm;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

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
    void everyPieceRunsOnceBeforeRunReturnsAlsoAfterTheHelpersPark() throws InterruptedException {
        try (Crew crew = new Crew("test-crew", 4, () -> { })) {
            for (int round = 0; round < 3; round++) {
                for (int members = 1; members <= 5; members++) {
                    for (int pieces : new int[] {1, members, 4 * members + 3}) {
                        AtomicIntegerArray ran = new AtomicIntegerArray(pieces);
                        Set<Thread> threads = ConcurrentHashMap.newKeySet();
                        int[] seenOf = new int[pieces];
                        crew.run(members, pieces, (piece, of) -> {
                            ran.incrementAndGet(piece);
                            seenOf[piece] = of;
                            threads.add(Thread.currentThread());
                        });
                        for (int p = 0; p < pieces; p++) {
                            assertEquals(1, ran.get(p), "piece " + p + " of " + pieces + " on " + members + " members");
                            assertEquals(pieces, seenOf[p]);
                        }
                        assertTrue(threads.size() <= Math.min(Math.min(members, 4), pieces),
                                threads.size() + " threads ran " + pieces + " pieces on " + members + " members");
                    }
                }
                Thread.sleep(Crew.IDLE_POLL / 1_000_000 + 20); // the helpers park; the next round must wake them
            }
        }
    }

    @Test
    void theCallerTakesThePiecesOfAHelperHeldUp() {
        // a helper that stops in the first piece it takes (as one the kernel deschedules) holds up that piece only:
        // the pieces are released only once every other one is done, so a share fixed for it would never finish
        int members = 4;
        int pieces = 40;
        int run = pieces / members;
        try (Crew crew = new Crew("test-crew-held", members, () -> { })) {
            Thread caller = Thread.currentThread();
            AtomicReference<Thread> heldUp = new AtomicReference<>();
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch rest = new CountDownLatch(pieces - 1);
            AtomicIntegerArray ran = new AtomicIntegerArray(pieces);
            Map<Thread, Integer> taken = new ConcurrentHashMap<>();
            crew.run(members, pieces, (piece, of) -> {
                ran.incrementAndGet(piece);
                taken.merge(Thread.currentThread(), 1, Integer::sum);
                if (Thread.currentThread() != caller && heldUp.compareAndSet(null, Thread.currentThread())) {
                    held.countDown();
                    await(rest, "the other pieces were never done");
                    return;
                }
                if (Thread.currentThread() == caller) { // else on two cores the caller might take every piece
                    await(held, "no helper took a piece");
                }
                rest.countDown();
            });
            for (int p = 0; p < pieces; p++) {
                assertEquals(1, ran.get(p), "piece " + p);
            }
            assertEquals(1, taken.get(heldUp.get()), "the held-up helper ran only the piece it was held in");
            assertTrue(taken.get(caller) >= 2 * run - 1, "the caller ran " + taken.get(caller) + " pieces: its own "
                    + run + " and at least the " + (run - 1) + " left of the held-up helper's run");
        }
    }

    @Test
    void aHelpersFailureIsThrownToTheCaller() {
        try (Crew crew = new Crew("test-crew", 3, () -> { })) {
            IllegalStateException boom = new IllegalStateException("piece 2 failed");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> crew.run(3, 3, (piece, of) -> {
                if (piece == 2) {
                    throw boom;
                }
            }));
            assertSame(boom, e);
            InternalError fault = new InternalError("a fault in a cut-off page");
            assertSame(fault, assertThrows(InternalError.class, () -> crew.run(3, 3, (piece, of) -> {
                if (piece == 1) {
                    throw fault;
                }
            })));
            int[] after = new int[1];
            crew.run(3, 3, (piece, of) -> {
                if (piece == 0) {
                    after[0]++;
                }
            });
            assertEquals(1, after[0], "the crew keeps working after a failed job");
        }
    }

    @Test
    void closingStopsEveryHelper() {
        Crew crew = new Crew("test-crew-closing", 4, () -> { });
        crew.run(4, 4, (piece, of) -> { });
        assertTrue(helpers("test-crew-closing") > 0);
        crew.close();
        assertEquals(0, helpers("test-crew-closing"));
        assertThrows(IllegalStateException.class, () -> crew.run(2, 2, (piece, of) -> { }));
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

    private static void await(CountDownLatch latch, String otherwise) {
        try {
            assertTrue(latch.await(20, TimeUnit.SECONDS), otherwise);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long helpers(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }
}
