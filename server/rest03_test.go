package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// The v0.3 proto's JSON (a2a-v0.3.0.proto, proto3 JSON names), as the v0.3
// HTTP+JSON binding must write it; strict03 refuses any other member.
type (
	p03Part struct {
		Text *string `json:"text,omitempty"`
		File *struct {
			FileWithURI   string `json:"fileWithUri,omitempty"`
			FileWithBytes string `json:"fileWithBytes,omitempty"`
			MimeType      string `json:"mimeType,omitempty"`
			Name          string `json:"name,omitempty"` // later v0.3 protos
		} `json:"file,omitempty"`
		Data *struct {
			Data map[string]any `json:"data"`
		} `json:"data,omitempty"`
		Metadata map[string]any `json:"metadata,omitempty"` // later v0.3 protos
	}
	p03Message struct {
		MessageID  string         `json:"messageId"`
		ContextID  string         `json:"contextId,omitempty"`
		TaskID     string         `json:"taskId,omitempty"`
		Role       string         `json:"role"`
		Content    []p03Part      `json:"content"`
		Metadata   map[string]any `json:"metadata,omitempty"`
		Extensions []string       `json:"extensions,omitempty"`
	}
	p03Status struct {
		State     string      `json:"state"`
		Message   *p03Message `json:"message,omitempty"`
		Timestamp string      `json:"timestamp,omitempty"`
	}
	p03Artifact struct {
		ArtifactID  string         `json:"artifactId"`
		Name        string         `json:"name,omitempty"`
		Description string         `json:"description,omitempty"`
		Parts       []p03Part      `json:"parts"`
		Metadata    map[string]any `json:"metadata,omitempty"`
		Extensions  []string       `json:"extensions,omitempty"`
	}
	p03Task struct {
		ID        string         `json:"id"`
		ContextID string         `json:"contextId"`
		Status    p03Status      `json:"status"`
		Artifacts []p03Artifact  `json:"artifacts,omitempty"`
		History   []p03Message   `json:"history,omitempty"`
		Metadata  map[string]any `json:"metadata,omitempty"`
	}
	p03Stream struct {
		Task         *p03Task    `json:"task,omitempty"`
		Message      *p03Message `json:"message,omitempty"`
		StatusUpdate *struct {
			TaskID    string         `json:"taskId"`
			ContextID string         `json:"contextId"`
			Status    p03Status      `json:"status"`
			Final     bool           `json:"final,omitempty"`
			Metadata  map[string]any `json:"metadata,omitempty"`
		} `json:"statusUpdate,omitempty"`
		ArtifactUpdate *struct {
			TaskID    string         `json:"taskId"`
			ContextID string         `json:"contextId"`
			Artifact  p03Artifact    `json:"artifact"`
			Append    bool           `json:"append,omitempty"`
			LastChunk bool           `json:"lastChunk,omitempty"`
			Metadata  map[string]any `json:"metadata,omitempty"`
		} `json:"artifactUpdate,omitempty"`
	}
	p03PushConfig struct {
		ID             string `json:"id"`
		URL            string `json:"url"`
		Token          string `json:"token,omitempty"`
		Authentication *struct {
			Schemes     []string `json:"schemes"`
			Credentials string   `json:"credentials,omitempty"`
		} `json:"authentication,omitempty"`
	}
	p03TaskPush struct {
		Name                   string        `json:"name"`
		PushNotificationConfig p03PushConfig `json:"pushNotificationConfig"`
	}
)

// strict03 decodes b into v, refusing members the proto does not have,
// and checks the enums are spelt as proto names.
func strict03(t testing.TB, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "not the v0.3 proto's JSON: %s", b)
	for _, k := range []string{`"kind"`, `"parts":[{"kind"`} {
		require.NotContains(t, string(b), k, "JSON-RPC member in a proto body")
	}
	for _, s := range []string{`"state":"`, `"role":"`} {
		for _, rest := range strings.Split(string(b), s)[1:] {
			require.Regexp(t, `^(TASK_STATE|ROLE)_[A-Z_]+"`, rest, "enum spelt as its proto name: %s", b)
		}
	}
}

// oneOf03 checks a StreamResponse sets exactly one payload.
func oneOf03(t testing.TB, ev p03Stream, raw []byte) {
	n := 0
	for _, set := range []bool{ev.Task != nil, ev.Message != nil, ev.StatusUpdate != nil, ev.ArtifactUpdate != nil} {
		if set {
			n++
		}
	}
	require.Equal(t, 1, n, "a StreamResponse sets one payload: %s", raw)
}

// requireError03 checks a v0.3 HTTP+JSON error answer: the google.rpc.Status
// object, and the v0.3 error name and message a2a-python reads.
func requireError03(t testing.TB, status int, body []byte, wantStatus int, wantType string) {
	t.Helper()
	require.Equal(t, wantStatus, status, "%s", body)
	m := requireRESTStatus(t, status, body)
	assert.Equal(t, wantType, m["type"], "%s", body)
	assert.NotEmpty(t, m["message"], "%s", body)
	// The JSON-RPC code beside them, which @a2a-js/sdk's v0.3 REST
	// transport maps to its error classes.
	codes := map[string]float64{"TaskNotFoundError": -32001, "TaskNotCancelableError": -32002,
		"InvalidParamsError": -32602, "MethodNotFoundError": -32601, "UnsupportedOperationError": -32004}
	if want, ok := codes[wantType]; ok {
		assert.Equal(t, want, m["code"], "%s", body)
	}
}

var v03hdr = map[string]string{"A2A-Version": "0.3"}

func TestREST03Routes(t *testing.T) {
	t.Parallel()
	card := testCard(wire.V03, true)
	card.Capabilities.ExtendedAgentCard = true
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a", Card: card, ExtendedCard: testCard(wire.V03, true)}}})

	// The card keeps url and preferredTransport and adds the interface.
	status, _, raw := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	schemacheck.Require(t, wire.V03, "AgentCard", raw)
	var c struct {
		URL, PreferredTransport string
		AdditionalInterfaces    []struct{ URL, Transport string }
	}
	require.NoError(t, json.Unmarshal(raw, &c))
	assert.Equal(t, h.url+"/", c.URL)
	assert.Equal(t, "JSONRPC", c.PreferredTransport)
	assert.Contains(t, c.AdditionalInterfaces, struct{ URL, Transport string }{h.url + "/v0.3", "HTTP+JSON"})
	base := h.url + "/v0.3"
	require.True(t, strings.HasPrefix(base, h.url))
	p := "/v0.3/v1"

	// send, as a2a-python writes it (proto field names) and as a2a-go does.
	sends := []string{
		`{"request":{"message_id":"m-py","role":"ROLE_USER","content":[{"text":"hi"}]},"configuration":{"accepted_output_modes":["text/plain"],"blocking":true}}`,
		`{"message":{"messageId":"m-go","role":"ROLE_USER","content":[{"text":"hi"},{"data":{"data":{"k":1}}}]},"configuration":{"blocking":true}}`,
	}
	var done p03Task
	for _, body := range sends {
		status, hdr, b := h.post(p+"/message:send", []byte(body), v03hdr)
		require.Equal(t, http.StatusOK, status, "%s", b)
		assert.Equal(t, "application/json", hdr.Get("Content-Type"))
		var res struct {
			Task    *p03Task    `json:"task,omitempty"`
			Message *p03Message `json:"message,omitempty"`
		}
		strict03(t, b, &res)
		require.NotNil(t, res.Task, "%s", b)
		assert.Equal(t, "TASK_STATE_COMPLETED", res.Task.Status.State)
		assert.NotEmpty(t, res.Task.History)
		done = *res.Task
	}

	// get, with historyLength.
	status, _, b := h.do(http.MethodGet, p+"/tasks/"+done.ID+"?historyLength=1", nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var got p03Task
	strict03(t, b, &got)
	assert.Equal(t, done.ID, got.ID)
	assert.Len(t, got.History, 1)
	status, _, b = h.do(http.MethodGet, p+"/tasks/"+done.ID+"?historyLength=x", nil, v03hdr)
	requireError03(t, status, b, http.StatusBadRequest, "InvalidParamsError")

	// errors: v0.3 names, google.rpc.Status beside them.
	status, _, b = h.do(http.MethodGet, p+"/tasks/no-such-task", nil, v03hdr)
	requireError03(t, status, b, http.StatusNotFound, "TaskNotFoundError")
	status, _, b = h.post(p+"/tasks/"+done.ID+":cancel", nil, v03hdr)
	requireError03(t, status, b, http.StatusBadRequest, "TaskNotCancelableError")
	status, _, b = h.post(p+"/message:send", []byte(`{"message":{"messageId":"m-bad","role":"ROLE_USER"}}`), v03hdr)
	requireError03(t, status, b, http.StatusBadRequest, "InvalidParamsError")

	// cancel a task that waits for input.
	status, _, b = h.post(p+"/message:send", []byte(`{"message":{"messageId":"m-ask","role":"ROLE_USER","content":[{"text":"hi"}],"metadata":{"skillId":"ask"}}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var parked struct{ Task p03Task }
	strict03(t, b, &parked)
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", parked.Task.Status.State)

	// push configs: the SDKs' whole CreateTaskPushNotificationConfigRequest,
	// and the proto's HTTP rule's body (the config alone).
	pushBase := p + "/tasks/" + parked.Task.ID + "/pushNotificationConfigs"
	status, _, b = h.post(pushBase, []byte(`{"parent":"tasks/`+parked.Task.ID+`","config_id":"c1","config":{"push_notification_config":{"url":"https://hook.example/a","token":"t1"}}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var pc p03TaskPush
	strict03(t, b, &pc)
	assert.Equal(t, "tasks/"+parked.Task.ID+"/pushNotificationConfigs/c1", pc.Name)
	assert.Equal(t, "https://hook.example/a", pc.PushNotificationConfig.URL)
	status, _, b = h.post(pushBase, []byte(`{"name":"tasks/`+parked.Task.ID+`/pushNotificationConfigs/c2","pushNotificationConfig":{"id":"c2","url":"https://hook.example/b"}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	status, _, b = h.do(http.MethodGet, pushBase+"/c1", nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	strict03(t, b, &pc)
	assert.Equal(t, "t1", pc.PushNotificationConfig.Token)
	status, _, b = h.do(http.MethodGet, pushBase, nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var list struct {
		Configs       []p03TaskPush `json:"configs"`
		NextPageToken string        `json:"nextPageToken,omitempty"`
	}
	strict03(t, b, &list)
	assert.Len(t, list.Configs, 2)
	status, _, b = h.do(http.MethodDelete, pushBase+"/c2", nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	assert.JSONEq(t, `{}`, string(b))
	status, _, b = h.do(http.MethodGet, pushBase+"/c2", nil, v03hdr)
	assert.GreaterOrEqual(t, status, 400, "%s", b)

	status, _, b = h.post(p+"/tasks/"+parked.Task.ID+":cancel", nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var canceled p03Task
	strict03(t, b, &canceled)
	assert.Equal(t, "TASK_STATE_CANCELLED", canceled.Status.State)

	// stream: StreamResponse frames, the last a final status update.
	st, ct, body, frames := h.openStream(p+"/message:stream", []byte(`{"message":{"messageId":"m-stream","role":"ROLE_USER","content":[{"text":"hi"}]}}`), v03hdr)
	require.Equal(t, http.StatusOK, st, "%s", body)
	require.Equal(t, "text/event-stream", ct)
	require.NotEmpty(t, frames)
	for _, f := range frames {
		var ev p03Stream
		strict03(t, f, &ev)
		oneOf03(t, ev, f)
	}
	var last p03Stream
	strict03(t, frames[len(frames)-1], &last)
	require.NotNil(t, last.StatusUpdate, "%s", frames[len(frames)-1])
	assert.True(t, last.StatusUpdate.Final)
	assert.Equal(t, "TASK_STATE_COMPLETED", last.StatusUpdate.Status.State)

	// subscribe, GET (the proto) and POST (the spec table; a2a-python's
	// first try): a finished task is answered and the stream closes.
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		frames := subscribe03(t, h, m, p+"/tasks/"+done.ID+":subscribe")
		require.NotEmpty(t, frames, m)
		for _, f := range frames {
			var ev p03Stream
			strict03(t, f, &ev)
			oneOf03(t, ev, f)
		}
	}

	// the authenticated extended card: the v0.3 card.
	status, _, b = h.do(http.MethodGet, p+"/card", nil, v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	schemacheck.Require(t, wire.V03, "AgentCard", b)

	// no ListTasks, no v1.0 routes, no tenants; wrong methods are 405.
	for _, path := range []string{"/tasks", "/extendedAgentCard", "/acme/message:send", "/nothing"} {
		status, _, b := h.do(http.MethodGet, p+path, nil, v03hdr)
		requireError03(t, status, b, http.StatusNotFound, "MethodNotFoundError")
	}
	status, hdr, b := h.do(http.MethodGet, p+"/message:send", nil, v03hdr)
	assert.Equal(t, http.StatusMethodNotAllowed, status, "%s", b)
	assert.Equal(t, "POST", hdr.Get("Allow"))

	rest03OnlyWhereDeclared(t)

	// The journal shows the binding and the dialect like any other.
	var served []journal.Entry
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == journal.EntryRequest && strings.HasPrefix(e.Method, "POST /v1/message:send") {
			served = append(served, e)
		}
	}
	require.NotEmpty(t, served)
	for _, e := range served {
		assert.Equal(t, wire.BindingREST, e.Binding)
		assert.Equal(t, wire.V03, e.Dialect)
		assert.Equal(t, wire.OpSend, e.Op)
	}
}

func subscribe03(t *testing.T, h *harness, method, path string) [][]byte {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, nil)
	require.NoError(t, err)
	req.Header.Set("A2A-Version", "0.3")
	resp, err := h.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", strings.Split(resp.Header.Get("Content-Type"), ";")[0])
	var out [][]byte
	buf := new(bytes.Buffer)
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	for _, line := range strings.Split(buf.String(), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, []byte(d))
		}
	}
	return out
}

// The v0.3 routes belong to v0.3 cards declaring HTTP+JSON: a v1.0 agent
// keeps /{tenant}/... (a tenant named v0.3 included), and a v0.3 agent
// configured for JSON-RPC only neither declares nor serves them.
func rest03OnlyWhereDeclared(t *testing.T) {
	h := start(t, server.Config{Seed: 9, StepDelay: time.Millisecond, Agents: []server.AgentConfig{
		{Name: "v10", Card: testCard(wire.V10, false)},
		{Name: "rpc03", Card: testCard(wire.V03, false), Bindings: []wire.Binding{wire.BindingJSONRPC}},
	}})
	send := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`)
	for _, a := range []string{"/agents/v10", "/agents/rpc03"} {
		status, _, b := h.post(a+"/v0.3/v1/message:send", send, v03hdr)
		assert.Equal(t, http.StatusNotFound, status, "%s: %s", a, b)
	}
	status, _, b := h.post("/agents/v10/v0.3/message:send", []byte(`{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), map[string]string{"A2A-Version": "1.0"})
	assert.Equal(t, http.StatusOK, status, "the v1.0 tenant route: %s", b)
	_, _, raw := h.do(http.MethodGet, "/agents/rpc03/.well-known/agent-card.json", nil, nil)
	c, err := cards.Parse(raw)
	require.NoError(t, err)
	for _, in := range c.Interfaces {
		assert.Equal(t, wire.BindingJSONRPC, in.Binding)
	}
}

// The HTTP+JSON behaviors act on the v0.3 binding as on v1.0's:
// subscribe-method refuses the other method at :subscribe, and
// rest-error-dialect rewrites the error body (the Status and the v0.3 type
// beside it) while the status stays.
func TestREST03Behaviors(t *testing.T) {
	t.Parallel()
	parse := func(spec string) behaviors.Behavior {
		b, err := behaviors.Catalogue().Parse(spec)
		require.NoError(t, err)
		return b
	}
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "sub", Card: testCard(wire.V03, false), Behaviors: []behaviors.Behavior{parse("subscribe-method:serve=get")}},
		{Name: "errs", Card: testCard(wire.V03, false), Behaviors: []behaviors.Behavior{parse("rest-error-dialect:mode=problem")}},
		{Name: "legacy", Card: testCard(wire.V03, false), Behaviors: []behaviors.Behavior{parse("subscribe-method:serve=legacy")}},
	}})
	status, _, b := h.post("/agents/sub/v0.3/v1/message:send", []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var res struct{ Task p03Task }
	require.NoError(t, json.Unmarshal(b, &res))
	path := "/agents/sub/v0.3/v1/tasks/" + res.Task.ID + ":subscribe"
	status, hdr, b := h.do(http.MethodPost, path, nil, v03hdr)
	assert.Equal(t, http.StatusMethodNotAllowed, status, "%s", b)
	assert.Equal(t, "GET", hdr.Get("Allow"))
	require.NotEmpty(t, subscribe03(t, h, http.MethodGet, path))

	// serve=legacy: only /v1/tasks/{id}/subscribe, as on v1.0.
	status, _, b = h.post("/agents/legacy/v0.3/v1/message:send", []byte(`{"message":{"messageId":"m2","role":"ROLE_USER","content":[{"text":"hi"}]}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.NoError(t, json.Unmarshal(b, &res))
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		status, _, b = h.do(m, "/agents/legacy/v0.3/v1/tasks/"+res.Task.ID+":subscribe", nil, v03hdr)
		assert.Equal(t, http.StatusNotFound, status, "%s :subscribe: %s", m, b)
		assert.NotEmpty(t, subscribe03(t, h, m, "/agents/legacy/v0.3/v1/tasks/"+res.Task.ID+"/subscribe"))
	}
	// Without the behavior the legacy path is not a route.
	status, _, b = h.do(http.MethodGet, path[:len(path)-len(":subscribe")]+"/subscribe", nil, v03hdr)
	assert.Equal(t, http.StatusNotFound, status, "%s", b)

	status, hdr, b = h.do(http.MethodGet, "/agents/errs/v0.3/v1/tasks/no-such-task", nil, v03hdr)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "application/problem+json", hdr.Get("Content-Type"))
	var p map[string]any
	require.NoError(t, json.Unmarshal(b, &p), "%s", b)
	assert.Equal(t, "TASK_NOT_FOUND", p["reason"], "%s", b)
	assert.NotContains(t, p, "error")
}

// stream-error-as-json answers a v0.3 HTTP+JSON stream with the v0.3 error
// body (the error's name and JSON-RPC code beside the Status) that the
// binding's other errors carry, not v1.0's alone.
func TestREST03StreamErrorAsJSON(t *testing.T) {
	t.Parallel()
	b, err := behaviors.Catalogue().Parse("stream-error-as-json:code=-32001,message=gone")
	require.NoError(t, err)
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "a", Card: testCard(wire.V03, false), Behaviors: []behaviors.Behavior{b}}}})
	status, hdr, body := h.post("/v0.3/v1/message:stream", []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`), v03hdr)
	assert.Equal(t, "application/json", hdr.Get("Content-Type"))
	requireError03(t, status, body, http.StatusNotFound, "TaskNotFoundError")
}

// A query parameter a bodiless HTTP+JSON route does not read (the proto's
// history_length, a misspelling) is journaled as ignored, on v1.0's
// binding and v0.3's; A2A-Version in the query is read, not ignored.
func TestRESTIgnoredQuery(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "new", Card: testCard(wire.V10, true)}, {Name: "old", Card: testCard(wire.V03, true)}}})
	status, _, b := h.post("/agents/new/rest/message:send", []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), v1)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var v10 struct{ Task struct{ ID string } }
	require.NoError(t, json.Unmarshal(b, &v10))
	status, _, b = h.post("/agents/old/v0.3/v1/message:send", []byte(`{"message":{"messageId":"m2","role":"ROLE_USER","content":[{"text":"hi"}]}}`), v03hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	var v03 struct{ Task struct{ ID string } }
	require.NoError(t, json.Unmarshal(b, &v03))

	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/agents/new/rest/tasks/" + v10.Task.ID + "?historyLength=1&A2A-Version=1.0", nil},
		{"/agents/new/rest/tasks/" + v10.Task.ID + "?history_length=1&A2A-Version=1.0", []string{"history_length"}},
		{"/agents/new/rest/tasks?pageSize=1&page_token=x&zzz=1&A2A-Version=1.0", []string{"page_token", "zzz"}},
		{"/agents/new/rest/tasks/" + v10.Task.ID + "/pushNotificationConfigs?pageSize=1&A2A-Version=1.0", nil},
		{"/agents/old/v0.3/v1/tasks/" + v03.Task.ID + "?historyLength=1&tenant=x&A2A-Version=0.3", []string{"tenant"}},
		{"/agents/old/v0.3/v1/tasks/" + v03.Task.ID + "/pushNotificationConfigs?metadata=1&A2A-Version=0.3", []string{"metadata"}},
	} {
		before := h.srv.Journal().LastSeq()
		status, _, b := h.do(http.MethodGet, tc.path, nil, nil)
		require.Equal(t, http.StatusOK, status, "%s: %s", tc.path, b)
		var got []journal.Entry
		for _, e := range h.srv.Journal().Entries() {
			if e.Seq > before && e.Kind == journal.EntryRequest {
				got = append(got, e)
			}
		}
		require.Len(t, got, 1, tc.path)
		assert.Equal(t, tc.want, got[0].Ignored, tc.path)
	}
}
