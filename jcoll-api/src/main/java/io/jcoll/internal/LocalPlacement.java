package io.jcoll.internal;

import io.jcoll.bootstrap.JobConfig;
import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;

/**
 * Counts which ranks share a host, through the store, so that LOCAL_RANK and LOCAL_WORLD_SIZE need not be given
 * (with one rank per host, "local rank = rank" would send rank 3 to GPU 3 of a one-GPU host), and so that given
 * values are checked. Each rank takes a slot under its host's id and writes its rank there; once every rank has
 * (a counter reaching the world size), each reads only its own host's slots: a host's ranks in rank order are its
 * local ranks. A rank's store traffic is a few requests plus one per rank of its host.
 */
final class LocalPlacement {

    private LocalPlacement() {
    }

    /**
     * This rank's host as the ranks counted it.
     *
     * @param cfg   the configuration with this rank's local rank and size counted
     * @param notes what each rank of the host said of itself, by rank (its CPU mask: {@link CpuPlacement})
     */
    record Host(JobConfig cfg, Map<Integer, String> notes) {
    }

    /** Counts the ranks of each host; {@code note} travels with this rank's slot to the others of its host. */
    static Host count(Store store, JobConfig cfg, long hostId, String note) {
        if (cfg.size() == 1) {
            return new Host(cfg.withLocal(0, 1), Map.of(cfg.rank(), note));
        }
        checkShape(store, cfg);
        String host = "hosts/" + Long.toHexString(hostId) + "/";
        long slot = store.add(host + "count", 1) - 1;
        byte[] text = note.getBytes(StandardCharsets.UTF_8);
        store.set(host + slot, ByteBuffer.allocate(4 + text.length).putInt(cfg.rank()).put(text).array());
        if (store.add("hosts/arrived", 1) == cfg.size()) {
            store.set("hosts/all", new byte[0]);
        }
        if (store.get("hosts/all", cfg.timeout()).isEmpty()) {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < cfg.size(); r++) {
                if (store.add("ranks/" + r, 0) == 0) { // every rank that arrived counted itself in (checkShape)
                    missing.add(r);
                }
            }
            throw new BootstrapException("bootstrap", cfg.rank(), missing.isEmpty() ? JcollException.NONE
                    : missing.get(0), "only " + (cfg.size() - missing.size()) + " of " + cfg.size() + " ranks reached "
                    + "the rendezvous within " + cfg.timeout().toSeconds() + " s (JCOLL_TIMEOUT): rank(s) " + missing
                    + " never arrived; check that every rank was started with the same MASTER_ADDR, MASTER_PORT and "
                    + "WORLD_SIZE");
        }
        long count = store.add(host + "count", 0);
        List<Integer> ranks = new ArrayList<>();
        Map<Integer, String> notes = new HashMap<>();
        for (long s = 0; s < count; s++) {
            Optional<byte[]> r = store.get(host + s, cfg.timeout()); // written before its writer counted itself in
            r.ifPresent(v -> {
                int who = ByteBuffer.wrap(v).getInt();
                ranks.add(who);
                notes.put(who, new String(v, 4, v.length - 4, StandardCharsets.UTF_8));
            });
        }
        ranks.sort(null);
        int localRank = ranks.indexOf(cfg.rank());
        int localSize = ranks.size();
        List<String> wrong = new ArrayList<>();
        if (cfg.localRankGiven() && cfg.localRank() != localRank) {
            wrong.add("LOCAL_RANK=" + cfg.localRank() + " where this rank is local rank " + localRank);
        }
        if (cfg.localSizeGiven() && cfg.localSize() != localSize) {
            wrong.add("LOCAL_WORLD_SIZE=" + cfg.localSize() + " where " + localSize + " rank(s) run here");
        }
        if (!wrong.isEmpty()) {
            throw new BootstrapException("bootstrap", cfg.rank(), JcollException.NONE, String.join(" and ", wrong)
                    + ": the ranks on this host (by host name, or JCOLL_HOST_ID) are " + ranks + ". Fix the launcher's "
                    + "placement, leave LOCAL_RANK and LOCAL_WORLD_SIZE unset to let jcoll count them, or give hosts "
                    + "that share a name distinct JCOLL_HOST_ID values");
        }
        return new Host(cfg.withLocal(localRank, localSize), notes);
    }

    /**
     * Ranks started with another world size than rank 0's (nodes launched with different {@code --nnodes} or
     * {@code --nproc-per-node}), or two processes with one rank (two nodes with the same {@code --node-rank}),
     * fail at once naming the cause, instead of waiting at the rendezvous for ranks that are not coming.
     */
    private static void checkShape(Store store, JobConfig cfg) {
        if (store.add("ranks/" + cfg.rank(), 1) > 1) {
            throw new BootstrapException("bootstrap", cfg.rank(), JcollException.NONE, "another process already "
                    + "joined this job as rank " + cfg.rank() + ": two nodes were started with the same --node-rank, or "
                    + "two processes with the same RANK");
        }
        if (cfg.rank() == 0) {
            store.set("world/size", ByteBuffer.allocate(4).putInt(cfg.size()).array());
            return;
        }
        Optional<byte[]> zero = store.get("world/size", cfg.timeout());
        int size = zero.map(v -> ByteBuffer.wrap(v).getInt()).orElse(cfg.size());
        if (size != cfg.size()) {
            throw new BootstrapException("bootstrap", cfg.rank(), 0, "this rank was started with WORLD_SIZE="
                    + cfg.size() + " but rank 0 with " + size + ": start every node with the same --nnodes and "
                    + "--nproc-per-node (or WORLD_SIZE)");
        }
    }
}
