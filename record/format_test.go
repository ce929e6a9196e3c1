package record

import (
	"encoding/json"
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
		{"bad kind", `{"version":1,"exchanges":[{"kind":"grpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, `kind "grpc"`},
		{"no method", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":" ","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, "method is empty"},
		{"bad status", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":9,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s"}]}`, "status 9"},
		{"bad duration", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"soon","headersAfter":"0s"}]}`, `duration "soon"`},
		{"negative duration", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"-1s","headersAfter":"0s"}]}`, "negative"},
		{"events without end", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","events":[{"after":"0s","text":"x"}]}]}`, "events without end"},
		{"bad end", `{"version":1,"exchanges":[{"kind":"jsonrpc","method":"m","status":200,"httpMethod":"POST","path":"/","at":"0s","headersAfter":"0s","end":"boom"}]}`, `end "boom"`},
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

func TestRewriteCard(t *testing.T) {
	t.Parallel()
	// A v0.3 card whose agent lives under /agents/p on a public name: every
	// URL under that base moves to the proxy, keeping the rest of the path.
	in := `{"name":"p","url":"https://agent.example.com/agents/p","preferredTransport":"JSONRPC",
		"additionalInterfaces":[{"url":"https://agent.example.com/agents/p/rest","transport":"HTTP+JSON"},
		{"url":"https://other.example.com/elsewhere","transport":"GRPC"}],"iconUrl":"https://agent.example.com/agents/p/icon.png"}`
	out := RewriteCard([]byte(in), false, "/agents/p", "http://127.0.0.1:9")
	var card map[string]any
	require.NoError(t, json.Unmarshal(out, &card))
	assert.Equal(t, "http://127.0.0.1:9", card["url"])
	ifs := card["additionalInterfaces"].([]any)
	assert.Equal(t, "http://127.0.0.1:9/rest", ifs[0].(map[string]any)["url"])
	assert.Equal(t, "https://other.example.com/elsewhere", ifs[1].(map[string]any)["url"], "outside the base: left alone")
	assert.Equal(t, "https://agent.example.com/agents/p/icon.png", card["iconUrl"], "only interface URLs move")
	assert.Equal(t, "JSONRPC", card["preferredTransport"])

	// v1.0: the GRPC interface (host:port, which the proxy does not serve)
	// is left out, so a client cannot go past the recording.
	v1 := `{"supportedInterfaces":[{"url":"http://10.0.0.1:8080/","protocolBinding":"JSONRPC"},{"url":"10.0.0.1:8080","protocolBinding":"GRPC"}]}`
	assert.JSONEq(t, `{"supportedInterfaces":[{"url":"http://127.0.0.1:9/","protocolBinding":"JSONRPC"}]}`, string(RewriteCard([]byte(v1), false, "", "http://127.0.0.1:9")))

	// v1.0 inside a JSON-RPC result (GetExtendedAgentCard).
	env := `{"jsonrpc":"2.0","id":4,"result":{"supportedInterfaces":[{"url":"http://10.0.0.1:8080/","protocolBinding":"JSONRPC"}]}}`
	out = RewriteCard([]byte(env), true, "", "http://127.0.0.1:9")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"result":{"supportedInterfaces":[{"url":"http://127.0.0.1:9/","protocolBinding":"JSONRPC"}]}}`, string(out))

	for _, notCard := range []string{`[1,2]`, `not json`, `{"url":42}`} {
		assert.Equal(t, notCard, string(RewriteCard([]byte(notCard), false, "", "http://x")))
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
