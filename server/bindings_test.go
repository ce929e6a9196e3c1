package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestBindingsDeclaredAndServed: an agent whose card declares HTTP+JSON
// only lists that interface alone and answers JSON-RPC 404, as an agent
// without the JSON-RPC binding does; one declaring JSON-RPC only refuses
// the HTTP+JSON routes (under /rest and at its base URL).
func TestBindingsDeclaredAndServed(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "rest", Card: testCard(wire.V10, false), Bindings: []wire.Binding{wire.BindingREST}},
		{Name: "rpc", Card: testCard(wire.V10, false), Bindings: []wire.Binding{wire.BindingJSONRPC}},
		{Name: "both", Card: testCard(wire.V10, false)},
	}})
	interfaces := func(agent string) []cards.Interface {
		status, _, b := h.do(http.MethodGet, "/agents/"+agent+"/.well-known/agent-card.json", nil, nil)
		require.Equal(t, http.StatusOK, status)
		c, err := cards.Parse(b)
		require.NoError(t, err)
		return c.Interfaces
	}
	rest := interfaces("rest")
	require.Len(t, rest, 1)
	assert.Equal(t, wire.BindingREST, rest[0].Binding)
	assert.Equal(t, h.url+"/agents/rest/rest", rest[0].URL)
	rpc := interfaces("rpc")
	require.Len(t, rpc, 1)
	assert.Equal(t, wire.BindingJSONRPC, rpc[0].Binding)
	assert.Len(t, interfaces("both"), 2)

	send := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	v10 := map[string]string{"A2A-Version": "1.0"}
	status, _, b := h.post("/agents/rest/", rpcBody("SendMessage", json.RawMessage(send)), v10)
	assert.Equal(t, http.StatusNotFound, status, "JSON-RPC to an HTTP+JSON-only agent: %s", b)
	assert.Contains(t, string(b), "does not serve JSONRPC")
	status, _, b = h.post("/agents/rest/rest/message:send", []byte(send), v10)
	assert.Equal(t, http.StatusOK, status, "%s", b)
	assert.Contains(t, string(b), `"task"`)

	for _, p := range []string{"/agents/rpc/rest/message:send", "/agents/rpc/message:send"} {
		status, _, b = h.post(p, []byte(send), v10)
		assert.Equal(t, http.StatusNotFound, status, "%s to a JSON-RPC-only agent: %s", p, b)
	}
	r, _ := h.rpc("/agents/rpc/", "SendMessage", json.RawMessage(send), v10)
	assert.Nil(t, r.Error)
}

func TestBindingsRefused(t *testing.T) {
	t.Parallel()
	for name, ac := range map[string]server.AgentConfig{
		"HTTP+JSON on a v0.2 card": {Name: "a", Card: testCard(wire.V02, false), Bindings: []wire.Binding{wire.BindingREST}},
		"unknown binding":          {Name: "a", Card: testCard(wire.V10, false), Bindings: []wire.Binding{"GRPC"}},
	} {
		_, err := server.New(server.Config{Agents: []server.AgentConfig{ac}})
		assert.ErrorContains(t, err, "bindings", name)
	}
}
