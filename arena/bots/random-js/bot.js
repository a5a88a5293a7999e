// A Ra Arena bot in JavaScript: protocol "ra-arena/1", one JSON object per line.
// Uniformly random among the legal choices, seeded by each new game's seed.
"use strict";
const readline = require("readline");

// mulberry32: a small seeded generator (Math.random cannot be seeded)
let state = 0;
function seed(value) {
  state = Number(BigInt.asUintN(32, BigInt(value))) >>> 0;
}
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      // it looks only at the legal list: no observation, no notifications (lean requests)
      send({ type: "ready", name: "random-js", version: "1.0.0", protocol: "ra-arena/1",
             wants: { observation: false, notifications: false } });
      break;
    case "new_game":
      seed(message.seed);
      break;
    case "request":
      send({ type: "reply", id: message.id, index: Math.floor(random() * message.legal.length) });
      break;
    case "ping":
      send({ type: "pong", id: message.id });
      break;
    case "quit":
      process.exit(0);
    // every other message (action, game_over, ...) is ignored
  }
});
input.on("close", () => process.exit(0));
