package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// hook is a minimal webhook for the server's own push tests (testkit has
// the full receiver; the server tests must not depend on it).
type hook struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []hookHit
	fail int // answer 503 to this many requests first
	hold chan struct{}
}

type hookHit struct {
	header http.Header
	body   []byte
}

func newHook(t *testing.T) *hook {
	t.Helper()
	h := &hook{hold: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, hookHit{header: r.Header.Clone(), body: b})
		fail := h.fail > 0
		if fail {
			h.fail--
		}
		h.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) hits() []hookHit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookHit(nil), h.got...)
}

func (h *hook) states(t *testing.T, d wire.Dialect) []string {
	var out []string
	for _, hit := range h.hits() {
		var v struct {
			Status       *struct{ State string } `json:"status"`
			StatusUpdate *struct {
				Status struct{ State string } `json:"status"`
			} `json:"statusUpdate"`
			ArtifactUpdate json.RawMessage `json:"artifactUpdate"`
		}
		require.NoError(t, json.Unmarshal(hit.body, &v), "%s", hit.body)
		switch {
		case v.StatusUpdate != nil:
			out = append(out, string(canonicalState(t, d, v.StatusUpdate.Status.State)))
		case v.Status != nil:
			out = append(out, string(canonicalState(t, d, v.Status.State)))
		case v.ArtifactUpdate != nil:
			out = append(out, "artifact")
		}
	}
	return out
}

func pushEntries(s *server.Server) []server.Entry {
	var out []server.Entry
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryPush {
			out = append(out, e)
		}
	}
	return out
}

func TestPushDeliveryV10(t *testing.T) {
	t.Parallel()
	wh := newHook(t)
	h := start(t, server.Config{Seed: 31, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
	r, raw := h.rpc("/", "SendMessage", map[string]any{
		"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{
			"url": wh.srv.URL + "/hook?sig=qsecret", "token": "tok-1",
			"authentication": map[string]any{"scheme": "Bearer", "credentials": "s3cret"}}},
	}, v1)
	require.Nil(t, r.Error, "%s", raw)
	waitFor(t, "four pushes", func() bool { return len(wh.hits()) >= 4 })
	assert.Equal(t, []string{"submitted", "working", "artifact", "completed"}, wh.states(t, wire.V10))
	for _, hit := range wh.hits() {
		assert.Equal(t, "tok-1", hit.header.Get(server.PushTokenHeaderV10))
		assert.Equal(t, "Bearer s3cret", hit.header.Get("Authorization"))
		assert.Equal(t, "application/a2a+json", hit.header.Get("Content-Type"))
		schemacheck.Require(t, wire.V10, "StreamResponse", hit.body)
	}
	waitFor(t, "journal", func() bool { return len(pushEntries(h.srv)) >= 4 })
	for _, e := range pushEntries(h.srv) {
		assert.Equal(t, http.StatusNoContent, e.HTTP)
	}
	j, err := json.Marshal(h.srv.Journal().Entries())
	require.NoError(t, err)
	assert.NotContains(t, string(j), "s3cret", "credentials never reach the journal")
	assert.NotContains(t, string(j), "qsecret", "nor do URL query strings")
	assert.NotContains(t, string(j), "tok-1")
}

func TestPushDeliveryV03SendsTask(t *testing.T) {
	t.Parallel()
	wh := newHook(t)
	h := start(t, server.Config{Seed: 32, StepDelay: -1, Agents: agentsFor(dialectCases[2], true)})
	cl := newClient(t, h, dialectCases[2])
	tk := cl.mustSend(sendOpts{immediate: true, skill: "ask"})
	_, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID,
		"pushNotificationConfig": map[string]any{"url": wh.srv.URL, "token": "t03"}})
	require.Nil(t, e)
	// The task waits in input-required; the continuation produces pushes.
	cl.mustSend(sendOpts{taskID: tk.ID, contextID: tk.ContextID})
	waitFor(t, "pushes", func() bool {
		s := wh.states(t, wire.V03)
		return len(s) > 0 && s[len(s)-1] == "completed"
	})
	for _, hit := range wh.hits() {
		assert.Equal(t, "t03", hit.header.Get(server.PushTokenHeaderV0))
		assert.Equal(t, "application/json", hit.header.Get("Content-Type"))
		assert.Empty(t, hit.header.Get("Authorization"))
		schemacheck.Require(t, wire.V03, "Task", hit.body)
	}
}

func TestPushURLValidation(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 33, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
	cl := newClient(t, h, dialectCases[0])
	tk := cl.mustSend(sendOpts{})
	for _, u := range []string{"ftp://127.0.0.1/x", "http://10.0.0.1/hook", "https://169.254.169.254/latest", "not a url", "http:///nohost"} {
		_, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "url": u})
		require.NotNil(t, e, u)
		assert.Equal(t, wire.CodeInvalidParams, e.Code, u)
		assert.Contains(t, e.Message, "url", u)
	}
	r, raw := h.rpc("/", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m2", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": "http://192.0.2.1/hook"}},
	}, v1)
	require.NotNil(t, r.Error, "%s", raw)
	assert.Equal(t, wire.CodeInvalidParams, r.Error.Code)
	assert.Contains(t, r.Error.Message, "configuration.taskPushNotificationConfig.url")

	allowed := start(t, server.Config{Seed: 33, StepDelay: -1, AllowPushTo: []string{"10.0.0.0/8"}, Agents: agentsFor(dialectCases[0], true)})
	cl = newClient(t, allowed, dialectCases[0])
	tk = cl.mustSend(sendOpts{})
	_, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "url": "http://10.0.0.1/hook"})
	require.Nil(t, e, "an allowed range is accepted")
}

func TestPushRetriesAndTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("retries with backoff", func(t *testing.T) {
		t.Parallel()
		wh := newHook(t)
		wh.fail = 2
		h := start(t, server.Config{Seed: 34, StepDelay: -1, PushRetries: 3, PushBackoff: time.Millisecond, Agents: agentsFor(dialectCases[0], true)})
		cl := newClient(t, h, dialectCases[0])
		tk := cl.mustSend(sendOpts{immediate: true, skill: "ask"})
		_, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "url": wh.srv.URL})
		require.Nil(t, e)
		cl.mustSend(sendOpts{taskID: tk.ID, contextID: tk.ContextID})
		waitFor(t, "completed push", func() bool {
			s := wh.states(t, wire.V10)
			return len(s) > 0 && s[len(s)-1] == "completed"
		})
		entries := pushEntries(h.srv)
		require.GreaterOrEqual(t, len(entries), 4)
		assert.Equal(t, http.StatusServiceUnavailable, entries[0].HTTP)
		assert.Contains(t, entries[0].Detail, "attempt 1/4")
		assert.Equal(t, http.StatusServiceUnavailable, entries[1].HTTP)
		assert.Equal(t, http.StatusNoContent, entries[2].HTTP)
		assert.Contains(t, entries[2].Detail, "attempt 3/4")
	})
	t.Run("a hung webhook holds nothing", func(t *testing.T) {
		t.Parallel()
		// The webhook hangs until the test ends and the push timeout is a
		// minute: the answer, and Close, can only come while it hangs if
		// neither waits for it (wall-time bounds on both failed on a loaded
		// machine; the 10s client timeout and guard only stop a hang).
		entered := make(chan struct{}, 16)
		release := make(chan struct{})
		hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(func() { close(release); hung.Close() })
		s, err := server.New(server.Config{Seed: 35, StepDelay: -1, PushTimeout: time.Minute, Agents: agentsFor(dialectCases[0], true)})
		require.NoError(t, err)
		require.NoError(t, s.Start("127.0.0.1:0"))
		h := &harness{t: t, srv: s, url: s.URL(), client: &http.Client{Timeout: 10 * time.Second}}
		r, raw := h.rpc("/", "SendMessage", map[string]any{
			"message":       map[string]any{"messageId": "m3", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
			"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hung.URL}},
		}, v1)
		require.Nil(t, r.Error, "%s", raw)
		assert.Contains(t, string(raw), "TASK_STATE_COMPLETED", "the task is not held back by its webhook")
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the first notification never reached the webhook")
		}
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		select {
		case err := <-closed:
			require.NoError(t, err, "Close waits for the push queue")
		case <-time.After(10 * time.Second):
			t.Fatal("Close waited for a hung webhook")
		}
		entries := pushEntries(s)
		require.NotEmpty(t, entries)
		assert.Zero(t, entries[0].HTTP, "the hung delivery was cut: %+v", entries[0])
		h.client.CloseIdleConnections()
	})
	t.Run("a hung webhook times out", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(func() { close(release); hung.Close() })
		h := start(t, server.Config{Seed: 35, StepDelay: -1, PushTimeout: 50 * time.Millisecond, Agents: agentsFor(dialectCases[0], true)})
		r, raw := h.rpc("/", "SendMessage", map[string]any{
			"message":       map[string]any{"messageId": "m3", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
			"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hung.URL}},
		}, v1)
		require.Nil(t, r.Error, "%s", raw)
		waitFor(t, "timeouts journaled", func() bool { return len(pushEntries(h.srv)) >= 1 })
		assert.Contains(t, pushEntries(h.srv)[0].Detail, "timed out")
	})
}

// The HTTP+JSON ListTaskPushNotificationConfigs reads its query as the
// JSON-RPC method reads its params: a pageSize that is not a non-negative
// integer is InvalidParams (400), not a page as if it were absent.
func TestRESTPushListRefusesBadPageSize(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 34, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
	cl := newClient(t, h, dialectCases[0])
	tk := cl.mustSend(sendOpts{})
	_, e := cl.call(wire.OpListPushConfigs, map[string]any{"taskId": tk.ID, "pageSize": -1})
	require.NotNil(t, e, "JSON-RPC refuses a negative pageSize")
	assert.Equal(t, wire.CodeInvalidParams, e.Code)
	base := "/rest/tasks/" + tk.ID + "/pushNotificationConfigs"
	for _, q := range []string{"?pageSize=-1", "?pageSize=ten", "?pageSize=1.5"} {
		status, _, b := h.do(http.MethodGet, base+q, nil, map[string]string{"A2A-Version": "1.0"})
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", q, b)
		assert.Contains(t, string(b), "pageSize", q)
	}
	status, _, b := h.do(http.MethodGet, base+"?pageSize=5&pageToken=", nil, map[string]string{"A2A-Version": "1.0"})
	assert.Equal(t, http.StatusOK, status, "%s", b)
}

// ListTaskPushNotificationConfigs honours pageSize (a maximum, all when
// unset) and pageToken on every v1.0 binding: pages of one over three
// configs, in the order they were set, a token chain that ends with ""
// and gives the same tokens whichever binding asked, and a token of
// another task refused as InvalidParams naming pageToken.
func TestPushListPages(t *testing.T) {
	t.Parallel()
	h, c := grpcRig(t, true)
	ctx := grpcCtx(t)
	var ids [2]string
	for i := range ids {
		res, err := c.SendMessage(ctx, grpcSend(fmt.Sprint("task ", i)))
		require.NoError(t, err)
		ids[i] = res.GetTask().GetId()
	}
	id := ids[0]
	var want []string
	for i := range 3 {
		pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: id, Id: fmt.Sprintf("cfg-%d", 3-i), Url: "https://example.com/hook"})
		require.NoError(t, err)
		want = append(want, pc.GetId())
	}
	_, err := c.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: ids[1], Url: "https://example.com/other"})
	require.NoError(t, err)

	type page struct {
		Configs []struct {
			ID string `json:"id"`
		} `json:"configs"`
		NextPageToken string `json:"nextPageToken"`
	}
	rpc := func(q map[string]any) (page, *rpcError) {
		r, b := h.rpc("/", "ListTaskPushNotificationConfigs", q, v1)
		var p page
		if r.Error == nil {
			schemacheck.Require(t, wire.V10, "ListTaskPushNotificationConfigsResponse", r.Result)
			require.NoError(t, json.Unmarshal(r.Result, &p), "%s", b)
		}
		return p, r.Error
	}
	rest := func(q map[string]any) (page, int, []byte) {
		v := url.Values{}
		for k, x := range q {
			if k != "taskId" {
				v.Set(k, fmt.Sprint(x))
			}
		}
		status, _, b := h.do(http.MethodGet, "/rest/tasks/"+q["taskId"].(string)+"/pushNotificationConfigs?"+v.Encode(), nil, v1)
		var p page
		if status == http.StatusOK {
			schemacheck.Require(t, wire.V10, "ListTaskPushNotificationConfigsResponse", b)
			require.NoError(t, json.Unmarshal(b, &p), "%s", b)
		}
		return p, status, b
	}
	viaGRPC := func(q map[string]any) (page, error) {
		req := &a2apb.ListTaskPushNotificationConfigsRequest{TaskId: q["taskId"].(string)}
		if n, ok := q["pageSize"].(int); ok {
			req.PageSize = int32(n)
		}
		if tok, ok := q["pageToken"].(string); ok {
			req.PageToken = tok
		}
		res, err := c.ListTaskPushNotificationConfigs(ctx, req)
		var p page
		for _, pc := range res.GetConfigs() {
			p.Configs = append(p.Configs, struct {
				ID string `json:"id"`
			}{pc.GetId()})
		}
		p.NextPageToken = res.GetNextPageToken()
		return p, err
	}

	all, e := rpc(map[string]any{"taskId": id})
	require.Nil(t, e)
	assert.Len(t, all.Configs, 3, "no pageSize: every config")
	assert.Empty(t, all.NextPageToken)

	// One page at a time, each binding following its own tokens.
	var tokens [3][]string
	for b := range 3 {
		var got []string
		tok := ""
		for n := 0; n < 5; n++ {
			q := map[string]any{"taskId": id, "pageSize": 1}
			if tok != "" {
				q["pageToken"] = tok
			}
			var p page
			switch b {
			case 0:
				p, e = rpc(q)
				require.Nil(t, e)
			case 1:
				var st int
				var body []byte
				p, st, body = rest(q)
				require.Equal(t, http.StatusOK, st, "%s", body)
			case 2:
				p, err = viaGRPC(q)
				require.NoError(t, err)
			}
			require.Len(t, p.Configs, 1, "binding %d, page %d", b, n)
			got = append(got, p.Configs[0].ID)
			tok = p.NextPageToken
			if tok == "" {
				break
			}
			tokens[b] = append(tokens[b], tok)
		}
		assert.Equal(t, want, got, "binding %d: the configs in the order they were set, each once", b)
	}
	assert.Len(t, tokens[0], 2)
	assert.Equal(t, tokens[0], tokens[1], "JSON-RPC and HTTP+JSON were given the same tokens")
	assert.Equal(t, tokens[0], tokens[2], "JSON-RPC and gRPC were given the same tokens")

	// A page of two, then the rest from its token.
	two, e := rpc(map[string]any{"taskId": id, "pageSize": 2})
	require.Nil(t, e)
	require.Len(t, two.Configs, 2)
	rest1, e := rpc(map[string]any{"taskId": id, "pageToken": two.NextPageToken})
	require.Nil(t, e)
	require.Len(t, rest1.Configs, 1)
	assert.Equal(t, want[2], rest1.Configs[0].ID)

	// Another task's token, or one never issued, is refused.
	for _, tok := range []string{tokens[0][0], "bm90LWEtdG9rZW4"} {
		_, e = rpc(map[string]any{"taskId": ids[1], "pageToken": tok})
		require.NotNil(t, e, tok)
		assert.Equal(t, wire.CodeInvalidParams, e.Code)
		assert.Contains(t, e.Message, "pageToken")
		_, st, b := rest(map[string]any{"taskId": ids[1], "pageToken": tok})
		assert.Equal(t, http.StatusBadRequest, st, "%s", b)
		_, err = viaGRPC(map[string]any{"taskId": ids[1], "pageToken": tok})
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	}
}
