package main

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// slowClients opens one connection trickling a request body and one that
// sent a header line and then nothing, as the probe did (200 of them were
// all still held after 30s, and one made shutdown take 5s and exit 1).
func slowClients(t *testing.T, base string) func() {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	for _, req := range []string{
		"POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"jsonrpc\":",
		"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: ",
	} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond) // let the server start reading them
	return func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}
}

// TestShutdownWithSlowClients: serve, serve --gateway, record and replay
// each stop promptly and exit 0 while slow clients hold connections.
func TestShutdownWithSlowClients(t *testing.T) {
	t.Parallel()
	up, err := server.New(server.Config{Seed: 3, StepDelay: -1})
	require.NoError(t, err)
	require.NoError(t, up.Start("127.0.0.1:0"))
	defer up.Close()
	out := filepath.Join(t.TempDir(), "rec.json")

	run := func(name string, f func(ctx context.Context, ready chan<- string) int) {
		base, stop := startCmd(t, f)
		closeConns := slowClients(t, base)
		defer closeConns()
		began := time.Now()
		assert.Equal(t, 0, stop(), name)
		assert.Less(t, time.Since(began), 3*time.Second, "%s waited on slow clients", name)
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
