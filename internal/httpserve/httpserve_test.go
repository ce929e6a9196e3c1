package httpserve

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/syncbuf"
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
	}), Timeouts{Read: 200 * time.Millisecond, Idle: 200 * time.Millisecond}, nil, nil)
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
// a client trickling a body or a header made Shutdown wait its whole bound
// (here it would run into its 5s deadline and return that error).
func TestShutdownDoesNotWaitOnSlowClients(t *testing.T) {
	t.Parallel()
	s := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}), Timeouts{}, nil, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	dial := func(req string) net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
		return c
	}
	header := dial("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	defer header.Close()
	body := dial("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\nab")
	defer body.Close()
	// The server sends 100 Continue when the handler first reads the body;
	// connections are accepted in the order they were dialed, so by then
	// the trickled header is held too (a sleep only made both likely).
	require.NoError(t, body.SetReadDeadline(time.Now().Add(10*time.Second)))
	line, err := bufio.NewReader(body).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	s.mu.Lock()
	held := len(s.conns)
	s.mu.Unlock()
	assert.Equal(t, 2, held, "both slow clients are held")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.NoError(t, s.Shutdown(ctx), "Shutdown waited on a slow client until its deadline")
	assert.ErrorIs(t, <-served, http.ErrServerClosed)
}

// TestErrorLogGoesToTheLogger: net/http's own error lines (here a failed
// TLS handshake) reach the logger New is given, as warnings, not the
// process's standard logger.
func TestErrorLogGoesToTheLogger(t *testing.T) {
	t.Parallel()
	var logged syncbuf.Buffer
	s := New(http.NotFoundHandler(), Timeouts{}, nil, slog.New(slog.NewTextHandler(&logged, nil)))
	certs := httptest.NewTLSServer(http.NotFoundHandler())
	cfg := &tls.Config{Certificates: certs.TLS.Certificates}
	certs.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(tls.NewListener(ln, cfg)) }()

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	_, _ = c.Write([]byte("\x16\x03\x01\x00\x05hello"))
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, _ = io.Copy(io.Discard, c)
	_ = c.Close()
	assert.Eventually(t, func() bool { return strings.Contains(logged.String(), "TLS handshake error") }, 3*time.Second, 10*time.Millisecond)
	assert.Contains(t, logged.String(), "level=WARN")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
	assert.ErrorIs(t, <-served, http.ErrServerClosed)
}
