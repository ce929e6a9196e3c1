package conform

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/scenario"
)

// issueScenarios are the misbehaviors issue 10 asks the default suite to
// hold, by scenario id.
var issueScenarios = []string{
	"honest-v10-jsonrpc", "honest-v03-jsonrpc", "three-workers",
	"new-task-id-on-continuation", "skip-working", "never-terminal", "stuck-submitted",
	"fail-instead-of-input-required", "input-required-without-working", "stream-no-final",
	"stream-hang", "stream-eof-mid-frame", "stream-drop-events", "stream-duplicate-events",
	"resubscribe-gap", "version-skew", "legacy-card-path-only", "card-overclaims",
	"http-error-503-retry-after", "http-error-429", "connection-reset", "malformed-json",
	"truncated-body", "latency-past-deadline", "transition-after-terminal",
	"status-for-other-task", "context-id-drift", "ignore-cancel", "auth-flaky",
}

// issueChecks are the checks issue 10 names; each judges some scenario of
// the default suite.
var issueChecks = []string{"exits-in-time", "no-crash", "truthful-outcome", "no-orphans", "bounded-polling",
	"continuation-carries-task-id", "cancels-on-divergence", "recovers-after-stream-loss", "sends-a2a-version",
	"uses-declared-interface", "discovers-via-card", "honours-retry-after", "ignores-duplicate-events"}

func TestDefaultSuite(t *testing.T) {
	s := DefaultSuite()
	if len(s.Scenarios) < 25 {
		t.Errorf("the default suite has %d scenarios, want at least 25", len(s.Scenarios))
	}
	ids := s.IDs()
	for _, id := range issueScenarios {
		if !slices.Contains(ids, id) {
			t.Errorf("the default suite lacks %s", id)
		}
	}
	used := map[string]bool{}
	for _, sc := range s.Scenarios {
		for _, c := range sc.Checks {
			used[c] = true
		}
		if sc.Title == "" || sc.Reproduces == "" || sc.Source == "" || sc.Robust == "" {
			t.Errorf("%s: title, reproduces, source and robust are all needed for --list", sc.ID)
		}
		if !slices.Contains(sc.Checks, "truthful-outcome") || sc.Checks[0] != "exits-in-time" {
			t.Errorf("%s: the base checks are missing: %v", sc.ID, sc.Checks)
		}
	}
	for _, id := range issueChecks {
		if !used[id] {
			t.Errorf("no scenario of the default suite uses check %s", id)
		}
	}
}

func TestSuiteErrorsHavePositions(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown check", `agents: [{name: a}]
conform:
  id: x
  checks: [exits-in-time, no-such-check]
`, "bad.yaml:4:27: conform.checks[1]: unknown check \"no-such-check\""},
		{"bad id", `agents: [{name: a}]
conform:
  id: Not An Id
`, "bad.yaml:3:7: conform.id"},
		{"no conform", `agents: [{name: a}]
`, "bad.yaml:1:"},
		{"bad behavior", `agents:
  - name: a
    behaviors: [no-such-behavior]
conform: {id: x}
`, "bad.yaml:3:17"},
		{"duplicate id", "agents: [{name: a}]\nconform: {id: x}\n---\nagents: [{name: b}]\nconform: {id: x}\n", "bad.yaml:5:"},
		{"card change of no agent", `agents: [{name: a}]
conform:
  id: x
  cardChange: {agent: b, behaviors: [card-underclaims]}
`, "bad.yaml:4:23: conform.cardChange.agent: no agent \"b\""},
		{"card change bad behavior", `agents: [{name: a}]
conform:
  id: x
  cardChange:
    behaviors: [card-underclaims, no-such-behavior]
`, "bad.yaml:5:35: conform.cardChange.behaviors[1]"},
		{"card change without behaviors", `agents: [{name: a}]
conform:
  id: x
  cardChange: {atMessage: 2, behaviors: []}
`, "conform.cardChange.behaviors: give at least one behavior"},
		{"refetch check without a change", `agents: [{name: a}]
conform:
  id: x
  checks: [card-refetched-on-change]
`, "bad.yaml:4:11: conform.checks: check card-refetched-on-change needs a card that changes"},
		{"bad yaml", "agents: [\n", "bad.yaml:"},
		{"empty", "# nothing\n", "holds no scenario"},
	}
	for _, c := range cases {
		_, err := ParseSuite([]byte(c.text), "bad.yaml")
		var se *scenario.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a *scenario.Error", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q does not contain %q", c.name, err.Error(), c.want)
		}
	}
}

func TestLoadSuiteFileAndDir(t *testing.T) {
	dir := t.TempDir()
	doc := "agents: [{name: a}]\nconform: {id: one}\n---\nagents: [{name: b}]\nconform: {id: two}\n"
	f := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.IDs(); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("ids = %v", got)
	}
	s, err = LoadSuite(dir)
	if err != nil || len(s.Scenarios) != 2 {
		t.Fatalf("dir: %v, %v", s, err)
	}
	if _, err := LoadSuite(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml: cannot read the suite") {
		t.Errorf("missing file: %v", err)
	}
	if s, err := LoadSuite("default"); err != nil || s.Name != DefaultSuiteName {
		t.Errorf("default: %v", err)
	}
}

// TestSuiteProblemsAtOnce: a suite document with a structural problem (a
// bad dialect) and a semantic one (an unknown behavior) reports both in
// one pass, with their positions in the file, as a2amock validate does.
func TestSuiteProblemsAtOnce(t *testing.T) {
	text := "agents:\n  - name: a\n    card: {dialect: \"1.0\"}\nconform:\n  id: first\n---\n" +
		"agents:\n  - name: b\n    card: {dialect: \"9.9\"}\n    behaviors: [not-a-behavior]\nconform:\n  id: second\n"
	_, err := ParseSuite([]byte(text), "suite.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`suite.yaml:9:21: agents[0].card.dialect: "9.9" is not valid`, `suite.yaml:10:17: agents[0].behaviors[0]: unknown behavior "not-a-behavior"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the problems do not say %q:\n%v", want, err)
		}
	}
}
