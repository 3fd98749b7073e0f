package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * Two ranks on two hosts measure the link between them as a job sees it: the round trip of a 4-byte message (the
 * shortest of {@code args[0]} exchanges) and the rate of {@code args[1]} MB sent from rank 0 to rank 1 (the
 * fastest of three), both on rank 0, which prints {@code link: rtt-ms R rate-gbs G}. Checks that every byte
 * arrived as sent.
 */
public final class LinkProbeMain {

    private LinkProbeMain() {
    }

    public static void main(String[] args) throws Exception {
        int exchanges = Integer.parseInt(args[0]);
        int bytes = Integer.parseInt(args[1]) << 20;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int me = comm.rank();
            int peer = 1 - me;
            HostBuffer word = HostBuffer.of(ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()),
                    DataType.INT32);
            double rtt = Double.MAX_VALUE;
            for (int i = 0; i < exchanges; i++) {
                long start = System.nanoTime();
                if (me == 0) {
                    comm.send(word, 1, peer);
                    comm.recv(word, 1, peer);
                } else {
                    comm.recv(word, 1, peer);
                    comm.send(word, 1, peer);
                }
                rtt = Math.min(rtt, (System.nanoTime() - start) / 1e6);
            }
            ByteBuffer data = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            HostBuffer block = HostBuffer.of(data, DataType.INT8);
            double rate = 0;
            for (int round = 0; round < 3; round++) {
                if (me == 0) {
                    for (int i = 0; i < bytes; i++) {
                        data.put(i, (byte) (i * 31 + round));
                    }
                }
                comm.barrier();
                long start = System.nanoTime();
                if (me == 0) {
                    comm.send(block, bytes, peer);
                    comm.recv(word, 1, peer); // the receiver has it all
                } else {
                    comm.recv(block, bytes, peer);
                    comm.send(word, 1, peer);
                    for (int i = 0; i < bytes; i++) {
                        if (data.get(i) != (byte) (i * 31 + round)) {
                            throw new AssertionError("byte " + i + " of round " + round + " arrived wrong");
                        }
                    }
                }
                rate = Math.max(rate, bytes / ((System.nanoTime() - start) / 1e9) / 1e9);
            }
            if (me == 0) {
                System.out.printf(Locale.ROOT, "link: rtt-ms %.3f rate-gbs %.4f%n", rtt, rate);
            }
        }
    }
}
