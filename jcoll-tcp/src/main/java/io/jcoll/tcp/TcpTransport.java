package io.jcoll.tcp;

import io.jcoll.Buffer;
import io.jcoll.NetworkReport;
import io.jcoll.spi.StagedAccess;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.HostMemory;
import io.jcoll.spi.StallDiagnosis;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.tcp.algorithm.AlgorithmContext;
import io.jcoll.tcp.algorithm.Collectives;
import io.jcoll.tcp.algorithm.DisseminationBarrier;
import io.jcoll.tcp.algorithm.Scratch;
import io.jcoll.tcp.algorithm.Tuning;
import io.jcoll.spi.Signature;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The pure-Java transport: the collective algorithms over a full mesh of
 * authenticated TCP connections, progressed by the calling thread.
 */
final class TcpTransport implements Transport {

    /** The barrier that ends setup: not a user collective, so its sequence number is one no call has. */
    private static final Signature BOOTSTRAP_BARRIER = new Signature(io.jcoll.spi.Operation.BARRIER.ordinal(), 0, -1, -1, 0, -2);

    private final TcpLink link;
    private final NetworkReport network;
    private final AlgorithmContext context;
    private final StallDiagnosis diagnosis;
    private boolean stagingReported;
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());

    private TcpTransport(TcpLink link, AlgorithmContext context, StallDiagnosis diagnosis, NetworkReport network) {
        this.link = link;
        this.network = network;
        this.context = context;
        this.diagnosis = diagnosis;
    }

    static TcpTransport open(TransportContext ctx) {
        long deadline = System.nanoTime() + ctx.timeout().toNanos();
        Tuning tuning = agreeOnTuning(ctx);
        Duration spin = ctx.settings().getDuration("JCOLL_TCP_SPIN", Duration.ofNanos(20_000));
        int socketBuffer = (int) ctx.settings().getBytes("JCOLL_TCP_SOCKET_BUFFER", 0);
        TcpLink link;
        Connection[] connections;
        try {
            connections = ctx.size() == 1 ? new Connection[1]
                    : Mesh.connect(ctx.rank(), ctx.size(), ctx.store(), ctx.advertiseAddress(), ctx.token(),
                    ctx.timeout(), socketBuffer);
            // oversubscribed (more local ranks than cores), a spinning rank would hold the core its peer needs:
            // it yields instead, as Open MPI does when oversubscribed
            boolean oversubscribed = ctx.localSize() > Runtime.getRuntime().availableProcessors();
            link = new TcpLink(ctx.rank(), ctx.size(), connections, spin.toNanos(), oversubscribed);
        } catch (IOException e) {
            throw new BootstrapException("bootstrap", ctx.rank(), JcollException.NONE,
                    "could not set up TCP connections: " + e.getMessage(), e);
        }
        // page-locked stages where a GPU runtime offers them: GPU buffers then copy at the copy engines' speed
        HostMemory stages = ctx.settings().getInt("JCOLL_TCP_PINNED", 1) == 1 ? HostMemory.pinnedOrDirect() : HostMemory.DIRECT;
        Scratch scratch = new Scratch(tuning.segmentBytes(), stages);
        TcpTransport transport = new TcpTransport(link, new AlgorithmContext(link, scratch, tuning),
                new StallDiagnosis(ctx.store(), ctx.rank(), ctx.size(), ctx.timeout()), describe(connections, stages));
        try {
            // every rank is connected to every other before the communicator is handed out
            link.begin("bootstrap", BOOTSTRAP_BARRIER, deadline);
            DisseminationBarrier.run(transport.context);
        } catch (JcollException e) {
            transport.abort(e);
            throw e;
        }
        return transport;
    }

    /** The interfaces this rank's connections leave through, as the kernel bound them. */
    private static NetworkReport describe(Connection[] connections, HostMemory stages) {
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
        return new NetworkReport("TCP sockets between every pair of ranks, through " + String.join(", ", interfaces)
                + "; stages in " + stages.describe() + " host memory"
                + (stages == HostMemory.DIRECT ? "" : ", so GPU buffers are copied by the copy engines directly"),
                List.of("TCP"), "TCP", List.copyOf(interfaces), null, List.of(), "the connected sockets' local addresses");
    }

    @Override
    public NetworkReport network() {
        return network;
    }

    /** Rank 0's tuning wins, because segment boundaries decide message lengths on both ends. */
    private static Tuning agreeOnTuning(TransportContext ctx) {
        if (ctx.rank() == 0) {
            Tuning mine = Tuning.from(ctx.settings());
            ctx.store().set("tcp/tuning", mine.encode().getBytes(StandardCharsets.UTF_8));
            return mine;
        }
        byte[] agreed = ctx.store().get("tcp/tuning", ctx.timeout()).orElseThrow(() -> new BootstrapException(
                "bootstrap", ctx.rank(), 0, "rank 0 never published its TCP tuning"));
        return Tuning.decode(new String(agreed, StandardCharsets.UTF_8));
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
                    + context.scratch().memory().describe() + " host memory a segment at a time ("
                    + context.tuning().segmentBytes() + " bytes), because NCCL was not chosen for this job (see "
                    + "comm.transport() for why)");
        }
        return null;
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        link.begin(call.operation().label(), Signature.of(call), deadlineNanos);
        try {
            Collectives.run(context, call);
        } catch (CollectiveTimeoutException e) {
            throw call.operation().isCollective() ? diagnosis.explain(call, e) : e;
        } catch (JcollException e) {
            if (call.operation().isCollective()) {
                diagnosis.reached(call);
            }
            throw e;
        }
    }

    @Override
    public void abort(Throwable cause) {
        link.abort(cause);
        context.scratch().close(); // the link is down and progress is driven by callers: no one touches a stage now
    }

    @Override
    public void close() {
        try {
            link.close();
        } finally {
            context.scratch().close();
        }
    }
}
