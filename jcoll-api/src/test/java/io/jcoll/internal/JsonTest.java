package io.jcoll.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What Json writes reads back the same; anything else is refused with where it went wrong. */
class JsonTest {

    @Test
    void whatIsWrittenReadsBack() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("text", "quote \" backslash \\ newline \n tab \t bell \u0007 é");
        doc.put("long", Long.MIN_VALUE);
        doc.put("double", -1.5e-7);
        doc.put("yes", true);
        doc.put("nothing", null);
        doc.put("empty list", List.of());
        doc.put("empty map", Map.of());
        List<Object> nested = new ArrayList<>();
        nested.add(1L);
        nested.add(List.of("a", List.of(2L)));
        doc.put("nested", nested);
        assertEquals(doc, Json.read(Json.write(doc)));
    }

    @Test
    void hostileTextIsRefusedNamingTheOffset() {
        for (String bad : new String[] {"", "{", "{\"a\":}", "[1,]", "\"open", "\"\\x\"", "\"\\u12\"", "tru",
                "{\"a\" 1}", "[1] 2", "01x", "-", "{1:2}", "\"a\u0001\"", "[".repeat(100) + "]".repeat(100)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.read(bad), bad);
            assertTrue(e.getMessage().contains("offset"), e.getMessage());
        }
    }

    @Test
    void numbersKeepTheirKind() {
        assertEquals(42L, Json.read("42"));
        assertEquals(9.3e18, (Double) Json.read("9300000000000000000"), 1e4);
        assertEquals(0.25, Json.read("0.25"));
    }
}
