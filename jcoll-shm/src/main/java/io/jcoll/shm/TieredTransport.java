package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.NetworkReport;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.Call;
import io.jcoll.spi.SplitRequest;
import io.jcoll.spi.StagedAccess;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.tcp.TcpTransport;
import io.jcoll.tcp.algorithm.HostLayout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Several hosts with several ranks each: AllReduce, ReduceScatter and AllGather in two tiers, shared memory within
 * each host and TCP between hosts, everything else over TCP among all ranks.
 *
 * <p>It holds three transports: TCP among all ranks (whose rings already run in host order), shared memory among
 * the ranks of this rank's host, and TCP among the ranks that stand where this one stands on every host (one per
 * host); {@link Tiers} holds the last two for the algorithms ({@link TieredAllReduce}, {@link TieredReduceScatter},
 * {@link TieredAllGather}). Each host's link then carries {@code (h-1)/h} of what each block of the message asks
 * of it instead of a ring's {@code (n-1)/n} for {@code h} hosts of {@code n} ranks, while the steps within a host
 * cost a copy in and a copy out instead of loopback TCP's trips through the kernel.
 *
 * <p>Each tier checks its calls' signatures among its ranks; between them the tiers connect every rank, so a call
 * that two ranks disagree about fails in a tier they share (or, where the ranks took different paths, at the
 * timeout), and each tier watches its peers for death.
 */
final class TieredTransport implements Transport {

    private final TcpTransport all;
    private final Tiers tiers;
    private final NetworkReport network;

    private TieredTransport(TcpTransport all, Tiers tiers) {
        this.all = all;
        this.tiers = tiers;
        NetworkReport flat = all.network();
        this.network = new NetworkReport("AllReduce, ReduceScatter and AllGather in two tiers: shared memory within "
                + "each of the " + tiers.hosts + " hosts (" + tiers.ranksPerHost + " ranks each), TCP between them; "
                + "everything else over TCP. " + flat.summary(), join(flat.paths(), "SHM"), flat.network(),
                flat.devices(), flat.gpuDirectRdma(), flat.warnings(), flat.source());
    }

    /**
     * Opens the three tiers, every rank at once. Where the hosts hold different numbers of ranks, or shared memory
     * cannot be opened on some host, every rank learns it alike and throws {@link TransportUnavailableException}
     * having released everything, so that {@code auto} takes the next transport on all of them.
     */
    static TieredTransport open(TransportContext ctx) {
        // every rank must cut its pieces alike: a bad value fails before anything opens
        long pieceBytes = ctx.settings().getBytes("JCOLL_TIERS_PIECE", Tiers.DEFAULT_PIECE_BYTES);
        if (pieceBytes < 1) {
            throw new IllegalArgumentException("JCOLL_TIERS_PIECE must be at least 1 byte (was " + pieceBytes + ")");
        }
        TcpTransport all = TcpTransport.open(ctx);
        ShmTransport host = null;
        TcpTransport across = null;
        try {
            HostLayout layout = all.hostLayout();
            if (layout.hosts() < 2 || layout.ranksPerHost() < 2) {
                throw new TransportUnavailableException("bootstrap", ctx.rank(), JcollException.NONE, "two tiers "
                        + "need several hosts with as many ranks each, two at least; here: " + layout.describe());
            }
            int[] beside = layout.ranksBeside(ctx.rank());
            int index = Arrays.binarySearch(beside, ctx.rank());
            int[] hostLeaders = layout.ranksAcross(beside[0]);
            int hostIndex = Arrays.binarySearch(hostLeaders, beside[0]);
            String hostFailure = null;
            try {
                host = ShmTransport.open(ctx.forGroup(new SplitRequest(hostIndex, ctx.rank(), beside, index, index,
                        beside.length, "tiers/host" + hostIndex + "/")));
            } catch (TransportUnavailableException e) {
                hostFailure = e.getMessage(); // every rank of this host alike; the other hosts must learn it
            }
            agreeOnHostTier(ctx, index, hostIndex, hostLeaders, hostFailure);
            int[] peers = layout.ranksAcross(ctx.rank());
            across = TcpTransport.open(ctx.forGroup(new SplitRequest(index, ctx.rank(), peers, hostIndex, 0, 1,
                    "tiers/across" + index + "/")));
            return new TieredTransport(all, new Tiers(host, across, layout, ctx.rank(), pieceBytes));
        } catch (RuntimeException e) {
            if (host != null) {
                host.close();
            }
            if (across != null) {
                across.close();
            }
            all.close();
            throw e;
        }
    }

    /**
     * Each host's first rank says whether its host's shared memory opened, through the store; every rank reads
     * every host's word, so that all fail alike naming the first host that could not.
     */
    private static void agreeOnHostTier(TransportContext ctx, int index, int hostIndex, int[] hostLeaders,
                                        String failure) {
        if (index == 0) {
            ctx.store().set("tiers/host" + hostIndex + "/verdict",
                    (failure == null ? "" : failure).getBytes(StandardCharsets.UTF_8));
        }
        for (int h = 0; h < hostLeaders.length; h++) {
            String word = ctx.store().get("tiers/host" + h + "/verdict", ctx.timeout())
                    .map(v -> new String(v, StandardCharsets.UTF_8))
                    .orElseThrow(() -> new TransportUnavailableException("bootstrap", ctx.rank(), JcollException.NONE,
                            "a host's ranks did not say within JCOLL_TIMEOUT whether their shared memory opened"));
            if (!word.isEmpty()) {
                throw new TransportUnavailableException("bootstrap", ctx.rank(), hostLeaders[h], "shared memory "
                        + "could not be opened on the host of rank " + hostLeaders[h] + ": " + word);
            }
        }
    }

    private static List<String> join(List<String> paths, String extra) {
        List<String> all = new ArrayList<>(paths);
        if (!all.contains(extra)) {
            all.add(extra);
        }
        return all;
    }

    @Override
    public String name() {
        return TieredTransportProvider.NAME;
    }

    @Override
    public String unsupportedReason(Buffer buffer) {
        return all.unsupportedReason(buffer);
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        if (!inTiers(call)) {
            all.execute(call, deadlineNanos);
            return;
        }
        switch (call.operation()) {
            case ALL_REDUCE -> TieredAllReduce.run(tiers, call, deadlineNanos);
            case REDUCE_SCATTER -> TieredReduceScatter.run(tiers, call, deadlineNanos);
            case ALL_GATHER -> TieredAllGather.run(tiers, call, deadlineNanos);
            default -> throw new IllegalStateException("no two-tier " + call.operation());
        }
    }

    @Override
    public String algorithm(Call call) {
        if (!inTiers(call)) {
            return all.algorithm(call);
        }
        return switch (call.operation()) {
            case ALL_REDUCE -> "two tiers: reduce-scatter in shared memory, all-reduce over TCP between hosts, "
                    + "all-gather in shared memory";
            case REDUCE_SCATTER -> "two tiers: reduce-scatter in shared memory, reduce-scatter over TCP between hosts";
            default -> "two tiers: all-gather over TCP between hosts, all-gather in shared memory";
        };
    }

    /**
     * AllReduce with at least one element for each rank of a host, ReduceScatter and AllGather with at least one
     * element per rank, in buffers shared memory can reach. Each tier is given the call's own reduce op, so that
     * ranks that disagree about it fail in a tier they share: AVG averages within the host, then across hosts,
     * which for floating-point types is the average of all (the division by {@code k} then {@code h} rounds as the
     * one by {@code n} does where they are powers of two, within an ulp otherwise); for integers, whose divisions
     * truncate, AVG goes over TCP alone.
     */
    private boolean inTiers(Call call) {
        long least = switch (call.operation()) {
            case ALL_REDUCE -> tiers.ranksPerHost;
            case REDUCE_SCATTER, ALL_GATHER -> 1;
            default -> -1;
        };
        return least > 0 && call.count() >= least
                && call.send() instanceof StagedAccess && call.recv() instanceof StagedAccess
                && (call.reduceOp() != ReduceOp.AVG || call.type().isFloatingPoint());
    }

    @Override
    public NetworkReport network() {
        return network;
    }

    @Override
    public boolean checksSignatures() {
        return all.checksSignatures() && tiers.host.checksSignatures() && tiers.across.checksSignatures();
    }

    @Override
    public boolean detectsDeadPeers() {
        return all.detectsDeadPeers() && tiers.host.detectsDeadPeers() && tiers.across.detectsDeadPeers();
    }

    /** A sub-communicator runs over TCP among its members (its own rings, in host order). */
    @Override
    public Transport split(SplitRequest request) {
        return all.split(request);
    }

    @Override
    public void interrupt(Throwable cause) {
        all.interrupt(cause);
        tiers.interrupt(cause);
    }

    @Override
    public void abort(Throwable cause) {
        all.abort(cause);
        tiers.abort(cause);
    }

    @Override
    public void close() {
        tiers.close();
        tiers.host.close();
        tiers.across.close();
        all.close();
    }

    @Override
    public String toString() {
        return "two tiers, host " + tiers.hostIndex + " rank " + tiers.indexOnHost + " of " + tiers.ranksPerHost;
    }
}
