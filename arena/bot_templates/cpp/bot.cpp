// my-bot: a Ra Arena bot in C++17 (protocol "ra-arena/1": one JSON object per line on
// stdin and stdout).  It plays a legal action at random, seeded by each game's seed, until
// you teach choose() to play: the places marked EDIT are yours.  README.md says how to
// build, run and test it.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "json.hpp"

// EDIT: what the bot tells the arena about itself (bot.toml says the same).
const char *const bot_name = "my-bot";
const char *const bot_version = "0.1.0";

// A seeded random generator: the same seed gives the same game.
std::mt19937_64 rng;

// A whole number from 0 to n - 1, each as likely (0 if n is 0).  (The same on every
// system, which std::uniform_int_distribution does not promise.)
std::size_t random_below(std::size_t n) {
    if (n == 0) return 0;
    const std::uint64_t threshold = (0 - static_cast<std::uint64_t>(n)) % n;
    std::uint64_t x;
    do x = rng(); while (x < threshold);  // below it, % n would favour some
    return static_cast<std::size_t>(x % n);
}

// EDIT: a new game starts: reset what you keep about a game here.  message has "game"
// ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players", "options".
void new_game(const Json &message) {
    rng.seed(static_cast<std::uint64_t>(message["seed"].as_integer()));
}

// EDIT: your strategy.
// observation: everything your seat may see, a JSON object (Ra: docs/ra-json.md; the dice
//   game: docs/rules-ra-dice.md);
// legal: the actions you may take, a JSON array of objects such as {"type": "bid", "sun": 7};
// return the index of your choice in legal.  Logs go to std::cerr, never to std::cout:
//   std::cerr << observation.dump() << '\n';
std::size_t choose(const Json &observation, const Json &legal) {
    (void)observation;
    // For example, draw whenever you may:
    // for (std::size_t i = 0; i < legal.size(); i++)
    //     if (legal[i]["type"].as_string() == "draw") return i;
    return random_below(legal.size());
}

// ---- the protocol: you should not need to change what follows ----

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        Json message;
        try {
            message = Json::parse(line);
        } catch (const JsonError &error) {
            std::cerr << bot_name << ": not a JSON line (" << error.what()
                      << "): " << line.substr(0, 100) << std::endl;
            continue;
        }
        const std::string &type = message["type"].as_string();
        if (type == "hello") {
            std::cout << "{\"type\":\"ready\",\"name\":\"" << bot_name << "\",\"version\":\""
                      << bot_version << "\",\"protocol\":\"ra-arena/1\"}\n";
        } else if (type == "new_game") {
            new_game(message);
        } else if (type == "request") {
            const Json &legal = message["legal"];
            std::size_t index = choose(message["observation"], legal);
            if (index >= legal.size())
                std::cerr << bot_name << ": choose() gave " << index << ", outside the "
                          << legal.size() << " legal actions" << std::endl;
            std::cout << "{\"type\":\"reply\",\"id\":" << message["id"].as_integer()
                      << ",\"index\":" << index << "}\n";
        } else if (type == "ping") {
            std::cout << "{\"type\":\"pong\",\"id\":" << message["id"].as_integer() << "}\n";
        } else if (type == "quit") {
            break;
        }
        // every other message ("action", "game_over", new kinds) needs no answer
        std::cout.flush();
    }
    return 0;
}
