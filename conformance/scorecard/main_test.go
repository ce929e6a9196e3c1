package main

import (
	"github.com/a2amock/a2amock/conform/clientrun"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/conform"
)

func report(suite string, scenarios ...*conform.ScenarioResult) *conform.Report {
	r := &conform.Report{Suite: suite, Scenarios: scenarios}
	for _, s := range scenarios {
		r.Summary.Scenarios++
		if len(s.Failed()) == 0 {
			r.Summary.ScenariosPassed++
		}
		r.Summary.Checks += len(s.Checks)
		r.Summary.ChecksFailed += len(s.Failed())
	}
	return r
}

func scenario(id, outcome string, killed bool, checks map[string]bool) *conform.ScenarioResult {
	s := &conform.ScenarioResult{ID: id, Process: &clientrun.Process{Killed: killed}}
	if outcome != "" {
		s.Process.Outcome = &clientrun.Outcome{Outcome: outcome}
	}
	for _, id := range []string{"exits-in-time", "truthful-outcome"} {
		if pass, ok := checks[id]; ok {
			s.Checks = append(s.Checks, &conform.CheckResult{ID: id, Pass: pass})
		}
	}
	return s
}

func TestRenderCellsAndCounts(t *testing.T) {
	robust := report("default",
		scenario("honest", "completed", false, map[string]bool{"exits-in-time": true, "truthful-outcome": true}),
		scenario("hang", "timeout", false, map[string]bool{"exits-in-time": true, "truthful-outcome": true}))
	naive := report("default",
		scenario("honest", "completed", false, map[string]bool{"exits-in-time": true, "truthful-outcome": true}),
		scenario("hang", "", true, map[string]bool{"exits-in-time": false, "truthful-outcome": false}))
	out := string(render([]column{{"robust", robust}, {"naive", naive}}))
	for _, want := range []string{
		"| scenario | robust | naive |",
		"| `honest` | ✓ completed | ✓ completed |",
		"| `hang` | ✓ timeout | ✗ hang: exits-in-time, truthful-outcome |",
		"| **scenarios passed** | 2/2 (0 of 4 checks failed) | 1/2 (2 of 4 checks failed) |",
		"| `exits-in-time` | · | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the scorecard lacks %q:\n%s", want, out)
		}
	}
}

func TestSpliceReplacesOnlyBetweenMarkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	before := "# title\n\n" + beginMarker + "\nold table\n" + endMarker + "\n\nafter\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := splice(path, []byte("new table\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# title\n\n" + beginMarker + "\nnew table\n" + endMarker + "\n\nafter\n"
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(path, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := splice(path, []byte("x")); err == nil {
		t.Fatal("splice into a file without markers succeeded")
	}
}
