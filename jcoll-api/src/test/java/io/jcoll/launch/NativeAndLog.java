package io.jcoll.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A launched test rank: loads a native library (a restricted method since JDK 22), frees a direct buffer through
 * {@code sun.misc.Unsafe.invokeCleaner} as the shared-memory transport unmaps its segments (JDK 24 and later warn
 * at the first use), and logs one record.
 */
public final class NativeAndLog {

    private NativeAndLog() {
    }

    public static void main(String[] args) {
        Stream.of("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6")
                .filter(f -> Files.isRegularFile(Path.of(f))).findFirst().ifPresent(System::load);
        try {
            Class<?> unsafe = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field f = unsafe.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe.getMethod("invokeCleaner", java.nio.ByteBuffer.class).invoke(f.get(null),
                    java.nio.ByteBuffer.allocateDirect(64));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        System.getLogger("io.jcoll.test").log(System.Logger.Level.WARNING, "one record, one line");
    }
}
