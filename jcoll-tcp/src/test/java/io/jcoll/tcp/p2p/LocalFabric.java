package io.jcoll.tcp.p2p;

import io.jcoll.spi.Signature;
import io.jcoll.exceptions.CollectiveTimeoutException;

import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link PointToPoint} for testing algorithms without sockets:
 * a FIFO mailbox per ordered pair of ranks. Sends copy their bytes and
 * complete at once; receives complete when their message has been taken and
 * checked with the same {@link MatchCheck} the TCP transport uses.
 */
public final class LocalFabric {

    private record Message(Signature signature, byte[] bytes) {
    }

    private final int size;
    private final LinkedBlockingQueue<Message>[][] mailboxes;
    private final java.util.concurrent.atomic.AtomicLongArray sent; // payload bytes, by sender * size + receiver

    @SuppressWarnings("unchecked")
    public LocalFabric(int size) {
        this.size = size;
        this.mailboxes = new LinkedBlockingQueue[size][size];
        this.sent = new java.util.concurrent.atomic.AtomicLongArray(size * size);
        for (int i = 0; i < size; i++) {
            for (int j = 0; j < size; j++) {
                mailboxes[i][j] = new LinkedBlockingQueue<>();
            }
        }
    }

    /** Payload bytes rank {@code from} has sent to rank {@code to} so far: what the algorithms put on each link. */
    public long bytesSent(int from, int to) {
        return sent.get(from * size + to);
    }

    /** Rank {@code rank}'s endpoint. Not thread-safe: one thread per rank, as with a communicator. */
    public Endpoint endpoint(int rank) {
        return new Endpoint(rank);
    }

    public final class Endpoint implements PointToPoint {
        private final int rank;
        private Signature signature = new Signature(0, 0, -1, -1, 0, 0);
        private long timeoutNanos = TimeUnit.SECONDS.toNanos(30);

        Endpoint(int rank) {
            this.rank = rank;
        }

        public void begin(Signature signature, long timeoutNanos) {
            this.signature = signature;
            this.timeoutNanos = timeoutNanos;
        }

        @Override public int rank() { return rank; }
        @Override public int size() { return size; }

        @Override
        public Transfer send(int peer, ByteBuffer src) {
            byte[] copy = new byte[src.remaining()];
            src.duplicate().get(copy);
            src.position(src.limit());
            sent.addAndGet(rank * size + peer, copy.length);
            mailboxes[rank][peer].add(new Message(signature, copy));
            return () -> true;
        }

        @Override
        public Transfer recv(int peer, ByteBuffer dst) {
            return new Pending(peer, dst);
        }

        @Override
        public void await(Transfer... transfers) {
            for (Transfer t : transfers) {
                if (t instanceof Pending p && !p.done) {
                    p.complete();
                }
            }
        }

        @Override
        public boolean test(Transfer... transfers) {
            for (Transfer t : transfers) {
                if (t instanceof Pending p && !p.done && !p.tryComplete()) {
                    return false;
                }
            }
            return true;
        }

        private final class Pending implements Transfer {
            final int peer;
            final ByteBuffer dst;
            boolean done;

            Pending(int peer, ByteBuffer dst) {
                this.peer = peer;
                this.dst = dst;
            }

            void complete() {
                Message m;
                try {
                    m = mailboxes[peer][rank].poll(timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                if (m == null) {
                    throw new CollectiveTimeoutException("test", rank, peer, "nothing arrived from rank " + peer);
                }
                land(m);
            }

            /** Completes the receive if its message has arrived; never waits. */
            boolean tryComplete() {
                Message m = mailboxes[peer][rank].poll();
                if (m != null) {
                    land(m);
                }
                return done;
            }

            private void land(Message m) {
                MatchCheck.check("test", rank, peer, signature, dst.remaining(), m.signature(), m.bytes().length);
                dst.put(m.bytes());
                done = true;
            }

            @Override
            public boolean isDone() {
                return done;
            }
        }
    }
}
