package judge

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// pollRun builds a run in which the client's send on connection conn1 was
// answered with a completed task at t0, followed by the client's GetTask
// calls, each given as its delay after t0 and the connection it came on
// ("grpc" for a gRPC call).
func pollRun(polls ...struct {
	after time.Duration
	conn  string
}) *Run {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	r := &Run{Agents: []string{"a"}, MaxPolls: 40}
	r.Journal = []server.Entry{
		{Seq: 1, Time: t0.Add(-ms), Agent: "a", Kind: server.EntryRequest, Op: wire.OpSend, Request: 1},
		{Seq: 2, Time: t0, Agent: "a", Kind: server.EntryResponse, Op: wire.OpSend, Request: 1, TaskID: "t1", State: wire.StateCompleted},
	}
	r.Wire = []WireRecord{{Seq: 1, Start: t0.Add(-2 * ms), End: t0.Add(ms), Agent: "a", Conn: "conn1", Method: "POST", Path: "/", RPCMethod: "SendMessage", Status: 200}}
	for i, p := range polls {
		at := t0.Add(p.after)
		r.Journal = append(r.Journal, server.Entry{Seq: int64(3 + i), Time: at, Agent: "a", Kind: server.EntryRequest, Op: wire.OpGetTask, Request: int64(2 + i), TaskID: "t1"})
		w := WireRecord{Seq: 2 + i, Start: at.Add(-ms / 2), End: at.Add(ms / 2), Agent: "a", Conn: p.conn, Method: "POST", Path: "/", RPCMethod: "GetTask", Status: 200}
		if p.conn == "grpc" {
			w.GRPC, w.Conn, w.Path = true, "conn1", "/lf.a2a.v1.A2AService/GetTask"
		}
		r.Wire = append(r.Wire, w)
	}
	r.Analyse()
	return r
}

type poll = struct {
	after time.Duration
	conn  string
}

func TestBoundedPollingAfterTerminal(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name   string
		polls  []poll
		passes bool
		says   string
	}{
		{"no poll", nil, true, "0 GetTask call(s)"},
		// One connection carries one exchange at a time: the client had
		// the answer before it sent the poll.
		{"same connection, at once", []poll{{10 * ms, "conn1"}}, false, "polled task t1 again (GetTask, journal #3)"},
		// Another connection: the poll may have left the client before
		// the answer reached it, and the server handled it late.
		{"another connection, at once", []poll{{10 * ms, "conn2"}}, true, "(1 sent, it seems, before the client had that answer, not counted)"},
		{"another connection, later", []poll{{300 * ms, "conn2"}}, false, "journal #3"},
		// Only one poll can have been in flight.
		{"another connection, twice", []poll{{10 * ms, "conn2"}, {200 * ms, "conn3"}}, false, "journal #4"},
		// gRPC calls share a connection and may run side by side.
		{"gRPC, at once", []poll{{10 * ms, "grpc"}}, true, "not counted"},
		{"gRPC, later", []poll{{400 * ms, "grpc"}}, false, "journal #3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeBoundedPolling(pollRun(tc.polls...))
			assert.Equal(t, tc.passes, v.Pass, v.Reason)
			assert.Contains(t, v.Reason, tc.says)
		})
	}
}

func TestBoundedPollingOverlappingTheAnswer(t *testing.T) {
	// The server started the poll, on the same connection as far as the
	// record says, before the terminal answer had ended: it cannot have
	// been sent after it.
	r := pollRun(poll{5 * time.Millisecond, "conn1"})
	r.Wire[1].Start = r.Wire[0].End.Add(-time.Millisecond / 2)
	v := judgeBoundedPolling(r)
	assert.True(t, v.Pass, v.Reason)
}
