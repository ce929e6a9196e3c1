// Command gendoc writes the behavior catalogue (behaviors.Describe of the
// built-in catalogue) to a Markdown file; `go generate ./behaviors` runs it
// to keep docs/behaviors.md current.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/a2amock/a2amock/behaviors"
)

func main() {
	out := flag.String("o", "docs/behaviors.md", "file to write")
	flag.Parse()
	if err := os.WriteFile(*out, []byte(behaviors.Describe(behaviors.Catalogue())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}
