package main

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"path/filepath"
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

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
)

// openStream starts a SendStreamingMessage at u and returns a function
// that reads its next event's data, and one that closes it.
func openStream(t *testing.T, ctx context.Context, c *http.Client, u string) (func() (string, error), func()) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"s","method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	s, err := sse.Do(ctx, c, req)
	require.NoError(t, err)
	next, stop := iter.Pull2(s.Events())
	return func() (string, error) {
			ev, err, ok := next()
			if !ok {
				return "", io.EOF
			}
			return string(ev.Data), err
		}, func() {
			stop()
			_ = s.Close()
		}
}

// openGRPCStream starts a v1.0 SendStreamingMessage over gRPC (h2c) at
// base and returns a function that reads its next message's state (the
// task's or the status update's), and one that closes the connection.
func openGRPCStream(t *testing.T, ctx context.Context, base string) (func() (string, error), func()) {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	stream, err := a2apb.NewA2AServiceClient(conn).SendStreamingMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
		&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-grpc", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	return func() (string, error) {
		ev, err := stream.Recv()
		if err != nil {
			return "", err
		}
		if task := ev.GetTask(); task != nil {
			return task.GetStatus().GetState().String(), nil
		}
		return ev.GetStatusUpdate().GetStatus().GetState().String(), nil
	}, func() { _ = conn.Close() }
}

// recording is an a2amock record command running in the background in
// front of an agent with one behavior.
type recording struct {
	upstream       *server.Server
	url, out       string
	client         *http.Client
	stdout, stderr bytes.Buffer
	stopCmd        func() int
}

// startRecording starts an agent (gRPC too) with the behavior spec and
// a2amock record in front of it, writing to a file of the test's.
func startRecording(t *testing.T, spec string) *recording {
	t.Helper()
	b, err := behaviors.Parse(spec)
	require.NoError(t, err)
	up, err := server.New(server.Config{Seed: 3, StepDelay: -1, GRPC: true, Agents: []server.AgentConfig{{Name: "agent", Behaviors: []behaviors.Behavior{b}}}})
	require.NoError(t, err)
	require.NoError(t, up.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = up.Close() })
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	r := &recording{upstream: up, client: &http.Client{Transport: tr}, out: filepath.Join(t.TempDir(), "agent.json")}
	r.url, r.stopCmd = startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", up.URL(), "--out", r.out}, &r.stdout, &r.stderr, ready)
	})
	return r
}

// stop stops the command as Ctrl-C does and loads what it wrote.
func (r *recording) stop(t *testing.T) *record.Recording {
	t.Helper()
	require.Equal(t, 0, r.stopCmd(), r.stderr.String())
	return loadRecording(t, r.out)
}

// TestRecordKeepsAStreamTheAgentNeverEnded records an agent that never
// ends its tasks (never-terminal): an SSE stream and a gRPC stream are
// still open, their clients reading, when the recording is written. Both
// are in the file, ending "open" (not "client-gone": the clients had not
// left), with the events their clients had received; replayed, they carry
// them and stay open.
func TestRecordKeepsAStreamTheAgentNeverEnded(t *testing.T) {
	t.Parallel()
	r := startRecording(t, "never-terminal")
	c, proxyURL := r.client, r.url
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	nextSSE, closeSSE := openStream(t, ctx, c, proxyURL+"/")
	nextGRPC, closeGRPC := openGRPCStream(t, ctx, proxyURL)
	var seen []string
	for range 2 {
		data, err := nextSSE()
		require.NoError(t, err)
		seen = append(seen, data)
		state, err := nextGRPC()
		require.NoError(t, err)
		assert.Equal(t, record.StatesIn([]byte(data)), []string{state}, "the gRPC stream carries what the SSE one does")
	}
	assert.Contains(t, seen[1], "TASK_STATE_WORKING")
	// The clients are still reading when the recording is written.
	rec := r.stop(t)
	closeSSE()
	closeGRPC()
	assert.Contains(t, r.stdout.String(), "wrote 2 exchange(s)")

	require.Len(t, rec.Exchanges, 2)
	for _, x := range rec.Exchanges {
		assert.Equal(t, record.EndOpen, x.End, "%s: the agent had not ended the stream, nor the client left it", x.Kind)
		require.Len(t, x.Events, 2, x.Kind)
		assert.GreaterOrEqual(t, x.EndAfter, x.Events[1].After, "%s: the stream was open until the recording was taken", x.Kind)
	}
	for i, ev := range rec.Exchanges[0].Events {
		assert.JSONEq(t, seen[i], string(ev.Data), "event %d is what the client received", i)
	}
	assert.Equal(t, record.KindGRPC, rec.Exchanges[1].Kind)

	replayURL, stopReplay := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{"--addr", "127.0.0.1:0", "--speed", "0", r.out}, io.Discard, &r.stderr, ready)
	})
	defer func() { require.Equal(t, 0, stopReplay(), r.stderr.String()) }()
	rctx, rcancel := context.WithTimeout(t.Context(), time.Second)
	defer rcancel()
	nextSSE, closeSSE = openStream(t, rctx, c, replayURL+"/")
	defer closeSSE()
	nextGRPC, closeGRPC = openGRPCStream(t, rctx, replayURL)
	defer closeGRPC()
	for i := range 2 {
		data, err := nextSSE()
		require.NoError(t, err)
		assert.Equal(t, record.StatesIn([]byte(seen[i])), record.StatesIn([]byte(data)), "replayed event %d", i)
		state, err := nextGRPC()
		require.NoError(t, err)
		assert.Equal(t, record.StatesIn([]byte(seen[i])), []string{state}, "replayed gRPC message %d", i)
	}
	_, err := nextSSE()
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the replayed stream stays open after its events, as the agent's did")
	_, err = nextGRPC()
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "the replayed gRPC stream stays open after its messages: %v", err)
}

// TestRecordKeepsARequestTheAgentNeverAnswered records an agent that
// hangs (latency of ten minutes): a JSON-RPC SendMessage and a gRPC one are
// still waiting when the recording is written. Both are in the file with
// their requests and no answer (status 0); replayed, they are answered
// with nothing, held until the client gives up.
func TestRecordKeepsARequestTheAgentNeverAnswered(t *testing.T) {
	t.Parallel()
	r := startRecording(t, "latency:dist=fixed,delay=10m")
	c, proxyURL, up := r.client, r.url, r.upstream
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	send := func(base string, ctx context.Context) (rpcErr, grpcErr chan error) {
		rpcErr, grpcErr = make(chan error, 1), make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", strings.NewReader(
				`{"jsonrpc":"2.0","id":"h","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			rpcErr <- err
		}()
		go func() {
			conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				grpcErr <- err
				return
			}
			defer conn.Close()
			_, err = a2apb.NewA2AServiceClient(conn).SendMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
				&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-grpc", Role: a2apb.Role_ROLE_USER,
					Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
			grpcErr <- err
		}()
		return rpcErr, grpcErr
	}
	rpcErr, grpcErr := send(proxyURL, ctx)
	// Both requests have reached the agent, which holds them.
	require.Eventually(t, func() bool {
		return len(up.Journal().Filter(0, "", "", server.EntryRequest)) == 2
	}, 10*time.Second, 5*time.Millisecond)
	rec := r.stop(t)
	assert.Error(t, <-rpcErr, "the recording's end closed the client's connection")
	assert.Error(t, <-grpcErr)
	assert.Contains(t, r.stdout.String(), "wrote 2 exchange(s)")

	require.Len(t, rec.Exchanges, 2)
	for _, x := range rec.Exchanges {
		assert.True(t, x.Unanswered(), "%s: the agent never answered: %+v", x.Kind, x)
		assert.Equal(t, "SendMessage", x.Method, x.Kind)
		assert.Contains(t, string(x.Request), "hi", "%s: the request is kept", x.Kind)
		assert.Empty(t, x.Response, x.Kind)
	}

	replayURL, stopReplay := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{"--addr", "127.0.0.1:0", "--speed", "0", r.out}, io.Discard, &r.stderr, ready)
	})
	defer func() { require.Equal(t, 0, stopReplay(), r.stderr.String()) }()
	rctx, rcancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer rcancel()
	rpcErr, grpcErr = send(replayURL, rctx)
	assert.ErrorIs(t, <-rpcErr, context.DeadlineExceeded, "the replay answers nothing, as the agent did")
	assert.Equal(t, codes.DeadlineExceeded, status.Code(<-grpcErr))
}
