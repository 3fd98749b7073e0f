package io.jcoll.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** External commands tests start (mpirun, mpiexec.mpich): whether they are installed. */
public final class Commands {

    private Commands() {
    }

    /** Whether {@code command} is an executable in a directory of the {@code PATH}. */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
