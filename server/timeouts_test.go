package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// closedWithin reports whether the server closes conn within d.
func closedWithin(t *testing.T, conn net.Conn, d time.Duration) bool {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(d)))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestSlowAndIdleClientsAreCut: the server set only ReadHeaderTimeout, so
// connections trickling a body or sitting idle were held for good (200 of
// them, up to the descriptor limit). Bodies now have a read timeout and
// kept-alive connections an idle timeout.
func TestSlowAndIdleClientsAreCut(t *testing.T) {
	t.Parallel()
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	addr := strings.TrimPrefix(s.URL(), "http://")

	trickle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer trickle.Close()
	_, err = io.WriteString(trickle, "POST / HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"js")
	require.NoError(t, err)
	assert.True(t, closedWithin(t, trickle, 5*time.Second), "a trickled body holds its connection")

	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	_, err = io.WriteString(idle, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, closedWithin(t, idle, 5*time.Second), "an idle kept-alive connection is held")
}

// TestStreamOutlivesReadTimeout: the read timeout bounds reading the
// request, not the response: a stream that lasts longer still ends with
// its terminal event.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 1, StepDelay: 150 * time.Millisecond, ReadTimeout: 100 * time.Millisecond, Agents: agentsFor(dialectCases[0], false)})
	began := time.Now()
	frames := h.streamFrames("/", rpcBody("SendStreamingMessage", newClient(t, h, dialectCases[0]).sendParams(sendOpts{})), v1)
	require.Greater(t, time.Since(began), 200*time.Millisecond, "the stream must outlast the read timeout for this test to mean anything")
	require.NotEmpty(t, frames)
	assert.Contains(t, string(frames[len(frames)-1]), "TASK_STATE_COMPLETED")
}

// TestCloseWithTricklingClient: one client trickling a request made
// shutdown wait its 5s bound and fail (serve exited 1). Close now returns
// cleanly: an error would say Shutdown ran into its deadline.
func TestCloseWithTricklingClient(t *testing.T) {
	t.Parallel()
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1})
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	addr := strings.TrimPrefix(s.URL(), "http://")
	header, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer header.Close()
	_, err = io.WriteString(header, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	require.NoError(t, err)
	body := readingBody(t, addr)
	defer body.Close()
	assert.NoError(t, s.Close())
}

// readingBody dials addr and sends a request whose body never ends, and
// returns once the server's handler is reading that body: it asks for a
// 100 Continue, which the server sends at the handler's first read. As the
// server accepts connections in the order they were dialed, connections
// dialed before are held by then too (a sleep only made both likely).
func readingBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err, "the server never read the body")
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	require.NoError(t, c.SetReadDeadline(time.Time{}))
	return c
}
