package io.jcoll.bootstrap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reports connections a listener refused (a wrong token, a port scanner,
 * garbage) without letting them flood the log: the first refusal from each
 * remote host is logged as a warning with its reason, later ones from that
 * host only at debug level, with their running count. Hosts are remembered up
 * to a bound, past which they share one entry, so that a scan from many
 * addresses costs bounded memory.
 */
public final class RefusalLog {

    private static final int MAX_HOSTS = 1024;
    private static final String OTHER_HOSTS = "other hosts";

    private final System.Logger log;
    private final String listener;
    private final ConcurrentHashMap<String, AtomicLong> byHost = new ConcurrentHashMap<>();
    private final AtomicLong total = new AtomicLong();

    /**
     * @param log      where to report
     * @param listener what refused, for the message (such as "store" or "rank 3")
     */
    public RefusalLog(System.Logger log, String listener) {
        this.log = log;
        this.listener = listener;
    }

    /**
     * Records one refused connection.
     *
     * @param remote the peer's address, as the socket reports it
     * @param reason why it was refused
     */
    public void refused(SocketAddress remote, String reason) {
        total.incrementAndGet();
        String host = hostOf(remote);
        AtomicLong count = byHost.get(host);
        if (count == null) {
            String key = byHost.size() < MAX_HOSTS ? host : OTHER_HOSTS;
            count = byHost.computeIfAbsent(key, k -> new AtomicLong());
        }
        long n = count.incrementAndGet();
        if (n == 1) {
            log.log(System.Logger.Level.WARNING, listener + ": refused a connection from " + remote + ": " + reason
                    + " (further refusals from this host are logged at debug level)");
        } else {
            log.log(System.Logger.Level.DEBUG, listener + ": refused connection " + n + " from " + remote + ": " + reason);
        }
    }

    /** @return connections refused so far, from every host */
    public long total() {
        return total.get();
    }

    private static String hostOf(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            InetAddress a = inet.getAddress();
            return a == null ? inet.getHostString() : a.getHostAddress();
        }
        return String.valueOf(remote);
    }
}
