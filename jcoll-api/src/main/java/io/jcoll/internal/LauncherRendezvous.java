package io.jcoll.internal;

import io.jcoll.bootstrap.JobConfig;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.RendezvousExchange;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The rendezvous of a job that a launcher placed ({@code mpirun}, {@code srun})
 * and that set no {@code MASTER_ADDR}: rank 0 hosts the store on a free port
 * and hands its address, and a fresh token unless {@code JCOLL_TOKEN} is set,
 * to every rank through the launcher's own channel (MPI's broadcast), or
 * through one the caller holds (a Spark barrier stage's {@code allGather}).
 */
final class LauncherRendezvous {

    /** The configuration with the rendezvous filled in, and on rank 0 the store it now hosts. */
    record Agreed(JobConfig config, Bootstrap.HostedStore hosted) {
    }

    private static final String FORMAT = "jcoll-rendezvous-1";

    private LauncherRendezvous() {
    }

    /** Agrees through the channel of the launcher that placed the job, found with {@link ServiceLoader}. */
    static Agreed agree(JobConfig cfg, Settings settings) {
        RendezvousExchange.Provider provider = usableProvider(cfg, settings);
        try (RendezvousExchange exchange = provider.open(settings)) {
            return agree(cfg, settings, exchange, provider.name());
        }
    }

    /** Agrees through {@code exchange}, a channel the caller holds and closes ({@code channel} names it in errors). */
    static Agreed agree(JobConfig cfg, Settings settings, RendezvousExchange exchange, String channel) {
        Bootstrap.HostedStore hosted = null;
        try {
            if (cfg.rank() == 0) {
                byte[] token = cfg.token().length > 0 ? cfg.token() : freshToken();
                hosted = Bootstrap.host(cfg.withRendezvous("0.0.0.0", 0, token));
                String host = advertisedHost(cfg, settings);
                String message = FORMAT + "\n" + host + "\n" + hosted.port + "\n" + new String(token, StandardCharsets.UTF_8);
                broadcast(exchange, message.getBytes(StandardCharsets.UTF_8), cfg, channel);
                return new Agreed(cfg.withRendezvous(host, hosted.port, token), hosted);
            }
            String[] f = new String(broadcast(exchange, new byte[0], cfg, channel), StandardCharsets.UTF_8).split("\n", 4);
            int port = f.length == 4 && f[2].matches("\\d{1,5}") ? Integer.parseInt(f[2]) : 0;
            if (f.length != 4 || !f[0].equals(FORMAT) || port < 1 || port > 65535) {
                throw new BootstrapException("bootstrap", cfg.rank(), 0, "rank 0's rendezvous message through "
                        + channel + " is not one jcoll wrote (another program on the same launcher channel?)");
            }
            return new Agreed(cfg.withRendezvous(f[1], port, f[3].getBytes(StandardCharsets.UTF_8)), null);
        } catch (IOException e) {
            throw new BootstrapException("bootstrap", cfg.rank(), JcollException.NONE,
                    "could not host the rendezvous store: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (hosted != null) {
                hosted.close();
            }
            throw e;
        }
    }

    /** One broadcast through the channel; its own failure (a peer's task failed, say) is named as the channel's. */
    private static byte[] broadcast(RendezvousExchange exchange, byte[] message, JobConfig cfg, String channel) {
        try {
            return exchange.broadcastFromRankZero(message);
        } catch (JcollException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BootstrapException("bootstrap", cfg.rank(), JcollException.NONE, "handing rank 0's rendezvous "
                    + "address to every rank through " + channel + " failed: " + e, e);
        }
    }

    private static RendezvousExchange.Provider usableProvider(JobConfig cfg, Settings settings) {
        List<String> why = new ArrayList<>();
        for (RendezvousExchange.Provider p : ServiceLoader.load(RendezvousExchange.Provider.class)) {
            Availability a;
            try {
                a = p.probe(cfg.launcher(), cfg.size(), settings);
            } catch (RuntimeException | LinkageError e) {
                a = Availability.unusable("probing failed: " + e);
            }
            if (a.usable()) {
                return p;
            }
            why.add(p.name() + ": " + a.reason());
        }
        throw new BootstrapException("bootstrap", cfg.rank(), JcollException.NONE, cfg.launcher()
                + " placed this rank, but MASTER_ADDR and MASTER_PORT are not set and no launcher channel can carry "
                + "the rendezvous address" + (why.isEmpty() ? " (put io.jcoll:jcoll-mpi on the class path)"
                : " (" + String.join("; ", why) + ")") + "; or set MASTER_ADDR and MASTER_PORT on every rank");
    }

    /**
     * Where the other ranks reach rank 0: loopback when they all run on this host,
     * else {@code JCOLL_ADVERTISE_ADDR}, else the address the kernel would send from.
     */
    private static String advertisedHost(JobConfig cfg, Settings settings) {
        if (cfg.localSize() == cfg.size()) {
            return "127.0.0.1";
        }
        return settings.get("JCOLL_ADVERTISE_ADDR").orElseGet(() -> {
            try (DatagramSocket probe = new DatagramSocket()) {
                probe.connect(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 9)); // sends nothing
                InetAddress local = probe.getLocalAddress();
                if (!local.isAnyLocalAddress()) {
                    return local.getHostAddress();
                }
            } catch (IOException | RuntimeException e) {
                // fall through
            }
            try {
                return InetAddress.getLocalHost().getHostAddress();
            } catch (IOException e) {
                return "127.0.0.1";
            }
        });
    }

    private static byte[] freshToken() {
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random).getBytes(StandardCharsets.UTF_8);
    }
}
