package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// harness is one started server and an HTTP client of its own, so that the
// client's idle connections go away with the test.
type harness struct {
	t      testing.TB
	srv    *server.Server
	url    string
	client *http.Client
	// streamTimeout bounds how long a stream is read; 0 means 20s.
	streamTimeout time.Duration
}

// start builds and starts a server on a loopback port and closes it (and
// the client's connections) when the test ends.
func start(t testing.TB, cfg server.Config) *harness {
	t.Helper()
	s, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	// Every control-API answer a test gets is checked against openapi.json.
	h := &harness{t: t, srv: s, url: s.URL(), client: &http.Client{Transport: openAPICheck{t, tr}, Timeout: 30 * time.Second}}
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		tr.CloseIdleConnections()
	})
	return h
}

// testCard is a card of dialect d with a skill that answers ("echo") and one
// that needs input ("ask").
func testCard(d wire.Dialect, push bool) *cards.Card {
	return &cards.Card{
		Name:               "Test Agent " + string(d),
		Description:        "An agent for the server tests.",
		Version:            "1.2.3",
		Dialect:            d,
		Provider:           &cards.Provider{Organization: "Example", URL: "https://example.example"},
		Capabilities:       cards.Capabilities{Streaming: true, PushNotifications: push},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{
			{ID: "echo", Name: "Echo", Description: "Answers.", Tags: []string{"echo"}, Examples: []string{"hi"},
				InputModes: []string{"text/plain"}, OutputModes: []string{"text/plain"}},
			{ID: "ask", Name: "Ask", Description: "Asks first.", Tags: []string{"ask"}, NeedsInput: true, InputPrompt: "Which one?"},
		},
	}
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// rpcResponse is a JSON-RPC response as read off the wire.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

var rpcSeq atomic.Int64

// rpcBody renders a JSON-RPC request with a fresh numeric id.
func rpcBody(method string, params any) []byte {
	p, err := json.Marshal(params)
	if err != nil {
		panic(err)
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, rpcSeq.Add(1), method, p))
}

// post sends body to path and returns the status, headers and body.
func (h *harness) post(path string, body []byte, hdr map[string]string) (int, http.Header, []byte) {
	h.t.Helper()
	return h.do(http.MethodPost, path, body, hdr)
}

func (h *harness) do(method, path string, body []byte, hdr map[string]string) (int, http.Header, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	require.NoError(h.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return resp.StatusCode, resp.Header, b
}

// rpc calls method on the agent's JSON-RPC endpoint at path and returns the
// decoded response and its raw bytes.
func (h *harness) rpc(path, method string, params any, hdr map[string]string) (rpcResponse, []byte) {
	h.t.Helper()
	status, header, b := h.post(path, rpcBody(method, params), hdr)
	require.Equal(h.t, http.StatusOK, status, "body: %s", b)
	require.Contains(h.t, header.Get("Content-Type"), "application/json")
	var r rpcResponse
	require.NoError(h.t, json.Unmarshal(b, &r), "body: %s", b)
	require.Equal(h.t, "2.0", r.JSONRPC)
	require.True(h.t, (r.Error == nil) != (len(r.Result) == 0), "exactly one of result and error: %s", b)
	return r, b
}

// streamFrames opens a stream with a POST of body to path and returns the
// data of every event until the server ends the stream.
func (h *harness) streamFrames(path string, body []byte, hdr map[string]string) [][]byte {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+path, bytes.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.readTimeout())
	defer cancel()
	st, err := sse.Do(ctx, h.client, req)
	require.NoError(h.t, err)
	defer st.Close()
	var out [][]byte
	for ev, err := range st.Events() {
		require.NoError(h.t, err, "stream ended badly after %d events", len(out))
		out = append(out, ev.Data)
	}
	return out
}

// v10 headers.
var v1 = map[string]string{"A2A-Version": "1.0"}

// Schema definitions of the JSON-RPC answers per dialect and operation.
var (
	v10ResultDef = map[wire.Op]string{
		wire.OpSend: "SendMessageResponse", wire.OpGetTask: "Task", wire.OpCancelTask: "Task",
		wire.OpListTasks: "ListTasksResponse", wire.OpSetPushConfig: "TaskPushNotificationConfig",
		wire.OpGetPushConfig: "TaskPushNotificationConfig", wire.OpListPushConfigs: "ListTaskPushNotificationConfigsResponse",
		wire.OpExtendedCard: "AgentCard", wire.OpStream: "StreamResponse", wire.OpSubscribe: "StreamResponse",
	}
	v03ResponseDef = map[wire.Op]string{
		wire.OpSend: "SendMessageResponse", wire.OpGetTask: "GetTaskResponse", wire.OpCancelTask: "CancelTaskResponse",
		wire.OpSetPushConfig: "SetTaskPushNotificationConfigResponse", wire.OpGetPushConfig: "GetTaskPushNotificationConfigResponse",
		wire.OpListPushConfigs: "ListTaskPushNotificationConfigResponse", wire.OpDeletePush: "DeleteTaskPushNotificationConfigResponse",
		wire.OpExtendedCard: "GetAuthenticatedExtendedCardResponse", wire.OpStream: "SendStreamingMessageResponse",
		wire.OpSubscribe: "SendStreamingMessageResponse",
	}
	v01ResponseDef = map[wire.Op]string{
		wire.OpSend: "SendTaskResponse", wire.OpGetTask: "GetTaskResponse", wire.OpCancelTask: "CancelTaskResponse",
		wire.OpStream: "SendTaskStreamingResponse", wire.OpSubscribe: "SendTaskStreamingResponse",
		wire.OpSetPushConfig: "SetTaskPushNotificationResponse", wire.OpGetPushConfig: "GetTaskPushNotificationResponse",
	}
)

// requireValidRPC validates one JSON-RPC response (or stream frame) of
// dialect d for op against the official schema: the whole response for
// v0.x, the result member for v1.0 (whose schema has no envelope).
func requireValidRPC(t testing.TB, d wire.Dialect, op wire.Op, raw []byte) {
	t.Helper()
	var r rpcResponse
	require.NoError(t, json.Unmarshal(raw, &r), "not JSON: %s", raw)
	switch d {
	case wire.V10:
		if r.Error != nil {
			requireV10Error(t, raw)
			return
		}
		if op == wire.OpDeletePush {
			// google.protobuf.Empty goes as null, as the SDKs send it.
			require.Equal(t, "null", string(r.Result))
			return
		}
		schemacheck.Require(t, d, v10ResultDef[op], r.Result)
	case wire.V03, wire.V02:
		def := v03ResponseDef[op]
		if r.Error != nil {
			def = "JSONRPCErrorResponse"
		}
		schemacheck.Require(t, d, def, raw)
	case wire.V01:
		def := v01ResponseDef[op]
		if r.Error != nil {
			def = "JSONRPCResponse"
		}
		schemacheck.Require(t, d, def, raw)
	default:
		t.Fatalf("no dialect %q", d)
	}
}

// requireV10Error checks a v1.0 JSON-RPC error response: an integer code, a
// message, and when there is data, an array of ErrorInfo-like details.
func requireV10Error(t testing.TB, raw []byte) {
	t.Helper()
	var r struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    *int            `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &r))
	require.Equal(t, "2.0", r.JSONRPC)
	require.NotNil(t, r.Error)
	require.NotNil(t, r.Error.Code, "error.code: %s", raw)
	require.NotNil(t, r.Error.Message, "error.message: %s", raw)
	require.NotEmpty(t, *r.Error.Message)
}

// requireRESTStatus checks a google.rpc.Status error body with the HTTP
// status it came with.
func requireRESTStatus(t testing.TB, status int, body []byte) map[string]any {
	t.Helper()
	var r struct {
		Error *struct {
			Code    int              `json:"code"`
			Status  string           `json:"status"`
			Message string           `json:"message"`
			Details []map[string]any `json:"details"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &r), "body: %s", body)
	require.NotNil(t, r.Error, "no error member: %s", body)
	require.Equal(t, status, r.Error.Code, "error.code is the HTTP status: %s", body)
	require.NotEmpty(t, r.Error.Status, "error.status: %s", body)
	require.Equal(t, strings.ToUpper(r.Error.Status), r.Error.Status)
	require.NotEqual(t, "UNKNOWN", r.Error.Status, "error.status names the google.rpc.Code of the HTTP status: %s", body)
	require.NotEmpty(t, r.Error.Message)
	for _, d := range r.Error.Details {
		require.Contains(t, d, "@type")
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

// wireTask is the dialect-neutral view of a task answered on the wire.
type wireTask struct {
	ID        string
	ContextID string
	State     wire.TaskState
	Timestamp string
	History   int
	Artifacts int
	Kind      string
}

// parseTask reads a task of dialect d.
func parseTask(t testing.TB, d wire.Dialect, raw []byte) wireTask {
	t.Helper()
	var w struct {
		ID        string                            `json:"id"`
		ContextID string                            `json:"contextId"`
		SessionID string                            `json:"sessionId"`
		Kind      string                            `json:"kind"`
		Status    struct{ State, Timestamp string } `json:"status"`
		History   []json.RawMessage                 `json:"history"`
		Artifacts []json.RawMessage                 `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(raw, &w), "task: %s", raw)
	out := wireTask{ID: w.ID, ContextID: w.ContextID, Timestamp: w.Status.Timestamp, History: len(w.History), Artifacts: len(w.Artifacts), Kind: w.Kind}
	if d == wire.V01 {
		out.ContextID = w.SessionID
	}
	out.State = canonicalState(t, d, w.Status.State)
	return out
}

func canonicalState(t testing.TB, d wire.Dialect, s string) wire.TaskState {
	t.Helper()
	if d == wire.V10 {
		st, ok := wire.StateFromV10(s)
		require.True(t, ok, "v1.0 state %q", s)
		return st
	}
	require.False(t, strings.HasPrefix(s, "TASK_STATE_"), "v0.x state %q", s)
	return wire.TaskState(s)
}

// wireEvent is the dialect-neutral view of one stream event.
type wireEvent struct {
	Kind     string // task, status, artifact, message
	TaskID   string
	State    wire.TaskState
	Final    *bool
	HasKind  bool
	Artifact string
}

// parseEvent reads the event of a stream frame (the JSON-RPC result, or the
// data itself for REST).
func parseEvent(t testing.TB, d wire.Dialect, data []byte) wireEvent {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), "event: %s", data)
	var ev wireEvent
	_, ev.HasKind = m["kind"]
	if f, ok := m["final"]; ok {
		var b bool
		require.NoError(t, json.Unmarshal(f, &b))
		ev.Final = &b
	}
	status := func(raw json.RawMessage) wire.TaskState {
		var s struct{ State string }
		require.NoError(t, json.Unmarshal(raw, &s))
		return canonicalState(t, d, s.State)
	}
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	switch d {
	case wire.V10:
		require.Len(t, m, 1, "a v1.0 StreamResponse has exactly one member: %s", data)
		for k, v := range m {
			switch k {
			case "task":
				tk := parseTask(t, d, v)
				return wireEvent{Kind: "task", TaskID: tk.ID, State: tk.State}
			case "statusUpdate":
				var u map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(v, &u))
				_, hasFinal := u["final"]
				require.False(t, hasFinal, "v1.0 status updates have no final: %s", v)
				_, hasKind := u["kind"]
				require.False(t, hasKind, "v1.0 events have no kind: %s", v)
				return wireEvent{Kind: "status", TaskID: str(u["taskId"]), State: status(u["status"])}
			case "artifactUpdate":
				var u struct {
					TaskID   string
					Artifact struct{ ArtifactID string }
				}
				require.NoError(t, json.Unmarshal(v, &u))
				return wireEvent{Kind: "artifact", TaskID: u.TaskID, Artifact: u.Artifact.ArtifactID}
			case "message":
				return wireEvent{Kind: "message"}
			}
		}
		t.Fatalf("unknown v1.0 stream member: %s", data)
	case wire.V03, wire.V02:
		require.True(t, ev.HasKind, "v0.x events carry kind: %s", data)
		switch k := str(m["kind"]); k {
		case "task":
			tk := parseTask(t, d, data)
			ev.Kind, ev.TaskID, ev.State = "task", tk.ID, tk.State
		case "status-update":
			ev.Kind, ev.TaskID, ev.State = "status", str(m["taskId"]), status(m["status"])
			require.NotNil(t, ev.Final, "v0.x status updates carry final: %s", data)
		case "artifact-update":
			ev.Kind, ev.TaskID = "artifact", str(m["taskId"])
		case "message":
			ev.Kind = "message"
		default:
			t.Fatalf("unknown kind %q", k)
		}
	case wire.V01:
		ev.TaskID = str(m["id"])
		switch {
		case m["status"] != nil:
			ev.Kind, ev.State = "status", status(m["status"])
			require.NotNil(t, ev.Final, "v0.1 status updates carry final: %s", data)
		case m["artifact"] != nil:
			ev.Kind = "artifact"
		default:
			t.Fatalf("unknown v0.1 event: %s", data)
		}
	}
	return ev
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// openStream POSTs body to path; a reply that is an event stream is read to
// its end and its frames returned, any other reply is returned as status,
// media type and body.
func (h *harness) openStream(path string, body []byte, hdr map[string]string) (int, string, []byte, [][]byte) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+path, bytes.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.readTimeout())
	defer cancel()
	st, err := sse.Do(ctx, h.client, req)
	var nas *sse.NotAStreamError
	if errors.As(err, &nas) {
		mt, _, _ := mime.ParseMediaType(nas.ContentType)
		return nas.Status, mt, nas.Body, nil
	}
	require.NoError(h.t, err)
	defer st.Close()
	var out [][]byte
	for ev, err := range st.Events() {
		require.NoError(h.t, err, "stream ended badly after %d events", len(out))
		out = append(out, ev.Data)
	}
	return st.Response().StatusCode, "text/event-stream", nil, out
}

func (h *harness) readTimeout() time.Duration {
	if h.streamTimeout > 0 {
		return h.streamTimeout
	}
	return 20 * time.Second
}
