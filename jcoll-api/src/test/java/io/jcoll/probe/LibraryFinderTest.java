package io.jcoll.probe;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where users install NCCL, reproduced as fixture trees: each place is found, in order, and a miss says where it looked. */
class LibraryFinderTest {

    /** A name no real machine has, so the linker-cache fallback never finds it. */
    private static final String SONAME = "libjcollfixture.so.2";
    private static final List<String> WHEEL = List.of("nccl/lib", "cu13/lib");

    @TempDir
    Path root;

    private Path file(String relative) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "not really a library");
        return p;
    }

    private LibraryFinder.Search find(Map<String, String> env) {
        return new LibraryFinder(env, root).find(SONAME, "JCOLL_NCCL_LIBRARY", WHEEL);
    }

    @Test
    void anExplicitPathWinsOverEverything() throws IOException {
        Path explicit = file("opt/custom/" + SONAME);
        Path ld = file("ld/" + SONAME);
        LibraryFinder.Search s = find(Map.of("JCOLL_NCCL_LIBRARY", explicit.toString(),
                "LD_LIBRARY_PATH", ld.getParent().toString()));
        assertEquals(explicit, s.found().path());
        assertEquals("JCOLL_NCCL_LIBRARY", s.found().source());
    }

    @Test
    void ldLibraryPathComesBeforeCudaHome() throws IOException {
        Path ld = file("ld/" + SONAME);
        file("cuda/lib64/" + SONAME);
        LibraryFinder.Search s = find(Map.of("LD_LIBRARY_PATH", "/nonexistent:" + ld.getParent(),
                "CUDA_HOME", root.resolve("cuda").toString()));
        assertEquals(ld, s.found().path());
        assertEquals("LD_LIBRARY_PATH", s.found().source());
    }

    @Test
    void cudaHomeAndTheDefaultCudaDirectory() throws IOException {
        Path home = file("cuda-13/lib64/" + SONAME);
        assertEquals(home, find(Map.of("CUDA_HOME", root.resolve("cuda-13").toString())).found().path());
        Path usual = file("usr/local/cuda/lib64/" + SONAME);
        assertEquals(usual, find(Map.of()).found().path());
    }

    @Test
    void theNvidiaWheelsOfAVirtualEnvironmentAndOfTheSystemPython() throws IOException {
        Path venvWheel = file("venv/lib/python3.12/site-packages/nvidia/nccl/lib/" + SONAME);
        LibraryFinder.Search s = find(Map.of("VIRTUAL_ENV", root.resolve("venv").toString()));
        assertEquals(venvWheel, s.found().path());
        assertEquals("NVIDIA Python wheel", s.found().source());

        Files.delete(venvWheel);
        Path systemWheel = file("usr/local/lib/python3.11/dist-packages/nvidia/cu13/lib/" + SONAME);
        assertEquals(systemWheel, find(Map.of()).found().path());
    }

    @Test
    void aCondaPrefix() throws IOException {
        Path conda = file("conda/lib/" + SONAME);
        LibraryFinder.Search s = find(Map.of("CONDA_PREFIX", root.resolve("conda").toString()));
        assertEquals(conda, s.found().path());
        assertEquals("conda prefix", s.found().source());
    }

    @Test
    void theSystemLibraryDirectory() throws IOException {
        Path system = file("usr/lib/x86_64-linux-gnu/" + SONAME);
        assertEquals(system, find(Map.of()).found().path());
    }

    @Test
    void aMissSaysWhereItLooked() {
        LibraryFinder.Search s = find(Map.of("LD_LIBRARY_PATH", "/somewhere/lib"));
        assertNull(s.found());
        String text = s.describeMiss();
        assertTrue(text.startsWith(SONAME + " was not found"), text);
        assertTrue(text.contains("/somewhere/lib/" + SONAME + " (LD_LIBRARY_PATH)"), text);
        assertTrue(text.contains("NVIDIA Python wheel"), text);
        // a fixture tree is not this machine: its linker cache is not consulted
        assertTrue(!text.contains("ldconfig -p"), text);
    }
}
