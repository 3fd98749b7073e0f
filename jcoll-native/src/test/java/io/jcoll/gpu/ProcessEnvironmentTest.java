package io.jcoll.gpu;

import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessEnvironmentTest {

    @Test
    void seesTheEnvironmentTheJvmStartedWith() {
        String path = System.getenv("PATH");
        assertEquals(Optional.ofNullable(path), ProcessEnvironment.get("PATH"));
        assertFalse(ProcessEnvironment.setIfAbsent("PATH", "/nowhere"), "an existing variable is never replaced");
        assertEquals(Optional.ofNullable(path), ProcessEnvironment.get("PATH"));
    }

    @Test
    void addsVariablesAndKeepsTheOthers() {
        int before = System.getenv().size();
        String name = "JCOLL_TEST_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        assertEquals(Optional.empty(), ProcessEnvironment.get(name));
        assertTrue(ProcessEnvironment.setIfAbsent(name, "a=b c"));
        assertEquals(Optional.of("a=b c"), ProcessEnvironment.get(name));
        assertTrue(ProcessEnvironment.setIfAbsent(name + "_2", ""));
        assertEquals(Optional.of(""), ProcessEnvironment.get(name + "_2"));
        assertEquals(Optional.of("a=b c"), ProcessEnvironment.get(name));
        // every variable the JVM started with is still there
        System.getenv().forEach((k, v) -> assertEquals(Optional.of(v), ProcessEnvironment.get(k), k));
        assertTrue(before > 0);
    }

    @Test
    void refusesNamesThatAreNotVariables() {
        assertThrows(IllegalArgumentException.class, () -> ProcessEnvironment.setIfAbsent("A=B", "x"));
        assertThrows(IllegalArgumentException.class, () -> ProcessEnvironment.setIfAbsent("", "x"));
        assertThrows(IllegalArgumentException.class, () -> ProcessEnvironment.setIfAbsent("A", "x\0y"));
    }
}
