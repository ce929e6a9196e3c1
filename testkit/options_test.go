package testkit_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func textMsg(id, text string, skill string) *wire.Message {
	m := &wire.Message{MessageID: id, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(text)}}
	if skill != "" {
		m.Metadata = map[string]any{"skillId": skill}
	}
	return m
}

// WithCard serves the given card, WithSkill adds a skill to it and
// WithTimeline scripts that skill; WithClock drives the script's delays.
func TestWithCardSkillTimelineClock(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "Scripted", Description: "d", Version: "1", Dialect: wire.V10,
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{{ID: "first", Name: "First", Description: "d", Tags: []string{"t"}}}}
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	mock := testkit.Start(t, testkit.WithCard("", card), testkit.WithClock(clk),
		testkit.WithSkill("Scripted", cards.Skill{ID: "slow", Name: "Slow", Description: "d", Tags: []string{"t"}}),
		testkit.WithTimeline("Scripted", "slow", timeline.Timeline{
			{Kind: timeline.StepState, State: wire.StateSubmitted},
			{Kind: timeline.StepState, State: wire.StateWorking, After: time.Minute},
			{Kind: timeline.StepState, State: wire.StateCompleted, After: time.Minute},
		}))
	resp, err := mock.Client().Get(mock.CardURL("Scripted"))
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	got, err := cards.Parse(body)
	require.NoError(t, err)
	require.Len(t, got.Skills, 2)
	assert.Equal(t, "Scripted", got.Name)
	assert.Equal(t, "slow", got.Skills[1].ID)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := testkit.NewClient(mock.AgentURL("Scripted")+"/", testkit.WithHTTPClient(mock.Client()))
	task, err := cl.Send(ctx, textMsg("m1", "go", "slow"), reconcile.SendOptions{ReturnImmediately: true})
	require.NoError(t, err)
	assert.Equal(t, wire.StateSubmitted, task.Status.State)
	for _, want := range []wire.TaskState{wire.StateWorking, wire.StateCompleted} {
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		clk.Advance(time.Minute)
		require.Eventually(t, func() bool {
			tk, err := cl.GetTask(ctx, task.ID)
			return err == nil && tk.Status.State == want
		}, 5*time.Second, time.Millisecond, "the script reaches %s after a fake minute", want)
	}
}

// headerRecorder records the headers of every request it forwards.
type headerRecorder struct {
	mu   sync.Mutex
	seen []http.Header
	next http.RoundTripper
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Clone())
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

// WithClientDialect picks the v0.3 method names; WithClientHeader adds a
// header to every request.
func TestClientDialectAndHeader(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithStepDelay(-1))
	rec := &headerRecorder{next: mock.Client().Transport}
	cl := testkit.NewClient(mock.AgentURL("agent")+"/", testkit.WithClientDialect(wire.V03),
		testkit.WithClientHeader("X-Team", "blue"), testkit.WithHTTPClient(&http.Client{Transport: rec}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := cl.SendMessage(ctx, textMsg("m1", "hi", ""), reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.V03, cl.Dialect())
	var methods []string
	for _, e := range mock.Journal() {
		if e.Kind == server.EntryRequest {
			methods = append(methods, e.Method)
		}
	}
	assert.Equal(t, []string{"message/send"}, methods)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.NotEmpty(t, rec.seen)
	assert.Equal(t, "blue", rec.seen[0].Get("X-Team"))
}

// WithWebhookLedger makes the receiver record into the given ledger.
func TestWithWebhookLedger(t *testing.T) {
	t.Parallel()
	l := reconcile.NewLedger(reconcile.LedgerConfig{})
	w := testkit.Webhook(t, testkit.WithWebhookLedger(l))
	assert.Same(t, l, w.Ledger())
}

// WithStepDelay(0) plays the honest lifecycle with no delay, as serve's
// --step-delay 0 and a scenario's stepDelay: 0s do; without the option the
// steps are 20ms apart, and a given delay is the time between two states.
func TestWithStepDelay(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := func(opts ...testkit.Option) (*testkit.Mock, *timeline.FakeClock, *testkit.Client) {
		clk := timeline.NewFakeClock(time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
		mock := testkit.Start(t, append([]testkit.Option{testkit.WithClock(clk)}, opts...)...)
		cl := testkit.NewClient(mock.AgentURL("")+"/", testkit.WithHTTPClient(mock.Client()))
		t.Cleanup(cl.CloseIdleConnections)
		return mock, clk, cl
	}

	// No delay: a blocking send is answered completed while the fake clock
	// never moves (with any delay it would wait on the clock until ctx ends).
	_, _, cl := start(testkit.WithStepDelay(0))
	task, err := cl.Send(ctx, textMsg("zero", "go", ""), reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, task.Status.State)

	for _, tc := range []struct {
		name string
		opts []testkit.Option
		step time.Duration
	}{
		{"default", nil, 20 * time.Millisecond},
		{"a minute", []testkit.Option{testkit.WithStepDelay(time.Minute)}, time.Minute},
	} {
		_, clk, cl := start(tc.opts...)
		task, err := cl.Send(ctx, textMsg("m-"+tc.name, "go", ""), reconcile.SendOptions{ReturnImmediately: true})
		require.NoError(t, err, tc.name)
		require.Equal(t, wire.StateSubmitted, task.Status.State, tc.name)
		require.NoError(t, clk.BlockUntilContext(ctx, 1), tc.name)
		clk.Advance(tc.step - time.Nanosecond)
		got, err := cl.GetTask(ctx, task.ID)
		require.NoError(t, err, tc.name)
		assert.Equal(t, wire.StateSubmitted, got.Status.State, "%s: still submitted a nanosecond before the step", tc.name)
		clk.Advance(time.Nanosecond)
		require.Eventually(t, func() bool {
			got, err := cl.GetTask(ctx, task.ID)
			return err == nil && got.Status.State == wire.StateWorking
		}, 5*time.Second, time.Millisecond, "%s: working after %s", tc.name, tc.step)
	}
}

// AgentURL("") is the first agent's, at the root, as CardURL("") is;
// AgentURL(name) is the named agent's.
func TestAgentURL(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mock := testkit.Start(t, testkit.WithAgents("first", "second"), testkit.WithStepDelay(0))
	assert.Equal(t, mock.URL, mock.AgentURL(""))
	for _, name := range []string{"", "second"} {
		cl := testkit.NewClient(mock.AgentURL(name)+"/", testkit.WithHTTPClient(mock.Client()))
		_, err := cl.Send(ctx, textMsg("to-"+name, "go", ""), reconcile.SendOptions{})
		require.NoError(t, err, "agent %q", name)
		cl.CloseIdleConnections()
	}
	served := map[string]string{}
	for _, e := range mock.Journal() {
		if e.Kind == journal.EntryRequest && e.MessageID != "" {
			served[e.MessageID] = e.Agent
		}
	}
	assert.Equal(t, map[string]string{"to-": "first", "to-second": "second"}, served)
}
