package conform

import (
	"fmt"
	"io"
	"strings"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/conform/internal/report"
)

// WriteSummary writes the terminal summary of a run: a line per scenario
// and check, then the totals (package report).
func WriteSummary(w io.Writer, rep *Report) { report.WriteSummary(w, rep) }

// WriteMarkdown writes the run as a Markdown report.
func WriteMarkdown(w io.Writer, rep *Report) error { return report.WriteMarkdown(w, rep) }

// WriteJUnit writes the run as JUnit XML, a test case per check.
func WriteJUnit(w io.Writer, rep *Report) error { return report.WriteJUnit(w, rep) }

// WriteList prints every scenario of the suite: id, the failure it
// reproduces and where it comes from, what a robust client does, the
// truthful outcomes and its checks.
func WriteList(w io.Writer, s *Suite) {
	fmt.Fprintf(w, "suite %s: %d scenarios\n\n", s.Name, len(s.Scenarios))
	for _, sc := range s.Scenarios {
		fmt.Fprintf(w, "%s — %s\n", sc.ID, sc.Title)
		if sc.Reproduces != "" {
			fmt.Fprintf(w, "  reproduces: %s\n", sc.Reproduces)
		}
		if sc.Source != "" {
			fmt.Fprintf(w, "  source:     %s\n", sc.Source)
		}
		if sc.Robust != "" {
			fmt.Fprintf(w, "  robust:     %s\n", sc.Robust)
		}
		fmt.Fprintf(w, "  agents:     %s; deadline %s", strings.Join(sc.Agents, ", "), sc.Deadline)
		if sc.Mode != "" {
			fmt.Fprintf(w, "; mode %s", sc.Mode)
		}
		fmt.Fprintf(w, "\n  outcomes:   %s\n  checks:     %s\n\n", strings.Join(sc.Outcomes, ", "), strings.Join(sc.Checks, ", "))
	}
	fmt.Fprintln(w, "checks:")
	for _, c := range judge.Checks() {
		fmt.Fprintf(w, "  %-30s %s\n", c.ID, c.Summary)
	}
}
