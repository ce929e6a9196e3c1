// Command genschema writes the scenario format's JSON Schema to the file
// named by its argument (go generate ./scenario runs it).
package main

import (
	"fmt"
	"os"

	"github.com/a2amock/a2amock/scenario"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genschema OUT.json")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], scenario.Schema(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
