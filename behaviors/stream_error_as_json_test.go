package behaviors_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

func TestStreamErrorAsJSON(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "stream-error-as-json:code=-32004,message=nope,call=1"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := r.rpcRequest("SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
	_, err := sse.Do(ctx, r.client, req)
	var nse *sse.NotAStreamError
	require.ErrorAs(t, err, &nse)
	assert.Equal(t, http.StatusOK, nse.Status)
	assert.Equal(t, "application/json", nse.ContentType)
	var env rpcReply
	require.NoError(t, json.Unmarshal(nse.Body, &env))
	require.NotNil(t, env.Error)
	assert.Equal(t, -32004, env.Error.Code)
	assert.Equal(t, "nope", env.Error.Message)
	assert.Equal(t, "1", string(env.ID), "the request's id is echoed")
	// No task was created.
	rep := r.rpc("ListTasks", map[string]any{})
	require.Nil(t, rep.Error)
	assert.NotContains(t, string(rep.Result), `"id"`)

	obs, err := r.streamMessage(wire.V10, "hi", "s1")
	require.NoError(t, err, "call 2 is out of scope")
	assert.Equal(t, "completed", obs[len(obs)-1].State)
}

func TestStreamErrorAsJSONOverREST(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "stream-error-as-json"))
	body, err := json.Marshal(map[string]any{"message": message(wire.V10, "hi", "s1", "")})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, r.base+"/rest/message:stream", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	_, err = sse.Do(context.Background(), r.client, req)
	var nse *sse.NotAStreamError
	require.ErrorAs(t, err, &nse)
	assert.Equal(t, http.StatusInternalServerError, nse.Status)
	assert.Contains(t, string(nse.Body), `"code":500`)
}
