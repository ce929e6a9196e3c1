package server_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// A v1.0 send carrying members v1.0 does not define (a v0.3 client's
// blocking and pushNotificationConfig, a part's kind) is served as servers
// serve it, the members skipped, and its journal entry lists them by path,
// over JSON-RPC and over HTTP+JSON alike.
func TestJournalListsIgnoredMembers(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 5, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
	params := map[string]any{
		"message": map[string]any{"messageId": "m-rpc", "role": "ROLE_USER", "parts": []any{map[string]any{"kind": "text", "text": "hi"}}},
		"configuration": map[string]any{"blocking": false,
			"pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:1/hook"}},
	}
	resp, raw := h.rpc("/", "SendMessage", params, map[string]string{"A2A-Version": "1.0"})
	require.Nil(t, resp.Error, "%s", raw)

	params["message"].(map[string]any)["messageId"] = "m-rest"
	body, err := json.Marshal(params)
	require.NoError(t, err)
	status, _, raw := h.post("/message:send", body, map[string]string{"Content-Type": "application/json", "A2A-Version": "1.0"})
	require.Equal(t, 200, status, "%s", raw)

	_, _, raw = h.do("GET", "/_a2amock/journal?kind=request", nil, nil)
	var j struct {
		Entries []struct {
			MessageID string   `json:"messageId"`
			Binding   string   `json:"binding"`
			Ignored   []string `json:"ignored"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(raw, &j), "%s", raw)
	require.Len(t, j.Entries, 2)
	for _, e := range j.Entries {
		assert.ElementsMatch(t, []string{"message.parts[0].kind", "configuration.blocking", "configuration.pushNotificationConfig"}, e.Ignored,
			"%s over %s", e.MessageID, e.Binding)
	}
}
