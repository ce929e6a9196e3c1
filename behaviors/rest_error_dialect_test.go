package behaviors_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestRESTErrorDialect(t *testing.T) {
	t.Parallel()
	get := func(r *rig) (*http.Response, map[string]any, []byte) {
		resp, body := r.restCall(http.MethodGet, "/tasks/nope", nil)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		return resp, m, body
	}
	t.Run("problem", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "rest-error-dialect"))
		resp, m, body := get(r)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
		assert.EqualValues(t, 404, m["status"], "%s", body)
		assert.Equal(t, "Not Found", m["title"])
		assert.Contains(t, m["detail"], "nope")
		assert.Equal(t, "TASK_NOT_FOUND", m["reason"])
		assert.Equal(t, "https://a2a-protocol.org/errors/TASK_NOT_FOUND", m["type"])
		assert.NotContains(t, m, "error")
	})
	t.Run("string", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "rest-error-dialect:mode=string"))
		resp, _, body := get(r)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		var s string
		require.NoError(t, json.Unmarshal(body, &s), "%s", body)
		assert.Contains(t, s, "nope")
	})
	t.Run("no-details", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "rest-error-dialect:mode=no-details"))
		resp, m, body := get(r)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		e, _ := m["error"].(map[string]any)
		require.NotNil(t, e, "%s", body)
		assert.EqualValues(t, 404, e["code"])
		assert.NotContains(t, e, "details")
	})
	t.Run("reason-mismatch", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "rest-error-dialect:mode=reason-mismatch"))
		resp, _, body := get(r)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Contains(t, string(body), `"reason":"UNSUPPORTED_OPERATION"`)
		// An error of another kind claims to be task-not-found.
		id := r.send(wire.V10, "hi", "s1", false)
		resp, body = r.restCall(http.MethodPost, "/tasks/"+id+":cancel", map[string]any{})
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
		assert.Contains(t, string(body), `"reason":"TASK_NOT_FOUND"`)
	})
	t.Run("scope", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "rest-error-dialect:mode=string"))
		resp, body := r.restCall(http.MethodPost, "/message:send", sendParams("hi"))
		assert.Equal(t, http.StatusOK, resp.StatusCode, "successes are untouched")
		assert.Contains(t, string(body), `"task"`)
		rep := r.rpc("GetTask", map[string]any{"id": "nope"})
		require.NotNil(t, rep.Error, "JSON-RPC errors are untouched")
		assert.Equal(t, -32001, rep.Error.Code)
	})
}

func TestRESTErrorDialectRejectsBadMode(t *testing.T) {
	t.Parallel()
	_, err := behaviorsParse("rest-error-dialect:mode=xml")
	assert.Error(t, err)
}
