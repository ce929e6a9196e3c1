package interop

import (
	"strings"
	"testing"
	"time"

	v03 "github.com/a2aproject/a2a-go/a2a"
	v03client "github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// Issue 9, item 1: a blocking continuation answers with the state the task
// reaches after the message, never the input-required it was in. With
// skip-working the continuation's first step is delayed: trpc-a2a-go,
// reactive-agents and the a2a CLI got the old prompt back at once.
func TestIssue9BlockingContinuation(t *testing.T) {
	t.Parallel()
	sw, err := behaviors.Parse("skip-working")
	require.NoError(t, err)
	cfg := func(d wire.Dialect) (server.Config, string) {
		var skill string
		ac := agentWith("asker", 91, func(c *cards.Card) { c.Dialect = d; skill = inputSkill(c) })
		ac.Behaviors = []behaviors.Behavior{sw}
		return server.Config{Seed: 91, StepDelay: 20 * time.Millisecond, Agents: []server.AgentConfig{ac}}, skill
	}
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		sc, skill := cfg(wire.V10)
		s := startMock(t, sc)
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)
		first := userText("book a room")
		first.Metadata = map[string]any{"skillId": skill}
		parked := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
		require.Equal(t, a2a.TaskStateInputRequired, parked.Status.State)
		reply := a2a.NewMessageForTask(a2a.MessageRoleUser, parked, a2a.NewTextPart("room 4"))
		done := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: reply})
		assert.Equal(t, parked.ID, done.ID)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State, "the SDK's blocking send gets the state after its message")
		assert.NotEmpty(t, done.Artifacts)
	})
	t.Run("v0.3", func(t *testing.T) {
		t.Parallel()
		sc, skill := cfg(wire.V03)
		s := startMock(t, sc)
		c, _ := v03Client(t, s.URL())
		ctx := testCtx(t)
		first := v03Text("book a room")
		first.Metadata = map[string]any{"skillId": skill}
		res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: first})
		require.NoError(t, err)
		parked, ok := res.(*v03.Task)
		require.True(t, ok, "%T", res)
		require.Equal(t, v03.TaskStateInputRequired, parked.Status.State)
		reply := v03.NewMessageForTask(v03.MessageRoleUser, parked, v03.TextPart{Text: "room 4"})
		res, err = c.SendMessage(ctx, &v03.MessageSendParams{Message: reply})
		require.NoError(t, err)
		done, ok := res.(*v03.Task)
		require.True(t, ok, "%T", res)
		assert.Equal(t, parked.ID, done.ID)
		assert.Equal(t, v03.TaskStateCompleted, done.Status.State)
	})
}

// Issue 9, item 2: an agent whose card dialect is v0.1 serves a2a-go
// v0.3's message/send, message/stream and tasks/get as v0.3 (they were
// refused with -32602 "id is required").
func TestIssue9V03ClientOfV01Agent(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 92, StepDelay: 2 * time.Millisecond, Agents: []server.AgentConfig{
		agentWith("old", 92, func(c *cards.Card) { c.Dialect = wire.V01 })}})
	ctx := testCtx(t)
	hc := httpClient(t)
	c, err := v03client.NewFromEndpoints(ctx, []v03.AgentInterface{{Transport: v03.TransportProtocolJSONRPC, URL: s.URL() + "/"}},
		v03client.WithDefaultsDisabled(), v03client.WithJSONRPCTransport(hc))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })

	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("send it")})
	require.NoError(t, err, "message/send on a v0.1 agent")
	task, ok := res.(*v03.Task)
	require.True(t, ok, "%T", res)
	assert.Equal(t, v03.TaskStateCompleted, task.Status.State)
	got, err := c.GetTask(ctx, &v03.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, task.ContextID, got.ContextID, "the task reads back in v0.3 (contextId, not sessionId)")
	events := v03Collect(t, c.SendStreamingMessage(ctx, &v03.MessageSendParams{Message: v03Text("stream it")}))
	assertV03Stream(t, events, v03.TaskStateCompleted)
	assertV03(t, s)
}

// Issue 9, item 3: capability before parameters, as a2a-go sees it. On an
// agent that declares neither pushNotifications nor streaming, both SDKs
// get PushNotificationNotSupported / UnsupportedOperation, not
// InvalidParams, whatever the parameters; a send asking for push is
// refused instead of being delivered.
func TestIssue9CapabilityBeforeParameters(t *testing.T) {
	t.Parallel()
	noCaps := func(d wire.Dialect) server.Config {
		return server.Config{Seed: 93, StepDelay: -1, Agents: []server.AgentConfig{agentWith("plain", 93, func(c *cards.Card) {
			c.Dialect = d
			c.Capabilities.PushNotifications, c.Capabilities.Streaming = false, false
		})}}
	}
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		s := startMock(t, noCaps(wire.V10))
		// From the endpoint, as a client that did not read the card: the
		// SDK cannot refuse locally, the agent has to.
		c, err := a2aclient.NewFromEndpoints(testCtx(t), []*a2a.AgentInterface{a2a.NewAgentInterface(endpointOf(s, b), b.protocol)},
			a2aclient.WithDefaultsDisabled(), b.option(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Destroy() })
		ctx := testCtx(t)
		long := a2a.TaskID(strings.Repeat("x", server.MaxIDBytes+1))
		_, err = c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: long, URL: ""})
		assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported, "got %v", err)
		_, err = c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: long, ID: "x"})
		assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported, "got %v", err)
		_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hi"),
			Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: "http://127.0.0.1:1/hook"}}})
		assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported, "got %v", err)
		for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: long}) {
			assert.ErrorIs(t, err, a2a.ErrUnsupportedOperation, "got %v", err)
			break
		}
	})
	t.Run("v0.3", func(t *testing.T) {
		t.Parallel()
		s := startMock(t, noCaps(wire.V03))
		c, _ := v03Client(t, s.URL())
		ctx := testCtx(t)
		_, err := c.SetTaskPushConfig(ctx, &v03.TaskPushConfig{TaskID: ""})
		assert.ErrorIs(t, err, v03.ErrPushNotificationNotSupported, "got %v", err)
		_, err = c.GetTaskPushConfig(ctx, &v03.GetTaskPushConfigParams{TaskID: ""})
		assert.ErrorIs(t, err, v03.ErrPushNotificationNotSupported, "got %v", err)
		_, err = c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("hi"),
			Config: &v03.MessageSendConfig{PushConfig: &v03.PushConfig{URL: "http://127.0.0.1:1/hook"}}})
		assert.ErrorIs(t, err, v03.ErrPushNotificationNotSupported, "got %v", err)
	})
}

// endpointOf is the URL the card declares for binding b.
func endpointOf(s *server.Server, b v1Binding) string {
	if b.mock == wire.BindingREST {
		return s.URL() + "/rest"
	}
	return s.URL() + "/"
}

// Issue 9, item 8: a2a-go v2 forced onto HTTP+JSON at the agent's base URL
// without reading the card (what `a2a send URL --transport rest` does)
// reaches the REST routes there.
func TestIssue9RESTAtAgentRoot(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 94, StepDelay: 2 * time.Millisecond, Agents: []server.AgentConfig{
		agentWith("root", 94, nil), agentWith("second", 94, nil)}})
	for _, base := range []string{s.URL(), s.URL() + "/agents/second"} {
		ctx := testCtx(t)
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{a2a.NewAgentInterface(base, a2a.TransportProtocolHTTPJSON)},
			a2aclient.WithDefaultsDisabled(), a2aclient.WithRESTTransport(httpClient(t)))
		require.NoError(t, err)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("hi")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, base)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err, base)
		assert.Equal(t, task.ID, got.ID)
		events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream")}))
		require.NotEmpty(t, events, base)
		assert.Equal(t, a2a.TaskStateCompleted, stateOf(events[len(events)-1]))
		list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
		require.NoError(t, err, base)
		assert.Len(t, list.Tasks, 2)
		require.NoError(t, c.Destroy())
	}
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			assert.Equal(t, wire.BindingREST, e.Binding, "request %d (%s)", e.Request, e.Method)
		}
	}
}
