package judge

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestStreamLeftOpenAtExit: a client that exits with a stream open on a
// task still working has dropped that stream, whatever the mock journaled
// after the exit. However the stream was closed later (the client gone
// noticed, the mock shutting down, the timeline running on to completed
// and the stream delivering it to no one), and when the mock noticed the
// client gone before the runner's cut, recovers-after-stream-loss gives
// one verdict with one reason and one evidence: the client left the
// stream open, on a working task it never asked about again.
func TestStreamLeftOpenAtExit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	exit := t0.Add(50 * ms)
	seen := []server.Entry{
		{Seq: 1, Time: t0, Agent: "a", Kind: server.EntryRequest, Op: wire.OpStream, Request: 1},
		{Seq: 2, Time: t0, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", ContextID: "c1", State: wire.StateSubmitted},
		{Seq: 3, Time: t0, Agent: "a", Kind: server.EntryResponse, Op: wire.OpStream, Request: 1, TaskID: "t1", ContextID: "c1", State: wire.StateSubmitted},
		{Seq: 4, Time: t0.Add(ms), Agent: "a", Kind: server.EntryStreamEvent, Request: 1, TaskID: "t1", State: wire.StateSubmitted},
		{Seq: 5, Time: t0.Add(20 * ms), Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateWorking},
		{Seq: 6, Time: t0.Add(20 * ms), Agent: "a", Kind: server.EntryStreamEvent, Request: 1, TaskID: "t1", State: wire.StateWorking},
	}
	closed := func(seq int64, at time.Duration, detail string) server.Entry {
		return server.Entry{Seq: seq, Time: exit.Add(at), Agent: "a", Kind: server.EntryStreamClose, Op: wire.OpStream, Request: 1, TaskID: "t1", Detail: detail}
	}
	later := map[string][]server.Entry{
		"client gone noticed":                {closed(7, ms, "client gone")},
		"client gone noticed before the cut": nil,
		"mock shutting down":                 {closed(7, 5*ms, "server shutting down")},
		"timeline ran to its end": {
			{Seq: 7, Time: exit.Add(10 * ms), Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateCompleted},
			{Seq: 8, Time: exit.Add(10 * ms), Agent: "a", Kind: server.EntryStreamEvent, Request: 1, TaskID: "t1", State: wire.StateCompleted},
			closed(9, 10*ms, "complete"),
		},
	}
	c, _ := CheckByID("recovers-after-stream-loss")
	var first *Verdict
	for name, after := range later {
		r := &Run{Agents: []string{"a"}, Journal: slices.Clone(seen), AfterExit: after, Exit: exit}
		if after == nil {
			r.Journal = append(r.Journal, closed(7, -ms/10, "client gone"))
		}
		r.Analyse()
		v := c.Apply(r)
		assert.False(t, v.Pass, "%s: %s", name, v.Reason)
		assert.Contains(t, v.Reason, "the client left the stream of task t1 open (it exited, or closed the connection) while the task was working", name)
		for _, e := range v.Evidence.Journal {
			assert.LessOrEqual(t, e.Seq, int64(len(seen)), "%s: evidence cites #%d, journaled after the client exited", name, e.Seq)
		}
		if first == nil {
			first = &v
			continue
		}
		assert.Equal(t, first.Reason, v.Reason, name)
		assert.Equal(t, first.Evidence, v.Evidence, name)
	}

	// A client that dropped the stream while the task was working and then
	// asked GetTask before it exited recovered.
	r := &Run{Agents: []string{"a"}, Journal: append(slices.Clone(seen),
		server.Entry{Seq: 7, Time: t0.Add(30 * ms), Agent: "a", Kind: server.EntryRequest, Op: wire.OpGetTask, Request: 2, TaskID: "t1"}),
		AfterExit: []server.Entry{closed(8, ms, "client gone")}, Exit: exit}
	r.Analyse()
	v := c.Apply(r)
	assert.True(t, v.Pass, v.Reason)
}

// TestOpenAtExitHidesAnUnsentTask: an answer still under way when the
// client exited tells it a task's id only by a whole event written by
// then (the wire record of an open exchange holds what was): a stream left
// open after its first event named the task leaves an orphan; one whose
// answer had not been written by the exit does not charge the client.
func TestOpenAtExitHidesAnUnsentTask(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	exit := t0.Add(50 * time.Millisecond)
	journal := []server.Entry{
		{Seq: 1, Time: t0, Agent: "a", Kind: server.EntryRequest, Op: wire.OpStream, Request: 1},
		{Seq: 2, Time: t0, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", ContextID: "c1", State: wire.StateSubmitted},
		{Seq: 3, Time: t0, Agent: "a", Kind: server.EntryResponse, Op: wire.OpStream, Request: 1, TaskID: "t1", ContextID: "c1", State: wire.StateSubmitted},
	}
	stream := WireRecord{Seq: 1, Start: t0.Add(-time.Millisecond), End: exit, Agent: "a", Method: "POST", Path: "/", RPCMethod: "SendStreamingMessage", Status: 200, Open: true}
	c, _ := CheckByID("no-orphans")
	for _, tc := range []struct {
		name, delivered string
		pass            bool
	}{
		{"a whole event named the task", "data: {\"result\":{\"task\":{\"id\":\"t1\"}}}\n\n", false},
		{"the event naming it was not whole", "data: {\"result\":{\"task\":{\"id\":\"t1\"", true},
		{"nothing was written", "", true},
	} {
		w := stream
		w.Delivered = []byte(tc.delivered)
		r := &Run{Agents: []string{"a"}, Journal: slices.Clone(journal), Wire: []WireRecord{w}, Exit: exit}
		r.Analyse()
		v := c.Apply(r)
		assert.Equal(t, tc.pass, v.Pass, "%s: %s", tc.name, v.Reason)
		if tc.pass {
			assert.Contains(t, v.Reason, "not counted: t1, whose id never reached the client", tc.name)
		}
	}
}
