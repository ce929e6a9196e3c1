package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
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
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// cardEntries returns the journal's card fetch entries.
func cardEntries(h *harness) []server.Entry {
	var out []server.Entry
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryCard {
			out = append(out, e)
		}
	}
	return out
}

// TestCardFetchFaultedWhenScoped: a transport behavior scoped to the card
// fetch (op=agent-card) faults it as it would any request: http-error
// answers the card URL with 503, which the journal and its raw view
// show; the same behavior unscoped leaves card discovery alone.
func TestCardFetchFaultedWhenScoped(t *testing.T) {
	t.Parallel()
	t.Run("scoped to the card", func(t *testing.T) {
		t.Parallel()
		b, err := behaviors.Parse("http-error:op=agent-card,status=503,body=card store down")
		require.NoError(t, err)
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
		status, hdr, body := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
		assert.Equal(t, http.StatusServiceUnavailable, status)
		assert.Equal(t, "card store down", string(body))
		assert.Equal(t, "1", hdr.Get("Retry-After"))
		assert.Empty(t, hdr.Get("ETag"), "no card was sent")

		entries := cardEntries(h)
		require.Len(t, entries, 1)
		assert.Equal(t, []string{"http-error:op=agent-card,status=503,body=card store down"}, entries[0].Behaviors)
		assert.Contains(t, entries[0].Detail, "HTTP 503")
		spec := "http-error:op=agent-card,status=503,body=card store down"
		assert.Contains(t, entries[0].Acted, server.ActedBehavior{Behavior: spec, Hook: server.HookReject})
		assert.Contains(t, entries[0].Acted, server.ActedBehavior{Behavior: spec, Hook: server.HookTransport}, "the transport fault is named on the card entry")
		wstatus, x, raw := h.wire("?seq=" + strconv.FormatInt(entries[0].Seq, 10))
		require.Equal(t, http.StatusOK, wstatus, "%s", raw)
		assert.Equal(t, http.StatusServiceUnavailable, x.Status, "the raw view holds what went on the wire")
		assert.Equal(t, "card store down", x.Response.Text)

		// Requests other than the card fetch are not in scope.
		resp, _ := h.rpc("/", "GetTask", map[string]any{"id": "nope"}, map[string]string{"A2A-Version": "1.0"})
		require.NotNil(t, resp.Error)
		assert.Equal(t, wire.CodeTaskNotFound, resp.Error.Code)
	})
	t.Run("unscoped leaves the card alone", func(t *testing.T) {
		t.Parallel()
		var list []behaviors.Behavior
		for _, spec := range []string{"http-error:status=503", "latency:delay=10m", "connection-reset", "truncated-body", "empty-response", "malformed-json"} {
			b, err := behaviors.Parse(spec)
			require.NoError(t, err)
			list = append(list, b)
		}
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false), Behaviors: list}}})
		status, _, body := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
		require.Equal(t, http.StatusOK, status)
		assert.Contains(t, string(body), `"supportedInterfaces"`)
		entries := cardEntries(h)
		require.Len(t, entries, 1)
		assert.Empty(t, entries[0].Detail)
	})
	// The behaviors that rewrite or break an answer's body do so to the
	// card's too: the card is sent with its Content-Length, which is how
	// they tell a whole answer from a stream.
	t.Run("body rewrites scoped to the card", func(t *testing.T) {
		t.Parallel()
		for spec, check := range map[string]func(hdr http.Header, body []byte){
			"content-type:op=agent-card,type=text/plain": func(hdr http.Header, body []byte) {
				assert.Equal(t, "text/plain", hdr.Get("Content-Type"))
				assert.True(t, json.Valid(body))
			},
			"malformed-json:op=agent-card": func(_ http.Header, body []byte) {
				assert.False(t, json.Valid(body), "%s", body)
			},
			"unknown-fields:op=agent-card": func(_ http.Header, body []byte) {
				assert.Contains(t, string(body), `"futureField":"a field of a later version"`)
			},
		} {
			b, err := behaviors.Parse(spec)
			require.NoError(t, err)
			h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
			status, hdr, body := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
			require.Equal(t, http.StatusOK, status, spec)
			assert.Equal(t, strconv.Itoa(len(body)), hdr.Get("Content-Length"), spec)
			check(hdr, body)
		}
	})
	t.Run("latency and truncation scoped to the card", func(t *testing.T) {
		t.Parallel()
		clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		b, err := behaviors.Parse("latency:op=agent-card,delay=30s")
		require.NoError(t, err)
		h := start(t, server.Config{StepDelay: -1, Clock: clk, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
		got := make(chan int, 1)
		go func() {
			status, _, _ := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
			got <- status
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The card fetch waits on the injected clock, not the wall's.
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		select {
		case <-got:
			t.Fatal("the card was answered before the clock moved")
		case <-time.After(20 * time.Millisecond):
		}
		clk.Advance(30 * time.Second)
		assert.Equal(t, http.StatusOK, <-got)
	})
}

// grpcClockRig is grpcRig on a fake clock.
func grpcClockRig(t *testing.T, clk timeline.Clock, specs ...string) (*harness, a2apb.A2AServiceClient) {
	t.Helper()
	var list []behaviors.Behavior
	for _, spec := range specs {
		b, err := behaviors.Parse(spec)
		require.NoError(t, err)
		list = append(list, b)
	}
	h := start(t, server.Config{GRPC: true, StepDelay: -1, Clock: clk,
		Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false), Behaviors: list}}})
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return h, a2apb.NewA2AServiceClient(conn)
}

// TestGRPCTransportMeanings: the transport behaviors in gRPC's terms, as a
// grpc-go client sees them.
func TestGRPCTransportMeanings(t *testing.T) {
	t.Parallel()
	t.Run("http-error is a trailers-only status with the mapped code", func(t *testing.T) {
		t.Parallel()
		for spec, want := range map[string]codes.Code{
			"http-error:status=503,body=down for maintenance": codes.Unavailable,
			"http-error:status=429":                           codes.Unavailable,
			"http-error:status=403":                           codes.PermissionDenied,
			"http-error:status=401":                           codes.Unauthenticated,
			"http-error:status=500":                           codes.Unknown,
		} {
			_, c := grpcRig(t, false, spec)
			var trailer, header metadata.MD
			_, err := c.SendMessage(grpcCtx(t), grpcSend("x"), grpc.Trailer(&trailer), grpc.Header(&header))
			assert.Equal(t, want, status.Code(err), "%s: %v", spec, err)
			if spec == "http-error:status=503,body=down for maintenance" {
				assert.Equal(t, "down for maintenance", status.Convert(err).Message())
				assert.Equal(t, []string{"1000"}, trailer.Get("grpc-retry-pushback-ms"), "Retry-After: 1 as gRPC's pushback")
			}
		}
	})
	t.Run("binding=GRPC scopes a fault to the gRPC binding", func(t *testing.T) {
		t.Parallel()
		h, c := grpcRig(t, false, "http-error:binding=GRPC,status=503")
		_, err := c.GetTask(grpcCtx(t), &a2apb.GetTaskRequest{Id: "x"})
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
		resp, _ := h.rpc("/", "GetTask", map[string]any{"id": "x"}, map[string]string{"A2A-Version": "1.0"})
		require.NotNil(t, resp.Error, "JSON-RPC is answered by the agent")
		assert.Equal(t, wire.CodeTaskNotFound, resp.Error.Code)
	})
	t.Run("empty-response is a trailers-only OK without a message", func(t *testing.T) {
		t.Parallel()
		h, c := grpcRig(t, false, "empty-response")
		_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
		require.Error(t, err)
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
		// The agent handled the request: the task exists.
		var created bool
		for _, e := range h.srv.Journal().Entries() {
			created = created || e.Kind == server.EntryResponse && e.TaskID != ""
		}
		assert.True(t, created)
	})
	t.Run("connection-reset after the headers is RST_STREAM", func(t *testing.T) {
		t.Parallel()
		_, c := grpcRig(t, false, "connection-reset:after=3")
		_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "RST_STREAM")
		// The reset is the call's, not the connection's: an error answer
		// (trailers-only, no message bytes to count) goes through.
		_, err = c.GetTask(grpcCtx(t), &a2apb.GetTaskRequest{Id: "none"})
		assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
		_, err = c.SendMessage(grpcCtx(t), grpcSend("y"))
		assert.Contains(t, err.Error(), "RST_STREAM")
	})
	t.Run("truncated-body is a cut message without trailers", func(t *testing.T) {
		t.Parallel()
		_, c := grpcRig(t, false, "truncated-body:bytes=7")
		_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
		require.Error(t, err)
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
		assert.NotContains(t, err.Error(), "RST_STREAM", "a clean end of stream, not a reset")
	})
	t.Run("stream faults cut the stream's first message", func(t *testing.T) {
		t.Parallel()
		for spec, reset := range map[string]bool{"truncated-body:bytes=4": false, "connection-reset:after=4": true} {
			_, c := grpcRig(t, false, spec)
			s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("x"))
			require.NoError(t, err, spec)
			_, err = s.Recv()
			require.Error(t, err, spec)
			assert.Equal(t, codes.Internal, status.Code(err), "%s: %v", spec, err)
			assert.Equal(t, reset, strings.Contains(err.Error(), "RST_STREAM"), "%s: %v", spec, err)
		}
	})
	t.Run("sse-framing leaves gRPC streams alone", func(t *testing.T) {
		t.Parallel()
		_, c := grpcRig(t, false, "sse-framing:variant=split|crlf|comments")
		s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("x"))
		require.NoError(t, err)
		var last a2apb.TaskState
		for {
			ev, err := s.Recv()
			if err != nil {
				assert.ErrorIs(t, err, io.EOF)
				break
			}
			if su := ev.GetStatusUpdate(); su != nil {
				last = su.GetStatus().GetState()
			}
		}
		assert.Equal(t, a2apb.TaskState_TASK_STATE_COMPLETED, last)
	})
	t.Run("malformed-json is a message that does not decode", func(t *testing.T) {
		t.Parallel()
		_, c := grpcRig(t, false, "malformed-json:event=2")
		_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
		assert.Equal(t, codes.OK, status.Code(err), "the unary answer is message 1: intact")
		s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("y"))
		require.NoError(t, err)
		_, err = s.Recv()
		require.NoError(t, err, "message 1 is intact")
		_, err = s.Recv()
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
		assert.Contains(t, err.Error(), "unmarshal")
	})
	t.Run("stream-hang never sends the trailers", func(t *testing.T) {
		t.Parallel()
		_, c := grpcRig(t, false, "stream-hang")
		ctx, cancel := context.WithTimeout(grpcCtx(t), 10*time.Second)
		defer cancel()
		s, err := c.SendStreamingMessage(ctx, grpcSend("x"))
		require.NoError(t, err)
		var last a2apb.TaskState
		for last != a2apb.TaskState_TASK_STATE_COMPLETED {
			ev, err := s.Recv()
			require.NoError(t, err)
			if su := ev.GetStatusUpdate(); su != nil {
				last = su.GetStatus().GetState()
			}
		}
		// After the final event nothing comes: no message, no trailers.
		got := make(chan error, 1)
		go func() {
			_, err := s.Recv()
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("the stream ended: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		cancel()
		assert.Equal(t, codes.Canceled, status.Code(<-got), "only the client ends it")
	})
	t.Run("latency past the deadline is DEADLINE_EXCEEDED from the server", func(t *testing.T) {
		t.Parallel()
		clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		h, c := grpcClockRig(t, clk, "latency:delay=10m")
		ctx, cancel := context.WithTimeout(grpcCtx(t), 15*time.Second)
		defer cancel()
		got := make(chan error, 1)
		go func() {
			_, err := c.SendMessage(ctx, grpcSend("x"))
			got <- err
		}()
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		// The call's deadline (grpc-timeout, ~15s) is due long before the
		// ten minutes: the server ends the call there, on its clock, with the
		// wall's deadline still far away.
		clk.Advance(16 * time.Second)
		err := <-got
		assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "grpc-timeout", "the server's status, not the client's timer")
		assert.NoError(t, ctx.Err())
		var journaled bool
		for _, e := range h.srv.Journal().Entries() {
			journaled = journaled || e.Kind == server.EntryResponse && strings.Contains(e.Detail, "DEADLINE_EXCEEDED")
		}
		assert.True(t, journaled)
	})
	t.Run("latency phase=body past the deadline ends with DEADLINE_EXCEEDED trailers", func(t *testing.T) {
		t.Parallel()
		clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		_, c := grpcClockRig(t, clk, "latency:delay=10m,phase=body")
		ctx, cancel := context.WithTimeout(grpcCtx(t), 15*time.Second)
		defer cancel()
		got := make(chan error, 1)
		var header metadata.MD
		go func() {
			_, err := c.SendMessage(ctx, grpcSend("x"), grpc.Header(&header))
			got <- err
		}()
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		clk.Advance(16 * time.Second)
		err := <-got
		assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "grpc-timeout")
		assert.Equal(t, []string{"application/grpc"}, header.Get("content-type"), "the headers went out before the hold")
	})
	t.Run("latency within the deadline answers", func(t *testing.T) {
		t.Parallel()
		clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		_, c := grpcClockRig(t, clk, "latency:delay=5s,phase=body")
		ctx, cancel := context.WithTimeout(grpcCtx(t), 15*time.Second)
		defer cancel()
		got := make(chan error, 1)
		go func() {
			_, err := c.SendMessage(ctx, grpcSend("x"))
			got <- err
		}()
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		clk.Advance(5 * time.Second)
		assert.NoError(t, <-got)
	})
}
