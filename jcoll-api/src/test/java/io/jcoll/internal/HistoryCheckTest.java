package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.TransportInfo;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a transport that runs whatever it is given (as NCCL does), ranks that named different roots for one
 * broadcast finish it without an error: closing must tell every one of them, and tell nobody anything when the
 * ranks agreed.
 */
class HistoryCheckTest {

    private static final TransportInfo INFO = new TransportInfo("unchecked", "unchecked", "test", List.of());

    private static List<Ranks.Outcome<Object>> run(int n, int oddRoot, String splitScope) {
        MemoryStore store = new MemoryStore();
        return Ranks.outcomes(n, Duration.ofSeconds(30), rank -> {
            Communicator comm = new CommunicatorImpl(rank, n, rank, 0, INFO, Duration.ofSeconds(10),
                    new SignatureAuditTest.Unchecked(), () -> { }, store.scoped(splitScope));
            float[] data = new float[100];
            comm.broadcast(HostBuffer.of(data), rank == 1 ? oddRoot : 0);
            comm.allReduce(HostBuffer.of(data), io.jcoll.ReduceOp.SUM);
            comm.close();
            return null;
        });
    }

    @Test
    void ranksThatNamedDifferentRootsLearnItWhenTheyClose() {
        for (Ranks.Outcome<Object> o : run(3, 1, "a/")) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, o.error(),
                    "rank " + o.rank());
            assertTrue(e.getMessage().contains("disagree about an earlier collective"), e.getMessage());
            assertEquals(o.rank() == 1 ? 0 : 1, e.peer(), e.getMessage());
        }
    }

    /** Rank 2 expects 7 elements from rank 0, which sends 3: unchecked, it runs; every rank learns it at close. */
    @Test
    void unevenCountsThatDisagreedAreReportedWhenClosing() {
        int n = 3;
        MemoryStore store = new MemoryStore();
        for (Ranks.Outcome<Object> o : Ranks.outcomes(n, Duration.ofSeconds(30), rank -> {
            Communicator comm = new CommunicatorImpl(rank, n, rank, 0, INFO, Duration.ofSeconds(10),
                    new SignatureAuditTest.Unchecked(), () -> { }, store);
            long[] send = {1, 2, 3};
            long[] recv = {rank + 1L, rank + 1L, rank + 1L};
            if (rank == 2) {
                recv[0] = 7;
            }
            comm.allToAllV(HostBuffer.of(new float[6]), send, null, HostBuffer.of(new float[16]), recv, null);
            comm.close();
            return null;
        })) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, o.error(),
                    "rank " + o.rank());
            assertTrue(e.getMessage().contains("counts of an earlier allToAllV disagreed"), e.getMessage());
        }
    }

    @Test
    void ranksThatAgreedCloseQuietly() {
        for (Ranks.Outcome<Object> o : run(3, 0, "b/")) {
            assertNull(o.error(), "rank " + o.rank());
        }
    }
}
