package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A launched rank that runs one AllReduce and prints what {@code comm.transport()} says, and the CPU masks its
 * threads have afterwards (every distinct {@code Cpus_allowed_list} of {@code /proc/self/task/*}, with how many
 * threads have it): the JVM's own threads were started before jcoll ran, jcoll's after.
 */
public final class TransportReportMain {

    private TransportReportMain() {
    }

    public static void main(String[] args) throws IOException {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            comm.allReduce(HostBuffer.of(new float[] {1}), ReduceOp.SUM);
            System.out.println("rank " + comm.rank() + " transport: " + comm.transport());
            System.out.println("rank " + comm.rank() + " thread masks: " + threadMasks());
        }
    }

    private static TreeSet<String> threadMasks() throws IOException {
        TreeSet<String> masks = new TreeSet<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    Files.readAllLines(task.resolve("status")).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                            .map(l -> l.substring("Cpus_allowed_list:".length()).trim()).forEach(masks::add);
                } catch (IOException ended) {
                    // the thread ended while we looked
                }
            }
        }
        return masks;
    }
}
