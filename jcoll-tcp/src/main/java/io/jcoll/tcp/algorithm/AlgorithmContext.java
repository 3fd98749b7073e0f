package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

/** What an algorithm runs with: the point-to-point layer, scratch memory and tuning. */
public record AlgorithmContext(PointToPoint p2p, Scratch scratch, Tuning tuning) {

    public int rank() {
        return p2p.rank();
    }

    public int size() {
        return p2p.size();
    }

    /** {@code (rank + delta) mod size}, for ring and pairing arithmetic. */
    public int peer(int delta) {
        return Math.floorMod(p2p.rank() + delta, p2p.size());
    }
}
