package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/wire"
)

// TestStoreCountsAndForgets feeds a request, its response (75ms later on
// the entries' clock), a card fetch, a push and a behavior report, and
// reads them back from the exposition; Forget then drops the agent's
// series.
func TestStoreCountsAndForgets(t *testing.T) {
	t.Parallel()
	var m Store
	at := time.Unix(100, 0)
	m.Observe(&journal.Entry{Kind: journal.EntryRequest, Agent: "a", Request: 1, Method: "SendMessage", Binding: wire.BindingJSONRPC, Time: at})
	m.Observe(&journal.Entry{Kind: journal.EntryResponse, Agent: "a", Request: 1, Method: "SendMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC, Time: at.Add(75 * time.Millisecond)})
	m.Observe(&journal.Entry{Kind: journal.EntryCard, Agent: "a"})
	m.Observe(&journal.Entry{Kind: journal.EntryPush, Agent: "a", HTTP: 503})
	m.Behaviors("a", []string{"drop-final"}, []journal.SkippedBehavior{{Behavior: "latency:ms=5", Key: "op"}})
	j := journal.New(10)
	j.Add(journal.Entry{Agent: "a"})

	read := func() string {
		var b strings.Builder
		require.NoError(t, m.Write(&b, []Agent{{Name: "a", States: map[wire.TaskState]int{wire.StateWorking: 2}, Streams: 1}, {Name: "b", Runtime: true}}, j))
		return b.String()
	}
	out := read()
	for _, line := range []string{
		`a2amock_requests_total{agent="a",method="SendMessage",dialect="1.0",binding="JSONRPC",outcome="ok",code=""} 1`,
		`a2amock_request_duration_seconds_bucket{agent="a",method="SendMessage",binding="JSONRPC",le="0.05"} 0`,
		`a2amock_request_duration_seconds_bucket{agent="a",method="SendMessage",binding="JSONRPC",le="0.1"} 1`,
		`a2amock_request_duration_seconds_sum{agent="a",method="SendMessage",binding="JSONRPC"} 0.075`,
		`a2amock_card_requests_total{agent="a"} 1`,
		`a2amock_push_deliveries_total{agent="a",result="http_error"} 1`,
		`a2amock_behavior_applied_total{agent="a",behavior="drop-final"} 1`,
		`a2amock_behavior_skipped_total{agent="a",behavior="latency:ms=5",key="op"} 1`,
		`a2amock_tasks{agent="a",state="working"} 2`,
		`a2amock_open_streams{agent="a"} 1`,
		`a2amock_agents{kind="configured"} 1`,
		`a2amock_agents{kind="runtime"} 1`,
		`a2amock_journal_entries 1`,
	} {
		assert.Contains(t, out, line+"\n")
	}
	m.Forget("a")
	assert.NotContains(t, read(), `agent="a",method=`, "Forget drops the request series")
}

// TestObserveIgnoresUncountedKinds: events, decisions and stream entries
// leave the exposition as it was.
func TestObserveIgnoresUncountedKinds(t *testing.T) {
	t.Parallel()
	var m Store
	j := journal.New(10)
	var before strings.Builder
	require.NoError(t, m.Write(&before, nil, j))
	for _, k := range []journal.EntryKind{journal.EntryEvent, journal.EntryDecision, journal.EntryStreamEvent, journal.EntryNote} {
		m.Observe(&journal.Entry{Kind: k, Agent: "a", Method: "SendMessage"})
	}
	var after strings.Builder
	require.NoError(t, m.Write(&after, nil, j))
	assert.Equal(t, before.String(), after.String())
}

// TestUnknownMethodsShareOneSeries: the method names of requests refused
// before they were understood are the client's to choose; they are
// counted under one empty method, not a series each.
func TestUnknownMethodsShareOneSeries(t *testing.T) {
	t.Parallel()
	var m Store
	at := time.Unix(1_700_000_000, 0)
	for i := range 100 {
		name := fmt.Sprintf("no-such-method-%d", i)
		m.Observe(&journal.Entry{Kind: journal.EntryRequest, Agent: "a", Request: int64(i + 1), Method: name, Binding: wire.BindingJSONRPC, Time: at})
		m.Observe(&journal.Entry{Kind: journal.EntryResponse, Agent: "a", Request: int64(i + 1), Method: name, Binding: wire.BindingJSONRPC, ErrorCode: wire.CodeMethodNotFound, Time: at})
	}
	// A refused request of a known method keeps its name.
	m.Observe(&journal.Entry{Kind: journal.EntryResponse, Agent: "a", Request: 200, Method: "GetTask", Binding: wire.BindingJSONRPC, ErrorCode: wire.CodeInvalidRequest, Time: at})
	var out strings.Builder
	require.NoError(t, m.Write(&out, nil, journal.New(10)))
	assert.NotContains(t, out.String(), "no-such-method")
	assert.Contains(t, out.String(), `a2amock_requests_total{agent="a",method="",dialect="",binding="JSONRPC",outcome="error",code="-32601"} 100`)
	assert.Contains(t, out.String(), `method="GetTask"`)
}
