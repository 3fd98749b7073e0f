package io.jcoll.bootstrap;

import io.jcoll.exceptions.BootstrapException;
import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobConfigTest {

    @Test
    void readsTorchrunVariables() {
        JobConfig c = JobConfig.from(Settings.of(Map.of("RANK", "2", "WORLD_SIZE", "4", "LOCAL_RANK", "0",
                "LOCAL_WORLD_SIZE", "2", "MASTER_ADDR", "10.1.2.3", "MASTER_PORT", "29500", "JCOLL_TIMEOUT", "90s")));
        assertEquals(2, c.rank());
        assertEquals(4, c.size());
        assertEquals(0, c.localRank());
        assertEquals(2, c.localSize());
        assertEquals("10.1.2.3", c.masterAddr());
        assertEquals(29500, c.masterPort());
        assertEquals(Duration.ofSeconds(90), c.timeout());
        assertEquals("auto", c.transport());
    }

    @Test
    void prefixedVariablesWin() {
        JobConfig c = JobConfig.from(Settings.of(Map.of("RANK", "2", "JCOLL_RANK", "1", "WORLD_SIZE", "4",
                "MASTER_PORT", "1234")));
        assertEquals(1, c.rank());
        assertEquals(1, c.localRank(), "local rank defaults to the rank");
    }

    @Test
    void everyProblemIsNamedAtOnce() {
        BootstrapException e = assertThrows(BootstrapException.class, () -> JobConfig.from(Settings.of(Map.of(
                "RANK", "5", "WORLD_SIZE", "4", "JCOLL_TIMEOUT", "soon"))));
        String m = e.getMessage();
        assertTrue(m.contains("RANK=5 must be in 0..3"), m);
        assertTrue(m.contains("MASTER_PORT is not set"), m);
        assertTrue(m.contains("JCOLL_TIMEOUT='soon'"), m);
    }

    @Test
    void nothingSetSaysHowToStart() {
        BootstrapException e = assertThrows(BootstrapException.class, () -> JobConfig.from(Settings.of(Map.of())));
        assertTrue(e.getMessage().contains("WORLD_SIZE is not set"), e.getMessage());
        assertTrue(e.getMessage().contains("jcoll launch"), e.getMessage());
    }

    @Test
    void durationsAndSizesParse() {
        assertEquals(Duration.ofMillis(500), Settings.parseDuration("x", "500ms"));
        assertEquals(Duration.ofMinutes(10), Settings.parseDuration("x", "10m"));
        assertEquals(Duration.ofSeconds(600), Settings.parseDuration("x", "600"));
        assertEquals(Duration.ofNanos(20_000), Settings.parseDuration("x", "20us"));
        assertEquals(64L << 20, Settings.parseBytes("64M"));
        assertEquals(1L << 30, Settings.parseBytes("1G"));
        assertEquals(8, Settings.parseBytes("8"));
        assertThrows(IllegalArgumentException.class, () -> Settings.parseBytes("lots"));
    }

    @Test
    void mpirunPlacesTheRankWithoutMasterVariables() {
        JobConfig c = JobConfig.from(Settings.of(Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2")));
        assertEquals(3, c.rank());
        assertEquals(4, c.size());
        assertEquals(1, c.localRank());
        assertEquals(2, c.localSize());
        assertEquals("Open MPI", c.launcher());
        assertTrue(c.rendezvousThroughLauncher());
        JobConfig agreed = c.withRendezvous("10.0.0.1", 4242, "t".getBytes());
        assertEquals(4242, agreed.masterPort());
        assertTrue(!agreed.rendezvousThroughLauncher());
    }

    @Test
    void torchrunVariablesWinOverTheLaunchers() {
        JobConfig c = JobConfig.from(Settings.of(Map.of("RANK", "1", "WORLD_SIZE", "2", "MASTER_PORT", "29500",
                "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "8")));
        assertEquals(1, c.rank());
        assertEquals(2, c.size());
        assertEquals(null, c.launcher());
    }

    @Test
    void mpichAndSlurmVariables() {
        JobConfig pmi = JobConfig.from(Settings.of(Map.of("PMI_RANK", "2", "PMI_SIZE", "3", "MPI_LOCALRANKID", "0",
                "MPI_LOCALNRANKS", "1")));
        assertEquals("MPICH/PMI", pmi.launcher());
        assertEquals(2, pmi.rank());
        assertEquals(0, pmi.localRank());
        assertEquals(1, pmi.localSize());
        JobConfig srun = JobConfig.from(Settings.of(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID",
                "1", "SLURM_STEP_ID", "0")));
        assertEquals("Slurm", srun.launcher());
        assertEquals(5, srun.rank());
        assertEquals(1, srun.localRank());
        // a batch script sees SLURM_PROCID and SLURM_NTASKS too, but it is one process, not a rank
        Settings batch = Settings.of(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "8"));
        assertEquals(null, JobConfig.launcherOf(batch));
        BootstrapException e = assertThrows(BootstrapException.class, () -> JobConfig.from(batch));
        assertTrue(e.getMessage().contains("RANK is not set"), e.getMessage());
    }
}
