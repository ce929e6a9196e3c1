package interop

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// v1Binding is one v1.0 transport the SDK can be forced onto.
type v1Binding struct {
	name     string
	protocol a2a.TransportProtocol
	mock     wire.Binding
	option   func(*testing.T) a2aclient.FactoryOption
}

// v1Bindings are the two v1.0 bindings every v1.0 test runs over. Each builds
// a factory that knows only that one transport, so the client cannot fall
// back to the other interface the card declares.
var v1Bindings = []v1Binding{
	{
		name: "JSONRPC", protocol: a2a.TransportProtocolJSONRPC, mock: wire.BindingJSONRPC,
		option: func(t *testing.T) a2aclient.FactoryOption { return a2aclient.WithJSONRPCTransport(httpClient(t)) },
	},
	{
		name: "REST", protocol: a2a.TransportProtocolHTTPJSON, mock: wire.BindingREST,
		option: func(t *testing.T) a2aclient.FactoryOption { return a2aclient.WithRESTTransport(httpClient(t)) },
	},
}

// allBindings are the three v1.0 bindings: the honest lifecycle and the
// protocol-level faults run over each of them. gRPC is opt-in on the mock
// (server.Config.GRPC, testkit.WithGRPC): startBindingMock and bindingMock
// turn it on for the gRPC binding only, so the HTTP bindings keep being
// tested against the default configuration.
var allBindings = []v1Binding{v1Bindings[0], v1Bindings[1], grpcBinding}

// forEachV1Binding runs fn as a parallel subtest per HTTP binding (JSON-RPC
// and HTTP+JSON): the tests of HTTP-only matters (SSE framing, HTTP status
// codes, headers, paths) use it.
func forEachV1Binding(t *testing.T, fn func(t *testing.T, b v1Binding)) {
	t.Helper()
	eachBinding(t, v1Bindings, fn)
}

// forEachBinding runs fn as a parallel subtest per v1.0 binding, gRPC
// included.
func forEachBinding(t *testing.T, fn func(t *testing.T, b v1Binding)) {
	t.Helper()
	eachBinding(t, allBindings, fn)
}

func eachBinding(t *testing.T, bs []v1Binding, fn func(t *testing.T, b v1Binding)) {
	t.Helper()
	for _, b := range bs {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// isGRPC reports whether b is the gRPC binding.
func (b v1Binding) isGRPC() bool { return b.mock == server.BindingGRPC }

// startBindingMock is startMock with the gRPC binding on when b is gRPC.
func startBindingMock(t *testing.T, b v1Binding, cfg server.Config) *server.Server {
	t.Helper()
	cfg.GRPC = b.isGRPC()
	return startMock(t, cfg)
}

// listRequest adapts req to binding b: a2a-go v2's gRPC transport always
// sends page_size (0 when unset), which the mock refuses as on every
// binding (1..100), so over gRPC a request without a size asks for the
// spec's default, 50. The HTTP bindings send req as it is.
func (b v1Binding) listRequest(req *a2a.ListTasksRequest) *a2a.ListTasksRequest {
	if b.isGRPC() && req.PageSize == 0 {
		req.PageSize = 50
	}
	return req
}

// interfaces is how many interfaces the v1.0 card declares to a client of
// b: JSON-RPC and HTTP+JSON, and GRPC when the mock serves it.
func (b v1Binding) interfaces() int {
	if b.isGRPC() {
		return 3
	}
	return 2
}

// v1Client discovers the agent served at base from its card, as a real
// consumer would, and builds an a2a-go v2 client restricted to binding b.
func v1Client(t *testing.T, base string, b v1Binding) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	ctx := testCtx(t)
	card, err := agentcard.NewResolver(httpClient(t)).Resolve(ctx, base)
	require.NoError(t, err, "resolve the card at %s", base)
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithDefaultsDisabled(), b.option(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c, card
}

// assertBinding checks from the mock's journal that every A2A request the
// test made arrived over the binding it forced, in the v1.0 dialect.
func assertBinding(t *testing.T, s *server.Server, b v1Binding) {
	t.Helper()
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind != server.EntryRequest || e.Op == "" {
			continue
		}
		n++
		assert.Equal(t, b.mock, e.Binding, "request %d (%s) came over the wrong binding", e.Request, e.Op)
		assert.Equal(t, wire.V10, e.Dialect, "request %d (%s) was read in the wrong dialect", e.Request, e.Op)
	}
	assert.Positive(t, n, "the journal records no A2A request")
}

func userText(text string) *a2a.Message {
	return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
}

// artifactText returns the text of the task's first artifact's text parts.
func artifactText(t *testing.T, task *a2a.Task) string {
	t.Helper()
	require.NotEmpty(t, task.Artifacts, "task %s has no artifact", task.ID)
	out := ""
	for _, p := range task.Artifacts[0].Parts {
		out += p.Text()
	}
	return out
}

// sendTask sends one message and requires a task back.
func sendTask(ctx context.Context, t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(ctx, req)
	require.NoError(t, err)
	task, ok := res.(*a2a.Task)
	require.True(t, ok, "SendMessage returned %T, want a task", res)
	return task
}

// collect drains an event stream, failing the test on a stream error.
func collect(t *testing.T, seq func(func(a2a.Event, error) bool)) []a2a.Event {
	t.Helper()
	var events []a2a.Event
	for ev, err := range seq {
		require.NoError(t, err, "stream error after %d events", len(events))
		events = append(events, ev)
	}
	return events
}

// stateOf returns the task state an event carries, or "" for artifacts.
func stateOf(ev a2a.Event) a2a.TaskState {
	switch v := ev.(type) {
	case *a2a.Task:
		return v.Status.State
	case *a2a.TaskStatusUpdateEvent:
		return v.Status.State
	}
	return ""
}

// lifecycleRank orders the honest lifecycle, so a stream that goes backwards
// is caught.
var lifecycleRank = map[a2a.TaskState]int{
	a2a.TaskStateSubmitted: 0, a2a.TaskStateWorking: 1,
	a2a.TaskStateInputRequired: 2, a2a.TaskStateCompleted: 3, a2a.TaskStateCanceled: 3,
}

// assertOrdered checks a stream of events: all of one task, states never
// going back, nothing after the last state, which must be want.
func assertOrdered(t *testing.T, events []a2a.Event, want a2a.TaskState) (states []a2a.TaskState, artifacts int) {
	t.Helper()
	require.NotEmpty(t, events)
	taskID := events[0].TaskInfo().TaskID
	require.NotEmpty(t, taskID)
	for i, ev := range events {
		assert.Equal(t, taskID, ev.TaskInfo().TaskID, "event %d (%T) is of another task", i, ev)
		if st := stateOf(ev); st != "" {
			if len(states) > 0 {
				assert.GreaterOrEqual(t, lifecycleRank[st], lifecycleRank[states[len(states)-1]], "state %s after %s", st, states[len(states)-1])
			}
			states = append(states, st)
		} else if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			artifacts++
		}
	}
	last := events[len(events)-1]
	assert.Equal(t, want, stateOf(last), "last event is %T in state %q", last, stateOf(last))
	return states, artifacts
}

func TestV1SendMessageCompletesWithArtifact(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 11, StepDelay: -1})
		c, card := v1Client(t, s.URL(), b)
		require.Len(t, card.SupportedInterfaces, b.interfaces(), "a v1.0 card declares JSON-RPC and HTTP+JSON (and GRPC when served)")
		ctx := testCtx(t)

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("summarise the incident")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assert.NotEmpty(t, task.ContextID)
		assert.NotNil(t, task.Status.Timestamp, "every state change is timestamped")
		assert.NotEmpty(t, artifactText(t, task))
		assertBinding(t, s, b)
	})
}

func TestV1StreamingEventsInOrder(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 12, StepDelay: 5 * time.Millisecond})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream it")}))
		states, artifacts := assertOrdered(t, events, a2a.TaskStateCompleted)
		assert.Equal(t, a2a.TaskStateSubmitted, states[0])
		assert.Contains(t, states, a2a.TaskStateWorking)
		assert.Equal(t, 1, artifacts, "the honest lifecycle emits one artifact")
		// The artifact comes before the terminal state.
		artIdx := slices.IndexFunc(events, func(ev a2a.Event) bool { _, ok := ev.(*a2a.TaskArtifactUpdateEvent); return ok })
		assert.Less(t, artIdx, len(events)-1)

		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: events[0].TaskInfo().TaskID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
		assertBinding(t, s, b)
	})
}

func TestV1GetTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 13, StepDelay: -1})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		sent := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("first")})
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: sent.ID})
		require.NoError(t, err)
		assert.Equal(t, sent.ID, got.ID)
		assert.Equal(t, sent.ContextID, got.ContextID)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
		assert.Equal(t, artifactText(t, sent), artifactText(t, got))
		require.NotEmpty(t, got.History, "the user's message is in the history")
		assert.Equal(t, "first", got.History[0].Parts[0].Text())

		one := 1
		short, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: sent.ID, HistoryLength: &one})
		require.NoError(t, err)
		assert.LessOrEqual(t, len(short.History), 1, "historyLength is honoured")

		_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		assertBinding(t, s, b)
	})
}

func TestV1ListTasksPaginates(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 14, StepDelay: -1})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		var sent []a2a.TaskID
		for i := range 5 {
			sent = append(sent, sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText(fmt.Sprint("task ", i))}).ID)
		}

		var seen []a2a.TaskID
		token := ""
		for page := 0; ; page++ {
			require.Less(t, page, 5, "pagination does not end")
			res, err := c.ListTasks(ctx, &a2a.ListTasksRequest{PageSize: 2, PageToken: token})
			require.NoError(t, err)
			assert.Equal(t, 5, res.TotalSize)
			assert.LessOrEqual(t, len(res.Tasks), 2)
			for _, task := range res.Tasks {
				seen = append(seen, task.ID)
			}
			token = res.NextPageToken
			if token == "" {
				break
			}
		}
		assert.ElementsMatch(t, sent, seen, "every task once, over all pages")

		res, err := c.ListTasks(ctx, b.listRequest(&a2a.ListTasksRequest{Status: a2a.TaskStateWorking}))
		require.NoError(t, err)
		assert.Empty(t, res.Tasks, "the status filter applies")
		assertBinding(t, s, b)
	})
}

func TestV1CancelLongRunningTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 15, StepDelay: time.Hour})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{
			Message: userText("take your time"),
			Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
		})
		assert.False(t, task.Status.State.Terminal(), "returnImmediately answers with the running task, got %s", task.Status.State)

		canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, task.ID, canceled.ID)
		assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)

		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCanceled, got.Status.State)

		_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable, "got %v", err)

		_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "no-such-task"})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		assertBinding(t, s, b)
	})
}

func TestV1SubscribeToRunningTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 16, StepDelay: 150 * time.Millisecond})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{
			Message: userText("run on"),
			Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
		})
		require.False(t, task.Status.State.Terminal())

		events := collect(t, c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}))
		require.NotEmpty(t, events)
		snap, ok := events[0].(*a2a.Task)
		require.True(t, ok, "a re-attached stream starts with the task snapshot, got %T", events[0])
		assert.Equal(t, task.ID, snap.ID)
		assert.False(t, snap.Status.State.Terminal(), "the task was still running at subscribe time")
		_, artifacts := assertOrdered(t, events, a2a.TaskStateCompleted)
		assert.Equal(t, 1, artifacts)

		// Subscribing to an unknown task is refused with a typed error.
		var subErr error
		for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "no-such-task"}) {
			if err != nil {
				subErr = err
				break
			}
		}
		require.Error(t, subErr)
		assert.ErrorIs(t, subErr, a2a.ErrTaskNotFound, "got %v", subErr)
		assertBinding(t, s, b)
	})
}

func TestV1InputRequiredContinuesSameTask(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		var skill string
		ac := agentWith("asker", 17, func(c *cards.Card) {
			for i := range c.Skills {
				c.Skills[i].NeedsInput = false
			}
			c.Skills[0].NeedsInput = true
			skill = c.Skills[0].ID
		})
		s := startBindingMock(t, b, server.Config{Seed: 17, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		first := userText("please do it")
		first.Metadata = map[string]any{"skillId": skill}
		events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: first}))
		assertOrdered(t, events, a2a.TaskStateInputRequired)
		parked := events[len(events)-1].TaskInfo()

		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: parked.TaskID})
		require.NoError(t, err)
		require.Equal(t, a2a.TaskStateInputRequired, got.Status.State)
		require.NotNil(t, got.Status.Message, "input-required carries the agent's question")
		assert.NotEmpty(t, got.Status.Message.Parts)

		reply := a2a.NewMessageForTask(a2a.MessageRoleUser, parked, a2a.NewTextPart("the blue one"))
		done := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: reply})
		assert.Equal(t, parked.TaskID, done.ID, "the follow-up continues the same task")
		assert.Equal(t, parked.ContextID, done.ContextID)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		assert.NotEmpty(t, artifactText(t, done))

		// A terminal task accepts no more messages.
		again := a2a.NewMessageForTask(a2a.MessageRoleUser, parked, a2a.NewTextPart("one more"))
		_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: again})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrUnsupportedOperation, "got %v", err)

		// A message naming an unknown task is refused as TaskNotFound.
		stray := userText("hello?")
		stray.TaskID = "no-such-task"
		_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: stray})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		assertBinding(t, s, b)
	})
}

func TestV1PushConfigs(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		ac := agentWith("pusher", 18, func(c *cards.Card) { c.Capabilities.PushNotifications = true })
		s := startBindingMock(t, b, server.Config{Seed: 18, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		c, card := v1Client(t, s.URL(), b)
		require.True(t, card.Capabilities.PushNotifications)
		ctx := testCtx(t)

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("notify me")})
		// The mock does not deliver pushes (a later issue); the URL is a
		// closed loopback port all the same, so nothing leaves the machine.
		created, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{
			TaskID: task.ID, ID: "hook-1", URL: "http://127.0.0.1:9/hook", Token: "tok-1",
		})
		require.NoError(t, err)
		assert.Equal(t, task.ID, created.TaskID)
		assert.Equal(t, "hook-1", created.ID)
		assert.Equal(t, "http://127.0.0.1:9/hook", created.URL)
		assert.Equal(t, "tok-1", created.Token)

		_, err = c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "hook-2", URL: "http://127.0.0.1:9/other"})
		require.NoError(t, err)

		got, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "hook-1"})
		require.NoError(t, err)
		assert.Equal(t, created.URL, got.URL)

		list, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
		require.NoError(t, err)
		ids := []string{}
		for _, pc := range list {
			ids = append(ids, pc.ID)
		}
		assert.ElementsMatch(t, []string{"hook-1", "hook-2"}, ids)

		// pageSize is honoured, configs in the order they were set. The
		// SDK's Client returns the configs alone (a slice, no
		// nextPageToken), so a caller that sets pageSize cannot reach the
		// configs past its first page through it; its HTTP+JSON transport
		// sends no pageSize at all (every config comes back).
		page, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID, PageSize: 1})
		require.NoError(t, err)
		if b.mock == wire.BindingREST {
			require.Len(t, page, 2, "a2a-go v2's REST transport drops pageSize")
		} else {
			require.Len(t, page, 1)
		}
		assert.Equal(t, "hook-1", page[0].ID)

		require.NoError(t, c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "hook-1"}))
		list, err = c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "hook-2", list[0].ID)

		_, err = c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "hook-1"})
		require.Error(t, err, "a deleted config is gone")

		_, err = c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: "no-such-task", URL: "http://127.0.0.1:9/hook"})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "got %v", err)
		assertBinding(t, s, b)
	})
}

func TestV1PushConfigsUnsupported(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		s := startBindingMock(t, b, server.Config{Seed: 19, StepDelay: -1})
		c, card := v1Client(t, s.URL(), b)
		require.False(t, card.Capabilities.PushNotifications)
		ctx := testCtx(t)

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("no push here")})
		_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"})
		require.Error(t, err)
		assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported, "got %v", err)
	})
}

// TestV1ClientPreferenceFromCard lets the SDK choose between the three
// interfaces of one card by its own preference list, the way an application
// with both transports enabled would.
func TestV1ClientPreferenceFromCard(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		// The mock serves all three bindings and the client knows all three.
		s := startMock(t, server.Config{Seed: 20, StepDelay: -1, GRPC: true})
		ctx := testCtx(t)
		hc := httpClient(t)
		card, err := agentcard.NewResolver(hc).Resolve(ctx, s.URL())
		require.NoError(t, err)
		c, err := a2aclient.NewFromCard(ctx, card,
			a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc), grpcBinding.option(t),
			a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{b.protocol}}))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Destroy() })

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("either way")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assertBinding(t, s, b)
	})
}

// TestV1NamedAgentDiscovery discovers a second agent of a multi-agent server
// from its own base path: its card's interfaces must lead back to it. Not
// over gRPC: a gRPC method's path is /lf.a2a.v1.A2AService/{Method} with no
// room for an agent's base path, so the mock declares GRPC on the root
// agent's card only.
func TestV1NamedAgentDiscovery(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		s := startMock(t, server.Config{Seed: 21, StepDelay: -1, Agents: []server.AgentConfig{{Name: "first"}, {Name: "second"}}})
		c, card := v1Client(t, s.URL()+s.AgentPath("second"), b)
		assert.Equal(t, "second", card.Name)
		task := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("to the second")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		for _, e := range s.Journal().Entries() {
			if e.Kind == server.EntryRequest && e.Op != "" {
				assert.Equal(t, "second", e.Agent)
			}
		}
		assertBinding(t, s, b)
	})
}

func TestV1ExtendedAgentCard(t *testing.T) {
	t.Parallel()
	forEachBinding(t, func(t *testing.T, b v1Binding) {
		ac := agentWith("vip", 22, func(c *cards.Card) { c.Capabilities.ExtendedAgentCard = true })
		ext := cards.Generate("vip", 22)
		ext.Description = "The extended card, for authenticated callers."
		ac.ExtendedCard = ext
		s := startBindingMock(t, b, server.Config{Seed: 22, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		c, card := v1Client(t, s.URL(), b)
		require.True(t, card.Capabilities.ExtendedAgentCard)

		got, err := c.GetExtendedAgentCard(testCtx(t), &a2a.GetExtendedAgentCardRequest{})
		require.NoError(t, err)
		assert.Equal(t, "vip", got.Name)
		assert.Equal(t, ext.Description, got.Description)
		assertBinding(t, s, b)
	})
}
