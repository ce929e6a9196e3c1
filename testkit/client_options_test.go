package testkit_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// TestClientOptionsOverGRPC drives testkit's client over gRPC through
// testkit's own names for its options (WithBinding, WithTenant,
// WithGRPCDialOptions, ClientForCard), against a TLS mock with two
// agents: the tenant picks the agent, the dial options carry TLS, and the
// card's GRPC interface is the one ClientForCard picks when asked.
func TestClientOptionsOverGRPC(t *testing.T) {
	t.Parallel()
	m := testkit.StartTLS(t, testkit.WithSeed(7), testkit.WithAgents("root", "w"), testkit.WithStepDelay(-1), testkit.WithGRPC())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	creds := testkit.WithGRPCDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: m.CertPool(), MinVersion: tls.VersionTLS12})))
	msg := &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}

	c := testkit.NewClient(m.GRPCTarget(), testkit.WithBinding(wire.BindingGRPC), testkit.WithTenant("w"), creds)
	t.Cleanup(c.CloseIdleConnections)
	task, err := c.Send(ctx, msg, reconcile.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, wire.StateCompleted, task.Status.State)
	requests := func(agent string) []server.Entry {
		var out []server.Entry
		for _, e := range m.Journal() {
			if e.Kind == server.EntryRequest && e.Agent == agent {
				out = append(out, e)
			}
		}
		return out
	}
	require.Len(t, requests("w"), 1, "the tenant names the agent")
	assert.Equal(t, wire.BindingGRPC, requests("w")[0].Binding)

	_, card, err := testkit.DiscoverClient(ctx, m.CardURL("root"), testkit.WithHTTPClient(m.Client()))
	require.NoError(t, err)
	g, err := testkit.ClientForCard(card, testkit.WithBinding(wire.BindingGRPC), creds)
	require.NoError(t, err)
	t.Cleanup(g.CloseIdleConnections)
	require.Equal(t, wire.BindingGRPC, g.Binding(), "asked for gRPC, the card's GRPC interface is picked")
	msg2 := *msg
	msg2.MessageID = "m2"
	_, err = g.Send(ctx, &msg2, reconcile.SendOptions{})
	require.NoError(t, err)
	require.Len(t, requests("root"), 1)
	assert.Equal(t, wire.BindingGRPC, requests("root")[0].Binding)
}

// TestConnectGivesATestItsOwnAgent: testkit.Connect, on a running server,
// gives the test an agent of its own, whose journal holds only its
// requests and which is removed at the test's end.
func TestConnectGivesATestItsOwnAgent(t *testing.T) {
	t.Parallel()
	shared, err := testkit.NewServer()
	require.NoError(t, err)
	t.Cleanup(shared.Close)
	var name, cardURL string
	t.Run("own", func(t *testing.T) {
		r := testkit.Connect(t, shared.URL)
		c := testkit.NewClient(r.AgentURL(""))
		t.Cleanup(c.CloseIdleConnections)
		_, err := c.Send(t.Context(), &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, reconcile.SendOptions{})
		require.NoError(t, err)
		name, cardURL = r.Agent("").ServerName, r.CardURL("")
		require.NotEmpty(t, r.Journal())
		for _, e := range r.Journal() {
			assert.Equal(t, name, e.Agent)
		}
	})
	resp, err := http.Get(cardURL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the test's agent is removed when it ends")
	found := false
	for _, e := range shared.Journal() {
		found = found || e.Kind == server.EntryRequest && e.Agent == name
	}
	assert.True(t, found, "the shared server's journal has the request of the test's agent %q", name)
}
