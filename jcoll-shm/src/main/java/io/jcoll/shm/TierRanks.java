package io.jcoll.shm;

import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.exceptions.TransportUnavailableException;

import java.util.Arrays;

/**
 * One tier's numbering of the ranks, against the communicator's. A tier is a communicator of its own among some
 * of the ranks, and numbers them from 0: rank 3 of the job may be rank 1 of its host's tier. What a tier raises
 * goes to the caller in the communicator's numbering, and what the communicator hands a tier (the failure it
 * aborts with) in the tier's, so that neither a message nor a rank a transport acts on means another rank than
 * the one it names.
 */
final class TierRanks {

    /** What the tier is, for messages: "shared memory on host 1". */
    private final String tier;
    /** The communicator's rank of each of the tier's. */
    private final int[] members;

    TierRanks(String tier, int[] members) {
        this.tier = tier;
        this.members = members.clone();
    }

    /**
     * {@code e}, raised by the tier, as the communicator raises it: the same kind of failure, its rank and peer
     * the communicator's, its text led by which tier's numbering it quotes. A failure the communicator handed
     * the tier comes back as it was.
     */
    JcollException toCommunicator(JcollException e) {
        if (e instanceof Handed handed) {
            return handed.original;
        }
        String detail = "in " + tier + " (its ranks 0-" + (members.length - 1) + " are ranks "
                + Arrays.toString(members) + " here): " + e.detail();
        return like(e, communicatorRank(e.rank()), communicatorRank(e.peer()), detail);
    }

    /**
     * {@code cause}, which the communicator aborts or interrupts with, as the tier takes it: the rank it blames is
     * the tier's number for that rank, or none where that rank is not in the tier (a tier must not act on a
     * number that names another of its ranks, or none); its message stays the communicator's.
     */
    Throwable toTier(Throwable cause) {
        if (!(cause instanceof JcollException j)) {
            return cause;
        }
        return new Handed(j, tierRank(j.peer()));
    }

    private int communicatorRank(int tierRank) {
        return tierRank >= 0 && tierRank < members.length ? members[tierRank] : JcollException.NONE;
    }

    private int tierRank(int communicatorRank) {
        for (int i = 0; i < members.length; i++) {
            if (members[i] == communicatorRank) {
                return i;
            }
        }
        return JcollException.NONE;
    }

    /** A failure of {@code e}'s kind with another rank, peer and detail; {@code e} is its cause. */
    private static JcollException like(JcollException e, int rank, int peer, String detail) {
        String op = e.operation();
        // subclasses before the classes they extend
        if (e instanceof TransportUnavailableException) {
            return new TransportUnavailableException(op, rank, peer, detail, e);
        }
        if (e instanceof BootstrapException) {
            return new BootstrapException(op, rank, peer, detail, e);
        }
        if (e instanceof CollectiveMismatchException) {
            return new CollectiveMismatchException(op, rank, peer, detail, e);
        }
        if (e instanceof CollectiveTimeoutException) {
            return new CollectiveTimeoutException(op, rank, peer, detail, e);
        }
        if (e instanceof CommunicatorClosedException) {
            return new CommunicatorClosedException(op, rank, peer, detail, e);
        }
        if (e instanceof InvalidArgumentException) {
            return new InvalidArgumentException(op, rank, peer, detail, e);
        }
        if (e instanceof PeerFailureException) {
            return new PeerFailureException(op, rank, peer, detail, e);
        }
        if (e instanceof ProtocolException) {
            return new ProtocolException(op, rank, peer, detail, e);
        }
        return new JcollException(op, rank, peer, detail, e);
    }

    /**
     * The communicator's failure as a tier sees it: the peer in the tier's numbering, the message (which the tier
     * passes on to its peers) the communicator's own, and the original kept to give back.
     */
    private static final class Handed extends JcollException {
        private final JcollException original;

        Handed(JcollException original, int peer) {
            super(original.operation(), JcollException.NONE, peer, original.detail(), original);
            this.original = original;
        }

        @Override
        public String getMessage() {
            return original.getMessage();
        }
    }
}
