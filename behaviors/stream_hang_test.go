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
	r := newRig(t, rigOptions{keepAlive: 10 * time.Millisecond}, parse(t, "stream-hang:skill=s1"))
	// After the terminal event, keep-alives keep coming: the server holds
	// the stream open until the client leaves.
	keepAlivesAfterTerminal := func(lines []string) bool {
		n, done := 0, false
		for _, l := range lines {
			if strings.Contains(l, "TASK_STATE_COMPLETED") {
				done = true
			}
			if done && l == ": keep-alive" {
				n++
			}
		}
		return n >= 3
	}
	lines, ended := rawLines(t, r, "s1", keepAlivesAfterTerminal)
	assert.False(t, ended, "the server must not end the stream: %q", lines)

	// Out of scope (skill s2): the stream ends right after the terminal
	// event, without keep-alives.
	lines, ended = rawLines(t, r, "s2", keepAlivesAfterTerminal)
	assert.True(t, ended)
	assert.Contains(t, strings.Join(lines, "\n"), "TASK_STATE_COMPLETED")
	assert.NotContains(t, lines, ": keep-alive")
}
