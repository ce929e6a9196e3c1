package behaviors_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// authServer hosts agent "a" with a bearer scheme, enforced, an extended
// card, and the behaviors given.
func authServer(t *testing.T, specs ...string) (base string, client *http.Client) {
	t.Helper()
	card := testCard(wire.V10, cards.Capabilities{Streaming: true, ExtendedAgentCard: true})
	card.SecuritySchemes = map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
	ext := testCard(wire.V10, cards.Capabilities{Streaming: true, ExtendedAgentCard: true})
	srv, err := server.New(server.Config{Seed: 3, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a", Card: card,
		ExtendedCard: ext, EnforceAuth: true, Behaviors: parseAll(t, specs)}}})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		require.NoError(t, srv.Close())
	})
	return srv.URL() + "/agents/a", &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func callAuth(t *testing.T, c *http.Client, url, method string, params any, token string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	return resp.StatusCode, out
}

func TestAuthFlaky(t *testing.T) {
	t.Parallel()
	base, c := authServer(t, "auth-flaky:times=2")
	params := map[string]any{"message": message(wire.V10, "hi", "s1", "")}
	status, out := callAuth(t, c, base+"/", "SendMessage", params, "")
	assert.Equal(t, http.StatusUnauthorized, status, "no token: refused by the agent, not counted")
	assert.NotNil(t, out["error"], "no token: a JSON-RPC error body")
	for i := range 2 {
		status, out = callAuth(t, c, base+"/", "SendMessage", params, server.TestBearerToken)
		assert.Equal(t, http.StatusUnauthorized, status, "valid token refused, try %d", i+1)
		require.NotNil(t, out["error"])
		assert.EqualValues(t, wire.CodeUnauthenticated, out["error"].(map[string]any)["code"])
	}
	status, out = callAuth(t, c, base+"/", "SendMessage", params, server.TestBearerToken)
	assert.Equal(t, http.StatusOK, status, "%v", out)
	assert.Nil(t, out["error"])
}
