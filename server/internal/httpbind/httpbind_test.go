package httpbind

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// fakeHost answers every decoded request with a fixed task through the
// binding's reply, and keeps the request, and the refused ones.
type fakeHost struct {
	got     *wire.Request
	refused []refusal
}

// refusal is a request a binding reported refused, and its error.
type refusal struct {
	req *wire.Request
	err *wire.Error
}

func (h *fakeHost) Refused(w http.ResponseWriter, r *http.Request, a binding.Agent, req *wire.Request, e *wire.Error) {
	h.refused = append(h.refused, refusal{req, e})
}

func (h *fakeHost) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base string, req *wire.Request, rp binding.Reply) error {
	h.got = req
	task := &wire.Task{ID: "t-1", ContextID: "c-1", Status: wire.TaskStatus{State: wire.StateCompleted}}
	return rp.Result(w, req.Op, &wire.Result{Task: task})
}
func (h *fakeHost) CheckVersion(r *http.Request, d wire.Dialect) *wire.Error {
	return wire.CheckVersion(RequestedVersion(r), d, false)
}
func (h *fakeHost) MaxBodyBytes() int64                              { return 1 << 10 }
func (h *fakeHost) Clock() timeline.Clock                            { return timeline.RealClock{} }
func (h *fakeHost) Wait(ctx context.Context, d time.Duration) bool   { return true }
func (h *fakeHost) TenantAgent(string) (binding.Agent, string, bool) { return nil, "", false }
func (h *fakeHost) AgentNames() []string                             { return nil }

// fakeAgent declares every operation and speaks v1.0.
type fakeAgent struct{}

func (fakeAgent) Gate(wire.Op) *wire.Error           { return nil }
func (fakeAgent) CardDialect() wire.Dialect          { return wire.V10 }
func (fakeAgent) TaskDialect(id string) wire.Dialect { return "" }

func post(body, ct string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	r.Header.Set(VersionHeader, "1.0")
	return r
}

func TestJSONRPCDecodesAndAnswers(t *testing.T) {
	t.Parallel()
	h := &fakeHost{}
	rec := httptest.NewRecorder()
	body := `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	require.NoError(t, ServeJSONRPC(h, rec, post(body, ContentTypeJSON), fakeAgent{}, ""))
	require.NotNil(t, h.got)
	assert.Equal(t, wire.OpSend, h.got.Op)
	assert.Equal(t, "SendMessage", h.got.Method)
	assert.Equal(t, wire.BindingJSONRPC, h.got.Binding)
	assert.Equal(t, wire.V10, h.got.Dialect)
	var out struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	assert.Equal(t, 7, out.ID)
	assert.Contains(t, string(out.Result), `"t-1"`)
	assert.Equal(t, ContentTypeJSON, rec.Header().Get("Content-Type"))
}

func TestJSONRPCRefusals(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body, ct string
		code     int
		status   int
		method   string
		op       wire.Op
	}{
		"not JSON":       {`{`, ContentTypeJSON, wire.CodeParseError, http.StatusOK, "", ""},
		"no id":          {`{"jsonrpc":"2.0","method":"GetTask","params":{}}`, "", wire.CodeInvalidRequest, http.StatusOK, "GetTask", ""},
		"unknown method": {`{"jsonrpc":"2.0","id":1,"method":"Nope"}`, "", wire.CodeMethodNotFound, http.StatusOK, "Nope", ""},
		"media type":     {`{}`, "text/plain", wire.CodeInvalidRequest, http.StatusUnsupportedMediaType, "", ""},
		"too large":      {`{"x":"` + strings.Repeat("a", 2<<10) + `"}`, "", wire.CodeInvalidRequest, http.StatusRequestEntityTooLarge, "", ""},
		"bad params":     {`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":7}}`, "", wire.CodeInvalidParams, http.StatusOK, "GetTask", wire.OpGetTask},
	} {
		h := &fakeHost{}
		rec := httptest.NewRecorder()
		require.NoError(t, ServeJSONRPC(h, rec, post(tc.body, tc.ct), fakeAgent{}, ""), name)
		assert.Nil(t, h.got, "%s: nothing reaches the core", name)
		// The host journals every refusal, with what is known of the request.
		if assert.Len(t, h.refused, 1, name) {
			got := h.refused[0]
			assert.Equal(t, tc.code, got.err.Code, name)
			assert.Equal(t, tc.method, got.req.Method, name)
			assert.Equal(t, tc.op, got.req.Op, name)
			assert.Equal(t, wire.BindingJSONRPC, got.req.Binding, name)
		}
		var out struct {
			Error struct{ Code int } `json:"error"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), name)
		assert.Equal(t, tc.code, out.Error.Code, name)
		assert.Equal(t, tc.status, rec.Code, name)
	}
}

func TestRESTRoutesAndAnswersInTheClientsMediaType(t *testing.T) {
	t.Parallel()
	h := &fakeHost{}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/tasks/t-1?historyLength=2", nil)
	r.Header.Set("Accept", ContentTypeA2A)
	require.NoError(t, ServeREST(h, rec, r, fakeAgent{}, "", "/tasks/t-1"))
	require.NotNil(t, h.got)
	assert.Equal(t, wire.OpGetTask, h.got.Op)
	assert.Equal(t, "t-1", h.got.TaskID)
	assert.Equal(t, "GET /tasks/{id}", h.got.Method)
	assert.Equal(t, wire.BindingREST, h.got.Binding)
	assert.Equal(t, ContentTypeA2A, rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Body.String(), `"t-1"`)

	h, rec = &fakeHost{}, httptest.NewRecorder()
	require.NoError(t, ServeREST(h, rec, httptest.NewRequest(http.MethodDelete, "/tasks/t-1:cancel", nil), fakeAgent{}, "", "/tasks/t-1:cancel"))
	assert.Nil(t, h.got)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	if assert.Len(t, h.refused, 1, "a DELETE on no route is journaled") {
		assert.Equal(t, wire.BindingREST, h.refused[0].req.Binding)
		assert.Equal(t, http.StatusMethodNotAllowed, h.refused[0].err.HTTPStatus)
	}
	assert.Equal(t, "POST", rec.Header().Get("Allow"))
	assert.Contains(t, rec.Body.String(), `"status"`, "a google.rpc.Status body")
}

func TestIncomingReadsTheRequest(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/agents/a/?tenant=x", nil)
	r.Header.Set("X-Api-Key", "k")
	r.AddCookie(&http.Cookie{Name: "session", Value: "v"})
	in := Incoming(r)
	assert.Equal(t, http.MethodPost, in.Method())
	assert.Equal(t, "/agents/a/", in.Path())
	assert.Equal(t, "x", in.Query("tenant"))
	assert.Equal(t, "k", in.Header("X-Api-Key"))
	assert.Equal(t, "v", in.Cookie("session"))
	assert.Empty(t, in.Cookie("none"))
	assert.Equal(t, r.Context(), in.Context())
}
