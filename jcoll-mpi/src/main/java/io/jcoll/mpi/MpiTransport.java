package io.jcoll.mpi;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.jcoll.Buffer;
import io.jcoll.HostBuffer;
import io.jcoll.NetworkReport;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Signature;
import io.jcoll.spi.StallDiagnosis;
import io.jcoll.spi.StagedAccess;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Collectives on host memory through the MPI library's own collectives, which
 * on a cluster use its tuned algorithms and fast interconnect. Each call is
 * started non-blocking ({@code MPI_Iallreduce}, ...) and completed by polling
 * {@code MPI_Test} against the call's deadline, so that {@code JCOLL_TIMEOUT}
 * holds here as on every transport. Memory MPI cannot address directly (Java
 * arrays, heap byte buffers) is staged through native memory. Reductions take
 * the types and operations the MPI standard has; the others (16- and 8-bit
 * floats, AVG) are refused before any byte moves. Before each collective the
 * ranks compare their {@link Signature}s, so that mismatched calls fail on
 * every rank with a message naming who is doing what.
 */
final class MpiTransport implements Transport {

    private final MpiRuntime runtime;
    private final MpiLibrary mpi;
    private final long comm;
    private final int rank;
    private final int size;
    private final Memory request = new Memory(8);       // the checks' own requests
    private final Memory flag = new Memory(4);
    private final SignatureCheck signatures;
    private final StallDiagnosis diagnosis; // names the ranks that never reached a collective that timed out
    private final Slot slot = new Slot();              // a lone call's request and stages, reused
    private final TransportContext context;            // for the store and settings of sub-communicators
    private boolean broken;
    private volatile boolean interrupted;              // abort() from another thread: stop waiting at once

    private MpiTransport(TransportContext context, MpiRuntime runtime, long comm, int rank, int size,
                         StallDiagnosis diagnosis) {
        this.context = context;
        this.diagnosis = diagnosis;
        this.runtime = runtime;
        this.mpi = runtime.mpi;
        this.comm = comm;
        this.rank = rank;
        this.size = size;
        this.signatures = new SignatureCheck(size);
    }

    static MpiTransport open(TransportContext ctx) {
        MpiRuntime runtime = MpiRuntime.get(ctx.settings(), ctx.rank());
        int[] world = runtime.worldRankAndSize(ctx.rank());
        if (world[0] != ctx.rank() || world[1] != ctx.size()) {
            throw new BootstrapException("bootstrap", ctx.rank(), JcollException.NONE, "MPI_COMM_WORLD says rank "
                    + world[0] + " of " + world[1] + " but jcoll's job says rank " + ctx.rank() + " of " + ctx.size()
                    + ": the MPI job is not this job (set RANK and WORLD_SIZE only as mpirun does, or use tcp)");
        }
        String shortfall = runtime.threadLevelShortfall();
        if (shortfall != null) {
            throw new BootstrapException("bootstrap", ctx.rank(), JcollException.NONE, shortfall);
        }
        return new MpiTransport(ctx, runtime, runtime.duplicateWorld(ctx.rank()), ctx.rank(), ctx.size(),
                new StallDiagnosis(ctx.store(), ctx.rank(), ctx.size(), ctx.timeout()));
    }

    /** Yes: the ranks allgather their signatures before each collective. */
    @Override
    public boolean checksSignatures() {
        return true;
    }

    @Override
    public String name() {
        return "mpi";
    }

    @Override
    public String unsupportedReason(Buffer buffer) {
        return buffer instanceof HostBuffer ? null
                : "the mpi transport moves host memory only (jcoll does not assume a CUDA-aware MPI); use nccl or tcp";
    }

    @Override
    public NetworkReport network() {
        return new NetworkReport("MPI's own collectives through " + mpi.describe()
                + " (its point-to-point layer picks shared memory on a host and the fastest network between hosts)",
                List.of("MPI"), "MPI", List.of(mpi.file), null, List.of(), "the loaded MPI library");
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        try {
            run(call, deadlineNanos);
        } catch (CollectiveTimeoutException e) {
            // MPI cannot say who stopped answering; the store can say who never reached this call
            throw call.operation().isCollective() ? diagnosis.explain(call, e, deadlineNanos) : e;
        }
    }

    private void run(Call call, long deadlineNanos) {
        if (broken) {
            throw new CollectiveTimeoutException(call.operation().label(), rank, JcollException.NONE,
                    "an earlier MPI call did not finish; MPI cannot cancel a collective, so this communicator is done");
        }
        if (call.operation() == Operation.GROUP) {
            runGroup(call, deadlineNanos);
            return;
        }
        refuseWhatMpiLacks(call);
        boolean even = check(call, deadlineNanos);
        start(call, slot, even);
        await(call, slot.request, deadlineNanos);
        finish(call, slot);
    }

    /**
     * A group: every call checked first (the refusals, then each collective's agreement, in the group's order
     * on every rank), then all started, then all awaited: MPI progresses them together, so sends and receives
     * in any order cannot deadlock, and each has its own stages.
     */
    private void runGroup(Call group, long deadlineNanos) {
        List<Call> calls = group.members();
        calls.forEach(this::refuseWhatMpiLacks);
        boolean[] even = new boolean[calls.size()];
        for (int i = 0; i < even.length; i++) {
            even[i] = check(calls.get(i), deadlineNanos);
        }
        Slot[] slots = new Slot[calls.size()];
        try {
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot();
                start(calls.get(i), slots[i], even[i]);
            }
            for (int i = 0; i < slots.length; i++) {
                await(calls.get(i), slots[i].request, deadlineNanos);
            }
            for (int i = 0; i < slots.length; i++) {
                finish(calls.get(i), slots[i]);
            }
        } finally {
            if (!broken) { // a request MPI still holds keeps its memory: freeing it under MPI would corrupt it
                for (Slot s : slots) {
                    if (s != null) {
                        s.close();
                    }
                }
            }
        }
    }

    /**
     * What must agree across ranks before a collective starts: its signature, and an uneven one's pair counts.
     * Returns whether the call is an uneven all-to-all whose layout is even on every rank (MPI's plain all-to-all
     * then runs it, as every rank learns alike).
     */
    private boolean check(Call call, long deadlineNanos) {
        return call.operation().isCollective() && checkSignatures(call, deadlineNanos);
    }

    /**
     * Starts {@code call} non-blocking, its request and native stages in {@code at}.
     *
     * @param evenEverywhere an uneven all-to-all whose layout every rank found even: run as MPI_Ialltoall
     */
    private void start(Call call, Slot at, boolean evenEverywhere) {
        HostBuffer send = (HostBuffer) call.send();
        HostBuffer recv = (HostBuffer) call.recv();
        Stage sendStage = at.send;
        Stage recvStage = at.recv;
        long sendBytes = call.sendElements(size) * call.type().size();
        long recvBytes = call.recvElements(size) * call.type().size();
        int elements = intCount(call, call.count());
        int blockBytes = intCount(call, call.count() * call.type().size());
        long type = call.reduceOp() == null ? mpi.abi.bytes() : mpi.abi.types().get(call.type());
        long op = call.reduceOp() == null ? 0 : mpi.abi.ops().get(call.reduceOp());
        long req = MpiLibrary.address(at.request);
        boolean root = call.root() == rank;
        Operation o = call.operation();
        switch (o) {
            case ALL_REDUCE -> {
                long out = recvStage.output(recv, recvBytes);
                long in = call.inPlace() ? recvStage.inPlaceInput(recv, recvBytes) : sendStage.input(send, sendBytes);
                start(MpiNative.MPI_Iallreduce(call.inPlace() ? mpi.abi.inPlace() : in, out, elements, type, op, comm, req), call);
            }
            case ALL_GATHER, ALL_TO_ALL, SPLIT -> exchangeBlocks(call, at, send, recv, sendBytes, recvBytes, blockBytes, req);
            case REDUCE_SCATTER -> {
                // in place, the output is the input's own block: MPI forbids the overlap, so the input is staged
                long in = call.inPlace() ? sendStage.copyOf(send, sendBytes) : sendStage.input(send, sendBytes);
                long out = recvStage.output(recv, recvBytes);
                start(MpiNative.MPI_Ireduce_scatter_block(in, out, elements, type, op, comm, req), call);
            }
            case BROADCAST -> {
                long data = recvStage.output(recv, recvBytes);
                if (root) {
                    sendStage.input(send, sendBytes);
                    recvStage.fillFrom(sendStage); // the root sends its input and gets it in its output too
                }
                start(MpiNative.MPI_Ibcast(data, blockBytes, mpi.abi.bytes(), call.root(), comm, req), call);
            }
            case REDUCE -> {
                long out = root ? recvStage.output(recv, recvBytes) : 0;
                long in = root && call.inPlace() ? recvStage.inPlaceInput(recv, recvBytes) : sendStage.input(send, sendBytes);
                start(MpiNative.MPI_Ireduce(root && call.inPlace() ? mpi.abi.inPlace() : in, out, elements, type, op,
                        call.root(), comm, req), call);
            }
            case GATHER -> {
                long out = root ? recvStage.output(recv, recvBytes) : 0;
                boolean inPlace = root && call.inPlace();
                if (inPlace) {
                    recvStage.inPlaceInput(recv, recvBytes); // the output's native bytes hold the root's block
                }
                long in = inPlace ? mpi.abi.inPlace() : sendStage.input(send, sendBytes);
                start(MpiNative.MPI_Igather(in, blockBytes, mpi.abi.bytes(), out, blockBytes, mpi.abi.bytes(),
                        call.root(), comm, req), call);
            }
            case SCATTER -> {
                boolean inPlace = root && call.inPlace();
                long in = root ? sendStage.input(send, sendBytes) : 0;
                long out = inPlace ? mpi.abi.inPlace() : recvStage.output(recv, recvBytes);
                start(MpiNative.MPI_Iscatter(in, blockBytes, mpi.abi.bytes(), out, blockBytes, mpi.abi.bytes(),
                        call.root(), comm, req), call);
            }
            case ALL_TO_ALL_V -> {
                io.jcoll.spi.Vectors v = call.vectors();
                if (evenEverywhere) { // MPI's all-to-all: 1.5-2x faster than its alltoallv at 8-64 B on 2 ranks
                    // (benchmarks/results/dev-2026-11-24-alltoallv/mpi-2ranks-one-check.log)
                    int block = intCount(call, v.evenBlock() * call.type().size());
                    start(MpiNative.MPI_Ialltoall(sendStage.input(send, sendBytes), block, mpi.abi.bytes(),
                            recvStage.output(recv, recvBytes), block, mpi.abi.bytes(), comm, req), call);
                    return;
                }
                long out = recvStage.output(recv, recvBytes);
                long in = sendStage.input(send, sendBytes);
                long layout = at.layout(size);
                int t = call.type().size();
                for (int p = 0; p < size; p++) { // MPI counts are C ints of bytes here: checked, never truncated
                    at.layoutMemory.setInt(4L * p, intCount(call, v.sendCounts()[p] * t));
                    at.layoutMemory.setInt(4L * (size + p), intCount(call, v.sendOffsets()[p] * t));
                    at.layoutMemory.setInt(4L * (2 * size + p), intCount(call, v.recvCounts()[p] * t));
                    at.layoutMemory.setInt(4L * (3 * size + p), intCount(call, v.recvOffsets()[p] * t));
                }
                start(MpiNative.MPI_Ialltoallv(in, layout, layout + 4L * size, mpi.abi.bytes(), out,
                        layout + 8L * size, layout + 12L * size, mpi.abi.bytes(), comm, req), call);
            }
            case BARRIER -> start(MpiNative.MPI_Ibarrier(comm, req), call);
            case SEND -> start(MpiNative.MPI_Isend(sendStage.input(send, sendBytes), blockBytes, mpi.abi.bytes(),
                    call.root(), 0, comm, req), call);
            case RECV -> start(MpiNative.MPI_Irecv(recvStage.output(recv, recvBytes), blockBytes, mpi.abi.bytes(),
                    call.root(), 0, comm, req), call);
            default -> throw new IllegalArgumentException("unknown operation " + o);
        }
    }

    /** After the call completed: the output, if it went through a stage, is copied into place. */
    private void finish(Call call, Slot at) {
        if (call.recv() != null) {
            at.recv.commit((HostBuffer) call.recv()); // nothing to do where no output was staged (in-place scatter)
        }
    }

    /** An uneven all-to-all's share of the pair-count check ({@link io.jcoll.spi.Vectors#pairTerm}); 0 otherwise. */
    private long pairTerm(Call call) {
        return call.operation() == Operation.ALL_TO_ALL_V ? call.vectors().pairTerm(call.sequence(), rank) : 0;
    }

    private static final long PRIME = io.jcoll.spi.Vectors.PRIME;

    /**
     * Some pair disagrees: every rank learns what each peer means to send it, and one MAX allreduce agrees on a
     * pair to name, so that all fail with the same account.
     */
    private void namePairThatDisagrees(Call call, long deadlineNanos) {
        io.jcoll.spi.Vectors v = call.vectors();
        try (Memory mine = new Memory(8L * size); Memory theirs = new Memory(8L * size);
             Memory verdict = new Memory(8); Memory worst = new Memory(8)) {
            for (int p = 0; p < size; p++) {
                mine.setLong(8L * p, v.sendCounts()[p]);
            }
            start(MpiNative.MPI_Ialltoall(MpiLibrary.address(mine), 8, mpi.abi.bytes(), MpiLibrary.address(theirs), 8,
                    mpi.abi.bytes(), comm, MpiLibrary.address(request)), call);
            await(call, request, deadlineNanos);
            int disagreeing = -1;
            for (int p = 0; p < size && disagreeing < 0; p++) {
                if (theirs.getLong(8L * p) != v.recvCounts()[p]) {
                    disagreeing = p;
                }
            }
            // the highest (receiver, sender) pair that disagrees
            verdict.setLong(0, disagreeing < 0 ? 0 : ((long) rank << 32 | disagreeing) + 1);
            start(MpiNative.MPI_Iallreduce(MpiLibrary.address(verdict), MpiLibrary.address(worst), 1,
                    mpi.abi.types().get(io.jcoll.DataType.INT64), mpi.abi.ops().get(ReduceOp.MAX), comm,
                    MpiLibrary.address(request)), call);
            await(call, request, deadlineNanos);
            long w = worst.getLong(0);
            int receiver = (int) ((w - 1) >>> 32);
            int sender = (int) ((w - 1) & 0xffffffffL);
            String detail = disagreeing >= 0 ? "rank " + disagreeing + " sends this rank "
                    + theirs.getLong(8L * disagreeing) + " elements but this rank expects " + v.recvCounts()[disagreeing]
                    + " from it" : "rank " + sender + " sends rank " + receiver + " another count than rank " + receiver
                    + " expects";
            throw new CollectiveMismatchException(call.operation().label(), rank, disagreeing >= 0 ? disagreeing
                    : (rank == sender ? receiver : sender), "in " + call.describe() + " " + detail
                    + "; a rank's sendCounts[r] must equal rank r's recvCounts for it (found before any data moved)");
        }
    }

    /**
     * Every rank's signature of this step, compared before the collective
     * starts: ranks in different operations fail here, all of them, with the
     * communicator still consistent, instead of starting collectives MPI
     * cannot match. Costs one 32-byte allreduce per collective (an uneven all-to-all's pair counts ride in it).
     */
    private boolean checkSignatures(Call call, long deadlineNanos) {
        // the common case in one small allreduce, the same for every collective so that ranks in different ones
        // still meet in it; only a disagreement pays for the exchanges that say who differs
        boolean uneven = call.operation() == Operation.ALL_TO_ALL_V && call.vectors().evenBlock() < 0;
        start(MpiNative.MPI_Iallreduce(signatures.terms(call, pairTerm(call), uneven), signatures.sums(),
                SignatureCheck.TERMS,
                mpi.abi.types().get(io.jcoll.DataType.INT64), mpi.abi.ops().get(ReduceOp.SUM), comm,
                MpiLibrary.address(request)), call);
        await(call, request, deadlineNanos);
        if (!signatures.allAgree(size)) {
            start(MpiNative.MPI_Iallgather(signatures.own(call), Signature.BYTES, mpi.abi.bytes(), signatures.all(),
                    Signature.BYTES, mpi.abi.bytes(), comm, MpiLibrary.address(request)), call);
            await(call, request, deadlineNanos);
            String disagreement = signatures.disagreement();
            if (disagreement != null) {
                throw new CollectiveMismatchException(call.operation().label(), rank, JcollException.NONE, disagreement
                        + "; every rank must issue the same collectives, in the same order, with the same arguments");
            }
        }
        if (!signatures.pairCountsAgree()) {
            namePairThatDisagrees(call, deadlineNanos);
        }
        return call.operation() == Operation.ALL_TO_ALL_V && signatures.evenEverywhere();
    }

    /** AllGather and All-to-All: blocks of bytes, in place through MPI_IN_PLACE (MPI's layout is NCCL's). */
    private void exchangeBlocks(Call call, Slot at, HostBuffer send, HostBuffer recv, long sendBytes, long recvBytes,
                                int blockBytes, long req) {
        Stage sendStage = at.send;
        Stage recvStage = at.recv;
        long out = recvStage.output(recv, recvBytes);
        long in;
        int sendCount;
        if (call.inPlace()) {
            recvStage.inPlaceInput(recv, recvBytes); // the output's native bytes hold this rank's input
            in = mpi.abi.inPlace();
            sendCount = 0;
        } else {
            in = sendStage.input(send, sendBytes);
            sendCount = blockBytes;
        }
        long bytes = mpi.abi.bytes();
        start(call.operation() != Operation.ALL_TO_ALL
                ? MpiNative.MPI_Iallgather(in, sendCount, bytes, out, blockBytes, bytes, comm, req)
                : MpiNative.MPI_Ialltoall(in, sendCount, bytes, out, blockBytes, bytes, comm, req), call);
    }

    private void start(int rc, Call call) {
        mpi.check(rc, call.operation().label(), rank);
    }

    /** Polls MPI_Test until the request completes, the deadline passes, or abort() interrupts. */
    private void await(Call call, Memory requestMemory, long deadlineNanos) {
        long req = MpiLibrary.address(requestMemory);
        long done = MpiLibrary.address(flag);
        long polls = 0;
        while (true) {
            mpi.check(MpiNative.MPI_Test(req, done, mpi.abi.statusIgnore()), "MPI_Test", rank);
            if (flag.getInt(0) != 0) {
                return;
            }
            if ((++polls & 0x3ff) == 0 && interrupted) {
                broken = true;
                MpiRuntime.collectiveLeftBehind();
                throw new io.jcoll.exceptions.CommunicatorClosedException(call.operation().label(), rank,
                        JcollException.NONE, call.describe() + " was stopped by comm.abort(); MPI cannot cancel it, "
                        + "so this communicator is done");
            }
            if ((polls & 0x3ff) == 0 && System.nanoTime() - deadlineNanos > 0) {
                broken = true;
                MpiRuntime.collectiveLeftBehind();
                throw new CollectiveTimeoutException(call.operation().label(), rank, JcollException.NONE,
                        call.describe() + " did not complete within JCOLL_TIMEOUT (a peer may have stopped or be in "
                                + "another operation); MPI cannot cancel a collective, so this communicator is done");
            }
            if ((polls & 0xff) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private void refuseWhatMpiLacks(Call call) {
        ReduceOp op = call.reduceOp();
        if (op == null) {
            return;
        }
        if (!mpi.abi.ops().containsKey(op)) {
            throw new InvalidArgumentException(call.operation().label(), rank, JcollException.NONE, "the MPI standard "
                    + "has no " + op + " reduction; reduce with SUM and divide, or use the tcp or nccl transport");
        }
        if (!mpi.abi.types().containsKey(call.type())) {
            throw new InvalidArgumentException(call.operation().label(), rank, JcollException.NONE, "the MPI standard "
                    + "has no " + call.type() + " type to reduce; use the tcp or nccl transport for it");
        }
        if (runtime.wrongByteReductions.contains(call.type() + " " + op)) {
            throw new InvalidArgumentException(call.operation().label(), rank, JcollException.NONE, "this MPI library "
                    + "computes " + op + " on " + call.type() + " wrongly (checked with MPI_Reduce_local: with Open MPI, "
                    + "its AVX op component saturates instead of wrapping around; start the job with OMPI_MCA_op=^avx, "
                    + "or let jcoll initialise MPI); use the tcp transport for it");
        }
    }

    private int intCount(Call call, long n) {
        if (n > Integer.MAX_VALUE) {
            throw new InvalidArgumentException(call.operation().label(), rank, JcollException.NONE, "MPI counts are C "
                    + "ints: " + n + " is more than " + Integer.MAX_VALUE + "; split the call");
        }
        return (int) n;
    }

    @Override
    public void abort(Throwable cause) {
        broken = true;
    }

    /** From another thread: the waiting call stops polling at once (MPI cannot cancel it: the communicator is done). */
    @Override
    public void interrupt(Throwable cause) {
        interrupted = true;
    }

    /**
     * MPI_Comm_split of this communicator, every rank of it taking part (a rank left out with MPI_UNDEFINED).
     * MPI orders a color's ranks by key, then by rank here: jcoll's own rule, so MPI's new rank must be the one
     * jcoll agreed, which is checked.
     */
    @Override
    public Transport split(io.jcoll.spi.SplitRequest request) {
        long child = runtime.split(comm, request.included() ? request.color() : -1, request.key(), rank);
        if (!request.included()) {
            return null;
        }
        int mpiRank = runtime.rankIn(child, rank);
        if (mpiRank != request.rank()) {
            runtime.free(child, rank);
            throw new BootstrapException("split", rank, JcollException.NONE, "MPI_Comm_split ranked this rank "
                    + mpiRank + " in its new communicator but jcoll's split ranked it " + request.rank());
        }
        TransportContext c = context.forGroup(request);
        return new MpiTransport(c, runtime, child, request.rank(), request.size(),
                new StallDiagnosis(c.store(), request.rank(), request.size(), c.timeout()));
    }

    @Override
    public void close() {
        if (!broken) {
            runtime.free(comm, rank);
            slot.close();
        }
        signatures.close();
    }

    /** One call's request handle and native stages: a group has one per call, all in flight together. */
    private static final class Slot implements AutoCloseable {
        final Memory request = new Memory(8);
        final Stage send = new Stage();
        final Stage recv = new Stage();
        Memory layoutMemory;                      // an uneven all-to-all's counts and offsets, as C ints

        long layout(int size) {
            if (layoutMemory == null || layoutMemory.size() < 16L * size) {
                if (layoutMemory != null) {
                    layoutMemory.close();
                }
                layoutMemory = new Memory(16L * size);
            }
            return MpiLibrary.address(layoutMemory);
        }

        @Override
        public void close() {
            send.close();
            recv.close();
            request.close();
            if (layoutMemory != null) {
                layoutMemory.close();
            }
        }
    }

    /** Native memory for this rank's signature and everyone's, reused across calls. */
    private static final class SignatureCheck implements AutoCloseable {
        /**
         * Two hashes of the signature, each below {@link #PRIME} (independent: a miss needs both to collide, one
         * chance in 2^62), and the pair-count term of an uneven all-to-all: the SUM allreduce of these finds any
         * disagreement, since the ranks agree exactly when each hash's sum is n times every rank's own. Last, 1 on a
         * rank whose uneven all-to-all is not even: a sum of 0 tells every rank that all are.
         */
        static final int TERMS = 4;
        private final Memory terms = new Memory(8L * TERMS);
        private final Memory sums = new Memory(8L * TERMS);
        private final Memory own = new Memory(Signature.BYTES);
        private final Memory all;
        private final Signature[] byRank;

        SignatureCheck(int size) {
            all = new Memory((long) Signature.BYTES * size);
            byRank = new Signature[size];
        }

        long own(Call call) {
            Signature.of(call).writeTo(own.getByteBuffer(0, Signature.BYTES), 0);
            return MpiLibrary.address(own);
        }

        long terms(Call call, long pairTerm, boolean uneven) {
            Signature sig = Signature.of(call);
            terms.setLong(0, Math.floorMod(sig.foldInto(0), PRIME));
            terms.setLong(8, Math.floorMod(sig.foldInto(0x5DEECE66DL), PRIME));
            terms.setLong(16, pairTerm);
            terms.setLong(24, uneven ? 1 : 0);
            return MpiLibrary.address(terms);
        }

        boolean evenEverywhere() {
            return sums.getLong(24) == 0;
        }

        long sums() {
            return MpiLibrary.address(sums);
        }

        /** Whether every rank's signature is this rank's: each hash summed over n ranks is n times this rank's. */
        boolean allAgree(int n) {
            return sums.getLong(0) == n * terms.getLong(0) && sums.getLong(8) == n * terms.getLong(8);
        }

        boolean pairCountsAgree() {
            return sums.getLong(16) % PRIME == 0;
        }

        long all() {
            return MpiLibrary.address(all);
        }

        String disagreement() {
            ByteBuffer b = all.getByteBuffer(0, all.size());
            for (int r = 0; r < byRank.length; r++) {
                byRank[r] = Signature.readFrom(b, r * Signature.BYTES);
            }
            return Signature.disagreement(byRank);
        }

        @Override
        public void close() {
            terms.close();
            sums.close();
            own.close();
            all.close();
        }
    }

    /**
     * Native memory for one argument: the buffer's own bytes when they are
     * direct (no copy), else a reused native stage that is copied in, or out
     * through {@link #commit}.
     */
    private static final class Stage implements AutoCloseable {
        private Memory memory;
        private ByteBuffer stage;     // this call's window of memory
        private ByteBuffer target;    // the buffer's bytes MPI's output lands in (through the stage if not direct)
        private ByteBuffer lastInput; // the native bytes input() handed out, for the broadcast root's copy

        /** The address of {@code bytes} of {@code buffer} to read. */
        long input(HostBuffer buffer, long bytes) {
            ByteBuffer window = window(bytes);
            ByteBuffer view = buffer.readable(0, (int) bytes, window);
            lastInput = view.isDirect() ? view : copyInto(window, view);
            return addressOf(lastInput);
        }

        /** A copy of the input in this stage, never the buffer's own memory (MPI forbids aliasing). */
        long copyOf(HostBuffer buffer, long bytes) {
            ByteBuffer window = window(bytes);
            ByteBuffer view = buffer.readable(0, (int) bytes, window);
            return addressOf(view == window ? window : copyInto(window, view));
        }

        /** The address MPI writes {@code bytes} of {@code buffer} to; {@link #commit} completes it. */
        long output(HostBuffer buffer, long bytes) {
            ByteBuffer window = window(bytes);
            target = buffer.writable(0, (int) bytes, window);
            return addressOf(target.isDirect() ? target : window);
        }

        /** For MPI_IN_PLACE, after {@link #output}: the output's native bytes must hold the input. */
        long inPlaceInput(HostBuffer buffer, long bytes) {
            if (target.isDirect() && target != stage) {
                return addressOf(target); // the buffer's own memory already holds it
            }
            ByteBuffer view = buffer.readable(0, (int) bytes, stage); // an array copies itself into the stage
            if (view != stage) {
                copyInto(stage, view);
            }
            return addressOf(stage);
        }

        /** Copies what {@code from}'s last {@link #input} handed out into this stage's output (broadcast's root). */
        void fillFrom(Stage from) {
            ByteBuffer out = target.isDirect() ? target : stage;
            ByteBuffer in = from.lastInput.duplicate().clear();
            if (addressOf(out) != addressOf(in)) {
                out.duplicate().clear().put(in);
            }
        }

        void commit(HostBuffer buffer) {
            if (target != null) {
                if (!target.isDirect()) {
                    target.duplicate().clear().put(stage.duplicate().clear()); // a heap byte buffer's own bytes
                    buffer.commit(0, target.duplicate().clear());
                } else {
                    buffer.commit(0, target.duplicate().clear()); // copies a staged array in; nothing for a view
                }
            }
            target = null;
        }

        private static ByteBuffer copyInto(ByteBuffer window, ByteBuffer view) {
            window.clear();
            window.put(view.duplicate().clear());
            return window.clear();
        }

        /** {@code bytes} of native memory (at least one byte, so that every address is valid). */
        private ByteBuffer window(long bytes) {
            long need = Math.max(bytes, 1);
            if (memory == null || memory.size() < need) {
                if (memory != null) {
                    memory.close();
                }
                memory = new Memory(Math.max(need, 64));
            }
            stage = memory.getByteBuffer(0, bytes).order(java.nio.ByteOrder.nativeOrder());
            return stage;
        }

        private static long addressOf(ByteBuffer b) {
            return MpiLibrary.address(Native.getDirectBufferPointer(b)) + b.position();
        }

        @Override
        public void close() {
            if (memory != null) {
                memory.close();
                memory = null;
            }
        }
    }
}
