package io.jcoll;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every page of the repository points only at files that exist: Markdown links, and the file paths the pages
 * name in code spans ({@code benchmarks/gpu/trace-cost.sh}), found from the page's folder or the repository
 * root. A renamed script or a moved log fails here instead of leaving a reader at a dead end.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern PATH = Pattern.compile(
            "`([A-Za-z0-9_.\\-/]+/[A-Za-z0-9_.\\-]+\\.(?:sh|md|java|py|c|h|jfc|xml|txt|csv|log|png|json))`");

    private static List<Path> pages() throws IOException {
        try (Stream<Path> s = Files.walk(ROOT)) {
            return s.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> {
                        for (Path part : ROOT.relativize(p)) {
                            String n = part.toString();
                            if (n.equals("target") || (n.startsWith(".") && !n.equals(".ci"))) {
                                return false;
                            }
                        }
                        return true;
                    }).sorted().toList();
        }
    }

    @Test
    void everyPageNamesOnlyFilesThatExist() throws IOException {
        List<Path> pages = pages();
        assertTrue(pages.contains(ROOT.resolve("README.md")) && pages.contains(ROOT.resolve("RELIABILITY.md"))
                && pages.contains(ROOT.resolve("benchmarks/RESULTS.md")), "the pages were found: " + pages);
        List<String> dead = new ArrayList<>();
        for (Path page : pages) {
            String text = Files.readString(page);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (!target.matches("^(https?:|mailto:|#).*") && !exists(page, target.replaceAll("#.*", ""))) {
                    dead.add(ROOT.relativize(page) + ": link " + target);
                }
            }
            Matcher path = PATH.matcher(text);
            while (path.find()) {
                String named = path.group(1);
                // elided (examples/.../X.java) or outside the repository (../shared/...): not checkable here
                if (!named.contains("...") && !named.startsWith("../") && !exists(page, named)) {
                    dead.add(ROOT.relativize(page) + ": path " + named);
                }
            }
        }
        assertEquals(List.of(), dead, "pages name files that do not exist");
    }

    private static boolean exists(Path page, String target) {
        return Files.exists(page.getParent().resolve(target)) || Files.exists(ROOT.resolve(target));
    }
}
