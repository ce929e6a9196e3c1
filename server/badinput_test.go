package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// stillServes checks that the server answers a good request.
func stillServes(t *testing.T, h *harness, after string) {
	t.Helper()
	tk, e := newClient(t, h, dialectCases[0]).send(sendOpts{})
	require.Nil(t, e, "after %s", after)
	require.Equal(t, wire.StateCompleted, tk.State, "after %s", after)
}

func TestBadJSONRPC(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 61, StepDelay: -1, MaxBodyBytes: 2048})
	known := newClient(t, h, dialectCases[0]).mustSend(sendOpts{}).ID
	msg := func(m string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":` + m + `}}`
	}
	for _, tc := range []struct {
		name   string
		body   string
		ct     string
		status int
		code   int
		field  string // the message names it
		id     string // the id echoed
	}{
		{name: "not JSON", body: `{"jsonrpc":`, code: wire.CodeParseError, id: "null"},
		{name: "empty body", body: ``, code: wire.CodeParseError, id: "null"},
		{name: "garbage", body: `\x00\x01 hello`, code: wire.CodeParseError, id: "null"},
		{name: "a string", body: `"GetTask"`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "empty batch", body: `[]`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":3,"method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: "3"},
		{name: "no jsonrpc", body: `{"id":"a","method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: `"a"`},
		{name: "no method", body: `{"jsonrpc":"2.0","id":4,"params":{}}`, code: wire.CodeInvalidRequest, id: "4"},
		{name: "method not a string", body: `{"jsonrpc":"2.0","id":4,"method":5}`, code: wire.CodeInvalidRequest},
		{name: "no id", body: `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "null id", body: `{"jsonrpc":"2.0","id":null,"method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "object id", body: `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "bool id", body: `{"jsonrpc":"2.0","id":true,"method":"GetTask","params":{"id":"x"}}`, code: wire.CodeInvalidRequest, id: "null"},
		{name: "params a number", body: `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":5}`, code: wire.CodeInvalidRequest, id: "5"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":6,"method":"tasks/frobnicate","params":{}}`, code: wire.CodeMethodNotFound, id: "6", field: "tasks/frobnicate"},
		{name: "params an array", body: `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":[]}`, code: wire.CodeInvalidParams, id: "7"},
		{name: "GetTask without id", body: `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{}}`, code: wire.CodeInvalidParams, field: "id", id: "7"},
		{name: "GetTask id a number", body: `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":5}}`, code: wire.CodeInvalidParams, field: "id", id: "7"},
		{name: "negative historyLength", body: `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"` + known + `","historyLength":-1}}`, code: wire.CodeInvalidParams, field: "historyLength", id: "7"},
		{name: "SendMessage without message", body: `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{}}`, code: wire.CodeInvalidParams, field: "message", id: "7"},
		{name: "no messageId", body: msg(`{"role":"ROLE_USER","parts":[{"text":"x"}]}`), code: wire.CodeInvalidParams, field: "message.messageId", id: "7"},
		{name: "bad role", body: msg(`{"messageId":"m","role":"ROLE_BOGUS","parts":[{"text":"x"}]}`), code: wire.CodeInvalidParams, field: "message.role", id: "7"},
		{name: "part with two members", body: msg(`{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x","url":"https://a.example"}]}`), code: wire.CodeInvalidParams, field: "message.parts[0]", id: "7"},
		{name: "v0.3 no messageId", body: `{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"kind":"message","role":"user","parts":[{"kind":"text","text":"x"}]}}}`, code: wire.CodeInvalidParams, field: "messageId", id: "8"},
		{name: "v0.3 bad part kind", body: `{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"video"}]}}}`, code: wire.CodeInvalidParams, field: "parts[0]", id: "8"},
		{name: "v0.1 without task id", body: `{"jsonrpc":"2.0","id":9,"method":"tasks/send","params":{"message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`, code: wire.CodeInvalidParams, field: "id", id: "9"},
		{name: "unknown task", body: `{"jsonrpc":"2.0","id":"q","method":"GetTask","params":{"id":"nope"}}`, code: wire.CodeTaskNotFound, id: `"q"`},
		{name: "oversize", body: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("x", 4096) + `"}]}}}`, status: http.StatusRequestEntityTooLarge, code: wire.CodeInvalidRequest, field: "limit"},
		{name: "text/plain", body: `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, ct: "text/plain", status: http.StatusUnsupportedMediaType, code: wire.CodeInvalidRequest, field: "Content-Type"},
		{name: "form", body: `id=1`, ct: "application/x-www-form-urlencoded", status: http.StatusUnsupportedMediaType, code: wire.CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.ReplaceAll(tc.body, `\x00\x01`, "\x00\x01")
			hdr := map[string]string{"A2A-Version": "1.0"}
			if tc.ct != "" {
				hdr["Content-Type"] = tc.ct
			}
			status, rh, b := h.post("/", []byte(body), hdr)
			want := tc.status
			if want == 0 {
				want = http.StatusOK
			}
			assert.Equal(t, want, status, "%s", b)
			assert.Contains(t, rh.Get("Content-Type"), "application/json")
			var r rpcResponse
			require.NoError(t, json.Unmarshal(b, &r), "the answer is JSON: %s", b)
			require.NotNil(t, r.Error, "%s", b)
			assert.Empty(t, r.Result)
			assert.Equal(t, tc.code, r.Error.Code, "%s", b)
			if tc.field != "" {
				assert.Contains(t, r.Error.Message, tc.field, "the message names the field")
			}
			if tc.id != "" {
				assert.JSONEq(t, tc.id, string(r.ID), "the id is echoed when it could be read")
			}
			requireV10Error(t, b)
			if tc.code < -32000 && tc.code > -32100 {
				// Generic JSON-RPC errors have one shape in every dialect.
				schemacheck.Require(t, wire.V03, "JSONRPCErrorResponse", b)
			}
			stillServes(t, h, tc.name)
		})
	}
	// GET on the JSON-RPC endpoint.
	status, hdr, b := h.do(http.MethodGet, "/", nil, nil)
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, http.MethodPost, hdr.Get("Allow"))
	requireRESTStatus(t, status, b)
	stillServes(t, h, "GET /")
}

func TestBadREST(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 62, StepDelay: -1, MaxBodyBytes: 2048})
	known := newClient(t, h, dialectCases[0]).mustSend(sendOpts{}).ID
	goodSend, _ := json.Marshal(newClient(t, h, dialectCases[0]).sendParams(sendOpts{}))
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   string
		ct     string
		status int
		reason string // ErrorInfo reason, when the error has one
		field  string
	}{
		{name: "unknown task", method: "GET", path: "/rest/tasks/nope", status: 404, reason: "TASK_NOT_FOUND"},
		{name: "cancel unknown task", method: "POST", path: "/rest/tasks/nope:cancel", body: `{}`, status: 404, reason: "TASK_NOT_FOUND"},
		{name: "subscribe unknown task", method: "POST", path: "/rest/tasks/nope:subscribe", body: `{}`, status: 404, reason: "TASK_NOT_FOUND"},
		{name: "id with a space", method: "GET", path: "/rest/tasks/bad%20id", status: 400, field: "task id"},
		{name: "unknown verb", method: "POST", path: "/rest/tasks/" + known + ":frobnicate", body: `{}`, status: 404},
		{name: "unknown path", method: "GET", path: "/rest/nothing/here/at/all", status: 404},
		{name: "no route", method: "GET", path: "/nowhere", status: 404},
		{name: "unknown agent", method: "POST", path: "/agents/nobody/", body: `{}`, status: 404},
		{name: "GET send", method: "GET", path: "/rest/message:send", status: 405},
		{name: "DELETE task", method: "DELETE", path: "/rest/tasks/" + known, status: 405},
		{name: "PUT push configs", method: "PUT", path: "/rest/tasks/" + known + "/pushNotificationConfigs", body: `{}`, status: 405},
		{name: "POST list", method: "POST", path: "/rest/tasks", body: `{}`, status: 405},
		{name: "send not JSON", method: "POST", path: "/rest/message:send", body: `{"message":`, status: 400},
		{name: "send without message", method: "POST", path: "/rest/message:send", body: `{}`, status: 400, field: "message"},
		{name: "send text/plain", method: "POST", path: "/rest/message:send", body: string(goodSend), ct: "text/plain", status: 415},
		{name: "oversize", method: "POST", path: "/rest/message:send", body: `{"x":"` + strings.Repeat("y", 4096) + `"}`, status: 413},
		{name: "pageSize not a number", method: "GET", path: "/rest/tasks?pageSize=ten", status: 400, field: "pageSize"},
		{name: "pageSize 0", method: "GET", path: "/rest/tasks?pageSize=0", status: 400, field: "pageSize"},
		{name: "pageSize 1000", method: "GET", path: "/rest/tasks?pageSize=1000", status: 400, field: "pageSize"},
		{name: "bad status", method: "GET", path: "/rest/tasks?status=DONE", status: 400, field: "status"},
		{name: "bad includeArtifacts", method: "GET", path: "/rest/tasks?includeArtifacts=maybe", status: 400, field: "includeArtifacts"},
		{name: "bad timestamp", method: "GET", path: "/rest/tasks?statusTimestampAfter=yesterday", status: 400, field: "statusTimestampAfter"},
		{name: "bad historyLength", method: "GET", path: "/rest/tasks/" + known + "?historyLength=-2", status: 400, field: "historyLength"},
		{name: "push body taskId differs", method: "POST", path: "/rest/tasks/" + known + "/pushNotificationConfigs", body: `{"taskId":"other","url":"https://h.example"}`, status: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"A2A-Version": "1.0"}
			if tc.ct != "" {
				hdr["Content-Type"] = tc.ct
			}
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			status, rh, b := h.do(tc.method, tc.path, body, hdr)
			assert.Equal(t, tc.status, status, "%s", b)
			assert.Contains(t, rh.Get("Content-Type"), "json")
			m := requireRESTStatus(t, status, b)
			if tc.reason != "" {
				assert.Contains(t, string(b), `"reason":"`+tc.reason+`"`)
			}
			if tc.field != "" {
				assert.Contains(t, m["error"].(map[string]any)["message"], tc.field)
			}
			if status == http.StatusMethodNotAllowed {
				assert.NotEmpty(t, rh.Get("Allow"), "405 says what is allowed")
			}
			stillServes(t, h, tc.name)
		})
	}
	// The good forms, tenant prefix included.
	for _, path := range []string{"/rest/message:send", "/rest/acme/message:send"} {
		status, _, b := h.post(path, goodSend, v1)
		require.Equal(t, http.StatusOK, status, "%s: %s", path, b)
		schemacheck.Require(t, wire.V10, "SendMessageResponse", b)
	}
	status, _, b := h.do(http.MethodGet, "/rest/acme/tasks/"+known, nil, v1)
	require.Equal(t, http.StatusOK, status, "%s", b)
	schemacheck.Require(t, wire.V10, "Task", b)
}

// Task ids are addressed in REST paths by their escaped form; ids a v0.1
// client chose may hold any character.
func TestRESTEscapedTaskIDs(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 63, StepDelay: -1})
	c01 := newClient(t, h, dialectCases[4])
	for _, id := range []string{"a%41", "x/y", "q?r#s", "caf\u00e9", "100%"} {
		tk := c01.mustSend(sendOpts{taskID: id})
		require.Equal(t, id, tk.ID)
		status, _, b := h.do(http.MethodGet, "/rest/tasks/"+url.PathEscape(id), nil, v1)
		require.Equal(t, http.StatusOK, status, "%q: %s", id, b)
		schemacheck.Require(t, wire.V10, "Task", b)
		assert.Equal(t, id, parseTask(t, wire.V10, b).ID)
	}
}
