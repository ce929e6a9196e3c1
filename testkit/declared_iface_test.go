package testkit_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// TestUsedDeclaredInterfaceSeesRefusedRequests: the requests the mock
// refuses before serving them are journaled, so the interface assertion
// sees a client post to a binding the card does not declare, and does
// not blame a client whose request to a declared one was malformed.
func TestUsedDeclaredInterfaceSeesRefusedRequests(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithServerConfig(func(c *server.Config) {
		c.Agents = []server.AgentConfig{{Name: "rpc-only", Bindings: []wire.Binding{wire.BindingJSONRPC}}}
	}))
	card := &cards.Card{Name: "rpc-only", Dialect: wire.V10,
		Interfaces: []cards.Interface{{URL: m.URL + "/", Binding: wire.BindingJSONRPC, Version: wire.V10}}}
	post := func(path, body string) int {
		req, err := http.NewRequest(http.MethodPost, m.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := m.Client().Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	require.Equal(t, http.StatusOK, post("/", `{"jsonrpc":"2.0","id":1,"method":`), "a JSON-RPC parse error answers 200")
	passes(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, m.Journal(), card) })

	send := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	require.Equal(t, http.StatusNotFound, post("/message:send", send), "the card declares no HTTP+JSON")
	fails(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, m.Journal(), card) },
		"agent rpc-only: 1 of 2 request(s) used an interface the card does not declare",
		"a request over HTTP+JSON at /message:send", "declared:   JSONRPC 1.0 at /")
}
