package scenario_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
)

// TestScenarioCardFetchFault: a scenario (and so a conform suite file)
// faults the card fetch by scoping a transport behavior to it: here the
// first card fetch answers 503 with Retry-After, the next one the card.
func TestScenarioCardFetchFault(t *testing.T) {
	t.Parallel()
	s, err := scenario.Parse([]byte(`
server: {seed: 1}
agents:
  - name: assistant
    card: {dialect: "1.0", skills: [{id: answer, name: Answer}]}
    behaviors:
      - name: http-error
        params: {status: 503, retry-after: 2s}
        scope: {op: agent-card, call: 1}
`), "card-503.yaml")
	require.NoError(t, err)
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	srv, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		assert.NoError(t, srv.Close())
	})
	get := func() (int, string, string) {
		resp, err := c.Get(srv.URL() + "/.well-known/agent-card.json")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	status, retry, _ := get()
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "2", retry)
	status, _, body := get()
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"name":"assistant"`)
}
