package transport

import "testing"

// TestSendResultEnvelopeShapes: what the wrapper is keyed by, for each
// dialect's bare objects, and that what is neither a Task nor a Message
// (nor a one-member wrapper) is left alone.
func TestSendResultEnvelopeShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		kind, wrapped bool
		in, want      string
	}{
		{"v0.3 Message", false, false, `{"kind":"message","messageId":"m","role":"agent"}`, `{"message":{"messageId":"m","role":"agent"}}`},
		{"v0.3 Message, kind kept", true, false, `{"kind":"message","messageId":"m","role":"agent"}`, `{"message":{"kind":"message","messageId":"m","role":"agent"}}`},
		{"v0.1 Task, by its status", false, false, `{"id":"t","status":{"state":"completed"}}`, `{"task":{"id":"t","status":{"state":"completed"}}}`},
		{"v0.1 Task, kind added", true, false, `{"id":"t","status":{"state":"completed"}}`, `{"task":{"id":"t","kind":"task","status":{"state":"completed"}}}`},
		{"an unknown kind", false, false, `{"kind":"status-update","taskId":"t"}`, ""},
		{"not an object", false, false, `[1]`, ""},
		{"v1.0 Message", true, true, `{"message":{"messageId":"m"}}`, `{"kind":"message","messageId":"m"}`},
		{"a wrapper of two", false, true, `{"task":{},"message":{}}`, ""},
		{"an unknown wrapper", false, true, `{"statusUpdate":{}}`, ""},
	} {
		b := &SendResultEnvelope{Kind: c.kind}
		if got := string(b.rewrite([]byte(c.in), false, c.wrapped)); c.want != "" && got != c.want || c.want == "" && got != c.in {
			t.Errorf("%s: %s became %s", c.name, c.in, got)
		}
		rpc := `{"id":1,"jsonrpc":"2.0","result":` + c.in + `}`
		want := rpc
		if c.want != "" {
			want = `{"id":1,"jsonrpc":"2.0","result":` + c.want + `}`
		}
		if got := string(b.rewrite([]byte(rpc), true, c.wrapped)); got != want {
			t.Errorf("%s over JSON-RPC: %s became %s, want %s", c.name, rpc, got, want)
		}
	}
}
