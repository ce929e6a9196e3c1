package behaviors_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConnectionReset(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "connection-reset:call=1"))
	_, _, err := r.raw("SendMessage", sendParams("hi"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "want a reset, got %v", err)

	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err, "call 2 is out of scope")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "TASK_STATE_COMPLETED")
}

func TestConnectionResetAfterBytes(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "connection-reset:after=10"))
	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "want a reset, got %v", err)
	if resp != nil {
		// The head made it: the body is at most the 10 bytes sent.
		assert.LessOrEqual(t, len(body), 10)
	}
	// A stream is reset the same way.
	_, _, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.Error(t, err)
}

// With after=0 not one byte of the answer may reach the client: the reset
// comes where the status line would have.
func TestConnectionResetSendsNothingFirst(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "connection-reset"))
	u, err := url.Parse(r.base)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", u.Host, len(body), body)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	got, err := io.ReadAll(conn)
	assert.Empty(t, string(got), "no status line or header before the reset")
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "want a reset, got %v", err)
}
