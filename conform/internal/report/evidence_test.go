package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func markdown(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, rep))
	return b.String()
}

func oneFailure(c *CheckResult) *Report {
	return &Report{Suite: "default", Client: "client", Scenarios: []*ScenarioResult{{ID: "s1", Checks: []*CheckResult{c}}}}
}

// TestMarkdownEvidence: an unexpected failure's wire records and journal
// entries are listed under it, a row each in sequence order (a record the
// check cites twice once), in a collapsed block that is one HTML block
// inside the list item.
func TestMarkdownEvidence(t *testing.T) {
	t.Parallel()
	ev := judge.Evidence{
		Wire: []judge.WireRecord{
			{Seq: 3, Start: t0.Add(1500 * time.Millisecond), End: t0.Add(1520 * time.Millisecond), Agent: "assistant", Method: "POST", Path: "/agents/assistant",
				RPCMethod: "SendMessage", VersionSent: true, A2AVersion: "0.3", Status: 200},
			{Seq: 1, Start: t0, End: t0.Add(12 * time.Millisecond), Agent: "assistant", Method: "POST", Path: "/agents/assistant",
				RPCMethod: "SendMessage", Status: 429, RetryAfter: "2"},
			{Seq: 3, Start: t0.Add(1500 * time.Millisecond), End: t0.Add(1520 * time.Millisecond), Agent: "assistant", Method: "POST", Path: "/agents/assistant",
				RPCMethod: "SendMessage", VersionSent: true, A2AVersion: "0.3", Status: 200},
		},
		Journal: []server.Entry{
			{Seq: 9, Agent: "assistant", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateWorking},
			{Seq: 7, Agent: "assistant", Kind: server.EntryRequest, Method: "SendMessage", Dialect: "1.0", Binding: wire.BindingJSONRPC,
				RefTaskID: "t0", ContextID: "c1"},
		},
	}
	md := markdown(t, oneFailure(&CheckResult{ID: "honours-retry-after", Reason: "called again too soon", Evidence: ev}))
	want := "- **s1** `honours-retry-after`: called again too soon\n" +
		"  <details><summary>Evidence: 2 wire records, 2 journal entries</summary>\n" +
		"  <table>\n" +
		"  <tr><th>wire #</th><th>agent</th><th>request</th><th>RPC method</th><th>answer</th><th>A2A-Version</th><th>time</th><th>notes</th></tr>\n" +
		"  <tr><td>1</td><td>assistant</td><td><code>POST /agents/assistant</code></td><td><code>SendMessage</code></td><td>HTTP 429</td><td>not sent</td><td>+0ms … +12ms</td><td>Retry-After: 2</td></tr>\n" +
		"  <tr><td>3</td><td>assistant</td><td><code>POST /agents/assistant</code></td><td><code>SendMessage</code></td><td>HTTP 200</td><td>0.3</td><td>+1500ms … +1520ms</td><td></td></tr>\n" +
		"  </table>\n" +
		"  <table>\n" +
		"  <tr><th>journal #</th><th>agent</th><th>kind</th><th>call</th><th>task</th><th>state</th><th>notes</th></tr>\n" +
		"  <tr><td>7</td><td>assistant</td><td>request</td><td><code>SendMessage [1.0 JSONRPC]</code></td><td></td><td></td><td>names task t0; context c1</td></tr>\n" +
		"  <tr><td>9</td><td>assistant</td><td>event</td><td></td><td><code>t1</code></td><td>working</td><td></td></tr>\n" +
		"  </table>\n" +
		"  </details>\n\n"
	assert.Contains(t, md, "### Failures\n\n"+want)
	assert.Equal(t, 3, len(ev.Wire), "the report's evidence is left as it was")
	assert.Equal(t, int64(9), ev.Journal[0].Seq)

	// The same report renders to the same bytes.
	assert.Equal(t, md, markdown(t, oneFailure(&CheckResult{ID: "honours-retry-after", Reason: "called again too soon", Evidence: ev})))
}

// TestMarkdownEvidenceFields: what each kind of record says about its
// answer and its version header.
func TestMarkdownEvidenceFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w                      judge.WireRecord
		answer, version, notes string
	}{
		{judge.WireRecord{Status: 200}, "HTTP 200", "not sent", ""},
		{judge.WireRecord{Status: 200, VersionSent: true}, "HTTP 200", "sent empty", ""},
		{judge.WireRecord{VersionSent: true, A2AVersion: "1.0", Hijacked: true, Faulted: true}, "none (connection taken over)", "1.0", "connection taken over; answer not delivered whole"},
		{judge.WireRecord{Open: true}, "none yet (left open)", "not sent", "left open by the client (its exit, or a connection it closed)"},
		{judge.WireRecord{Status: 200, Open: true}, "HTTP 200", "not sent", "left open by the client (its exit, or a connection it closed)"},
		{judge.WireRecord{GRPC: true, Status: 200, Tenant: "worker-2", GRPCStatus: 14, RetryAfter: "3"}, "grpc-status 14", "not sent", `gRPC; tenant "worker-2"; retry pushback 3s`},
		{judge.WireRecord{GRPC: true, Status: 200}, "grpc-status 0", "not sent", "gRPC"},
		{judge.WireRecord{GRPC: true, Status: 200, Faulted: true, GRPCNoStatus: true}, "no grpc-status (ended without trailers)", "not sent", "gRPC; answer not delivered whole"},
		{judge.WireRecord{GRPC: true, Status: 200, Open: true}, "no grpc-status yet (left open)", "not sent", "gRPC; left open by the client (its exit, or a connection it closed)"},
	} {
		assert.Equal(t, tc.answer, wireAnswer(tc.w), "%+v", tc.w)
		assert.Equal(t, tc.version, wireVersion(tc.w), "%+v", tc.w)
		assert.Equal(t, tc.notes, wireNotes(tc.w), "%+v", tc.w)
	}
	e := server.Entry{Kind: server.EntryResponse, ErrorCode: -32001, HTTP: 404, Behaviors: []string{"drop-terminal-event"}, Detail: "gone"}
	assert.Equal(t, "error -32001; HTTP 404; fault: drop-terminal-event; gone", entryNotes(e))
	assert.Equal(t, "cancel-task", entryCall(server.Entry{Op: wire.OpCancelTask}))
	assert.Equal(t, "/.well-known/agent-card.json", entryCall(server.Entry{Kind: server.EntryCard, Path: "/.well-known/agent-card.json"}))
}

// TestMarkdownEvidenceEscaped: what the client sent (a path, a method) and
// what the agent wrote (a detail) is HTML-escaped, on one line, cut:
// neither can end the block, open a tag or break the table.
func TestMarkdownEvidenceEscaped(t *testing.T) {
	t.Parallel()
	nasty := "/agents/a|b</details><script>x</script>`\n\n- **fake**"
	ev := judge.Evidence{
		Wire:    []judge.WireRecord{{Seq: 1, Agent: "a<b>", Method: "GET", Path: nasty, RPCMethod: "</td>&"}},
		Journal: []server.Entry{{Seq: 2, Kind: server.EntryNote, Detail: "card-change: <img src=x> " + strings.Repeat("é", 200)}},
	}
	md := markdown(t, oneFailure(&CheckResult{ID: "uses-declared-interface", Reason: "r", Evidence: ev}))
	block := md[strings.Index(md, "  <details>"):]
	block = block[:strings.Index(block, "</details>\n")+len("</details>")]
	assert.NotContains(t, block, "\n\n", "no blank line inside the HTML block")
	assert.NotContains(t, block, "<script>")
	assert.NotContains(t, block, "<img")
	assert.Equal(t, 1, strings.Count(block, "</details>"), "the client's text cannot close the block")
	assert.Contains(t, block, "<td>a&lt;b&gt;</td>")
	assert.Contains(t, block, "<code>GET /agents/a|b&lt;/details&gt;&lt;script&gt;x&lt;/script&gt;` - **fake**</code>")
	assert.Contains(t, block, "<code>&lt;/td&gt;&amp;</code>")
	for _, line := range strings.Split(block, "\n") {
		assert.True(t, strings.HasPrefix(line, "  <"), "every line indented into the list item: %q", line)
	}
	assert.Contains(t, block, "card-change: &lt;img src=x&gt; é")
	assert.Contains(t, block, "é…</td>", "a long cell is cut at a character's start")
	assert.Less(t, len(block), 1000)
}

// TestMarkdownEvidenceBounded: a failure shows at most evidenceRows of
// each kind and says how many more the JSON report has; once the report
// has shown evidenceBudget rows, later failures only point to it.
func TestMarkdownEvidenceBounded(t *testing.T) {
	t.Parallel()
	var polls []server.Entry
	var calls []judge.WireRecord
	for i := range 25 {
		polls = append(polls, server.Entry{Seq: int64(100 + i), Kind: server.EntryRequest, Method: "GetTask", TaskID: "t1"})
		calls = append(calls, judge.WireRecord{Seq: 100 + i, Method: "POST", Path: "/agents/a", RPCMethod: "GetTask", Status: 200})
	}
	md := markdown(t, oneFailure(&CheckResult{ID: "bounded-polling", Reason: "too many", Evidence: judge.Evidence{Journal: polls, Wire: calls}}))
	assert.Contains(t, md, "<summary>Evidence: 25 wire records, 25 journal entries</summary>")
	assert.Equal(t, 2*evidenceRows, strings.Count(md, "<tr><td>1"), "rows shown")
	assert.Contains(t, md, "<tr><td>119</td>")
	assert.NotContains(t, md, "<tr><td>120</td>")
	assert.Contains(t, md, "  <tr><td colspan=\"8\">… 5 more in the JSON report</td></tr>\n")
	assert.Contains(t, md, "  <tr><td colspan=\"7\">… 5 more in the JSON report</td></tr>\n")

	// Many failures: the rows stop at the budget (plus at most one
	// failure's worth), the rest point to the JSON report.
	rep := &Report{Suite: "default", Client: "client"}
	for i := range 30 {
		rep.Scenarios = append(rep.Scenarios, &ScenarioResult{ID: fmt.Sprintf("s%02d", i), Checks: []*CheckResult{
			{ID: "bounded-polling", Reason: "too many", Evidence: judge.Evidence{Journal: polls}},
		}})
	}
	md = markdown(t, rep)
	rows := strings.Count(md, "<tr><td>1")
	assert.GreaterOrEqual(t, rows, evidenceBudget)
	assert.Less(t, rows, evidenceBudget+evidenceRows)
	assert.Contains(t, md, "- **s29** `bounded-polling`: too many\n  <br>Evidence (25 journal entries): in the JSON report; this summary has shown its 400 rows.\n")
	assert.Less(t, len(md), 100_000)
}

// TestMarkdownEvidenceOfUnexpectedOnly: an expected failure keeps its
// line and baseline reason but not its evidence; a failure with none
// gets no block.
func TestMarkdownEvidenceOfUnexpectedOnly(t *testing.T) {
	t.Parallel()
	ev := judge.Evidence{Wire: []judge.WireRecord{{Seq: 1, Method: "GET", Path: "/x", Status: 404}}}
	rep := &Report{Suite: "default", Client: "client", Scenarios: []*ScenarioResult{{ID: "s1", Checks: []*CheckResult{
		{ID: "discovers-via-card", Reason: "no card", Expected: true, BaselineReason: "known", Evidence: ev},
		{ID: "no-crash", Reason: "crash: exit 1"},
	}}}}
	md := markdown(t, rep)
	assert.Contains(t, md, "- **s1** `discovers-via-card` (expected: known): no card\n- **s1** `no-crash`: crash: exit 1\n")
	assert.NotContains(t, md, "<details>")
}
