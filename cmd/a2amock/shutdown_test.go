package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowClients opens one connection trickling a request body and one that
// sent a header line and then nothing, as the probe did (200 of them were
// all still held after 30s, and one made shutdown take 5s and exit 1).
// It returns once the server answers the body's 100-continue, which it
// sends when its handler first reads the body: connections are accepted in
// the order they were dialed, so the trickled header is held by then too
// (a sleep only made both likely). The function it returns, called after
// the server stopped, checks how the trickled request ended and closes both.
func slowClients(t *testing.T, base string) func() {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	for _, req := range []string{
		"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: ",
		"POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n{\"jsonrpc\":",
	} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	body := conns[len(conns)-1]
	require.NoError(t, body.SetReadDeadline(time.Now().Add(10*time.Second)))
	br := bufio.NewReader(body)
	line, err := br.ReadString('\n')
	require.NoError(t, err, "the server never read the body")
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	return func() {
		// A prompt shutdown ends the trickled body's read, so the handler
		// answers the request (its read error); one that waited on it until
		// its deadline just cut the connection. record and replay exit 0
		// either way, so this is what tells.
		rest, _ := io.ReadAll(br)
		assert.Contains(t, string(rest), "\r\nHTTP/1.1 ", "the trickled request was cut, not answered: shutdown waited on it")
		for _, c := range conns {
			_ = c.Close()
		}
	}
}

// TestShutdownWithSlowClients: serve, serve --gateway, record and replay
// each stop promptly and exit 0 while slow clients hold connections.
func TestShutdownWithSlowClients(t *testing.T) {
	t.Parallel()
	up := startUpstream(t)
	out := filepath.Join(t.TempDir(), "rec.json")

	run := func(name string, f func(ctx context.Context, ready chan<- string) int) {
		base, stop := startCmd(t, f)
		checkAndClose := slowClients(t, base)
		defer checkAndClose()
		// Exit 0: a shutdown that waited on the slow clients ran into its
		// 5s deadline and exited 1.
		assert.Equal(t, 0, stop(), "%s waited on slow clients", name)
	}
	run("serve", func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--addr", "127.0.0.1:0", "--log-level", "error"}, io.Discard, io.Discard, ready)
	})
	run("serve --gateway", func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--gateway", "--addr", "127.0.0.1:0", "--log-level", "error"}, io.Discard, io.Discard, ready)
	})
	run("record", func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", up.URL(), "--out", out, "--addr", "127.0.0.1:0"}, io.Discard, io.Discard, ready)
	})
	run("replay", func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{"--addr", "127.0.0.1:0", out}, io.Discard, io.Discard, ready)
	})
}
