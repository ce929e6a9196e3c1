package behaviors_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmptyResponse(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "empty-response:op=send|stream"))
	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, int64(0), resp.ContentLength)
	assert.Empty(t, body)
	var v any
	assert.Error(t, json.Unmarshal(body, &v), "nothing a client can decode")

	// A stream gets the same empty JSON answer, not an event stream.
	resp, body, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Empty(t, body)

	// The agent did act: ListTasks (out of scope) is answered in full and
	// shows the first task.
	rep := r.rpc("ListTasks", map[string]any{})
	require.Nil(t, rep.Error)
	assert.Contains(t, string(rep.Result), `"id"`)
}
