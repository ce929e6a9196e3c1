package record_test

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
)

// agentWith starts an agent (gRPC too) with the behavior spec.
func agentWith(t *testing.T, spec string) *server.Server {
	t.Helper()
	b, err := behaviors.Parse(spec)
	require.NoError(t, err)
	srv, err := server.New(server.Config{Seed: 3, StepDelay: -1, GRPC: true, Agents: []server.AgentConfig{{Name: "agent", Behaviors: []behaviors.Behavior{b}}}})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// proxyOf starts a proxy (HTTP and h2c) in front of srv.
func proxyOf(t *testing.T, srv *server.Server) (*record.Proxy, string) {
	t.Helper()
	up, err := url.Parse(srv.URL())
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	return proxy, h2cServer(t, proxy)
}

// TestRecordingKeepsOpenStreams takes a recording while an SSE stream and
// a gRPC stream are still open through the proxy, the agent having ended
// neither: both are in it, ending "open", with the events the clients had
// received (cmd/a2amock's TestRecordKeepsAStreamTheAgentNeverEnded takes
// one as a2amock record does, after Stop).
func TestRecordingKeepsOpenStreams(t *testing.T) {
	t.Parallel()
	proxy, base := proxyOf(t, agentWith(t, "never-terminal"))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	c := newClient(t)
	s, err := sse.Do(ctx, c.http, c.rpc(base+"/", "SendStreamingMessage", "1", message("x")))
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for _, err := range s.Events() {
		require.NoError(t, err)
		if n++; n == 2 {
			break
		}
	}

	u, err := url.Parse(base)
	require.NoError(t, err)
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	gctx := metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
	stream, err := a2apb.NewA2AServiceClient(conn).SendStreamingMessage(gctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
		MessageId: "m-grpc", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "y"}}}}})
	require.NoError(t, err)
	for range 2 {
		_, err := stream.Recv()
		require.NoError(t, err)
	}

	check := func(when string) {
		rec := proxy.Recording()
		require.Len(t, rec.Exchanges, 2, when)
		for _, x := range rec.Exchanges {
			assert.Equal(t, record.EndOpen, x.End, "%s: %s %s", when, x.Kind, x.Method)
			require.Len(t, x.Events, 2, "%s: %s %s", when, x.Kind, x.Method)
			assert.Equal(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, x.States(), "%s: %s", when, x.Kind)
			assert.GreaterOrEqual(t, x.EndAfter, x.Events[1].After, when)
		}
		assert.Equal(t, []record.Kind{record.KindJSONRPC, record.KindGRPC}, []record.Kind{rec.Exchanges[0].Kind, rec.Exchanges[1].Kind}, when)
		var buf bytes.Buffer
		require.NoError(t, rec.Save(&buf), when)
		_, err := record.Load(&buf)
		require.NoError(t, err, "%s: an open stream is a valid recording", when)
	}
	check("while open")
}

// TestRecordingKeepsUnansweredRequests takes a recording while the agent
// holds a SendMessage unanswered (latency of ten minutes): it is in it,
// with its request and status 0. Replayed, the request gets no answer
// until the client gives up, and the journal says why.
func TestRecordingKeepsUnansweredRequests(t *testing.T) {
	t.Parallel()
	srv := agentWith(t, "latency:dist=fixed,delay=10m")
	proxy, base := proxyOf(t, srv)

	c := newClient(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		resp, err := c.http.Do(c.rpc(base+"/", "SendMessage", "1", message("x")).WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool {
		return len(srv.Journal().Filter(0, "", "", server.EntryRequest)) == 1
	}, 10*time.Second, 5*time.Millisecond)
	rec := proxy.Recording()
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Len(t, rec.Exchanges, 1)
	x := rec.Exchanges[0]
	assert.True(t, x.Unanswered(), "status %d", x.Status)
	assert.Equal(t, record.KindJSONRPC, x.Kind)
	assert.Equal(t, "SendMessage", x.Method)
	assert.NotEmpty(t, x.Request)
	var buf bytes.Buffer
	require.NoError(t, rec.Save(&buf))
	_, err := record.Load(&buf)
	require.NoError(t, err, "an unanswered request is a valid recording")

	rp, rbase := replayOf(t, rec, replay.Options{})
	rctx, rcancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer rcancel()
	_, err = c.http.Do(c.rpc(rbase+"/", "SendMessage", "2", message("x")).WithContext(rctx))
	require.ErrorIs(t, err, context.DeadlineExceeded, "the replay answers nothing, as the agent did")
	require.Eventually(t, func() bool {
		for _, e := range rp.Server().Journal().Filter(0, "", "", server.EntryResponse) {
			if strings.Contains(e.Detail, "no answer, as recorded") {
				return true
			}
		}
		return false
	}, 5*time.Second, 5*time.Millisecond, "the journal says the request was held unanswered")
}
