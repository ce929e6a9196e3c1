package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/a2amock/a2amock/ui"
)

// reportCmd writes the timeline view of a saved journal or a conform run's
// JSON report as one self-contained HTML file.
func reportCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "report.html", `the HTML file to write ("-": standard output)`)
	title := fs.String("title", "", "the page title (default: a2amock report)")
	pos, code, ok := parseFlags(fs, "report JOURNAL.json [-o report.html]\n\n"+
		"Writes the timeline of a journal (saved from GET /_a2amock/journal) or of a conform run's JSON report\n"+
		"(--report-json) as one HTML file that opens from disk with no network. JOURNAL.json may be - (standard input).", args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: a2amock report JOURNAL.json [-o report.html]")
		return 2
	}
	if err := ui.WriteReportFile(pos[0], *out, *title, stdin, stdout); err != nil {
		var ue *ui.Error
		if errors.As(err, &ue) {
			// file:line:col: message, as for every other file a2amock reads.
			where := pos[0]
			if ue.Line > 0 {
				where += fmt.Sprintf(":%d:%d", ue.Line, ue.Column)
			}
			fmt.Fprintf(stderr, "a2amock report: %s: %s\n", where, ue.Msg)
			return 1
		}
		fmt.Fprintf(stderr, "a2amock report: %v\n", err)
		return 1
	}
	if *out != "-" {
		fmt.Fprintf(stderr, "a2amock report: wrote %s\n", *out)
	}
	return 0
}
