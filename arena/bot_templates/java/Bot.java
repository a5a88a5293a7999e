import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * my-bot: a Ra Arena bot in Java 17 (protocol "ra-arena/1": one JSON object per line on
 * stdin and stdout). It plays a legal action at random, seeded by each game's seed, until you
 * teach choose() to play: the places marked EDIT are yours. README.md says how to build, run
 * and test it.
 */
public final class Bot {
    // EDIT: what the bot tells the arena about itself (bot.toml says the same).
    static final String NAME = "my-bot";
    static final String VERSION = "0.1.0";

    // A seeded random generator: the same seed gives the same game.
    static Random random = new Random(0);

    // EDIT: a new game starts: reset what you keep about a game here. message has "game"
    // ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players", "options".
    static void newGame(Json message) {
        random = new Random(message.get("seed").asLong());
    }

    // EDIT: your strategy.
    // observation: everything your seat may see, a JSON object (Ra: docs/ra-json.md; the
    //   dice game: docs/rules-ra-dice.md);
    // legal: the actions you may take, a JSON array of objects such as {"type": "bid", "sun": 7};
    // return the index of your choice in legal. Logs go to System.err, never to System.out:
    //   System.err.println(observation);
    static int choose(Json observation, Json legal) {
        // For example, draw whenever you may:
        // for (int i = 0; i < legal.size(); i++)
        //     if (legal.get(i).get("type").asString().equals("draw")) return i;
        return random.nextInt(legal.size());
    }

    // ---- the protocol: you should not need to change what follows ----

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Json message;
            try {
                message = Json.parse(line);
            } catch (Json.ParseException error) {
                System.err.println(NAME + ": not a JSON line (" + error.getMessage() + "): "
                        + line.substring(0, Math.min(line.length(), 100)));
                continue;
            }
            switch (message.get("type").asString()) {
                case "hello" -> send(out, "{\"type\":\"ready\",\"name\":\"" + NAME
                        + "\",\"version\":\"" + VERSION + "\",\"protocol\":\"ra-arena/1\"}");
                case "new_game" -> newGame(message);
                case "request" -> {
                    Json legal = message.get("legal");
                    int index = choose(message.get("observation"), legal);
                    if (index < 0 || index >= legal.size()) {
                        System.err.println(NAME + ": choose() gave " + index + ", outside the "
                                + legal.size() + " legal actions");
                    }
                    send(out, "{\"type\":\"reply\",\"id\":" + message.get("id").asLong()
                            + ",\"index\":" + index + "}");
                }
                case "ping" -> send(out, "{\"type\":\"pong\",\"id\":" + message.get("id").asLong() + "}");
                case "quit" -> {
                    return;
                }
                default -> {
                    // every other message ("action", "game_over", new kinds) needs no answer
                }
            }
        }
    }

    private static void send(Writer out, String line) throws IOException {
        out.write(line);
        out.write('\n');
        out.flush();
    }
}
