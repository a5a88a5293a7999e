import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** The Java template's JSON reader, line by line: each line read back as JSON by
 * toString(), or "error: ..." (tests/bot_templates/test_json_readers.py). */
public final class Echo {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            try {
                out.println(Json.parse(line));
            } catch (Json.ParseException error) {
                out.println("error: " + error.getMessage());
            }
        }
        out.flush();
    }
}
