package io.jcoll.shm;

import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.spi.SharedFiles;
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

    /** What a rank writes for others: its text, or its reason for failing marked as such. */
    private static byte[] said(String text, boolean failed) {
        return ((failed ? FAILED : "") + text).getBytes(StandardCharsets.UTF_8);
    }

    /** The reason in something {@link #said} as a failure, or null for any other text. */
    private static String failureIn(String text) {
        return text.startsWith(FAILED) ? text.substring(FAILED.length()) : null;
    }

    /** Thrown when the ranks cannot share a segment: the same on every rank, so that auto falls back together. */
    private static TransportUnavailableException unavailable(int rank, String why) {
        return new TransportUnavailableException("bootstrap", rank, JcollException.NONE,
                "the shm transport cannot run: " + why);
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
            boolean crews = ShmTransport.crewed(ctx.settings(), ctx.localSize());
            layout = Layout.from(ctx.settings(), ctx.size(), dir.room(), crews);
            dir.sweepStale();
            segment = createFresh(dir, layout, nonce);
        } catch (IOException | RuntimeException e) {
            String why = "rank 0 could not create a segment in " + dir.path() + ": " + e.getMessage();
            store.set(SEGMENT, said(why, true));
            throw unavailable(0, why);
        }
        store.set(SEGMENT, said(segment.path().getFileName() + "\n" + nonce + "\n" + layout.encode(), false));
        String verdict = null;
        try {
            long deadline = System.nanoTime() + ctx.timeout().toNanos();
            for (int r = 1; r < ctx.size() && verdict == null; r++) {
                Optional<String> answer = store.get(ATTACHED + r, left(deadline))
                        .map(b -> new String(b, StandardCharsets.UTF_8));
                if (answer.isEmpty()) {
                    verdict = "rank " + r + " did not open the segment within JCOLL_TIMEOUT";
                } else if (failureIn(answer.get()) != null) {
                    verdict = "rank " + r + " " + failureIn(answer.get());
                }
            }
        } finally {
            segment.unlink(); // every rank has it mapped, or will never map it: the name has done its work
        }
        store.set(VERDICT, said(verdict == null ? "ok" : verdict, verdict != null));
        if (verdict != null) {
            segment.close();
            throw unavailable(0, verdict);
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
                .orElseThrow(() -> new BootstrapException("bootstrap", rank, 0, "rank 0 never published the shared segment"));
        if (failureIn(published) != null) {
            throw unavailable(rank, failureIn(published));
        }
        String[] f = published.split("\n");
        if (f.length != 3 || !ShmDirectory.isSegmentName(f[0])) {
            throw new BootstrapException("bootstrap", rank, 0, "rank 0 published no segment this rank can use: '"
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
                    + "(another host, or another " + SharedFiles.DIR_VARIABLE + ")";
        }
        store.set(ATTACHED + rank, said(failure == null ? "ok" : failure, failure != null));
        Optional<String> verdict = store.get(VERDICT, left(deadline)).map(b -> new String(b, StandardCharsets.UTF_8));
        String refused = verdict.isEmpty() ? "rank 0 gave no verdict on the shared segment within JCOLL_TIMEOUT"
                : failureIn(verdict.get());
        if (refused != null) {
            if (segment != null) {
                segment.close();
            }
            throw unavailable(rank, refused);
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
