package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.gpu.Cuda;
import io.jcoll.gpu.DeviceBuffer;
import io.jcoll.nccl.NcclAccess;

/**
 * Gradients on the GPU, averaged with NCCL on a CUDA stream of the caller's own
 * (as a training framework would hand over its compute stream). One rank per
 * GPU: {@code ./jcoll launch -n 2 -- io.jcoll.examples.DeviceAllReduce}.
 */
public final class DeviceAllReduce {

    private DeviceAllReduce() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            NcclAccess nccl = comm.unwrap(NcclAccess.class).orElseThrow(() -> new IllegalStateException(
                    "this example needs the NCCL transport; jcoll chose " + comm.transport()));
            int count = 1 << 24;
            float[] host = new float[count];
            java.util.Arrays.fill(host, comm.rank() + 1);
            try (DeviceBuffer grads = DeviceBuffer.allocate(nccl.device(), DataType.FLOAT32, count)) {
                grads.copyFrom(HostBuffer.of(host));
                Cuda.setDevice(nccl.device());
                long myStream = Cuda.createStream().address();      // stands in for a framework's stream
                nccl.useStream(myStream);
                comm.allReduceAsync(grads, grads, count, ReduceOp.AVG).await();
                grads.copyTo(HostBuffer.of(host));
            }
            float expected = (comm.size() + 1) / 2f;
            for (float x : host) {
                if (x != expected) {
                    throw new AssertionError("expected " + expected + ", got " + x);
                }
            }
            System.out.println("rank " + comm.rank() + " on GPU " + nccl.device() + ": 64 MB averaged on the caller's "
                    + "stream, every element " + expected);
        }
    }
}
