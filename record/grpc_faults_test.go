package record_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// streamGRPC streams one message from the gRPC server at host and returns
// the events' kinds and how the call ended.
func streamGRPC(t *testing.T, host, messageID string) ([]string, string) {
	t.Helper()
	conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := a2apb.NewA2AServiceClient(conn).SendStreamingMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
		&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: messageID, Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	var kinds []string
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return kinds, "eof"
		}
		if err != nil {
			st, _ := status.FromError(err)
			return kinds, st.Code().String() + ": " + st.Message()
		}
		kinds = append(kinds, ev.String()[:10])
	}
}

// grpcRig starts an a2amock agent serving gRPC with the given behaviors,
// a recording proxy in front of it, and returns both's gRPC addresses.
func grpcRig(t *testing.T, agent server.AgentConfig) (upstream string, proxy *record.Proxy, proxied string) {
	t.Helper()
	up, err := server.New(server.Config{Seed: 7, StepDelay: -1, GRPC: true, Agents: []server.AgentConfig{agent}})
	require.NoError(t, err)
	require.NoError(t, up.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = up.Close() })
	u, err := url.Parse(up.URL())
	require.NoError(t, err)
	proxy = record.NewProxy(u, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	pu, err := url.Parse(h2cServer(t, proxy))
	require.NoError(t, err)
	return u.Host, proxy, pu.Host
}

// replayGRPC serves rec over HTTP and gRPC as a2amock replay does and
// returns its gRPC address.
func replayGRPC(t *testing.T, rec *record.Recording) (*replay.Replayer, string) {
	t.Helper()
	rp, err := replay.New(rec, replay.Options{})
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(rp)
	rp.Server().ServeGRPCWith(ts.Config)
	ts.Start()
	t.Cleanup(func() { rp.Close(); ts.Close() })
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	return rp, u.Host
}

// A stream the agent broke is recorded as it broke and replayed from the
// recorded bytes: the client sees at the replay what it saw from the agent.
func TestRecordAndReplayGRPCStreamFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		behavior string
		end      record.StreamEnd
		// proxyDiffers: net/http's HTTP/2 server, which the proxy runs
		// on, frames a JSON answer so that grpc-go reports a missing
		// status instead of the content type (the replay runs on the
		// mock's own HTTP/2 server, as the agent did).
		proxyDiffers bool
	}{
		{"stream-eof-mid-frame", record.EndTruncated, false},
		{"truncated-body", record.EndTruncated, false},
		{"stream-error-as-json", "", true},
	} {
		t.Run(tc.behavior, func(t *testing.T) {
			t.Parallel()
			b, err := behaviors.Catalogue().Parse(tc.behavior)
			require.NoError(t, err)
			upstream, proxy, proxied := grpcRig(t, server.AgentConfig{Name: "a", Behaviors: []behaviors.Behavior{b}})
			directEvents, directEnd := streamGRPC(t, upstream, "m-direct")
			require.NotEqual(t, "eof", directEnd, "the behavior breaks the stream")
			proxiedEvents, proxiedEnd := streamGRPC(t, proxied, "m-proxied")
			if !tc.proxyDiffers {
				require.Equal(t, directEvents, proxiedEvents)
				require.Equal(t, directEnd, proxiedEnd)
			}

			rec := proxy.Recording()
			require.Len(t, rec.Exchanges, 1)
			x := rec.Exchanges[0]
			assert.Equal(t, record.KindGRPC, x.Kind)
			assert.Equal(t, tc.end, x.End)
			if tc.end == record.EndTruncated {
				assert.NotEmpty(t, x.Tail, "the start of the cut message")
			} else {
				assert.Equal(t, "application/json", x.ContentType)
				assert.Contains(t, string(x.Response), "streaming failed", "an answer that is not gRPC is kept as its body")
			}

			rp, replayed := replayGRPC(t, rec)
			replayedEvents, replayedEnd := streamGRPC(t, replayed, "m-proxied")
			assert.Equal(t, directEvents, replayedEvents)
			assert.Equal(t, directEnd, replayedEnd)
			var detail string
			for _, e := range rp.Journal() {
				if e.Kind == server.EntryRequest {
					detail = e.Detail
				}
			}
			assert.Contains(t, detail, "recorded bytes of exchange 0")
		})
	}
}

// Calls of another gRPC service than v1.0's (v0.3's a2a.v1.A2AService)
// pass through the proxy and are not recorded.
func TestProxyPassesOtherGRPCServicesUnrecorded(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "v03", Description: "A v0.3 agent.", Version: "1", Dialect: wire.V03,
		Capabilities: cards.Capabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{{ID: "echo", Name: "Echo", Description: "Answers.", Tags: []string{"echo"}}}}
	_, proxy, proxied := grpcRig(t, server.AgentConfig{Name: "a", Card: card})
	conn, err := grpc.NewClient(proxied, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := a2apb03.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb03.SendMessageRequest{
		Request:       &a2apb03.Message{MessageId: "m-1", Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}},
		Configuration: &a2apb03.SendMessageConfiguration{Blocking: true}})
	require.NoError(t, err)
	assert.Equal(t, a2apb03.TaskState_TASK_STATE_COMPLETED, resp.GetTask().GetStatus().GetState())
	assert.Empty(t, proxy.Recording().Exchanges)
}
