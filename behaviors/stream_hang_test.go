package behaviors_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// rawLines streams a message and returns the raw SSE lines read until stop
// says enough, and whether the server ended the body by itself.
func rawLines(t *testing.T, r *rig, skill string, stop func(lines []string) bool) ([]string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := r.rpcRequest("SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", skill, "")})
	resp, err := r.client.Do(req.WithContext(ctx))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if stop(lines) {
			return lines, false
		}
	}
	require.NoError(t, sc.Err())
	return lines, true
}

func TestStreamHang(t *testing.T) {
	t.Parallel()
	// On the fake clock, with a one-minute keep-alive: a keep-alive is
	// written only when the test moves the clock (with a 10ms keep-alive on
	// the wall clock, one could come before the terminal event on a loaded
	// machine, which the out-of-scope case rules out).
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newRig(t, rigOptions{keepAlive: time.Minute, clock: clk}, parse(t, "stream-hang:skill=s1"))
	// After the terminal event, keep-alives keep coming: the server holds
	// the stream open until the client leaves.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := r.rpcRequest("SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
	resp, err := r.client.Do(req.WithContext(ctx))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := sc.Text(); l != "" {
				lines <- l
			}
		}
	}()
	nextLine := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the server ended the stream")
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10s")
			return ""
		}
	}
	for done := false; !done; {
		done = strings.Contains(nextLine(), "TASK_STATE_COMPLETED")
	}
	for i := range 3 {
		blockUntil(t, clk, 1) // the held stream's keep-alive
		clk.Advance(time.Minute)
		assert.Equal(t, ": keep-alive", nextLine(), "keep-alive %d after the terminal event", i+1)
	}
	cancel()

	// Out of scope (skill s2): the stream ends right after the terminal
	// event, without keep-alives.
	got, ended := rawLines(t, r, "s2", func([]string) bool { return false })
	assert.True(t, ended)
	assert.Contains(t, strings.Join(got, "\n"), "TASK_STATE_COMPLETED")
	assert.NotContains(t, got, ": keep-alive")
}
