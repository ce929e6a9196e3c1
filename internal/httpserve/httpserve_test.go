package httpserve

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeoutsAndPromptShutdown: every a2amock listener is built by New, so
// this is the read timeout, idle timeout and shutdown of the gateway's
// front, record and replay as well as the mock's.
func TestTimeoutsAndPromptShutdown(t *testing.T) {
	t.Parallel()
	s := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}), Timeouts{Read: 200 * time.Millisecond, Idle: 200 * time.Millisecond}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	addr := ln.Addr().String()

	closedWithin := func(c net.Conn, d time.Duration) bool {
		_ = c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c)
		ne, ok := err.(net.Error)
		return !(ok && ne.Timeout())
	}
	dial := func(req string) net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
		return c
	}
	trickle := dial("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab")
	defer trickle.Close()
	assert.True(t, closedWithin(trickle, 3*time.Second), "a trickled body is cut by the read timeout")
	idle := dial("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	defer idle.Close()
	assert.True(t, closedWithin(idle, 3*time.Second), "an idle connection is closed")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
	assert.ErrorIs(t, <-served, http.ErrServerClosed)
}

// TestShutdownDoesNotWaitOnSlowClients: with the default 30s read timeout,
// a client trickling a body or a header made Shutdown wait its whole bound.
func TestShutdownDoesNotWaitOnSlowClients(t *testing.T) {
	t.Parallel()
	s := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}), Timeouts{}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	for _, req := range []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "} {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
	}
	time.Sleep(50 * time.Millisecond) // let the server start reading them
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.NoError(t, s.Shutdown(ctx))
	assert.Less(t, time.Since(began), time.Second, "Shutdown waited on a slow client")
	assert.ErrorIs(t, <-served, http.ErrServerClosed)
}
