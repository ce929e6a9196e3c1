package interop

import (
	"crypto/tls"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// grpcBinding is the v1.0 gRPC binding, served when the mock is started with
// server.Config.GRPC (testkit.WithGRPC): a2a-go v2's gRPC client transport
// dials the host:port the card's GRPC interface declares.
var grpcBinding = v1Binding{
	name: "GRPC", protocol: a2a.TransportProtocolGRPC, mock: server.BindingGRPC,
	option: func(*testing.T) a2aclient.FactoryOption {
		return a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	},
}

// TestGRPCLifecycle discovers the agent from its card and runs the honest
// lifecycle over gRPC only: a unary send, GetTask, ListTasks and a stream.
// The table-driven lifecycle and fault tests (forEachBinding) run over
// gRPC too.
func TestGRPCLifecycle(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 31, StepDelay: 5 * time.Millisecond, GRPC: true})
	c, card := v1Client(t, s.URL(), grpcBinding)
	require.True(t, slices.ContainsFunc(card.SupportedInterfaces, func(in *a2a.AgentInterface) bool {
		return in.ProtocolBinding == a2a.TransportProtocolGRPC
	}), "the card declares a GRPC interface")
	ctx := testCtx(t)

	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("summarise the incident")})
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	assert.NotNil(t, task.Status.Timestamp)
	assert.NotEmpty(t, artifactText(t, task))
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)
	// a2a-go v2's gRPC transport always sends page_size (0 when unset),
	// which the mock refuses on every binding (1..100): ask for a size.
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{PageSize: 10})
	require.NoError(t, err)
	require.Len(t, list.Tasks, 1)

	events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream it")}))
	states, artifacts := assertOrdered(t, events, a2a.TaskStateCompleted)
	assert.Equal(t, a2a.TaskStateSubmitted, states[0])
	assert.Contains(t, states, a2a.TaskStateWorking)
	assert.Equal(t, 1, artifacts)

	_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
	assertBinding(t, s, grpcBinding)
}

// TestGRPCOverTLS runs a2a-go v2's gRPC client against a TLS mock: the card
// is read over HTTPS and the GRPC interface it declares is dialled with TLS
// (ALPN h2 only, as grpc-go requires).
func TestGRPCOverTLS(t *testing.T) {
	t.Parallel()
	m := testkit.StartTLS(t, testkit.WithDialect(wire.V10), testkit.WithStepDelay(time.Millisecond), testkit.WithGRPC())
	ctx := testCtx(t)
	card, err := agentcard.NewResolver(m.Client()).Resolve(ctx, m.URL)
	require.NoError(t, err)
	creds := credentials.NewTLS(&tls.Config{RootCAs: m.CertPool(), MinVersion: tls.VersionTLS12})
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithDefaultsDisabled(), a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(creds)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })

	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("over tls")})
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	events := collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream over tls")}))
	states, _ := assertOrdered(t, events, a2a.TaskStateCompleted)
	assert.Equal(t, a2a.TaskStateSubmitted, states[0])
	var bindings []string
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest {
			bindings = append(bindings, string(e.Binding))
		}
	}
	assert.Equal(t, []string{"GRPC", "GRPC"}, bindings, "both calls went over gRPC")
}

// TestGRPCTenantAgents: every agent shares the gRPC endpoint. a2a-go v2's
// gRPC client, created from the card of an agent below the root (a
// configured one, and one made through the control API), puts the tenant
// the card's GRPC interface declares in its requests, and they reach that
// agent.
func TestGRPCTenantAgents(t *testing.T) {
	t.Parallel()
	v1 := func(c *cards.Card) { c.Dialect = wire.V10 }
	s := startMock(t, server.Config{Seed: 33, StepDelay: time.Millisecond, GRPC: true,
		Agents: []server.AgentConfig{agentWith("first", 33, v1), agentWith("second", 33, v1)}})
	resp, err := httpClient(t).Post(s.URL()+"/_a2amock/agents", "application/json", strings.NewReader(`{"name":"made"}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	ctx := testCtx(t)
	for _, name := range []string{"second", "made"} {
		c, card := v1Client(t, s.URL()+s.AgentPath(name), grpcBinding)
		i := slices.IndexFunc(card.SupportedInterfaces, func(in *a2a.AgentInterface) bool { return in.ProtocolBinding == a2a.TransportProtocolGRPC })
		require.GreaterOrEqual(t, i, 0, "the card of %s declares a GRPC interface", name)
		assert.Equal(t, name, card.SupportedInterfaces[i].Tenant)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("for " + name)})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, task.ID, got.ID)
	}
	var calls []string
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest {
			calls = append(calls, e.Agent+" "+string(e.Binding))
		}
	}
	assert.Equal(t, []string{"second GRPC", "second GRPC", "made GRPC", "made GRPC"}, calls)
}
