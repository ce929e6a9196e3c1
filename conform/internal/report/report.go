// Package report is the result of a conform run (Report: per scenario,
// per check, with the evidence and the baseline comparison) and its
// renderings: the terminal summary, Markdown, JUnit XML and JSON.
//
// It holds and writes results; running scenarios and judging them are
// package conform's and package judge's.
package report

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a2amock/a2amock/conform/clientrun"
	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/server"
)

// ReportSchema names the JSON report format; ReportVersion is bumped on
// any incompatible change (docs/conformance.md describes every field).
const (
	ReportSchema  = "https://a2amock.dev/schemas/conform-report"
	ReportVersion = 1
)

// Report is the result of a conform run, as the JSON report holds it.
type Report struct {
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// Suite names the suite run; Client is the --client command.
	Suite  string `json:"suite"`
	Client string `json:"client"`
	// Seed is the seed given with --seed, if any (scenarios keep their
	// own otherwise).
	Seed *uint64 `json:"seed,omitempty"`
	// GRPC says the run served the gRPC binding in every scenario (--grpc).
	GRPC       bool              `json:"grpc,omitempty"`
	StartedAt  time.Time         `json:"startedAt"`
	DurationMS int64             `json:"durationMs"`
	Scenarios  []*ScenarioResult `json:"scenarios"`
	Summary    Summary           `json:"summary"`
	// Baseline is the comparison with --expected-failures, if given.
	Baseline *BaselineResult `json:"baseline,omitempty"`
}

// Summary counts the run's results.
type Summary struct {
	Scenarios       int `json:"scenarios"`
	ScenariosPassed int `json:"scenariosPassed"`
	Checks          int `json:"checks"`
	ChecksFailed    int `json:"checksFailed"`
	// Unexpected counts failed checks not in the baseline; Stale counts
	// baseline entries that now pass.
	Unexpected int `json:"unexpected"`
	Stale      int `json:"stale"`
	// OK is the verdict of the run: exit 0.
	OK bool `json:"ok"`
}

// ScenarioResult is one scenario's run and verdicts.
type ScenarioResult struct {
	ID         string             `json:"id"`
	Title      string             `json:"title,omitempty"`
	Pass       bool               `json:"pass"`
	Agents     []AgentRef         `json:"agents"`
	Prompt     string             `json:"prompt"`
	Input      string             `json:"input"`
	Mode       string             `json:"mode,omitempty"`
	DeadlineMS int64              `json:"deadlineMs"`
	Outcomes   []string           `json:"truthfulOutcomes"`
	DurationMS int64              `json:"durationMs"`
	Process    *clientrun.Process `json:"process,omitempty"`
	Checks     []*CheckResult     `json:"checks"`
	// Error is a problem of the runner itself (the mock could not start);
	// every check then fails with it.
	Error string `json:"error,omitempty"`
	// JournalEntries counts the entries of the scenario's journal up to
	// the client's exit (Journal).
	JournalEntries int `json:"journalEntries"`
	// Journal is the scenario's journal up to the moment the client's
	// process ended: what the client lived to see, and all the checks
	// judge. What the agents journaled later, until the mock was shut down,
	// is left out: how much of it there is depends on how fast the
	// shutdown is, and the same suite and seed must give the same journal.
	// It is kept only when the run was asked to (Options.KeepJournal,
	// conform --html): the JSON report of such a run then gives a2amock
	// report the same view as the HTML.
	Journal []server.Entry `json:"journal,omitempty"`
}

// AgentRef names a hosted agent and its URL in the run.
type AgentRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// CheckResult is one check's verdict with its evidence.
type CheckResult struct {
	ID     string `json:"id"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason"`
	// Expected marks a failure the baseline lists; BaselineReason is the
	// reason given there.
	Expected       bool           `json:"expected,omitempty"`
	BaselineReason string         `json:"baselineReason,omitempty"`
	Evidence       judge.Evidence `json:"evidence"`
}

// Failed returns the ids of the scenario's failed checks.
func (s *ScenarioResult) Failed() []*CheckResult {
	var out []*CheckResult
	for _, c := range s.Checks {
		if !c.Pass {
			out = append(out, c)
		}
	}
	return out
}

// JSON renders the report, indented.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// BaselineResult compares a run with its baseline.
type BaselineResult struct {
	// File names the baseline's files, joined with ", "; Files lists them.
	File  string   `json:"file"`
	Files []string `json:"files"`
	// Expected lists failures the baseline accepts; Unexpected failures it
	// does not; Stale entries that passed.
	Expected   []BaselineEntry `json:"expected"`
	Unexpected []BaselineEntry `json:"unexpected"`
	Stale      []BaselineEntry `json:"stale"`
}

// BaselineEntry is one scenario and check.
type BaselineEntry struct {
	Scenario string `json:"scenario"`
	Check    string `json:"check"`
	Reason   string `json:"reason,omitempty"`
	// File is the baseline file that lists the entry (expected and stale
	// entries).
	File string `json:"file,omitempty"`
}

// AllExpected reports whether every failed check of the scenario is one
// the baseline lists.
func (s *ScenarioResult) AllExpected() bool {
	for _, c := range s.Failed() {
		if !c.Expected {
			return false
		}
	}
	return true
}

// OneLine is s on one line, cut at 300 bytes (at a character's start),
// for summaries and baselines.
func OneLine(s string) string {
	return cutAt(strings.ReplaceAll(s, "\n", " "), 300)
}

// cutAt is s cut to at most n bytes at a character's start, with "…"
// after the cut; s itself when it is short enough.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Indented is s whole, its lines after the first indented by indent: a
// reason in the client-did / declared / observed layout stays readable on
// a terminal, where OneLine would run its parts together and cut the last,
// what was observed.
func Indented(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
