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
 * root; a link's {@code #section} must be a heading of the page it points at (GitHub's anchors). A renamed
 * script, a moved log or a retitled section fails here instead of leaving a reader at a dead end.
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
        java.util.Map<Path, List<String>> anchors = new java.util.HashMap<>(); // each linked page read once
        for (Path page : pages) {
            String text = Files.readString(page);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^(https?:|mailto:).*")) {
                    continue;
                }
                String file = target.replaceAll("#.*", "");
                Path linked = file.isEmpty() ? page : resolve(page, file);
                if (linked == null) {
                    dead.add(ROOT.relativize(page) + ": link " + target);
                } else if (target.contains("#") && (file.isEmpty() || file.endsWith(".md"))) {
                    String anchor = target.substring(target.indexOf('#') + 1);
                    if (!anchors.computeIfAbsent(linked, DocumentationLinksTest::anchors).contains(anchor)) {
                        dead.add(ROOT.relativize(page) + ": link " + target + " (no such heading)");
                    }
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
        return resolve(page, target) != null;
    }

    private static Path resolve(Path page, String target) {
        for (Path p : List.of(page.getParent().resolve(target), ROOT.resolve(target))) {
            if (Files.exists(p)) {
                return p;
            }
        }
        return null;
    }

    /** GitHub's anchors for a page's headings: lower case, punctuation but hyphens dropped, spaces to hyphens. */
    private static List<String> anchors(Path page) {
        List<String> anchors = new ArrayList<>();
        boolean code = false;
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String line : lines) {
            code ^= line.startsWith("```");
            if (!code && line.matches("^#{1,6} .*")) {
                anchors.add(line.replaceFirst("^#+ ", "").strip().toLowerCase(java.util.Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }
}
