package io.jcoll;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DocumentationTool;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The user-facing API ({@code io.jcoll}, {@code io.jcoll.exceptions}) stays fully
 * documented: Javadoc's own checker finds nothing missing or malformed, and every
 * public type of {@code io.jcoll} shows a short example.
 */
class ApiDocumentationTest {

    private static final Path SOURCES = Path.of("src/main/java");

    @Test
    void javadocFindsNothingMissing(@TempDir Path out) {
        DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
        Assumptions.assumeTrue(javadoc != null, "SKIPPED: this runtime has no javadoc tool");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int rc = javadoc.run(null, log, log, "-quiet", "-Xdoclint:all", "-Xmaxwarns", "1000", "-d", out.toString(),
                "-sourcepath", SOURCES.toString(), "io.jcoll", "io.jcoll.exceptions");
        String text = log.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, text);
        assertTrue(!text.contains("warning") && !text.contains("error"), text);
    }

    @Test
    void everyPublicTypeShowsAnExample() throws IOException {
        List<String> without = new ArrayList<>();
        try (Stream<Path> files = Files.list(SOURCES.resolve("io/jcoll"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String src = Files.readString(f);
                if (!f.getFileName().toString().equals("package-info.java") && src.contains("\npublic ")
                        && !src.substring(0, src.indexOf("\npublic ")).contains("<pre>")) {
                    without.add(f.getFileName().toString());
                }
            }
        }
        assertEquals(List.of(), without, "public types of io.jcoll whose Javadoc shows no example");
    }
}
