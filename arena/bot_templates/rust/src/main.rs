//! my-bot: a Ra Arena bot in Rust (protocol "ra-arena/1": one JSON object per line on
//! stdin and stdout), standard library only.  It plays a legal action at random, seeded by
//! each game's seed, until you teach `choose` to play: the places marked EDIT are yours.
//! README.md says how to build, run and test it.

mod json;

use json::Json;
use std::io::{self, BufRead, Write};

// EDIT: what the bot tells the arena about itself (bot.toml says the same).
const BOT_NAME: &str = "my-bot";
const BOT_VERSION: &str = "0.1.0";

/// A seeded random generator (splitmix64): the same seed gives the same game.
struct Random {
    state: u64,
}

impl Random {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A whole number from 0 to n - 1, each as likely (0 if n is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let n = n as u64;
        let threshold = n.wrapping_neg() % n; // below it, % n would favour some
        loop {
            let x = self.next();
            if x >= threshold {
                return (x % n) as usize;
            }
        }
    }
}

/// What the bot keeps between messages.  EDIT: add what your strategy remembers.
struct Bot {
    random: Random,
}

impl Bot {
    /// EDIT: a new game starts: reset what you keep about a game here.  `message` has
    /// "game" ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players".
    fn new_game(&mut self, message: &Json) {
        self.random = Random {
            state: message["seed"].as_i64().unwrap_or(0) as u64,
        };
    }

    /// EDIT: your strategy.
    /// `observation`: everything your seat may see, a JSON object (Ra: docs/ra-json.md; the
    /// dice game: docs/rules-ra-dice.md);
    /// `legal`: the actions you may take, a JSON array of objects such as
    /// {"type": "bid", "sun": 7};
    /// return the index of your choice in `legal`.  Logs go to stderr, never to stdout:
    /// `eprintln!("{}", observation);`
    fn choose(&mut self, observation: &Json, legal: &Json) -> usize {
        let _ = observation;
        // For example, draw whenever you may:
        // for i in 0..legal.len() {
        //     if legal[i]["type"].as_str() == Some("draw") {
        //         return i;
        //     }
        // }
        self.random.below(legal.len())
    }
}

// ---- the protocol: you should not need to change what follows ----

fn send(out: &mut impl Write, line: &str) -> io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn main() {
    let mut bot = Bot {
        random: Random { state: 0 },
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return, // the end of the input
            Ok(_) => {}
            Err(problem) => {
                eprintln!("{}: cannot read stdin: {}", BOT_NAME, problem);
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let message = match Json::parse(text) {
            Ok(message) => message,
            Err(problem) => {
                let start: String = text.chars().take(100).collect();
                eprintln!("{}: not a JSON line ({}): {}", BOT_NAME, problem, start);
                continue;
            }
        };
        let id = message["id"].as_i64().unwrap_or(0);
        let sent = match message["type"].as_str() {
            Some("hello") => send(
                &mut out,
                &format!(
                    "{{\"type\":\"ready\",\"name\":\"{}\",\"version\":\"{}\",\"protocol\":\"ra-arena/1\"}}",
                    BOT_NAME, BOT_VERSION
                ),
            ),
            Some("new_game") => {
                bot.new_game(&message);
                Ok(())
            }
            Some("request") => {
                let legal = &message["legal"];
                let index = bot.choose(&message["observation"], legal);
                if index >= legal.len() {
                    eprintln!(
                        "{}: choose() gave {}, outside the {} legal actions",
                        BOT_NAME,
                        index,
                        legal.len()
                    );
                }
                send(&mut out, &format!("{{\"type\":\"reply\",\"id\":{},\"index\":{}}}", id, index))
            }
            Some("ping") => send(&mut out, &format!("{{\"type\":\"pong\",\"id\":{}}}", id)),
            Some("quit") => return,
            _ => Ok(()), // every other message ("action", "game_over", new kinds) needs no answer
        };
        if sent.is_err() {
            return; // the arena is gone
        }
    }
}
