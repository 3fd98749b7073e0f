package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.NetworkReport;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Several hosts with several ranks each: AllReduce in two tiers, shared memory within each host and TCP between
 * hosts, everything else over TCP among all ranks.
 *
 * <p>It holds three transports: TCP among all ranks (whose rings already run in host order), shared memory among
 * the ranks of this rank's host, and TCP among the ranks that stand where this one stands on every host (one per
 * host). An AllReduce of {@code count} elements over {@code h} hosts of {@code k} ranks each is a reduce-scatter
 * within the host (each rank then holds its host's sum of one shard of {@code count / k}), an all-reduce of that
 * shard across the hosts, and an all-gather within the host. Each host's link carries {@code 2(h-1)/h} of the
 * message, as in TCP's own two-level AllReduce, while the steps within a host cost a copy in and a copy out
 * instead of loopback TCP's trips through the kernel; the message goes in pieces, so that the steps within a host
 * overlap the links' work on other pieces.
 *
 * <p>Each tier checks its calls' signatures among its ranks; between them the tiers connect every rank, so a call
 * that two ranks disagree about fails in a tier they share (or, where the ranks took different paths, at the
 * timeout), and each tier watches its peers for death.
 */
final class TieredTransport implements Transport {

    private final TcpTransport all;
    private final ShmTransport host;
    private final TcpTransport across;
    private final int ranksPerHost;
    private final int hostIndex;
    private final int indexOnHost;
    private final NetworkReport network;
    private final long pieceBytes;
    private long hostSequence;
    private long acrossSequence; // advanced on the across thread only, one piece after another
    /** Carries pieces across the hosts while the calling thread works on the next within the host. */
    private final ExecutorService acrossThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jcoll-tiers-across");
        t.setDaemon(true);
        return t;
    });

    private TieredTransport(TcpTransport all, ShmTransport host, TcpTransport across, HostLayout layout, int rank,
                            long pieceBytes) {
        this.all = all;
        this.pieceBytes = pieceBytes;
        this.host = host;
        this.across = across;
        this.ranksPerHost = layout.ranksPerHost();
        int[] beside = layout.ranksBeside(rank);
        this.indexOnHost = Arrays.binarySearch(beside, rank);
        this.hostIndex = Arrays.binarySearch(layout.ranksAcross(beside[0]), beside[0]);
        NetworkReport flat = all.network();
        this.network = new NetworkReport("AllReduce in two tiers: shared memory within each of the " + layout.hosts()
                + " hosts (" + ranksPerHost + " ranks each), TCP between them; everything else over TCP. "
                + flat.summary(), join(flat.paths(), "SHM"), flat.network(), flat.devices(), flat.gpuDirectRdma(),
                flat.warnings(), flat.source());
    }

    /**
     * Opens the three tiers, every rank at once. Where the hosts hold different numbers of ranks, or shared memory
     * cannot be opened on some host, every rank learns it alike and throws {@link TransportUnavailableException}
     * having released everything, so that {@code auto} takes the next transport on all of them.
     */
    static TieredTransport open(TransportContext ctx) {
        // every rank must cut its pieces alike: a bad value fails before anything opens
        long pieceBytes = ctx.settings().getBytes("JCOLL_TIERS_PIECE", DEFAULT_PIECE_BYTES);
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
            return new TieredTransport(all, host, across, layout, ctx.rank(), pieceBytes);
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
        if (inTiers(call)) {
            allReduceInTiers(call, deadlineNanos);
        } else {
            all.execute(call, deadlineNanos);
        }
    }

    @Override
    public String algorithm(Call call) {
        return inTiers(call) ? "two tiers: reduce-scatter in shared memory, all-reduce over TCP between hosts, "
                + "all-gather in shared memory" : all.algorithm(call);
    }

    /**
     * An AllReduce with at least one element for each rank of a host, in buffers shared memory can reach. Each tier
     * is given the call's own reduce op, so that ranks that disagree about it fail in a tier they share: AVG
     * averages within the host, then across hosts, which for floating-point types is the average of all (the
     * division by {@code k} then {@code h} rounds as the one by {@code n} does where they are powers of two, within
     * an ulp otherwise); for integers, whose divisions truncate, AVG goes over TCP alone.
     */
    private boolean inTiers(Call call) {
        return call.operation() == Operation.ALL_REDUCE && call.count() >= ranksPerHost
                && call.send() instanceof StagedAccess && call.recv() instanceof StagedAccess
                && (call.reduceOp() != ReduceOp.AVG || call.type().isFloatingPoint());
    }

    /**
     * The message in pieces, each an AllReduce in tiers of its own, pipelined: while the hosts' links carry piece
     * {@code p}'s shards (on the across thread), this thread reduce-scatters piece {@code p + 1} and all-gathers
     * piece {@code p - 1} in shared memory. Each tier sees its calls in one order on every rank (host: RS 0, RS 1,
     * AG 0, RS 2, AG 1, ...; across: AR 0, AR 1, ...), as its signature checks require. The last {@code count % k}
     * elements, too few to shard, go through both tiers whole.
     */
    private void allReduceInTiers(Call call, long deadlineNanos) {
        int size = call.type().size();
        long piece = Math.max(ranksPerHost, pieceBytes / size / ranksPerHost * ranksPerHost);
        long sharded = call.count() / ranksPerHost * ranksPerHost;
        List<Piece> pieces = new ArrayList<>();
        for (long at = 0; at < sharded; at += piece) {
            pieces.add(new Piece(call, at, Math.min(piece, sharded - at)));
        }
        Future<?> previous = null;
        Piece waiting = null;
        try {
            for (Piece p : pieces) {
                host.execute(p.reduceScatter(), deadlineNanos);
                Future<?> crossing = acrossThread.submit(() -> p.acrossHosts(deadlineNanos));
                if (previous != null) {
                    finish(previous);
                    host.execute(waiting.allGather(), deadlineNanos);
                }
                previous = crossing;
                waiting = p;
            }
            if (previous != null) {
                finish(previous);
                host.execute(waiting.allGather(), deadlineNanos);
                previous = null;
            }
        } catch (RuntimeException | Error e) {
            if (previous != null) {
                across.interrupt(e); // its wait ends now: nothing of this call may run on after it returns
                finishQuietly(previous);
            }
            throw e;
        }
        long tail = call.count() - sharded;
        if (tail > 0) {
            Buffer rest = call.recv().slice(sharded, tail);
            host.execute(new Call(Operation.ALL_REDUCE, call.send().slice(sharded, tail), rest, tail, call.type(),
                    call.reduceOp(), -1, hostSequence++, call.inPlace()), deadlineNanos);
            across.execute(new Call(Operation.ALL_REDUCE, rest, rest, tail, call.type(), call.reduceOp(), -1,
                    acrossSequence++, true), deadlineNanos);
        }
    }

    /**
     * Pieces of at most this many bytes unless JCOLL_TIERS_PIECE says otherwise: small enough that the steps within
     * hosts hide behind the links, large enough that each piece's calls cost little beside its bytes.
     */
    static final long DEFAULT_PIECE_BYTES = 2L << 20;

    /** One piece of an AllReduce: {@code count} elements (a multiple of the host's ranks) from element {@code at}. */
    private final class Piece {
        private final Call call;
        private final long at;
        private final long shard;
        private final Buffer mine;

        Piece(Call call, long at, long count) {
            this.call = call;
            this.at = at;
            this.shard = count / ranksPerHost;
            this.mine = call.recv().slice(at + indexOnHost * shard, shard);
        }

        /** NCCL's in-place layout: the output is the rank's own shard of the input. */
        Call reduceScatter() {
            return new Call(Operation.REDUCE_SCATTER, call.send().slice(at, shard * ranksPerHost), mine, shard,
                    call.type(), call.reduceOp(), -1, hostSequence++, call.inPlace());
        }

        void acrossHosts(long deadlineNanos) {
            across.execute(new Call(Operation.ALL_REDUCE, mine, mine, shard, call.type(), call.reduceOp(), -1,
                    acrossSequence++, true), deadlineNanos);
        }

        /** NCCL's in-place layout: the input is the rank's own shard of the output. */
        Call allGather() {
            return new Call(Operation.ALL_GATHER, mine, call.recv().slice(at, shard * ranksPerHost), shard,
                    call.type(), null, -1, hostSequence++, true);
        }
    }

    /** Waits for a piece's crossing; its failure is this call's, as the across tier threw it. */
    private static void finish(Future<?> crossing) {
        try {
            crossing.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcollException("allReduce", JcollException.NONE, JcollException.NONE,
                    "interrupted while the hosts' links carried a piece", e);
        }
    }

    private static void finishQuietly(Future<?> crossing) {
        try {
            crossing.get();
        } catch (ExecutionException e) {
            // the failure being thrown already stands for it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public NetworkReport network() {
        return network;
    }

    @Override
    public boolean checksSignatures() {
        return all.checksSignatures() && host.checksSignatures() && across.checksSignatures();
    }

    @Override
    public boolean detectsDeadPeers() {
        return all.detectsDeadPeers() && host.detectsDeadPeers() && across.detectsDeadPeers();
    }

    /** A sub-communicator runs over TCP among its members (its own rings, in host order). */
    @Override
    public Transport split(SplitRequest request) {
        return all.split(request);
    }

    @Override
    public void interrupt(Throwable cause) {
        all.interrupt(cause);
        host.interrupt(cause);
        across.interrupt(cause);
    }

    @Override
    public void abort(Throwable cause) {
        acrossThread.shutdown();
        all.abort(cause);
        host.abort(cause);
        across.abort(cause);
    }

    @Override
    public void close() {
        acrossThread.shutdown();
        host.close();
        across.close();
        all.close();
    }

    @Override
    public String toString() {
        return "two tiers, host " + hostIndex + " rank " + indexOnHost + " of " + ranksPerHost;
    }
}
