package io.jcoll;

import io.jcoll.internal.Bootstrap;
import io.jcoll.spi.RendezvousExchange;
import io.jcoll.spi.Settings;

import java.time.Duration;

/**
 * Entry point: forms a {@link Communicator} from the environment or from
 * explicit settings.
 *
 * <pre>{@code
 * // under `jcoll launch`, torchrun, or with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set
 * Communicator comm = Jcoll.fromEnvironment();
 *
 * // explicitly
 * Communicator comm = Jcoll.builder().rank(r).size(4).master("10.0.0.1", 29500).token(secret).build();
 * }</pre>
 */
public final class Jcoll {

    private Jcoll() {
    }

    /**
     * Forms this rank's communicator from the environment: {@code RANK},
     * {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE},
     * {@code MASTER_ADDR}, {@code MASTER_PORT} (each overridable with a
     * {@code JCOLL_} prefix), {@code JCOLL_TOKEN}, {@code JCOLL_TIMEOUT},
     * {@code JCOLL_TRANSPORT}. Blocks until every rank has arrived.
     *
     * @return this rank's communicator
     */
    public static Communicator fromEnvironment() {
        return Bootstrap.create(Settings.fromEnvironment());
    }

    /**
     * Starts an explicit configuration; anything not set falls back to the environment.
     * <pre>{@code
     * Communicator comm = Jcoll.builder().rank(r).size(4).master("10.0.0.1", 29500).token(secret).build();
     * }</pre>
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder(Settings.fromEnvironment());
    }

    /** Explicit settings; anything not set falls back to the environment. */
    public static final class Builder {
        private Settings settings;
        private Bootstrap.GivenRendezvous rendezvous;

        private Builder(Settings base) {
            this.settings = base;
        }

        /**
         * Sets this rank, 0 to size - 1.
         *
         * @param rank this rank, 0 to size - 1
         * @return this builder
         */
        public Builder rank(int rank) { return set("JCOLL_RANK", rank); }
        /**
         * Sets the number of ranks.
         *
         * @param size the number of ranks
         * @return this builder
         */
        public Builder size(int size) { return set("JCOLL_WORLD_SIZE", size); }
        /**
         * Sets this rank's index among the ranks on its host.
         *
         * @param localRank this rank's index among the ranks on its host
         * @return this builder
         */
        public Builder localRank(int localRank) { return set("JCOLL_LOCAL_RANK", localRank); }
        /**
         * Sets the number of ranks on this host.
         *
         * @param localSize the number of ranks on this host
         * @return this builder
         */
        public Builder localSize(int localSize) { return set("JCOLL_LOCAL_WORLD_SIZE", localSize); }

        /**
         * Host and port of rank 0's rendezvous store.
         *
         * @param host the host of rank 0's store
         * @param port the port of rank 0's store
         * @return this builder
         */
        public Builder master(String host, int port) {
            set("JCOLL_MASTER_ADDR", host);
            return set("JCOLL_MASTER_PORT", port);
        }

        /**
         * Hands rank 0's rendezvous address (and a fresh token, unless one is set) to every rank through a channel
         * the ranks already share, instead of MASTER_ADDR and MASTER_PORT: rank 0 hosts the store on a free port, so
         * nothing is fixed or exposed before the ranks meet. jcoll-spark passes a Spark barrier stage's
         * {@code allGather}; the caller keeps and closes {@code exchange}.
         *
         * @param channel  what carries the address, as messages name it ({@code Spark barrier stage 3}, ...)
         * @param exchange the channel: every rank calls it once, at the same point
         * @return this builder
         */
        public Builder rendezvous(String channel, RendezvousExchange exchange) {
            this.rendezvous = new Bootstrap.GivenRendezvous(java.util.Objects.requireNonNull(channel, "channel"),
                    java.util.Objects.requireNonNull(exchange, "exchange"));
            return this;
        }

        /**
         * The job's shared secret; every rank must use the same one.
         *
         * @param token the job's shared secret
         * @return this builder
         */
        public Builder token(String token) { return set("JCOLL_TOKEN", token); }

        /**
         * Sets the limit of every blocking wait ({@code JCOLL_TIMEOUT}).
         *
         * @param timeout the limit
         * @return this builder
         */
        public Builder timeout(Duration timeout) { return set("JCOLL_TIMEOUT", timeout.toMillis() + "ms"); }

        /**
         * {@code auto}, {@code tcp}, {@code nccl}, ...
         *
         * @param name the transport's name
         * @return this builder
         */
        public Builder transport(String name) { return set("JCOLL_TRANSPORT", name); }

        /**
         * Confines the communicator to one thread ({@code JCOLL_THREADS=one}), the first that calls it (each
         * communicator split from it, likewise, to the first that calls that one), as MPI's
         * {@code MPI_THREAD_FUNNELED} does; in return its calls take no lock, and its small calls over shared memory
         * read no clock (their timeout runs from their first wait that blocks). A call from another thread is refused;
         * {@code abort()} may still come from any thread (a watchdog's), and the owner's next call or {@code close()}
         * then releases the transport. Asynchronous calls run on the communicator's worker as ever.
         *
         * @return this builder
         */
        public Builder confined() { return set("JCOLL_THREADS", "one"); }

        /**
         * Any other setting, by its environment-variable name.
         *
         * @param key the setting, by its environment-variable name
         * @param value its value (null removes it)
         * @return this builder
         */
        public Builder set(String key, Object value) {
            settings = settings.with(key, value == null ? null : String.valueOf(value));
            return this;
        }

        /**
         * Joins the group; blocks until every rank has arrived or the timeout passes.
         *
         * @return this rank's communicator
         */
        public Communicator build() {
            return Bootstrap.create(settings, rendezvous);
        }
    }
}
