package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;

import java.util.concurrent.Future;

/**
 * AllReduce in two tiers: a reduce-scatter within the host (each of its {@code k} ranks then holds its host's sum
 * of one shard of {@code count / k}), an all-reduce of that shard across the hosts, and an all-gather within the
 * host. Each host's link carries {@code 2(h-1)/h} of the message, as in TCP's own two-level AllReduce, while the
 * steps within a host cost a copy in and a copy out instead of loopback TCP's trips through the kernel.
 *
 * <p>The message goes in pieces, pipelined: while the hosts' links carry piece {@code p}'s shards (on the across
 * thread), the calling thread reduce-scatters piece {@code p + 1} and all-gathers piece {@code p - 1} in shared
 * memory. Each tier sees its calls in one order on every rank (host: RS 0, RS 1, AG 0, RS 2, AG 1, ...; across:
 * AR 0, AR 1, ...). The last {@code count % k} elements, too few to shard, go through both tiers whole.
 */
final class TieredAllReduce {

    private TieredAllReduce() {
    }

    static void run(Tiers tiers, Call call, long deadlineNanos) {
        int k = tiers.ranksPerHost;
        long piece = Math.max(k, tiers.pieceBytes / call.type().size() / k * k);
        long sharded = call.count() / k * k;
        Future<?> crossing = null; // the piece waiting to be all-gathered, on the links
        Future<?> next = null;     // the piece after it
        Piece waiting = null;
        try {
            for (long at = 0; at < sharded; at += piece) {
                Piece p = new Piece(tiers, call, at, Math.min(piece, sharded - at));
                p.reduceScatter(deadlineNanos);
                next = tiers.later(() -> p.acrossHosts(deadlineNanos));
                if (crossing != null) {
                    Tiers.finish(crossing);
                    waiting.allGather(deadlineNanos);
                }
                crossing = next;
                next = null;
                waiting = p;
            }
            if (crossing != null) {
                Tiers.finish(crossing);
                crossing = null;
                waiting.allGather(deadlineNanos);
            }
        } catch (RuntimeException | Error e) {
            tiers.abandon(e, crossing, next);
            throw e;
        }
        long tail = call.count() - sharded;
        if (tail > 0) {
            Buffer rest = call.recv().slice(sharded, tail);
            tiers.onHost(Operation.ALL_REDUCE, call.send().slice(sharded, tail), rest, tail, call.type(),
                    call.reduceOp(), call.inPlace(), deadlineNanos);
            tiers.acrossHosts(Operation.ALL_REDUCE, rest, rest, tail, call.type(), call.reduceOp(), true,
                    deadlineNanos);
        }
    }

    /** One piece: {@code count} elements (a multiple of the host's ranks) from element {@code at}. */
    private record Piece(Tiers tiers, Call call, long at, long shard, Buffer mine) {

        Piece(Tiers tiers, Call call, long at, long count) {
            this(tiers, call, at, count / tiers.ranksPerHost,
                    call.recv().slice(at + tiers.indexOnHost * (count / tiers.ranksPerHost), count / tiers.ranksPerHost));
        }

        /** NCCL's in-place layout: the output is the rank's own shard of the input. */
        void reduceScatter(long deadlineNanos) {
            tiers.onHost(Operation.REDUCE_SCATTER, call.send().slice(at, shard * tiers.ranksPerHost), mine, shard,
                    call.type(), call.reduceOp(), call.inPlace(), deadlineNanos);
        }

        void acrossHosts(long deadlineNanos) {
            tiers.acrossHosts(Operation.ALL_REDUCE, mine, mine, shard, call.type(), call.reduceOp(), true,
                    deadlineNanos);
        }

        /** NCCL's in-place layout: the input is the rank's own shard of the output. */
        void allGather(long deadlineNanos) {
            tiers.onHost(Operation.ALL_GATHER, mine, call.recv().slice(at, shard * tiers.ranksPerHost), shard,
                    call.type(), null, true, deadlineNanos);
        }
    }
}
