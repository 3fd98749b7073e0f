package io.jcoll.internal;

import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** All ranks agree on one transport through the store, and say why. */
class TransportSelectionTest {

    record Fake(String name, int preference) implements TransportProvider {
        @Override public Availability probe(Settings settings) { throw new UnsupportedOperationException(); }
        @Override public Transport open(TransportContext context) { throw new UnsupportedOperationException(); }
    }

    static final List<TransportProvider> PROVIDERS = List.of(new Fake("nccl", 10), new Fake("tcp", 100));

    /** Every rank publishes its verdicts through one store and chooses, as in a real job; returns each rank's choice. */
    static List<Object> agree(String requested, List<Map<String, Availability>> perRank) throws Exception {
        MemoryStore store = new MemoryStore();
        int size = perRank.size();
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                final int rank = r;
                futures.add(pool.submit(() -> {
                    List<TransportSelection.Verdict> all = TransportSelection.exchange(store, rank, size, perRank.get(rank),
                            Duration.ofSeconds(10));
                    try {
                        return TransportSelection.choose(requested, PROVIDERS, all, rank, size);
                    } catch (TransportUnavailableException e) {
                        return e;
                    }
                }));
            }
            List<Object> out = new ArrayList<>();
            for (Future<Object> f : futures) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    static Map<String, Availability> verdicts(boolean ncclUsable) {
        Map<String, Availability> m = new LinkedHashMap<>();
        m.put("nccl", ncclUsable ? Availability.usable("GPU 0 of 2") : Availability.unusable("no GPU is visible"));
        m.put("tcp", Availability.usable("pure Java"));
        return m;
    }

    @Test
    void ncclWhenEveryRankCanRunIt() throws Exception {
        for (Object c : agree("auto", List.of(verdicts(true), verdicts(true), verdicts(true)))) {
            assertEquals("nccl", ((TransportSelection.Choice) c).info().name());
        }
    }

    @Test
    void oneRankWithoutAGpuMakesEveryRankUseTcpAndIsNamed() throws Exception {
        for (Object c : agree("auto", List.of(verdicts(true), verdicts(true), verdicts(false), verdicts(true)))) {
            TransportSelection.Choice choice = (TransportSelection.Choice) c;
            assertEquals("tcp", choice.info().name());
            assertEquals(List.of("nccl passed over: rank 2 cannot use it: no GPU is visible"), choice.info().rejected());
        }
    }

    @Test
    void askingForATransportThatCannotRunFailsOnEveryRankWithTheReason() throws Exception {
        for (Object c : agree("nccl", List.of(verdicts(true), verdicts(false)))) {
            TransportUnavailableException e = (TransportUnavailableException) c;
            assertTrue(e.getMessage().contains("JCOLL_TRANSPORT=nccl cannot run: rank 1 cannot use it: no GPU is visible"),
                    e.getMessage());
        }
        Object c = agree("mpi", List.of(verdicts(true))).get(0);
        assertTrue(((Exception) c).getMessage().contains("no such transport is on the class path (found: nccl, tcp)"),
                ((Exception) c).getMessage());
    }

    @Test
    void aRankWithoutTheTransportsJarIsNamed() throws Exception {
        Map<String, Availability> tcpOnly = new LinkedHashMap<>();
        tcpOnly.put("tcp", Availability.usable("pure Java"));
        TransportSelection.Choice choice = (TransportSelection.Choice) agree("auto", List.of(verdicts(true), tcpOnly)).get(0);
        assertEquals("tcp", choice.info().name());
        assertEquals(List.of("nccl passed over: rank 1 does not have it on its class path"), choice.info().rejected());
        assertThrows(TransportUnavailableException.class, () -> TransportSelection.choose("auto", PROVIDERS, List.of(), 0, 1));
    }
}
