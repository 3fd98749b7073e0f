package io.jcoll.internal;

import io.jcoll.JobReport;
import io.jcoll.bootstrap.JobConfig;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Settings;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code jcoll doctor [--json] [--sysfs-root DIR] [--run [N]]}: what this
 * machine offers (GPUs, RDMA adapters, GPUDirect RDMA, interfaces, launcher),
 * which transport would be chosen and why, the NCCL settings jcoll would apply,
 * and every known trap with its fix. {@code --run} also forms a real job of N
 * ranks as threads here and reports what its transport really used. Under a
 * launcher ({@code jcoll launch}, mpirun, srun), {@code --run} is the doctor
 * across the whole job instead ({@link JobDoctor}): rank 0 prints it. Exits 1
 * when the requested transport cannot run (or the run failed, or the job-wide
 * doctor found something), 2 on bad arguments.
 */
public final class Doctor {

    private Doctor() {
    }

    public static void main(String[] args) {
        boolean json = false;
        int run = -1;
        Settings settings = Settings.fromEnvironment();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--sysfs-root" -> {
                    if (i + 1 >= args.length || !Files.isDirectory(Path.of(args[i + 1]))) {
                        usage("--sysfs-root needs a directory laid out like / (with sys/ and proc/)");
                    }
                    settings = settings.with("JCOLL_SYSFS_ROOT", args[++i]);
                }
                case "--run" -> {
                    run = 0;
                    if (i + 1 < args.length && args[i + 1].matches("\\d+")) {
                        run = Integer.parseInt(args[++i]);
                        if (run < 1) {
                            usage("--run needs at least 1 rank");
                        }
                    }
                }
                case "-h", "--help" -> usage(null);
                default -> usage("unknown option '" + args[i] + "'");
            }
        }
        if (run >= 0 && inJob(settings)) {
            if (run > 0) {
                usage("under a launcher each process is one rank: give --run without a count");
            }
            jobWide(settings, json);
            return;
        }
        DoctorReport report = new DoctorReport(settings);
        if (run >= 0 && report.chosen != null) {
            report.run = DoctorRun.run(settings, run == 0 ? DoctorRun.defaultRanks(report) : run);
        }
        System.out.print(json ? Json.write(report.toJson()) : report.toText());
        System.out.flush();
        System.exit(report.healthy() ? 0 : 1);
    }

    /** Whether a launcher (or the user) placed this process in a job: RANK/WORLD_SIZE or a launcher's variables. */
    private static boolean inJob(Settings settings) {
        try {
            JobConfig.from(settings);
            return true;
        } catch (RuntimeException notInAJob) {
            return settings.get("RANK").isPresent() || settings.get("WORLD_SIZE").isPresent();
        }
    }

    /**
     * The doctor across the job this process is a rank of: rank 0 prints the report; every rank exits 0 when
     * nothing was found, 1 otherwise (so the launcher's exit says it too).
     */
    private static void jobWide(Settings settings, boolean json) {
        int rank = -1;
        try {
            Bootstrap.Joined joined = Bootstrap.join(settings);
            rank = joined.cfg().rank();
            JobReport report;
            try {
                long run = joined.store().add("jcoll/doctor/runs/rank" + rank, 1);
                report = JobDoctor.run(joined.store().scoped("jcoll/doctor" + run + "/"), rank, joined.cfg().size(),
                        HostIdentity.name(settings), joined.dataAddress(), settings);
            } finally {
                try {
                    joined.rendezvous().close();
                } catch (Exception ignored) {
                    // the report is what matters now
                }
            }
            if (rank == 0) {
                System.out.print(json ? report.json() : report.text());
                System.out.flush();
            }
            System.exit(report.healthy() ? 0 : 1);
        } catch (JcollException e) {
            System.err.println("jcoll doctor" + (rank >= 0 ? " (rank " + rank + ")" : "") + ": " + e.getMessage());
            System.exit(1);
        }
    }

    private static void usage(String problem) {
        if (problem != null) {
            System.err.println("jcoll doctor: " + problem);
        }
        System.err.println("usage: jcoll doctor [--json] [--sysfs-root DIR] [--run [RANKS]]");
        System.exit(problem == null ? 0 : 2);
    }
}
