package a2aclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/a2aclient"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

func userText(s string) *wire.Message {
	return &wire.Message{MessageID: "m-" + s, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(s)}}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestClientLifecycleEveryDialect(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			mock := testkit.Start(t, testkit.WithAgents("w"), testkit.WithDialect(d), testkit.WithStepDelay(-1))
			ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
			c, card, err := a2aclient.DiscoverClient(testCtx(t), mock.CardURL("w"), a2aclient.WithLedger(ledger))
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			assert.Equal(t, d, c.Dialect())
			assert.Equal(t, d, card.Dialect)
			ctx := testCtx(t)

			// Blocking send of a skill that needs no input runs to the end.
			task, err := c.Send(ctx, userText("hello"), reconcile.SendOptions{})
			require.NoError(t, err)
			assert.Equal(t, wire.StateCompleted, task.Status.State)
			assert.NotEmpty(t, task.ContextID)
			got, err := c.GetTask(ctx, task.ID)
			require.NoError(t, err)
			assert.Equal(t, task.ID, got.ID)
			assert.Equal(t, wire.StateCompleted, got.Status.State)

			// A stream yields the task first, then every state to the end.
			seq, err := c.Stream(ctx, userText("stream"))
			require.NoError(t, err)
			var states []wire.TaskState
			var streamed string
			for ev, err := range seq {
				require.NoError(t, err)
				if s := ev.State(); s != wire.StateUnspecified {
					states = append(states, s)
				}
				if streamed == "" {
					require.NotNil(t, ev.Task, "the first event is the task")
					streamed = ev.Task.ID
				}
			}
			assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, states)

			// The ledger has every state with the channel it came from.
			obs, ok := ledger.Task(streamed)
			require.True(t, ok)
			assert.Equal(t, states, obs.States)
			for _, tr := range obs.Transitions {
				assert.Equal(t, reconcile.SourceStream, tr.Source)
			}
			sent, ok := ledger.Task(task.ID)
			require.True(t, ok)
			assert.Equal(t, reconcile.SourceSendResponse, sent.Raw[0].Source)
			assert.Equal(t, reconcile.SourcePoll, sent.Raw[1].Source)
			assert.Empty(t, ledger.Unreconciled())

			// The journal saw the dialect the card declared.
			testkit.AssertUsedDeclaredInterface(t, testkit.JournalFor(mock.Journal(), "w"), card)
		})
	}
}

func TestClientCancelAndTypedErrors(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithAgents("w"), testkit.WithBehavior("w", "never-terminal"))
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	c := a2aclient.NewClient(mock.AgentURL("w")+"/", a2aclient.WithLedger(ledger), a2aclient.WithHTTPClient(&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}))
	t.Cleanup(c.CloseIdleConnections)
	ctx := testCtx(t)

	task, err := c.Send(ctx, userText("work"), reconcile.SendOptions{ReturnImmediately: true})
	require.NoError(t, err)
	canceled, err := c.CancelTask(ctx, task.ID)
	require.NoError(t, err)
	assert.Equal(t, wire.StateCanceled, canceled.Status.State)
	obs, _ := ledger.Task(task.ID)
	assert.Equal(t, reconcile.SourceCancel, obs.LastSource())
	assert.Equal(t, reconcile.OutcomeCanceled, obs.Outcome)

	_, err = c.CancelTask(ctx, task.ID)
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotCancelable, rpcErr.Code)

	_, err = c.GetTask(ctx, "no-such-task")
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotFound, rpcErr.Code)
	assert.Contains(t, rpcErr.Error(), "-32001")
	assert.False(t, errors.Is(err, reconcile.ErrNotSupported))
	assert.ErrorIs(t, err, &a2aclient.RPCError{Code: wire.CodeTaskNotFound}, "errors.Is by code")
	assert.NotErrorIs(t, err, &a2aclient.RPCError{Code: wire.CodeTaskNotCancelable})
	assert.NotErrorIs(t, err, &a2aclient.RPCError{}, "a target without a code matches nothing")
}

func TestClientStreamRefusedIsNotSupported(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithAgents("w"),
		testkit.WithCardChange("w", func(c *cards.Card) { c.Capabilities.Streaming = false }))
	c := a2aclient.NewClient(mock.AgentURL("w") + "/")
	t.Cleanup(c.CloseIdleConnections)
	_, err := c.Stream(testCtx(t), userText("x"))
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeUnsupportedOperation, rpcErr.Code)
	assert.ErrorIs(t, err, reconcile.ErrNotSupported)
}

func TestClientRejectsWhatIsNotJSONRPC(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>gateway error</html>"))
		case "/empty":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1}`))
		case "/odd":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"unexpected":true}}`))
		}
	}))
	t.Cleanup(srv.Close)
	ctx := testCtx(t)

	_, err := a2aclient.NewClient(srv.URL+"/html").GetTask(ctx, "t")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gateway error")
	_, err = a2aclient.NewClient(srv.URL+"/empty").GetTask(ctx, "t")
	assert.ErrorContains(t, err, "neither result nor error")
	_, err = a2aclient.NewClient(srv.URL+"/odd").Send(ctx, userText("x"), reconcile.SendOptions{})
	assert.ErrorContains(t, err, "none of task")
	_, err = a2aclient.NewClient(srv.URL+"/html").Stream(ctx, userText("x"))
	assert.ErrorContains(t, err, "not an event stream")
	_, _, err = a2aclient.DiscoverClient(ctx, srv.URL+"/html")
	assert.Error(t, err)
}

func TestDiscoverClientNeedsAnInterfaceItSpeaks(t *testing.T) {
	t.Parallel()
	// A card whose interfaces are gRPC and a v0.3 HTTP+JSON: the client
	// has nothing to speak.
	card := cards.Generate("grpc-only", 1)
	card.Interfaces = []cards.Interface{
		{URL: "127.0.0.1:1", Binding: "GRPC", Version: wire.V10},
		{URL: "http://127.0.0.1:1/v1", Binding: wire.BindingREST, Version: wire.V03},
	}
	body, err := cards.Render(card)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	_, parsed, err := a2aclient.DiscoverClient(testCtx(t), srv.URL)
	require.ErrorIs(t, err, a2aclient.ErrNoJSONRPCInterface)
	require.NotNil(t, parsed)
}

// The reconciling driver runs over the Client against a real mock: an
// input-needing skill is answered and completes, and the journal shows no
// orphan.
func TestDriverOverClientHonest(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithAgents("w"), testkit.WithDialect(wire.V03),
		testkit.WithCardChange("w", acceptText))
	c, card, err := a2aclient.DiscoverClient(testCtx(t), mock.CardURL("w"))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	var skill string
	for _, s := range mock.Server().Card("w").Skills {
		if s.NeedsInput {
			skill = s.ID
		}
	}
	require.NotEmpty(t, skill)
	d := &reconcile.Driver{Agent: c, Card: reconcile.Declare(card, reconcile.Policy{}),
		PollInterval: 10 * time.Millisecond, WorkingDeadline: 2 * time.Second}
	in := userText("start")
	in.Metadata = map[string]any{"skillId": skill}
	res, err := d.Run(testCtx(t), skill, in, func(*wire.Message) *wire.Message { return userText("the answer") })
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, res.State)
	testkit.AssertLifecycle(t, res.Ledger, res.Key, wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted)
	testkit.AssertNoUnreconciled(t, res.Ledger)
	testkit.AssertNoOrphans(t, mock.Journal())
	testkit.AssertUsedDeclaredInterface(t, mock.Journal(), card)
}

// acceptText lets every skill take text, so drivers can send plain text.
func acceptText(c *cards.Card) {
	for i := range c.Skills {
		c.Skills[i].InputModes = append(c.Skills[i].InputModes, cards.ModeText)
	}
}

var _ reconcile.Agent = (*a2aclient.Client)(nil)
var _ = server.EntryRequest
