package io.jcoll.spi;

import io.jcoll.bootstrap.Store;

import java.net.InetAddress;
import java.time.Duration;

/**
 * What a transport gets to open with: this rank's place in the job, the
 * rendezvous store (keys already scoped to this communicator), the address to
 * publish for peers, and the job's settings.
 *
 * @param rank          this rank
 * @param size          number of ranks
 * @param localRank     this rank's index on its host
 * @param localSize     ranks on this host
 * @param hostId        this rank's host identity (a hash of its host name, or of JCOLL_HOST_ID): equal on the ranks
 *                      of one host, so that a transport can learn which of its ranks share a host
 * @param store         rendezvous store, scoped to this communicator
 * @param advertiseAddress the local address peers can reach this rank at
 * @param token         the job's shared secret for authenticating connections (may be empty)
 * @param timeout       limit for every blocking wait
 * @param settings      jcoll settings (environment and builder options)
 */
public record TransportContext(int rank, int size, int localRank, int localSize, long hostId, Store store,
                               InetAddress advertiseAddress, byte[] token, Duration timeout,
                               Settings settings) {

    /**
     * The context of a sub-group this rank joins ({@code request} included it): its place in the group, the
     * store scoped to the group, everything else as here.
     */
    public TransportContext forGroup(SplitRequest request) {
        return new TransportContext(request.rank(), request.size(), request.localRank(), request.localSize(), hostId,
                store.scoped(request.scope()), advertiseAddress, token, timeout, settings);
    }
}
