package interop

// What a2a-go v2 (and, for v0.x-only faults, a2a-go v0.3) observes when the
// mock misbehaves: one test per catalogue behavior whose fault reaches the
// protocol level, plus one per group showing the honest path untouched when
// the behavior is scoped elsewhere. The assertions pin the SDK's observation,
// faults it lets through included, so a change on either side is noticed.

import (
	"context"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
)

// behaviorMock starts a testkit mock with the seed, step delay and options.
func behaviorMock(t *testing.T, seed uint64, step time.Duration, opts ...testkit.Option) *testkit.Mock {
	t.Helper()
	return testkit.Start(t, append([]testkit.Option{testkit.WithSeed(seed), testkit.WithStepDelay(step)}, opts...)...)
}

// bindingMock is behaviorMock with the gRPC binding on when b is gRPC.
func bindingMock(t *testing.T, b v1Binding, seed uint64, step time.Duration, opts ...testkit.Option) *testkit.Mock {
	t.Helper()
	if b.isGRPC() {
		opts = append(opts, testkit.WithGRPC())
	}
	return behaviorMock(t, seed, step, opts...)
}

// withInputSkill makes the default agent's first skill (and only it) park
// in input-required; the skill's id is written to *id and, when other is not
// nil, a skill needing no input is added and its id written to *other.
func withInputSkill(id, other *string) testkit.Option {
	return testkit.WithCardChange("agent", func(c *cards.Card) {
		for i := range c.Skills {
			c.Skills[i].NeedsInput = false
		}
		c.Skills[0].NeedsInput = true
		*id = c.Skills[0].ID
		if other != nil {
			c.Skills = append(c.Skills, cards.Skill{ID: "plain", Name: "Plain", Description: "Needs no input.", Tags: []string{"plain"}})
			*other = "plain"
		}
	})
}

// drained is what one pass over an SDK event iterator saw: the events
// yielded before the iterator ended, and the error that ended it, if any.
type drained struct {
	events []a2a.Event
	err    error
}

// drain reads an SDK stream to its end (or its first error) without failing
// the test, so the test can assert how it ended.
func drain(seq iter.Seq2[a2a.Event, error]) drained {
	var d drained
	for ev, err := range seq {
		if err != nil {
			d.err = err
			break
		}
		d.events = append(d.events, ev)
	}
	return d
}

// states lists the task states the events carry, in order, skipping
// artifact updates.
func states(events []a2a.Event) []a2a.TaskState {
	var out []a2a.TaskState
	for _, ev := range events {
		if st := stateOf(ev); st != "" {
			out = append(out, st)
		}
	}
	return out
}

// kinds names each event's type, to pin a stream's shape compactly.
func kinds(events []a2a.Event) []string {
	var out []string
	for _, ev := range events {
		switch v := ev.(type) {
		case *a2a.Task:
			out = append(out, "task:"+short(v.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			out = append(out, "status:"+short(v.Status.State))
		case *a2a.TaskArtifactUpdateEvent:
			out = append(out, "artifact")
		case *a2a.Message:
			out = append(out, "message")
		default:
			out = append(out, "?")
		}
	}
	return out
}

// short spells a v1.0 state the way the catalogue does (TASK_STATE_WORKING
// is working).
func short(st a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(st), "TASK_STATE_")), "_", "-")
}

// shortCtx bounds one call of a test that expects the call not to end on
// its own.
func shortCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls GetTask until the task is in state want or the bound
// passes, and returns the last task seen.
func eventually(ctx context.Context, t *testing.T, get func(context.Context) (*a2a.Task, error), want a2a.TaskState, bound time.Duration) *a2a.Task {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		task, err := get(ctx)
		require.NoError(t, err)
		if task.Status.State == want || time.Now().After(deadline) {
			return task
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBehaviorNewTaskIDOnContinuation(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		var skill string
		// The field root cause: only messages without metadata.tenant are
		// mishandled, so the first message (with a tenant) parks honestly.
		m := bindingMock(t, b, 101, -1, withInputSkill(&skill, nil),
			testkit.WithBehavior("", "new-task-id-on-continuation:unless-metadata=tenant"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)

		first := userText("book a room")
		first.Metadata = map[string]any{"skillId": skill, "tenant": "acme"}
		parked := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
		require.Equal(t, a2a.TaskStateInputRequired, parked.Status.State)

		// The continuation loses the tenant: the SDK gets a task back with no
		// error, but under a new id (in the same context), and it stops at
		// working instead of asking again.
		reply := a2a.NewMessageForTask(a2a.MessageRoleUser, parked, a2a.NewTextPart("room 4"))
		reply.Metadata = map[string]any{"skillId": skill}
		got := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: reply})
		assert.NotEqual(t, parked.ID, got.ID, "the continuation was answered with a brand-new task")
		assert.Equal(t, parked.ContextID, got.ContextID, "keep-context: only the task id betrays the divergence")
		assert.Equal(t, a2a.TaskStateWorking, got.Status.State)

		// The original task never moves on.
		orig, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: parked.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateInputRequired, orig.Status.State)
		fresh, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: got.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateWorking, fresh.Status.State)

		// With the tenant the continuation is honest: same task, completed.
		reply2 := a2a.NewMessageForTask(a2a.MessageRoleUser, parked, a2a.NewTextPart("room 4"))
		reply2.Metadata = map[string]any{"skillId": skill, "tenant": "acme"}
		done := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: reply2})
		assert.Equal(t, parked.ID, done.ID)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	})
}

func TestBehaviorSkipWorking(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 102, 5*time.Millisecond, testkit.WithBehavior("", "skip-working"))
		c, _ := v1Client(t, m.URL, b)
		d := drain(c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("quick")}))
		require.NoError(t, d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateCompleted}, states(d.events),
			"the SDK passes the stream through: submitted then completed, no working")
		assert.Contains(t, kinds(d.events), "artifact")
	})
}

// TestBehaviorLifecycleHonestOutOfScope scopes skip-working to the first
// stream: the second is honest and shows working again.
func TestBehaviorLifecycleHonestOutOfScope(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 103, 5*time.Millisecond,
			testkit.WithBehavior("", "skip-working:call=1", "wrong-error-code:op=cancel-task"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		first := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("one")}))
		require.NoError(t, first.err)
		assert.NotContains(t, states(first.events), a2a.TaskStateWorking)
		second := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("two")}))
		require.NoError(t, second.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted}, states(second.events))

		// wrong-error-code is scoped to cancels: GetTask still gets the
		// typed TaskNotFound, CancelTask gets InvalidParams.
		_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "no-such-task"})
		assert.ErrorIs(t, err, rewrittenCode(b), "got %v", err)
		assert.NotErrorIs(t, err, a2a.ErrTaskNotFound)
	})
}

func TestBehaviorNeverTerminal(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 104, 5*time.Millisecond, testkit.WithBehavior("", "never-terminal"))
		c, _ := v1Client(t, m.URL, b)

		// The stream reaches working and then neither ends nor errors: only
		// the caller's deadline ends it.
		d := drain(c.SendStreamingMessage(shortCtx(t, time.Second), &a2a.SendMessageRequest{Message: userText("forever")}))
		require.Error(t, d.err)
		assert.ErrorIs(t, d.err, context.DeadlineExceeded, "got %v", d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, states(d.events))

		// GetTask keeps saying working.
		ctx := testCtx(t)
		id := d.events[0].TaskInfo().TaskID
		time.Sleep(50 * time.Millisecond)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateWorking, got.Status.State)
		assert.Empty(t, got.Artifacts)

		// A blocking SendMessage does not wait: the mock answers once the
		// (cut) timeline has played, so the SDK returns a working task with
		// no error, and the caller must poll.
		task := sendTask(shortCtx(t, 2*time.Second), t, c, &a2a.SendMessageRequest{Message: userText("block")})
		assert.Equal(t, a2a.TaskStateWorking, task.Status.State)
	})
}

func TestBehaviorStuckSubmitted(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 105, 5*time.Millisecond,
			testkit.WithBehavior("", "stuck-submitted:text=^stuck", "stuck-submitted:for=150ms,text=^late"))
		c, _ := v1Client(t, m.URL, b)

		d := drain(c.SendStreamingMessage(shortCtx(t, time.Second), &a2a.SendMessageRequest{Message: userText("stuck")}))
		assert.ErrorIs(t, d.err, context.DeadlineExceeded, "got %v", d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted}, states(d.events))
		ctx := testCtx(t)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateSubmitted, got.Status.State)

		// With for=150ms the task leaves submitted late and then completes.
		start := time.Now()
		late := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("late")}))
		require.NoError(t, late.err)
		assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted}, states(late.events))
	})
}

func TestBehaviorFailInsteadOfInputRequired(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		var skill string
		m := bindingMock(t, b, 106, -1, withInputSkill(&skill, nil), testkit.WithBehavior("", "fail-instead-of-input-required"))
		c, _ := v1Client(t, m.URL, b)
		msg := userText("needs more")
		msg.Metadata = map[string]any{"skillId": skill}
		task := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: msg})
		assert.Equal(t, a2a.TaskStateFailed, task.Status.State, "a failed task, not an error")
		require.NotNil(t, task.Status.Message)
		require.NotEmpty(t, task.Status.Message.Parts)
		assert.Equal(t, "Required input is missing.", task.Status.Message.Parts[0].Text())
	})
}

func TestBehaviorInputRequiredWithoutWorking(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		var skill, plain string
		m := bindingMock(t, b, 107, 5*time.Millisecond, withInputSkill(&skill, &plain),
			testkit.WithBehavior("", "input-required-without-working:insert=true"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)

		msg := userText("ask me")
		msg.Metadata = map[string]any{"skillId": skill}
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}))
		require.NoError(t, d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateInputRequired}, states(d.events))

		// insert=true: a task that needs no input is parked anyway, then
		// works on to completion without any input. The SDK's stream ends at
		// input-required (interrupted states end a stream), so the rest is
		// only seen through GetTask.
		other := userText("no input needed")
		other.Metadata = map[string]any{"skillId": plain}
		d = drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: other}))
		require.NoError(t, d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateInputRequired}, states(d.events))
		get := func(ctx context.Context) (*a2a.Task, error) {
			return c.GetTask(ctx, &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		}
		assert.Equal(t, a2a.TaskStateCompleted, eventually(ctx, t, get, a2a.TaskStateCompleted, 2*time.Second).Status.State)
	})
}

func TestBehaviorTransitionAfterTerminal(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 108, 5*time.Millisecond,
			testkit.WithBehavior("", "transition-after-terminal:text=^stored", "transition-after-terminal:event-only=true,text=^event"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)

		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stored")}))
		require.NoError(t, d.err, "the SDK does not object to a state after completed")
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateWorking}, states(d.events))
		id := d.events[0].TaskInfo().TaskID
		get := func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id}) }
		assert.Equal(t, a2a.TaskStateWorking, eventually(ctx, t, get, a2a.TaskStateWorking, time.Second).Status.State,
			"the stored task left completed")

		d = drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("event only")}))
		require.NoError(t, d.err)
		assert.Equal(t, a2a.TaskStateWorking, states(d.events)[len(states(d.events))-1])
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State, "event-only leaves the stored task terminal")
	})
}

func TestBehaviorDuplicateTerminal(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 109, 5*time.Millisecond, testkit.WithBehavior("", "duplicate-terminal:count=2"))
		c, _ := v1Client(t, m.URL, b)
		d := drain(c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("twice")}))
		require.NoError(t, d.err)
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking,
			a2a.TaskStateCompleted, a2a.TaskStateCompleted, a2a.TaskStateCompleted}, states(d.events),
			"the SDK yields every copy of the terminal event")
	})
}

func TestBehaviorStatusForOtherTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 110, 5*time.Millisecond, testkit.WithBehavior("", "status-for-other-task:task=ghost-task"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("mine")}))
		require.NoError(t, d.err)
		own := d.events[0].TaskInfo().TaskID
		var foreign []a2a.TaskState
		for _, ev := range d.events {
			if ev.TaskInfo().TaskID == "ghost-task" {
				foreign = append(foreign, stateOf(ev))
			} else {
				assert.Equal(t, own, ev.TaskInfo().TaskID)
			}
		}
		assert.Equal(t, []a2a.TaskState{a2a.TaskStateCompleted}, foreign, "the SDK yields the stray event as is")
		assert.Equal(t, a2a.TaskStateCompleted, stateOf(d.events[len(d.events)-1]))
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: own})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
		_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "ghost-task"})
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "the stray event's task does not exist")
	})
}

func TestBehaviorContextIDDrift(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 111, 5*time.Millisecond, testkit.WithBehavior("", "context-id-drift"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)

		msg := userText("in my conversation")
		msg.ContextID = "ctx-mine"
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: msg})
		assert.NotEqual(t, "ctx-mine", task.ContextID, "where=result: the answer is filed under another context")
		assert.NotEmpty(t, task.ContextID)

		msg = userText("stream in my conversation")
		msg.ContextID = "ctx-stream"
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}))
		require.NoError(t, d.err)
		snap, ok := d.events[0].(*a2a.Task)
		require.True(t, ok, "first event %T", d.events[0])
		drifted := 0
		for _, ev := range d.events[1:] {
			if ev.TaskInfo().ContextID != snap.ContextID {
				drifted++
			}
		}
		assert.Equal(t, len(d.events)-1, drifted, "where=events: every update after the snapshot carries another contextId; events: %v", kinds(d.events))
	})
}

func TestBehaviorMintTaskForUnknownID(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 112, -1,
			testkit.WithBehavior("", "mint-task-for-unknown-id:if-metadata=keep", "mint-task-for-unknown-id:keep-id=false,unless-metadata=keep"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)

		msg := userText("continue please")
		msg.TaskID = "lost-task"
		msg.Metadata = map[string]any{"keep": true}
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: msg})
		assert.Equal(t, a2a.TaskID("lost-task"), task.ID, "no TaskNotFound: a task under the client's id")
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)

		msg = userText("continue again")
		msg.TaskID = "lost-too"
		task = sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: msg})
		assert.NotEqual(t, a2a.TaskID("lost-too"), task.ID, "keep-id=false: a fresh id")
		assert.NotEmpty(t, task.ID)
	})
}

func TestBehaviorForgetTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		// The ttl runs on the mock's fake clock: the task's age is what the
		// test moved it by, not how long the calls took (a 150ms sleep).
		clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		m := bindingMock(t, b, 113, -1, testkit.WithClock(clk), testkit.WithBehavior("", "forget-task:ttl=100ms"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("remember me")})
		clk.Advance(100*time.Millisecond - time.Nanosecond)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err, "still known before the ttl")
		assert.Equal(t, task.ID, got.ID)

		clk.Advance(time.Nanosecond)
		_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		list, err := c.ListTasks(ctx, b.listRequest(&a2a.ListTasksRequest{}))
		require.NoError(t, err)
		for _, lt := range list.Tasks {
			assert.NotEqual(t, task.ID, lt.ID, "ListTasks leaves the forgotten task out")
		}
	})
}

func TestBehaviorIgnoreCancel(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 114, 60*time.Millisecond, testkit.WithBehavior("", "ignore-cancel:terminal=true"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("slow"), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
		require.False(t, task.Status.State.Terminal())

		ack, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCanceled, ack.Status.State, "the acknowledgement says canceled")

		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.NotEqual(t, a2a.TaskStateCanceled, got.Status.State, "but the task was not canceled")
		get := func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}) }
		done := eventually(ctx, t, get, a2a.TaskStateCompleted, 2*time.Second)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State, "it works on to completion")

		// terminal=true: cancelling the finished task is acknowledged too,
		// where the honest agent answers TaskNotCancelable.
		ack, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCanceled, ack.Status.State)
		got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	})
}

// rewrittenCode is the error a2a-go v2 reports for the mock's -32602 on
// binding b. Over JSON-RPC it is the typed InvalidParams. Over HTTP+JSON the
// SDK types an error only by its google.rpc.ErrorInfo reason, which the spec
// gives A2A errors alone: the generic -32602 goes out as 400
// INVALID_ARGUMENT without one, and the SDK reports ErrInternalError
// (an SDK limitation: it ignores the HTTP status and the rpc status).
func rewrittenCode(b v1Binding) error {
	if b.name == "REST" {
		return a2a.ErrInternalError
	}
	return a2a.ErrInvalidParams
}

func TestBehaviorWrongErrorCode(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 115, -1, testkit.WithBehavior("", "wrong-error-code"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		require.Error(t, err)
		assert.ErrorIs(t, err, rewrittenCode(b), "got %v", err)
		assert.NotErrorIs(t, err, a2a.ErrTaskNotFound, "the SDK branches on the code: the typed TaskNotFound is lost")
		assert.Contains(t, err.Error(), "no-such-task", "the message text is kept")

		// Errors refusing a stream before it starts are rewritten too.
		d := drain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "no-such-task"}))
		assert.Empty(t, d.events)
		assert.ErrorIs(t, d.err, rewrittenCode(b), "got %v", d.err)
		assert.NotErrorIs(t, d.err, a2a.ErrTaskNotFound)
	})
}
