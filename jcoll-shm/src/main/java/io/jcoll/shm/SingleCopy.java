package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.HostBuffer;
import io.jcoll.probe.Limits;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Settings;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;

/**
 * Large all-to-alls, gathers and (two ranks) broadcasts and all-reduces with one copy a byte: each rank reads
 * what it receives straight out of the sending rank's buffer ({@link PeerMemory}) instead of the sender copying it
 * into its slot and the receiver out again. Two phases a call (an all-reduce has a third: {@link #allReduce}):
 * every rank publishes where its input is (an all-reduce's rank its output too) and waits for all; if every
 * address the call reads is there, each rank reads its blocks and the ranks wait for each other again before any
 * returns (a sender's buffer must stay as it is until every reader is done); otherwise every rank, having seen the
 * same addresses, takes the slots, a rooted call after the second phase (its root could finish in the slots
 * before a receiver has read the words, and publish its next call's over them). A rank publishes 0 where its input
 * cannot be read (a heap buffer, an array, GPU memory) or should not be (a large broadcast's root in place), and
 * whether its call is in place: that is the rank's own business, so it is settled through the published words,
 * which every rank sees alike, and never by a rank alone. An all-to-all in which any rank is in place goes in
 * chunks, a phase each, so that no block is overwritten before its reader is done ({@link #exchange}). Two calls
 * also write, within what each receiver granted for the call in its own memory ({@link WriteGrant}): the root of a
 * broadcast writes part of the message into each receiver's output while the receivers read the rest (in place,
 * where it has nothing of its own to copy, half at two ranks; out of place what {@link ShareBalancer} finds;
 * {@link #broadcast}), and where two ranks copy alone, each rank of a large gather writes its block into its peer's
 * output instead of the peer reading it ({@link #writeBlocks}).
 *
 * <p>A buffer from {@link io.jcoll.SharedMemory} is published with the allocation it lies in, and its peers read it
 * through their own mappings of it ({@link PeerRegions}: a plain copy, where {@code process_vm_readv} pins every
 * page it crosses), an all-reduce's peers reducing straight out of them; all-reduces whose buffers are all such
 * allocations, and reduce-scatters whose inputs are ({@link #reduceScatter}), read their peers from
 * {@link #MAPPED_REDUCE_MIN_BYTES} where every rank copies alone. How a rank reads is its own business: the phases
 * are the same either way.
 *
 * <p>Where it pays, measured against the slots (benchmarks/RESULTS.md): an all-to-all from 512 KB
 * (JCOLL_SHM_SINGLE_COPY_MIN) took 0.36-0.52x the time at 8 ranks on 32 cores and 0.26-0.95x at 4 and 8 on 16,
 * most points of 1-64 MB; an all-gather, where the ranks' copies are shared by crews, 0.78-0.95x at 64 MB but up to
 * 1.9x below 4 MB, and either way at 16 MB (JCOLL_SHM_SINGLE_COPY_GATHER_MIN, default 32 MB). Two ranks that each
 * copy alone (no crews: a host of a few cores) are another matter: on two CPUs an all-gather took 0.26-0.76x the
 * slots' time at 128 KB-32 MB, an out-of-place broadcast 0.41-0.62x and an all-to-all 0.57-0.70x at 128-512 KB,
 * so there all three read their peers from the first sizes above the boxes ({@link #ALONE_MIN_BYTES},
 * {@link #ALONE_BROADCAST_MIN_BYTES}), rank 0 picking from 128 KB ({@link #ALONE_PICK_MIN_BYTES}). Not otherwise
 * for broadcast and scatter: receivers reading the one root's memory with crews contend for its page tables (up
 * to 3.8x the slots' time at 8 ranks; at 2, one receiver's crew of 4 took 1.47-1.60x at 256 KB-1 MB and 0.83-0.99x
 * from 4 MB, on 16 cores). Nor for reductions where ranks have crews: what a rank reads must still be combined with
 * its own, the second pass the slots make anyway. Where every rank copies alone, two or more, an all-reduce reads
 * too, from {@link #ALONE_REDUCE_MIN_BYTES} to {@link #ALONE_REDUCE_MAX_BYTES} ({@link #allReduce}). An in-place
 * broadcast's root is read where two ranks copy alone: timed block by block beside Open MPI in the same processes
 * on the 2-vCPU VM, it took 1.01-1.11x Open MPI's time at 128 KB-2 MB in three runs, the slots 0.92-5.17x (5x in
 * the host's slow state, where each slot crosses the CPUs right after it is written); above, the slots keep both
 * ranks copying and took 0.62-0.65x Open MPI's time at 8-32 MB in the host's fast state (benchmarks/RESULTS.md,
 * 2026-11-28) but 2.03-3.21x at 8 MB and 1.28-1.77x at 32 MB in its slow state, where reading took 0.96-1.23x and
 * 1.05-1.19x (2026-12-02). So where rank 0 picks ({@link PathChooser}) the root is offered at every size and the pick
 * decides; where it does not (the sizes given, or JCOLL_SHM_SINGLE_COPY=sized), up to
 * {@link #ALONE_IN_PLACE_ROOT_MAX_BYTES}. On two CPUs of a Xeon the read root was faster than the slots at
 * 128-512 KB too and slower at 2 MB (1.06-1.13x Open MPI's time against 0.93-0.96x), and with rank 0 picking at
 * every size level with the sizes alone (0.95x and 1.04x against 0.99x and 1.12x at 8 and 32 MB).
 *
 * <p>Where this path runs (JCOLL_SHM_SINGLE_COPY=auto, the default), the sizes above say, but for two ranks that copy
 * alone on buffers not shared, where they say where it may from 128 KB: whether it does is rank 0's pick, call by
 * call, by the recent times of this path and the slots on this host ({@link PathChooser}, {@link #picksFor}),
 * all-reduces and reduce-scatters from 128 KB included; below 128 KB it reads ({@link #ALONE_PICK_MIN_BYTES}).
 * Neither way is ahead in both of the 2-vCPU VM's states: the slots took
 * 0.56-0.88x Open MPI's time at every all-gather, all-to-all and broadcast of 128 KB-32 MB in one run and 1.13-3.58x
 * in the next, where this path took 0.94-1.17x at most points in both, at the floor of the kernel's copy; an
 * all-reduce out of place at 128 KB-2 MB through the slots 0.62-0.72x in the one state and 1.21-1.53x in the other,
 * reading the peer's whole input 1.00-1.31x and 0.76-1.06x; at 8 MB the slots 0.46-0.52x in the fast state where
 * reading took 0.94-0.97x (benchmarks/RESULTS.md, 2026-11-30); a reduce-scatter at 128 KB-2 MB through the slots
 * 0.67-0.71x, 0.34-0.37x and 0.36-0.38x in the fast state and 1.13-1.14x, 0.68-0.72x and 0.70-0.74x in the slow one,
 * reading 0.73x, 0.42x and 0.41x there. {@code timed}: rank 0 picks for every call this path covers, however many
 * ranks and crews; {@code sized}: the sizes alone decide; {@code off}: never.
 */
final class SingleCopy {

    static final long DEFAULT_MIN_BYTES = 512 << 10;
    static final long DEFAULT_GATHER_MIN_BYTES = 32 << 20;
    /**
     * All-to-alls and gathers from this size where two ranks each copy alone: the first above the boxes
     * ({@link Boxes#CAPACITY}). From 128 KB, rank 0 picks reading or the slots ({@link #ALONE_PICK_MIN_BYTES}).
     * All-to-All took 1.00, 1.11 and 0.99x Open MPI's time at 128 KB, 512 KB and 2 MB from 128 KB on the 2-vCPU VM,
     * against 1.18, 2.66 and 1.05x reading from 512 KB (benchmarks/RESULTS.md, 2026-11-28); on two CPUs of a Xeon
     * single copy took 0.70 and 0.57x the slots' time at 128 and 512 KB. Below 128 KB, on an Intel host of that VM
     * (2026-12-02), the slots took 1.2-2.4x Open MPI's time at all-gathers and all-to-alls of 16-64 KB, in place and
     * out, where Open MPI reads its peer, and reading took 0.75-1.00x by the medians of the rounds.
     */
    static final long ALONE_MIN_BYTES = 8 << 10;
    /**
     * Broadcasts from this size where two ranks each copy alone. On the Intel VM (2026-12-02) the slots took 1.4-3.1x
     * Open MPI's time at 16-64 KB, in place and out, and reading 0.9-1.2x; at 8 KB the slots were ahead, 0.9-1.0x
     * against 1.2x.
     */
    static final long ALONE_BROADCAST_MIN_BYTES = 16 << 10;
    /**
     * Where two ranks copy alone, rank 0 picks reading or the slots for calls from this size ({@link #picksFor}; the
     * message as {@link #covers} counts it), and below it they read. A small call takes a few microseconds, and the
     * host's noise moves its recent times by as much as the two ways differ: on the Intel VM (2026-12-02) rank 0
     * changed its way 218 times in one run of 16 KB all-gathers, and picking from 8 KB took 0.82-1.91x Open MPI's
     * time at the all-gathers and all-to-alls of 8-64 KB out of place, where reading every call took 0.88-0.97x in
     * the rounds that followed (medians of three rounds each).
     */
    static final long ALONE_PICK_MIN_BYTES = 128 << 10;
    /**
     * The smallest broadcast in place whose root writes a share of each receiver's output ({@link #writeShare}); out
     * of place, {@link ShareBalancer#MIN_BYTES}. A share costs the root two system calls (it reads the receiver's
     * grant, then writes). On the Intel VM (2026-12-02, two rounds each, every broadcast read from 8 KB with the sizes
     * alone deciding), writing half took 1.60, 1.33 and 1.13x Open MPI's time at 8, 16 and 32 KB against 1.17, 1.01
     * and 1.02x writing none, and 0.95x at 64 KB against 1.04x (benchmarks/results/dev-2026-12-02-small-read).
     */
    static final long IN_PLACE_ROOT_SHARE_MIN_BYTES = 64 << 10;
    /**
     * In-place all-to-alls ({@link #exchange}) from this size up to {@link #ALONE_IN_PLACE_MAX_BYTES} where two ranks
     * each copy alone and JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN is not given; the slots elsewhere. Timed block by block
     * beside Open MPI's in-place all-to-all on the 2-vCPU VM (3 alternated runs each, benchmarks/RESULTS.md,
     * 2026-11-28), the slots took 0.54-0.78x its time at 128-512 KB and single copy 0.91-1.01x; at 2-8 MB single copy
     * 0.59-0.97x and the slots 0.77-1.29x (1.10-1.16x at 2 MB in 5 of 6 runs, 1.24-1.29x at 4 MB); from 16 MB the
     * slots 0.36-0.56x and single copy 0.54-0.68x (in the one run that met the host's slow state, 1.21x at 8 MB and
     * 1.40-1.68x above). Past the
     * last-level cache the slots keep each rank's block on its own CPU (it reads and rewrites it itself) where readers
     * pull the lines their owner then rewrites. On two CPUs of a Xeon the slots were ahead at every size (0.47-0.59x
     * Open MPI's time against 0.60-0.79x at 2-32 MB): the window follows the VM, a host of two CPUs as this path meets
     * them.
     */
    static final long ALONE_IN_PLACE_MIN_BYTES = 2 << 20;
    /** The largest in-place all-to-all read by default where two ranks copy alone. */
    static final long ALONE_IN_PLACE_MAX_BYTES = 8 << 20;
    /**
     * In-place all-to-alls from this size where ranks have crews or there are more than two: none. On 16 cores (2
     * runs, 1-64 MB) the slots took 0.07-0.49x Open MPI's time at 2 and 4 ranks (crews of 4 and 3), single copy
     * 0.16-0.78x; at 8 ranks, which copy alone there, the slots 0.80-1.15x, single copy 0.83-1.23x.
     */
    static final long DEFAULT_IN_PLACE_MIN_BYTES = Long.MAX_VALUE;
    /**
     * All-reduces from this size (up to {@link #ALONE_REDUCE_MAX_BYTES}) where every rank copies alone (no crews) and
     * JCOLL_SHM_SINGLE_COPY_REDUCE_MIN is not given. On the 2-vCPU VM (JDK 25, six runs of 4-6 alternated rounds,
     * benchmarks/RESULTS.md, 2026-11-29) reading took 0.43-0.88x the slots' time by the medians of the rounds at 11 of
     * the 12 points of 8 and 32 MB (1.19x at the other), in place and out, and kept its time in every state of the host
     * (10.2-16.0 ms at 32 MB) where the slots' rounds took 7.9-27.3 ms; in the rounds the slots were fast they were
     * ahead (2.0 against 2.7-4.0 ms at 8 MB). At 128 KB-2 MB the runs disagreed, 0.31-3.93x: the slots stay there. On a
     * 16-core Xeon (3 alternated rounds a run) 2 ranks on two CPUs took 0.67-0.74x at 8 MB and 0.76-0.98x at 32 MB, in
     * place and out, and 0.79-1.56x at 128 KB-2 MB; 4 ranks on four CPUs 0.70-0.72x at 8 MB and 0.91x at 32 MB in two
     * runs (at 2 MB 0.78x in one, slower in both rounds of the other); 8 ranks on 16 cores 0.81x and 0.96x; and 4 ranks
     * on the VM's two CPUs, more ranks than cores, 0.78x at both (4 rounds; 1.16x at 2 MB). Ranks with crews share the
     * slots' copies among their threads where a rank reads its peers alone: 2.1-3.0x the slots' time at 2-32 MB with
     * crews of 4, so the slots stay there. Two ranks that copy alone read here only where rank 0 picks it
     * ({@link #picksFor}): in the VM's fast state of 2026-11-30 the slots took half its time at 8 MB.
     */
    static final long ALONE_REDUCE_MIN_BYTES = 8 << 20;
    /**
     * The largest all-reduce read by default where every rank copies alone (above it, the slots). The gain fades
     * with size on the 16-core Xeon: reading took 0.98-1.07x the slots' time at 16 MB (4 and 8 ranks, in place and
     * out), 0.98-1.17x at 64 MB and 1.03-1.05x at 128 MB (2, 4 and 8 ranks; benchmarks/RESULTS.md, 2026-11-29),
     * where at 32 MB it had taken 0.76-0.98x. The VM's figure ends at 32 MB.
     */
    static final long ALONE_REDUCE_MAX_BYTES = 32 << 20;
    /**
     * All-reduces from this size, outside {@link #ALONE_REDUCE_MIN_BYTES}-{@link #ALONE_REDUCE_MAX_BYTES}, and
     * reduce-scatters (the whole input) where every rank copies alone and every input and output of the call (a
     * reduce-scatter's inputs) lies in a shared allocation ({@link io.jcoll.SharedMemory}): a rank reduces its slice
     * straight out of its peers' mappings, with no copy into its own memory first, where the kernel's copy made reading
     * lose to the slots below 8 MB. On the 2-vCPU VM, 2 ranks, the all-reduce took 0.27-0.64x Open MPI's time at
     * 128 KB-32 MB ({@link #allReduceWhole} to 8 MB) and the reduce-scatter 0.11-0.31x, in both of the host's states
     * (medians of three rounds, benchmarks/RESULTS.md, 2026-11-30). Whether the buffers are shared
     * is each rank's own business: settled through the published words after the call's first phase, so a call of
     * these sizes whose buffers are not pays that phase before it takes the slots, but where two ranks copy alone
     * and rank 0 picks reading them ({@link #picksFor}).
     */
    static final long MAPPED_REDUCE_MIN_BYTES = 128 << 10;
    /**
     * The largest all-reduce of two ranks that copy alone, out of place and with both inputs in shared allocations,
     * that each rank reduces whole ({@link #allReduceWhole}); above it, and for any other, a slice each
     * ({@link #allReduce}). On the 2-vCPU VM in the host's slow state (three alternated rounds, benchmarks/RESULTS.md,
     * 2026-11-30) whole took 0.30-0.43x Open MPI's time at 128 KB-2 MB and 0.72-0.84x at 8 MB, a slice each
     * 0.74-0.85x; at 32 MB a slice each was ahead (0.28-0.30x against 0.37-0.39x). On ordinary buffers, read with
     * process_vm_readv, whole took 0.76-1.06x at 128 KB-2 MB where the slots took 1.21-1.53x, but 1.00-1.31x in the
     * host's fast state, where the slots took 0.62-0.72x: there rank 0 picks whole or the slots call by call
     * ({@link #picksFor}).
     */
    static final long WHOLE_READ_MAX_BYTES = 8 << 20;
    /**
     * The largest in-place broadcast whose root is read where two ranks copy alone and rank 0 does not pick (above
     * it, the slots); where it picks, any size is offered.
     */
    static final long ALONE_IN_PLACE_ROOT_MAX_BYTES = 2 << 20;
    /**
     * Slots' worth of the ranks' agreed slot size that an in-place all-to-all's chunk of every peer's block takes in
     * a rank's scratch ({@link #exchange}): bounded whatever the message, and agreed without another word.
     */
    static final int EXCHANGE_SLOTS = 4;
    /** For {@link #sourceAddress}: no in-place root is read. */
    static final long NO_IN_PLACE_ROOT = -1;
    /** A size setting not given: the default applies. */
    private static final long UNSET = -1;
    /**
     * Where two ranks copy alone, the smallest all-gather (its whole output) whose ranks write their inputs into their
     * peers' outputs ({@link #writeBlocks}) where smaller ones read their peers': the first whose inputs and outputs,
     * three times the message, fill a last-level cache of {@code cacheBytes} (rank 0's, {@link LastLevelCache});
     * none where the cache is unknown (0). A writing rank reads its input from memory once, for its own output and its
     * peer's, where reading has it read twice (by itself and by its peer), and that pays only past the cache. On the
     * 2-vCPU VM (32 MB: from 10.7 MB), by the medians of 4 alternated rounds beside Open MPI with the sizes alone
     * deciding (benchmarks/RESULTS.md, 2026-12-03), writing took 0.98x and 0.92x Open MPI's time at 16 and 32 MB
     * where reading took 1.01x and 1.02x; written from 512 KB, 1.07x at 2 MB where reading took 1.00x, and level at
     * 128 KB-8 MB. In C, 0.92-0.96x against 1.00-1.04x at 32 MB in six rounds. On two CPUs of the GPU host's Xeon
     * (300 MB), written from 16 MB, 0.68-0.86x at 16-64 MB where reading took 0.58-0.66x: all of it in the cache. An
     * all-to-all reads each input once either way, and writing lost there in C.
     */
    static long allGatherWriteMinBytes(long cacheBytes) {
        return cacheBytes > 0 ? (cacheBytes + 2) / 3 : Long.MAX_VALUE;
    }
    /**
     * Gathers to a root of this size and more (the root's output) where two ranks copy alone: the sender writes its
     * block into the root's output while the root copies its own, where reading had the root make both copies one
     * after the other ({@link #writeBlocks}). On the 2-vCPU VM ({@code jcoll perf gather}, four alternated rounds,
     * benchmarks/RESULTS.md, 2026-12-03) that took 0.73x, 0.80x, 0.70x and 0.88x the time at 512 KB, 2, 8 and 32 MB out
     * of place by the medians of the rounds; in place, where the root has nothing of its own to copy, 0.86-0.97x.
     */
    static final long ALONE_GATHER_WRITE_MIN_BYTES = 512 << 10;
    /**
     * Bytes a writing gather's rank copies into its own output and then writes into its peers' at a time
     * ({@link #writeBlocks}): within a core's own cache (1 MB on the VM's), so that the write reads what the copy has
     * just brought in. One write is a system call, a few microseconds against a chunk's 20-40.
     */
    private static final int WRITE_CHUNK_BYTES = 256 << 10;
    /** Bytes a crew member reads in one go from memory it can view: a read is one system call. */
    private static final int VIEW_CHUNK_BYTES = 4 << 20;
    /** Bytes of each peer's input an all-reduce reads at a time, to reduce while they are in this core's cache. */
    private static final int REDUCE_CHUNK_BYTES = 128 << 10;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Control control;
    private final PeerMemory memory; // null: off
    private final int size;
    private final Sizes sizes;
    private final String offBecause;
    private final String tracerSays; // what Yama asked of this rank and what it did (Tracer); null: nothing
    private final long inPlaceRootMaxBytes; // the largest in-place broadcast whose root is read; NO_IN_PLACE_ROOT
    private final long exchangeBytes;       // an in-place all-to-all's chunk of every peer's block, at most
    private final PathChooser chooser;      // rank 0's, where it picks single copy or the slots for some calls
    private final boolean picksEveryCall;   // JCOLL_SHM_SINGLE_COPY=timed: for every call this path covers
    private final boolean picksOrdinary;    // by default where two ranks copy alone: calls of buffers not shared
    private final long mappedReduceMinBytes; // all-reduces whose buffers are all shared allocations, from here
    private final long wholeReadMaxBytes;   // two-rank all-reduces of shared inputs reduced whole, up to here; or -1
    private final boolean gathersWrite;     // two ranks copy alone: large gathers write their peers (writesGather)
    private final long cacheBytes;          // rank 0's last-level cache (LastLevelCache); 0: unknown
    private final OwnRegions.Found[][] callRegions; // by slot, by rank: the current call's shared allocations, or null
    private final WriteGrant grant;          // what this rank's current call lets its peers write (its canary first)
    private final ShareBalancer balancer;   // how much of its out-of-place broadcasts this rank writes as root
    private long calls;                     // this rank's calls of this path so far: the same count on every rank
    private long rootCopyNanos = -1;        // how long this rank, root of an out-of-place broadcast whose receivers
                                            // it may write, copied in the current call; -1: no such call
    private ByteBuffer scratch;             // this rank's own memory: an in-place all-to-all's chunk, or the
                                            // chunk of every peer's input an all-reduce reads to reduce

    private SingleCopy(Control control, PeerMemory memory, int size, Sizes sizes, long inPlaceRootMaxBytes,
                       long exchangeBytes, String offBecause, String tracerSays, PathChooser chooser,
                       boolean picksEveryCall, boolean picksOrdinary, long mappedReduceMinBytes,
                       long wholeReadMaxBytes, boolean gathersWrite, long cacheBytes, WriteGrant grant) {
        this.control = control;
        this.memory = memory;
        this.size = size;
        this.sizes = sizes;
        this.inPlaceRootMaxBytes = inPlaceRootMaxBytes;
        this.exchangeBytes = exchangeBytes;
        this.offBecause = offBecause;
        this.tracerSays = tracerSays;
        this.chooser = chooser;
        this.picksEveryCall = picksEveryCall;
        this.picksOrdinary = picksOrdinary;
        this.mappedReduceMinBytes = mappedReduceMinBytes;
        this.wholeReadMaxBytes = wholeReadMaxBytes;
        this.gathersWrite = gathersWrite;
        this.cacheBytes = cacheBytes;
        this.callRegions = new OwnRegions.Found[2][size];
        this.grant = grant;
        this.balancer = new ShareBalancer(size);
    }

    /**
     * From which sizes each op reads its peers (the whole output: the root's for a gather, every rank's for a
     * broadcast; an all-to-all in which any rank is in place from the larger of its two minimums up to
     * {@code inPlaceMaxBytes}; an all-reduce's message up to {@code reduceMaxBytes}): {@link Long#MAX_VALUE} for
     * none, {@link #UNSET} in an offer for the default.
     */
    record Sizes(long minBytes, long gatherMinBytes, long broadcastMinBytes, long inPlaceMinBytes,
                 long inPlaceMaxBytes, long reduceMinBytes, long reduceMaxBytes) {
        static final Sizes NEVER = new Sizes(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
                Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);

        /** As given: every size a setting or {@link #UNSET}; the two maximums have no setting. */
        static Sizes given(long minBytes, long gatherMinBytes, long broadcastMinBytes, long inPlaceMinBytes,
                           long reduceMinBytes) {
            return new Sizes(minBytes, gatherMinBytes, broadcastMinBytes, inPlaceMinBytes, UNSET, reduceMinBytes,
                    UNSET);
        }

        /**
         * These, each default filled in: where two ranks copy alone, every op that reads its peers from 128 KB and
         * in-place all-to-alls at 2-8 MB; where every rank copies alone, however many, all-reduces at 8-32 MB, and
         * elsewhere none. A size given has no end. {@code alone}: whether each of the {@code size} ranks copies alone.
         */
        Sizes withDefaults(int size, boolean alone) {
            boolean twoAlone = size == 2 && alone;
            boolean allAlone = size > 1 && alone;
            boolean window = twoAlone && inPlaceMinBytes == UNSET;
            boolean reduceWindow = allAlone && reduceMinBytes == UNSET;
            return new Sizes(or(minBytes, twoAlone ? ALONE_MIN_BYTES : DEFAULT_MIN_BYTES),
                    or(gatherMinBytes, twoAlone ? ALONE_MIN_BYTES : DEFAULT_GATHER_MIN_BYTES),
                    or(broadcastMinBytes, twoAlone ? ALONE_BROADCAST_MIN_BYTES : Long.MAX_VALUE),
                    or(inPlaceMinBytes, twoAlone ? ALONE_IN_PLACE_MIN_BYTES : DEFAULT_IN_PLACE_MIN_BYTES),
                    window ? ALONE_IN_PLACE_MAX_BYTES : Long.MAX_VALUE,
                    or(reduceMinBytes, allAlone ? ALONE_REDUCE_MIN_BYTES : Long.MAX_VALUE),
                    reduceWindow ? ALONE_REDUCE_MAX_BYTES : Long.MAX_VALUE);
        }

        private static long or(long given, long fallback) {
            return given == UNSET ? fallback : given;
        }
    }

    /**
     * What a rank brings to the agreement, made before it claims its block in the segment: its settings
     * (JCOLL_SHM_SINGLE_COPY, JCOLL_SHM_SINGLE_COPY_MIN, _GATHER_MIN, _BROADCAST_MIN, _IN_PLACE_MIN, _REDUCE_MIN,
     * JCOLL_SHM_TRACER), the threads of its crew ({@code crew}, itself included), the last-level cache it finds
     * ({@link LastLevelCache}, JCOLL_SHM_CACHE), and a canary, a word of its memory whose address and random value it
     * publishes for its peers to read: the first word of its {@link WriteGrant}.
     */
    static Offer offer(Settings settings, Control control, int rank, int crew) {
        String mode = settings.get("JCOLL_SHM_SINGLE_COPY").orElse("auto");
        Picking picking = switch (mode) {
            case "auto" -> Picking.TWO_ALONE;
            case "timed" -> Picking.EVERY_CALL;
            case "sized", "off" -> Picking.NONE;
            default -> throw new IllegalArgumentException(
                    "JCOLL_SHM_SINGLE_COPY must be auto, timed, sized or off (was " + mode + ")");
        };
        Sizes given = Sizes.given(size(settings, "JCOLL_SHM_SINGLE_COPY_MIN"),
                size(settings, "JCOLL_SHM_SINGLE_COPY_GATHER_MIN"),
                size(settings, "JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN"),
                size(settings, "JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN"),
                size(settings, "JCOLL_SHM_SINGLE_COPY_REDUCE_MIN"));
        WriteGrant grant = new WriteGrant(RANDOM.nextLong());
        Tracer.Mode tracer = Tracer.mode(settings);
        boolean on = !mode.equals("off");
        // off: not even bound (binding a native call makes the JVM warn without --enable-native-access)
        control.publishCanary(rank, on ? grant.address() : 0, grant.canary());
        return new Offer(rank, on, picking, given, tracer, crew, grant, LastLevelCache.bytes(settings));
    }

    /** Where rank 0 picks single copy or the slots call by call ({@link PathChooser}), by JCOLL_SHM_SINGLE_COPY. */
    enum Picking {
        /** {@code sized}: nowhere, the sizes decide. */
        NONE,
        /**
         * {@code auto}: where two ranks copy alone and no single-copy size was given, for every call of buffers
         * not shared that this path covers and the slots can take ({@link SingleCopy#picksFor}).
         */
        TWO_ALONE,
        /** {@code timed}: every call this path covers. */
        EVERY_CALL
    }

    private static long size(Settings settings, String name) {
        long bytes = settings.getBytes(name, UNSET);
        if (bytes < 0 && bytes != UNSET) {
            throw new IllegalArgumentException(name + " must be a size of 0 or more (was " + bytes + ")");
        }
        return bytes;
    }

    /**
     * A rank's settings (sizes as given, {@link #UNSET} where not; whom it lets read its memory where Yama asks),
     * the threads that share its copies, its grant, whose canary every peer reads, and its last-level cache (rank
     * 0's counts for all).
     */
    record Offer(int rank, boolean on, Picking picking, Sizes sizes, Tracer.Mode tracer, int crew,
                 WriteGrant grant, long cacheBytes) {

        /**
         * Once every rank has claimed its block (its pid and canary are there): where its peers are other
         * processes, lets them read its memory where Yama would not ({@link Tracer}) and waits for every rank to
         * have done so; then reads every peer's canary (where on), publishes whether it could, its settings, crew
         * and cache, waits for all, and is on only where every rank could and all were given the same sizes. The
         * defaults then follow from what every rank sees alike: whether every rank copies alone, whether two do, and
         * rank 0's cache. Two phases of the ranks' counters.
         */
        SingleCopy agree(Control control, Slots slots, Waiter waiter, int size) {
            String[] why = {on ? null : "JCOLL_SHM_SINGLE_COPY=off"};
            String tracerSays = null;
            if (on && ProcessVm.unavailableReason() == null && inSeveralProcesses(control, size)) {
                tracerSays = Tracer.letSiblingsRead(tracer);
            }
            slots.publish();
            waiter.awaitAll(2); // no rank reads a peer before the peer has let it
            PeerMemory memory = null;
            if (on) {
                long[] pids = new long[size];
                long[] addresses = new long[size];
                long[] values = new long[size];
                for (int r = 0; r < size; r++) {
                    pids[r] = control.pid(r);
                    addresses[r] = control.canaryAddress(r);
                    values[r] = control.canaryValue(r);
                }
                memory = PeerMemory.probe(rank, pids, addresses, values, why);
            }
            control.publishSingleCopy(rank, memory != null, sizes, crew, cacheBytes);
            slots.publish();
            waiter.awaitAll(3); // every peer has read this rank's canary
            boolean alone = true;
            for (int r = 0; r < size && why[0] == null; r++) {
                alone &= control.crew(r) == 1;
                if (!control.readsPeers(r)) {
                    why[0] = "rank " + r + " may not read its peers' memory";
                } else {
                    Sizes theirs = control.singleCopySizes(r);
                    if (!theirs.equals(sizes)) {
                        why[0] = "rank " + r + " was given single copy for " + describe(theirs, 0) + " where rank "
                                + rank + " was given " + describe(sizes, 0)
                                + ": the ranks must take it for the same calls; "
                                + "set JCOLL_SHM_SINGLE_COPY_MIN, _GATHER_MIN, _BROADCAST_MIN, _IN_PLACE_MIN and "
                                + "_REDUCE_MIN alike";
                    }
                }
            }
            if (why[0] != null && tracerSays != null) {
                why[0] += "; " + tracerSays; // what Yama asked: most likely why a rank could not read its peers
            }
            if (why[0] != null) {
                return new SingleCopy(control, null, size, Sizes.NEVER, NO_IN_PLACE_ROOT, 0, why[0], null, null,
                        false, false, Long.MAX_VALUE, -1, false, 0, grant);
            }
            boolean twoAlone = size == 2 && alone;
            // rank 0 picks for all (PathChooser): its setting is the one that counts. By default only where two
            // ranks copy alone, and not where the sizes at which they read were given.
            boolean picksEveryCall = picking == Picking.EVERY_CALL;
            boolean picksOrdinary = picking == Picking.TWO_ALONE && twoAlone && sizes.equals(Sizes.given(UNSET,
                    UNSET, UNSET, UNSET, UNSET));
            boolean rankZeroPicks = picksEveryCall || picksOrdinary;
            PathChooser chooser = rank == 0 && rankZeroPicks ? new PathChooser() : null;
            // where rank 0 picks, an in-place root offers its input at every size and the pick decides
            long inPlaceRootMax = !twoAlone ? NO_IN_PLACE_ROOT
                    : rankZeroPicks ? Long.MAX_VALUE : ALONE_IN_PLACE_ROOT_MAX_BYTES;
            return new SingleCopy(control, memory, size, sizes.withDefaults(size, alone), inPlaceRootMax,
                    (long) EXCHANGE_SLOTS * slots.slotBytes(), null, tracerSays, chooser, picksEveryCall,
                    picksOrdinary,
                    size > 1 && alone ? MAPPED_REDUCE_MIN_BYTES : Long.MAX_VALUE,
                    twoAlone ? WHOLE_READ_MAX_BYTES : -1, twoAlone, control.cacheBytes(0), grant);
        }

        /** Whether the ranks are not all threads of one process: seen alike by every rank. */
        private static boolean inSeveralProcesses(Control control, int size) {
            for (int r = 1; r < size; r++) {
                if (control.pid(r) != control.pid(0)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** For the network report: on from which sizes, or off and why. */
    String describe() {
        return memory == null ? "single copy off (" + offBecause + ")"
                : "single copy (each rank reads its peers' buffers with process_vm_readv) for "
                + describe(sizes, exchangeBytes)
                + (inPlaceRootMaxBytes == NO_IN_PLACE_ROOT ? ""
                        : inPlaceRootMaxBytes == Long.MAX_VALUE ? ", in-place broadcasts' roots too"
                        : ", in-place broadcasts' roots too up to " + Limits.describe(inPlaceRootMaxBytes))
                + "; buffers from io.jcoll.SharedMemory read through mappings instead"
                + (mappedReduceMinBytes == Long.MAX_VALUE ? ""
                        : ", and all-reduces and reduce-scatters from " + Limits.describe(mappedReduceMinBytes)
                        + " where all are")
                + (wholeReadMaxBytes < 0 ? ""
                        : "; two-rank all-reduces out of place from " + Limits.describe(mappedReduceMinBytes)
                        + " to " + Limits.describe(wholeReadMaxBytes) + " read the whole of the peer's input where "
                        + "it is shared")
                + (!gathersWrite ? ""
                        : "; gathers to a root from " + Limits.describe(ALONE_GATHER_WRITE_MIN_BYTES)
                        + (cacheBytes == 0 ? ""
                        : " and all-gathers from " + Limits.describe(allGatherWriteMinBytes(cacheBytes))
                        + " (past a last-level cache of " + Limits.describe(cacheBytes) + ")")
                        + " write their peers' outputs with process_vm_writev instead")
                + (!picksOrdinary ? ""
                        : "; where buffers are not shared rank 0 picks, call by call by their recent times, "
                        + "reading or the slots for those calls from " + Limits.describe(ALONE_PICK_MIN_BYTES)
                        + ", for reduce-scatters from "
                        + Limits.describe(mappedReduceMinBytes) + " and for all-reduces from "
                        + Limits.describe(mappedReduceMinBytes) + " (in place from "
                        + Limits.describe(sizes.reduceMinBytes()) + ") to " + Limits.describe(sizes.reduceMaxBytes())
                        + " (JCOLL_SHM_SINGLE_COPY=auto)")
                + (chooser == null || !picksEveryCall ? ""
                        : "; picked call by call against the slots by their recent times (JCOLL_SHM_SINGLE_COPY=timed)")
                + (tracerSays == null ? "" : "; " + tracerSays);
    }

    /** {@code scratchBytes}: an in-place all-to-all's scratch, said where there is one (0: not said). */
    private static String describe(Sizes sizes, long scratchBytes) {
        long inPlace = sizes.inPlaceMinBytes();
        String allToAllsInPlace = sizes.minBytes() == Long.MAX_VALUE ? ""
                : inPlace == Long.MAX_VALUE ? " (not in place)"
                : inPlace == UNSET ? " (in place by default)"
                : " (in place from " + Limits.describe(Math.max(inPlace, sizes.minBytes()))
                + upTo(sizes.inPlaceMaxBytes())
                + (scratchBytes > 0 ? ", through at most " + Limits.describe(scratchBytes) + " of scratch)" : ")");
        return from("all-to-alls", sizes.minBytes()) + allToAllsInPlace + ", " + from("gathers", sizes.gatherMinBytes())
                + ", " + from("out-of-place broadcasts", sizes.broadcastMinBytes()) + " and "
                + from("all-reduces", sizes.reduceMinBytes()) + upTo(sizes.reduceMaxBytes());
    }

    private static String upTo(long maxBytes) {
        return maxBytes == Long.MAX_VALUE || maxBytes == UNSET ? "" : " to " + Limits.describe(maxBytes);
    }

    private static String from(String calls, long bytes) {
        return bytes == Long.MAX_VALUE ? "no " + calls
                : calls + (bytes == UNSET ? " by default" : " from " + Limits.describe(bytes));
    }

    /** Whether {@code call} is one this path takes (the same answer on every rank: it depends on the signature only). */
    boolean covers(Call call) {
        if (memory == null || call.count() == 0) {
            return false;
        }
        long bytes = sizedBytes(call);
        return switch (call.operation()) {
            // in place (a rank's own business) is settled by the published words, in run()
            case ALL_TO_ALL -> bytes >= sizes.minBytes();
            case ALL_GATHER, GATHER -> bytes >= sizes.gatherMinBytes();
            case BROADCAST -> bytes >= sizes.broadcastMinBytes();
            case ALL_REDUCE -> bytes >= sizes.reduceMinBytes() && bytes <= sizes.reduceMaxBytes()
                    || bytes >= mappedReduceMinBytes; // and its buffers shared: settled in run()
            case REDUCE_SCATTER -> bytes >= mappedReduceMinBytes; // only its inputs shared: run()
            default -> false;
        };
    }

    /**
     * A call's bytes as this path's sizes count them: the whole output of an all-to-all or gather and the whole input
     * of a reduce-scatter (a block each rank), the message of a broadcast or all-reduce.
     */
    private long sizedBytes(Call call) {
        long bytes = call.count() * call.type().size();
        return switch (call.operation()) {
            case ALL_TO_ALL, ALL_GATHER, GATHER, REDUCE_SCATTER -> bytes * size;
            default -> bytes;
        };
    }

    /**
     * Runs {@code call} with one copy a byte and returns true, or returns false for the slots to run it: where a
     * rank's input cannot be read, or rank 0 picked the slots ({@link PathChooser}).
     */
    boolean run(Slots s, Call call) {
        long source = address(call.send());
        OwnRegions.Found sourceRegion = OwnRegions.find(source, 1);
        boolean picks = chooser != null && (picksEveryCall || picksFor(call, sourceRegion != null));
        long start = picks ? System.nanoTime() : 0;
        PathChooser.Pick pick = !picks ? PathChooser.Pick.NONE
                : chooser.slotsNext(call) ? PathChooser.Pick.SLOTS : PathChooser.Pick.READ;
        control.publishSource(s.rank(), readable(call, source, sourceRegion != null, inPlaceRootMaxBytes) ? source : 0,
                sourceRegion, call.inPlace(), pick);
        long number = ++calls;
        boolean reduction = call.operation() == Operation.ALL_REDUCE;
        boolean broadcast = call.operation() == Operation.BROADCAST;
        if (reduction) {
            long output = address(call.recv()); // where peers read its reduced slice
            control.publishOutput(s.rank(), output, OwnRegions.find(output, 1));
        } else if ((broadcast || writesGather(call)) && receives(call, s.rank())) {
            long output = address(call.recv()); // where its peers may write (a broadcast's root, its share)
            if (output != 0) {
                grant.grant(number, output, sizedBytes(call)); // its whole output
            }
            control.publishOutput(s.rank(), output, null);
        } else if (broadcast) {
            control.publishRootShare(s.rank(), plannedShareBytes(call));
        }
        s.publish();
        s.awaitAll();
        readRegions(reduction);
        PathChooser.Pick picked = control.pick(0); // rank 0 picks for all
        long[] sources = picked == PathChooser.Pick.SLOTS ? null : sources(call);
        boolean inPlaceAllToAll = call.operation() == Operation.ALL_TO_ALL && anyInPlace();
        long bytes = call.count() * call.type().size() * size;
        if (inPlaceAllToAll && (bytes < sizes.inPlaceMinBytes() || bytes > sizes.inPlaceMaxBytes())) {
            sources = null; // outside the sizes at which an in-place all-to-all is read: every rank sees as much
        }
        long[] outputs = reduction && sources != null ? published(control::output, r -> true) : null;
        if (reduction && outputs == null) {
            sources = null; // a rank's output cannot be read: every rank sees as much
        }
        long message = call.count() * call.type().size();
        boolean sharedOnly = call.operation() == Operation.REDUCE_SCATTER
                || reduction && (message < sizes.reduceMinBytes() || message > sizes.reduceMaxBytes());
        boolean readPicked = picked == PathChooser.Pick.READ; // buffers not shared read: rank 0's pick
        boolean whole = reduction && sources != null && message <= wholeReadMaxBytes && !anyInPlace()
                && (allShared(false) || sharedOnly && readPicked);
        boolean scatterPicked = readPicked && call.operation() == Operation.REDUCE_SCATTER;
        if (sharedOnly && !whole && !scatterPicked && !allShared(reduction)) {
            sources = null; // covered only for buffers that are all shared allocations: every rank sees as much
        }
        if (sources != null) {
            seeRegions();
        }
        if (picks) {
            chooser.started(call, sources == null, start);
        }
        if (sources == null && !call.operation().isRooted()) {
            // The slots run it, and no phase is needed to say that nothing was read: every rank's output there holds
            // every peer's input, which a peer writes only after it has read this call's words, so no rank can publish
            // its next call's words over them before its peers are done. A rooted call's root may finish first.
            return false;
        }
        if (sources != null && whole) {
            allReduceWhole(s, call, sources);
        } else if (sources != null && reduction) {
            allReduce(s, call, sources, outputs);
        } else if (sources != null && call.operation() == Operation.REDUCE_SCATTER) {
            reduceScatter(s, call, sources);
        } else if (sources != null && inPlaceAllToAll) {
            exchange(s, call, sources);
        } else if (sources != null && writesGather(call) && receiversWritable(call)) {
            writeBlocks(s, call, number);
        } else if (sources != null) {
            move(s, call, sources, number);
        }
        s.publish(); // done reading
        s.awaitAll();
        if (rootCopyNanos >= 0) { // each receiver published its time before it said it was done
            long slowest = 0;
            for (int r = 0; r < size; r++) {
                if (r != call.root()) {
                    slowest = Math.max(slowest, control.copyNanos(r));
                }
            }
            balancer.record(call.count() * call.type().size(), rootCopyNanos, slowest);
            rootCopyNanos = -1;
        }
        return sources != null;
    }

    /**
     * Whether rank 0 picks, where JCOLL_SHM_SINGLE_COPY=auto and two ranks copy alone, how {@code call}, one this
     * path covers, of its input not {@code shared}, goes: reading (an all-reduce out of place below the size from
     * which all-reduces read, {@link #ALONE_REDUCE_MIN_BYTES} by default, each rank the whole of its peer's input,
     * {@link #allReduceWhole}; from there, and in place, a slice each, {@link #allReduce}: at 8 MB on the 2-vCPU VM
     * the whole took 1.12-1.37x Open MPI's time and a slice each 0.90-1.10x, benchmarks/RESULTS.md, 2026-12-01; a
     * reduce-scatter each rank its block of its peer's input,
     * {@link #reduceScatter}) or the slots. Neither is ahead in both of the 2-vCPU VM's states (the class comment);
     * whether the peer's buffers may be read is settled in {@link #run}, as every rank sees it. Not for a shared
     * input, read wherever both are.
     */
    private boolean picksFor(Call call, boolean shared) {
        if (!picksOrdinary || shared) {
            return false;
        }
        long message = sizedBytes(call);
        return call.operation() == Operation.ALL_REDUCE
                ? message >= (call.inPlace() ? sizes.reduceMinBytes() : mappedReduceMinBytes)
                        && message <= sizes.reduceMaxBytes()
                : message >= ALONE_PICK_MIN_BYTES;
    }

    /**
     * Where this rank's input starts, for its peers to read; 0 where it cannot be read, or is not to be: a
     * broadcast's root in place above {@code inPlaceRootMaxBytes} (the slots were faster in the host's fast state:
     * see the class comment; {@link #NO_IN_PLACE_ROOT} for every size). A broadcast's other ranks have no input:
     * what they publish is not read. An all-to-all in place is read, in chunks that no rank overwrites before its
     * peers are done with them ({@link #exchange}).
     */
    static long sourceAddress(Call call, long inPlaceRootMaxBytes) {
        long address = address(call.send());
        return readable(call, address, OwnRegions.find(address, 1) != null, inPlaceRootMaxBytes) ? address : 0;
    }

    /**
     * Whether this rank's input at {@code address} is to be read by its peers: not a broadcast's root in place above
     * {@code inPlaceRootMaxBytes} whose input is not {@code shared} (a shared allocation is read by a plain copy, which
     * keeps both ranks copying as well as the slots do).
     */
    private static boolean readable(Call call, long address, boolean shared, long inPlaceRootMaxBytes) {
        return address != 0 && (shared || !(call.inPlace() && call.operation() == Operation.BROADCAST
                && call.count() * call.type().size() > inPlaceRootMaxBytes));
    }

    /**
     * Whether every rank's input of the current call, and its output where {@code outputs} (an all-reduce's, which
     * peers read too), lie in shared allocations: the same answer on every rank, from the published words.
     */
    private boolean allShared(boolean outputs) {
        for (int r = 0; r < size; r++) {
            if (callRegions[PeerRegions.SOURCE][r] == null || outputs && callRegions[PeerRegions.OUTPUT][r] == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads, once a call, the shared allocations every rank published for it: its input's, and a reduction's
     * output's ({@link #callRegions}).
     */
    private void readRegions(boolean reduction) {
        for (int r = 0; r < size; r++) {
            callRegions[PeerRegions.SOURCE][r] = control.region(r, PeerRegions.SOURCE);
            callRegions[PeerRegions.OUTPUT][r] = reduction ? control.region(r, PeerRegions.OUTPUT) : null;
        }
    }

    /** Tells this rank's {@link PeerRegions} which shared allocations, if any, each peer's current call reads from. */
    private void seeRegions() {
        PeerRegions regions = memory.regions();
        int me = memory.rank();
        for (int r = 0; r < size; r++) { // this rank's own memory is never read through PeerMemory
            regions.see(r, PeerRegions.SOURCE, r == me ? null : callRegions[PeerRegions.SOURCE][r]);
            regions.see(r, PeerRegions.OUTPUT, r == me ? null : callRegions[PeerRegions.OUTPUT][r]);
        }
    }

    /** Closes the files of the peers' shared allocations this rank opened (their mappings go with the collector). */
    void close() {
        if (memory != null) {
            memory.regions().close();
        }
    }

    /** A phrase naming a shared allocation, a peer's or this rank's, that another process cut short; or null. */
    String sharedDamage() {
        String peers = memory == null ? null : memory.regions().damage();
        return peers != null ? peers : OwnRegions.damage();
    }

    /**
     * Where {@code buffer} starts in this process, for peers to read; 0 where it cannot be read (a heap buffer, an
     * array, GPU memory: nothing with one address).
     */
    private static long address(Buffer buffer) {
        if (!(buffer instanceof HostBuffer host) || !host.isByteAddressable()) {
            return 0;
        }
        return ProcessVm.address(host.readable(0, 1, null));
    }

    /**
     * An all-reduce of two ranks out of place whose inputs are shared allocations, as Open MPI's two-rank all-reduce
     * goes: each rank reads the whole of its peer's input and reduces it with its own into its output, in rank order
     * (so both get the same bits), a chunk at a time. One phase where {@link #allReduce} has two, and no rank reads
     * what its peer has just written ({@link #WHOLE_READ_MAX_BYTES} says where that pays).
     */
    private void allReduceWhole(Slots s, Call call, long[] sources) {
        int me = s.rank();
        int n = size;
        int typeSize = call.type().size();
        long count = call.count();
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        int chunk = Math.max(1, REDUCE_CHUNK_BYTES / typeSize);
        ByteBuffer peers = scratch((long) chunk * typeSize * (n - 1));
        ByteBuffer[] inputs = new ByteBuffer[n];
        String operation = call.operation().label();
        for (long from = 0; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            int bytes = elements * typeSize;
            long at = from * typeSize;
            for (int r = 0, k = 0; r < n; r++) {
                if (r == me) {
                    inputs[r] = s.readable(in, at, bytes);
                    continue;
                }
                inputs[r] = memory.viewOrRead(r, sources[r] + at, Slots.view(peers, k++ * bytes, bytes), operation);
            }
            ByteBuffer dst = s.writable(out, at, bytes);
            ShmAllReduce.reduceInRankOrder(call.type(), call.reduceOp(), inputs, dst, elements);
            out.commit(at, dst);
        }
    }

    /**
     * An all-reduce with every byte read once across: each rank reads its slice of every peer's input, a chunk at
     * a time into its own memory, and reduces it with its own into its output; once every slice is reduced, each
     * reads every peer's reduced slice out of the peer's output. In place too: until the ranks have met a rank
     * writes only its own slice, which no peer reads, and after they have met only the others, which no peer reads
     * any more. Each slice has one reducer, so every rank receives the same bits.
     */
    private void allReduce(Slots s, Call call, long[] sources, long[] outputs) {
        int me = s.rank();
        int n = size;
        int typeSize = call.type().size();
        long count = call.count();
        String operation = call.operation().label();
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        int chunk = Math.max(1, REDUCE_CHUNK_BYTES / typeSize);
        ByteBuffer peers = scratch((long) chunk * typeSize * (n - 1));
        ByteBuffer[] inputs = new ByteBuffer[n];
        long hi = ShmAllReduce.sliceStart(count, n, me + 1);
        for (long from = ShmAllReduce.sliceStart(count, n, me); from < hi; from += chunk) {
            int elements = (int) Math.min(chunk, hi - from);
            int bytes = elements * typeSize;
            long at = from * typeSize;
            for (int k = 1; k < n; k++) { // this rank's values first, then its peers' in rank order
                int peer = (me + k) % n;
                inputs[peer < me ? peer + 1 : peer] = memory.viewOrRead(peer, sources[peer] + at,
                        Slots.view(peers, (k - 1) * bytes, bytes), operation);
            }
            inputs[0] = s.readable(in, at, bytes);
            ByteBuffer dst = s.writable(out, at, bytes);
            ShmAllReduce.reduceInRankOrder(call.type(), call.reduceOp(), inputs, dst, elements);
            out.commit(at, dst);
        }
        s.publish(); // every rank's slice is reduced: its peers may read it
        s.awaitAll();
        for (int k = 1; k < n; k++) {
            int peer = (me + k) % n;
            long end = ShmAllReduce.sliceStart(count, n, peer + 1) * typeSize;
            for (long at = ShmAllReduce.sliceStart(count, n, peer) * typeSize; at < end; at += VIEW_CHUNK_BYTES) {
                readInto(s, out, at, (int) Math.min(VIEW_CHUNK_BYTES, end - at), peer, outputs[peer] + at, operation);
            }
        }
    }

    /**
     * A reduce-scatter whose inputs are all shared allocations: each rank reduces its own block of every rank's input,
     * the peers' straight out of their mappings (through its scratch where one cannot be mapped), into its output, a
     * chunk at a time: its own values first (in place the output is that block, written only after it is read, as the
     * all-reduce's), then its peers' in rank order. Peers read only their own blocks of this rank's input, so in place
     * too; {@link #run}'s last phase keeps every input as it is until every rank is done.
     */
    private void reduceScatter(Slots s, Call call, long[] sources) {
        int me = s.rank();
        int n = size;
        int typeSize = call.type().size();
        long count = call.count();
        long blockAt = me * count * typeSize; // this rank's block in every rank's input
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        int chunk = Math.max(1, REDUCE_CHUNK_BYTES / typeSize);
        ByteBuffer peers = scratch((long) chunk * typeSize * (n - 1));
        ByteBuffer[] inputs = new ByteBuffer[n];
        for (long from = 0; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            int bytes = elements * typeSize;
            long at = from * typeSize;
            inputs[0] = s.readable(in, blockAt + at, bytes);
            for (int k = 1; k < n; k++) {
                int peer = (me + k) % n;
                inputs[peer < me ? peer + 1 : peer] = memory.viewOrRead(peer, sources[peer] + blockAt + at,
                        Slots.view(peers, (k - 1) * bytes, bytes), call.operation().label());
            }
            ByteBuffer dst = s.writable(out, at, bytes); // in place, a view of this rank's block of its input
            ShmAllReduce.reduceInRankOrder(call.type(), call.reduceOp(), inputs, dst, elements);
            out.commit(at, dst);
        }
    }

    /**
     * The published addresses that {@code call} reads (a broadcast: the root's; the others: every rank's), or null
     * where one of them is 0. Every rank sees the same words, so all take the same path.
     */
    private long[] sources(Call call) {
        return published(control::source, r -> call.operation() != Operation.BROADCAST || r == call.root());
    }

    /** Every rank's published {@code word} (an address), or null where one that is {@code needed} is 0. */
    private long[] published(IntToLongFunction word, IntPredicate needed) {
        long[] at = new long[size];
        for (int r = 0; r < size; r++) {
            at[r] = word.applyAsLong(r);
            if (needed.test(r) && at[r] == 0) {
                return null;
            }
        }
        return at;
    }

    /**
     * This rank's blocks of {@code count} elements, read from each peer (all-to-all: block {@code rank} of the
     * peer's input; the gathers: its whole input) or copied from its own input, in chunks that the crew shares
     * where the output can be viewed (else a slot's worth at a time through the stage). A gather's other ranks
     * read nothing: they only wait. A broadcast: {@link #broadcast}, its call {@code number}.
     */
    private void move(Slots s, Call call, long[] sources, long number) {
        if (call.operation() == Operation.GATHER && s.rank() != call.root()) {
            return;
        }
        if (call.operation() == Operation.BROADCAST) {
            broadcast(s, call, sources[call.root()], number);
            return;
        }
        inShares(s, call, (at, length) -> readBlocks(s, call, sources, at, length));
    }

    /**
     * Bytes {@code [at, at + length)} of this rank's block of each peer's input (all-to-all: block {@code rank};
     * the gathers: the whole input) read into the peer's block of this rank's output, and out of place this rank's
     * own block copied across. The peers in turn from the next rank on, so that the ranks do not all read one peer
     * at once.
     */
    private void readBlocks(Slots s, Call call, long[] sources, long at, int length) {
        int me = s.rank();
        long block = call.count() * call.type().size();
        long offset = call.operation() == Operation.ALL_TO_ALL ? me * block : 0; // where this rank's block starts
        StagedAccess out = (StagedAccess) call.recv();
        for (int k = 1; k < size; k++) {
            int peer = (me + k) % size;
            readInto(s, out, peer * block + at, length, peer, sources[peer] + offset + at, call.operation().label());
        }
        if (!call.inPlace()) { // this rank's input is direct memory here: a view, whatever the output is
            s.copyAcross((StagedAccess) call.send(), offset + at, length, out, me * block + at);
        }
    }

    /** Whether a rank's current call is in place: the same answer on every rank, from the words they published. */
    private boolean anyInPlace() {
        for (int r = 0; r < size; r++) {
            if (control.sourceInPlace(r)) {
                return true;
            }
        }
        return false;
    }

    /**
     * An all-to-all in which some rank is in place: that rank's blocks for its peers are overwritten by the blocks
     * it receives, so no range of them may be written before the peer that reads it is done. The blocks go a chunk
     * at a time (the same range of every block, at most {@code exchangeBytes} over the peers): every rank reads the
     * chunk from each peer (a rank in place into its scratch, the others straight into their outputs), the ranks
     * wait for each other, and the ranks in place copy the chunk from scratch to where it belongs, as Open MPI's
     * in-place all-to-all goes through a temporary buffer. Every rank, in place or not, takes the same phases: one a
     * chunk. Where it pays and where the slots do better: {@link #ALONE_IN_PLACE_MIN_BYTES}.
     */
    private void exchange(Slots s, Call call, long[] sources) {
        int me = s.rank();
        int n = s.size();
        if (n == 1) {
            return; // its one block is where it belongs
        }
        int typeSize = call.type().size();
        long count = call.count();
        long block = count * typeSize;
        boolean inPlace = call.inPlace();
        StagedAccess out = (StagedAccess) call.recv();
        int chunk = (int) Math.max(1, exchangeBytes / ((long) (n - 1) * typeSize));
        ByteBuffer kept = inPlace ? scratch((long) chunk * typeSize * (n - 1)) : null;
        for (long from = 0; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            int bytes = elements * typeSize;
            long first = from * typeSize;
            s.share(elements, typeSize, (lo, hi) -> {
                long at = first + (long) lo * typeSize;
                int length = (hi - lo) * typeSize;
                if (!inPlace) {
                    readBlocks(s, call, sources, at, length);
                    return;
                }
                for (int k = 1; k < n; k++) { // into scratch: this rank's own blocks are still being read
                    int peer = (me + k) % n;
                    ByteBuffer room = Slots.view(kept, (k - 1) * bytes + lo * typeSize, length);
                    memory.read(peer, sources[peer] + me * block + at, room, call.operation().label());
                }
            });
            s.publish(); // this rank has read the chunk of its peers' blocks: they may overwrite it
            s.awaitAll();
            if (inPlace) {
                s.share(elements, typeSize, (lo, hi) -> {
                    for (int k = 1; k < n; k++) {
                        int peer = (me + k) % n;
                        s.copyOut(kept, (k - 1) * bytes + lo * typeSize, (hi - lo) * typeSize, out,
                                peer * block + first + (long) lo * typeSize);
                    }
                });
            }
        }
    }

    /** This rank's scratch ({@link #exchange}, {@link #allReduce}), at least {@code bytes} long; kept. */
    private ByteBuffer scratch(long bytes) {
        if (scratch == null || scratch.capacity() < bytes) {
            scratch = ByteBuffer.allocateDirect(Math.toIntExact(bytes)).order(ByteOrder.nativeOrder());
        }
        return scratch;
    }

    /**
     * A receiver reads the whole message from the root's input; the root copies its input to its output. Where every
     * receiver's output can be written, the root also writes the start of the message into each receiver's output
     * ({@link #rootShareBytes}) while the receivers read the rest: in place, where the root has nothing of its own to
     * copy, half of a two-rank broadcast, so that its copies go on both CPUs where they went on one; out of place as
     * much as leaves the root and the receivers done together ({@link ShareBalancer}), for which each rank times its
     * copies. Every rank sees the same published words, so all agree where the share ends; {@link #run}'s last phase
     * keeps each receiver in its call until the root is done.
     */
    private void broadcast(Slots s, Call call, long rootSource, long number) {
        int root = call.root();
        boolean isRoot = s.rank() == root;
        long message = call.count() * call.type().size();
        boolean writable = receiversWritable(call);
        long share = writable ? rootShareBytes(call) : 0;
        String operation = call.operation().label();
        boolean timed = ShareBalancer.balances(message); // the same on every rank: only the root's balancer reads it
        long start = timed ? System.nanoTime() : 0;
        if (isRoot && share > 0) {
            writeShare(s, call, share, number);
        }
        if (!(isRoot && call.inPlace())) {
            StagedAccess out = (StagedAccess) call.recv();
            inShares(s, call.type().size(), isRoot ? 0 : share, message, (at, length) -> {
                if (isRoot) { // its input is direct memory here (it published an address): a view
                    s.copyAcross((StagedAccess) call.send(), at, length, out, at);
                } else {
                    readInto(s, out, at, length, root, rootSource + at, operation);
                }
            });
        }
        if (!timed) {
            return;
        }
        long nanos = System.nanoTime() - start;
        if (isRoot && !call.inPlace() && writable) {
            rootCopyNanos = nanos; // for its balancer, once every receiver is done (run)
        } else if (!isRoot) {
            control.publishCopyNanos(s.rank(), nanos); // for the root's balancer, before this rank says it is done
        }
    }

    /**
     * The bytes at the start of a broadcast's message that this rank, its root, plans to write into every receiver's
     * output, published with its input: in place, the whole pages of a rank's even part, so that the root and each
     * receiver copy about as much (on the 2-vCPU VM, benchmarks/RESULTS.md, 2026-12-02, half took 0.46x and 0.63x
     * Open MPI's time at 8 and 32 MB where 0.6 took 0.72x and 0.71x); out of place, where the root copies the whole
     * message to its own output besides, what its {@link ShareBalancer} found. In place none below
     * {@link #IN_PLACE_ROOT_SHARE_MIN_BYTES}.
     */
    private long plannedShareBytes(Call call) {
        long message = call.count() * call.type().size();
        int typeSize = call.type().size();
        if (!call.inPlace()) {
            return balancer.shareBytes(message, typeSize);
        }
        return message < IN_PLACE_ROOT_SHARE_MIN_BYTES ? 0 : ShareBalancer.wholePages(message / size, typeSize);
    }

    /**
     * The bytes at the start of a broadcast's message that its root writes into every receiver's output, where every
     * receiver published an output it can be written in ({@link #receiversWritable}): what the root published
     * ({@link #plannedShareBytes}), or 0 for a word no root would publish (more than a rank's even part, or not whole
     * elements). The same on every rank, the root too: from the published words.
     */
    private long rootShareBytes(Call call) {
        long share = control.rootShare(call.root());
        int typeSize = call.type().size();
        return share >= 0 && share <= call.count() * typeSize / size && share % typeSize == 0 ? share : 0;
    }

    /**
     * Whether every rank that receives in {@code call} ({@link #receives}) published an output that may be written in:
     * the same answer on every rank, from the published words.
     */
    private boolean receiversWritable(Call call) {
        return size > 1 && published(control::output, r -> receives(call, r)) != null;
    }

    /**
     * Whether rank {@code r} receives in {@code call}, a broadcast or gather, so that its peers may write into its
     * output: a broadcast's ranks but its root, every rank of an all-gather, a gather's root.
     */
    private static boolean receives(Call call, int r) {
        return switch (call.operation()) {
            case BROADCAST -> r != call.root();
            case ALL_GATHER -> true;
            default -> r == call.root();
        };
    }

    /**
     * The range each peer that receives in {@code call} granted for call {@code number}, at least {@code bytes} long,
     * read out of its own record ({@link PeerMemory#granted}); null for this rank and the peers that receive nothing.
     */
    private WriteGrant.Range[] grants(Call call, int me, long number, long bytes) {
        WriteGrant.Range[] granted = new WriteGrant.Range[size];
        for (int k = 1; k < size; k++) {
            int peer = (me + k) % size;
            if (receives(call, peer)) {
                granted[peer] = memory.granted(peer, number, bytes, call.operation().label());
            }
        }
        return granted;
    }

    /**
     * {@code chunk} written into each peer that {@code granted} a range (from {@link #grants}), at {@code offset}
     * within it; the peers in turn from the next rank after {@code me}.
     */
    private void writeInto(WriteGrant.Range[] granted, int me, long offset, ByteBuffer chunk, String operation) {
        for (int k = 1; k < size; k++) {
            int peer = (me + k) % size;
            if (granted[peer] != null) {
                memory.write(peer, granted[peer], offset, chunk.duplicate(), operation);
            }
        }
    }

    /**
     * Whether {@code call}, one this path covers, is a gather whose ranks write their blocks into their peers' outputs
     * ({@link #allGatherWriteMinBytes}, {@link #ALONE_GATHER_WRITE_MIN_BYTES}): the same answer on every rank, from
     * the call's signature.
     */
    private boolean writesGather(Call call) {
        return gathersWrite && switch (call.operation()) {
            case ALL_GATHER -> sizedBytes(call) >= allGatherWriteMinBytes(cacheBytes); // rank 0's cache: alike
            case GATHER -> sizedBytes(call) >= ALONE_GATHER_WRITE_MIN_BYTES;
            default -> false;
        };
    }

    /**
     * A gather by writes: each rank copies its input into its own block of its output (where it receives, out of
     * place) and writes it into its block of each receiving peer's output, within the range the peer granted for call
     * {@code number}, a chunk ({@link #WRITE_CHUNK_BYTES}) at a time, the copy first, so that the write reads the chunk
     * from this core's cache where a write of the whole would read the input from memory a second time
     * ({@link #allGatherWriteMinBytes}). A gather's root receives its peers' blocks while it copies its own,
     * where reading had it make both ({@link #ALONE_GATHER_WRITE_MIN_BYTES}). {@link #run}'s last phase keeps every
     * receiver in its call until its peers are done writing.
     */
    private void writeBlocks(Slots s, Call call, long number) {
        int me = s.rank();
        long block = call.count() * call.type().size();
        boolean writes = call.operation() == Operation.ALL_GATHER || me != call.root(); // a gather's root: no peer
        boolean copies = receives(call, me) && !call.inPlace();
        if (!copies && !writes) {
            return; // a gather's root in place: its block is there, and its peer writes the other
        }
        WriteGrant.Range[] granted = writes ? grants(call, me, number, block * size) : null;
        StagedAccess in = (StagedAccess) call.send(); // direct memory here (this rank published an address)
        for (long at = 0; at < block; at += WRITE_CHUNK_BYTES) {
            int bytes = (int) Math.min(WRITE_CHUNK_BYTES, block - at);
            if (copies) {
                s.copyAcross(in, at, bytes, (StagedAccess) call.recv(), me * block + at);
            }
            if (writes) {
                writeInto(granted, me, me * block + at, s.readable(in, at, bytes), call.operation().label());
            }
        }
    }

    /**
     * The root's {@code share} of the message written into every receiver's output, within the range each
     * receiver's own record grants for call {@code number} ({@link PeerMemory#granted}), read first.
     */
    private void writeShare(Slots s, Call call, long share, long number) {
        int root = call.root();
        WriteGrant.Range[] granted = grants(call, root, number, share);
        StagedAccess in = (StagedAccess) call.send(); // direct memory here (the root published an address)
        inShares(s, call.type().size(), 0, share, (at, length) ->
                writeInto(granted, root, at, s.readable(in, at, length), call.operation().label()));
    }

    /** Bytes {@code [at, at + length)} of {@code out} read from {@code peer}'s memory at {@code address}. */
    private void readInto(Slots s, StagedAccess out, long at, int length, int peer, long address, String operation) {
        ByteBuffer room = s.writable(out, at, length);
        memory.read(peer, address, room.duplicate(), operation);
        out.commit(at, room);
    }

    /**
     * {@code body} over byte ranges that cover one block of the call ({@code count} elements), in chunks that the
     * crew shares where the buffers can be viewed (else a slot's worth at a time, through the stage).
     */
    private static void inShares(Slots s, Call call, ByteRange body) {
        int typeSize = call.type().size();
        inShares(s, typeSize, 0, call.count() * typeSize, body);
    }

    /** {@code body} over bytes {@code [first, end)} of a block, whole elements of {@code typeSize}, as above. */
    private static void inShares(Slots s, int typeSize, long first, long end, ByteRange body) {
        long chunk = s.viewsOnly() ? Math.max(1, VIEW_CHUNK_BYTES / typeSize) : s.elementsPerSlot(typeSize);
        for (long from = first / typeSize, count = end / typeSize; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            long at = from * typeSize;
            s.share(elements, typeSize, (lo, hi) -> body.run(at + (long) lo * typeSize, (hi - lo) * typeSize));
        }
    }

    /** Work on {@code length} bytes from byte {@code at} of a block. */
    @FunctionalInterface
    private interface ByteRange {
        void run(long at, int length);
    }
}
