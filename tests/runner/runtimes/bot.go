// A Go bot for the runtime tests: protocol ra-arena/1, the first legal choice every time.
// With the argument "bomb" it allocates 8 GiB, 64 MiB at a time, when asked to decide,
// writing every page (Go's fresh memory is the kernel's zero pages until written).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	bomb := len(os.Args) > 1 && os.Args[1] == "bomb"
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var hoard [][]byte
	say := func(message map[string]any) {
		line, _ := json.Marshal(message)
		out.Write(append(line, '\n'))
		out.Flush()
	}
	for in.Scan() {
		var message map[string]any
		if json.Unmarshal(in.Bytes(), &message) != nil {
			continue
		}
		switch message["type"] {
		case "hello":
			say(map[string]any{"type": "ready", "name": "go-bot", "version": "1",
				"protocol": "ra-arena/1"})
		case "request":
			if bomb {
				fmt.Fprintln(os.Stderr, "allocating 8 GiB")
				for i := 0; i < 128; i++ {
					block := make([]byte, 64<<20)
					for j := 0; j < len(block); j += 4096 {
						block[j] = 1
					}
					hoard = append(hoard, block)
				}
			}
			say(map[string]any{"type": "reply", "id": message["id"], "index": len(hoard) % 1})
		case "ping":
			say(map[string]any{"type": "pong", "id": message["id"]})
		case "quit":
			return
		}
	}
}
