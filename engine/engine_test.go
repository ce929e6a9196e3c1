package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// rig is one engine agent on a fake clock, with no server, socket or
// behaviors: the engine's parts tested by themselves.
type rig struct {
	t     *testing.T
	a     *engine.Agent
	clk   *timeline.FakeClock
	mu    sync.Mutex
	notes []engine.Note
	card  *cards.Card
	seq   int
}

func newRig(t *testing.T, edit func(*engine.Config)) *rig {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	r := &rig{t: t, clk: timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))}
	r.card = &cards.Card{Name: "a", Dialect: wire.V10, Capabilities: cards.Capabilities{Streaming: true, PushNotifications: true},
		Skills: []cards.Skill{{ID: "s1", Name: "One"}, {ID: "ask", Name: "Ask", NeedsInput: true}}}
	ctx, cancel := context.WithCancel(context.Background())
	var players sync.WaitGroup
	cfg := engine.Config{
		Name: "a", Card: r.card, Seed: 1, Clock: r.clk, StepDelay: time.Minute,
		Limits:  engine.Limits{TaskRetention: 1000, MaxRunningTasks: 1000, TaskRetentionBytes: 1 << 30, MaxPushConfigs: 10},
		Context: ctx, HostContext: ctx, Players: &players,
		Record: func(n engine.Note) { r.mu.Lock(); r.notes = append(r.notes, n); r.mu.Unlock() },
	}
	if edit != nil {
		edit(&cfg)
	}
	a, err := engine.New(cfg)
	require.NoError(t, err)
	r.a = a
	t.Cleanup(func() { cancel(); players.Wait() })
	return r
}

// send is a v1.0 SendMessage of text to skill, as a transport would hand
// it over; ret asks to return immediately.
func (r *rig) send(text, skill, taskID string, ret bool) *wire.Task {
	r.t.Helper()
	r.seq++
	m := &wire.Message{MessageID: fmt.Sprintf("m%d", r.seq), TaskID: taskID, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(text)},
		Metadata: map[string]any{"skillId": skill}}
	return r.sendMessage(m, ret)
}

func (r *rig) sendMessage(m *wire.Message, ret bool) *wire.Task {
	r.t.Helper()
	req := &wire.Request{Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Message: m, Config: wire.SendConfig{ReturnImmediately: ret}}
	x := &core.Exchange{Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Request: req, Card: r.card, Clock: r.clk}
	res, werr := r.a.Send(context.Background(), req, x)
	require.Nil(r.t, werr)
	require.NotNil(r.t, res.Task)
	return res.Task
}

func (r *rig) notesOf(kind engine.NoteKind) []engine.Note {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []engine.Note
	for _, n := range r.notes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// The player applies each step when the clock reaches it and hands the
// events to subscribers in order.
func TestPlayerStepsOnTheClock(t *testing.T) {
	r := newRig(t, nil)
	task := r.send("hi", "s1", "", true)
	assert.Equal(t, wire.StateSubmitted, task.Status.State, "returned at once, before the first step delay")

	sub := engine.NewSubscriber()
	snap, _, werr := r.a.Subscribe(task.ID, sub)
	require.Nil(t, werr)
	assert.Equal(t, wire.StateSubmitted, snap.Status.State)
	defer r.a.Unsubscribe(task.ID, sub)

	// working and the artifact each wait a step delay; completed follows
	// the artifact at once.
	next := func() string {
		t.Helper()
		select {
		case it := <-sub.C():
			require.NotNil(t, it.Event, "an event, not %+v", it)
			if it.Event.Artifact != nil {
				return "artifact"
			}
			return string(it.Event.State())
		case <-time.After(10 * time.Second):
			t.Fatalf("no event after the clock reached the step (state %s)", r.a.TaskState(task.ID))
			return ""
		}
	}
	var got []string
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, r.clk.BlockUntilDue(ctx, time.Minute), "the player waits for its next step")
		cancel()
		select {
		case it := <-sub.C():
			t.Fatalf("an event before the clock reached its step: %+v", it)
		default:
		}
		r.clk.Advance(time.Minute)
		got = append(got, next())
	}
	got = append(got, next())
	assert.Equal(t, wire.StateCompleted, r.a.TaskState(task.ID))
	assert.Equal(t, []string{string(wire.StateWorking), "artifact", string(wire.StateCompleted)}, got, "one event per step, in order")
	var states []wire.TaskState
	for _, n := range r.notesOf(engine.NoteEvent) {
		if n.State != "" {
			states = append(states, n.State)
		}
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, states, "the journal notes follow the play")
}

// Past MaxRunningTasks the store drops the oldest running task and says so.
func TestStoreDropsOldestRunningTask(t *testing.T) {
	stuck := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateWorking}}
	r := newRig(t, func(c *engine.Config) {
		c.Limits.MaxRunningTasks = 2
		c.Timelines = map[string]timeline.Timeline{"s1": stuck}
	})
	first := r.send("1", "s1", "", false)
	second := r.send("2", "s1", "", false)
	third := r.send("3", "s1", "", false)
	assert.Equal(t, wire.StateWorking, third.Status.State, "the timeline ran out in working")
	assert.Empty(t, r.a.TaskState(first.ID), "the oldest running task is gone")
	assert.Equal(t, wire.StateWorking, r.a.TaskState(second.ID))
	dropped := r.notesOf(engine.NoteDropped)
	require.Len(t, dropped, 1)
	assert.Equal(t, first.ID, dropped[0].TaskID)
	assert.NotEmpty(t, dropped[0].Detail, "the note says why")
}

// Beyond TaskRetention the oldest finished tasks are forgotten.
func TestStoreRetentionByCount(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1; c.Limits.TaskRetention = 4 })
	var ids []string
	for i := range 20 {
		ids = append(ids, r.send(fmt.Sprint(i), "s1", "", false).ID)
	}
	states, _ := r.a.Stats()
	kept := 0
	for _, n := range states {
		kept += n
	}
	assert.LessOrEqual(t, kept, 8, "retention 4 keeps a handful, not all 20: %v", states)
	assert.Equal(t, wire.StateCompleted, r.a.TaskState(ids[19]), "the newest is kept")
	assert.Empty(t, r.a.TaskState(ids[0]), "the oldest is forgotten")
}

// A message whose messageId the agent has seen is a retry: it gets the
// first task back, not a second task.
func TestRepeatedMessageIDIsARetry(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1 })
	m := &wire.Message{MessageID: "same", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}
	a := r.sendMessage(m, false)
	m2 := *m
	b := r.sendMessage(&m2, false)
	assert.Equal(t, a.ID, b.ID)
	states, _ := r.a.Stats()
	assert.Equal(t, 1, states[wire.StateCompleted], "one task for two sends of one message")
}

// Ids of a task the store does not hold (a message that left its task's
// history before the task was forgotten would be one) do not pile up: a
// sweep, run when the map has doubled since the last, drops them.
func TestRememberedMessagesOfNoTaskAreSwept(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1 })
	for i := range 5000 {
		engine.Remember(r.a, fmt.Sprint("orphan-", i), "no-such-task")
		require.LessOrEqual(t, engine.SeenMessages(r.a), 1025)
	}
}

// The message ids remembered for retries are those of the tasks the store
// holds: a task forgotten takes its messages' ids with it (a resend of one
// starts a new task), and a retry of a kept task still gets it back.
func TestRememberedMessagesFollowTheStore(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1; c.Limits.TaskRetention = 4 })
	first := r.sendMessage(&wire.Message{MessageID: "first", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, false)
	var last *wire.Task
	for i := range 3000 {
		last = r.send(fmt.Sprint(i), "s1", "", false)
		require.LessOrEqual(t, engine.SeenMessages(r.a), 8, "no more ids than the tasks kept (at most 2 x retention)")
	}
	again := r.sendMessage(&wire.Message{MessageID: "first", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, false)
	assert.NotEqual(t, first.ID, again.ID, "its task is gone: a new task")
	retry := r.sendMessage(&wire.Message{MessageID: fmt.Sprintf("m%d", r.seq), Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("x")}}, false)
	assert.Equal(t, last.ID, retry.ID, "a kept task's retry gets it back")
	r.a.Reset()
	assert.Zero(t, engine.SeenMessages(r.a))
	r.send("after reset", "s1", "", false)
	assert.Equal(t, 1, engine.SeenMessages(r.a), "the store still tells the agent what it forgets after a reset")
}

// ListTasks' statusTimestampAfter keeps tasks whose status time is equal
// to it (greater than or equal, as the proto says), and pages are stable.
func TestListTasks(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1 })
	older := r.send("1", "s1", "", false)
	r.clk.Advance(time.Hour)
	newer := r.send("2", "s1", "", false)
	at := r.a.Snapshot(newer.ID).Status.Timestamp
	require.False(t, at.IsZero())

	page, werr := r.a.List(wire.ListTasksQuery{PageSize: 10, StatusTimestampAfter: at})
	require.Nil(t, werr)
	require.Len(t, page.Tasks, 1, "a task whose status time equals the bound is listed")
	assert.Equal(t, newer.ID, page.Tasks[0].ID)

	page, werr = r.a.List(wire.ListTasksQuery{PageSize: 1})
	require.Nil(t, werr)
	require.Len(t, page.Tasks, 1)
	assert.Equal(t, newer.ID, page.Tasks[0].ID, "newest status first")
	require.NotEmpty(t, page.NextPageToken)
	page, werr = r.a.List(wire.ListTasksQuery{PageSize: 1, PageToken: page.NextPageToken})
	require.Nil(t, werr)
	require.Len(t, page.Tasks, 1)
	assert.Equal(t, older.ID, page.Tasks[0].ID, "the next page goes on where the first stopped")

	_, werr = r.a.List(wire.ListTasksQuery{PageSize: 1, PageToken: "bogus"})
	require.NotNil(t, werr)
	assert.Equal(t, wire.CodeInvalidParams, werr.Code)
}

// blockingDeliverer holds the first delivery until released and records
// the order of all of them.
type blockingDeliverer struct {
	release chan struct{}
	started chan struct{}
	once    sync.Once
	mu      sync.Mutex
	states  []wire.TaskState
}

func (d *blockingDeliverer) Deliver(_ string, job engine.PushJob) {
	d.once.Do(func() { close(d.started); <-d.release })
	d.mu.Lock()
	d.states = append(d.states, job.Event.State())
	d.mu.Unlock()
}

// The push queue delivers a task's notifications in order, and a webhook
// that hangs holds no lock: the store keeps answering meanwhile.
func TestPushQueueOrderWithoutLocks(t *testing.T) {
	d := &blockingDeliverer{release: make(chan struct{}), started: make(chan struct{})}
	r := newRig(t, func(c *engine.Config) { c.StepDelay = -1; c.Deliverer = d })
	m := &wire.Message{MessageID: "p1", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}
	req := &wire.Request{Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Message: m,
		Config: wire.SendConfig{ReturnImmediately: true, PushConfig: &wire.PushConfig{URL: "http://127.0.0.1:1/hook", Token: "tok"}}}
	x := &core.Exchange{Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Request: req, Card: r.card, Clock: r.clk}
	res, werr := r.a.Send(context.Background(), req, x)
	require.Nil(t, werr)

	select {
	case <-d.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery started")
	}
	// The first delivery hangs; the agent still answers other calls.
	other := r.send("meanwhile", "s1", "", false)
	assert.Equal(t, wire.StateCompleted, other.Status.State, "a hung webhook does not hold the store")
	close(d.release)

	require.Eventually(t, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.states) >= 3 && d.states[len(d.states)-1] == wire.StateCompleted
	}, 10*time.Second, time.Millisecond, "every notification is delivered once released")
	d.mu.Lock()
	defer d.mu.Unlock()
	assert.Equal(t, wire.StateSubmitted, d.states[0], "in the order the player emitted them: %v", d.states)
	assert.Equal(t, wire.StateCompleted, d.states[len(d.states)-1])
	_ = res
}

// Reset stops every player by itself (not only the host's context): the
// goroutine waiting on the clock ends, and moving the clock past the steps
// it would have applied journals nothing for the forgotten task.
func TestResetStopsPlayers(t *testing.T) {
	r := newRig(t, nil)
	before := goleak.IgnoreCurrent()
	task := r.send("hi", "s1", "", true)
	r.clk.BlockUntil(1) // the player waits for its first step
	events := len(r.notesOf(engine.NoteEvent))

	r.a.Reset()
	goleak.VerifyNone(t, before)
	assert.Equal(t, 0, r.clk.Waiters(), "no player waits on the clock")
	r.clk.Advance(time.Hour)
	assert.Len(t, r.notesOf(engine.NoteEvent), events, "the stopped player applied nothing")
	assert.Nil(t, r.a.Snapshot(task.ID), "the task is forgotten")
}

// Beyond TaskRetentionBytes the oldest running task is dropped (and noted)
// when no finished task is left to forget; the task just sent is kept.
func TestStoreRetentionByBytes(t *testing.T) {
	r := newRig(t, func(c *engine.Config) { c.Limits.TaskRetentionBytes = 25_000 })
	big := strings.Repeat("x", 10_000)
	var ids []string
	for range 5 {
		ids = append(ids, r.send(big, "s1", "", true).ID) // each stays submitted: its player waits on the clock
	}
	for i, id := range ids {
		if i < 3 {
			assert.Nil(t, r.a.Snapshot(id), "task %d is dropped: three 10 KB tasks exceed 25,000 bytes", i)
		} else {
			assert.NotNil(t, r.a.Snapshot(id), "task %d is kept", i)
		}
	}
	var dropped []string
	for _, n := range r.notesOf(engine.NoteDropped) {
		dropped = append(dropped, n.TaskID)
		assert.Contains(t, n.Detail, "TaskRetentionBytes")
		assert.Equal(t, wire.StateSubmitted, n.State)
	}
	assert.Equal(t, ids[:3], dropped, "the oldest running tasks, oldest first")
}

// The behaviors' Decide hooks see the honest decision and the task the
// message named and may change it; the Plan hooks transform the timeline
// the agent plays. Both run in the engine without any transport.
func TestHooksChangeDecisionAndPlan(t *testing.T) {
	r := newRig(t, nil)
	exchange := func(text string) (*wire.Request, *core.Exchange) {
		r.seq++
		m := &wire.Message{MessageID: fmt.Sprintf("h%d", r.seq), Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(text)},
			Metadata: map[string]any{"skillId": "s1"}}
		req := &wire.Request{Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Message: m, Config: wire.SendConfig{ReturnImmediately: true}}
		return req, &core.Exchange{Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Request: req, Card: r.card, Clock: r.clk}
	}

	t.Run("decide", func(t *testing.T) {
		req, x := exchange("refuse me")
		var honest timeline.Decision
		x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
			honest = *d
			assert.Nil(t, existing, "a new task's message names none")
			*d = timeline.Decision{Kind: timeline.DecideReject, Err: &wire.Error{Code: wire.CodeInvalidParams, Message: "no"}, Reason: "the hook refused"}
		})
		res, werr := r.a.Send(context.Background(), req, x)
		assert.Equal(t, timeline.DecideNew, honest.Kind, "the hook saw the honest decision")
		require.NotNil(t, werr, "the hook's rejection is the answer: %+v", res)
		assert.Equal(t, wire.CodeInvalidParams, werr.Code)
		notes := r.notesOf(engine.NoteDecision)
		require.NotEmpty(t, notes)
		assert.Contains(t, notes[len(notes)-1].Detail, "the hook refused", "the journal notes the changed decision")
	})

	t.Run("plan", func(t *testing.T) {
		req, x := exchange("at once")
		steps := 0
		x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
			steps = len(tl)
			out := slices.Clone(tl)
			for i := range out {
				out[i].After = 0 // the honest plan waits a step delay (a minute) before each step
			}
			return out
		})
		res, werr := r.a.Send(context.Background(), req, x)
		require.Nil(t, werr)
		assert.Positive(t, steps, "the hook saw the honest plan")
		assert.Equal(t, wire.StateCompleted, res.Task.Status.State, "with no delay left the task completed before the answer, the clock never moved")
	})
}

// A send with no message, which no codec hands over but the engine's API
// accepts from any caller, is rejected with invalid params, not a panic.
func TestSendWithoutMessageIsRejected(t *testing.T) {
	r := newRig(t, nil)
	req := &wire.Request{Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC}
	x := &core.Exchange{Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Request: req, Card: r.card, Clock: r.clk}
	res, werr := r.a.Send(context.Background(), req, x)
	assert.Nil(t, res)
	require.NotNil(t, werr)
	assert.Equal(t, wire.CodeInvalidParams, werr.Code)
	assert.Contains(t, werr.Message, "message: is required")
	states, _ := r.a.Stats()
	assert.Empty(t, states, "no task was started")
}
