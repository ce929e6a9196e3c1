package interop

import (
	"testing"
	"time"

	v03 "github.com/a2aproject/a2a-go/a2a"
	v03client "github.com/a2aproject/a2a-go/a2aclient"
	v03card "github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// v03Agent is an agent whose card is rendered in the v0.3 shape
// (url/preferredTransport), with push notifications declared so the
// pushNotificationConfig methods can be exercised too.
func v03Agent(name string, seed uint64) server.AgentConfig {
	return agentWith(name, seed, func(c *cards.Card) {
		c.Dialect = wire.V03
		c.Capabilities.PushNotifications = true
	})
}

// v03Client discovers a v0.3 agent from its card and builds an a2a-go v0.3
// JSON-RPC client for it.
func v03Client(t *testing.T, base string) (*v03client.Client, *v03.AgentCard) {
	t.Helper()
	ctx := testCtx(t)
	hc := httpClient(t)
	card, err := v03card.NewResolver(hc).Resolve(ctx, base)
	require.NoError(t, err, "resolve the card at %s", base)
	c, err := v03client.NewFromCard(ctx, card, v03client.WithDefaultsDisabled(), v03client.WithJSONRPCTransport(hc))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c, card
}

// assertV03 checks from the journal that every A2A request was read as v0.3
// JSON-RPC, i.e. that the SDK used the slash-named methods.
func assertV03(t *testing.T, s *server.Server) {
	t.Helper()
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind != server.EntryRequest || e.Op == "" {
			continue
		}
		n++
		assert.Equal(t, wire.V03, e.Dialect, "request %d (%s %s)", e.Request, e.Method, e.Op)
		assert.Equal(t, wire.BindingJSONRPC, e.Binding)
	}
	assert.Positive(t, n)
}

func v03Text(text string) *v03.Message {
	return v03.NewMessage(v03.MessageRoleUser, v03.TextPart{Text: text})
}

func v03State(ev v03.Event) v03.TaskState {
	switch v := ev.(type) {
	case *v03.Task:
		return v.Status.State
	case *v03.TaskStatusUpdateEvent:
		return v.Status.State
	}
	return ""
}

// assertV03Stream checks a v0.3 stream: one task, exactly one status event
// flagged final and it is the last event, whose state is want.
func assertV03Stream(t *testing.T, events []v03.Event, want v03.TaskState) (states []v03.TaskState, artifacts int) {
	t.Helper()
	require.NotEmpty(t, events)
	taskID := events[0].TaskInfo().TaskID
	finals := 0
	for i, ev := range events {
		assert.Equal(t, taskID, ev.TaskInfo().TaskID, "event %d (%T) is of another task", i, ev)
		switch v := ev.(type) {
		case *v03.TaskStatusUpdateEvent:
			if v.Final {
				finals++
				assert.Equal(t, len(events)-1, i, "final:true on event %d of %d", i, len(events))
			}
		case *v03.TaskArtifactUpdateEvent:
			artifacts++
		}
		if st := v03State(ev); st != "" {
			states = append(states, st)
		}
	}
	last, ok := events[len(events)-1].(*v03.TaskStatusUpdateEvent)
	require.True(t, ok, "last event is %T, want a status update", events[len(events)-1])
	assert.True(t, last.Final, "the last status event carries final:true")
	assert.Equal(t, 1, finals)
	assert.Equal(t, want, last.Status.State)
	return states, artifacts
}

func v03Collect(t *testing.T, seq func(func(v03.Event, error) bool)) []v03.Event {
	t.Helper()
	var events []v03.Event
	for ev, err := range seq {
		require.NoError(t, err, "stream error after %d events", len(events))
		events = append(events, ev)
	}
	return events
}

func TestV03SendGetAndStream(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 31, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{v03Agent("legacy", 31)}})
	c, card := v03Client(t, s.URL())
	assert.Equal(t, v03.TransportProtocolJSONRPC, card.PreferredTransport)
	assert.True(t, card.Capabilities.Streaming)
	ctx := testCtx(t)

	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("send it")})
	require.NoError(t, err)
	task, ok := res.(*v03.Task)
	require.True(t, ok, "message/send returned %T", res)
	assert.Equal(t, v03.TaskStateCompleted, task.Status.State)
	require.NotEmpty(t, task.Artifacts)
	require.NotEmpty(t, task.Artifacts[0].Parts)
	text, ok := task.Artifacts[0].Parts[0].(v03.TextPart)
	require.True(t, ok, "artifact part is %T", task.Artifacts[0].Parts[0])
	assert.NotEmpty(t, text.Text)

	got, err := c.GetTask(ctx, &v03.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)
	assert.Equal(t, v03.TaskStateCompleted, got.Status.State)

	_, err = c.GetTask(ctx, &v03.TaskQueryParams{ID: "no-such-task"})
	assert.ErrorIs(t, err, v03.ErrTaskNotFound, "got %v", err)

	events := v03Collect(t, c.SendStreamingMessage(ctx, &v03.MessageSendParams{Message: v03Text("stream it")}))
	states, artifacts := assertV03Stream(t, events, v03.TaskStateCompleted)
	assert.Equal(t, v03.TaskStateSubmitted, states[0])
	assert.Contains(t, states, v03.TaskStateWorking)
	assert.Equal(t, 1, artifacts)
	assertV03(t, s)
}

func TestV03CancelAndResubscribe(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 32, StepDelay: 150 * time.Millisecond, Agents: []server.AgentConfig{v03Agent("legacy", 32)}})
	c, _ := v03Client(t, s.URL())
	ctx := testCtx(t)
	nonBlocking := false

	// Re-attach to a running task and follow it to the end.
	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("run on"), Config: &v03.MessageSendConfig{Blocking: &nonBlocking}})
	require.NoError(t, err)
	running, ok := res.(*v03.Task)
	require.True(t, ok, "message/send returned %T", res)
	require.False(t, running.Status.State.Terminal(), "blocking:false answers at once, got %s", running.Status.State)

	events := v03Collect(t, c.ResubscribeToTask(ctx, &v03.TaskIDParams{ID: running.ID}))
	assertV03Stream(t, events, v03.TaskStateCompleted)

	// Cancel another one while it is still running.
	res, err = c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("stop me"), Config: &v03.MessageSendConfig{Blocking: &nonBlocking}})
	require.NoError(t, err)
	victim := res.(*v03.Task)
	canceled, err := c.CancelTask(ctx, &v03.TaskIDParams{ID: victim.ID})
	require.NoError(t, err)
	assert.Equal(t, v03.TaskStateCanceled, canceled.Status.State)

	_, err = c.CancelTask(ctx, &v03.TaskIDParams{ID: victim.ID})
	assert.ErrorIs(t, err, v03.ErrTaskNotCancelable, "got %v", err)
	_, err = c.CancelTask(ctx, &v03.TaskIDParams{ID: "no-such-task"})
	assert.ErrorIs(t, err, v03.ErrTaskNotFound, "got %v", err)
	assertV03(t, s)
}

func TestV03InputRequired(t *testing.T) {
	t.Parallel()
	ac := v03Agent("legacy", 33)
	skill := inputSkill(ac.Card)
	s := startMock(t, server.Config{Seed: 33, StepDelay: -1, Agents: []server.AgentConfig{ac}})
	c, _ := v03Client(t, s.URL())
	ctx := testCtx(t)

	first := v03Text("please do it")
	first.Metadata = map[string]any{"skillId": skill}
	events := v03Collect(t, c.SendStreamingMessage(ctx, &v03.MessageSendParams{Message: first}))
	assertV03Stream(t, events, v03.TaskStateInputRequired)
	parked := events[len(events)-1].TaskInfo()

	reply := v03.NewMessageForTask(v03.MessageRoleUser, parked, v03.TextPart{Text: "the blue one"})
	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: reply})
	require.NoError(t, err)
	done, ok := res.(*v03.Task)
	require.True(t, ok, "message/send returned %T", res)
	assert.Equal(t, parked.TaskID, done.ID)
	assert.Equal(t, v03.TaskStateCompleted, done.Status.State)
	assertV03(t, s)
}

func TestV03PushConfigs(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 34, StepDelay: -1, Agents: []server.AgentConfig{v03Agent("legacy", 34)}})
	c, card := v03Client(t, s.URL())
	require.True(t, card.Capabilities.PushNotifications)
	ctx := testCtx(t)

	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("notify me")})
	require.NoError(t, err)
	task := res.(*v03.Task)

	set, err := c.SetTaskPushConfig(ctx, &v03.TaskPushConfig{TaskID: task.ID, Config: v03.PushConfig{ID: "hook-1", URL: "http://127.0.0.1:9/hook", Token: "tok"}})
	require.NoError(t, err)
	assert.Equal(t, task.ID, set.TaskID)
	assert.Equal(t, "hook-1", set.Config.ID)

	got, err := c.GetTaskPushConfig(ctx, &v03.GetTaskPushConfigParams{TaskID: task.ID, ConfigID: "hook-1"})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/hook", got.Config.URL)

	list, err := c.ListTaskPushConfig(ctx, &v03.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 1)

	require.NoError(t, c.DeleteTaskPushConfig(ctx, &v03.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: "hook-1"}))
	list, err = c.ListTaskPushConfig(ctx, &v03.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	assert.Empty(t, list)
	assertV03(t, s)
}
