package behaviors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// clockMock is a testkit mock on a fake clock whose honest lifecycle takes
// no time, so the only timers are the behaviors' delays and, on a stream,
// one keep-alive (a day, never reached here).
func clockMock(t *testing.T, spec string) (*testkit.Mock, *timeline.FakeClock) {
	t.Helper()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	mock := testkit.Start(t, testkit.WithCard("a", testCard(wire.V10, cards.Capabilities{Streaming: true})), testkit.WithClock(clk),
		testkit.WithStepDelay(-1), testkit.WithBehavior("a", spec),
		testkit.WithServerConfig(func(c *server.Config) { c.KeepAliveInterval = 24 * time.Hour }))
	return mock, clk
}

// blockUntil waits until n timers wait on clk, failing the test after five
// seconds of wall time instead of hanging.
func blockUntil(t *testing.T, clk *timeline.FakeClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, clk.BlockUntilContext(ctx, n), "waiting for %d timers on the fake clock (%d now)", n, clk.Waiters())
}

// blockUntilDue waits until a timer due within d waits on clk (the stream's
// keep-alive, a day away, does not count), failing after five seconds.
func blockUntilDue(t *testing.T, clk *timeline.FakeClock, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, clk.BlockUntilDue(ctx, d), "waiting for a timer due within %v (%d waiting)", d, clk.Waiters())
}

// rpcTo builds a v1.0 JSON-RPC request to url and a client that sends it
// (its idle connections are closed at cleanup).
func rpcTo(t *testing.T, ctx context.Context, url, method string, params any) (*http.Client, *http.Request) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}, req
}

// latency:phase=body waits on the server's clock: the headers come at once,
// the body only once the fake clock has moved by the delay, not a moment of
// wall time later.
func TestLatencyBodyOnFakeClock(t *testing.T) {
	t.Parallel()
	mock, clk := clockMock(t, "latency:delay=5m,phase=body")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, req := rpcTo(t, ctx, mock.AgentURL("a")+"/", "SendMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
	resp, err := cl.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the status line comes before the delay")
	body := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(resp.Body)
		body <- b
	}()
	blockUntil(t, clk, 1)
	clk.Advance(5*time.Minute - time.Nanosecond)
	select {
	case b := <-body:
		t.Fatalf("body before the delay: %s", b)
	default:
	}
	assert.Equal(t, 1, clk.Waiters(), "still holding the body back")
	clk.Advance(time.Nanosecond)
	assert.Contains(t, string(<-body), "TASK_STATE_COMPLETED")
	assert.Zero(t, clk.Waiters())
}

// slow-stream waits on the server's clock before every event: each event
// arrives exactly when the fake clock reaches its delay.
func TestSlowStreamOnFakeClock(t *testing.T) {
	t.Parallel()
	mock, clk := clockMock(t, "slow-stream:dist=fixed,delay=5m")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, req := rpcTo(t, ctx, mock.AgentURL("a")+"/", "SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
	s, err := sse.Do(ctx, cl, req)
	require.NoError(t, err)
	defer s.Close()
	events := make(chan string)
	go func() {
		defer close(events)
		for ev, err := range s.Events() {
			if err != nil {
				return
			}
			events <- string(ev.Data)
		}
	}()
	t0 := clk.Now()
	for i := 1; i <= 4; i++ {
		blockUntilDue(t, clk, 5*time.Minute) // the event's delay has begun
		clk.Advance(5 * time.Minute)
		ev, ok := <-events
		require.True(t, ok, "event %d", i)
		assert.Equal(t, t0.Add(time.Duration(i)*5*time.Minute), clk.Now(), "event %d after %d delays", i, i)
		if i == 4 {
			assert.Contains(t, ev, "TASK_STATE_COMPLETED")
		}
	}
	_, more := <-events
	assert.False(t, more, "the stream ends after the final event")
	mock.Close()
	assert.Zero(t, clk.Waiters(), "no delay or keep-alive timer outlives the stream")
}
