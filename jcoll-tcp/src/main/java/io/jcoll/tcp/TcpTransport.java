package io.jcoll.tcp;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.NetworkReport;
import io.jcoll.spi.Settings;
import io.jcoll.spi.StagedAccess;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.HostMemory;
import io.jcoll.spi.Operation;
import io.jcoll.spi.StallDiagnosis;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.tcp.algorithm.AlgorithmContext;
import io.jcoll.tcp.algorithm.Collectives;
import io.jcoll.tcp.algorithm.BruckAllGather;
import io.jcoll.tcp.algorithm.DisseminationBarrier;
import io.jcoll.tcp.algorithm.HostLayout;
import io.jcoll.tcp.algorithm.Region;
import io.jcoll.tcp.algorithm.Scratch;
import io.jcoll.tcp.algorithm.Tuning;
import io.jcoll.spi.Signature;
import io.jcoll.spi.SplitRequest;
import io.jcoll.tcp.algorithm.PointToPointBatch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Set;
import java.util.TreeSet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The pure-Java transport: the collective algorithms over a full mesh of
 * authenticated TCP connections, progressed by the calling thread.
 */
public final class TcpTransport implements Transport {

    /** The barrier that ends setup: not a user collective, so its sequence number is one no call has. */
    private static final Signature BOOTSTRAP_BARRIER = new Signature(Operation.BARRIER.ordinal(), 0, -1, -1, 0, -2);
    /** The exchange of host identities that follows it: one int64 from each rank, likewise numbered apart. */
    private static final Signature HOST_EXCHANGE = new Signature(Operation.ALL_GATHER.ordinal(),
            DataType.INT64.ordinal(), -1, -1, 1, -3);

    private final TcpLink link;               // channel 0's (small messages and everything not split); tests reach it
    private NetworkReport network;            // once the ranks have told each other their hosts
    private final Channel[] channels;         // all of them, channel 0 first
    private final ChannelPlan plan;
    private final ExecutorService helpers;    // one thread per channel beyond the first; null with one channel
    private final StallDiagnosis diagnosis;
    private final TransportContext context;   // what this group was opened with; sub-groups derive theirs from it
    /** Digest of every collective completed ({@link Signature#foldInto}), carried in every frame to the peers. */
    private long history;
    private boolean stagingReported;
    private HostLayout hosts;
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());

    /** One mesh of connections with its link and scratch: one part of a large call moves over each. */
    private record Channel(TcpLink link, AlgorithmContext context) {
    }

    private TcpTransport(TransportContext context, Channel[] channels, ChannelPlan plan, StallDiagnosis diagnosis) {
        this.context = context;
        this.channels = channels;
        this.plan = plan;
        this.link = channels[0].link();
        this.diagnosis = diagnosis;
        this.helpers = channels.length == 1 ? null : Executors.newFixedThreadPool(channels.length - 1, r -> {
            Thread t = new Thread(r, "jcoll-tcp-channel");
            t.setDaemon(true);
            return t;
        });
    }

    /** How long a wait polls its sockets before it sleeps in the selector, unless JCOLL_TCP_SPIN says otherwise. */
    static final Duration DEFAULT_SPIN = Duration.ofNanos(200_000);

    /** Opens this rank's side of a new mesh among the context's ranks (every rank at once). */
    public static TcpTransport open(TransportContext ctx) {
        long deadline = System.nanoTime() + ctx.timeout().toNanos();
        Tuning tuning = rankZeros(ctx, "tcp/tuning", "TCP tuning", () -> Tuning.from(ctx.settings()), Tuning::encode,
                Tuning::decode);
        ChannelPlan plan = ctx.size() == 1 ? new ChannelPlan(1, 1) : rankZeros(ctx, "tcp/channels", "TCP channel plan",
                () -> ChannelPlan.from(ctx.settings(), ctx.localSize(), Runtime.getRuntime().availableProcessors()),
                ChannelPlan::encode, ChannelPlan::decode);
        boolean twoLevels = rankZeros(ctx, "tcp/hierarchy", "TCP hierarchy setting", () -> twoLevels(ctx.settings()),
                String::valueOf, Boolean::parseBoolean);
        // longer than a wake-up from the selector takes on a virtual machine (20-50 us): with a shorter spin, two
        // ranks exchanging small messages can settle into each finding the other asleep, every message paying
        // two wake-ups (measured on 2 vCPUs, 2 ranks: 8-byte AllReduce 41-51 us with 20 us of spin, 16-31 us with
        // 200 us in two runs of three; on 32 cores no difference either way; benchmarks/RESULTS.md)
        Duration spin = ctx.settings().getDuration("JCOLL_TCP_SPIN", DEFAULT_SPIN);
        int socketBuffer = (int) ctx.settings().getBytes("JCOLL_TCP_SOCKET_BUFFER", 0);
        boolean yieldWhileSpinning = yieldWhileSpinning(ctx.settings(), ctx.localSize(),
                Runtime.getRuntime().availableProcessors());
        // page-locked stages where a GPU runtime offers them: GPU buffers then copy at the copy engines' speed
        HostMemory stages = ctx.settings().getInt("JCOLL_TCP_PINNED", 1) == 1 ? HostMemory.pinnedOrDirect() : HostMemory.DIRECT;
        Channel[] channels = new Channel[plan.channels()];
        Connection[] first = null;
        try {
            for (int c = 0; c < channels.length; c++) {
                Connection[] connections = ctx.size() == 1 ? new Connection[1]
                        : Mesh.connect(ctx.rank(), ctx.size(), ctx.store(), "tcp/c" + c + "/endpoint/",
                        ctx.advertiseAddress(), ctx.token(), ctx.timeout(), socketBuffer);
                first = first == null ? connections : first;
                TcpLink link = new TcpLink(ctx.rank(), ctx.size(), connections, spin.toNanos(), yieldWhileSpinning);
                channels[c] = new Channel(link, new AlgorithmContext(link, new Scratch(tuning.segmentBytes(), stages),
                        tuning));
            }
        } catch (IOException e) {
            for (Channel ch : channels) {
                if (ch != null) {
                    ch.link().abort(e);
                }
            }
            throw new BootstrapException("bootstrap", ctx.rank(), JcollException.NONE,
                    "could not set up TCP connections: " + e.getMessage(), e);
        }
        TcpTransport transport = new TcpTransport(ctx, channels, plan,
                new StallDiagnosis(ctx.store(), ctx.rank(), ctx.size(), ctx.timeout()));
        try {
            // every rank is connected to every other, on every channel, before the communicator is handed out
            for (Channel ch : channels) {
                ch.link().begin("bootstrap", BOOTSTRAP_BARRIER, deadline);
                DisseminationBarrier.run(ch.context());
            }
            HostLayout hosts = ctx.size() == 1 ? HostLayout.rankOrder(1) : HostLayout.of(
                    hostIds(channels[0], ctx.hostId(), deadline), twoLevels);
            for (int c = 0; c < channels.length; c++) {
                AlgorithmContext a = channels[c].context();
                channels[c] = new Channel(channels[c].link(),
                        new AlgorithmContext(a.p2p(), a.scratch(), a.tuning(), hosts));
            }
            transport.network = describe(first, stages, plan.channels(), hosts);
            transport.hosts = hosts;
            // every rank has dialled every published endpoint: the keys are no longer needed (a job that splits
            // a thousand groups must not grow its store by a thousand sets of them)
            for (int c = 0; c < channels.length && ctx.size() > 1; c++) {
                ctx.store().delete("tcp/c" + c + "/endpoint/" + ctx.rank());
            }
        } catch (JcollException e) {
            transport.abort(e);
            throw e;
        }
        return transport;
    }

    /**
     * Every rank's host identity, by rank, gathered over the new connections (a few small messages, where the
     * store would take a request per rank from every rank): which ranks share a host decides the order of the rings
     * and whether AllReduce goes in two levels.
     */
    private static long[] hostIds(Channel ch, long mine, long deadline) {
        long[] ids = new long[ch.link().size()];
        ch.link().begin("bootstrap", HOST_EXCHANGE, deadline);
        BruckAllGather.run(ch.context(), new Region(HostBuffer.of(new long[] {mine}), 0),
                new Region(HostBuffer.of(ids), 0), 1);
        return ids;
    }

    /**
     * JCOLL_TCP_HIERARCHY: {@code auto} (the default: AllReduce goes in two levels where there are several hosts of
     * several ranks each) or {@code 0} (one ring over all ranks, in host order). Rank 0's is every rank's: the
     * ranks of a level must all take it.
     */
    static boolean twoLevels(Settings settings) {
        String mode = settings.get("JCOLL_TCP_HIERARCHY").orElse("auto");
        return switch (mode) {
            case "auto" -> true;
            case "0" -> false;
            default -> throw new IllegalArgumentException("JCOLL_TCP_HIERARCHY must be auto or 0 (was " + mode + ")");
        };
    }

    /**
     * Whether a spinning wait yields its core (JCOLL_TCP_YIELD: {@code 1}, {@code 0}, or {@code auto}, the
     * default: when there are more local ranks than cores). Oversubscribed, a spinning rank would hold the core
     * that the rank it waits for needs, so it yields, as Open MPI does when oversubscribed.
     */
    static boolean yieldWhileSpinning(Settings settings, int localRanks, int cores) {
        String mode = settings.get("JCOLL_TCP_YIELD").orElse("auto");
        return switch (mode) {
            case "1" -> true;
            case "0" -> false;
            case "auto" -> localRanks > cores;
            default -> throw new IllegalArgumentException("JCOLL_TCP_YIELD must be auto, 1 or 0 (was " + mode + ")");
        };
    }

    /** The interfaces this rank's connections leave through, as the kernel bound them. */
    private static NetworkReport describe(Connection[] connections, HostMemory stages, int channels, HostLayout hosts) {
        Set<String> interfaces = new TreeSet<>();
        for (Connection c : connections) {
            if (c == null) {
                continue;
            }
            try {
                InetAddress local = ((InetSocketAddress) c.channel.getLocalAddress()).getAddress();
                NetworkInterface nif = NetworkInterface.getByInetAddress(local);
                interfaces.add((nif == null ? "?" : nif.getName()) + ":" + local.getHostAddress());
            } catch (IOException | RuntimeException e) {
                interfaces.add("unknown interface");
            }
        }
        if (interfaces.isEmpty()) {
            return new NetworkReport("a single rank: no network is used", List.of(), "TCP", List.of(), null, List.of(),
                    "jcoll's TCP transport");
        }
        return new NetworkReport("TCP sockets between every pair of ranks (" + channels + " connection"
                + (channels == 1 ? "" : "s, one per channel, for the parts of large messages") + "), through "
                + String.join(", ", interfaces)
                + "; " + hosts.describe()
                + "; stages in " + stages.describe() + " host memory"
                + (stages == HostMemory.DIRECT ? "" : ", so GPU buffers are copied by the copy engines directly"),
                List.of("TCP"), "TCP", List.copyOf(interfaces), null, List.of(), "the connected sockets' local addresses");
    }

    @Override
    public NetworkReport network() {
        return network;
    }

    /**
     * Rank 0's choice of {@code what}, published in the store under {@code key}; the other ranks read it. Used for
     * what both ends of a connection must agree on: the tuning (segment boundaries decide message lengths) and the
     * channel plan (both ends must split a message the same way).
     */
    private static <T> T rankZeros(TransportContext ctx, String key, String what, java.util.function.Supplier<T> mine,
                                   java.util.function.Function<T, String> encode,
                                   java.util.function.Function<String, T> decode) {
        if (ctx.rank() == 0) {
            T chosen = mine.get();
            ctx.store().set(key, encode.apply(chosen).getBytes(StandardCharsets.UTF_8));
            return chosen;
        }
        byte[] agreed = ctx.store().get(key, ctx.timeout()).orElseThrow(() -> new BootstrapException(
                "bootstrap", ctx.rank(), 0, "rank 0 never published its " + what));
        return decode.apply(new String(agreed, StandardCharsets.UTF_8));
    }

    /** Yes: a dead process's connections close at once, and the channel reading them names the rank. */
    @Override
    public boolean detectsDeadPeers() {
        return true;
    }

    /** Yes: every frame header carries the sender's signature, checked by the receiver. */
    @Override
    public boolean checksSignatures() {
        return true;
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public String unsupportedReason(Buffer buffer) {
        if (!(buffer instanceof StagedAccess)) {
            return "it can reach only buffers that offer staged access (host buffers, jcoll device buffers)";
        }
        if (buffer.location() == Buffer.Location.DEVICE && !stagingReported) {
            stagingReported = true;
            LOG.log(System.Logger.Level.INFO, "GPU buffers on the tcp transport are copied through "
                    + channels[0].context().scratch().memory().describe() + " host memory a segment at a time ("
                    + channels[0].context().tuning().segmentBytes() + " bytes), because NCCL was not chosen for this job (see "
                    + "comm.transport() for why)");
        }
        return null;
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        if (call.operation() == Operation.GROUP) {
            executeGroup(call, deadlineNanos);
            return;
        }
        int k = split(call);
        if (k == 1) {
            run(channels[0], call, 0, 1, deadlineNanos);
        } else {
            runOverChannels(call, k, deadlineNanos);
        }
        completed(call);
    }

    /**
     * A group: its sends and receives all posted at once (so that no order of them can deadlock), then its
     * collectives in the order they were recorded. Every rank does the same, so the collectives still meet.
     */
    private void executeGroup(Call group, long deadlineNanos) {
        // each message's signature and the deadline are set as it is posted
        PointToPointBatch.runSendsAndReceives(channels[0].context(), group,
                c -> link.begin(c.operation().label(), Signature.of(c), history, null, null, deadlineNanos));
        for (Call c : group.members()) {
            if (c.operation().isCollective()) {
                execute(c, deadlineNanos);
            }
        }
    }

    /** A collective completed on this rank: it joins the history every later frame carries. */
    private void completed(Call call) {
        if (call.operation().isCollective()) {
            history = Signature.of(call).foldInto(history);
        }
    }

    private void runOverChannels(Call call, int k, long deadlineNanos) {
        // the same parts on every rank: channel c moves part c of k of every block
        AtomicReference<RuntimeException> first = new AtomicReference<>();
        List<Future<?>> started = new ArrayList<>(k - 1);
        for (int c = 1; c < k; c++) {
            Channel ch = channels[c];
            int part = c;
            started.add(helpers.submit(() -> runOrStopAll(ch, call, part, k, deadlineNanos, first)));
        }
        runOrStopAll(channels[0], call, 0, k, deadlineNanos, first);
        for (Future<?> f : started) {
            try {
                f.get(); // each channel waits no longer than the call's deadline, or stops when another failed
            } catch (ExecutionException e) {
                // recorded in first by the channel itself
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                first.compareAndSet(null, new JcollException(call.operation().label(), link.rank(), JcollException.NONE,
                        "interrupted while the TCP channels ran " + call.describe(), e));
                abortChannels(first.get()); // the peers read this rank's account, not a bare interruption
            }
        }
        if (first.get() != null) {
            throw first.get(); // only once no channel touches the caller's buffers any more
        }
    }

    /** Runs one channel's part; the first channel to fail records why and stops the others at once. */
    private void runOrStopAll(Channel ch, Call call, int part, int parts, long deadlineNanos,
                              AtomicReference<RuntimeException> first) {
        try {
            run(ch, call, part, parts, deadlineNanos);
        } catch (RuntimeException e) {
            if (first.compareAndSet(null, e)) {
                abortChannels(e);
            }
        }
    }

    @Override
    public String algorithm(Call call) {
        if (call.operation() == io.jcoll.spi.Operation.GROUP) {
            return "batched sends and receives";
        }
        String algorithm = Collectives.algorithm(channels[0].context(), call);
        int parts = split(call);
        return parts == 1 || algorithm == null ? algorithm : algorithm + " over " + parts + " channels";
    }

    /**
     * How many channels {@code call} is split over: the collectives that move data, by the bytes each rank
     * sends or receives in all (the output of allGather and allToAll, the input of reduceScatter).
     */
    private int split(Call call) {
        if (channels.length == 1) {
            return 1;
        }
        return switch (call.operation()) {
            case ALL_REDUCE, BROADCAST, REDUCE -> plan.channelsFor(call.bytes());
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER -> plan.channelsFor(call.bytes() * link.size());
            case ALL_TO_ALL_V -> {
                // each direction of each pair is cut by its own length (both of its ends know it): as many
                // channels as the largest block needs
                int most = 1;
                for (int p = 0; p < link.size(); p++) {
                    most = Math.max(most, plan.channelsFor(Math.max(call.vectors().sendCounts()[p],
                            call.vectors().recvCounts()[p]) * call.type().size()));
                }
                yield most;
            }
            default -> 1;
        };
    }

    /** Part {@code part} of {@code parts} of every block of {@code call}, over one channel. */
    private void run(Channel ch, Call call, int part, int parts, long deadlineNanos) {
        io.jcoll.spi.Vectors v = call.vectors();
        ch.link().begin(call.operation().label(), Signature.of(call), history, v == null ? null : v.sendCounts(),
                v == null ? null : v.recvCounts(), deadlineNanos);
        try {
            if (v != null) {
                Collectives.runUnevenShare(ch.context(), call, part, plan::channelsFor);
            } else {
                Collectives.runShare(ch.context(), call, part, parts);
            }
        } catch (CollectiveTimeoutException e) {
            throw call.operation().isCollective() ? diagnosis.explain(call, e, deadlineNanos) : e;
        } catch (JcollException e) {
            if (call.operation().isCollective()) {
                diagnosis.reached(call);
            }
            throw e;
        }
    }

    /** Which ranks share a host, as the ranks told each other when they connected. */
    public HostLayout hostLayout() {
        return hosts;
    }

    /**
     * A sub-group over connections of its own: a new mesh among the members, found through the store under the
     * split's scope, with its own links, sequence numbers and history, so that its calls never mix with this
     * group's and the two can run on different threads. The members agreed on the split through this group, so
     * they open it together; the rest have nothing to do.
     */
    @Override
    public Transport split(SplitRequest request) {
        if (!request.included()) {
            return null;
        }
        return open(context.forGroup(request));
    }

    /** From another thread while a call runs: the links are cut, so that call fails at once; nothing is freed. */
    @Override
    public void interrupt(Throwable cause) {
        abortChannels(cause);
    }

    private void abortChannels(Throwable cause) {
        for (Channel ch : channels) {
            ch.link().abort(cause);
        }
    }

    @Override
    public void abort(Throwable cause) {
        abortChannels(cause);
        if (helpers != null) {
            helpers.shutdownNow();
        }
        for (Channel ch : channels) {
            ch.context().scratch().close(); // the links are down and callers drive progress: no one uses a stage now
        }
    }

    @Override
    public void close() {
        JcollException disagreement = null;
        try {
            for (Channel ch : channels) {
                JcollException found = ch.link().close(history);
                disagreement = disagreement == null ? found : disagreement;
            }
        } finally {
            if (helpers != null) {
                helpers.shutdownNow();
            }
            for (Channel ch : channels) {
                ch.context().scratch().close();
            }
        }
        if (disagreement != null) {
            throw disagreement; // everything is released; the caller learns what the goodbyes revealed
        }
    }
}
