package io.jcoll.nccl;

import io.jcoll.DataType;
import io.jcoll.exceptions.JcollException;
import io.jcoll.gpu.Cuda;
import io.jcoll.gpu.GpuRuntime;
import io.jcoll.gpu.Nccl;
import io.jcoll.spi.Availability;
import io.jcoll.spi.PairExchange;
import io.jcoll.spi.Settings;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

import java.util.concurrent.TimeoutException;

/**
 * NCCL's send/recv between two hosts' GPUs for the job-wide doctor: the path a job on NCCL really takes between
 * nodes (InfiniBand, RoCE, or NCCL's own sockets on the interface it chose), which can fail or crawl where TCP between
 * the same hosts is fine. Both sides join a communicator of two from the token (NCCL's unique id), exchange a few
 * bytes each way so that connection set-up is not timed, then each direction moves its bytes in chunks while the
 * receiver times them. Every wait ends at the deadline, aborting the communicator.
 */
public final class NcclPairExchange implements PairExchange {

    /** The largest single send; a direction of more moves in several. */
    private static final long CHUNK = 64L << 20;
    private static final long SYNC_BYTES = 4;

    @Override
    public String name() {
        return "nccl";
    }

    @Override
    public Availability availability(Settings settings) {
        GpuRuntime.Status s = GpuRuntime.status();
        if (!s.available()) {
            return Availability.unusable(s.reason());
        }
        try {
            return Availability.usable("GPU " + device(settings, s.devices()) + " of " + s.devices());
        } catch (IllegalArgumentException e) {
            return Availability.unusable(e.getMessage());
        }
    }

    /**
     * The GPU the doctor uses: {@code JCOLL_DEVICE}, else GPU 0: the process that tests a host's links is the
     * host's lowest rank, local rank 0 in every launcher's numbering.
     */
    private static int device(Settings settings, int devices) {
        return GpuRuntime.deviceFor(settings, 0, devices);
    }

    @Override
    public byte[] token() {
        GpuRuntime.require("doctor", JcollException.NONE);
        return Nccl.uniqueId();
    }

    @Override
    public Received exchange(byte[] token, int side, long[] bytes, Settings settings, long deadlineNanos)
            throws TimeoutException {
        if (side != 0 && side != 1 || bytes.length != 2 || bytes[0] < 0 || bytes[1] < 0) {
            throw new IllegalArgumentException("side " + side + " of a pair, " + bytes.length + " volumes");
        }
        GpuRuntime.Status s = GpuRuntime.require("doctor", side);
        Cuda.setDevice(device(settings, s.devices()));
        long chunk = Math.max(SYNC_BYTES, Math.min(CHUNK, Math.max(bytes[0], bytes[1])));
        long buffer = Cuda.malloc(chunk);
        CUstream_st stream = Cuda.createStream();
        CUevent_st done = Cuda.createEvent();
        Nccl comm = null;
        try {
            comm = Nccl.join(token, side, 2, deadlineNanos);
            int peer = 1 - side;
            both(comm, buffer, peer, stream, done, deadlineNanos);
            Received received = null;
            for (int from = 0; from < 2; from++) {
                both(comm, buffer, peer, stream, done, deadlineNanos); // start each direction together
                long start = System.nanoTime();
                for (long left = bytes[from]; left > 0; left -= chunk) {
                    long n = Math.min(chunk, left);
                    if (side == from) {
                        comm.send(buffer, n, DataType.UINT8, peer, stream, deadlineNanos);
                    } else {
                        comm.recv(buffer, n, DataType.UINT8, peer, stream, deadlineNanos);
                    }
                }
                await(comm, stream, done, deadlineNanos, side == from ? "sending" : "receiving");
                if (side != from) {
                    received = new Received(bytes[from], System.nanoTime() - start);
                }
            }
            comm.close(deadlineNanos);
            comm = null;
            return received;
        } finally {
            if (comm != null) {
                comm.abort();
            }
            Cuda.destroy(done);
            Cuda.destroy(stream);
            Cuda.free(buffer);
        }
    }

    /** A few bytes each way at once: both sides leave it together. */
    private static void both(Nccl comm, long buffer, int peer, CUstream_st stream, CUevent_st done, long deadline)
            throws TimeoutException {
        comm.groupStart(deadline);
        comm.send(buffer, SYNC_BYTES, DataType.UINT8, peer, stream, deadline);
        comm.recv(buffer, SYNC_BYTES, DataType.UINT8, peer, stream, deadline);
        comm.groupEnd(deadline);
        await(comm, stream, done, deadline, "exchanging a few bytes");
    }

    /** Waits for the stream's work; at the deadline, or on NCCL's asynchronous error, aborts the communicator. */
    private static void await(Nccl comm, CUstream_st stream, CUevent_st done, long deadline, String step)
            throws TimeoutException {
        Cuda.record(done, stream);
        while (!Cuda.done(done)) {
            int error = comm.asyncError();
            if (error != 0 && error != org.bytedeco.cuda.global.nccl.ncclInProgress) {
                String why = comm.errorString(error);
                comm.abort();
                throw new IllegalStateException("NCCL failed while " + step + ": " + why);
            }
            if (System.nanoTime() - deadline > 0) {
                comm.abort();
                throw new TimeoutException("NCCL was still " + step + " at the deadline; the communicator was aborted");
            }
            Thread.onSpinWait();
        }
    }
}
