/* my-bot: a Ra Arena bot in C11 (protocol "ra-arena/1": one JSON object per line on stdin
 * and stdout).  It plays a legal action at random, seeded by each game's seed, until you
 * teach choose() to play: the places marked EDIT are yours.  README.md says how to build,
 * run and test it. */
#include <stdio.h>
#include <stdlib.h>

#include "json.h"

/* EDIT: what the bot tells the arena about itself (bot.toml says the same). */
#define BOT_NAME "my-bot"
#define BOT_VERSION "0.1.0"

/* A seeded random generator (splitmix64): the same seed gives the same game. */
static unsigned long long random_state;

static unsigned long long next_random(void) {
    unsigned long long z = (random_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A whole number from 0 to n - 1, each as likely (0 if n is 0). */
static size_t random_below(size_t n) {
    if (n == 0) return 0;
    unsigned long long threshold = (0ULL - n) % n; /* below it, % n would favour some */
    unsigned long long x;
    do x = next_random(); while (x < threshold);
    return (size_t)(x % n);
}

/* EDIT: a new game starts: reset what you keep about a game here.  message has "game"
 * ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players", "options". */
static void new_game(const Json *message) {
    random_state = (unsigned long long)json_integer(json_get(message, "seed"), 0);
}

/* EDIT: your strategy.
 * observation: everything your seat may see, a JSON object (Ra: docs/ra-json.md; the dice
 *   game: docs/rules-ra-dice.md);
 * legal: the actions you may take, a JSON array of objects such as {"type": "bid", "sun": 7};
 * return the index of your choice in legal.  Logs go to stderr, never to stdout:
 *   json_write(stderr, observation); fputc('\n', stderr); */
static size_t choose(const Json *observation, const Json *legal) {
    (void)observation;
    // For example, draw whenever you may:
    // for (size_t i = 0; i < json_length(legal); i++)
    //     if (json_string_is(json_get(json_at(legal, i), "type"), "draw")) return i;
    return random_below(json_length(legal));
}

/* ---- the protocol: you should not need to change what follows ---- */

/* The next line of stdin without its end of line, in *line (grown as needed); its length,
 * or -1 at the end of the input. */
static long read_line(char **line, size_t *capacity) {
    size_t length = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (length + 1 >= *capacity) {
            size_t more = *capacity ? 2 * *capacity : 4096;
            char *grown = realloc(*line, more);
            if (grown == NULL) {
                fprintf(stderr, BOT_NAME ": out of memory reading a line\n");
                exit(1);
            }
            *line = grown;
            *capacity = more;
        }
        (*line)[length++] = (char)c;
    }
    if (c == EOF && length == 0) return -1;
    if (length > 0 && (*line)[length - 1] == '\r') length--;
    return (long)length;
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    long length;
    while ((length = read_line(&line, &capacity)) >= 0) {
        char error[100];
        if (length == 0) continue;
        Json *message = json_parse(line, (size_t)length, error, sizeof error);
        if (message == NULL) {
            fprintf(stderr, BOT_NAME ": not a JSON line (%s): %.*s\n", error,
                    length < 100 ? (int)length : 100, line);
            continue;
        }
        const Json *type = json_get(message, "type");
        if (json_string_is(type, "hello")) {
            printf("{\"type\":\"ready\",\"name\":\"%s\",\"version\":\"%s\","
                   "\"protocol\":\"ra-arena/1\"}\n", BOT_NAME, BOT_VERSION);
        } else if (json_string_is(type, "new_game")) {
            new_game(message);
        } else if (json_string_is(type, "request")) {
            const Json *legal = json_get(message, "legal");
            size_t index = choose(json_get(message, "observation"), legal);
            if (index >= json_length(legal))
                fprintf(stderr, BOT_NAME ": choose() gave %zu, outside the %zu legal actions\n",
                        index, json_length(legal));
            printf("{\"type\":\"reply\",\"id\":%lld,\"index\":%zu}\n",
                   json_integer(json_get(message, "id"), 0), index);
        } else if (json_string_is(type, "ping")) {
            printf("{\"type\":\"pong\",\"id\":%lld}\n", json_integer(json_get(message, "id"), 0));
        } else if (json_string_is(type, "quit")) {
            json_free(message);
            break;
        }
        /* every other message ("action", "game_over", new kinds) needs no answer */
        fflush(stdout);
        json_free(message);
    }
    free(line);
    return 0;
}
