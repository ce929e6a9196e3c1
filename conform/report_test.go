package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var detIDs = []string{"honest-v10-jsonrpc", "fail-instead-of-input-required", "skip-working"}

func detRun(t *testing.T, b *Baseline) *Report {
	t.Helper()
	seed := uint64(7)
	rep, err := Run(context.Background(), Options{Client: fakeCommand("once"), Scenarios: detIDs, Seed: &seed,
		Grace: 2 * time.Second, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Timestamps, durations, ports and the test binary's path vary between two
// runs; nothing else may.
var varying = []*regexp.Regexp{
	regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z`),
	regexp.MustCompile(`"(durationMs|startupMs|start|end|startedAt)": [0-9.]+`),
	regexp.MustCompile(`(time|durationMs)="?[0-9.]+"?`),
	regexp.MustCompile(`127\.0\.0\.1:\d+`),
	regexp.MustCompile(`(after|in) [0-9.]+m?s`),
	regexp.MustCompile(`\d+ms`),
}

func normalize(b []byte) string {
	s := string(b)
	for _, re := range varying {
		s = re.ReplaceAllString(s, "~")
	}
	return s
}

func renderAll(t *testing.T, rep *Report) (js, junit, md []byte) {
	t.Helper()
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var j, m bytes.Buffer
	if err := WriteJUnit(&j, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&m, rep); err != nil {
		t.Fatal(err)
	}
	return js, j.Bytes(), m.Bytes()
}

// TestDeterministicReports: the same suite, seed and deterministic client
// give the same verdicts and reports, timestamps aside.
func TestDeterministicReports(t *testing.T) {
	a1, b1, c1 := renderAll(t, detRun(t, nil))
	a2, b2, c2 := renderAll(t, detRun(t, nil))
	for _, p := range [][3]any{{"JSON", a1, a2}, {"JUnit", b1, b2}, {"Markdown", c1, c2}} {
		x, y := normalize(p[1].([]byte)), normalize(p[2].([]byte))
		if x != y {
			t.Errorf("%s reports differ between two runs:\n%s\n----\n%s", p[0], x, y)
		}
	}
}

func TestReportsAndBaseline(t *testing.T) {
	rep := detRun(t, nil)
	// fail-instead-of-input-required: "completed" for a failed task.
	if rep.Summary.OK || rep.Summary.Unexpected != 1 {
		t.Fatalf("summary %+v, want one unexpected failure", rep.Summary)
	}
	js, junit, md := renderAll(t, rep)

	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema"] != ReportSchema || doc["version"] != float64(ReportVersion) {
		t.Errorf("schema/version = %v/%v", doc["schema"], doc["version"])
	}
	var failed *CheckResult
	for _, res := range rep.Scenarios {
		for _, c := range res.Failed() {
			failed = c
		}
	}
	if failed == nil || failed.ID != "truthful-outcome" || len(failed.Evidence.Journal) == 0 {
		t.Fatalf("the failure carries no journal evidence: %+v", failed)
	}

	// The JUnit document as a CI reads it: its suites and its failure count.
	var suites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Failures int        `xml:"failures,attr"`
		Suites   []struct{} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit, &suites); err != nil {
		t.Fatal(err)
	}
	if len(suites.Suites) != len(detIDs) || suites.Failures != 1 {
		t.Errorf("JUnit: %d suites, %d failures", len(suites.Suites), suites.Failures)
	}
	if !strings.Contains(string(md), "| fail-instead-of-input-required |") || !strings.Contains(string(md), "✗") ||
		!strings.Contains(string(md), "### Failures") {
		t.Errorf("Markdown lacks the table or the failure:\n%s", md)
	}
	// Under the failure, the journal entries it rests on: the task's
	// last state, failed, against the reported "completed".
	if !strings.Contains(string(md), "  <details><summary>Evidence: ") || !strings.Contains(string(md), "<td>failed</td>") {
		t.Errorf("Markdown lacks the failure's evidence:\n%s", md)
	}

	// --update-baseline writes the failure; with it the run is OK.
	f := filepath.Join(t.TempDir(), "expected.yaml")
	if err := WriteBaseline(f, rep, nil); err != nil {
		t.Fatal(err)
	}
	suite := DefaultSuite()
	b, err := LoadBaseline(f, suite)
	if err != nil {
		t.Fatal(err)
	}
	if rep := detRun(t, b); !rep.Summary.OK || len(rep.Baseline.Expected) != 1 {
		t.Errorf("with the written baseline: %+v %+v", rep.Summary, rep.Baseline)
	} else if _, _, md := renderAll(t, rep); strings.Contains(string(md), "<details>") {
		t.Errorf("an expected failure's evidence is in the Markdown:\n%s", md)
	}
	// A stale entry (a check that passes) fails the run.
	stale := "fail-instead-of-input-required:\n  truthful-outcome: known\nhonest-v10-jsonrpc:\n  no-crash: it used to crash\n"
	if err := os.WriteFile(f, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err = LoadBaseline(f, suite)
	if err != nil {
		t.Fatal(err)
	}
	rep = detRun(t, b)
	if rep.Summary.OK || rep.Summary.Stale != 1 || rep.Baseline.Stale[0].Check != "no-crash" {
		t.Errorf("a stale entry did not fail the run: %+v %+v", rep.Summary, rep.Baseline)
	}
	var m bytes.Buffer
	_ = WriteMarkdown(&m, rep)
	if !strings.Contains(m.String(), "Stale baseline entries") {
		t.Error("Markdown does not list the stale entry")
	}
}

func TestBadBaseline(t *testing.T) {
	suite := DefaultSuite()
	cases := map[string]string{
		"no-such-scenario:\n  no-crash: x\n":        "bad.yaml:1:1: unknown scenario",
		"never-terminal:\n  no-such-check: x\n":     "bad.yaml:2:3: scenario never-terminal has no check",
		"never-terminal:\n  no-crash:\n":            "give the reason",
		"never-terminal: [a, b]\n":                  "expected a mapping of check ids",
		"never-terminal:\n  no-crash: \"unclosed\n": "invalid YAML",
		"- a list\n": "expected a mapping of scenario ids",
		"never-terminal:\n  exits-in-time: fine\n":        "",
		"# only a comment\n":                              "",
		"never-terminal:\n  no-crash: a\n  no-crash: b\n": "",
	}
	for text, want := range cases {
		_, err := ParseBaseline([]byte(text), "bad.yaml", suite)
		switch {
		case want == "" && err != nil && !strings.Contains(text, "no-crash: b"):
			t.Errorf("%q: %v", text, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: err = %v, want %q", text, err, want)
		}
	}
	if _, err := LoadBaseline(filepath.Join(t.TempDir(), "none.yaml"), suite); err == nil || !strings.Contains(err.Error(), "cannot read the baseline") {
		t.Errorf("missing baseline: %v", err)
	}
}

// TestKeepJournal: with KeepJournal each scenario's result holds its whole
// journal (what conform --html draws), including every entry a failed check
// gives as evidence; without it the JSON report has no journal.
func TestKeepJournal(t *testing.T) {
	seed := uint64(7)
	run := func(keep bool) *Report {
		rep, err := Run(context.Background(), Options{Client: fakeCommand("once"), Scenarios: detIDs[1:2], Seed: &seed,
			Grace: 2 * time.Second, KeepJournal: keep})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	res := run(true).Scenarios[0]
	if len(res.Journal) == 0 || len(res.Journal) != res.JournalEntries {
		t.Fatalf("kept %d journal entries, the run had %d", len(res.Journal), res.JournalEntries)
	}
	seqs := map[int64]bool{}
	for _, e := range res.Journal {
		seqs[e.Seq] = true
	}
	evidence := 0
	for _, c := range res.Failed() {
		for _, e := range c.Evidence.Journal {
			evidence++
			if !seqs[e.Seq] {
				t.Errorf("check %s's evidence #%d is not in the kept journal", c.ID, e.Seq)
			}
		}
	}
	if evidence == 0 {
		t.Fatal("no failed check with journal evidence: the scenario should fail truthful-outcome")
	}
	js, err := run(false).JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []map[string]json.RawMessage `json:"scenarios"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Scenarios[0]["journal"]; ok {
		t.Error("the JSON report of a run without KeepJournal holds the journal")
	}
}

// TestProgressLineKeepsAReasonWhole: a reason in the client-did / declared
// / observed layout is printed whole, its lines indented under the check,
// so what was observed (its last part) is not cut off.
func TestProgressLineKeepsAReasonWhole(t *testing.T) {
	observed := "observed:   the client went on to use the agent " + strings.Repeat("and more ", 40) + "END"
	res := &ScenarioResult{ID: "card-signature-tampered", Checks: []*CheckResult{
		{ID: "ok", Pass: true, Reason: "fine"},
		{ID: "no-use-after-bad-card-signature", Reason: "agent assistant: used after its card failed\nclient did: SendMessage\ndeclared:   a refused card\n" + observed},
	}}
	got := progressLine(res)
	want := "      ✗ no-use-after-bad-card-signature: agent assistant: used after its card failed\n" +
		"          client did: SendMessage\n" +
		"          declared:   a refused card\n" +
		"          " + observed + "\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("progress line:\n%s\nwant it to end with:\n%s", got, want)
	}
}
