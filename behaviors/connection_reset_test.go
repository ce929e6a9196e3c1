package behaviors_test

import (
	"errors"
	"net/http"
	"syscall"
	"testing"

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
