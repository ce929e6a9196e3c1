package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// Every control-API error has one body shape, {"error":{"code","status",
// "message"}} (plus "field" where one is at fault): a path or method the
// control API does not serve answered {"error":{"code","message"}}.
func TestControlErrorShape(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 1, StepDelay: -1})
	// These answers are not in openapi.json, by design: skip its check.
	h.client = &http.Client{}
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/_a2amock/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/_a2amock/", http.StatusNotFound, ""},
		{http.MethodPost, "/_a2amock/journal", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, "/_a2amock/reset", http.StatusMethodNotAllowed, "POST"},
		{http.MethodHead, "/_a2amock/reset", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, "/_a2amock/agents/nope", http.StatusMethodNotAllowed, "GET, HEAD, DELETE"},
		{http.MethodPatch, "/_a2amock/behaviors", http.StatusMethodNotAllowed, "GET, HEAD, PUT, DELETE"},
		{http.MethodPost, "/_a2amock/ui", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, "/_a2amock/ui", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPost, "/_a2amock/ui/x", http.StatusNotFound, ""},
		{"PROPFIND", "/_a2amock/journal", http.StatusNotFound, ""},
		{http.MethodGet, "/_a2amock/agents/nope", http.StatusNotFound, ""},
		{http.MethodPost, "/_a2amock/reset?agent=nope", http.StatusNotFound, ""},
	} {
		status, hdr, b := h.do(c.method, c.path, nil, nil)
		assert.Equal(t, c.status, status, "%s %s: %s", c.method, c.path, b)
		assert.Equal(t, c.allow, hdr.Get("Allow"), "%s %s", c.method, c.path)
		if c.method == http.MethodHead {
			continue // no body
		}
		assert.Contains(t, hdr.Get("Content-Type"), "application/json")
		var body struct {
			Error map[string]any `json:"error"`
		}
		require.NoError(t, json.Unmarshal(b, &body), "%s", b)
		require.NotNil(t, body.Error, "%s %s: %s", c.method, c.path, b)
		assert.EqualValues(t, status, body.Error["code"], "%s %s", c.method, c.path)
		assert.Equal(t, wire.GRPCStatusName(c.status), body.Error["status"], "%s %s: %s", c.method, c.path, b)
		assert.NotEmpty(t, body.Error["message"], "%s %s", c.method, c.path)
		if c.allow != "" {
			assert.Contains(t, body.Error["message"], c.allow+" only, not "+c.method, "%s %s", c.method, c.path)
		}
		for k := range body.Error {
			assert.Contains(t, []string{"code", "status", "message", "field"}, k, "%s %s: %s", c.method, c.path, b)
		}
	}
}

// TestControlHeadIsGet: HEAD on a GET route of the control API (the UI page
// included) is answered as GET without the body, as net/http answers it;
// on the journal's event stream it ends with the header, and the
// connection serves the next request.
func TestControlHeadIsGet(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 1, StepDelay: -1})
	for _, path := range []string{"/_a2amock/healthz", "/_a2amock/journal", "/_a2amock/journal/stream", "/_a2amock/ui",
		"/_a2amock/behaviors", "/_a2amock/catalogue", "/_a2amock/agents", "/_a2amock/agents/agent", "/_a2amock/metrics",
		"/_a2amock/openapi.json", "/_a2amock/agents/nope"} {
		status, hdr, b := h.do(http.MethodHead, path, nil, nil)
		assert.Empty(t, b, "HEAD %s", path)
		assert.Empty(t, hdr.Get("Allow"), "HEAD %s", path)
		want := http.StatusOK
		if path == "/_a2amock/agents/nope" {
			want = http.StatusNotFound
		}
		assert.Equal(t, want, status, "HEAD %s", path)
		if path != "/_a2amock/journal/stream" {
			gs, ghdr, _ := h.do(http.MethodGet, path, nil, nil)
			assert.Equal(t, gs, status, "HEAD %s answers as GET", path)
			assert.Equal(t, ghdr.Get("Content-Type"), hdr.Get("Content-Type"), "HEAD %s", path)
		} else {
			assert.Equal(t, "text/event-stream", hdr.Get("Content-Type"))
		}
	}
}
