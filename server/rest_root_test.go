package server_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// The HTTP+JSON routes answer at the agent's base URL as well as under
// {agent}/rest: the a2a CLI and a2a-go post to URL/message:send when told to
// use REST without reading the card. JSON-RPC keeps POST {agent}/, and the
// card keeps declaring {agent}/rest.
func TestRESTAtAgentRoot(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 4, StepDelay: time.Millisecond, Agents: []server.AgentConfig{
		{Name: "first", Card: testCard(wire.V10, true)}, {Name: "second", Card: testCard(wire.V10, true)}}})
	for _, base := range []string{"", "/agents/second", "/agents/first/acme"} {
		status, _, b := h.post(base+"/message:send", []byte(`{"message":{"messageId":"m-root`+base+`","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), v1)
		require.Equal(t, http.StatusOK, status, "%s/message:send: %s", base, b)
		schemacheck.Require(t, wire.V10, "SendMessageResponse", b)
		var res struct{ Task struct{ ID string } }
		require.NoError(t, json.Unmarshal(b, &res))
		require.NotEmpty(t, res.Task.ID)

		status, _, b = h.do(http.MethodGet, base+"/tasks/"+res.Task.ID, nil, v1)
		require.Equal(t, http.StatusOK, status, "%s/tasks/{id}: %s", base, b)
		schemacheck.Require(t, wire.V10, "Task", b)
		status, _, b = h.do(http.MethodGet, base+"/tasks?pageSize=5", nil, v1)
		require.Equal(t, http.StatusOK, status, "%s/tasks: %s", base, b)
		status, _, b = h.do(http.MethodGet, base+"/tasks/"+res.Task.ID+"/pushNotificationConfigs", nil, v1)
		require.Equal(t, http.StatusOK, status, "%s push configs: %s", base, b)
		status, _, b = h.post(base+"/tasks/"+res.Task.ID+":cancel", []byte(`{}`), v1)
		assert.Equal(t, http.StatusBadRequest, status, "a completed task cannot be canceled: %s", b)
		assert.Equal(t, "TASK_NOT_CANCELABLE", restReason(t, status, b))

		st, ct, body, frames := h.openStream(base+"/message:stream", []byte(`{"message":{"messageId":"m-stream`+base+`","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), v1)
		require.Equal(t, http.StatusOK, st, "%s/message:stream: %s", base, body)
		require.Equal(t, "text/event-stream", ct)
		require.Len(t, frames, 4)

		// A wrong method on a root route is that route's 405.
		status, hdr, b := h.do(http.MethodGet, base+"/message:send", nil, v1)
		assert.Equal(t, http.StatusMethodNotAllowed, status, "%s", b)
		assert.Equal(t, "POST", hdr.Get("Allow"))
	}
	// JSON-RPC is where it was, and the card still declares /rest.
	r, raw := h.rpc("/", "GetTask", map[string]any{"id": "none"}, v1)
	require.NotNil(t, r.Error, "%s", raw)
	assert.Equal(t, wire.CodeTaskNotFound, r.Error.Code)
	_, _, card := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
	assert.Contains(t, string(card), h.url+"/rest")
	// A path that is no route stays 404.
	status, _, b := h.do(http.MethodGet, "/nothing-here", nil, nil)
	assert.Equal(t, http.StatusNotFound, status, "%s", b)
}

// /rest/tasks/ (and /tasks/ at the root) names no resource: it was served
// as the task list.
func TestRESTTrailingSlashIsNoRoute(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 4, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	for _, p := range []string{"/rest/tasks/", "/tasks/", "/rest//tasks", "/rest/message:send/"} {
		status, _, b := h.do(http.MethodGet, p, nil, v1)
		assert.Equal(t, http.StatusNotFound, status, "%s: %s", p, b)
	}
	status, _, b := h.do(http.MethodGet, "/rest/tasks", nil, v1)
	assert.Equal(t, http.StatusOK, status, "%s", b)
}
