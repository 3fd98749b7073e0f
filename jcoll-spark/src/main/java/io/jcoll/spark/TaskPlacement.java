package io.jcoll.spark;

import java.util.List;

/**
 * Where one task of a barrier stage stands among the stage's tasks, read from what Spark gives every task: its
 * partition id and the executors' addresses ({@code host:port}, by partition id). The rank is the partition id;
 * tasks whose executors share a host share a host in jcoll too (their local rank counts them in partition order),
 * whichever executor of the host they run in.
 *
 * @param rank         this task's partition id
 * @param size         the number of tasks in the stage
 * @param localRank    this task's index among the tasks on its host
 * @param localSize    the number of tasks on its host
 * @param host         this task's host, as Spark names it
 * @param rankZeroHost partition 0's host, where rank 0 hosts the rendezvous store
 */
record TaskPlacement(int rank, int size, int localRank, int localSize, String host, String rankZeroHost) {

    /**
     * @param addresses every task's executor address, by partition id ({@code BarrierTaskContext.getTaskInfos()})
     * @param partition this task's partition id
     * @throws IllegalArgumentException naming the partition when an address or the partition id makes no sense
     */
    static TaskPlacement of(List<String> addresses, int partition) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("Spark gave this barrier task no task addresses");
        }
        if (partition < 0 || partition >= addresses.size()) {
            throw new IllegalArgumentException("partition " + partition + " is not one of the stage's "
                    + addresses.size() + " tasks: a barrier stage's tasks are partitions 0 to " + (addresses.size() - 1));
        }
        String[] hosts = new String[addresses.size()];
        for (int p = 0; p < hosts.length; p++) {
            hosts[p] = hostOf(addresses.get(p), p);
        }
        int localRank = 0;
        int localSize = 0;
        for (int p = 0; p < hosts.length; p++) {
            if (hosts[p].equals(hosts[partition])) {
                localRank += p < partition ? 1 : 0;
                localSize++;
            }
        }
        return new TaskPlacement(partition, hosts.length, localRank, localSize, hosts[partition], hosts[0]);
    }

    /** Whether every task runs on one host (its ranks then meet on loopback). */
    boolean oneHost() {
        return localSize == size;
    }

    /** {@code host} of {@code host:port}, {@code [v6]:port} or a bare host; the partition is named when it is empty. */
    static String hostOf(String address, int partition) {
        String a = address == null ? "" : address.strip();
        String host;
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            host = close < 0 ? "" : a.substring(1, close);
        } else {
            int colon = a.lastIndexOf(':');
            // two colons or more without brackets: a bare IPv6 address
            host = colon < 0 || a.indexOf(':') != colon ? a : a.substring(0, colon);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("Spark gave partition " + partition + " the executor address '"
                    + address + "', which names no host");
        }
        return host;
    }
}
