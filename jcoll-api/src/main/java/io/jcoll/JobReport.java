package io.jcoll;

import java.util.List;

/**
 * What the job-wide doctor found ({@link Communicator#doctor()}, {@code jcoll doctor --run} under a launcher):
 * the differences between nodes that make one node slower than the rest or break the job, each node's own traps,
 * and the network between every pair of hosts. The same report on every rank.
 *
 * <pre>{@code
 * JobReport report = comm.doctor();
 * for (JobReport.Finding f : report.findings()) {
 *     System.err.println(f.hosts() + ": " + f.problem() + "\n  fix: " + f.fix());
 * }
 * }</pre>
 *
 * @param hosts    the hosts of the job, in the order of their lowest rank
 * @param findings what is wrong, each with its fix and the hosts it concerns; empty when all is well
 * @param links    the measured network between each ordered pair of hosts
 * @param text     the report as the doctor prints it
 * @param json     the report as a JSON document (its {@code schema} changes only when a field changes meaning)
 */
public record JobReport(List<String> hosts, List<Finding> findings, List<Link> links, String text, String json) {

    /**
     * One problem, with what to do about it.
     *
     * @param problem what is wrong and what it costs
     * @param fix     what to do
     * @param hosts   the hosts it concerns (empty when it concerns the job, not hosts)
     */
    public record Finding(String problem, String fix, List<String> hosts) {
    }

    /**
     * One direction between two hosts, as a short exchange measured it: TCP between their data interfaces, and
     * where every node can run NCCL, NCCL's own send/recv between their GPUs (the network NCCL chose).
     *
     * @param from          the sending host
     * @param to            the receiving host
     * @param reachable     whether a connection was made
     * @param gbitPerSecond the bandwidth measured at the receiver (0 when unreachable)
     * @param note          why it is unreachable or incomplete; empty when the exchange went as planned
     * @param path          what carried it: {@link #TCP}, or the transport's name ({@code "nccl"})
     */
    public record Link(String from, String to, boolean reachable, double gbitPerSecond, String note, String path) {

        /** The path of the TCP exchange between data interfaces. */
        public static final String TCP = "tcp";
    }

    /** {@return whether nothing was found wrong} */
    public boolean healthy() {
        return findings.isEmpty();
    }
}
