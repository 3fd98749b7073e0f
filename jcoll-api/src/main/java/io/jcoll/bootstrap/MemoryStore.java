package io.jcoll.bootstrap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** The store's data in this process: what {@link StoreServer} serves, and a single-rank job's whole store. */
public final class MemoryStore implements Store {

    private final Map<String, byte[]> entries = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean closed;

    @Override
    public void set(String key, byte[] value) {
        lock.lock();
        try {
            entries.put(key, value.clone());
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<byte[]> get(String key, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                byte[] v = entries.get(key);
                if (v != null) {
                    return Optional.of(v.clone());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    return Optional.empty();
                }
                changed.await(left, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    /** @throws IllegalArgumentException if {@code key} holds a value that {@link #set} stored, not a counter */
    @Override
    public long add(String key, long delta) {
        lock.lock();
        try {
            byte[] old = entries.get(key);
            long sum = (old == null ? 0 : counterValue(key, old)) + delta;
            entries.put(key, Long.toString(sum).getBytes(StandardCharsets.UTF_8));
            changed.signalAll();
            return sum;
        } finally {
            lock.unlock();
        }
    }

    private static long counterValue(String key, byte[] value) {
        try {
            return Long.parseLong(new String(value, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("store key '" + key + "' holds a value, not a counter: add() cannot "
                    + "add to it");
        }
    }

    @Override
    public void delete(String key) {
        lock.lock();
        try {
            entries.remove(key);
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter; later waits return at once. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
