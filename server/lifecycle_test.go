package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func agentsFor(c dialectCase, push bool) []server.AgentConfig {
	return []server.AgentConfig{{Name: "agent", Card: testCard(c.card, push)}}
}

// startRunning starts a task that keeps running (on a server with a long
// StepDelay): with returnImmediately / blocking:false where the dialect has
// it, else through v1.0 on the same agent.
func startRunning(t *testing.T, h *harness, c dialectCase) wireTask {
	t.Helper()
	cl := newClient(t, h, c)
	if c.d == wire.V01 {
		cl = newClient(t, h, dialectCases[0])
	}
	tk := cl.mustSend(sendOpts{immediate: true})
	require.Contains(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, tk.State)
	return tk
}

func TestLifecycleSendCompletes(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 1, StepDelay: 2 * time.Millisecond, Agents: agentsFor(c, false)})
			cl := newClient(t, h, c)
			tk := cl.mustSend(sendOpts{text: "do it"})
			assert.Equal(t, wire.StateCompleted, tk.State)
			assert.Equal(t, 1, tk.Artifacts, "an honest completed task has an artifact")
			assert.Equal(t, 1, tk.History, "the history holds the user's message")
			assert.NotEmpty(t, tk.ContextID)

			got, e := cl.get(tk.ID, nil)
			require.Nil(t, e)
			assert.Equal(t, tk.ID, got.ID)
			assert.Equal(t, wire.StateCompleted, got.State)
			assert.Equal(t, tk.ContextID, got.ContextID)
		})
	}
}

func TestLifecycleStream(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 2, StepDelay: 2 * time.Millisecond, Agents: agentsFor(c, false)})
			cl := newClient(t, h, c)
			evs, e := cl.stream(sendOpts{})
			require.Nil(t, e)
			require.Len(t, evs, 4, "events: %+v", evs)
			first := "task"
			if c.d == wire.V01 {
				// v0.1 streams have no Task event: the snapshot goes as a
				// status update.
				first = "status"
			}
			assert.Equal(t, []string{first, "status", "artifact", "status"}, kinds(evs))
			assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, states(evs))
			for i, ev := range evs {
				assert.Equal(t, evs[0].TaskID, ev.TaskID, "event %d is about the task", i)
				switch c.d {
				case wire.V10:
					assert.False(t, ev.HasKind)
					assert.Nil(t, ev.Final)
				default:
					if ev.Kind == "status" {
						require.NotNil(t, ev.Final)
						assert.Equal(t, i == len(evs)-1, *ev.Final, "final only on the last status event (event %d)", i)
					}
				}
			}
			got, e := cl.get(evs[0].TaskID, nil)
			require.Nil(t, e)
			assert.Equal(t, wire.StateCompleted, got.State)
			assert.Equal(t, 1, got.Artifacts)
		})
	}
}

func TestLifecycleInputRequired(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 3, StepDelay: 2 * time.Millisecond, Agents: agentsFor(c, false)})
			cl := newClient(t, h, c)
			tk := cl.mustSend(sendOpts{skill: "ask"})
			require.Equal(t, wire.StateInputRequired, tk.State)
			assert.Zero(t, tk.Artifacts)

			next := cl.mustSend(sendOpts{text: "this one", taskID: tk.ID, contextID: tk.ContextID})
			assert.Equal(t, tk.ID, next.ID, "the follow-up continues the same task")
			assert.Equal(t, tk.ContextID, next.ContextID)
			assert.Equal(t, wire.StateCompleted, next.State)
			assert.Equal(t, 1, next.Artifacts)
			assert.Equal(t, 3, next.History, "user, agent prompt, user")

			// historyLength: unset, 1, 0.
			for _, hl := range []struct {
				n    *int
				want int
			}{{nil, 3}, {intp(1), 1}, {intp(0), 0}, {intp(10), 3}} {
				got, e := cl.get(tk.ID, hl.n)
				require.Nil(t, e)
				assert.Equal(t, hl.want, got.History, "historyLength %v", hl.n)
			}
			withHL := cl.mustSend(sendOpts{historyLength: intp(0)})
			assert.Zero(t, withHL.History, "send honours historyLength 0")
			withHL = cl.mustSend(sendOpts{skill: "ask", historyLength: intp(1)})
			assert.Equal(t, 1, withHL.History, "send honours historyLength 1")

			// A stream parks too, and ends there.
			evs, e := cl.stream(sendOpts{skill: "ask"})
			require.Nil(t, e)
			last := evs[len(evs)-1]
			assert.Equal(t, wire.StateInputRequired, last.State)
			if c.d != wire.V10 {
				require.NotNil(t, last.Final)
				assert.True(t, *last.Final)
			}
			// And a streamed follow-up continues the same task.
			evs, e = cl.stream(sendOpts{taskID: last.TaskID})
			require.Nil(t, e)
			require.NotEmpty(t, evs)
			assert.Equal(t, wire.StateCompleted, evs[len(evs)-1].State)
			for _, ev := range evs {
				assert.Equal(t, last.TaskID, ev.TaskID)
			}
		})
	}
}

func TestLifecycleErrors(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 4, StepDelay: 2 * time.Millisecond, Agents: agentsFor(c, false)})
			cl := newClient(t, h, c)
			done := cl.mustSend(sendOpts{})
			require.Equal(t, wire.StateCompleted, done.State)

			_, e := cl.get("no-such-task", nil)
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeTaskNotFound, e.Code)
			_, e = cl.cancel("no-such-task")
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeTaskNotFound, e.Code)
			_, e = cl.subscribe("no-such-task")
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeTaskNotFound, e.Code)
			if c.d != wire.V01 {
				// (v0.1 clients choose task ids: an unknown one starts a task.)
				_, e = cl.send(sendOpts{taskID: "no-such-task"})
				require.NotNil(t, e)
				assert.Equal(t, wire.CodeTaskNotFound, e.Code)
				_, e = cl.stream(sendOpts{taskID: "no-such-task"})
				require.NotNil(t, e)
				assert.Equal(t, wire.CodeTaskNotFound, e.Code)
			}

			_, e = cl.send(sendOpts{taskID: done.ID, contextID: done.ContextID})
			require.NotNil(t, e, "a message to a terminal task is rejected")
			assert.Equal(t, wire.CodeUnsupportedOperation, e.Code)

			_, e = cl.cancel(done.ID)
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeTaskNotCancelable, e.Code)

			parked := cl.mustSend(sendOpts{skill: "ask"})
			_, e = cl.send(sendOpts{taskID: parked.ID, contextID: "another-context"})
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeInvalidParams, e.Code)
			assert.Contains(t, e.Message, "contextId")
			got, e := cl.get(parked.ID, nil)
			require.Nil(t, e)
			assert.Equal(t, wire.StateInputRequired, got.State, "a rejected message changes nothing")
		})
	}
}

func TestLifecycleCancelAndSubscribe(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			slow := start(t, server.Config{Seed: 5, StepDelay: time.Hour, Agents: agentsFor(c, false)})
			cl := newClient(t, slow, c)
			tk := startRunning(t, slow, c)
			got, e := cl.get(tk.ID, nil)
			require.Nil(t, e)
			assert.False(t, got.State.Terminal(), "the task runs on after an immediate answer")

			canceled, e := cl.cancel(tk.ID)
			require.Nil(t, e)
			assert.Equal(t, wire.StateCanceled, canceled.State)
			assert.Equal(t, tk.ID, canceled.ID)
			got, e = cl.get(tk.ID, nil)
			require.Nil(t, e)
			assert.Equal(t, wire.StateCanceled, got.State)
			_, e = cl.cancel(tk.ID)
			require.NotNil(t, e)
			assert.Equal(t, wire.CodeTaskNotCancelable, e.Code)

			// Subscribing to a terminal task: v1.0 refuses, v0.x answers
			// with the final snapshot and closes.
			evs, e := cl.subscribe(tk.ID)
			if c.d == wire.V10 {
				require.NotNil(t, e)
				assert.Equal(t, wire.CodeUnsupportedOperation, e.Code)
			} else {
				require.Nil(t, e)
				require.Len(t, evs, 1)
				assert.Equal(t, wire.StateCanceled, evs[0].State)
			}

			// A live task: subscribe starts with the current snapshot and
			// follows the task to its end. On the fake clock the task
			// waits for the test: it moves on only once the subscription
			// is attached (open streams from the metrics; with 40 ms steps it could finish first on a
			// loaded machine, and the subscription got the final snapshot).
			clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
			mid := start(t, server.Config{Seed: 6, StepDelay: time.Minute, Clock: clk, KeepAliveInterval: 24 * time.Hour, Agents: agentsFor(c, false)})
			cl = newClient(t, mid, c)
			tk = startRunning(t, mid, c)
			type subscribed struct {
				evs []wireEvent
				e   *rpcError
			}
			done := make(chan subscribed, 1)
			go func() {
				evs, e := cl.subscribe(tk.ID)
				done <- subscribed{evs, e}
			}()
			waitFor(t, "the subscription to attach", func() bool { return mid.scrape()[`a2amock_open_streams{agent="agent"}`] == 1 })
			for range 2 { // working, then the artifact (completed follows it at once)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				require.NoError(t, clk.BlockUntilDue(ctx, time.Minute), "the task's next step waits on the clock")
				cancel()
				clk.Advance(time.Minute)
			}
			var sub subscribed
			select {
			case sub = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the subscription did not end after the task completed")
			}
			evs, e = sub.evs, sub.e
			require.Nil(t, e)
			require.GreaterOrEqual(t, len(evs), 2, "events: %+v", evs)
			if c.d != wire.V01 {
				assert.Equal(t, "task", evs[0].Kind, "a subscription starts with the task")
			}
			assert.Contains(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, evs[0].State)
			assert.Equal(t, wire.StateCompleted, evs[len(evs)-1].State)
			assert.Equal(t, "artifact", evs[len(evs)-2].Kind)
			for _, ev := range evs {
				assert.Equal(t, tk.ID, ev.TaskID)
			}
		})
	}
}

func TestReturnImmediately(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		if c.d == wire.V01 {
			continue // v0.1 sends always block
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 7, StepDelay: 30 * time.Millisecond, Agents: agentsFor(c, false)})
			cl := newClient(t, h, c)
			tk := cl.mustSend(sendOpts{immediate: true})
			assert.Contains(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, tk.State)
			waitFor(t, "the task to complete on its own", func() bool {
				got, e := cl.get(tk.ID, nil)
				require.Nil(t, e)
				return got.State == wire.StateCompleted
			})
			got, _ := cl.get(tk.ID, nil)
			assert.Equal(t, 1, got.Artifacts)
		})
	}
}

// A scripted timeline that ends in auth-required interrupts the task: a
// stream ends there (v0.x with final:true) and a blocking send returns.
func TestInterruptedByAuthRequired(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		if c.d == wire.V01 {
			continue // v0.1 has no auth-required
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			card := testCard(c.card, false)
			h := start(t, server.Config{Seed: 8, StepDelay: time.Millisecond, Agents: []server.AgentConfig{{
				Name: "agent", Card: card,
				Timelines: map[string]timeline.Timeline{"echo": {
					{Kind: timeline.StepState, State: wire.StateSubmitted},
					{Kind: timeline.StepState, State: wire.StateWorking, After: time.Millisecond},
					{Kind: timeline.StepState, State: wire.StateAuthRequired, Message: "Sign in first.", After: time.Millisecond},
				}},
			}}})
			cl := newClient(t, h, c)
			tk := cl.mustSend(sendOpts{})
			assert.Equal(t, wire.StateAuthRequired, tk.State)
			h.streamTimeout = 10 * time.Second // a hang guard: the stream ends at auth-required
			evs, e := cl.stream(sendOpts{})
			require.Nil(t, e)
			require.NotEmpty(t, evs)
			last := evs[len(evs)-1]
			assert.Equal(t, wire.StateAuthRequired, last.State)
			if c.d != wire.V10 {
				require.NotNil(t, last.Final)
				assert.True(t, *last.Final, "auth-required is the last event: final")
			}
		})
	}
}

// A task started in v0.1 (whose messages have no ids) reads as a valid task
// in v1.0.
func TestCrossDialectRead(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
	c01, c10 := newClient(t, h, dialectCases[4]), newClient(t, h, dialectCases[0])
	tk := c01.mustSend(sendOpts{skill: "ask"})
	require.Equal(t, wire.StateInputRequired, tk.State)
	c01.mustSend(sendOpts{taskID: tk.ID})
	got, e := c10.get(tk.ID, nil)
	require.Nil(t, e)
	assert.Equal(t, wire.StateCompleted, got.State)
	assert.Equal(t, 3, got.History)
	listOver(h, false)(t, map[string]any{})
	listOver(h, true)(t, map[string]any{})
}

// A streamed follow-up to a parked task reports each state once: the
// opening Task snapshot is not followed by the state it already shows.
func TestStreamedFollowUpNoDuplicateState(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// With steps played inline (no delay) as with short ones.
			for _, delay := range []time.Duration{time.Millisecond, -1} {
				h := start(t, server.Config{Seed: 10, StepDelay: delay, Agents: agentsFor(c, false)})
				cl := newClient(t, h, c)
				tk := cl.mustSend(sendOpts{skill: "ask"})
				require.Equal(t, wire.StateInputRequired, tk.State)
				evs, e := cl.stream(sendOpts{taskID: tk.ID, contextID: tk.ContextID})
				require.Nil(t, e)
				st := states(evs)
				require.NotEmpty(t, st)
				assert.Equal(t, wire.StateCompleted, st[len(st)-1])
				for i := 1; i < len(st); i++ {
					assert.NotEqual(t, st[i-1], st[i], "state %s reported twice in a row: %v", st[i], st)
				}
				// However short the steps, the stream opens on the state the
				// task moved to on taking the message and shows every state it
				// then went through, never the input-required just answered.
				assert.Equal(t, []wire.TaskState{wire.StateWorking, wire.StateCompleted}, st, "step delay %v", delay)
			}
		})
	}
}
