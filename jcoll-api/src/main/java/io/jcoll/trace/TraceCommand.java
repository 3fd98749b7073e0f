package io.jcoll.trace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code jcoll trace}: {@code jcoll trace DIR} merges the flight-recorder files failing ranks wrote
 * ({@link TraceReport}); {@code jcoll trace --chrome OUT.json FILE.jfr...} turns JFR recordings of several ranks
 * into one Chrome/Perfetto trace ({@link ChromeTrace}). Exit status 0, or 2 for bad arguments or unreadable input.
 */
public final class TraceCommand {

    private static final String USAGE = """
            usage: jcoll trace DIR                         merge the jcoll-trace-*.json files failing ranks wrote
                   jcoll trace --chrome OUT.json FILE.jfr...  JFR recordings of several ranks as one Chrome trace
            """;

    private TraceCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command; returns its exit status (main exits with it). */
    public static int run(String... args) {
        try {
            if (args.length == 1 && !args[0].startsWith("-")) {
                Path dir = Path.of(args[0]);
                if (!Files.exists(dir)) {
                    System.err.println("jcoll trace: " + dir + " does not exist");
                    return 2;
                }
                TraceReport report = TraceReport.read(dir);
                System.out.print(report.toText());
                return 0;
            }
            if (args.length >= 3 && args[0].equals("--chrome")) {
                List<Path> recordings = new ArrayList<>();
                for (int i = 2; i < args.length; i++) {
                    recordings.add(Path.of(args[i]));
                }
                ChromeTrace.Result result = ChromeTrace.convert(recordings);
                Files.writeString(Path.of(args[1]), result.json(), StandardCharsets.UTF_8);
                System.out.println("wrote " + args[1] + ": " + result.events() + " collective events of "
                        + result.ranks() + (result.ranks() == 1 ? " rank" : " ranks")
                        + (result.events() == 0 ? " (no " + CollectiveEvent.NAME + " event in the recordings: was the "
                                + "recording started with jcoll.jfc or a profile that enables it?)"
                                : "; open it in https://ui.perfetto.dev or chrome://tracing"));
                return 0;
            }
            System.err.print(USAGE);
            return 2;
        } catch (IOException e) {
            System.err.println("jcoll trace: " + e.getMessage());
            return 2;
        }
    }
}
