package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// restRoutes are the HTTP+JSON routes FuzzREST drives, {id} and {cfg}
// replaced by the fuzzer's strings; v03 marks the v0.3 binding's.
var restRoutes = []struct {
	method, path string
	v03          bool
}{
	{http.MethodPost, "message:send", false}, {http.MethodPost, "message:stream", false},
	{http.MethodGet, "tasks/{id}", false}, {http.MethodGet, "tasks", false},
	{http.MethodPost, "tasks/{id}:cancel", false}, {http.MethodGet, "tasks/{id}:subscribe", false},
	{http.MethodPost, "tasks/{id}/pushNotificationConfigs", false}, {http.MethodGet, "tasks/{id}/pushNotificationConfigs", false},
	{http.MethodGet, "tasks/{id}/pushNotificationConfigs/{cfg}", false}, {http.MethodDelete, "tasks/{id}/pushNotificationConfigs/{cfg}", false},
	{http.MethodGet, "extendedAgentCard", false},
	{http.MethodPost, "v1/message:send", true}, {http.MethodPost, "v1/message:stream", true},
	{http.MethodGet, "v1/tasks/{id}", true}, {http.MethodPost, "v1/tasks/{id}:cancel", true},
	{http.MethodPost, "v1/tasks/{id}:subscribe", true}, {http.MethodPost, "v1/tasks/{id}/pushNotificationConfigs", true},
	{http.MethodGet, "v1/tasks/{id}/pushNotificationConfigs", true}, {http.MethodDelete, "v1/tasks/{id}/pushNotificationConfigs/{cfg}", true},
	{http.MethodGet, "v1/card", true},
}

// FuzzREST sends the HTTP+JSON bindings, v1.0's and v0.3's, any body and
// any ids and query: the answer is never a 500, an error is the
// binding's error body (a google.rpc.Status; v0.3's with its message and
// code beside it), and a stream is a well-formed event stream.
func FuzzREST(f *testing.F) {
	bodies := []string{
		`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`,
		`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"},{"file":{"fileWithUri":"https://x.example/f"}},{"data":{"data":{"a":1}}}]},"configuration":{"blocking":false}}`,
		`{"request":{"message_id":"m2","role":"ROLE_AGENT","content":[{}]}}`,
		`{"url":"https://h.example/","token":"t","authentication":{"scheme":"Bearer"}}`,
		`{"pushNotificationConfig":{"url":"https://h.example/","authentication":{"schemes":["Bearer"]}}}`,
		`{"message":null}`, `[]`, `{"a":`, ``, "\xff",
	}
	for i := range restRoutes {
		for _, b := range bodies {
			f.Add(uint8(i), "t", "p", "", []byte(b))
		}
	}
	f.Add(uint8(3), "", "", "pageSize=-1&pageToken=%ZZ", []byte(nil))
	f.Add(uint8(2), "a/b", "c", "historyLength=x", []byte(nil))
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, TaskRetention: 64, JournalRetention: 512,
		Agents: []server.AgentConfig{{Name: "new", Card: testCard(wire.V10, true)}, {Name: "old", Card: testCard(wire.V03, true)}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, route uint8, id, cfg, query string, body []byte) {
		r := restRoutes[int(route)%len(restRoutes)]
		path := "/agents/new/rest/"
		version := "1.0"
		if r.v03 {
			path, version = "/agents/old/v0.3/", "0.3"
		}
		path += strings.NewReplacer("{id}", id, "{cfg}", cfg).Replace(r.path)
		req, err := http.NewRequest(r.method, "http://127.0.0.1"+path, bytes.NewReader(body))
		if err != nil {
			return // not a URL a client could send
		}
		req.URL.RawQuery = query
		req = req.WithContext(context.Background())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", version)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if res.StatusCode >= 500 {
			t.Fatalf("%d for %s %s %q: %s", res.StatusCode, r.method, path, body, rec.Body)
		}
		mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		switch {
		case mt == "text/event-stream":
			if _, err := sse.Collect(context.Background(), bytes.NewReader(rec.Body.Bytes())); err != nil {
				t.Fatalf("broken stream for %s %s %q: %v\n%s", r.method, path, body, err, rec.Body)
			}
		case res.StatusCode >= 400:
			var e struct {
				Error *struct {
					Code   int    `json:"code"`
					Status string `json:"status"`
				} `json:"error"`
				Code    *int    `json:"code"`
				Message *string `json:"message"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == nil || e.Error.Code != res.StatusCode || e.Error.Status == "" {
				t.Fatalf("%d for %s %s %q is not a google.rpc.Status body: %s", res.StatusCode, r.method, path, body, rec.Body)
			}
			if r.v03 && (e.Code == nil || e.Message == nil) && strings.HasPrefix(path, "/agents/old/v0.3/v1/") {
				t.Fatalf("v0.3 error for %s %s %q lacks code or message: %s", r.method, path, body, rec.Body)
			}
		case mt == "application/json" && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()):
			t.Fatalf("answer to %s %s %q is not JSON: %s", r.method, path, body, rec.Body)
		}
	})
}
