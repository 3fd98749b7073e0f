package io.jcoll.shm;

import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.exceptions.TransportUnavailableException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TierRanksTest {

    /** Host 1's tier of a job of 2 hosts x 3 ranks placed round robin: its ranks 0-2 are ranks 1, 3 and 5. */
    private final TierRanks tier = new TierRanks("shared memory on host 1", new int[] {1, 3, 5});

    @Test
    void aTiersFailureReachesTheCallerInTheCommunicatorsNumberingAsTheSameKind() {
        for (JcollException raised : List.of(
                new PeerFailureException("allGather", 0, 2, "rank 2 died"),
                new CollectiveTimeoutException("allGather", 0, 2, "rank 2 did not answer"),
                new CollectiveMismatchException("allGather", 0, 2, "rank 2 called reduceScatter"),
                new ProtocolException("allGather", 0, 2, "rank 2 sent garbage"),
                new TransportUnavailableException("bootstrap", 0, 2, "no /dev/shm"),
                new CommunicatorClosedException("allGather", 0, 2, "closed"))) {
            JcollException seen = tier.toCommunicator(raised);
            assertEquals(raised.getClass(), seen.getClass());
            assertEquals(1, seen.rank());
            assertEquals(5, seen.peer());
            assertEquals(raised.operation(), seen.operation());
            assertSame(raised, seen.getCause());
            assertTrue(seen.getMessage().startsWith(raised.operation() + " on rank 1 (peer rank 5): in shared memory "
                    + "on host 1 (its ranks 0-2 are ranks [1, 3, 5] here): " + raised.detail()), seen.getMessage());
        }
        JcollException nobody = tier.toCommunicator(new JcollException("allGather", 1, JcollException.NONE, "x"));
        assertEquals(3, nobody.rank());
        assertEquals(JcollException.NONE, nobody.peer());
    }

    @Test
    void whatATierIsHandedBlamesItsOwnNumberForTheRankOrNone() {
        JcollException inTier = (JcollException) tier.toTier(new PeerFailureException("allReduce", 1, 5, "rank 5 died"));
        assertEquals(2, inTier.peer());
        assertEquals("allReduce on rank 1 (peer rank 5): rank 5 died", inTier.getMessage(), "the message stays");
        JcollException outside = (JcollException) tier.toTier(new PeerFailureException("allReduce", 1, 4, "rank 4 died"));
        assertEquals(JcollException.NONE, outside.peer(), "rank 4 is not in this tier; its number 4 names no rank");
        IllegalStateException other = new IllegalStateException("bug");
        assertSame(other, tier.toTier(other));
    }

    @Test
    void whatATierWasHandedComesBackAsItWas() {
        CommunicatorClosedException abort = new CommunicatorClosedException("abort", 3, 3, "comm.abort() was called");
        assertSame(abort, tier.toCommunicator((JcollException) tier.toTier(abort)));
    }
}
