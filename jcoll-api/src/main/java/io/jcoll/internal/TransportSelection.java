package io.jcoll.internal;

import io.jcoll.TransportInfo;
import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.TransportProvider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Agrees on one transport for all ranks. Each rank probes every provider on
 * its class path and publishes the verdicts; each then applies the same rule
 * to the same table, so all choose alike: the requested transport if every
 * rank can run it (else an error naming the rank and reason), or under
 * {@code auto} the most preferred transport every rank can run.
 */
final class TransportSelection {

    /** One rank's verdict on one transport. */
    record Verdict(int rank, String transport, boolean usable, String reason) {
    }

    /** The choice, the provider to open, and the explanation. */
    record Choice(TransportProvider provider, TransportInfo info) {
    }

    private TransportSelection() {
    }

    static List<TransportProvider> providers() {
        List<TransportProvider> list = new ArrayList<>();
        ServiceLoader.load(TransportProvider.class).forEach(list::add);
        list.sort(Comparator.comparingInt(TransportProvider::preference).thenComparing(TransportProvider::name));
        return list;
    }

    static Map<String, Availability> probe(List<TransportProvider> providers, Settings settings) {
        Map<String, Availability> local = new LinkedHashMap<>();
        for (TransportProvider p : providers) {
            Availability a;
            try {
                a = p.probe(settings);
            } catch (RuntimeException | LinkageError e) {
                a = Availability.unusable("probing failed: " + e);
            }
            local.put(p.name(), a);
        }
        return local;
    }

    /** Publishes this rank's verdicts and reads everyone's. */
    static List<Verdict> exchange(Store store, int rank, int size, Map<String, Availability> local, Duration timeout) {
        StringBuilder b = new StringBuilder();
        local.forEach((name, a) -> b.append(name).append('\t').append(a.usable()).append('\t')
                .append(a.reason().replace('\n', ' ').replace('\t', ' ')).append('\n'));
        store.set("probe/" + rank, b.toString().getBytes(StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Verdict> all = new ArrayList<>();
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            Optional<byte[]> v = store.get("probe/" + r, left);
            if (v.isEmpty()) {
                missing.add(r);
                continue;
            }
            for (String line : new String(v.get(), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split("\t", 3);
                if (f.length == 3) {
                    all.add(new Verdict(r, f[0], Boolean.parseBoolean(f[1]), f[2]));
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new BootstrapException("bootstrap", rank, missing.get(0), "rank(s) " + missing
                    + " never arrived at the rendezvous within " + timeout.toSeconds() + " s (JCOLL_TIMEOUT); "
                    + "check that every rank was started with the same MASTER_ADDR, MASTER_PORT and WORLD_SIZE");
        }
        return all;
    }

    static Choice choose(String requested, List<TransportProvider> providers, List<Verdict> verdicts,
                         int rank, int size) {
        return choose(requested, providers, verdicts, rank, size, Map.of());
    }

    /**
     * As above, passing over under {@code auto} the transports that every rank's probe accepted but that could not
     * be opened together ({@code failedToOpen}: name to reason, the same on every rank, as a transport's open
     * fails alike on all ranks with a {@link TransportUnavailableException}).
     */
    static Choice choose(String requested, List<TransportProvider> providers, List<Verdict> verdicts,
                         int rank, int size, Map<String, String> failedToOpen) {
        List<String> rejected = new ArrayList<>();
        if (!requested.equals("auto")) {
            TransportProvider p = providers.stream().filter(x -> x.name().equals(requested)).findFirst()
                    .orElseThrow(() -> new TransportUnavailableException("bootstrap", rank, JcollException.NONE,
                            "JCOLL_TRANSPORT=" + requested + " but no such transport is on the class path (found: "
                                    + String.join(", ", providers.stream().map(TransportProvider::name).toList())
                                    + "); add its jar, or use auto"));
            String why = unusableAnywhere(p.name(), verdicts, size);
            if (why != null) {
                throw new TransportUnavailableException("bootstrap", rank, JcollException.NONE,
                        "JCOLL_TRANSPORT=" + requested + " cannot run: " + why);
            }
            return new Choice(p, new TransportInfo(p.name(), requested, "requested with JCOLL_TRANSPORT, and every rank can run it: "
                    + reasonOf(p.name(), verdicts, rank), rejected));
        }
        for (TransportProvider p : providers) {
            String why = failedToOpen.containsKey(p.name()) ? failedToOpen.get(p.name())
                    : unusableAnywhere(p.name(), verdicts, size);
            if (why == null) {
                return new Choice(p, new TransportInfo(p.name(), "auto", "the most preferred transport every rank can run: "
                        + reasonOf(p.name(), verdicts, rank), rejected));
            }
            rejected.add(p.name() + " passed over: " + why);
        }
        throw new TransportUnavailableException("bootstrap", rank, JcollException.NONE,
                "no transport can run on every rank: " + String.join("; ", rejected));
    }

    /** Null if every rank can run the transport; otherwise the first rank that cannot and why. */
    private static String unusableAnywhere(String name, List<Verdict> verdicts, int size) {
        for (int r = 0; r < size; r++) {
            final int rr = r;
            Optional<Verdict> v = verdicts.stream().filter(x -> x.rank() == rr && x.transport().equals(name)).findFirst();
            if (v.isEmpty()) {
                return "rank " + r + " does not have it on its class path";
            }
            if (!v.get().usable()) {
                return "rank " + r + " cannot use it: " + v.get().reason();
            }
        }
        return null;
    }

    private static String reasonOf(String name, List<Verdict> verdicts, int rank) {
        return verdicts.stream().filter(v -> v.rank() == rank && v.transport().equals(name))
                .map(Verdict::reason).findFirst().orElse("");
    }
}
