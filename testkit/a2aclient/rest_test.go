package a2aclient_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/a2aclient"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

const restOnlyScenario = `
server: {seed: 5, stepDelay: 5ms}
agents:
  - name: rest
    bindings: [HTTP+JSON]
    card:
      dialect: "1.0"
      capabilities: {streaming: true}
      skills:
        - {id: answer, name: Answer}
        - {id: ask, name: Ask, needsInput: true}
  - name: nostream
    bindings: [HTTP+JSON]
    card: {dialect: "1.0", capabilities: {streaming: true}, skills: [{id: answer, name: Answer}]}
    behaviors: ["card-overclaims:capabilities=streaming"]
`

// TestClientHTTPJSON: on a card that declares HTTP+JSON only, DiscoverClient
// speaks HTTP+JSON, and every operation goes over it: send, stream, get,
// cancel, the errors (a ErrorInfo reason read into the A2A code, a refused
// stream as reconcile.ErrNotSupported), and the reconciling driver over it.
func TestClientHTTPJSON(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithScenarioYAML([]byte(restOnlyScenario)))
	ctx := testCtx(t)
	c, card, err := a2aclient.DiscoverClient(ctx, m.CardURL("rest"))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	assert.Equal(t, wire.BindingREST, c.Binding())
	assert.Equal(t, m.AgentURL("rest")+"/rest", c.URL())

	task, err := c.Send(ctx, userText("hello"), reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, task.Status.State)
	got, err := c.GetTask(ctx, task.ID)
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)

	events, err := c.Stream(ctx, userText("stream please"))
	require.NoError(t, err)
	var states []wire.TaskState
	for ev, err := range events {
		require.NoError(t, err)
		if ev.Status != nil {
			states = append(states, ev.Status.Status.State)
		}
	}
	require.NotEmpty(t, states)
	assert.Equal(t, wire.StateCompleted, states[len(states)-1])

	_, err = c.CancelTask(ctx, task.ID)
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotCancelable, rpcErr.Code)
	assert.Equal(t, "TASK_NOT_CANCELABLE", rpcErr.Reason)
	_, err = c.GetTask(ctx, "no-such-task")
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotFound, rpcErr.Code)
	assert.ErrorIs(t, err, &a2aclient.RPCError{Code: wire.CodeTaskNotFound}, "errors.Is by code, as over JSON-RPC")

	// The driver over HTTP+JSON: input-required answered, completed.
	d := &reconcile.Driver{Agent: c, Card: reconcile.Declare(card, reconcile.Policy{}), PollInterval: 10 * time.Millisecond, WorkingDeadline: 2 * time.Second}
	in := userText("start")
	in.Metadata = map[string]any{"skillId": "ask"}
	res, err := d.Run(ctx, "ask", in, func(*wire.Message) *wire.Message { return userText("the answer") })
	require.NoError(t, err)
	assert.Equal(t, reconcile.OutcomeCompleted, res.Outcome)

	// Every call went over HTTP+JSON with A2A-Version.
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest {
			assert.Equal(t, wire.BindingREST, e.Binding, "entry %d %s", e.Seq, e.Method)
			assert.Equal(t, "1.0", e.Version, "entry %d %s", e.Seq, e.Method)
		}
	}

	// A stream the agent refuses is reconcile.ErrNotSupported.
	ns, _, err := a2aclient.DiscoverClient(ctx, m.CardURL("nostream"))
	require.NoError(t, err)
	t.Cleanup(ns.CloseIdleConnections)
	_, err = ns.Stream(ctx, userText("stream please"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, reconcile.ErrNotSupported), "%v", err)
}
