package io.jcoll.spi;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
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

    private static void recordFor(MemoryStore store, int rank, long millis) {
        store.set("failed/" + rank, ("7 " + millis).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRankThatNeverReportsIsNamedAsDead() {
        MemoryStore store = new MemoryStore();
        JcollException named = new StallDiagnosis(store, 0, 2, Duration.ofMillis(200)).attribute(CALL, unattributed(0));
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reported this failure"), named.getMessage());
    }

    @Test
    void whenEveryRankReportsTheEarliestIsNamed() {
        MemoryStore store = new MemoryStore();
        long now = System.currentTimeMillis();
        recordFor(store, 1, now + 5_000);
        recordFor(store, 2, now - 300);
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofSeconds(1)).attribute(CALL, unattributed(0));
        assertEquals(2, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank 2 failed first in allReduce #7"), named.getMessage());
    }

    @Test
    void aTimeoutNamesTheRankThatNeverReachedTheCallNotOneThatFailedLater() {
        MemoryStore store = new MemoryStore();
        store.set("failed/2", ("8 " + System.currentTimeMillis()).getBytes(StandardCharsets.UTF_8)); // passed #7
        JcollException named = new StallDiagnosis(store, 0, 3, Duration.ofMillis(300)).explain(CALL,
                new io.jcoll.exceptions.CollectiveTimeoutException("allReduce", 0, JcollException.NONE, "no progress"));
        assertEquals(1, named.peer(), named.getMessage());
        assertTrue(named.getMessage().contains("rank(s) [1] never reached allReduce #7"), named.getMessage());
    }

    @Test
    void theRankThatFailedFirstKeepsWhatItSaw() {
        MemoryStore store = new MemoryStore();
        recordFor(store, 1, System.currentTimeMillis() + 5_000);
        JcollException own = unattributed(0);
        assertSame(own, new StallDiagnosis(store, 0, 2, Duration.ofSeconds(1)).attribute(CALL, own));
    }
}
