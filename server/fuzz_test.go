package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// knownCodes are the error codes a JSON-RPC answer may carry. Internal
// errors (-32603) are left out on purpose: any input that produces one is a
// server bug.
var knownCodes = map[int]bool{
	wire.CodeParseError: true, wire.CodeInvalidRequest: true, wire.CodeMethodNotFound: true, wire.CodeInvalidParams: true,
	wire.CodeTaskNotFound: true, wire.CodeTaskNotCancelable: true, wire.CodePushNotSupported: true,
	wire.CodeUnsupportedOperation: true, wire.CodeContentTypeNotSupported: true, wire.CodeExtendedCardNotConfigured: true,
	wire.CodeVersionNotSupported: true,
}

// fuzzSeeds are valid requests of every dialect and broken variants.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"skillId":"ask"}},"configuration":{"historyLength":1,"returnImmediately":true}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{"message":{"messageId":"m3","role":"ROLE_USER","parts":[{"text":"hi"},{"url":"https://x.example/f","mediaType":"text/plain"},{"data":{"a":1}},{"raw":"aGk="}]}}}`,
	`{"jsonrpc":"2.0","id":"g","method":"GetTask","params":{"id":"t","historyLength":0}}`,
	`{"jsonrpc":"2.0","id":4,"method":"ListTasks","params":{"pageSize":2,"status":"TASK_STATE_COMPLETED","includeArtifacts":true}}`,
	`{"jsonrpc":"2.0","id":5,"method":"CancelTask","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"SubscribeToTask","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"https://h.example/"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"GetTaskPushNotificationConfig","params":{"taskId":"t","id":"p"}}`,
	`{"jsonrpc":"2.0","id":9,"method":"ListTaskPushNotificationConfigs","params":{"taskId":"t"}}`,
	`{"jsonrpc":"2.0","id":10,"method":"DeleteTaskPushNotificationConfig","params":{"taskId":"t","id":"p"}}`,
	`{"jsonrpc":"2.0","id":11,"method":"GetExtendedAgentCard"}`,
	`{"jsonrpc":"2.0","id":12,"method":"message/send","params":{"message":{"kind":"message","messageId":"m4","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"file","file":{"uri":"https://x.example/f"}},{"kind":"data","data":{"b":2}}]},"configuration":{"blocking":false}}}`,
	`{"jsonrpc":"2.0","id":13,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m5","role":"user","parts":[{"kind":"text","text":"hi"}],"taskId":"t","contextId":"c"}}}`,
	`{"jsonrpc":"2.0","id":14,"method":"tasks/get","params":{"id":"t","historyLength":2}}`,
	`{"jsonrpc":"2.0","id":15,"method":"tasks/cancel","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":16,"method":"tasks/resubscribe","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":17,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"t","pushNotificationConfig":{"url":"https://h.example/"}}}`,
	`{"jsonrpc":"2.0","id":18,"method":"tasks/pushNotificationConfig/list","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":19,"method":"agent/getAuthenticatedExtendedCard"}`,
	`{"jsonrpc":"2.0","id":20,"method":"tasks/send","params":{"id":"v01","sessionId":"s","message":{"role":"user","parts":[{"type":"text","text":"hi"}]},"historyLength":1}}`,
	`{"jsonrpc":"2.0","id":21,"method":"tasks/sendSubscribe","params":{"id":"v01b","message":{"role":"user","parts":[{"type":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}}]}}}`,
	`{"jsonrpc":"2.0","id":22,"method":"tasks/pushNotification/set","params":{"id":"v01","pushNotificationConfig":{"url":"https://h.example/"}}}`,
	// Broken variants.
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{}]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a","data":{}}]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"user","parts":"x"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":null}}`,
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}]},"configuration":{"historyLength":"x"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":"5","pageToken":"MTA"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"","message":{"role":"agent","parts":[{"type":"nope"}]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"task","messageId":"m","role":"user","parts":[]}}}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{"id":"t"}}`,
	`{"jsonrpc":"2.0","id":-0,"method":"GetTask","params":{"id":"\u0000"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"},"extra":true}`,
	`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}} trailing`,
	`[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`,
	`{"jsonrpc":"2.0","method":"GetTask"}`,
	`{"jsonrpc":2,"id":1,"method":"GetTask"}`,
	`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"t"}`,
	`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[]}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":[],"method":"GetTask"}`,
	`{"a":`,
	`null`,
	``,
	"\xff\xfe{}",
}

func FuzzJSONRPC(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	card := testCard(wire.V10, true)
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, TaskRetention: 64, JournalRetention: 512,
		Agents: []server.AgentConfig{{Name: "agent", Card: card}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte, v1Header bool) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if v1Header {
			req.Header.Set("A2A-Version", "1.0")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if res.StatusCode == http.StatusInternalServerError {
			t.Fatalf("500 for %q: %s", body, rec.Body)
		}
		mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		switch mt {
		case "text/event-stream":
			evs, err := sse.Collect(context.Background(), bytes.NewReader(rec.Body.Bytes()))
			if err != nil {
				t.Fatalf("broken stream for %q: %v\n%s", body, err, rec.Body)
			}
			if len(evs) == 0 {
				t.Fatalf("empty stream for %q", body)
			}
			for _, ev := range evs {
				checkRPCAnswer(t, body, ev.Data)
			}
		case "application/json":
			checkRPCAnswer(t, body, rec.Body.Bytes())
		default:
			t.Fatalf("content type %q for %q: %s", mt, body, rec.Body)
		}
	})
}

// checkRPCAnswer fails unless b is a JSON-RPC 2.0 response with a result or
// an error of a known code.
func checkRPCAnswer(t *testing.T, in, b []byte) {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("answer to %q is not JSON: %v\n%s", in, err, b)
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(b, &members)
	if _, hasID := members["id"]; r.JSONRPC != "2.0" || !hasID {
		t.Fatalf("answer to %q is not a JSON-RPC 2.0 response: %s", in, b)
	}
	hasResult := len(r.Result) > 0
	if hasResult == (r.Error != nil) {
		t.Fatalf("answer to %q must have exactly one of result and error: %s", in, b)
	}
	if r.Error != nil {
		if r.Error.Code == nil || r.Error.Message == nil {
			t.Fatalf("error without code or message for %q: %s", in, b)
		}
		if !knownCodes[*r.Error.Code] {
			t.Fatalf("unexpected error code %d for %q: %s", *r.Error.Code, in, b)
		}
	}
}
