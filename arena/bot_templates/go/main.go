// my-bot: a Ra Arena bot in Go (protocol "ra-arena/1": one JSON object per line on stdin
// and stdout), standard library only.  It plays a legal action at random, seeded by each
// game's seed, until you teach choose() to play: the places marked EDIT are yours.
// README.md says how to build, run and test it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
)

// EDIT: what the bot tells the arena about itself (bot.toml says the same).
const (
	botName    = "my-bot"
	botVersion = "0.1.0"
)

// A seeded random generator: the same seed gives the same game.
var random = rand.New(rand.NewSource(0))

// EDIT: a new game starts: reset what you keep about a game here.  The message has Game
// ("ra" or "ra_dice"), NumPlayers, Seat (yours), Seed and Players.
func newGame(m message) {
	random = rand.New(rand.NewSource(m.Seed))
}

// EDIT: your strategy.
// observation: everything your seat may see, a JSON object (Ra: docs/ra-json.md; the dice
// game: docs/rules-ra-dice.md) as encoding/json reads it (numbers are float64);
// legal: the actions you may take, each an object such as {"type": "bid", "sun": 7};
// return the index of your choice in legal.  Logs go to os.Stderr, never to os.Stdout:
//
//	fmt.Fprintln(os.Stderr, observation)
func choose(observation map[string]any, legal []map[string]any) int {
	// For example, draw whenever you may:
	// for i, action := range legal {
	// 	if action["type"] == "draw" {
	// 		return i
	// 	}
	// }
	return random.Intn(len(legal))
}

// ---- the protocol: you should not need to change what follows ----

// message holds the keys of the arena's messages that this bot reads; encoding/json skips
// the others.
type message struct {
	Type        string           `json:"type"`
	ID          int64            `json:"id"`
	Game        string           `json:"game"`
	NumPlayers  int              `json:"num_players"`
	Seat        int              `json:"seat"`
	Seed        int64            `json:"seed"`
	Players     []string         `json:"players"`
	Observation map[string]any   `json:"observation"`
	Legal       []map[string]any `json:"legal"`
}

func main() {
	in := bufio.NewReader(os.Stdin) // not a bufio.Scanner: it refuses lines over 64 KiB
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, values ...any) {
		fmt.Fprintf(out, format+"\n", values...)
		out.Flush()
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if problem := json.Unmarshal(line, &m); problem != nil {
				text := bytes.TrimSpace(line)
				if len(text) > 100 {
					text = text[:100]
				}
				fmt.Fprintf(os.Stderr, "%s: not a message (%v): %s\n", botName, problem, text)
				continue
			}
			switch m.Type {
			case "hello":
				send(`{"type":"ready","name":%q,"version":%q,"protocol":"ra-arena/1"}`,
					botName, botVersion)
			case "new_game":
				newGame(m)
			case "request":
				index := choose(m.Observation, m.Legal)
				if index < 0 || index >= len(m.Legal) {
					fmt.Fprintf(os.Stderr, "%s: choose() gave %d, outside the %d legal actions\n",
						botName, index, len(m.Legal))
				}
				send(`{"type":"reply","id":%d,"index":%d}`, m.ID, index)
			case "ping":
				send(`{"type":"pong","id":%d}`, m.ID)
			case "quit":
				return
			}
			// every other message ("action", "game_over", new kinds) needs no answer
		}
		if err != nil { // the end of the input
			return
		}
	}
}
