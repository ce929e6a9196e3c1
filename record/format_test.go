package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadRejectsBadRecordings(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"empty", "  \n", "empty recording"},
		{"unknown field", `{"version":1,"upstream":"u","exchanges":[],"extra":1}`, `unknown field "extra"`},
		{"wrong version", `{"version":2,"upstream":"u","exchanges":[]}`, "version 2"},
		{"bad kind", `{"version":1,"exchanges":[{"kind":"soap","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, `kind "soap"`},
		{"no method", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":" ","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, "method is empty"},
		{"bad status", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":9,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, "status 9"},
		{"bad duration", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"soon","headersAfter":"0s"}]}`, `duration "soon"`},
		{"negative duration", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"-1s","headersAfter":"0s"}]}`, "negative"},
		{"events without end", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","events":[{"after":"0s","text":"x"}]}]}`, "events without end"},
		{"no answer with an answer", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":0,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","response":{"jsonrpc":"2.0"}}]}`, "status 0 (no answer) with an answer"},
		{"bad end", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","end":"boom"}]}`, `end "boom"`},
		{"grpc path of no A2A method", `{"version":1,"exchanges":[{"kind":"grpc","method":"SendMessage","status":200,"httpMethod":"POST","path":"/SendMessage","at":"0s","headersAfter":"0s"}]}`, `exchanges[0].path: path "/SendMessage" is not a method of an A2A gRPC service`},
		{"invalid YAML", "version: 1\nexchanges: [\n  - kind: card\n", "YAML"},
		{"YAML unknown field", "version: 1\nupstream: u\nexchanges: []\nspeed: 2\n", `unknown field "speed"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	k, m, id := Classify("POST", "/", []byte(`{"jsonrpc":"2.0","id":7,"method":"message/send"}`))
	assert.Equal(t, KindJSONRPC, k)
	assert.Equal(t, "message/send", m)
	assert.JSONEq(t, "7", string(id))
	k, m, _ = Classify("POST", "/rest/tasks/abc:cancel", []byte(`{}`))
	assert.Equal(t, KindREST, k)
	assert.Equal(t, "POST /rest/tasks/{id}:cancel", m)
	k, m, _ = Classify("GET", "/agents/x/.well-known/agent.json", nil)
	assert.Equal(t, KindCard, k)
	assert.Equal(t, "GET /agents/x/.well-known/agent.json", m)
	_, m, _ = Classify("GET", "/rest/tasks/t1/pushNotificationConfigs/c9", nil)
	assert.Equal(t, "GET /rest/tasks/{id}/pushNotificationConfigs/{id}", m)
}

// threeExchanges is a recording as Save writes it (indented JSON) and as
// SaveYAML does, with three exchanges.
func threeExchanges(t *testing.T) (js, ym string) {
	t.Helper()
	rec := &Recording{Version: FormatVersion, Upstream: "http://127.0.0.1:9"}
	for i := range 3 {
		rec.Exchanges = append(rec.Exchanges, Exchange{Kind: KindJSONRPC, Method: "SendMessage", HTTPMethod: "POST", Path: "/",
			Status: 200, ContentType: "application/json", Response: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))})
	}
	var jb, yb strings.Builder
	require.NoError(t, rec.Save(&jb))
	require.NoError(t, rec.SaveYAML(&yb))
	return jb.String(), yb.String()
}

// lineOf is the 1-based line of the nth (from 0) line containing sub.
func lineOf(t *testing.T, text, sub string, nth int) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			if nth == 0 {
				return i + 1
			}
			nth--
		}
	}
	t.Fatalf("%q not found", sub)
	return 0
}

// TestLoadSaysWhere: a mistake in a recording file is reported at
// file:line:col with the exchange it is in, as scenario files are.
func TestLoadSaysWhere(t *testing.T) {
	t.Parallel()
	js, ym := threeExchanges(t)
	third := func(s, old, repl string) string {
		i := strings.Index(s, `"id": 2`)
		if i < 0 {
			i = strings.Index(s, "id: 2")
		}
		j := strings.LastIndex(s[:i], old)
		require.GreaterOrEqual(t, j, 0)
		return s[:j] + repl + s[j+len(old):]
	}
	truncated := js[:strings.Index(js, `"id": 2`)+3]
	cases := []struct {
		name, in, want string
		line           int
	}{
		{"JSON unknown field", third(js, `"response"`, `"respone"`),
			`exchanges[2]: unknown field "respone"`, lineOf(t, js, `"response"`, 2)},
		{"JSON wrong type", third(js, `"status": 200`, `"status": "200"`),
			"exchanges[2].status: a string where a whole number belongs", lineOf(t, js, `"status"`, 2)},
		{"JSON truncated", truncated,
			"exchanges[2].response: the file ends early (truncated?)", strings.Count(truncated, "\n") + 1},
		{"JSON bad syntax", third(js, `"status": 200,`, `"status": 200,,`),
			"exchanges[2]: invalid character ','", lineOf(t, js, `"status"`, 2)},
		{"JSON invalid value", third(js, `"kind": "jsonrpc"`, `"kind": "soap"`),
			`exchanges[2].kind: kind "soap"`, lineOf(t, js, `"kind"`, 2)},
		{"JSON bad duration", third(js, `"at": "0s"`, `"at": "soon"`),
			`exchanges[2].at: duration "soon"`, lineOf(t, js, `"at"`, 2)},
		{"YAML unknown field", third(ym, "response:", "respone:"),
			`exchanges[2]: unknown field "respone"`, lineOf(t, ym, "response:", 2)},
		{"YAML wrong type", third(ym, "status: 200", "status: [200]"),
			"exchanges[2].status: a list where a whole number belongs", lineOf(t, ym, "status:", 2)},
		{"YAML invalid value", third(ym, "status: 200", "status: 9"),
			"exchanges[2].status: status 9", lineOf(t, ym, "status:", 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "rec.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.in), 0o600))
			_, err := LoadFile(path)
			require.Error(t, err)
			var le *LoadError
			require.ErrorAs(t, err, &le)
			require.Len(t, le.Problems, 1, err.Error())
			assert.Equal(t, tc.line, le.Problems[0].Line, err.Error())
			assert.Greater(t, le.Problems[0].Column, 0, err.Error())
			assert.Contains(t, err.Error(), fmt.Sprintf("%s:%d:%d: %s", path, le.Problems[0].Line, le.Problems[0].Column, tc.want))
		})
	}
}

// TestLoadInfersJSONContentType: a hand-written exchange whose response is
// JSON but has no contentType is served as application/json.
func TestLoadInfersJSONContentType(t *testing.T) {
	t.Parallel()
	rec, err := Load(strings.NewReader(`{"version":1,"upstream":"u","exchanges":[
		{"kind":"jsonrpc","method":"m","httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","status":200,"response":{"jsonrpc":"2.0","id":1,"result":{}}},
		{"kind":"rest","method":"GET /x","httpMethod":"GET","path":"/x","at":"0s","headersAfter":"0s","status":503,"body":"busy"},
		{"kind":"rest","method":"GET /y","httpMethod":"GET","path":"/y","at":"0s","headersAfter":"0s","status":200,"contentType":"application/problem+json","response":{}}]}`))
	require.NoError(t, err)
	assert.Equal(t, "application/json", rec.Exchanges[0].ContentType)
	assert.Empty(t, rec.Exchanges[1].ContentType, "a body that is not JSON stays untyped")
	assert.Equal(t, "application/problem+json", rec.Exchanges[2].ContentType, "a recorded type is kept")
}

// A recording saved (indented, with the file) and loaded again holds its
// JSON bodies and events as compact as the proxy recorded them, so a
// replay sends one data: line per event, as the upstream did, not the
// file's indentation.
func TestLoadCompactsJSON(t *testing.T) {
	t.Parallel()
	rec := &Recording{Version: FormatVersion, Upstream: "u", Exchanges: []Exchange{{
		Kind: KindJSONRPC, Method: "message/stream", HTTPMethod: "POST", Path: "/", Status: 200, ContentType: "text/event-stream",
		Request: json.RawMessage(`{"jsonrpc":"2.0","id":1,"params":{"message":{"parts":[{"text":"a b"}]}}}`),
		Events:  []Event{{Data: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":"working"}}}`)}},
		End:     EndEOF,
	}, {
		Kind: KindREST, Method: "GET /tasks/{id}", HTTPMethod: "GET", Path: "/tasks/t", Status: 200, ContentType: "application/json",
		Response: json.RawMessage(`{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"parts":[{"text":"x  y"}]}]}`),
	}}}
	var buf bytes.Buffer
	require.NoError(t, rec.Save(&buf))
	require.Contains(t, buf.String(), "\n        \"status\"", "Save indents the bodies with the file")
	got, err := Load(&buf)
	require.NoError(t, err)
	assert.Equal(t, string(rec.Exchanges[0].Request), string(got.Exchanges[0].Request))
	assert.Equal(t, string(rec.Exchanges[0].Events[0].Data), string(got.Exchanges[0].Events[0].Data))
	assert.Equal(t, string(rec.Exchanges[1].Response), string(got.Exchanges[1].Response))
}
