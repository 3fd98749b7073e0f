package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;

/** Forms communicators for ranks running as threads of one JVM (or as processes), over the shm transport. */
final class ShmGroup {

    static final String TOKEN = "test-token-0123456789";

    private ShmGroup() {
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Jcoll.Builder builder(int rank, int n, int port, String transport, Map<String, String> settings) {
        Jcoll.Builder b = Jcoll.builder().rank(rank).size(n).master("127.0.0.1", port).token(TOKEN)
                .transport(transport).timeout(java.time.Duration.ofSeconds(60));
        settings.forEach(b::set);
        return b;
    }

    static Communicator join(int rank, int n, int port, Map<String, String> settings) {
        return builder(rank, n, port, "shm", settings).build();
    }
}
