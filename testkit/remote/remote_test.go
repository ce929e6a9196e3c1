package remote_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/remote"
)

func sendV1(t *testing.T, url, text string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + text + `"}]}}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// TestConnectSharedServer: two tests on one server get their own agents,
// behaviors and journals, and their agents go at cleanup.
func TestConnectSharedServer(t *testing.T) {
	shared, err := testkit.NewServer()
	require.NoError(t, err)
	defer shared.Close()
	defer http.DefaultClient.CloseIdleConnections()

	var names []string
	t.Run("one", func(t *testing.T) {
		r := remote.Connect(t, shared.URL)
		w := r.AddAgent("worker", remote.AgentSpec{Behaviors: []string{"never-terminal"},
			Card: map[string]any{"skills": []any{map[string]any{"id": "intake"}}}})
		assert.True(t, strings.HasPrefix(w.ServerName, "worker-"), w.ServerName)
		res := sendV1(t, w.URL, "go")
		task := res["result"].(map[string]any)["task"].(map[string]any)
		assert.Equal(t, "TASK_STATE_WORKING", task["status"].(map[string]any)["state"])
		ft := &msgT{}
		assert.False(t, testkit.AssertNoOrphans(ft, r.Journal("worker")))
		assert.Contains(t, ft.msg, "orphaned")
		names = append(names, w.ServerName, r.Agent("").ServerName)
	})
	t.Run("two", func(t *testing.T) {
		r := remote.Connect(t, shared.URL)
		sendV1(t, r.AgentURL(""), "go")
		testkit.AssertNoOrphans(t, r.Journal())
		for _, e := range r.Journal() {
			assert.Equal(t, r.Agent("").ServerName, e.Agent)
		}
		require.NoError(t, r.SetBehavior("", "stuck-submitted"))
		r.Reset()
		assert.Empty(t, r.Journal())
		names = append(names, r.Agent("").ServerName)
	})
	for _, n := range names {
		assert.NotContains(t, shared.Server().AgentNames(), n, "removed at cleanup")
	}
}

type msgT struct{ msg string }

func (f *msgT) Errorf(format string, args ...any) { f.msg += fmt.Sprintf(format, args...) }

// Remote.AgentURL is the agent's base URL, as Mock.AgentURL is: the same
// code reaches the JSON-RPC endpoint (+ "/") and the HTTP+JSON routes
// (+ "/message:send") on a test's own mock and on a shared server.
func TestAgentURLMatchesMock(t *testing.T) {
	t.Parallel()
	shared, err := testkit.NewServer(testkit.WithStepDelay(0))
	require.NoError(t, err)
	t.Cleanup(shared.Close) // after the Remote's cleanup, which removes its agents
	r := remote.Connect(t, shared.URL)
	own := testkit.Start(t, testkit.WithStepDelay(0))
	for name, agentURL := range map[string]string{"mock": own.AgentURL("agent"), "remote": r.AgentURL("")} {
		assert.False(t, strings.HasSuffix(agentURL, "/"), "%s: %s is a base URL", name, agentURL)
		rpc := sendV1(t, agentURL+"/", "over JSON-RPC")
		assert.NotNil(t, rpc["result"], "%s: JSON-RPC at AgentURL + \"/\": %v", name, rpc)

		req, err := http.NewRequest(http.MethodPost, agentURL+"/message:send",
			strings.NewReader(`{"message":{"messageId":"rest","role":"ROLE_USER","parts":[{"text":"over HTTP+JSON"}]}}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: HTTP+JSON at AgentURL + \"/message:send\"", name)
	}
	assert.Equal(t, r.Agent("").URL, r.AgentURL("")+"/", "the agent's URL field stays its JSON-RPC endpoint")
}
