package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
)

// ctlRig is a started server with its own HTTP client.
type ctlRig struct {
	t      *testing.T
	srv    *server.Server
	client *http.Client
}

func newCtlRig(t *testing.T, cfg server.Config) *ctlRig {
	t.Helper()
	if cfg.StepDelay == 0 {
		cfg.StepDelay = -1
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		require.NoError(t, srv.Close())
	})
	return &ctlRig{t: t, srv: srv, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// do sends a control request and decodes the JSON answer.
func (r *ctlRig) do(method, path string, body any) (int, map[string]any) {
	r.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		require.NoError(r.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, r.srv.URL()+path, rd)
	require.NoError(r.t, err)
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	var out map[string]any
	require.NoError(r.t, json.Unmarshal(raw, &out), "body %s", raw)
	return resp.StatusCode, out
}

// sendSeq numbers the messages sendState sends: each is a new message (a
// repeated messageId would be answered as a retry).
var sendSeq atomic.Int64

// sendState sends a v1.0 message to agent and returns the answered state.
func (r *ctlRig) sendState(agent string) (string, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, sendSeq.Add(1))
	resp, err := r.client.Post(r.srv.URL()+"/agents/"+agent+"/", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var env struct {
		Result struct {
			Task struct {
				ID     string `json:"id"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			} `json:"task"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return "", err
	}
	if env.Error != nil {
		return "", fmt.Errorf("error %d", env.Error.Code)
	}
	if env.Result.Task.ID == "" {
		return "", fmt.Errorf("no task id")
	}
	return env.Result.Task.Status.State, nil
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestControlBehaviorsListSetClear(t *testing.T) {
	t.Parallel()
	pre, err := behaviors.Parse("skip-working:skill=x")
	require.NoError(t, err)
	r := newCtlRig(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Behaviors: []behaviors.Behavior{pre}}, {Name: "b"}}})

	st, body := r.do(http.MethodGet, "/_a2amock/behaviors", nil)
	require.Equal(t, http.StatusOK, st)
	assert.Equal(t, "a", body["agent"], "the first agent by default")
	assert.Equal(t, []string{"skip-working:skill=x"}, strs(body["behaviors"]))

	st, body = r.do(http.MethodGet, "/_a2amock/behaviors?agent=b", nil)
	require.Equal(t, http.StatusOK, st)
	assert.Empty(t, body["behaviors"])
	state, err := r.sendState("b")
	require.NoError(t, err)
	require.Equal(t, "TASK_STATE_COMPLETED", state)

	st, body = r.do(http.MethodPut, "/_a2amock/behaviors?agent=b", map[string]any{"behaviors": []string{"never-terminal", "ignore-cancel:terminal=true"}})
	require.Equal(t, http.StatusOK, st, "%v", body)
	assert.Equal(t, []string{"never-terminal", "ignore-cancel:terminal=true"}, strs(body["behaviors"]))
	state, err = r.sendState("b")
	require.NoError(t, err)
	assert.Equal(t, "TASK_STATE_WORKING", state, "the new behaviors apply at once")
	state, err = r.sendState("a")
	require.NoError(t, err)
	assert.Equal(t, "TASK_STATE_COMPLETED", state, "only agent b changed")

	// A bad set reports every error and changes nothing.
	st, body = r.do(http.MethodPut, "/_a2amock/behaviors?agent=b", map[string]any{"behaviors": []string{
		"skip-working", "no-such-thing", "never-terminal:bogus=1", "stuck-submitted:for=soon"}})
	require.Equal(t, http.StatusBadRequest, st)
	errs := strs(body["errors"])
	require.Len(t, errs, 3)
	assert.Contains(t, errs[0], "behaviors[1]")
	assert.Contains(t, errs[0], "valid behaviors:")
	assert.Contains(t, errs[0], "new-task-id-on-continuation")
	assert.Contains(t, errs[1], `unknown parameter "bogus"`)
	assert.Contains(t, errs[1], "unless-metadata")
	assert.Contains(t, errs[2], "not a duration")
	assert.Contains(t, body["error"].(map[string]any)["message"], "nothing was changed")
	_, body = r.do(http.MethodGet, "/_a2amock/behaviors?agent=b", nil)
	assert.Equal(t, []string{"never-terminal", "ignore-cancel:terminal=true"}, strs(body["behaviors"]))

	st, body = r.do(http.MethodDelete, "/_a2amock/behaviors?agent=b", nil)
	require.Equal(t, http.StatusOK, st)
	assert.Empty(t, body["behaviors"])
	state, err = r.sendState("b")
	require.NoError(t, err)
	assert.Equal(t, "TASK_STATE_COMPLETED", state)

	// Bad requests.
	st, body = r.do(http.MethodGet, "/_a2amock/behaviors?agent=zed", nil)
	assert.Equal(t, http.StatusNotFound, st)
	assert.Equal(t, []string{"a", "b"}, strs(body["errors"]))
	for _, bad := range []string{`not json`, `{"behaviours":["never-terminal"]}`, `{}`, `{"behaviors":"never-terminal"}`} {
		st, _ = r.do(http.MethodPut, "/_a2amock/behaviors?agent=b", bad)
		assert.Equal(t, http.StatusBadRequest, st, bad)
	}
	// A body that is not JSON by its Content-Type (curl -d sends a form) is
	// refused as POST /_a2amock/agents refuses it, and changes nothing.
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		req, err := http.NewRequest(http.MethodPut, r.srv.URL()+"/_a2amock/behaviors?agent=b", strings.NewReader(`{"behaviors":["never-terminal"]}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", ct)
		resp, err := r.client.Do(req)
		require.NoError(t, err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "%s: %s", ct, raw)
		assert.Contains(t, string(raw), `"field":"body"`, ct)
	}
	_, body = r.do(http.MethodGet, "/_a2amock/behaviors?agent=b", nil)
	assert.Empty(t, body["behaviors"], "a refused body changes nothing")
}

func TestControlCatalogue(t *testing.T) {
	t.Parallel()
	r := newCtlRig(t, server.Config{})
	st, body := r.do(http.MethodGet, "/_a2amock/catalogue", nil)
	require.Equal(t, http.StatusOK, st)
	assert.Contains(t, strs(body["scopeKeys"]), "unless-metadata")
	found := map[string]map[string]any{}
	for _, e := range body["behaviors"].([]any) {
		m := e.(map[string]any)
		found[m["name"].(string)] = m
		assert.NotEmpty(t, m["doc"])
	}
	for _, n := range behaviors.Catalogue().Names() {
		assert.Contains(t, found, n)
	}
	nt := found["new-task-id-on-continuation"]
	require.NotNil(t, nt)
	params := nt["params"].([]any)
	require.Len(t, params, 2)
	assert.Equal(t, map[string]any{"key": "keep-context", "type": "bool", "default": "true",
		"doc": "give the new task the original task's contextId (false mints a new context)"}, params[0])
	assert.Equal(t, "hold", params[1].(map[string]any)["key"])
}

// countReset is a custom behavior: it counts the requests it saw and
// forgets them on Reset.
type countReset struct{ n atomic.Int64 }

func (c *countReset) Apply(*behaviors.Exchange) { c.n.Add(1) }
func (c *countReset) Reset()                    { c.n.Store(0) }

func TestControlRegistryAndReset(t *testing.T) {
	t.Parallel()
	counter := &countReset{}
	reg := behaviors.NewRegistry().MustRegister(behaviors.Spec{Name: "count", Doc: "counts", New: func() behaviors.Behavior { return &countReset{} }})
	r := newCtlRig(t, server.Config{Registry: reg, Agents: []server.AgentConfig{{Name: "a", Behaviors: []behaviors.Behavior{counter}}}})

	_, body := r.do(http.MethodGet, "/_a2amock/behaviors", nil)
	assert.Equal(t, []string{"count"}, strs(body["behaviors"]), "a behavior built in Go is listed by its registered name")

	_, err := r.sendState("a")
	require.NoError(t, err)
	require.EqualValues(t, 1, counter.n.Load())
	r.srv.Reset()
	assert.EqualValues(t, 0, counter.n.Load(), "Reset resets behaviors that keep state")

	st, body := r.do(http.MethodPut, "/_a2amock/behaviors", map[string]any{"behaviors": []string{"never-terminal"}})
	require.Equal(t, http.StatusBadRequest, st, "the server's registry, not the catalogue, resolves names")
	assert.Contains(t, strs(body["errors"])[0], "valid behaviors: count")

	bs, err := r.srv.ParseBehaviors([]string{"count:probability=0.5", "count"})
	require.NoError(t, err)
	require.Len(t, bs, 2)
	_, err = r.srv.ParseBehaviors([]string{"x", "count:y=1"})
	require.ErrorContains(t, err, `behaviors[0] "x"`)
	require.ErrorContains(t, err, `behaviors[1] "count:y=1"`)
}

func TestControlBehaviorsGuarded(t *testing.T) {
	t.Parallel()
	r := newCtlRig(t, server.Config{ControlToken: "s3cret"})
	st, _ := r.do(http.MethodPut, "/_a2amock/behaviors", map[string]any{"behaviors": []string{"never-terminal"}})
	assert.Equal(t, http.StatusUnauthorized, st)
	st, _ = r.do(http.MethodGet, "/_a2amock/catalogue", nil)
	assert.Equal(t, http.StatusUnauthorized, st)
	assert.Empty(t, r.srv.Behaviors("agent"))
}

// Flipping behaviors while clients send and stream is safe (run with
// -race): every unary answer is a task, every stream opens with a task and
// ends, and nothing hangs.
func TestControlBehaviorsFlipUnderLoad(t *testing.T) {
	t.Parallel()
	r := newCtlRig(t, server.Config{Seed: 3, StepDelay: time.Millisecond})
	sets := [][]string{
		{"skip-working", "duplicate-terminal:count=2"},
		{"transition-after-terminal", "context-id-drift:probability=0.5"},
		{"status-for-other-task:probability=0.5", "forget-task:ttl=1h", "ignore-cancel"},
		{"mint-task-for-unknown-id", "wrong-error-code"},
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var flips atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			var st int
			if i%5 == 4 {
				st, _ = r.do(http.MethodDelete, "/_a2amock/behaviors", nil)
			} else {
				st, _ = r.do(http.MethodPut, "/_a2amock/behaviors", map[string]any{"behaviors": sets[i%len(sets)]})
			}
			assert.Equal(t, http.StatusOK, st)
			flips.Add(1)
		}
	}()
	var clients sync.WaitGroup
	for c := range 4 {
		clients.Add(2)
		go func() {
			defer clients.Done()
			for range 15 {
				state, err := r.sendState("agent")
				if !assert.NoError(t, err) {
					return
				}
				assert.Contains(t, []string{"TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED"}, state)
			}
		}()
		go func() {
			defer clients.Done()
			for i := range 10 {
				evs, err := ctlStream(r, fmt.Sprintf("s-%d-%d", c, i))
				if !assert.NoError(t, err) {
					return
				}
				if assert.NotEmpty(t, evs) {
					assert.Contains(t, string(evs[0]), `"task"`)
				}
			}
		}()
	}
	clients.Wait()
	cancel()
	wg.Wait()
	assert.Positive(t, flips.Load())
}

func ctlStream(r *ctlRig, msgID string) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":%q,"role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, msgID)
	req, err := http.NewRequest(http.MethodPost, r.srv.URL()+"/", bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	s, err := sse.Do(ctx, r.client, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out [][]byte
	for ev, err := range s.Events() {
		if err != nil {
			return out, err
		}
		out = append(out, ev.Data)
	}
	return out, nil
}
