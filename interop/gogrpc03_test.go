package interop

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// grpc03Client resolves the v0.3 card at url with a2a-go v2's v0.3 card
// parser and makes a client over its GRPC interface with a2a-go v2's v0.3
// gRPC transport (a2agrpc/v0, built on a2a-go v0.3.15's generated
// a2a.v1.A2AService client), the only transport it is given.
func grpc03Client(t *testing.T, url string) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	ctx := testCtx(t)
	card, err := (&agentcard.Resolver{Client: httpClient(t), CardParser: a2av0.NewAgentCardParser()}).Resolve(ctx, url)
	require.NoError(t, err)
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithDefaultsDisabled(),
		a2agrpcv0.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c, card
}

// assertGRPC03Journal checks that every request the mock served was a v0.3
// call over gRPC, and returns how many there were.
func assertGRPC03Journal(t *testing.T, s *server.Server) int {
	t.Helper()
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			n++
			assert.Equal(t, wire.BindingGRPC, e.Binding, "%s %s", e.Op, e.Method)
			assert.Equal(t, wire.V03, e.Dialect, "%s %s", e.Op, e.Method)
		}
	}
	return n
}

// TestGRPC03Lifecycle: a2a-go v2's v0.3 gRPC client, from card discovery
// (the v0.3 card declares GRPC at host:port in additionalInterfaces)
// through the honest lifecycle: send, stream, get with historyLength,
// subscribe, cancel, the four push-config calls, and typed errors from
// the google.rpc.Status (code and ErrorInfo).
func TestGRPC03Lifecycle(t *testing.T) {
	t.Parallel()
	ac, _ := jsAgent()
	ac.Card.Dialect = wire.V03
	ac.Card.Capabilities.PushNotifications = true
	s := startMock(t, server.Config{Seed: 57, StepDelay: 5 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{ac}})
	hook := testkit.Webhook(t)
	c, card := grpc03Client(t, s.URL())
	i := slices.IndexFunc(card.SupportedInterfaces, func(in *a2a.AgentInterface) bool { return in.ProtocolBinding == a2a.TransportProtocolGRPC })
	require.GreaterOrEqual(t, i, 0, "the v0.3 card declares a GRPC interface")
	host, _, err := net.SplitHostPort(card.SupportedInterfaces[i].URL)
	require.NoError(t, err, "the GRPC interface is host:port, which grpc-go dials")
	assert.Equal(t, "127.0.0.1", host)
	assert.Equal(t, strings.TrimPrefix(s.URL(), "http://"), card.SupportedInterfaces[i].URL)
	assert.Equal(t, a2a.ProtocolVersion("0.3.0"), card.SupportedInterfaces[i].ProtocolVersion)
	ctx := testCtx(t)

	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("grpc, old style")})
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	assert.NotNil(t, task.Status.Timestamp)
	assert.NotEmpty(t, artifactText(t, task))

	events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream, old style")}))
	states, artifacts := assertOrdered(t, events, a2a.TaskStateCompleted)
	assert.Equal(t, a2a.TaskStateSubmitted, states[0])
	assert.Contains(t, states, a2a.TaskStateWorking)
	assert.Equal(t, 1, artifacts)

	hl := 1
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &hl})
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)
	assert.Len(t, got.History, 1)

	// TaskSubscription on a finished task: its snapshot, then the end.
	sub := collect(t, c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}))
	require.NotEmpty(t, sub)
	assert.Equal(t, a2a.TaskStateCompleted, stateOf(sub[len(sub)-1]))

	msg := userText("run on")
	msg.Metadata = map[string]any{"skillId": slowSkillID}
	slow := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	assert.False(t, slow.Status.State.Terminal(), "returnImmediately (blocking=false) answers at once: %s", slow.Status.State)
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)

	pc, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "hook", URL: hook.URL, Token: "tok-57"})
	require.NoError(t, err)
	assert.Equal(t, "hook", pc.ID)
	assert.Equal(t, hook.URL, pc.URL)
	gotPC, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "hook"})
	require.NoError(t, err)
	assert.Equal(t, "tok-57", gotPC.Token)
	list, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "hook", list[0].ID)
	require.NoError(t, c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "hook"}))
	list, err = c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	require.NoError(t, err)
	assert.Empty(t, list)

	_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
	_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)

	assert.GreaterOrEqual(t, assertGRPC03Journal(t, s), 13)
}

// TestGRPC03StreamFaults: transport behaviors take the same gRPC meanings
// on v0.3's service as on v1.0's, and a2a-go v2's v0.3 gRPC client sees
// them: a stream cut mid-message after its first event (no grpc-status),
// and a call refused UNAVAILABLE (http-error 503).
func TestGRPC03StreamFaults(t *testing.T) {
	t.Parallel()
	mock := func(t *testing.T, spec string) *server.Server {
		b, err := behaviors.Parse(spec)
		require.NoError(t, err)
		ac, _ := jsAgent()
		ac.Card.Dialect = wire.V03
		ac.Behaviors = []behaviors.Behavior{b}
		return startMock(t, server.Config{Seed: 58, StepDelay: 5 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{ac}})
	}
	t.Run("stream-eof-mid-frame", func(t *testing.T) {
		t.Parallel()
		s := mock(t, "stream-eof-mid-frame:after=1")
		c, _ := grpc03Client(t, s.URL())
		var events []a2a.Event
		var streamErr error
		for ev, err := range c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("cut me")}) {
			if err != nil {
				streamErr = err
				break
			}
			events = append(events, ev)
		}
		require.Len(t, events, 1, "the first event is whole")
		_, ok := events[0].(*a2a.Task)
		assert.True(t, ok, "the first event is the task: %T", events[0])
		// grpc-go reports the cut message as INTERNAL "unexpected EOF",
		// which the SDK types as an internal error.
		require.Error(t, streamErr, "a cut stream is no clean end")
		assert.ErrorIs(t, streamErr, a2a.ErrInternalError)
		assert.Contains(t, streamErr.Error(), "unexpected EOF")
		assertGRPC03Journal(t, s)
	})
	t.Run("http-error 503", func(t *testing.T) {
		t.Parallel()
		s := mock(t, "http-error:status=503")
		c, _ := grpc03Client(t, s.URL())
		_, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("refused")})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Unavailable")
		assertGRPC03Journal(t, s)
	})
}
