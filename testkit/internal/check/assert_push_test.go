package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestFellBackToPolling walks every branch of AssertFellBackToPolling on a
// journal built by hand: each failure names the task, says what the client
// did and what was observed, and carries the caller's message.
func TestFellBackToPolling(t *testing.T) {
	t.Parallel()
	created := []server.Entry{
		{Seq: 1, Agent: "a", Kind: server.EntryRequest, Op: wire.OpSend, Method: "SendMessage", Request: 1},
		{Seq: 2, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateSubmitted},
		{Seq: 3, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateWorking},
		{Seq: 4, Agent: "a", Kind: server.EntryResponse, Op: wire.OpSend, Method: "SendMessage", Request: 1, TaskID: "t1", State: wire.StateWorking},
	}
	completed := append(created[:4:4], server.Entry{Seq: 5, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateCompleted})
	poll := func(seq, req int64, state wire.TaskState) []server.Entry {
		return []server.Entry{
			{Seq: seq, Agent: "a", Kind: server.EntryRequest, Op: wire.OpGetTask, Method: "GetTask", Request: req, TaskID: "t1"},
			{Seq: seq + 1, Agent: "a", Kind: server.EntryResponse, Op: wire.OpGetTask, Method: "GetTask", Request: req, TaskID: "t1", State: state},
		}
	}
	// A GetTask before the terminal state does not count as a fallback.
	early := slices.Concat(created[:3], poll(0, 2, wire.StateWorking), completed[3:])
	for i := range early {
		early[i].Seq = int64(i + 1)
	}
	for _, c := range []struct {
		name    string
		journal []server.Entry
		pushed  []wire.TaskState
		taskID  string
		pass    bool
		says    []string
	}{
		{name: "polled after the terminal state", journal: slices.Concat(completed, poll(6, 2, wire.StateCompleted)),
			pushed: []wire.TaskState{wire.StateWorking}, taskID: "t1", pass: true},
		{name: "unknown task", journal: completed, taskID: "t9",
			says: []string{`task "t9": not in the journal`, "observed:   no entry names the task"}},
		{name: "never terminal", journal: created, taskID: "t1",
			says: []string{"never reached a terminal state", "submitted → working"}},
		{name: "terminal push delivered", journal: completed, pushed: []wire.TaskState{wire.StateWorking, wire.StateCompleted}, taskID: "t1",
			says: []string{"terminal push was delivered", "the webhook received completed"}},
		{name: "no poll", journal: completed, pushed: []wire.TaskState{wire.StateWorking}, taskID: "t1",
			says: []string{"did not fall back to polling", "no GetTask for the task after its terminal state completed (journal #5)", "client did: created it with SendMessage ×1\n"}},
		{name: "polled only before the terminal state", journal: early, taskID: "t1",
			says: []string{"no GetTask for the task after its terminal state"}},
		{name: "poll answered without a terminal state", journal: slices.Concat(completed, poll(6, 2, wire.StateWorking)), taskID: "t1",
			says: []string{"1 GetTask for the task after its terminal state completed (journal #5), none answered with a terminal task"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{}
			if got := AssertFellBackToPolling(r, c.journal, c.pushed, c.taskID, "run %d", 7); got != c.pass {
				t.Fatalf("passed = %v, want %v; output:\n%s", got, c.pass, r.out.String())
			}
			out := r.out.String()
			if c.pass {
				if out != "" {
					t.Errorf("a pass reported:\n%s", out)
				}
				return
			}
			for _, want := range append(c.says, "run 7") {
				if !strings.Contains(out, want) {
					t.Errorf("the failure does not say %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestReceivedStates: repeats are one state; a difference is reported in
// the common layout, with what arrived as it arrived.
func TestReceivedStates(t *testing.T) {
	t.Parallel()
	working, failed, completed := wire.StateWorking, wire.StateFailed, wire.StateCompleted
	assert.True(t, AssertReceivedStates(t, []wire.TaskState{working, working, completed}, "t1", working, completed))

	rt := &recorder{}
	assert.False(t, AssertReceivedStates(rt, []wire.TaskState{working, working, failed}, "t1", working, completed))
	for _, want := range []string{`task "t1": pushed states differ`,
		"client did: received 3 push(es) with a state for the task at its webhook",
		"declared:   pushed states working → completed",
		"observed:   pushed states working → failed (as received, repeats included: working → working → failed)"} {
		assert.Contains(t, rt.out.String(), want)
	}

	rt = &recorder{}
	assert.False(t, AssertReceivedStates(rt, nil, "t2", working))
	assert.Contains(t, rt.out.String(), "observed:   pushed states no state")
	assert.NotContains(t, rt.out.String(), "as received", "nothing repeated, nothing to add")
}
