// Command scorecard turns the JSON reports of a2amock conform runs, one per
// client, into the Markdown scorecard the README shows: a scenario × client
// table (✓ or ✗, the outcome the client reported and the checks it failed)
// and a check × client table of failure counts.
//
//	go run ./conformance/scorecard -readme README.md go-robust=bin/conform-go-robust.json …
//
// With -readme the table replaces what stands between the
// "<!-- scorecard:begin -->" and "<!-- scorecard:end -->" lines of that
// file; without it the table is printed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/a2amock/a2amock/conform"
)

const (
	beginMarker = "<!-- scorecard:begin -->"
	endMarker   = "<!-- scorecard:end -->"
)

// column is one client's report.
type column struct {
	name   string
	report *conform.Report
}

func main() {
	readme := flag.String("readme", "", "replace the scorecard between the markers of this Markdown file instead of printing it")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: scorecard [-readme FILE] NAME=REPORT.json…")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*readme, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "scorecard:", err)
		os.Exit(1)
	}
}

func run(readme string, args []string) error {
	if len(args) == 0 {
		return errors.New("no reports given (NAME=REPORT.json…)")
	}
	var cols []column
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: want NAME=REPORT.json", a)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var rep conform.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		cols = append(cols, column{name: name, report: &rep})
	}
	table := render(cols)
	if readme == "" {
		_, err := os.Stdout.Write(table)
		return err
	}
	return splice(readme, table)
}

// render writes both tables.
func render(cols []column) []byte {
	var b bytes.Buffer
	// Scenarios in the order of the first report (the suite's order); a
	// scenario missing from a report shows as "not run".
	var ids []string
	seen := map[string]bool{}
	byID := make([]map[string]*conform.ScenarioResult, len(cols))
	for i, c := range cols {
		byID[i] = map[string]*conform.ScenarioResult{}
		for _, s := range c.report.Scenarios {
			byID[i][s.ID] = s
			if !seen[s.ID] {
				seen[s.ID] = true
				ids = append(ids, s.ID)
			}
		}
	}
	fmt.Fprintf(&b, "Suite `%s`, %d scenarios. A cell is ✓ when the client passed every check of the scenario, otherwise ✗ and the checks it failed; the word after it is the outcome the client reported (`hang` and `crash`: none).\n\n", cols[0].report.Suite, len(ids))
	b.WriteString("| scenario |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "| `%s` |", id)
		for i := range cols {
			fmt.Fprintf(&b, " %s |", cell(byID[i][id]))
		}
		b.WriteString("\n")
	}
	b.WriteString("| **scenarios passed** |")
	for _, c := range cols {
		s := c.report.Summary
		fmt.Fprintf(&b, " %d/%d (%d of %d checks failed) |", s.ScenariosPassed, s.Scenarios, s.ChecksFailed, s.Checks)
	}
	b.WriteString("\n\nFailures per check (scenarios in which the client failed it):\n\n| check |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var checks []string
	counts := make([]map[string]int, len(cols))
	seenCheck := map[string]bool{}
	for i, c := range cols {
		counts[i] = map[string]int{}
		for _, s := range c.report.Scenarios {
			for _, ch := range s.Checks {
				if !seenCheck[ch.ID] {
					seenCheck[ch.ID] = true
					checks = append(checks, ch.ID)
				}
				if !ch.Pass {
					counts[i][ch.ID]++
				}
			}
		}
	}
	for _, id := range checks {
		fmt.Fprintf(&b, "| `%s` |", id)
		for i := range cols {
			if n := counts[i][id]; n > 0 {
				fmt.Fprintf(&b, " %d |", n)
			} else {
				b.WriteString(" · |")
			}
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// cell is one scenario's verdict for one client.
func cell(s *conform.ScenarioResult) string {
	if s == nil {
		return "not run"
	}
	outcome := "—"
	if s.Process != nil {
		switch {
		case s.Process.Outcome != nil:
			outcome = s.Process.Outcome.Outcome
		case s.Process.Killed:
			outcome = "hang"
		default:
			outcome = "crash"
		}
	}
	failed := s.Failed()
	if len(failed) == 0 {
		return "✓ " + outcome
	}
	ids := make([]string, len(failed))
	for i, c := range failed {
		ids[i] = c.ID
	}
	return "✗ " + outcome + ": " + strings.Join(ids, ", ")
}

// splice replaces the lines between the markers of a Markdown file.
func splice(path string, table []byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin := bytes.Index(data, []byte(beginMarker))
	end := bytes.Index(data, []byte(endMarker))
	if begin < 0 || end < begin {
		return fmt.Errorf("%s has no %s … %s section", path, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(data[:begin+len(beginMarker)])
	out.WriteString("\n")
	out.Write(table)
	out.Write(data[end:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
