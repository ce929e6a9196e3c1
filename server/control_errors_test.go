package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// Every control-API error has one body shape, {"error":{"code","status",
// "message"}} (plus "field" where one is at fault): a path or method the
// control API does not serve answered {"error":{"code","message"}}.
func TestControlErrorShape(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 1, StepDelay: -1})
	// These routes are not in openapi.json, by design: skip its check.
	h.client = &http.Client{}
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/_a2amock/nope"},
		{http.MethodGet, "/_a2amock/"},
		{http.MethodPost, "/_a2amock/journal"},
		{http.MethodDelete, "/_a2amock/reset"},
		{http.MethodPost, "/_a2amock/agents/nope"},
		{http.MethodGet, "/_a2amock/agents/nope"},
		{http.MethodPost, "/_a2amock/reset?agent=nope"},
	} {
		status, hdr, b := h.do(c.method, c.path, nil, nil)
		assert.Equal(t, http.StatusNotFound, status, "%s %s: %s", c.method, c.path, b)
		assert.Contains(t, hdr.Get("Content-Type"), "application/json")
		var body struct {
			Error map[string]any `json:"error"`
		}
		require.NoError(t, json.Unmarshal(b, &body), "%s", b)
		require.NotNil(t, body.Error, "%s %s: %s", c.method, c.path, b)
		assert.EqualValues(t, status, body.Error["code"], "%s %s", c.method, c.path)
		assert.Equal(t, "NOT_FOUND", body.Error["status"], "%s %s: %s", c.method, c.path, b)
		assert.NotEmpty(t, body.Error["message"], "%s %s", c.method, c.path)
		for k := range body.Error {
			assert.Contains(t, []string{"code", "status", "message", "field"}, k, "%s %s: %s", c.method, c.path, b)
		}
	}
}
