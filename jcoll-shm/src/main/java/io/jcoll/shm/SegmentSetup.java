package io.jcoll.shm;

import io.jcoll.bootstrap.Store;
import io.jcoll.spi.TransportContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;

/**
 * Forms a group's segment through the rendezvous store. Rank 0 creates it and publishes its name, stamp and
 * layout; every other rank opens and checks it, and says whether it could; rank 0 unlinks the file as soon as
 * every rank has answered (or the timeout passed), then publishes one verdict that all ranks act on alike. Ranks
 * that cannot share the file (on different hosts, or with different segment directories, whatever their host
 * names say) all fail with the same {@link io.jcoll.exceptions.TransportUnavailableException}, so that
 * {@code auto} can fall back to the next transport together; a file is never left behind.
 */
final class SegmentSetup {

    private static final String SEGMENT = "shm/segment";
    private static final String ATTACHED = "shm/attached/";
    private static final String VERDICT = "shm/verdict";
    private static final String FAILED = "!";
    private static final SecureRandom RANDOM = new SecureRandom();

    private SegmentSetup() {
    }

    static Segment join(TransportContext ctx) {
        return ctx.rank() == 0 ? create(ctx) : attach(ctx);
    }

    private static Segment create(TransportContext ctx) {
        Store store = ctx.store();
        ShmDirectory dir = ShmDirectory.of(ctx.settings());
        Layout layout;
        Segment segment;
        long nonce = RANDOM.nextLong();
        try {
            layout = Layout.from(ctx.settings(), ctx.size());
            dir.sweepStale();
            segment = createFresh(dir, layout, nonce);
        } catch (IOException | RuntimeException e) {
            String why = "rank 0 could not create a segment in " + dir.path() + ": " + e.getMessage();
            store.set(SEGMENT, (FAILED + why).getBytes(StandardCharsets.UTF_8));
            throw ShmTransport.unavailable(0, why);
        }
        store.set(SEGMENT, (segment.path().getFileName() + "\n" + nonce + "\n" + layout.encode()).getBytes(StandardCharsets.UTF_8));
        String verdict = null;
        try {
            long deadline = System.nanoTime() + ctx.timeout().toNanos();
            for (int r = 1; r < ctx.size() && verdict == null; r++) {
                Optional<byte[]> answer = store.get(ATTACHED + r, left(deadline));
                if (answer.isEmpty()) {
                    verdict = "rank " + r + " did not open the segment within JCOLL_TIMEOUT";
                } else if (answer.get().length > 0 && answer.get()[0] == FAILED.charAt(0)) {
                    verdict = "rank " + r + " " + new String(answer.get(), StandardCharsets.UTF_8).substring(1);
                }
            }
        } finally {
            segment.unlink(); // every rank has it mapped, or will never map it: the name has done its work
        }
        store.set(VERDICT, (verdict == null ? "ok" : FAILED + verdict).getBytes(StandardCharsets.UTF_8));
        if (verdict != null) {
            segment.close();
            throw ShmTransport.unavailable(0, verdict);
        }
        return segment;
    }

    /** A fresh name; a file already there under it (a stale one, or another job's) is passed over. */
    private static Segment createFresh(ShmDirectory dir, Layout layout, long nonce) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path path = dir.freshName();
            try {
                return Segment.create(path, layout, nonce);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static Segment attach(TransportContext ctx) {
        Store store = ctx.store();
        int rank = ctx.rank();
        long deadline = System.nanoTime() + ctx.timeout().toNanos();
        String published = store.get(SEGMENT, left(deadline)).map(b -> new String(b, StandardCharsets.UTF_8))
                .orElseThrow(() -> ShmTransport.setupFailed(rank, 0, "rank 0 never published the shared segment"));
        if (published.startsWith(FAILED)) {
            throw ShmTransport.unavailable(rank, published.substring(1));
        }
        String[] f = published.split("\n");
        if (f.length != 3 || !ShmDirectory.isSegmentName(f[0])) {
            throw ShmTransport.setupFailed(rank, 0, "rank 0 published no segment this rank can use: '"
                    + published.replace('\n', ' ') + "'");
        }
        Segment segment = null;
        String failure = null;
        // by name in this rank's own directory: a rank elsewhere (another host, another JCOLL_SHM_DIR) finds nothing
        Path path = ShmDirectory.of(ctx.settings()).path().resolve(f[0]);
        try {
            segment = Segment.open(path, Layout.decode(f[2]), Long.parseLong(f[1]));
        } catch (IOException | RuntimeException e) {
            failure = "could not open " + path + " (" + e + "): its segment directory is not rank 0's "
                    + "(another host, or another " + ShmDirectory.VARIABLE + ")";
        }
        store.set(ATTACHED + rank, (failure == null ? "ok" : FAILED + failure).getBytes(StandardCharsets.UTF_8));
        String verdict = store.get(VERDICT, left(deadline)).map(b -> new String(b, StandardCharsets.UTF_8))
                .orElse(FAILED + "rank 0 gave no verdict on the shared segment within JCOLL_TIMEOUT");
        if (verdict.startsWith(FAILED)) {
            if (segment != null) {
                segment.close();
            }
            throw ShmTransport.unavailable(rank, verdict.substring(1));
        }
        return segment;
    }

    /** Once every rank holds the segment: its keys are not needed any more (a loop of splits must not grow the store). */
    static void forget(TransportContext ctx) {
        if (ctx.rank() == 0) {
            ctx.store().delete(SEGMENT);
            ctx.store().delete(VERDICT);
        } else {
            ctx.store().delete(ATTACHED + ctx.rank());
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }
}
