import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A small JSON reader (and writer, for logs) for a Ra Arena bot in Java 17, standard library
 * only. You should not need to change it: Bot.java uses it for you.
 *
 * <p>{@code Json.parse} turns one line of text into a Json value (or throws
 * {@link Json.ParseException}). Reading a key or an index that is not there gives a null
 * value instead of failing, so lookups chain:
 *
 * <pre>
 *     legal.get(i).get("type").asString().equals("bid")   // "" when not a string
 *     legal.get(i).get("sun").asLong(-1)                  // -1 when absent
 *     observation.get("players").size()                   // 0 when not an array or object
 * </pre>
 *
 * RFC 8259: strict grammar; \\u escapes, surrogate pairs included, are decoded (a lone
 * surrogate becomes U+FFFD).
 */
public final class Json {
    public enum Type { NULL, BOOL, NUMBER, STRING, ARRAY, OBJECT }

    /** Text that is not JSON: the message says what and where. */
    public static final class ParseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message);
        }
    }

    private static final Json MISSING = new Json(Type.NULL);
    private static final int MAX_DEPTH = 512; // deeper is refused, not a stack overflow

    private final Type type;
    private boolean bool;
    private double number;
    private boolean isInteger; // written without fraction or exponent, and fits a long
    private long integer;
    private String string = "";
    private final List<String> keys = new ArrayList<>();
    private final List<Json> items = new ArrayList<>();

    private Json(Type type) {
        this.type = type;
    }

    public static Json parse(String text) {
        Parser parser = new Parser(text);
        Json value = parser.value(0);
        parser.skipSpace();
        if (parser.at != text.length()) throw parser.fail("unexpected text after the value");
        return value;
    }

    public Type type() { return type; }
    public boolean isNull() { return type == Type.NULL; }
    public boolean isBoolean() { return type == Type.BOOL; }
    public boolean isNumber() { return type == Type.NUMBER; }
    public boolean isInteger() { return type == Type.NUMBER && isInteger; }
    public boolean isString() { return type == Type.STRING; }
    public boolean isArray() { return type == Type.ARRAY; }
    public boolean isObject() { return type == Type.OBJECT; }

    public boolean asBoolean(boolean fallback) { return isBoolean() ? bool : fallback; }
    public boolean asBoolean() { return asBoolean(false); }
    public double asDouble(double fallback) { return isNumber() ? number : fallback; }
    public double asDouble() { return asDouble(0); }
    /** A whole number's exact value (written without fraction or exponent, and fits). */
    public long asLong(long fallback) { return isInteger() ? integer : fallback; }
    public long asLong() { return asLong(0); }
    public int asInt(int fallback) {
        return isInteger() && integer == (int) integer ? (int) integer : fallback;
    }
    public int asInt() { return asInt(0); }
    public String asString(String fallback) { return isString() ? string : fallback; }
    public String asString() { return asString(""); }

    /** The items of an array or object; 0 for anything else. */
    public int size() { return isArray() || isObject() ? items.size() : 0; }

    public Json get(int index) {
        return isArray() && index >= 0 && index < items.size() ? items.get(index) : MISSING;
    }

    /** The value of key (the last one if repeated), a null value if absent. */
    public Json get(String key) {
        if (isObject()) {
            for (int i = keys.size() - 1; i >= 0; i--) {
                if (keys.get(i).equals(key)) return items.get(i);
            }
        }
        return MISSING;
    }

    public boolean has(String key) { return get(key) != MISSING; }

    /** An object's keys, in order (keys().get(i) names items().get(i)). */
    public List<String> keys() { return Collections.unmodifiableList(keys); }

    /** An array's elements or an object's values, in order. */
    public List<Json> items() { return Collections.unmodifiableList(items); }

    /** The value as one line of JSON (e.g. System.err.println(observation)). */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        write(out);
        return out.toString();
    }

    private void write(StringBuilder out) {
        switch (type) {
            case NULL -> out.append("null");
            case BOOL -> out.append(bool);
            case NUMBER -> {
                if (isInteger) out.append(integer);
                else if (Double.isInfinite(number)) out.append(number > 0 ? "1e999" : "-1e999");
                else out.append(number); // the shortest text that reads back the same
            }
            case STRING -> writeString(out, string);
            case ARRAY, OBJECT -> {
                out.append(isArray() ? '[' : '{');
                for (int i = 0; i < items.size(); i++) {
                    if (i > 0) out.append(',');
                    if (isObject()) {
                        writeString(out, keys.get(i));
                        out.append(':');
                    }
                    items.get(i).write(out);
                }
                out.append(isArray() ? ']' : '}');
            }
        }
    }

    private static void writeString(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }

    private static final class Parser {
        private final String text;
        private int at;

        Parser(String text) {
            this.text = text;
        }

        ParseException fail(String what) {
            return new ParseException(what + " at character " + at);
        }

        int peek() {
            return at < text.length() ? text.charAt(at) : -1;
        }

        static boolean isDigit(int c) {
            return c >= '0' && c <= '9';
        }

        void skipSpace() {
            while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') at++;
        }

        Json value(int depth) {
            skipSpace();
            int c = peek();
            if (c == '{' || c == '[') {
                if (depth >= MAX_DEPTH) throw fail("nested too deeply");
                return container(depth + 1);
            }
            if (c == '"') {
                Json value = new Json(Type.STRING);
                value.string = string();
                return value;
            }
            if (c == 't' || c == 'f' || c == 'n') {
                String word = c == 't' ? "true" : c == 'f' ? "false" : "null";
                if (!text.startsWith(word, at)) throw fail("unexpected character");
                at += word.length();
                Json value = new Json(c == 'n' ? Type.NULL : Type.BOOL);
                value.bool = c == 't';
                return value;
            }
            if (c == '-' || isDigit(c)) return number();
            throw fail(c < 0 ? "unexpected end" : "unexpected character");
        }

        Json container(int depth) {
            boolean object = peek() == '{';
            char close = object ? '}' : ']';
            Json value = new Json(object ? Type.OBJECT : Type.ARRAY);
            at++;
            skipSpace();
            if (peek() == close) {
                at++;
                return value;
            }
            while (true) {
                if (object) {
                    skipSpace();
                    if (peek() != '"') throw fail("expected a key");
                    value.keys.add(string());
                    skipSpace();
                    if (peek() != ':') throw fail("expected ':'");
                    at++;
                }
                value.items.add(value(depth));
                skipSpace();
                if (peek() == ',') {
                    at++;
                } else if (peek() == close) {
                    at++;
                    return value;
                } else {
                    throw fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
                }
            }
        }

        int hex4() {
            if (at + 4 > text.length()) return -1;
            int code = 0;
            for (int i = 0; i < 4; i++) {
                char c = text.charAt(at + i);
                int digit = c >= '0' && c <= '9' ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (digit < 0) return -1;
                code = code * 16 + digit;
            }
            at += 4;
            return code;
        }

        /** After the "\\u": one character, a surrogate pair read as one. */
        void unicodeEscape(StringBuilder out) {
            int code = hex4();
            if (code < 0) throw fail("bad \\u escape");
            if (Character.isLowSurrogate((char) code)) {
                out.append('\uFFFD'); // a low surrogate alone
                return;
            }
            if (!Character.isHighSurrogate((char) code)) {
                out.append((char) code);
                return;
            }
            if (text.startsWith("\\u", at)) {
                int before = at;
                at += 2;
                int low = hex4();
                if (low >= 0 && Character.isLowSurrogate((char) low)) {
                    out.append((char) code).append((char) low);
                    return;
                }
                at = before; // not a low surrogate: the next escape stands on its own
            }
            out.append('\uFFFD'); // a high surrogate alone
        }

        String string() {
            StringBuilder out = new StringBuilder();
            at++; // the opening quote
            while (true) {
                if (at >= text.length()) throw fail("unterminated string");
                char c = text.charAt(at);
                if (c < 0x20) throw fail("control character in a string");
                at++;
                if (c == '"') return out.toString();
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                int escape = peek();
                at++;
                switch (escape) {
                    case '"' -> out.append('"');
                    case '\\' -> out.append('\\');
                    case '/' -> out.append('/');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> unicodeEscape(out);
                    default -> {
                        at--;
                        throw fail("bad escape");
                    }
                }
            }
        }

        Json number() {
            int start = at;
            boolean integral = true;
            if (peek() == '-') at++;
            if (peek() == '0') {
                at++;
            } else if (isDigit(peek())) {
                while (isDigit(peek())) at++;
            } else {
                throw fail("bad number");
            }
            if (peek() == '.') {
                integral = false;
                at++;
                if (!isDigit(peek())) throw fail("bad number");
                while (isDigit(peek())) at++;
            }
            if (peek() == 'e' || peek() == 'E') {
                integral = false;
                at++;
                if (peek() == '+' || peek() == '-') at++;
                if (!isDigit(peek())) throw fail("bad number");
                while (isDigit(peek())) at++;
            }
            String digits = text.substring(start, at);
            Json value = new Json(Type.NUMBER);
            value.number = Double.parseDouble(digits);
            if (integral) {
                try {
                    value.integer = Long.parseLong(digits);
                    value.isInteger = true;
                } catch (NumberFormatException tooLarge) {
                    value.isInteger = false;
                }
            }
            return value;
        }
    }
}
