package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;

/** Forms communicators for ranks running as threads of one JVM, over real TCP on loopback. */
public final class TcpGroup {

    public static final String TOKEN = "test-token-0123456789";

    private TcpGroup() {
    }

    /** A port that was free a moment ago, for rank 0's store. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** This rank's builder for a job of {@code n} ranks on {@code port}, with extra settings. */
    public static Jcoll.Builder builder(int rank, int n, int port, Map<String, String> settings) {
        Jcoll.Builder b = Jcoll.builder().rank(rank).size(n).master("127.0.0.1", port).token(TOKEN)
                .transport("tcp").timeout(java.time.Duration.ofSeconds(60));
        settings.forEach(b::set);
        return b;
    }

    public static Communicator join(int rank, int n, int port, Map<String, String> settings) {
        return builder(rank, n, port, settings).build();
    }
}
