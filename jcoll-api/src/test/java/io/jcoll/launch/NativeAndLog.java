package io.jcoll.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A launched test rank: loads a native library (a restricted method since JDK 22) and logs one record. */
public final class NativeAndLog {

    private NativeAndLog() {
    }

    public static void main(String[] args) {
        Stream.of("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6")
                .filter(f -> Files.isRegularFile(Path.of(f))).findFirst().ifPresent(System::load);
        System.getLogger("io.jcoll.test").log(System.Logger.Level.WARNING, "one record, one line");
    }
}
