package redact

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
)

func TestJSON(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"v1.0 push config",
			`{"jsonrpc":"2.0","id":2,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"https://h.example/hook","token":"tok-1","authentication":{"scheme":"Bearer","credentials":"cred-12"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"https://h.example/hook","token":"[redacted: 5 bytes]","authentication":{"scheme":"Bearer","credentials":"[redacted: 7 bytes]"}}}`},
		{"spacing and key order kept",
			"{\n  \"b\" : 1,\n  \"token\" :  \"abc\" , \"a\": [true, null]\n}",
			"{\n  \"b\" : 1,\n  \"token\" :  \"[redacted: 3 bytes]\" , \"a\": [true, null]\n}"},
		{"a URL's user information and query values",
			`{"url":"http://bob:pw@127.0.0.1:9/hook?sig=abc&x=1","text":"see http://h.example/ plain"}`,
			`{"url":"http://redacted@127.0.0.1:9/hook?sig=redacted&x=redacted","text":"see http://h.example/ plain"}`},
		{"an array under a credential key",
			`{"credentials":["a","bb"],"other":["c"]}`,
			`{"credentials":["[redacted: 1 bytes]","[redacted: 2 bytes]"],"other":["c"]}`},
		{"a key that names a credential is not a value", `{"token":{"id":"x"},"id":"token"}`, `{"token":{"id":"x"},"id":"token"}`},
		{"cut short", `{"token":"abc","authentication":{"credentials":"de`, `{"token":"[redacted: 3 bytes]","authentication":{"credentials":"[redacted: 3 bytes]`},
		{"cut inside an array of credentials", `{"credentials":["abc","de`, `{"credentials":["[redacted: 3 bytes]","[redacted: 3 bytes]`},
		{"a URL cut short", `{"url":"http://bob:pw@127.0.0.1:9/hook?sig=ab`, `{"url":"http://redacted@127.0.0.1:9/hook?sig=redacted`},
		{"a URL with an escaped & cut short", `{"url":"https://h.example/a?x=1\u0026sig=se`, `{"url":"https://h.example/a?sig=redacted&x=redacted`},
		{"a URL cut inside an escape", `{"url":"https://h.example/a?sig=se\u00`, `{"url":"https://h.example/a?sig=redacted`},
		{"other text cut short is kept", `{"text":"see http://h.example/?sig=`, `{"text":"see http://h.example/?sig=`},
		{"not JSON", `token=abc`, `token=abc`},
		{"empty value", `{"token":""}`, `{"token":""}`},
		{"escapes kept elsewhere", `{"text":"a \"q\" \u00e9","token":"x\"y"}`, `{"text":"a \"q\" \u00e9","token":"[redacted: 3 bytes]"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(JSON([]byte(tc.in), RawView))
			assert.Equal(t, tc.want, got)
			if json.Valid([]byte(tc.in)) {
				assert.True(t, json.Valid([]byte(got)), "still JSON: %s", got)
			}
			assert.Equal(t, endsInString(tc.in), endsInString(got), "as cut as the input: %s", got)
		})
	}
}

// endsInString reports whether JSON text b ends inside a string: cut
// before the string's closing quote.
func endsInString(b string) bool {
	in := false
	for i := 0; i < len(b); i++ {
		switch {
		case in && b[i] == '\\':
			i++
		case b[i] == '"':
			in = !in
		}
	}
	return in
}

func TestEventStream(t *testing.T) {
	in := "event: x\ndata: {\"token\":\"abc\"}\n\ndata:{\"id\":1}\n\n"
	assert.Equal(t, "event: x\ndata: {\"token\":\"[redacted: 3 bytes]\"}\n\ndata:{\"id\":1}\n\n", string(EventStream([]byte(in), RawView)))
}

func TestRequestURIAndURL(t *testing.T) {
	assert.Equal(t, "/agents/a/?api_key=X", RequestURI("/agents/a/?api_key=secret", "X"))
	assert.Equal(t, "/message:send", RequestURI("/message:send", "X"))
	got, changed := URL("https://u:p@h.example/x?k=v", "X")
	assert.True(t, changed)
	assert.Equal(t, "https://X@h.example/x?k=X", got)
	got, changed = URL("https://h.example/x", "X")
	assert.False(t, changed)
	assert.Equal(t, "https://h.example/x", got)
	assert.True(t, IsCredentialKey("token"))
	assert.False(t, IsCredentialKey("pageToken"), "a page token is no credential")
}

func frame(t *testing.T, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))), b...)
}

func TestGRPC(t *testing.T) {
	cfg := &a2apb.TaskPushNotificationConfig{TaskId: "t", Url: "https://h.example/hook?sig=s3cret", Token: "tok-secret",
		Authentication: &a2apb.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred-secret"}}
	body := append(frame(t, cfg), frame(t, cfg)...)
	got := GRPC("/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig", body, true)
	for _, secret := range []string{"s3cret", "tok-secret", "cred-secret"} {
		assert.NotContains(t, string(got), secret)
	}
	// Two whole messages, each the same config with its credentials marked.
	for range 2 {
		require.GreaterOrEqual(t, len(got), 5)
		n := int(binary.BigEndian.Uint32(got[1:5]))
		var m a2apb.TaskPushNotificationConfig
		require.NoError(t, proto.Unmarshal(got[5:5+n], &m))
		assert.Equal(t, "t", m.TaskId)
		assert.Equal(t, "[redacted: 10 bytes]", m.Token)
		assert.Equal(t, "[redacted: 11 bytes]", m.Authentication.Credentials)
		assert.Equal(t, "Bearer", m.Authentication.Scheme)
		assert.Equal(t, "https://h.example/hook?sig=redacted", m.Url)
		got = got[5+n:]
	}
	assert.Empty(t, got)

	// Metadata is a Struct: a credential key's string (or list of them)
	// is marked there too, other values kept.
	md, err := structpb.NewStruct(map[string]any{"apiKey": "k3y-secret", "keys": []any{"x"}, "token": []any{"t0k-secret", 1}})
	require.NoError(t, err)
	send := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Metadata: md}}
	got = GRPC("/lf.a2a.v1.A2AService/SendMessage", frame(t, send), true)
	var sent a2apb.SendMessageRequest
	require.NoError(t, proto.Unmarshal(got[5:], &sent))
	assert.Equal(t, map[string]any{"apiKey": "[redacted: 10 bytes]", "keys": []any{"x"}, "token": []any{"[redacted: 10 bytes]", 1.0}},
		sent.Message.Metadata.AsMap())

	// The answer is read as the method's output; a cut message and an
	// unknown path are left as they are.
	out := GRPC("/lf.a2a.v1.A2AService/GetTaskPushNotificationConfig", frame(t, cfg), false)
	assert.NotContains(t, string(out), "tok-secret")
	cut := frame(t, cfg)[:12]
	assert.Equal(t, cut, GRPC("/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig", cut, true))
	assert.Equal(t, body, GRPC("/other.Service/Method", body, true))

	// v0.3's service: its push config's token and credentials too.
	cfg03 := &a2apb03.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t", Config: &a2apb03.TaskPushNotificationConfig{
		PushNotificationConfig: &a2apb03.PushNotificationConfig{Url: "https://h.example/hook", Token: "tok-secret",
			Authentication: &a2apb03.AuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "cred-secret"}}}}
	got = GRPC("/a2a.v1.A2AService/CreateTaskPushNotificationConfig", frame(t, cfg03), true)
	var m03 a2apb03.CreateTaskPushNotificationConfigRequest
	require.NoError(t, proto.Unmarshal(got[5:], &m03))
	pc := m03.GetConfig().GetPushNotificationConfig()
	assert.Equal(t, "[redacted: 10 bytes]", pc.GetToken())
	assert.Equal(t, "[redacted: 11 bytes]", pc.GetAuthentication().GetCredentials())
	assert.Equal(t, "tasks/t", m03.GetParent())
}

// FuzzJSON: JSON text stays JSON, and no string value of a credential key
// is left.
func FuzzJSON(f *testing.F) {
	f.Add(`{"token":"abc","a":[{"credentials":"x"}],"url":"http://u:p@h/x?k=v"}`)
	f.Add(`[{"apiKey":["a",{"b":"c"}]},"token"]`)
	f.Fuzz(func(t *testing.T, in string) {
		got := JSON([]byte(in), RawView)
		if !json.Valid([]byte(in)) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("%s became %s", in, got)
		}
		var walk func(v any, key string)
		walk = func(v any, key string) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(e, k)
				}
			case []any:
				for _, e := range x {
					walk(e, key)
				}
			case string:
				if credentialKeys[key] && x != "" && !strings.HasPrefix(x, "[redacted: ") {
					t.Fatalf("%s: %q under %q left in %s", in, x, key, got)
				}
			}
		}
		// UseNumber: json.Valid takes numbers a float64 cannot hold (1E1000).
		dec := json.NewDecoder(bytes.NewReader(got))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s became %s: %v", in, got, err)
		}
		walk(v, "")
	})
}
