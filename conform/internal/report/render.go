package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/a2amock/a2amock/conform/internal/judge"
)

// WriteSummary prints the run's summary table: one row per scenario, one
// column per check (✓ pass, ✗ unexpected failure, ~ expected failure, ·
// not judged), then the totals and the baseline's verdict.
func WriteSummary(w io.Writer, rep *Report) {
	checks := checkColumns(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprint(tw, "scenario\tresult\toutcome")
	for i := range checks {
		fmt.Fprintf(tw, "\t%s", columnLabel(i))
	}
	fmt.Fprintln(tw)
	for _, res := range rep.Scenarios {
		fmt.Fprintf(tw, "%s\t%s\t%s", res.ID, resultWord(res), outcomeWord(res))
		for _, id := range checks {
			fmt.Fprintf(tw, "\t%s", mark(res, id))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for i, id := range checks {
		fmt.Fprintf(w, "  %s = %s\n", columnLabel(i), id)
	}
	s := rep.Summary
	fmt.Fprintf(w, "\n%d/%d scenarios passed; %d of %d checks failed (%d unexpected", s.ScenariosPassed, s.Scenarios, s.ChecksFailed, s.Checks, s.Unexpected)
	if rep.Baseline != nil {
		fmt.Fprintf(w, ", %d expected by %s, %d stale baseline entries", len(rep.Baseline.Expected), rep.Baseline.File, s.Stale)
	}
	fmt.Fprintf(w, ") in %.1fs\n", float64(rep.DurationMS)/1000)
	if rep.Baseline != nil {
		for _, e := range rep.Baseline.Stale {
			from := e.File
			if from == "" {
				from = rep.Baseline.File
			}
			fmt.Fprintf(w, "stale baseline entry: %s/%s passes now; remove it from %s\n", e.Scenario, e.Check, from)
		}
	}
	if s.OK {
		fmt.Fprintln(w, "result: ok")
	} else {
		fmt.Fprintln(w, "result: FAIL")
	}
}

// checkColumns lists the checks judged anywhere in the run, in catalogue
// order.
func checkColumns(rep *Report) []string {
	used := map[string]bool{}
	for _, res := range rep.Scenarios {
		for _, c := range res.Checks {
			used[c.ID] = true
		}
	}
	var out []string
	for _, c := range judge.Checks() {
		if used[c.ID] {
			out = append(out, c.ID)
		}
	}
	return out
}

func columnLabel(i int) string { return fmt.Sprintf("c%d", i+1) }

func resultWord(res *ScenarioResult) string {
	switch {
	case res.Pass:
		return "pass"
	case res.AllExpected():
		return "xfail"
	}
	return "FAIL"
}

func outcomeWord(res *ScenarioResult) string {
	p := res.Process
	switch {
	case p == nil:
		return "-"
	case p.StartError != "":
		return "crash"
	case p.Killed:
		return "hang"
	case p.Outcome == nil || p.ExitCode != 0:
		return "crash"
	}
	return p.Outcome.Outcome
}

func mark(res *ScenarioResult, id string) string {
	for _, c := range res.Checks {
		if c.ID != id {
			continue
		}
		switch {
		case c.Pass:
			return "✓"
		case c.Expected:
			return "~"
		}
		return "✗"
	}
	return "·"
}

// WriteMarkdown renders the report for $GITHUB_STEP_SUMMARY: a scenario ×
// check table, the reasons of every failure and, under each unexpected
// one, its evidence (the wire records and journal entries its verdict
// rests on) in a collapsed block, bounded (writeEvidence).
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	checks := checkColumns(rep)
	s := rep.Summary
	verdict := "✅ passed"
	if !s.OK {
		verdict = "❌ failed"
	}
	fmt.Fprintf(&b, "## a2amock conform: %s\n\n", verdict)
	fmt.Fprintf(&b, "Client `%s`, suite `%s`: %d/%d scenarios passed, %d of %d checks failed (%d unexpected, %d stale baseline entries).\n\n",
		mdCode(rep.Client), rep.Suite, s.ScenariosPassed, s.Scenarios, s.ChecksFailed, s.Checks, s.Unexpected, s.Stale)
	b.WriteString("| scenario | outcome |")
	for _, id := range checks {
		fmt.Fprintf(&b, " %s |", id)
	}
	b.WriteString("\n|---|---|")
	for range checks {
		b.WriteString(":-:|")
	}
	b.WriteString("\n")
	for _, res := range rep.Scenarios {
		fmt.Fprintf(&b, "| %s | %s |", res.ID, outcomeWord(res))
		for _, id := range checks {
			m := mark(res, id)
			if m == "·" {
				m = ""
			}
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n✓ pass · ✗ failure · ~ expected failure (baseline)\n")
	var failures strings.Builder
	budget := evidenceBudget
	for _, res := range rep.Scenarios {
		for _, c := range res.Failed() {
			tag := ""
			if c.Expected {
				tag = " (expected: " + mdEscape(c.BaselineReason) + ")"
			}
			// Whole, its lines kept apart: cut to one line, a reason in
			// the client-did / declared / observed layout lost its end,
			// what was observed.
			reason := strings.ReplaceAll(mdEscape(strings.TrimRight(c.Reason, "\n")), "\n", "<br>")
			fmt.Fprintf(&failures, "- **%s** `%s`%s: %s\n", res.ID, c.ID, tag, reason)
			// The evidence of an unexpected failure only: that is what
			// broke the build and what the reader has to look into. An
			// expected one is known, and its baseline says why; repeated
			// in every run's summary, its evidence would bury the new
			// failures (a reference client's baseline lists dozens). The
			// JSON and HTML reports carry every failure's evidence.
			if !c.Expected {
				budget = writeEvidence(&failures, c.Evidence, budget)
			}
		}
	}
	if failures.Len() > 0 {
		b.WriteString("\n### Failures\n\n")
		b.WriteString(failures.String())
	}
	if rep.Baseline != nil && len(rep.Baseline.Stale) > 0 {
		b.WriteString("\n### Stale baseline entries (they pass now: remove them)\n\n")
		for _, e := range rep.Baseline.Stale {
			fmt.Fprintf(&b, "- **%s** `%s`", e.Scenario, e.Check)
			if e.File != "" {
				fmt.Fprintf(&b, " (%s)", mdCode(e.File))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;").Replace(s)
}

// JUnit XML: one testsuite per scenario, one testcase per check.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Cases     []junitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out,omitempty"`
	SystemErr string      `xml:"system-err,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitFailure `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit renders the report as JUnit XML: a testsuite per scenario and
// a testcase per check. An expected failure (baseline) is reported as
// skipped with its reason, so CI dashboards stay green for it.
func WriteJUnit(w io.Writer, rep *Report) error {
	root := junitSuites{Name: "a2amock conform " + rep.Suite, Time: seconds(rep.DurationMS)}
	for _, res := range rep.Scenarios {
		js := junitSuite{Name: res.ID, Time: seconds(res.DurationMS)}
		if p := res.Process; p != nil {
			js.SystemOut, js.SystemErr = p.Stdout, p.Stderr
		}
		for _, c := range res.Checks {
			jc := junitCase{Name: c.ID, Classname: "conform." + res.ID}
			switch {
			case c.Pass:
			case c.Expected:
				jc.Skipped = &junitFailure{Message: "expected failure: " + c.BaselineReason, Text: c.Reason}
				js.Skipped++
			default:
				jc.Failure = &junitFailure{Message: OneLine(c.Reason), Type: c.ID, Text: c.Reason}
				js.Failures++
			}
			js.Tests++
			js.Cases = append(js.Cases, jc)
		}
		root.Tests += js.Tests
		root.Failures += js.Failures
		root.Suites = append(root.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
