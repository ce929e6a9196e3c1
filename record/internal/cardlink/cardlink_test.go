package cardlink

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	t.Parallel()
	// A v0.3 card whose agent lives under /agents/p on a public name: every
	// URL under that base moves to the proxy, keeping the rest of the path.
	in := `{"name":"p","url":"https://agent.example.com/agents/p","preferredTransport":"JSONRPC",
		"additionalInterfaces":[{"url":"https://agent.example.com/agents/p/rest","transport":"HTTP+JSON"},
		{"url":"https://other.example.com/elsewhere","transport":"HTTP+JSON"},{"url":"grpc.example.com:443","transport":"GRPC"}],"iconUrl":"https://agent.example.com/agents/p/icon.png"}`
	out := Rewrite([]byte(in), false, "/agents/p", "http://127.0.0.1:9")
	var card map[string]any
	require.NoError(t, json.Unmarshal(out, &card))
	assert.Equal(t, "http://127.0.0.1:9", card["url"])
	ifs := card["additionalInterfaces"].([]any)
	assert.Equal(t, "http://127.0.0.1:9/rest", ifs[0].(map[string]any)["url"])
	assert.Equal(t, "https://other.example.com/elsewhere", ifs[1].(map[string]any)["url"], "outside the base: left alone")
	assert.Equal(t, "127.0.0.1:9", ifs[2].(map[string]any)["url"], "gRPC has no base path: its interface moves to the proxy")
	assert.Equal(t, "grpc.example.com:443", GRPCAddress([]byte(in), false))

	// v0.3 with gRPC as the main interface.
	main := `{"url":"10.0.0.1:50051","preferredTransport":"GRPC","additionalInterfaces":[{"url":"https://10.0.0.1/a2a","transport":"JSONRPC"}]}`
	assert.JSONEq(t, `{"url":"127.0.0.1:9","preferredTransport":"GRPC","additionalInterfaces":[{"url":"http://127.0.0.1:9/a2a","transport":"JSONRPC"}]}`,
		string(Rewrite([]byte(main), false, "", "http://127.0.0.1:9")))
	assert.Equal(t, "10.0.0.1:50051", GRPCAddress([]byte(main), false))
	assert.Equal(t, "https://agent.example.com/agents/p/icon.png", card["iconUrl"], "only interface URLs move")
	assert.Equal(t, "JSONRPC", card["preferredTransport"])

	// v1.0: a GRPC interface at host:port (or an http(s) URL) moves to the
	// proxy's host:port, so gRPC calls are recorded too; a gRPC target
	// the proxy cannot read (dns:///...) is left as it is.
	v1 := `{"supportedInterfaces":[{"url":"http://10.0.0.1:8080/","protocolBinding":"JSONRPC"},{"url":"10.0.0.1:8080","protocolBinding":"GRPC"},{"url":"dns:///grpc.example.com:443","protocolBinding":"GRPC"}]}`
	assert.JSONEq(t, `{"supportedInterfaces":[{"url":"http://127.0.0.1:9/","protocolBinding":"JSONRPC"},{"url":"127.0.0.1:9","protocolBinding":"GRPC"},{"url":"dns:///grpc.example.com:443","protocolBinding":"GRPC"}]}`, string(Rewrite([]byte(v1), false, "", "http://127.0.0.1:9")))
	assert.Equal(t, "10.0.0.1:8080", GRPCAddress([]byte(v1), false))

	// v1.0 inside a JSON-RPC result (GetExtendedAgentCard).
	env := `{"jsonrpc":"2.0","id":4,"result":{"supportedInterfaces":[{"url":"http://10.0.0.1:8080/","protocolBinding":"JSONRPC"}]}}`
	out = Rewrite([]byte(env), true, "", "http://127.0.0.1:9")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"result":{"supportedInterfaces":[{"url":"http://127.0.0.1:9/","protocolBinding":"JSONRPC"}]}}`, string(out))

	for _, notCard := range []string{`[1,2]`, `not json`, `{"url":42}`} {
		assert.Equal(t, notCard, string(Rewrite([]byte(notCard), false, "", "http://x")))
	}
}
