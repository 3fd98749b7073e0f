package io.jcoll;

import io.jcoll.internal.Bootstrap;
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
     */
    public static Communicator fromEnvironment() {
        return Bootstrap.create(Settings.fromEnvironment());
    }

    public static Builder builder() {
        return new Builder(Settings.fromEnvironment());
    }

    /** Explicit settings; anything not set falls back to the environment. */
    public static final class Builder {
        private Settings settings;

        private Builder(Settings base) {
            this.settings = base;
        }

        public Builder rank(int rank) { return set("JCOLL_RANK", rank); }
        public Builder size(int size) { return set("JCOLL_WORLD_SIZE", size); }
        public Builder localRank(int localRank) { return set("JCOLL_LOCAL_RANK", localRank); }
        public Builder localSize(int localSize) { return set("JCOLL_LOCAL_WORLD_SIZE", localSize); }

        /** Host and port of rank 0's rendezvous store. */
        public Builder master(String host, int port) {
            set("JCOLL_MASTER_ADDR", host);
            return set("JCOLL_MASTER_PORT", port);
        }

        /** The job's shared secret; every rank must use the same one. */
        public Builder token(String token) { return set("JCOLL_TOKEN", token); }

        public Builder timeout(Duration timeout) { return set("JCOLL_TIMEOUT", timeout.toMillis() + "ms"); }

        /** {@code auto}, {@code tcp}, {@code nccl}, ... */
        public Builder transport(String name) { return set("JCOLL_TRANSPORT", name); }

        /** Any other setting, by its environment-variable name. */
        public Builder set(String key, Object value) {
            settings = settings.with(key, value == null ? null : String.valueOf(value));
            return this;
        }

        /** Joins the group; blocks until every rank has arrived or the timeout passes. */
        public Communicator build() {
            return Bootstrap.create(settings);
        }
    }
}
