package io.jcoll;

import java.util.List;

/**
 * Which transport a communicator uses and why, agreed by every rank.
 * <pre>{@code
 * TransportInfo t = comm.transport();
 * System.out.println(t.name() + ": " + t.reason());      // nccl: the most preferred transport every rank can run ...
 * t.rejected().forEach(System.out::println);             // mpi passed over: rank 2 cannot use it: ...
 * }</pre>
 *
 * @param name       the transport, such as {@code tcp}
 * @param requested  what was asked for: {@code auto} or a name
 * @param reason     why this transport, in one sentence
 * @param rejected   the transports passed over, each with the rank and reason
 */
public record TransportInfo(String name, String requested, String reason, List<String> rejected) {

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(name).append(" (").append(requested).append("): ").append(reason);
        for (String r : rejected) {
            b.append("; ").append(r);
        }
        return b.toString();
    }
}
