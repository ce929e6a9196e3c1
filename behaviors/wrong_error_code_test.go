package behaviors_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestWrongErrorCode(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "wrong-error-code"))
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		assert.Equal(t, -32602, r.get(d, "missing").Code, d)
		assert.Equal(t, -32602, r.cancel(d, "missing").Code, d)
		assert.Equal(t, -32602, r.sendTo(d, message(d, "x", "quick", "missing")).Code, d)
	}
	// Other errors are untouched.
	done := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, -32002, r.cancel(wire.V10, done.Task.ID).Code)

	// HTTP+JSON: the status follows the wrong code (400, not 404).
	resp, err := r.client.Get(r.base + "/rest/tasks/missing")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", b)
}

func TestWrongErrorCodeScopeAndParams(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "wrong-error-code:from=-32001,to=-32603,method=tasks/get"))
	assert.Equal(t, -32603, r.get(wire.V03, "missing").Code)
	assert.Equal(t, -32001, r.get(wire.V10, "missing").Code, "GetTask is out of scope")

	_, err := parseErr("wrong-error-code:from=1,to=1")
	require.ErrorContains(t, err, "from and to must differ")
	_, err = parseErr("wrong-error-code:from=x")
	require.ErrorContains(t, err, `"x" is not an integer`)
}

// The error that refuses a stream before it starts is rewritten too.
func TestWrongErrorCodeStreamRefusal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "wrong-error-code:op=subscribe|stream"))
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		assert.Equal(t, -32602, r.streamErrorCode(method(d, wire.OpSubscribe), map[string]any{"id": "missing"}), d)
		assert.Equal(t, -32602, r.streamErrorCode(method(d, wire.OpStream), map[string]any{"message": message(d, "x", "quick", "missing")}), d)
	}
	assert.Equal(t, -32001, r.get(wire.V10, "missing").Code, "get-task is out of scope")
}

// streamErrorCode opens a stream the agent refuses and returns the code of
// the JSON-RPC error it carries as its only event.
func (r *rig) streamErrorCode(name string, params any) int {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, name, params)
	require.NoError(r.t, err)
	defer s.Close()
	for ev, err := range s.Events() {
		require.NoError(r.t, err)
		var rep rpcReply
		require.NoError(r.t, json.Unmarshal(ev.Data, &rep))
		require.NotNil(r.t, rep.Error, "%s", ev.Data)
		return rep.Error.Code
	}
	r.t.Fatal("the stream carried no event")
	return 0
}
