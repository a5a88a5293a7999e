import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A plain Java bot for the runtime tests: protocol ra-arena/1 read by hand (no library),
 * the first legal choice every time, its start said on stderr with a random UUID (which
 * needs the JDK's security configuration).  With the argument "bomb" it allocates 8 GiB,
 * 64 MiB at a time, when asked to decide (Java zeroes every array: each page is used);
 * with "throw" it throws before its ready.
 */
public class Bot {
    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"([a-z_]+)\"");
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(-?[0-9]+)");

    public static void main(String[] args) throws Exception {
        boolean bomb = args.length > 0 && args[0].equals("bomb");
        // SecureRandom reads the JDK's java.security (under /etc on Debian)
        System.err.println("java-bot " + java.util.UUID.randomUUID());
        if (args.length > 0 && args[0].equals("throw")) {
            throw new IllegalStateException("no board yet");
        }
        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<long[]> hoard = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
            Matcher type = TYPE.matcher(line);
            if (!type.find()) {
                continue;
            }
            Matcher id = ID.matcher(line);
            switch (type.group(1)) {
                case "hello":
                    say("{\"type\":\"ready\",\"name\":\"java-bot\",\"version\":\"1\","
                        + "\"protocol\":\"ra-arena/1\"}");
                    break;
                case "request":
                    if (bomb) {
                        System.err.println("allocating 8 GiB");
                        for (int i = 0; i < 128; i++) {
                            hoard.add(new long[8 << 20]);
                        }
                    }
                    id.find();
                    say("{\"type\":\"reply\",\"id\":" + id.group(1) + ",\"index\":0}");
                    break;
                case "ping":
                    id.find();
                    say("{\"type\":\"pong\",\"id\":" + id.group(1) + "}");
                    break;
                case "quit":
                    return;
                default:
                    break;
            }
        }
    }

    private static void say(String text) {
        System.out.println(text);
        System.out.flush();
    }
}
