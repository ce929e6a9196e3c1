package interop

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestV1ClientCompatV03AgentREST: a2a-go v2's v0.3 compat layer over
// HTTP+JSON (a2av0.NewRESTTransportFactory, the v0.3 proto's JSON under
// <interface url>/v1/...) picks the HTTP+JSON interface the v0.3 card
// declares at {agent}/v0.3. Send, stream, get, subscribe and cancel work,
// and errors come back typed: the error body carries the google.rpc.Status
// object the SDK parses.
func TestV1ClientCompatV03AgentREST(t *testing.T) {
	t.Parallel()
	ac, _ := jsAgent()
	ac.Card.Dialect = wire.V03
	s := startMock(t, server.Config{Seed: 53, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
	ctx := testCtx(t)
	hc := httpClient(t)

	card, err := (&agentcard.Resolver{Client: hc, CardParser: a2av0.NewAgentCardParser()}).Resolve(ctx, s.URL())
	require.NoError(t, err)
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithDefaultsDisabled(),
		a2aclient.WithCompatTransport("0.3", a2a.TransportProtocolHTTPJSON, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: hc})))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })

	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("rest, old style")})
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	assert.NotEmpty(t, artifactText(t, task))

	events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream, old style")}))
	_, artifacts := assertOrdered(t, events, a2a.TaskStateCompleted)
	assert.Equal(t, 1, artifacts)

	hl := 1
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &hl})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	assert.Len(t, got.History, 1)

	// GET :subscribe on a finished task: its snapshot, then the end.
	sub := collect(t, c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}))
	require.NotEmpty(t, sub)

	msg := userText("run on")
	msg.Metadata = map[string]any{"skillId": slowSkillID}
	slow := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)

	_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
	_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)

	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			n++
			assert.Equal(t, wire.BindingREST, e.Binding, "%s %s", e.Op, e.Path)
			assert.Equal(t, wire.V03, e.Dialect)
			assert.True(t, strings.Contains(e.Path, "/v0.3/v1/"), e.Path)
		}
	}
	assert.GreaterOrEqual(t, n, 7)
}
