package io.jcoll.spi;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Naming the rank behind a failure the transport could not attribute, from the ranks' records in the store. */
class StallDiagnosisTest {

    private static final Call CALL = new Call(Operation.ALL_REDUCE, null, null, 10, DataType.FLOAT32, ReduceOp.SUM,
            -1, 7, false);

    private static JcollException unattributed(int rank) {
        return new PeerFailureException("allReduce", rank, JcollException.NONE,
                "NCCL reported error 6: remote process exited or there was a network error");
    }

    /** Rank {@code rank}'s own diagnosis records its failure in {@code call}, as its transport would. */
    private static void failedIn(MemoryStore store, int rank, int size, Call call) throws InterruptedException {
        new StallDiagnosis(store, rank, size, Duration.ofMillis(100)).reached(call);
        Thread.sleep(5); // records are stamped in milliseconds: keep the order unambiguous
    }

    private static Call sequence(long seq) {
        return new Call(Operation.ALL_REDUCE, null, null, 10, DataType.FLOAT32, ReduceOp.SUM, -1, seq, false);
    }

    private static CollectiveTimeoutException timeout() {
        return new CollectiveTimeoutException("allReduce", 0, JcollException.NONE, "no progress");
    }

    @Test
    void aRankThatNeverReportsIsNamedAsDead() {
        MemoryStore store = new MemoryStore();
        JcollException named = new StallDiagnosis(store, 0, 2, Duration.ofMillis(200)).attribute(CALL, unattributed(0));
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reported this failure"), named.getMessage());
    }

    @Test
    void whenEveryRankReportsTheEarliestIsNamed() throws InterruptedException {
        MemoryStore store = new MemoryStore();
        failedIn(store, 2, 3, CALL);
        failedIn(store, 1, 3, CALL);
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofSeconds(1)).attribute(CALL, unattributed(0));
        assertEquals(2, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank 2 failed first in allReduce #7"), named.getMessage());
    }

    @Test
    void aTimeoutNamesTheRankThatNeverReachedTheCallNotOneThatFailedLater() throws InterruptedException {
        MemoryStore store = new MemoryStore();
        failedIn(store, 2, 3, sequence(8)); // rank 2 got past #7 and failed in #8
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofMillis(300)).explain(CALL, timeout());
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reached allReduce #7"), named.getMessage());
    }

    /**
     * Rank 1 stopped after rank 2 had finished #7 but before this rank had: rank 2 is in #8, which started later
     * and times out later, well after this rank's patience. The diagnosis waits for it rather than calling
     * both others silent and saying nothing.
     */
    @Test
    void aRankAheadThatTimesOutLaterIsAwaitedBeforeNamingTheStalledOne() throws Exception {
        MemoryStore store = new MemoryStore();
        Thread ahead = new Thread(() -> {
            try {
                Thread.sleep(1_200); // its deadline in #8 comes later than this rank's in #7 by #8's start
                failedIn(store, 2, 3, sequence(8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        ahead.start();
        long start = System.nanoTime();
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofSeconds(5)).explain(CALL, timeout());
        long millis = (System.nanoTime() - start) / 1_000_000;
        ahead.join();
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reached allReduce #7"), named.getMessage());
        assertTrue(millis >= 1_000 && millis < 5_000, "waited " + millis + " ms for the rank ahead");
    }

    /** When every other rank stays silent, the wait for a first record ends with the straggle, not never. */
    @Test
    void whenEveryOtherRankIsSilentTheTimeoutStandsAfterABoundedWait() {
        MemoryStore store = new MemoryStore();
        CollectiveTimeoutException plain = timeout();
        long start = System.nanoTime();
        JcollException said = new StallDiagnosis(store, 0, 3, Duration.ofMillis(400)).explain(CALL, plain);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertSame(plain, said);
        assertTrue(millis >= 400 && millis < 2_000, "waited " + millis + " ms");
    }

    /**
     * A stopped rank that its launcher continues as the job ends records a failure too, but noticed its deadline
     * long after it passed: that lateness names it, not the rank that merely timed out with everyone else.
     */
    @Test
    void aRankThatNoticedItsDeadlineLateIsNamedAsStopped() {
        MemoryStore store = new MemoryStore();
        long now = System.nanoTime();
        new StallDiagnosis(store, 1, 3, Duration.ofMillis(100)).explain(CALL, timeout(), now - 3_000_000_000L);
        new StallDiagnosis(store, 2, 3, Duration.ofMillis(100)).explain(CALL, timeout(), now);
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofMillis(300)).explain(CALL, timeout(), now);
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reached allReduce #7"), named.getMessage());
    }

    @Test
    void theRankThatFailedFirstKeepsWhatItSaw() throws InterruptedException {
        MemoryStore store = new MemoryStore();
        failedIn(store, 0, 2, CALL); // this rank's record comes first and stays
        failedIn(store, 1, 2, CALL);
        JcollException own = unattributed(0);
        assertSame(own, new StallDiagnosis(store, 0, 2, Duration.ofSeconds(1)).attribute(CALL, own));
    }
}
