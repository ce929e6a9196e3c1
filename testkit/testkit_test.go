package testkit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

func rpc(t *testing.T, url, method string, params any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

func sendParams(text string) map[string]any {
	return map[string]any{"message": map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}
}

func TestStartServesDiscoverableAgents(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(7), testkit.WithAgents("planner", "coder"), testkit.WithStepDelay(-1))
	assert.True(t, strings.HasPrefix(m.URL, "http://127.0.0.1:"), m.URL)

	for _, name := range []string{"planner", "coder"} {
		card := getJSON(t, m.CardURL(name))
		assert.Equal(t, name, card["name"])
		ifaces := card["supportedInterfaces"].([]any)
		require.Len(t, ifaces, 2)
		rpcURL := ifaces[0].(map[string]any)["url"].(string)
		assert.Equal(t, m.AgentURL(name)+"/", rpcURL)
		out := rpc(t, rpcURL, "SendMessage", sendParams("hello "+name))
		task := out["result"].(map[string]any)["task"].(map[string]any)
		assert.Equal(t, "TASK_STATE_COMPLETED", task["status"].(map[string]any)["state"])
	}
	// The first agent is also served at the root.
	assert.Equal(t, "planner", getJSON(t, m.CardURL(""))["name"])

	var sends int
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest && e.Op == wire.OpSend {
			sends++
		}
	}
	assert.Equal(t, 2, sends)
}

func TestStartAppliesDialectCardChangesAndBehaviors(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithDialect(wire.V03), testkit.WithStepDelay(-1),
		testkit.WithCardChange("agent", func(c *cards.Card) { c.Capabilities.StateTransitionHistory = true }),
		testkit.WithBehavior("", "skip-working"))
	card := getJSON(t, m.CardURL(""))
	assert.Equal(t, "0.3.0", card["protocolVersion"])
	assert.Equal(t, true, card["capabilities"].(map[string]any)["stateTransitionHistory"])

	rpc(t, m.URL+"/", "SendMessage", sendParams("x"))
	var states []wire.TaskState
	for _, e := range m.Journal() {
		if e.Kind == server.EntryEvent && e.State != "" {
			states = append(states, e.State)
		}
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateCompleted}, states, "skip-working removes working")

	require.NoError(t, m.SetBehavior("agent"))
	m.Reset()
	rpc(t, m.URL+"/", "SendMessage", sendParams("y"))
	states = nil
	for _, e := range m.Journal() {
		if e.Kind == server.EntryEvent && e.State != "" {
			states = append(states, e.State)
		}
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, states, "cleared at run time")
}

// recordingTB captures what testkit reports through t.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	fatals   []string
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func TestStartReportsBadOptionsThroughT(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{}
	m := testkit.Start(rec, testkit.WithBehavior("", "no-such-behavior"))
	assert.Nil(t, m)
	require.Len(t, rec.fatals, 1)
	assert.Contains(t, rec.fatals[0], `unknown behavior "no-such-behavior"`)
	assert.Contains(t, rec.fatals[0], "skip-working", "the error lists the valid behaviors")

	rec = &recordingTB{}
	m = testkit.Start(rec)
	require.NotNil(t, m)
	require.Len(t, rec.cleanups, 1, "Start registers Close with t.Cleanup")
	assert.Error(t, m.SetBehavior("agent", "skip-working:bogus=1"))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], `unknown parameter "bogus"`)
	rec.cleanups[0]()
	_, err := http.Get(m.URL + "/.well-known/agent-card.json")
	assert.Error(t, err, "the cleanup closed the server")
}

func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m, err := testkit.NewServer()
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}

// BenchmarkHTTPTestNewServer is the yardstick BenchmarkStart is read
// against.
func BenchmarkHTTPTestNewServer(b *testing.B) {
	b.ReportAllocs()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	for b.Loop() {
		s := httptest.NewServer(h)
		s.Close()
	}
}
