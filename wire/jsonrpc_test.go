package wire_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeRPC(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		body   string
		code   int // 0 = success
		msg    string
		id     string
		method string
		params string
	}{
		{name: "ok number id", body: `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"a":1}}`,
			id: `7`, method: "SendMessage", params: `{"a":1}`},
		{name: "ok string id", body: " \n{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"tasks/get\"}\n",
			id: `"abc"`, method: "tasks/get"},
		{name: "ok negative fractional id", body: `{"jsonrpc":"2.0","id":-1.5,"method":"m","params":null}`,
			id: `-1.5`, method: "m", params: `null`},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"m","params":{}}`, method: "m", params: `{}`},
		{name: "null id", body: `{"jsonrpc":"2.0","id":null,"method":"m"}`, method: "m"},
		{name: "by-position params pass the envelope", body: `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`,
			id: `1`, method: "m", params: `[1]`},
		{name: "empty body", body: "  \n", code: wire.CodeParseError, msg: "parse error: empty body"},
		{name: "not json", body: `{"jsonrpc":`, code: wire.CodeParseError, msg: "parse error: body is not valid JSON"},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, code: wire.CodeInvalidRequest,
			msg: "invalid request: batch requests are not supported by A2A"},
		{name: "scalar", body: `"hello"`, code: wire.CodeInvalidRequest, msg: "invalid request: expected a JSON-RPC 2.0 request object"},
		{name: "wrong version", body: `{"jsonrpc":"1.0","id":3,"method":"m"}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "jsonrpc" must be "2.0"`, id: `3`},
		{name: "missing version", body: `{"id":"x","method":"m"}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "jsonrpc" must be "2.0"`, id: `"x"`},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":4}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "method" is missing`, id: `4`},
		{name: "empty method", body: `{"jsonrpc":"2.0","id":4,"method":""}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "method" is missing`, id: `4`},
		{name: "method not a string keeps id", body: `{"jsonrpc":"2.0","id":5,"method":5}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "method" must be a string, not number`, id: `5`},
		{name: "version not a string", body: `{"jsonrpc":2.0,"id":"q","method":"m"}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "jsonrpc" must be a string, not number`, id: `"q"`},
		{name: "object id", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`, code: wire.CodeInvalidRequest,
			msg: "invalid request: id must be a string or a number"},
		{name: "bool id", body: `{"jsonrpc":"2.0","id":true,"method":"m"}`, code: wire.CodeInvalidRequest,
			msg: "invalid request: id must be a string or a number"},
		{name: "string params", body: `{"jsonrpc":"2.0","id":6,"method":"m","params":"x"}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "params" must be an object`, id: `6`},
		{name: "number params", body: `{"jsonrpc":"2.0","id":6,"method":"m","params":12}`, code: wire.CodeInvalidRequest,
			msg: `invalid request: "params" must be an object`, id: `6`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, e := wire.DecodeRPC([]byte(tc.body))
			if tc.code == 0 {
				require.Nil(t, e)
				assert.Equal(t, tc.method, req.Method)
				assert.Equal(t, tc.params, string(req.Params))
			} else {
				require.NotNil(t, e)
				assert.Equal(t, tc.code, e.Code)
				assert.Equal(t, tc.msg, e.Message)
			}
			assert.Equal(t, tc.id, string(req.ID))
		})
	}
}

func TestEncodeRPCResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		id     string
		result string
		want   string
	}{
		{`1`, `{"task":{}}`, `{"jsonrpc":"2.0","id":1,"result":{"task":{}}}`},
		{`"a-b"`, `null`, `{"jsonrpc":"2.0","id":"a-b","result":null}`},
		{``, ``, `{"jsonrpc":"2.0","id":null,"result":null}`},
		{`2`, `[1,2]`, `{"jsonrpc":"2.0","id":2,"result":[1,2]}`},
	}
	for _, tc := range cases {
		var id json.RawMessage
		if tc.id != "" {
			id = json.RawMessage(tc.id)
		}
		var res []byte
		if tc.result != "" {
			res = []byte(tc.result)
		}
		got := wire.EncodeRPCResult(id, res)
		assert.Equal(t, tc.want, string(got))
		assert.True(t, json.Valid(got))
	}
}

// TestAppendRPCResult: the response is appended after what dst holds, a
// write error gives no response, and every codec's result and events go
// through AppendResult and AppendEvent as EncodeResult and EncodeEvent
// render them (the v1.0 codec appends itself, the others are copied).
func TestAppendRPCResult(t *testing.T) {
	t.Parallel()
	got, err := wire.AppendRPCResult([]byte("x"), json.RawMessage(`7`), func(b []byte) ([]byte, error) { return append(b, `{}`...), nil })
	require.NoError(t, err)
	assert.Equal(t, `x{"jsonrpc":"2.0","id":7,"result":{}}`, string(got))
	got, err = wire.AppendRPCResult(nil, nil, func(b []byte) ([]byte, error) { return b, errors.New("no") })
	assert.Error(t, err)
	assert.Nil(t, got)
	task := &wire.Task{ID: "t", ContextID: "c", Status: wire.TaskStatus{State: wire.StateCompleted}}
	for _, d := range wire.Dialects {
		c := codecs.For(d)
		want, wantErr := c.EncodeResult(wire.OpGetTask, &wire.Result{Task: task})
		got, err := wire.AppendResult(c, []byte("x"), wire.OpGetTask, &wire.Result{Task: task})
		require.Equal(t, wantErr, err, "dialect %s", d)
		assert.Equal(t, "x"+string(want), string(got), "dialect %s", d)
		ev := wire.Event{Status: &wire.StatusUpdate{TaskID: "t", ContextID: "c", Status: task.Status, Final: true}}
		want, wantErr = c.EncodeEvent(ev)
		got, err = wire.AppendEvent(c, []byte("x"), ev)
		require.Equal(t, wantErr, err, "dialect %s", d)
		assert.Equal(t, "x"+string(want), string(got), "dialect %s", d)
	}
}

func TestEncodeRPCError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		id   json.RawMessage
		err  *wire.Error
		data []byte
		want string
	}{
		{"with data", json.RawMessage(`9`), wire.ErrTaskNotFound("t1"), []byte(`{"taskId":"t1"}`),
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32001,"message":"task not found: t1","data":{"taskId":"t1"}}}`},
		{"no data no id", nil, wire.Errorf(wire.CodeParseError, "parse error: bad"), nil,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: bad"}}`},
		{"message escaped", json.RawMessage(`"x"`), wire.Errorf(wire.CodeInvalidParams, "bad \"quote\"\n<tag>"), nil,
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad \"quote\"\n\u003ctag\u003e"}}`},
		{"nil error", json.RawMessage(`1`), nil, nil,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := wire.EncodeRPCError(tc.id, tc.err, tc.data)
			assert.Equal(t, tc.want, string(got))
			assert.True(t, json.Valid(got))
		})
	}
}

var rpcValidCodes = map[int]bool{
	wire.CodeParseError: true, wire.CodeInvalidRequest: true, wire.CodeMethodNotFound: true,
	wire.CodeInvalidParams: true, wire.CodeInternal: true, wire.CodeTaskNotFound: true,
	wire.CodeTaskNotCancelable: true, wire.CodePushNotSupported: true, wire.CodeUnsupportedOperation: true,
	wire.CodeContentTypeNotSupported: true, wire.CodeInvalidAgentResponse: true,
	wire.CodeExtendedCardNotConfigured: true, wire.CodeExtensionSupportRequired: true,
	wire.CodeVersionNotSupported: true, wire.CodeUnauthenticated: true, wire.CodeUnauthorized: true,
}

// FuzzDecodeRPC feeds arbitrary bodies through the envelope decoder and every
// decoded request's params through every registered codec, for every
// operation the codec knows: nothing may panic, every error must be a
// protocol error with a known code, and every reply must be valid JSON.
func FuzzDecodeRPC(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"},{"raw":"aGk="},{"url":"https://x.example"},{"data":{"a":[1,null]}}]},"configuration":{"historyLength":2,"taskPushNotificationConfig":{"url":"https://h.example","authentication":{"scheme":"Bearer"}}}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}},{"kind":"data","data":{}}]},"configuration":{"blocking":false,"historyLength":1}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tasks/send","params":{"id":"t","sessionId":"s","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"t","historyLength":"3"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ListTasks","params":{"status":"TASK_STATE_WORKING","pageSize":10,"statusTimestampAfter":"2026-01-01T00:00:00Z"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"t","pushNotificationConfig":{"url":"https://h.example","authentication":{"schemes":["Bearer"]}}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"http://127.0.0.1:1/h"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"DeleteTaskPushNotificationConfig","params":{"taskId":"t","id":"p"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"id":"t","historyLength":-1,"metadata":{}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"GetExtendedAgentCard"}`,
		`{"jsonrpc":"2.0","id":10,"method":"SendMessage","params":{"message":{"parts":[{"text":7}],"extensions":[true]}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"m","params":[{"message":null}]}`,
		`{"jsonrpc":"2.0","id":12,"method":"m","params":null}`,
		`[]`, `{}`, `null`, `{"jsonrpc":2}`, "\x00",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, e := wire.DecodeRPC(body)
		if e != nil {
			require.Contains(t, []int{wire.CodeParseError, wire.CodeInvalidRequest}, e.Code, e.Message)
			require.True(t, json.Valid(wire.EncodeRPCError(req.ID, e, nil)))
			return
		}
		require.True(t, json.Valid(wire.EncodeRPCResult(req.ID, []byte(`{}`))))
		for _, d := range wire.Dialects {
			c := codecs.For(d)
			if c == nil {
				continue
			}
			for _, op := range c.Methods() {
				r, perr := c.DecodeParams(op, req.Params)
				if perr != nil {
					require.Nil(t, r, "%s %s returned a request and an error", d, op)
					require.True(t, rpcValidCodes[perr.Code], "%s %s: code %d: %s", d, op, perr.Code, perr.Message)
					require.NotEmpty(t, perr.Message)
					require.True(t, json.Valid(wire.EncodeRPCError(req.ID, perr, c.EncodeErrorData(perr))), "%s %s", d, op)
					continue
				}
				require.NotNil(t, r, "%s %s returned neither a request nor an error", d, op)
				require.Equal(t, op, r.Op, "%s", d)
				require.Equal(t, d, r.Dialect, "%s", op)
			}
		}
	})
}

// TestDecodeRPCParseErrorsWithoutAPrescan: a body that starts as an object
// but is not JSON (cut, trailing bytes, a bad literal) is a parse error, as
// json.Valid would say, though DecodeRPC no longer asks it first.
func TestDecodeRPCParseErrorsWithoutAPrescan(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,`, `{"jsonrpc":"2.0","id":1,"method":"m"} x`, `{"id":tru}`, `{"a":"\x01"}`, `[1,`} {
		_, e := wire.DecodeRPC([]byte(body))
		require.NotNil(t, e, body)
		assert.Equal(t, wire.CodeParseError, e.Code, body)
		assert.False(t, json.Valid([]byte(body)), body)
	}
	_, e := wire.DecodeRPC([]byte(`[]`))
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeInvalidRequest, e.Code, "a batch is JSON")
}
