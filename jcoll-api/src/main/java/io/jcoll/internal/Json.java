package io.jcoll.internal;

import java.util.List;
import java.util.Map;

/**
 * Writes maps, lists, strings, numbers, booleans and nulls as JSON, indented
 * for reading ({@code jcoll doctor --json}, the flight recorder's files), and reads such text back
 * ({@code jcoll trace}). Not a general JSON library: enough for files jcoll writes, and strict about
 * anything else (a hostile or truncated file is refused with where it went wrong, never half-read).
 */
public final class Json {

    /** Nesting deeper than this is refused: no file jcoll writes comes near it, and recursion stays bounded. */
    private static final int MAX_DEPTH = 64;

    private Json() {
    }

    /** {@code value} as indented JSON, ending in a newline. */
    public static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, 0);
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, Object v, int depth) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String s) {
            string(b, s);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            b.append(v);
        } else if (v instanceof Number n) {
            double d = n.doubleValue();
            b.append(Double.isFinite(d) ? String.valueOf(d) : "null");
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                b.append("{}");
                return;
            }
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(first ? "\n" : ",\n");
                first = false;
                indent(b, depth + 1);
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                write(b, e.getValue(), depth + 1);
            }
            b.append('\n');
            indent(b, depth);
            b.append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                b.append("[]");
                return;
            }
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                b.append(i == 0 ? "\n" : ",\n");
                indent(b, depth + 1);
                write(b, l.get(i), depth + 1);
            }
            b.append('\n');
            indent(b, depth);
            b.append(']');
        } else {
            string(b, v.toString());
        }
    }

    private static void indent(StringBuilder b, int depth) {
        b.append("  ".repeat(depth));
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /**
     * Reads one JSON value: objects as ordered maps, arrays as lists, numbers as {@code Long} where they are
     * integers that fit, else {@code Double}.
     *
     * @throws IllegalArgumentException naming the offset and what was expected, for anything that is not one
     *                                  complete JSON value
     */
    public static Object read(CharSequence text) {
        Reader r = new Reader(text);
        r.space();
        Object v = r.value(0);
        r.space();
        if (r.at < text.length()) {
            throw r.error("nothing after the value");
        }
        return v;
    }

    private static final class Reader {
        private final CharSequence s;
        private int at;

        Reader(CharSequence s) {
            this.s = s;
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nesting deeper than " + MAX_DEPTH);
            }
            if (at >= s.length()) {
                throw error("a value (the text ends)");
            }
            char c = s.charAt(at);
            return switch (c) {
                case '{' -> object(depth);
                case '[' -> array(depth);
                case '"' -> string();
                case 't' -> word("true", Boolean.TRUE);
                case 'f' -> word("false", Boolean.FALSE);
                case 'n' -> word("null", null);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        yield number();
                    }
                    throw error("a value");
                }
            };
        }

        private Map<String, Object> object(int depth) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            at++;
            space();
            if (peek() == '}') {
                at++;
                return m;
            }
            while (true) {
                space();
                if (peek() != '"') {
                    throw error("a member name in quotes");
                }
                String key = string();
                space();
                expect(':');
                space();
                m.put(key, value(depth + 1));
                space();
                if (peek() == ',') {
                    at++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }

        private List<Object> array(int depth) {
            List<Object> l = new java.util.ArrayList<>();
            at++;
            space();
            if (peek() == ']') {
                at++;
                return l;
            }
            while (true) {
                space();
                l.add(value(depth + 1));
                space();
                if (peek() == ',') {
                    at++;
                } else {
                    expect(']');
                    return l;
                }
            }
        }

        private String string() {
            at++;
            StringBuilder b = new StringBuilder();
            while (true) {
                if (at >= s.length()) {
                    throw error("the end of a string");
                }
                char c = s.charAt(at++);
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    throw error("no control character inside a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = at < s.length() ? s.charAt(at++) : 0;
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (at + 4 > s.length()) {
                            throw error("four hex digits");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.subSequence(at, at + 4).toString(), 16));
                        } catch (NumberFormatException x) {
                            throw error("four hex digits");
                        }
                        at += 4;
                    }
                    default -> throw error("an escape (\\n, \\u0041, ...)");
                }
            }
        }

        private Object number() {
            int start = at;
            if (peek() == '-') {
                at++;
            }
            boolean integral = true;
            while (at < s.length()) {
                char c = s.charAt(at);
                if (c >= '0' && c <= '9') {
                    at++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    integral = false;
                    at++;
                } else {
                    break;
                }
            }
            String t = s.subSequence(start, at).toString();
            try {
                if (integral) {
                    return Long.parseLong(t);
                }
            } catch (NumberFormatException tooLong) {
                // a whole number beyond a long: read as a double below
            }
            try {
                return Double.parseDouble(t);
            } catch (NumberFormatException x) {
                at = start;
                throw error("a number");
            }
        }

        private Object word(String w, Object v) {
            if (at + w.length() > s.length() || !s.subSequence(at, at + w.length()).toString().equals(w)) {
                throw error("a value");
            }
            at += w.length();
            return v;
        }

        private char peek() {
            return at < s.length() ? s.charAt(at) : 0;
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("'" + c + "'");
            }
            at++;
        }

        void space() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }

        IllegalArgumentException error(String expected) {
            return new IllegalArgumentException("not JSON as jcoll writes it: expected " + expected + " at offset " + at
                    + (at < s.length() ? " (found '" + s.charAt(at) + "')" : ""));
        }
    }
}
