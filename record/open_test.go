package record_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

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
	return proxyTo(t, srv.URL())
}

// proxyTo starts a proxy (HTTP and h2c) in front of the agent at base.
func proxyTo(t *testing.T, base string) (*record.Proxy, string) {
	t.Helper()
	up, err := url.Parse(base)
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

// TestRecordingKeepsAUnaryCallAwaitingItsStatus takes a recording while a
// unary gRPC call's answer message has passed through the proxy and been
// read by its client, the agent holding the trailers (the status): the
// call is in it answered, with the message and no status, ending "open",
// as a stream still open is, not as unanswered (it once was: the call was
// published only when the handler returned, after the trailers).
// Replayed, the client reads the message and the call is held open. A
// call the agent then ends without trailers is recorded ending "error"
// with its message, and replayed so: the message, then no status.
func TestRecordingKeepsAUnaryCallAwaitingItsStatus(t *testing.T) {
	t.Parallel()
	answer, err := proto.Marshal(&a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Task{Task: &a2apb.Task{
		Id: "t-held", ContextId: "c-held", Status: &a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_COMPLETED}}}})
	require.NoError(t, err)
	// ends says how the agent ends each call once its message is out:
	// true with grpc-status 0, false with no trailers.
	ends := make(chan bool)
	proxy, base := proxyTo(t, h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/grpc")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(a2apb.AppendMessage(nil, answer))
		_ = http.NewResponseController(w).Flush()
		select {
		case ok := <-ends:
			if ok {
				w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
			}
		case <-r.Context().Done():
		}
	})))
	// call sends a message to host and returns the call once its answer
	// message is read. The call is opened as a server stream: its
	// RecvMsg returns the message as it arrives, where a unary client's
	// would wait for the status.
	call := func(ctx context.Context, host string) grpc.ClientStream {
		conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
		s, err := conn.NewStream(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
			&grpc.StreamDesc{ServerStreams: true}, a2apb.ServicePath+"SendMessage")
		require.NoError(t, err)
		require.NoError(t, s.SendMsg(&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-held", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "x"}}}}}))
		require.NoError(t, s.CloseSend())
		var got a2apb.SendMessageResponse
		require.NoError(t, s.RecvMsg(&got))
		require.Equal(t, "t-held", got.GetTask().GetId())
		return s
	}
	u, err := url.Parse(base)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	first := call(ctx, u.Host)
	snap := proxy.Recording()
	require.Len(t, snap.Exchanges, 1)
	x := snap.Exchanges[0]
	assert.False(t, x.Unanswered(), "the client has the answer message")
	assert.Equal(t, http.StatusOK, x.Status)
	assert.Contains(t, string(x.Response), `"id":"t-held"`)
	assert.Equal(t, record.EndOpen, x.End, "no status yet")
	assert.Zero(t, x.GRPCStatus)
	assert.GreaterOrEqual(t, x.EndAfter, x.HeadersAfter)
	var buf bytes.Buffer
	require.NoError(t, snap.Save(&buf))
	_, err = record.Load(&buf)
	require.NoError(t, err, "a call awaiting its status is a valid recording")

	ends <- true
	require.ErrorIs(t, first.RecvMsg(&a2apb.SendMessageResponse{}), io.EOF, "status OK")
	second := call(ctx, u.Host)
	ends <- false
	require.Equal(t, codes.Internal, status.Code(second.RecvMsg(&a2apb.SendMessageResponse{})), "no trailers")
	rec := proxy.Recording()
	require.Len(t, rec.Exchanges, 2)
	assert.Equal(t, []record.StreamEnd{"", record.EndError}, []record.StreamEnd{rec.Exchanges[0].End, rec.Exchanges[1].End}, "the first call ended with its status, the second without")
	assert.Contains(t, string(rec.Exchanges[1].Response), `"id":"t-held"`, "the message the call carried before it was cut")

	// closing waits for the entry the replay journals when it lets a raw
	// call go, and returns its detail.
	closing := func(rp *replay.Replayer) string {
		var detail string
		require.Eventually(t, func() bool {
			for _, e := range rp.Journal() {
				if e.Kind == server.EntryStreamClose {
					detail = e.Detail
				}
			}
			return detail != ""
		}, 10*time.Second, 5*time.Millisecond)
		return detail
	}
	rp, host := replayGRPC(t, snap)
	held, let := context.WithCancel(ctx)
	s := call(held, host)
	let()
	require.Equal(t, codes.Canceled, status.Code(s.RecvMsg(&a2apb.SendMessageResponse{})))
	assert.Equal(t, "held open until client left, as recorded", closing(rp), "no status: the replay held the call as the agent did")
	var details []string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest || e.Kind == server.EntryResponse {
			details = append(details, string(e.Kind)+" "+e.TaskID+": "+e.Detail)
		}
	}
	assert.Equal(t, []string{
		"request : recorded bytes of exchange 0: the call was still open, with no status yet, when the recording was taken",
		"response t-held: ",
	}, details)

	rp, host = replayGRPC(t, rec)
	s = call(ctx, host)
	require.ErrorIs(t, s.RecvMsg(&a2apb.SendMessageResponse{}), io.EOF, "the first call played through the engine: status OK")
	s = call(ctx, host)
	require.Equal(t, codes.Internal, status.Code(s.RecvMsg(&a2apb.SendMessageResponse{})), "the message, then no trailers, as recorded")
	assert.Equal(t, "ended without a status, as recorded", closing(rp))
}
