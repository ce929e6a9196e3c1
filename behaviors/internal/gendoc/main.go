// Command gendoc writes the behavior catalogue (behaviors.Describe of the
// built-in catalogue) to a Markdown file and its summary into the README;
// `go generate ./behaviors` runs it to keep docs/behaviors.md and README.md
// current.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/a2amock/a2amock/behaviors"
)

func main() {
	out := flag.String("o", "docs/behaviors.md", "file to write")
	readme := flag.String("readme", "", "README whose catalogue summary (between the markers) to rewrite")
	flag.Parse()
	cat := behaviors.Catalogue()
	if err := os.WriteFile(*out, []byte(behaviors.Describe(cat)), 0o644); err != nil {
		fail(err)
	}
	if *readme == "" {
		return
	}
	doc, err := os.ReadFile(*readme)
	if err != nil {
		fail(err)
	}
	spliced, err := behaviors.SpliceSummary(string(doc), behaviors.Summary(cat))
	if err != nil {
		fail(fmt.Errorf("%s: %w", *readme, err))
	}
	if err := os.WriteFile(*readme, []byte(spliced), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendoc:", err)
	os.Exit(1)
}
