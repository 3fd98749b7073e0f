package io.jcoll.testing;

import java.io.File;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * What this JVM holds that a communicator could leak, for the tests that count it before and after: threads (of
 * the main group, where jcoll and the ranks start theirs), open file descriptors and direct memory in use.
 *
 * @param threads         {@link Thread#activeCount}
 * @param fileDescriptors entries of {@code /proc/self/fd}; -1 where it cannot be listed
 * @param directBytes     the JDK's direct buffer pool in use
 */
public record Resources(int threads, long fileDescriptors, long directBytes) {

    public static Resources now() {
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            }
        }
        String[] fds = new File("/proc/self/fd").list();
        return new Resources(Thread.activeCount(), fds == null ? -1 : fds.length, direct);
    }
}
