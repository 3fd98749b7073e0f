package io.jcoll.bootstrap;

import java.time.Duration;
import java.util.Optional;

/**
 * The rendezvous key-value store ranks use to find each other, like
 * torch's TCPStore: rank 0 hosts it, every rank reads and writes it.
 */
public interface Store extends AutoCloseable {

    void set(String key, byte[] value);

    /** Waits up to {@code timeout} for {@code key} to be set; empty if it never was. */
    Optional<byte[]> get(String key, Duration timeout);

    /** Atomically adds {@code delta} to the counter at {@code key} (0 if unset) and returns the sum. */
    long add(String key, long delta);

    /** Removes {@code key} if it is set, so that per-call keys do not pile up over a long job. */
    void delete(String key);

    @Override
    void close();

    /**
     * A view whose requests give up when the store has not answered within {@code replyLimit} beyond the time a
     * request itself asks the store to wait, for the paths that must end within JCOLL_TIMEOUT whatever happened to
     * the network (the diagnosis of a stalled call). A store in this process answers at once and is returned as is.
     */
    default Store bounded(Duration replyLimit) {
        return this;
    }

    /** A view that prefixes every key with {@code prefix}. */
    default Store scoped(String prefix) {
        Store base = this;
        return new Store() {
            @Override public Store bounded(Duration replyLimit) { return base.bounded(replyLimit).scoped(prefix); }
            @Override public void set(String key, byte[] value) { base.set(prefix + key, value); }
            @Override public Optional<byte[]> get(String key, Duration timeout) { return base.get(prefix + key, timeout); }
            @Override public long add(String key, long delta) { return base.add(prefix + key, delta); }
            @Override public void delete(String key) { base.delete(prefix + key); }
            @Override public void close() { base.close(); }
        };
    }
}
