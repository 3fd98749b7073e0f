package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.bootstrap.JobConfig;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.bootstrap.Store;
import io.jcoll.bootstrap.StoreClient;
import io.jcoll.bootstrap.StoreServer;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.RendezvousExchange;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Forms a communicator: reaches the rendezvous store (hosting it on rank 0),
 * agrees on a transport with every rank, and opens it.
 */
public final class Bootstrap {

    private static final System.Logger LOG = System.getLogger(Bootstrap.class.getName());
    private static volatile boolean warnedNoToken;
    private static final long STORE_LINGER_MILLIS = 3_000;

    /** Stores this process hosts, by port, shared by the communicators created against them. */
    private static final Map<Integer, HostedStore> HOSTED = new HashMap<>();

    private Bootstrap() {
    }

    /**
     * This process's place in the job and its way to the others: the configuration (resolved through the launcher
     * where it carries rank 0's address), the rendezvous store (hosted here on rank 0, unless node 0's launcher
     * holds it), what closes it, the address peers reach this rank's data connections at, and whether this rank
     * hosts the store.
     */
    record Joined(JobConfig cfg, Store store, AutoCloseable rendezvous, InetAddress dataAddress, boolean hostsStore) {
    }

    /**
     * Whether the store is held by node 0's {@code jcoll launch} (a job of several nodes: it outlives every rank),
     * so that rank 0 reaches it as a client like the others instead of hosting it.
     */
    static boolean launcherHoldsStore(Settings settings) {
        return settings.get(LAUNCHER_STORE).filter("1"::equals).isPresent();
    }

    /** The variable {@code jcoll launch} sets to {@code 1} on the ranks of a job of several nodes. */
    public static final String LAUNCHER_STORE = "JCOLL_LAUNCHER_STORE";

    /**
     * A channel the caller holds that carries rank 0's rendezvous address to every rank, and its name for messages
     * ({@code Jcoll.Builder.rendezvous}).
     */
    public record GivenRendezvous(String channel, RendezvousExchange exchange) {
    }

    /** Reaches the rendezvous store (hosting it on rank 0); the caller closes {@link Joined#rendezvous()}. */
    static Joined join(Settings settings) {
        return join(settings, null);
    }

    /** As {@link #join(Settings)}, the address coming through {@code given} where that is not null. */
    static Joined join(Settings settings, GivenRendezvous given) {
        JobConfig cfg = given == null ? JobConfig.from(settings) : JobConfig.from(settings, given.channel());
        int rank = cfg.rank();
        HostedStore hostedEarly = null; // rank 0 hosts before the address is known to the others
        if (cfg.rendezvousThroughLauncher()) {
            LauncherRendezvous.Agreed agreed = given == null ? LauncherRendezvous.agree(cfg, settings)
                    : LauncherRendezvous.agree(cfg, settings, given.exchange(), given.channel());
            cfg = agreed.config();
            hostedEarly = agreed.hosted();
        }
        if (cfg.token().length == 0 && cfg.size() > 1 && !warnedNoToken) {
            warnedNoToken = true;
            LOG.log(System.Logger.Level.WARNING, "JCOLL_TOKEN is not set: jcoll connections are not authenticated. "
                    + "`jcoll launch` sets one; otherwise export the same random JCOLL_TOKEN on every rank.");
        }
        AutoCloseable rendezvous = () -> { };
        try {
            Store store;
            InetAddress advertise;
            boolean hosts = false;
            if (cfg.size() == 1) {
                store = new MemoryStore();
                rendezvous = store;
                advertise = InetAddress.getLoopbackAddress();
            } else if (rank == 0 && !launcherHoldsStore(settings)) {
                HostedStore hosted = hostedEarly != null ? hostedEarly : host(cfg);
                hosts = true;
                rendezvous = hosted;
                store = hosted.server.local();
                advertise = InetAddress.getByName(cfg.masterAddr());
            } else {
                StoreClient client = StoreClient.connect(new InetSocketAddress(cfg.masterAddr(), cfg.masterPort()),
                        cfg.token(), rank, cfg.size(), cfg.timeout());
                rendezvous = client;
                store = client;
                advertise = client.localAddress();
            }
            return new Joined(cfg, store, rendezvous, dataAddress(settings, advertise, rank), hosts);
        } catch (IOException | StoreClient.StoreUnreachableException e) {
            closeQuietly(rendezvous);
            throw unreachable(rank, e);
        } catch (RuntimeException e) {
            closeQuietly(rendezvous);
            throw e;
        }
    }

    /** The store or a peer could not be reached: rank 0 names no one, the others name rank 0 and its store. */
    private static BootstrapException unreachable(int rank, Exception e) {
        return new BootstrapException("bootstrap", rank, rank == 0 ? JcollException.NONE : 0,
                e.getMessage() == null ? e.toString() : e.getMessage(), e);
    }

    public static Communicator create(Settings settings) {
        return create(settings, null);
    }

    /** Forms a communicator, rank 0's rendezvous address coming through {@code given} where that is not null. */
    public static Communicator create(Settings settings, GivenRendezvous given) {
        io.jcoll.trace.TraceConfig trace;
        boolean confined;
        try {
            trace = io.jcoll.trace.TraceConfig.from(settings); // before anything is opened that a bad value would leak
            confined = CommunicatorImpl.confinedUnder(settings);
            CpuPlacement.widens(settings);
        } catch (IllegalArgumentException e) {
            throw new BootstrapException("bootstrap", JcollException.NONE, JcollException.NONE, e.getMessage());
        }
        Joined joined = join(settings, given);
        JobConfig cfg = joined.cfg();
        int rank = cfg.rank();
        List<TransportProvider> providers = TransportSelection.providers();
        AutoCloseable rendezvous = joined.rendezvous();
        if (providers.isEmpty()) {
            closeQuietly(rendezvous);
            throw new TransportUnavailableException("bootstrap", rank, JcollException.NONE,
                    "no transport is on the class path: add io.jcoll:jcoll-tcp (and jcoll-nccl for GPUs)");
        }
        try {
            Store store = joined.store();
            InetAddress advertise = joined.dataAddress();
            // the n-th communicator each rank creates is the same communicator on all ranks
            long generation = store.add("jcoll/generation/rank" + rank, 1);
            Store scoped = store.scoped("jcoll/comm" + generation + "/");
            long hostId = HostIdentity.of(settings);
            CpuPlacement cpus = new CpuPlacement(settings);
            LocalPlacement.Host host = LocalPlacement.count(scoped, cfg, hostId, cpus.mask());
            cfg = host.cfg();
            // before any transport starts a thread (NCCL's proxy and socket threads, TCP's channels): they inherit it
            cpus.widenIfStarved(settings.getInt("JCOLL_DEVICE", cfg.localRank()));

            // providers probe with this rank's place as the job configuration resolved it (a launcher's variables
            // included), so that, say, NCCL's probe checks the GPU of this rank's local rank
            Settings placed = settings.with("JCOLL_RANK", Integer.toString(rank))
                    .with("JCOLL_WORLD_SIZE", Integer.toString(cfg.size()))
                    .with("JCOLL_LOCAL_RANK", Integer.toString(cfg.localRank()))
                    .with("JCOLL_LOCAL_WORLD_SIZE", Integer.toString(cfg.localSize()));
            Map<String, Availability> local = TransportSelection.probe(providers, placed);
            List<TransportSelection.Verdict> verdicts =
                    TransportSelection.exchange(scoped, rank, cfg.size(), local, cfg.timeout());
            TransportContext context = new TransportContext(rank, cfg.size(), cfg.localRank(), cfg.localSize(),
                    hostId, scoped, advertise, cfg.token(), cfg.timeout(), placed);
            Map<String, String> failedToOpen = new java.util.LinkedHashMap<>();
            TransportSelection.Choice choice;
            Transport transport;
            while (true) {
                choice = TransportSelection.choose(cfg.transport(), providers, verdicts, rank, cfg.size(), failedToOpen);
                try {
                    transport = choice.provider().open(context);
                    break;
                } catch (TransportUnavailableException e) {
                    // every rank learned the same (the transport's contract), so every rank falls back alike
                    if (!cfg.transport().equals("auto")) {
                        throw e;
                    }
                    failedToOpen.put(choice.provider().name(), "could not be opened on every rank: " + e.getMessage());
                }
            }
            if (SignatureAudit.requested(settings) && !transport.checksSignatures()) {
                transport = new SignatureAudit(transport, scoped, rank, cfg.size());
            }
            // the GPU the NCCL transport takes for this rank (GpuRuntime.deviceFor's rule)
            int gpu = choice.info().name().equals("nccl") ? settings.getInt("JCOLL_DEVICE", cfg.localRank()) : -1;
            io.jcoll.TransportInfo info = withWarnings(choice.info(),
                    cpus.warnings(host.notes(), rank, gpu), rank);
            LOG.log(System.Logger.Level.DEBUG, "rank " + rank + " uses " + info);
            DepartureWatch watch = null;
            if (cfg.size() > 1 && !transport.detectsDeadPeers()) {
                StoreClient own = joined.hostsStore() ? null : StoreClient.connectWatcher(new InetSocketAddress(
                        cfg.masterAddr(), cfg.masterPort()), cfg.token(), rank, cfg.size(), cfg.timeout());
                // rank 0 that hosts the store watches it directly; a store's end is its holder's
                watch = joined.hostsStore() ? new DepartureWatch(store, null, rank)
                        : new DepartureWatch(own, own, rank, launcherHoldsStore(settings)
                                ? DepartureWatch.Holder.LAUNCHER : DepartureWatch.Holder.RANK_ZERO);
                AutoCloseable store0 = rendezvous;
                DepartureWatch watching = watch;
                rendezvous = () -> {
                    watching.close(); // first: the store's end must not look like a death to it
                    store0.close();
                };
            }
            CommunicatorImpl comm = new CommunicatorImpl(rank, cfg.size(), cfg.localRank(), hostId,
                    info, cfg.timeout(), transport, rendezvous, scoped,
                    new JobDoctor.Context(HostIdentity.name(settings), advertise, settings),
                    trace, confined);
            if (watch != null) {
                watch.start(comm::peerDeparted);
                int me = rank;
                comm.announceAbortsWith(reason -> io.jcoll.bootstrap.Departures.record(store, me,
                        io.jcoll.bootstrap.Departures.Kind.ABORTED, reason));
            }
            return comm;
        } catch (IOException | StoreClient.StoreUnreachableException e) {
            closeQuietly(rendezvous);
            throw unreachable(rank, e);
        } catch (RuntimeException e) {
            closeQuietly(rendezvous);
            throw e;
        }
    }



    /**
     * The transport's account with the placement traps added ({@link CpuPlacement}: one CPU, CPUs far from the GPU,
     * CPUs shared with other ranks), each logged once a process, loudly, with the fix for the launcher that started
     * it: {@code comm.transport()} and {@code jcoll perf}'s header show them.
     */
    private static io.jcoll.TransportInfo withWarnings(io.jcoll.TransportInfo info, List<io.jcoll.probe.Warning> traps,
                                                       int rank) {
        StringBuilder reason = new StringBuilder(info.reason());
        for (io.jcoll.probe.Warning trap : traps) {
            if (WARNED.add(trap.problem())) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": " + trap);
            }
            reason.append("; WARNING: ").append(trap);
        }
        return traps.isEmpty() ? info : new io.jcoll.TransportInfo(info.name(), info.requested(), reason.toString(),
                info.rejected());
    }

    /**
     * The address this rank's peers reach its data connections at: {@code JCOLL_SOCKET_IFNAME}'s interface when
     * set, else {@code reached}, the address it reached the store from (its interface reaches the master).
     */
    private static InetAddress dataAddress(Settings settings, InetAddress reached, int rank) {
        java.util.Optional<String> list = settings.get(io.jcoll.probe.SocketInterface.VARIABLE);
        if (list.isEmpty()) {
            return reached;
        }
        List<io.jcoll.probe.SocketInterface.Candidate> here = io.jcoll.probe.SocketInterface.live();
        return io.jcoll.probe.SocketInterface.choose(list.get(), here)
                .map(io.jcoll.probe.SocketInterface.Candidate::address)
                .orElseThrow(() -> new BootstrapException("bootstrap", rank, JcollException.NONE,
                        io.jcoll.probe.SocketInterface.noneMatched(list.get(), here)));
    }

    private static final java.util.Set<String> WARNED = java.util.concurrent.ConcurrentHashMap.newKeySet();


    static HostedStore host(JobConfig cfg) throws IOException {
        synchronized (HOSTED) {
            HostedStore h = cfg.masterPort() == 0 ? null : HOSTED.get(cfg.masterPort());
            if (h == null) {
                StoreServer server;
                try {
                    server = new StoreServer(new InetSocketAddress(cfg.masterPort()), cfg.token());
                } catch (BindException e) {
                    throw new BootstrapException("bootstrap", 0, JcollException.NONE, "MASTER_PORT " + cfg.masterPort()
                            + " is already in use on this host (" + e.getMessage() + "); pick a free port", e);
                }
                h = new HostedStore(server.port(), server); // port 0 asks the system for a free one
                HOSTED.put(server.port(), h);
            }
            h.users++;
            return h;
        }
    }

    /**
     * A store server shared by this process's communicators. When the last of
     * them closes it lingers a few seconds before stopping: other ranks may
     * still be reading it (a failed bootstrap's missing-rank report, a stall
     * diagnosis), and a communicator created meanwhile on the same port reuses it.
     */
    static final class HostedStore implements AutoCloseable {
        final int port;
        final StoreServer server;
        int users;

        HostedStore(int port, StoreServer server) {
            this.port = port;
            this.server = server;
        }

        @Override
        public void close() {
            synchronized (HOSTED) {
                if (--users > 0) {
                    return;
                }
            }
            try {
                // the other ranks' departure watchers then take the store's end for what it is, not rank 0's death
                io.jcoll.bootstrap.Departures.record(server.local(), 0, io.jcoll.bootstrap.Departures.Kind.LEFT,
                        "closed its communicators");
            } catch (RuntimeException ignored) {
                // the store is closing already
            }
            Thread linger = new Thread(() -> {
                try {
                    Thread.sleep(STORE_LINGER_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (HOSTED) {
                    if (users == 0 && HOSTED.get(port) == this) {
                        HOSTED.remove(port);
                        server.close();
                    }
                }
            }, "jcoll-store-linger-" + port);
            linger.setDaemon(true);
            linger.start();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
