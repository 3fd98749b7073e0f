package io.jcoll.internal;

import io.jcoll.bootstrap.JobConfig;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.TransportProvider;

import java.util.List;
import java.util.Map;

/**
 * {@code jcoll doctor}: what this machine offers. Lists every transport on the
 * class path with this rank's probe verdict, which one {@code JCOLL_TRANSPORT}
 * would pick here, and the job configuration the environment gives. Exits
 * non-zero when a transport that was asked for cannot run.
 */
public final class Doctor {

    private Doctor() {
    }

    public static void main(String[] args) {
        Settings settings = Settings.fromEnvironment();
        List<TransportProvider> providers = TransportSelection.providers();
        Map<String, Availability> verdicts = TransportSelection.probe(providers, settings);
        System.out.println("jcoll doctor");
        System.out.println();
        System.out.println("transports on the class path (most preferred first):");
        verdicts.forEach((name, a) -> System.out.printf("  %-6s %-9s %s%n", name, a.usable() ? "usable" : "unusable", a.reason()));
        String requested = settings.get("JCOLL_TRANSPORT").orElse("auto").toLowerCase(java.util.Locale.ROOT);
        String chosen = null;
        for (TransportProvider p : providers) {
            if ((requested.equals("auto") || requested.equals(p.name())) && verdicts.get(p.name()).usable()) {
                chosen = p.name();
                break;
            }
        }
        System.out.println();
        System.out.println("JCOLL_TRANSPORT=" + requested + ": on this machine "
                + (chosen == null ? "nothing can run" : chosen + " would be chosen")
                + " (in a job, every rank must be able to run it)");
        System.out.println();
        System.out.println("job configuration from the environment:");
        try {
            JobConfig c = JobConfig.from(settings);
            System.out.printf("  rank %d of %d (local %d of %d), store at %s:%d, timeout %s, token %s%n", c.rank(), c.size(),
                    c.localRank(), c.localSize(), c.masterAddr(), c.masterPort(), c.timeout(),
                    c.token().length == 0 ? "NOT SET (connections unauthenticated)" : "set");
        } catch (JcollException e) {
            System.out.println("  not inside a job: " + e.getMessage());
        }
        System.exit(chosen == null ? 1 : 0);
    }
}
