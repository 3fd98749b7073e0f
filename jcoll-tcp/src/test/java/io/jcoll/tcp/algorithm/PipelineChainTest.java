package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.tcp.p2p.LocalFabric;
import io.jcoll.testing.Data;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * A chain whose legs are not cut alike: each rank of a ring relays, in a second leg, only the first part of what
 * its first leg received, so the relayed run is cut into other segments than the run it is made of, and each of
 * its segments must wait for the received segment that holds its last element. A segment sent too early carries
 * the relay buffer's initial contents (NaN here), which no correct result contains. The in-memory fabric copies
 * a send's bytes when it is posted, so an early send is seen whatever the timing.
 */
class PipelineChainTest {

    @ParameterizedTest(name = "{0} ranks, {1} elements, relaying {2}")
    @CsvSource({"2, 100, 37", "3, 100, 99", "3, 41, 1", "4, 257, 130", "5, 9, 9", "3, 0, 0", "2, 17, 0",
            // legs of fewer segments than the window holds, where the wait for the received segment is what
            // holds a relayed one back (longer legs are held back by the window itself)
            "2, 5, 4", "3, 3, 3", "4, 6, 5", "2, 1, 1"})
    void aRelayedPrefixLeavesOnlyOnceItsSegmentsHaveArrived(int n, int count, int relayed) {
        // 64-byte stages and 8-byte minimum segments: 16 floats at most, runs cut into four segments where they can
        Tuning tiny = new Tuning(64, 0, 0);
        LocalFabric fabric = new LocalFabric(n);
        List<double[]> inputs = Ranks.each(n, r -> Data.random(DataType.FLOAT32, null, count, Ranks.seed(count, r)));
        List<double[]> relays = Ranks.all(n, Duration.ofSeconds(30), rank -> {
            AlgorithmContext ctx = new AlgorithmContext(fabric.endpoint(rank), new Scratch(tiny.segmentBytes()), tiny);
            HostBuffer own = Data.buffer(DataType.FLOAT32, Data.Kind.DIRECT, count, inputs.get(rank));
            HostBuffer received = Data.buffer(DataType.FLOAT32, Data.Kind.DIRECT, count, nans(count));
            HostBuffer relayedIn = Data.buffer(DataType.FLOAT32, Data.Kind.DIRECT, relayed, nans(relayed));
            Region receivedAt = new Region(received, 0);
            Pipeline.chain(ctx, 4, LocalCopy.NONE,
                    new Pipeline.Leg(new Region(own, 0), count, ctx.peer(1), ctx.peer(-1), count, Sink.into(receivedAt)),
                    new Pipeline.Leg(receivedAt, relayed, ctx.peer(1), ctx.peer(-1), relayed,
                            Sink.into(new Region(relayedIn, 0))));
            return Data.read(relayedIn, relayed);
        });
        for (int r = 0; r < n; r++) {
            double[] fromTwoBack = java.util.Arrays.copyOf(inputs.get(Math.floorMod(r - 2, n)), relayed);
            assertArrayEquals(fromTwoBack, relays.get(r), "rank " + r + " got another rank's input than its left"
                    + " neighbour's left one, or a segment relayed before it had arrived (NaN)");
        }
    }

    private static double[] nans(int count) {
        double[] v = new double[count];
        java.util.Arrays.fill(v, Double.NaN);
        return v;
    }
}
