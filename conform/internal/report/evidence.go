package report

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/server"
)

// The bounds of the evidence the Markdown report shows. A step summary is
// read in a browser and GitHub refuses one over 1 MiB, while a check's
// evidence grows with what the client did (bounded-polling cites every
// poll): each failure shows at most evidenceRows wire records and as many
// journal entries, and once the report has shown evidenceBudget rows in
// all, later failures name the JSON report instead. Cells are cut at
// evidenceCell bytes, since paths and details come from the client.
const (
	evidenceRows   = 20
	evidenceBudget = 400
	evidenceCell   = 160
)

// writeEvidence writes, under a failure's list item, a collapsed block
// with the wire records and journal entries its verdict rests on: one
// table row each, in sequence order, at most evidenceRows of each kind.
// It is raw HTML, each line indented into the list item and no blank line
// inside (a blank line would end the HTML block): inside an HTML block
// GitHub reads no Markdown, so cells are HTML-escaped, not mdEscaped.
// budget is the rows the report may still show; it returns what is left.
func writeEvidence(b *strings.Builder, ev judge.Evidence, budget int) int {
	wire, journal := sortedWire(ev.Wire), sortedJournal(ev.Journal)
	if len(wire) == 0 && len(journal) == 0 {
		return budget
	}
	if budget <= 0 {
		fmt.Fprintf(b, "  <br>Evidence (%s): in the JSON report; this summary has shown its %d rows.\n", evidenceCount(len(wire), len(journal)), evidenceBudget)
		return budget
	}
	fmt.Fprintf(b, "  <details><summary>Evidence: %s</summary>\n", evidenceCount(len(wire), len(journal)))
	if len(wire) > 0 {
		b.WriteString("  <table>\n  <tr><th>wire #</th><th>agent</th><th>request</th><th>RPC method</th><th>answer</th><th>A2A-Version</th><th>time</th><th>notes</th></tr>\n")
		t0 := wire[0].Start
		for _, w := range wire {
			if w.Start.Before(t0) {
				t0 = w.Start
			}
		}
		for _, w := range wire[:min(len(wire), evidenceRows)] {
			c := wireCells(w, t0)
			row(b, c[0], c[1], "<code>"+cell(c[2])+"</code>", code(c[3]), cell(c[4]), cell(c[5]), cell(c[6]), cell(c[7]))
			budget--
		}
		more(b, len(wire), 8)
		b.WriteString("  </table>\n")
	}
	if len(journal) > 0 {
		b.WriteString("  <table>\n  <tr><th>journal #</th><th>agent</th><th>kind</th><th>call</th><th>task</th><th>state</th><th>notes</th></tr>\n")
		for _, e := range journal[:min(len(journal), evidenceRows)] {
			c := journalCells(e)
			row(b, c[0], c[1], cell(c[2]), code(c[3]), code(c[4]), cell(c[5]), cell(c[6]))
			budget--
		}
		more(b, len(journal), 7)
		b.WriteString("  </table>\n")
	}
	// The blank line ends the HTML block: without it the next failure's
	// list item would be read as more of it.
	b.WriteString("  </details>\n\n")
	return budget
}

// wireCells is a wire record's row in the evidence tables, as text before
// escaping, t0 the start of the first record shown. The HTML report
// (ui/assets/app.js) shows the same cells: testdata/evidence-cells.json
// pins them for both (TestEvidenceCellsGolden here, ui/e2e's report test).
func wireCells(w judge.WireRecord, t0 time.Time) []string {
	return []string{strconv.Itoa(w.Seq), w.Agent, w.Method + " " + w.Path, w.RPCMethod, wireAnswer(w), wireVersion(w), wireTime(w, t0), wireNotes(w)}
}

// journalCells is a journal entry's row in the evidence tables, as
// wireCells is a wire record's.
func journalCells(e server.Entry) []string {
	return []string{strconv.FormatInt(e.Seq, 10), e.Agent, string(e.Kind), entryCall(e), e.TaskID, string(e.State), entryNotes(e)}
}

// row writes one table row: seq is a number and agent is escaped here; the
// others come escaped (some wrap theirs in <code>).
func row(b *strings.Builder, seq, agent string, cells ...string) {
	fmt.Fprintf(b, "  <tr><td>%s</td><td>%s</td>", seq, cell(agent))
	for _, c := range cells {
		fmt.Fprintf(b, "<td>%s</td>", c)
	}
	b.WriteString("</tr>\n")
}

// more notes the rows left out of a table of n.
func more(b *strings.Builder, n, cols int) {
	if n > evidenceRows {
		fmt.Fprintf(b, "  <tr><td colspan=\"%d\">… %d more in the JSON report</td></tr>\n", cols, n-evidenceRows)
	}
}

func evidenceCount(wire, journal int) string {
	var parts []string
	if wire > 0 {
		parts = append(parts, plural(wire, "wire record"))
	}
	if journal > 0 {
		parts = append(parts, plural(journal, "journal entry"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "entry") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// cell is s escaped for an HTML table cell, on one line and cut at
// evidenceCell bytes (at a character's start).
func cell(s string) string {
	return html.EscapeString(cutAt(strings.Join(strings.Fields(s), " "), evidenceCell))
}

// code is s as a cell in <code>, or an empty cell.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "<code>" + cell(s) + "</code>"
}

// sortedWire is the records in sequence order, each once: a check may
// cite a record twice (a card fetch before each of two calls), and the
// order of exchanges is what the reader follows.
func sortedWire(ws []judge.WireRecord) []judge.WireRecord {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b judge.WireRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.CompactFunc(out, func(a, b judge.WireRecord) bool { return a.Seq == b.Seq })
}

// sortedJournal is the entries in sequence order, each once (a check
// cites a task's last state and its start, which may be one entry).
func sortedJournal(es []server.Entry) []server.Entry {
	out := slices.Clone(es)
	slices.SortStableFunc(out, func(a, b server.Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.CompactFunc(out, func(a, b server.Entry) bool { return a.Seq == b.Seq })
}

// wireAnswer says how an exchange was answered: the HTTP status, a gRPC
// call's grpc-status, or that none was written.
func wireAnswer(w judge.WireRecord) string {
	switch {
	case w.GRPC && w.Open:
		return "no grpc-status yet (left open)"
	case w.GRPC && w.GRPCNoStatus:
		return "no grpc-status (ended without trailers)"
	case w.GRPC:
		return "grpc-status " + strconv.Itoa(w.GRPCStatus)
	case w.Status == 0 && w.Open:
		return "none yet (left open)"
	case w.Status == 0:
		return "none (connection taken over)"
	}
	return "HTTP " + strconv.Itoa(w.Status)
}

// wireVersion says which A2A-Version the request carried: sends-a2a-version
// tells an empty one from none.
func wireVersion(w judge.WireRecord) string {
	switch {
	case !w.VersionSent:
		return "not sent"
	case w.A2AVersion == "":
		return "sent empty"
	}
	return w.A2AVersion
}

// wireNotes lists what else in the record bears on a verdict: a gRPC
// call's tenant (uses-declared-interface), the Retry-After answered
// (honours-retry-after), and an answer that did not reach the client
// whole (no-orphans' uncounted tasks).
func wireNotes(w judge.WireRecord) string {
	var notes []string
	if w.GRPC {
		notes = append(notes, "gRPC")
		if w.Tenant != "" {
			notes = append(notes, "tenant "+strconv.Quote(w.Tenant))
		}
	}
	if w.RetryAfter != "" {
		what := "Retry-After: " + w.RetryAfter
		if w.GRPC {
			what = "retry pushback " + w.RetryAfter + "s"
		}
		notes = append(notes, what)
	}
	if w.Hijacked {
		notes = append(notes, "connection taken over")
	}
	if w.Faulted {
		notes = append(notes, "answer not delivered whole")
	}
	if w.Open {
		notes = append(notes, "left open by the client (its exit, or a connection it closed)")
	}
	switch {
	case w.Request != 0:
		notes = append(notes, "journal request "+strconv.FormatInt(w.Request, 10))
	case w.JournalSeq != 0:
		notes = append(notes, "journal #"+strconv.FormatInt(w.JournalSeq, 10))
	}
	return strings.Join(notes, "; ")
}

// wireTime is when the exchange ran, from the start of the first record
// shown: enough to read a gap (honours-retry-after) without the clock.
func wireTime(w judge.WireRecord, t0 time.Time) string {
	ms := func(t time.Time) int64 { return t.Sub(t0).Milliseconds() }
	if w.Start.IsZero() {
		return ""
	}
	return fmt.Sprintf("+%dms … +%dms", ms(w.Start), ms(w.End))
}

// entryCall is the entry's method (or op) with its dialect and binding.
func entryCall(e server.Entry) string {
	s := e.Method
	if s == "" {
		s = string(e.Op)
	}
	if e.Dialect != "" {
		s += " [" + string(e.Dialect)
		if e.Binding != "" {
			s += " " + string(e.Binding)
		}
		s += "]"
	}
	if s == "" {
		s = e.Path
	}
	return strings.TrimSpace(s)
}

// entryNotes lists what else in a journal entry bears on a verdict: the
// task a message named (continuation-carries-task-id), an error or HTTP
// status, the faults that acted, its detail (a decision's, a stream's
// close).
func entryNotes(e server.Entry) string {
	var notes []string
	if e.Request != 0 {
		// The wire record of the exchange says "journal request N".
		notes = append(notes, "request "+strconv.FormatInt(e.Request, 10))
	}
	if e.RefTaskID != "" && e.RefTaskID != e.TaskID {
		notes = append(notes, "names task "+e.RefTaskID)
	}
	if e.ContextID != "" && e.Kind == server.EntryRequest {
		notes = append(notes, "context "+e.ContextID)
	}
	if e.ErrorCode != 0 {
		notes = append(notes, "error "+strconv.Itoa(e.ErrorCode))
	}
	if e.HTTP != 0 {
		notes = append(notes, "HTTP "+strconv.Itoa(e.HTTP))
	}
	if len(e.Behaviors) > 0 {
		notes = append(notes, "fault: "+strings.Join(e.Behaviors, ", "))
	}
	if e.Detail != "" {
		notes = append(notes, e.Detail)
	}
	return strings.Join(notes, "; ")
}
