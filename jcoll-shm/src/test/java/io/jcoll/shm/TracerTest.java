package io.jcoll.shm;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Whom a rank lets read its memory where Yama's ptrace_scope asks, and the prctl call that says so. */
class TracerTest {

    private static Tracer.Mode mode(String value) {
        return Tracer.mode(value == null ? Settings.of(Map.of()) : Settings.of(Map.of("JCOLL_SHM_TRACER", value)));
    }

    @Test
    void theSettingIsParentAnyOrNone() {
        assertEquals(Tracer.Mode.PARENT, mode(null));
        assertEquals(Tracer.Mode.PARENT, mode("parent"));
        assertEquals(Tracer.Mode.ANY, mode("any"));
        assertEquals(Tracer.Mode.NONE, mode("none"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mode("everyone"));
        assertTrue(e.getMessage().contains("JCOLL_SHM_TRACER") && e.getMessage().contains("everyone"), e.getMessage());
    }

    @Test
    void theScopeIsReadFromItsFileAndMinusOneWithoutYama(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ptrace_scope");
        assertEquals(-1, Tracer.yamaScope(file), "no file: a kernel without Yama");
        Files.writeString(file, "1\n");
        assertEquals(1, Tracer.yamaScope(file));
        Files.writeString(file, "3");
        assertEquals(3, Tracer.yamaScope(file));
        Files.writeString(file, "garbage");
        assertEquals(-1, Tracer.yamaScope(file));
    }

    /** Without Yama, or at scope 0, nothing is declared and nothing said, whatever the setting. */
    @Test
    void noYamaOrScopeZeroDeclaresNothing() {
        for (Tracer.Mode mode : Tracer.Mode.values()) {
            for (int scope : new int[] {-1, 0}) {
                Tracer.Plan plan = Tracer.plan(mode, scope, 4242);
                assertEquals(Tracer.NOBODY, plan.tracer(), mode + " at scope " + scope);
                assertNull(plan.says(), mode + " at scope " + scope);
            }
        }
    }

    /** Scope 1: the parent by default (never init), any process with any, no one with none; each said. */
    @Test
    void scopeOneDeclaresWhatTheSettingSays() {
        Tracer.Plan parent = Tracer.plan(Tracer.Mode.PARENT, 1, 4242);
        assertEquals(4242, parent.tracer());
        assertTrue(parent.says().contains("parent process 4242") && parent.says().contains("JCOLL_SHM_TRACER=any"),
                parent.says());
        for (long init : new long[] {1, 0}) {
            Tracer.Plan orphan = Tracer.plan(Tracer.Mode.PARENT, 1, init);
            assertEquals(Tracer.NOBODY, orphan.tracer(), "init descends to every process: never declared");
            assertTrue(orphan.says().contains("init"), orphan.says());
        }
        Tracer.Plan any = Tracer.plan(Tracer.Mode.ANY, 1, 4242);
        assertEquals(Tracer.ANY, any.tracer());
        assertTrue(any.says().contains("any process"), any.says());
        Tracer.Plan none = Tracer.plan(Tracer.Mode.NONE, 1, 4242);
        assertEquals(Tracer.NOBODY, none.tracer());
        assertTrue(none.says().contains("JCOLL_SHM_TRACER=none"), none.says());
    }

    /** Scopes 2 and 3 admit only CAP_SYS_PTRACE: nothing to declare, and the report says so. */
    @Test
    void scopesTwoAndThreeDeclareNothing() {
        for (int scope : new int[] {2, 3}) {
            for (Tracer.Mode mode : Tracer.Mode.values()) {
                Tracer.Plan plan = Tracer.plan(mode, scope, 4242);
                assertEquals(Tracer.NOBODY, plan.tracer());
                assertTrue(plan.says().contains("CAP_SYS_PTRACE") && plan.says().contains("is " + scope), plan.says());
            }
        }
    }

    /**
     * The real prctl call, bound as a variadic function: taking a declaration back succeeds where the kernel has
     * Yama and is EINVAL where it has not (nothing handles the option); a pid beyond any kernel's pid_max is EINVAL
     * on both.
     */
    @Test
    void prctlIsCalledForReal() {
        assumeTrue(Libc.unavailableReason() == null, Libc.unavailableReason());
        boolean yama = Files.exists(Tracer.YAMA_SCOPE);
        assertEquals(yama ? 0 : 22, Tracer.declare(Tracer.NOBODY), "Yama in this kernel: " + yama);
        assertEquals(22, Tracer.declare(1L << 30), "no process has pid 2^30");
        assertTrue(Tracer.describe(22).startsWith("EINVAL"));
    }

    @Test
    void olderJdksCannotDeclare() {
        assumeTrue(Runtime.version().feature() < 22);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Tracer.declare(Tracer.NOBODY));
        assertTrue(e.getMessage().contains("JDK 22 or later"), e.getMessage());
    }
}
