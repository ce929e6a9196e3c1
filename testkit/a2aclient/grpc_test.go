package a2aclient_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/a2aclient"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// grpcMock is a mock serving gRPC beside the HTTP bindings; agent "w" is
// below the root, so its GRPC interface declares tenant "w".
func grpcMock(t *testing.T, opts ...testkit.Option) *testkit.Mock {
	return testkit.Start(t, append([]testkit.Option{testkit.WithSeed(7), testkit.WithAgents("root", "w"),
		testkit.WithStepDelay(-1), testkit.WithGRPC()}, opts...)...)
}

// session runs the same calls over any binding: a blocking send, a poll
// of it, a stream, a cancel of the finished task and a poll of an unknown
// id. It returns the events of the stream, one line each, and the two
// errors.
func session(t *testing.T, c *a2aclient.Client) (sent *wire.Task, events []string, cancelErr, unknownErr error) {
	t.Helper()
	ctx := testCtx(t)
	sent, err := c.Send(ctx, userText("hello"), reconcile.SendOptions{})
	require.NoError(t, err)
	got, err := c.GetTask(ctx, sent.ID)
	require.NoError(t, err)
	require.Equal(t, sent.ID, got.ID)
	require.Equal(t, sent.Status.State, got.Status.State)
	seq, err := c.Stream(ctx, userText("stream"))
	require.NoError(t, err)
	for ev, err := range seq {
		require.NoError(t, err)
		switch {
		case ev.Task != nil:
			events = append(events, fmt.Sprintf("task %s %s", ev.Task.ID, ev.Task.Status.State))
		case ev.Status != nil:
			events = append(events, fmt.Sprintf("status %s %s", ev.Status.TaskID, ev.Status.Status.State))
		case ev.Artifact != nil:
			events = append(events, fmt.Sprintf("artifact %s %s %d parts", ev.Artifact.TaskID, ev.Artifact.Artifact.ArtifactID, len(ev.Artifact.Artifact.Parts)))
		case ev.Message != nil:
			events = append(events, "message "+ev.Message.MessageID)
		}
	}
	_, cancelErr = c.CancelTask(ctx, sent.ID)
	_, unknownErr = c.GetTask(ctx, "no-such-task")
	return sent, events, cancelErr, unknownErr
}

// TestClientGRPCLifecycle: asked for gRPC, DiscoverClient picks the card's
// GRPC interface (with its tenant), and every operation goes over it: a
// send completes with an artifact, a poll sees it, a stream yields the
// task then every state in order, a cancel of the finished task is
// TaskNotCancelable and a poll of an unknown id TaskNotFound, each read
// from the status's ErrorInfo.
func TestClientGRPCLifecycle(t *testing.T) {
	t.Parallel()
	m := grpcMock(t)
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	c, card, err := a2aclient.DiscoverClient(testCtx(t), m.CardURL("w"), a2aclient.WithBinding(wire.BindingGRPC), a2aclient.WithLedger(ledger))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	assert.Equal(t, wire.BindingGRPC, c.Binding())
	assert.Equal(t, m.GRPCTarget(), c.URL())
	assert.Equal(t, wire.Dialect("1.0"), c.Dialect())

	sent, events, cancelErr, unknownErr := session(t, c)
	assert.Equal(t, wire.StateCompleted, sent.Status.State)
	require.NotEmpty(t, sent.Artifacts, "a completed task carries its artifact")
	require.NotEmpty(t, sent.Artifacts[0].Parts)
	assert.NotEmpty(t, sent.Artifacts[0].Parts[0].Text)

	require.NotEmpty(t, events)
	assert.Regexp(t, `^task \S+ submitted$`, events[0])
	assert.Regexp(t, `^status \S+ completed$`, events[len(events)-1])
	tasks := ledger.Tasks()
	require.Len(t, tasks, 2)
	var states []wire.TaskState
	for _, tr := range tasks[1].Transitions {
		assert.Equal(t, reconcile.SourceStream, tr.Source)
		states = append(states, tr.State)
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, states)

	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, cancelErr, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotCancelable, rpcErr.Code)
	assert.Equal(t, "TASK_NOT_CANCELABLE", rpcErr.Reason)
	assert.Equal(t, codes.FailedPrecondition, rpcErr.GRPCCode)
	require.ErrorAs(t, unknownErr, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotFound, rpcErr.Code)
	assert.Equal(t, codes.NotFound, rpcErr.GRPCCode)
	assert.Contains(t, string(rpcErr.Data), "TASK_NOT_FOUND")
	assert.False(t, errors.Is(unknownErr, reconcile.ErrNotSupported))
	assert.ErrorIs(t, unknownErr, &a2aclient.RPCError{Code: wire.CodeTaskNotFound}, "errors.Is by code, as over JSON-RPC")

	// Every call went to agent w over gRPC, with a2a-version 1.0.
	var calls int
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest {
			calls++
			assert.Equal(t, wire.BindingGRPC, e.Binding, "entry %d %s", e.Seq, e.Method)
			assert.Equal(t, "1.0", e.Version, "entry %d %s", e.Seq, e.Method)
			assert.Equal(t, "w", e.Agent, "entry %d %s", e.Seq, e.Method)
		}
	}
	assert.Equal(t, 5, calls)
	testkit.AssertUsedDeclaredInterface(t, testkit.JournalFor(m.Journal(), "w"), card)
}

// TestClientGRPCMatchesJSONRPC: the same calls against two mocks of the
// same seed, one over JSON-RPC and one over gRPC, see the same tasks, the
// same stream and the same errors, and leave the same ledger (states and
// the source of each).
func TestClientGRPCMatchesJSONRPC(t *testing.T) {
	t.Parallel()
	type run struct {
		events       []string
		cancel, miss int
		ledger       []string
	}
	do := func(binding wire.Binding) run {
		m := grpcMock(t)
		ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
		c, _, err := a2aclient.DiscoverClient(testCtx(t), m.CardURL("w"), a2aclient.WithBinding(binding), a2aclient.WithLedger(ledger))
		require.NoError(t, err)
		t.Cleanup(c.CloseIdleConnections)
		require.Equal(t, binding, c.Binding())
		_, events, cancelErr, unknownErr := session(t, c)
		var r run
		r.events = events
		var rpcErr *a2aclient.RPCError
		require.ErrorAs(t, cancelErr, &rpcErr)
		r.cancel = rpcErr.Code
		require.ErrorAs(t, unknownErr, &rpcErr)
		r.miss = rpcErr.Code
		for _, task := range ledger.Tasks() {
			line := fmt.Sprintf("%s %s:", task.Key, task.Outcome)
			for _, o := range task.Raw {
				line += fmt.Sprintf(" %s/%s", o.Source, o.State)
			}
			r.ledger = append(r.ledger, line)
		}
		return r
	}
	jsonrpc, grpcRun := do(wire.BindingJSONRPC), do(wire.BindingGRPC)
	require.Len(t, jsonrpc.ledger, 2)
	assert.Equal(t, jsonrpc, grpcRun)
	assert.Equal(t, wire.CodeTaskNotCancelable, grpcRun.cancel)
	assert.Equal(t, wire.CodeTaskNotFound, grpcRun.miss)
	t.Logf("ledger: %q", grpcRun.ledger)
}

// TestClientGRPCStreamRefusedIsNotSupported: a stream the card does not
// declare is refused before any event, which is the error of Stream and
// reconcile.ErrNotSupported, as over the HTTP bindings.
func TestClientGRPCStreamRefusedIsNotSupported(t *testing.T) {
	t.Parallel()
	m := grpcMock(t, testkit.WithCardChange("w", func(c *cards.Card) { c.Capabilities.Streaming = false }))
	c := a2aclient.NewClient(m.GRPCTarget(), a2aclient.WithBinding(wire.BindingGRPC), a2aclient.WithTenant("w"))
	t.Cleanup(c.CloseIdleConnections)
	_, err := c.Stream(testCtx(t), userText("x"))
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeUnsupportedOperation, rpcErr.Code)
	assert.ErrorIs(t, err, reconcile.ErrNotSupported)
	// The client stays usable after CloseIdleConnections: the next call
	// dials again.
	c.CloseIdleConnections()
	task, err := c.Send(testCtx(t), userText("again"), reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, task.Status.State)
}

// TestClientGRPCOnlyV10: gRPC is spoken in v1.0 only. A client asked for
// v0.3 over gRPC fails every call, saying so, before dialing; and asked
// for gRPC on a v0.3 card (whose GRPC interface is v0.3's service),
// ClientForCard keeps its other rules and picks JSON-RPC.
func TestClientGRPCOnlyV10(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithDialect(wire.V03), testkit.WithStepDelay(-1), testkit.WithGRPC())
	c := a2aclient.NewClient(m.GRPCTarget(), a2aclient.WithBinding(wire.BindingGRPC), a2aclient.WithClientDialect(wire.V03))
	t.Cleanup(c.CloseIdleConnections)
	_, err := c.GetTask(testCtx(t), "t")
	require.ErrorContains(t, err, "gRPC binding is spoken in A2A 1.0 only")
	_, err = c.Stream(testCtx(t), userText("x"))
	require.ErrorContains(t, err, "gRPC binding is spoken in A2A 1.0 only")
	assert.Empty(t, m.Journal(), "nothing was sent")

	d, card, err := a2aclient.DiscoverClient(testCtx(t), m.CardURL(""), a2aclient.WithBinding(wire.BindingGRPC))
	require.NoError(t, err)
	t.Cleanup(d.CloseIdleConnections)
	require.Contains(t, card.Interfaces, cards.Interface{URL: m.GRPCTarget(), Binding: wire.BindingGRPC, Version: wire.V03})
	assert.Equal(t, wire.BindingJSONRPC, d.Binding())
	assert.Equal(t, wire.V03, d.Dialect())
}

// TestDiscoverClientGRPCOnlyWhenAsked: a v1.0 card declaring JSON-RPC,
// HTTP+JSON and GRPC gets a JSON-RPC client unless the caller asks for
// gRPC.
func TestDiscoverClientGRPCOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	m := grpcMock(t)
	c, card, err := a2aclient.DiscoverClient(testCtx(t), m.CardURL("w"))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	require.Contains(t, card.Interfaces, cards.Interface{URL: m.GRPCTarget(), Binding: wire.BindingGRPC, Version: "1.0", Tenant: "w"})
	assert.Equal(t, wire.BindingJSONRPC, c.Binding())

	g, err := a2aclient.ClientForCard(card, a2aclient.WithBinding(wire.BindingGRPC))
	require.NoError(t, err)
	t.Cleanup(g.CloseIdleConnections)
	assert.Equal(t, wire.BindingGRPC, g.Binding())
	assert.Equal(t, m.GRPCTarget(), g.URL())
}

// TestClientGRPCOverTLS: a TLS mock's gRPC is reached with the
// credentials given in WithGRPCDialOptions.
func TestClientGRPCOverTLS(t *testing.T) {
	t.Parallel()
	m := testkit.StartTLS(t, testkit.WithStepDelay(-1), testkit.WithGRPC())
	creds := credentials.NewTLS(&tls.Config{RootCAs: m.CertPool(), MinVersion: tls.VersionTLS12})
	c, _, err := a2aclient.DiscoverClient(testCtx(t), m.CardURL(""), a2aclient.WithHTTPClient(m.Client()),
		a2aclient.WithBinding(wire.BindingGRPC), a2aclient.WithGRPCDialOptions(grpc.WithTransportCredentials(creds)))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	require.Equal(t, wire.BindingGRPC, c.Binding())
	task, err := c.Send(testCtx(t), userText("hello"), reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, task.Status.State)
	_, err = c.GetTask(context.Background(), "no-such-task")
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotFound, rpcErr.Code)
}

// bareAgent is a gRPC agent of its own that answers GetTask with a status
// without ErrorInfo, and nothing else (Unimplemented); it keeps the
// metadata of the last call.
type bareAgent struct {
	a2apb.UnimplementedA2AServiceServer
	md chan metadata.MD
}

func (b *bareAgent) GetTask(ctx context.Context, _ *a2apb.GetTaskRequest) (*a2apb.Task, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	b.md <- md
	return nil, status.Error(codes.NotFound, "no such task")
}

// TestClientGRPCStatusWithoutErrorInfo: an agent whose status has no
// ErrorInfo is still read for what its code means: NOT_FOUND is
// TaskNotFound, UNIMPLEMENTED reconcile.ErrNotSupported. Every call
// carries a2a-version and the client's headers as metadata.
func TestClientGRPCStatusWithoutErrorInfo(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	agent := &bareAgent{md: make(chan metadata.MD, 1)}
	a2apb.RegisterA2AServiceServer(srv, agent)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	c := a2aclient.NewClient(lis.Addr().String(), a2aclient.WithBinding(wire.BindingGRPC), a2aclient.WithClientHeader("X-Trace", "t-1"))
	t.Cleanup(c.CloseIdleConnections)
	_, err = c.GetTask(testCtx(t), "t")
	var rpcErr *a2aclient.RPCError
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeTaskNotFound, rpcErr.Code)
	assert.Empty(t, rpcErr.Reason)
	assert.Equal(t, codes.NotFound, rpcErr.GRPCCode)
	assert.Contains(t, rpcErr.Error(), "no such task")
	md := <-agent.md
	assert.Equal(t, []string{"1.0"}, md.Get("a2a-version"))
	assert.Equal(t, []string{"t-1"}, md.Get("x-trace"))

	_, err = c.CancelTask(testCtx(t), "t")
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, wire.CodeUnsupportedOperation, rpcErr.Code)
	assert.ErrorIs(t, err, reconcile.ErrNotSupported)
	_, err = c.Stream(testCtx(t), userText("x"))
	assert.ErrorIs(t, err, reconcile.ErrNotSupported)
}
