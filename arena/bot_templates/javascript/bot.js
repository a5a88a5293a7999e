// my-bot: a Ra Arena bot for Node.js, no package needed (protocol "ra-arena/1": one JSON
// object per line on stdin and stdout).  It plays a legal action at random, seeded by each
// game's seed, until you teach choose() to play: the places marked EDIT are yours.
// README.md says how to run and test it.
"use strict";
const readline = require("readline");

// EDIT: what the bot tells the arena about itself (bot.toml says the same).
const NAME = "my-bot";
const VERSION = "0.1.0";

let state = 0; // mulberry32: a small seeded generator (Math.random cannot be seeded)
function seed(value) { state = Number(BigInt.asUintN(32, BigInt(value))) >>> 0; }
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// EDIT: a new game starts: reset what you keep about a game here.  message has "game"
// ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players", "options".
function newGame(message) {
  seed(message.seed);
}

// EDIT: your strategy.
// observation: everything your seat may see (Ra: docs/ra-json.md; the dice game:
//   docs/rules-ra-dice.md); legal: the actions you may take, each an object such as
//   {type: "bid", sun: 7}; return the index of your choice in legal.
// Logs go to stderr, never to stdout: console.error(JSON.stringify(observation));
function choose(observation, legal) {
  // For example, draw whenever you may:
  // const draw = legal.findIndex((action) => action.type === "draw");
  // if (draw >= 0) return draw;
  return Math.floor(random() * legal.length);
}

// ---- the protocol: you should not need to change what follows ----

function send(message) { process.stdout.write(JSON.stringify(message) + "\n"); }

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    console.error(`${NAME}: not a JSON line (${error.message}): ${line.slice(0, 100)}`);
    return;
  }
  if (message.type === "hello") {
    send({ type: "ready", name: NAME, version: VERSION, protocol: "ra-arena/1" });
  } else if (message.type === "new_game") {
    newGame(message);
  } else if (message.type === "request") {
    send({ type: "reply", id: message.id, index: choose(message.observation, message.legal) });
  } else if (message.type === "ping") {
    send({ type: "pong", id: message.id });
  } else if (message.type === "quit") {
    process.exit(0);
  }
  // every other message ("action", "game_over", new kinds) needs no answer
});
input.on("close", () => process.exit(0));
