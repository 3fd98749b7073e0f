package io.jcoll.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Finds a shared library the way users install them, in this order: an
 * explicit path ({@code JCOLL_NCCL_LIBRARY}, {@code JCOLL_CUDART_LIBRARY}),
 * {@code LD_LIBRARY_PATH}, {@code CUDA_HOME} and {@code /usr/local/cuda}, a
 * conda prefix, the NVIDIA Python wheels of an active or system Python
 * ({@code site-packages/nvidia/nccl/lib}, {@code site-packages/nvidia/cu13/lib}),
 * and the dynamic linker's cache. Every place looked at is remembered, so a
 * miss can say where it looked.
 */
public final class LibraryFinder {

    /** A library found: its file, and which of the places above it came from. */
    public record Found(Path path, String source) {
    }

    /** The outcome of a search: what was found (if anything) and everywhere that was looked at. */
    public record Search(String soname, Found found, List<String> looked) {
        /** Every place looked at, for {@code jcoll doctor}. */
        public String describeMiss() {
            return soname + " was not found; looked in: " + String.join(", ", looked);
        }

        /** One line for reasons that are repeated on every run (a transport passed over): the places are counted. */
        public String summarizeMiss() {
            return soname + " was not found in the " + looked.size() + " places searched (`jcoll doctor` lists them)";
        }
    }

    private final Map<String, String> env;
    private final Path root;

    /** @param root stands in for {@code /} (tests point it at a fixture tree) */
    public LibraryFinder(Map<String, String> env, Path root) {
        this.env = env;
        this.root = root;
    }

    public static LibraryFinder system() {
        return new LibraryFinder(System.getenv(), Path.of("/"));
    }

    /** The finder for the machine {@code files} stand for: the live one's linker cache only when they are live. */
    public static LibraryFinder of(SystemFiles files, java.util.Map<String, String> env) {
        return new LibraryFinder(env, files.root());
    }

    /**
     * @param soname       such as {@code libnccl.so.2}
     * @param override     the variable naming an explicit file, such as {@code JCOLL_NCCL_LIBRARY}
     * @param wheelSubdirs paths under {@code site-packages/nvidia/} that hold it in NVIDIA's wheels
     */
    public Search find(String soname, String override, List<String> wheelSubdirs) {
        Map<Path, String> candidates = new LinkedHashMap<>();
        String explicit = override == null ? null : env.get(override);
        if (explicit != null && !explicit.isBlank()) {
            candidates.put(Path.of(explicit), override);
        }
        for (String dir : split(env.get("LD_LIBRARY_PATH"))) {
            candidates.putIfAbsent(Path.of(dir).resolve(soname), "LD_LIBRARY_PATH");
        }
        for (String home : new String[] {env.get("CUDA_HOME"), env.get("CUDA_PATH")}) {
            if (home != null && !home.isBlank()) {
                candidates.putIfAbsent(Path.of(home, "lib64", soname), "CUDA_HOME");
                candidates.putIfAbsent(Path.of(home, "lib", soname), "CUDA_HOME");
            }
        }
        candidates.putIfAbsent(under("usr/local/cuda/lib64").resolve(soname), "/usr/local/cuda");
        String conda = env.get("CONDA_PREFIX");
        if (conda != null && !conda.isBlank()) {
            candidates.putIfAbsent(Path.of(conda, "lib", soname), "conda prefix");
        }
        List<Path> sites = sitePackages();
        for (Path site : sites) {
            for (String sub : wheelSubdirs) {
                candidates.putIfAbsent(site.resolve("nvidia").resolve(sub).resolve(soname), "NVIDIA Python wheel");
            }
        }
        for (String dir : List.of("usr/lib/x86_64-linux-gnu", "usr/lib64", "usr/lib", "lib/x86_64-linux-gnu")) {
            candidates.putIfAbsent(under(dir).resolve(soname), "system library directory");
        }
        List<String> looked = new ArrayList<>();
        for (Map.Entry<Path, String> c : candidates.entrySet()) {
            looked.add(c.getKey() + " (" + c.getValue() + ")");
            if (Files.isRegularFile(c.getKey())) {
                return new Search(soname, new Found(c.getKey(), c.getValue()), looked);
            }
        }
        if (sites.isEmpty()) {
            looked.add("NVIDIA Python wheels (no Python site-packages under VIRTUAL_ENV, CONDA_PREFIX or /usr)");
        }
        if (!root.equals(Path.of("/"))) {
            return new Search(soname, null, looked); // the running machine's linker cache says nothing of a fixture's
        }
        Path cached = fromLinkerCache(soname);
        looked.add("the dynamic linker's cache (ldconfig -p)");
        if (cached != null) {
            return new Search(soname, new Found(cached, "dynamic linker cache"), looked);
        }
        return new Search(soname, null, looked);
    }

    private Path under(String relative) {
        return root.resolve(relative);
    }

    /** site-packages and dist-packages of a virtualenv, a conda prefix and the system Pythons. */
    private List<Path> sitePackages() {
        List<Path> bases = new ArrayList<>();
        for (String var : new String[] {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
            String v = env.get(var);
            if (v != null && !v.isBlank()) {
                bases.add(Path.of(v, "lib"));
            }
        }
        bases.add(under("usr/local/lib"));
        bases.add(under("usr/lib"));
        List<Path> sites = new ArrayList<>();
        for (Path base : bases) {
            if (!Files.isDirectory(base)) {
                continue;
            }
            try (DirectoryStream<Path> pythons = Files.newDirectoryStream(base, "python3*")) {
                for (Path py : pythons) {
                    sites.add(py.resolve("site-packages"));
                    sites.add(py.resolve("dist-packages"));
                }
            } catch (IOException ignored) {
                // unreadable: nothing to find there
            }
        }
        return sites;
    }

    private static Path fromLinkerCache(String soname) {
        try {
            Process p = new ProcessBuilder("ldconfig", "-p").redirectErrorStream(true).start();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    String t = line.trim();
                    if (t.startsWith(soname + " ") && t.contains("x86-64") && t.contains("=> ")) {
                        return Path.of(t.substring(t.indexOf("=> ") + 3).trim());
                    }
                }
            } finally {
                p.waitFor(5, TimeUnit.SECONDS);
                p.destroy();
            }
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    private static List<String> split(String pathList) {
        List<String> out = new ArrayList<>();
        if (pathList != null) {
            for (String s : pathList.split(":")) {
                if (!s.isBlank()) {
                    out.add(s);
                }
            }
        }
        return out;
    }
}
