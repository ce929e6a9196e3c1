package interop

import (
	"context"
	"testing"
	"time"

	v03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
)

// honestKinds is the honest stream of a task that needs no input.
var honestKinds = []string{"task:submitted", "status:working", "artifact", "status:completed"}

// streamOnce starts a mock with the behaviors, discovers it with a2a-go v2
// on binding b and drains one SendStreamingMessage bounded by bound.
func streamOnce(t *testing.T, b v1Binding, seed uint64, bound time.Duration, specs ...string) (*testkit.Mock, drained) {
	t.Helper()
	m := bindingMock(t, b, seed, 5*time.Millisecond, testkit.WithBehavior("", specs...))
	c, _ := v1Client(t, m.URL, b)
	return m, drain(c.SendStreamingMessage(shortCtx(t, bound), &a2a.SendMessageRequest{Message: userText("stream it")}))
}

func TestBehaviorStreamNoFinalV1(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 201, 5*time.Millisecond, testkit.WithBehavior("", "stream-no-final"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream it")}))
		// The SDK ends the iterator cleanly on EOF: no error although the
		// task never reached a terminal state on the stream.
		require.NoError(t, d.err)
		assert.Equal(t, []string{"task:submitted", "status:working", "artifact"}, kinds(d.events))
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State, "GetTask has the terminal state the stream never sent")
	})
}

// TestBehaviorStreamNoFinalV03 drives the v0.x form, final:false on the
// last event, through a2a-go v0.3, which does not look at the flag either.
func TestBehaviorStreamNoFinalV03(t *testing.T) {
	t.Parallel()
	ac := v03Agent("legacy", 202)
	ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse("stream-no-final")))
	s := startMock(t, server.Config{Seed: 202, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
	c, _ := v03Client(t, s.URL())
	events := v03Collect(t, c.SendStreamingMessage(testCtx(t), &v03.MessageSendParams{Message: v03Text("stream it")}))
	require.NotEmpty(t, events)
	finals := 0
	for _, ev := range events {
		if su, ok := ev.(*v03.TaskStatusUpdateEvent); ok && su.Final {
			finals++
		}
	}
	assert.Zero(t, finals, "no event says final:true")
	last, ok := events[len(events)-1].(*v03.TaskStatusUpdateEvent)
	require.True(t, ok, "last event %T", events[len(events)-1])
	assert.Equal(t, v03.TaskStateCompleted, last.Status.State, "the terminal state is sent, with final:false")
	assert.False(t, last.Final)
	assertV03(t, s)
}

func TestBehaviorStreamHang(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 203, 1500*time.Millisecond, "stream-hang")
		// The SDK reads until EOF, not until the terminal event: every event
		// arrives, completed last, and then the iterator blocks until the
		// caller's deadline.
		assert.Equal(t, honestKinds, kinds(d.events))
		require.Error(t, d.err)
		assert.ErrorIs(t, d.err, context.DeadlineExceeded, "got %v", d.err)
	})
}

// TestBehaviorStreamEOFMidFrame cuts an SSE frame in half: a fault of the
// HTTP bindings' framing (gRPC's length-prefixed messages are the
// transport behaviors' business).
func TestBehaviorStreamEOFMidFrame(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 204, 5*time.Second, "stream-eof-mid-frame:after=2")
		assert.Equal(t, honestKinds[:2], kinds(d.events))
		// The SDK's SSE parser flushes the half frame at EOF as if it were
		// complete, so the truncation is reported as a JSON error on that
		// data, not as an unexpected EOF.
		require.Error(t, d.err, "the cut is reported")
		assert.Contains(t, d.err.Error(), "unexpected end of JSON input")
	})
}

func TestBehaviorStreamDropEvents(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 205, 5*time.Second, "stream-drop-events:rate=1")
		require.NoError(t, d.err)
		assert.Equal(t, []string{"status:completed"}, kinds(d.events), "only the event ending the stream survives")

		_, d = streamOnce(t, b, 205, 2*time.Second, "stream-drop-events:rate=1,terminal=true")
		require.NoError(t, d.err, "an empty stream ends cleanly in the SDK")
		assert.Empty(t, d.events)
	})
}

func TestBehaviorStreamDuplicateEvents(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 206, 5*time.Second, "stream-duplicate-events:rate=1")
		require.NoError(t, d.err)
		var want []string
		for _, k := range honestKinds {
			want = append(want, k, k)
		}
		assert.Equal(t, want, kinds(d.events), "the SDK yields both copies of every event")
	})
}

func TestBehaviorStreamReorderEvents(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 207, 5*time.Second, "stream-reorder-events:rate=1")
		require.NoError(t, d.err)
		assert.Equal(t, []string{"task:submitted", "artifact", "status:working", "status:completed"}, kinds(d.events),
			"the artifact overtakes working; the SDK yields arrival order")
	})
}

func TestBehaviorResubscribeGap(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 208, 100*time.Millisecond, testkit.WithBehavior("", "resubscribe-gap:drop=1"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("detach"), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
		get := func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}) }
		require.Equal(t, a2a.TaskStateWorking, eventually(ctx, t, get, a2a.TaskStateWorking, 2*time.Second).Status.State)

		d := drain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}))
		require.NoError(t, d.err)
		require.NotEmpty(t, d.events)
		snap, ok := d.events[0].(*a2a.Task)
		require.True(t, ok, "first event %T", d.events[0])
		assert.Equal(t, a2a.TaskStateSubmitted, snap.Status.State, "the snapshot is stale: working happened while detached")
		assert.Empty(t, snap.Artifacts)
		assert.Len(t, snap.History, 1)
		// drop=1: the first live event (the artifact) is lost too, so the
		// SDK sees the task jump from submitted to completed.
		assert.Equal(t, []string{"task:submitted", "status:completed"}, kinds(d.events))

		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
		assert.NotEmpty(t, got.Artifacts, "GetTask tells the truth")
	})
}

func TestBehaviorSlowStream(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 209, -1, testkit.WithBehavior("", "slow-stream:delay=150ms"))
		c, _ := v1Client(t, m.URL, b)
		start := time.Now()
		d := drain(c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("dribble")}))
		require.NoError(t, d.err)
		assert.Equal(t, honestKinds, kinds(d.events), "slow, but complete")
		assert.GreaterOrEqual(t, time.Since(start), 4*150*time.Millisecond)

		// A whole-stream deadline shorter than the stream cuts it after the
		// events that made it in time (how many depends on the machine's
		// load, so only a strict prefix is asserted).
		d = drain(c.SendStreamingMessage(shortCtx(t, 380*time.Millisecond), &a2a.SendMessageRequest{Message: userText("cut")}))
		assert.ErrorIs(t, d.err, context.DeadlineExceeded, "got %v", d.err)
		assert.Less(t, len(d.events), len(honestKinds))
		assert.Equal(t, honestKinds[:len(d.events)], kinds(d.events))
	})
}

func TestBehaviorArtifactChunkFaults(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m, d := streamOnce(t, b, 210, 5*time.Second, "artifact-chunk-faults")
		require.NoError(t, d.err)
		var arts []*a2a.TaskArtifactUpdateEvent
		for _, ev := range d.events {
			if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				arts = append(arts, a)
			}
		}
		require.Len(t, arts, 1)
		assert.True(t, arts[0].Append, "append:true on an artifact the client was never sent")
		assert.False(t, arts[0].LastChunk, "lastChunk is never sent")
		assert.Equal(t, a2a.TaskStateCompleted, stateOf(d.events[len(d.events)-1]))

		c, _ := v1Client(t, m.URL, b)
		got, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		require.NoError(t, err)
		require.Len(t, got.Artifacts, 1, "the stored task still has the artifact")
		assert.Equal(t, arts[0].Artifact.ID, got.Artifacts[0].ID)
	})
}

// TestBehaviorStreamErrorAsJSON answers a stream with a JSON error body
// instead of an event stream, a fault of the HTTP bindings' content types
// (a gRPC stream's errors are its trailers).
func TestBehaviorStreamErrorAsJSON(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m, d := streamOnce(t, b, 211, 5*time.Second, "stream-error-as-json")
		if b.name == "JSONRPC" {
			// The documented field pain: a2a-go's JSON-RPC stream reader
			// ignores the Content-Type and looks only for data: lines, so a
			// 200 application/json error body is zero events and no error.
			assert.NoError(t, d.err)
			assert.Empty(t, d.events)
		} else {
			// Over HTTP+JSON the error carries its HTTP status (500 for
			// -32603), which the SDK checks first and turns into a typed error.
			require.Error(t, d.err)
			assert.ErrorIs(t, d.err, a2a.ErrInternalError, "got %v", d.err)
			assert.Contains(t, d.err.Error(), "streaming failed")
			assert.Empty(t, d.events)
		}
		c, _ := v1Client(t, m.URL, b)
		list, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{})
		require.NoError(t, err)
		assert.Empty(t, list.Tasks, "no task was created")
	})
}

// TestBehaviorStreamHonestOutOfScope drops every event of the first stream
// only: the second stream is the honest one.
func TestBehaviorStreamHonestOutOfScope(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		m := bindingMock(t, b, 212, 5*time.Millisecond,
			testkit.WithBehavior("", "stream-drop-events:rate=1,call=1", "stream-hang:op=subscribe"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		first := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("one")}))
		require.NoError(t, first.err)
		assert.Equal(t, []string{"status:completed"}, kinds(first.events))
		second := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("two")}))
		require.NoError(t, second.err, "stream-hang is scoped to subscribe: this stream ends")
		assert.Equal(t, honestKinds, kinds(second.events))
	})
}
