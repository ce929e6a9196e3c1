package wire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eventDecoder is the wire → canonical reader the v0.x codecs offer beside
// the Codec interface.
type eventDecoder interface {
	DecodeEvent(data []byte) (wire.Event, error)
}

var ts = time.Date(2026, 3, 12, 9, 30, 15, 123_000_000, time.UTC)

func allParts() []wire.Part {
	return []wire.Part{
		wire.TextPart("hello"),
		{Kind: wire.PartText, Text: "", Metadata: map[string]any{"lang": "en"}},
		{Kind: wire.PartFile, Raw: []byte("\x00\x01binary"), MediaType: "application/octet-stream", Filename: "b.bin"},
		{Kind: wire.PartFile, URL: "https://example.com/f.png", MediaType: "image/png", Filename: "f.png"},
		{Kind: wire.PartData, Data: map[string]any{"n": 1.5, "s": "x", "nested": map[string]any{"ok": true}}},
	}
}

func v03Task() *wire.Task {
	user := wire.Message{MessageID: "m1", ContextID: "c1", TaskID: "t1", Role: wire.RoleUser, Parts: allParts(),
		Metadata: map[string]any{"k": "v"}, Extensions: []string{"https://ext.example/x"}, ReferenceTaskIDs: []string{"t0"}}
	agent := wire.Message{MessageID: "m2", ContextID: "c1", TaskID: "t1", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("done")}}
	return &wire.Task{
		ID: "t1", ContextID: "c1",
		Status:  wire.TaskStatus{State: wire.StateCompleted, Message: &agent, Timestamp: ts},
		History: []wire.Message{user, agent},
		Artifacts: []wire.Artifact{
			{ArtifactID: "a1", Name: "out", Description: "all kinds", Parts: allParts(), Metadata: map[string]any{"m": "x"}, Extensions: []string{"e"}},
			{ArtifactID: "a2", Parts: []wire.Part{wire.TextPart("second")}},
		},
		Metadata: map[string]any{"origin": "test"},
	}
}

func v03Events() map[string]wire.Event {
	t := v03Task()
	msg := t.History[1]
	return map[string]wire.Event{
		"task":    {Task: t},
		"message": {Message: &msg},
		"status-final": {Status: &wire.StatusUpdate{TaskID: "t1", ContextID: "c1", Final: true,
			Status: wire.TaskStatus{State: wire.StateInputRequired, Message: &msg, Timestamp: ts}, Metadata: map[string]any{"x": "y"}}},
		"status-not-final": {Status: &wire.StatusUpdate{TaskID: "t1", ContextID: "c1",
			Status: wire.TaskStatus{State: wire.StateWorking, Timestamp: ts}}},
		"artifact-chunk": {Artifact: &wire.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Artifact: t.Artifacts[0], Append: true, LastChunk: false}},
		"artifact-last": {Artifact: &wire.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Artifact: t.Artifacts[1], LastChunk: true,
			Metadata: map[string]any{"chunk": 2.0}}},
	}
}

func envelope(result []byte) []byte { return wire.EncodeRPCResult(json.RawMessage(`7`), result) }

func kindOf(t *testing.T, doc []byte) string {
	t.Helper()
	var k struct {
		Kind string `json:"kind"`
	}
	require.NoError(t, json.Unmarshal(doc, &k))
	return k.Kind
}

func TestV03Registration(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		c := codecs.For(d)
		require.NotNil(t, c, d)
		assert.Equal(t, d, c.Dialect())
		assert.Equal(t, wire.OpSend, c.Methods()["message/send"])
		assert.Equal(t, wire.OpStream, c.Methods()["message/stream"])
		assert.Equal(t, wire.OpSubscribe, c.Methods()["tasks/resubscribe"])
		assert.Equal(t, wire.OpDeletePush, c.Methods()["tasks/pushNotificationConfig/delete"])
		assert.Equal(t, wire.OpListPushConfigs, c.Methods()["tasks/pushNotificationConfig/list"])
	}
	assert.Equal(t, wire.OpExtendedCard, codecs.For(wire.V03).Methods()["agent/getAuthenticatedExtendedCard"])
	_, ok := codecs.For(wire.V02).Methods()["agent/getAuthenticatedExtendedCard"]
	assert.False(t, ok, "v0.2 had no JSON-RPC extended card method")

	d, op, ok := wire.LookupMethod("tasks/pushNotificationConfig/set")
	require.True(t, ok)
	assert.Equal(t, wire.V03, d)
	assert.Equal(t, wire.OpSetPushConfig, op)
}

func TestV03EncodeEventsValidate(t *testing.T) {
	t.Parallel()
	defs := map[string]string{"task": "Task", "message": "Message", "status": "TaskStatusUpdateEvent", "artifact": "TaskArtifactUpdateEvent"}
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		c := codecs.For(d)
		for name, ev := range v03Events() {
			b, err := c.EncodeEvent(ev)
			require.NoError(t, err, name)
			var def, kind string
			switch {
			case ev.Task != nil:
				def, kind = defs["task"], "task"
			case ev.Message != nil:
				def, kind = defs["message"], "message"
			case ev.Status != nil:
				def, kind = defs["status"], "status-update"
			default:
				def, kind = defs["artifact"], "artifact-update"
			}
			schemacheck.Require(t, d, def, b)
			schemacheck.Require(t, d, "SendStreamingMessageSuccessResponse", envelope(b))
			assert.Equal(t, kind, kindOf(t, b), name)

			push, err := c.EncodePush(ev)
			require.NoError(t, err, name)
			schemacheck.Require(t, d, def, push)
			assert.JSONEq(t, string(b), string(push), "push body is the event object: %s", name)

			again, err := c.EncodeEvent(ev)
			require.NoError(t, err)
			assert.Equal(t, string(b), string(again), "deterministic output: %s", name)
		}
	}
}

func TestV03StatusUpdateFinalAsGiven(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V03)
	for _, final := range []bool{true, false} {
		// A terminal state with final:false is wrong on purpose: the codec
		// must not second-guess the server.
		b, err := c.EncodeEvent(wire.Event{Status: &wire.StatusUpdate{TaskID: "t", ContextID: "c", Final: final,
			Status: wire.TaskStatus{State: wire.StateCompleted}}})
		require.NoError(t, err)
		schemacheck.Require(t, wire.V03, "TaskStatusUpdateEvent", b)
		var got struct {
			Final *bool `json:"final"`
		}
		require.NoError(t, json.Unmarshal(b, &got))
		require.NotNil(t, got.Final, "final must always be written")
		assert.Equal(t, final, *got.Final)
	}
}

func TestV03GoldenTask(t *testing.T) {
	t.Parallel()
	task := &wire.Task{ID: "t1", ContextID: "c1",
		Status: wire.TaskStatus{State: wire.StateWorking, Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.FixedZone("X", 3600))},
		Artifacts: []wire.Artifact{{ArtifactID: "a", Parts: []wire.Part{
			{Kind: wire.PartFile, Raw: []byte("hi"), MediaType: "text/plain"},
			{Kind: wire.PartData, Data: []any{1.0, 2.0}},
			{Kind: wire.PartFile},
		}}}}
	b, err := codecs.For(wire.V03).EncodeResult(wire.OpGetTask, &wire.Result{Task: task})
	require.NoError(t, err)
	want := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working","timestamp":"2026-01-02T02:04:05.600Z"},` +
		`"artifacts":[{"artifactId":"a","parts":[{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}},` +
		`{"kind":"data","data":{"value":[1,2]}},{"kind":"file","file":{"bytes":""}}]}]}`
	assert.Equal(t, want, string(b))
	schemacheck.Require(t, wire.V03, "Task", b)
}

func TestV03EncodeUnspecifiedStateAndEmptyMessage(t *testing.T) {
	t.Parallel()
	b, err := codecs.For(wire.V03).EncodeEvent(wire.Event{Task: &wire.Task{ID: "t"}})
	require.NoError(t, err)
	schemacheck.Require(t, wire.V03, "Task", b)
	assert.Contains(t, string(b), `"state":"unknown"`)
	assert.Contains(t, string(b), `"contextId":""`)

	b, err = codecs.For(wire.V03).EncodeEvent(wire.Event{Message: &wire.Message{MessageID: "m", Role: wire.RoleAgent}})
	require.NoError(t, err)
	schemacheck.Require(t, wire.V03, "Message", b)
	assert.Contains(t, string(b), `"parts":[]`)

	_, err = codecs.For(wire.V03).EncodeEvent(wire.Event{Message: &wire.Message{MessageID: "m", Parts: []wire.Part{{Kind: "video"}}}})
	assert.ErrorContains(t, err, "video")
	_, err = codecs.For(wire.V03).EncodeEvent(wire.Event{})
	assert.Error(t, err)
}

const v03Card = `{"name":"mock","description":"d","url":"http://127.0.0.1:1/","version":"1","protocolVersion":"0.3.0",` +
	`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`

func TestV03EncodeResultsValidate(t *testing.T) {
	t.Parallel()
	push := wire.PushConfig{ID: "p1", TaskID: "t1", URL: "http://127.0.0.1:9/hook", Token: "tok",
		AuthSchemes: []string{"Bearer"}, AuthCredentials: "secret"}
	bare := wire.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/hook"}
	credOnly := wire.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/hook", AuthCredentials: "c"}
	msg := v03Task().History[1]
	cases := []struct {
		name string
		op   wire.Op
		res  *wire.Result
		def  string
		want string // a fragment the output must contain
	}{
		{"send task", wire.OpSend, &wire.Result{Task: v03Task()}, "SendMessageSuccessResponse", `"kind":"task"`},
		{"send message", wire.OpSend, &wire.Result{Message: &msg}, "SendMessageSuccessResponse", `"kind":"message"`},
		{"get", wire.OpGetTask, &wire.Result{Task: v03Task()}, "GetTaskSuccessResponse", `"id":"t1"`},
		{"cancel", wire.OpCancelTask, &wire.Result{Task: v03Task()}, "CancelTaskSuccessResponse", `"id":"t1"`},
		{"push set", wire.OpSetPushConfig, &wire.Result{PushConfig: &push}, "SetTaskPushNotificationConfigSuccessResponse",
			`{"taskId":"t1","pushNotificationConfig":{"id":"p1","url":"http://127.0.0.1:9/hook","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"secret"}}}`},
		{"push get", wire.OpGetPushConfig, &wire.Result{PushConfig: &bare}, "GetTaskPushNotificationConfigSuccessResponse",
			`{"taskId":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/hook"}}`},
		{"push get creds only", wire.OpGetPushConfig, &wire.Result{PushConfig: &credOnly}, "GetTaskPushNotificationConfigSuccessResponse",
			`"authentication":{"schemes":[],"credentials":"c"}`},
		{"push list", wire.OpListPushConfigs, &wire.Result{PushConfigs: []wire.PushConfig{push, bare}}, "ListTaskPushNotificationConfigSuccessResponse", `[{"taskId":"t1"`},
		{"push list empty", wire.OpListPushConfigs, &wire.Result{}, "ListTaskPushNotificationConfigSuccessResponse", `[]`},
		{"push delete", wire.OpDeletePush, &wire.Result{Empty: true}, "DeleteTaskPushNotificationConfigSuccessResponse", `null`},
	}
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		c := codecs.For(d)
		for _, tc := range cases {
			b, err := c.EncodeResult(tc.op, tc.res)
			require.NoError(t, err, tc.name)
			schemacheck.Require(t, d, tc.def, envelope(b))
			assert.Contains(t, string(b), tc.want, tc.name)
			if tc.op == wire.OpSetPushConfig || tc.op == wire.OpGetPushConfig {
				schemacheck.Require(t, d, "TaskPushNotificationConfig", b)
			}
		}
	}

	c := codecs.For(wire.V03)
	b, err := c.EncodeResult(wire.OpExtendedCard, &wire.Result{Card: []byte(v03Card)})
	require.NoError(t, err)
	assert.Equal(t, v03Card, string(b))
	schemacheck.Require(t, wire.V03, "GetAuthenticatedExtendedCardSuccessResponse", envelope(b))
}

func TestV03EncodeResultErrors(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V03)
	for _, tc := range []struct {
		op  wire.Op
		res *wire.Result
	}{
		{wire.OpListTasks, &wire.Result{Page: &wire.TaskPage{}}},
		{wire.OpStream, &wire.Result{Task: v03Task()}},
		{wire.OpSend, &wire.Result{}},
		{wire.OpGetTask, &wire.Result{}},
		{wire.OpSetPushConfig, &wire.Result{}},
		{wire.OpExtendedCard, &wire.Result{}},
		{wire.OpGetTask, nil},
	} {
		_, err := c.EncodeResult(tc.op, tc.res)
		assert.Error(t, err, tc.op)
	}
}

func TestV03EncodeErrorData(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V03)
	assert.Nil(t, c.EncodeErrorData(wire.Errorf(wire.CodeInternal, "boom")))
	assert.Nil(t, c.EncodeErrorData(nil))
	e := wire.ErrTaskNotFound("t9")
	data := c.EncodeErrorData(e)
	assert.JSONEq(t, `{"taskId":"t9"}`, string(data))
	schemacheck.Require(t, wire.V03, "JSONRPCErrorResponse", wire.EncodeRPCError(json.RawMessage(`"x"`), e, data))
}

func TestV03DecodeSend(t *testing.T) {
	t.Parallel()
	params := `{"message":{"kind":"message","messageId":"m1","role":"user","contextId":"c1","taskId":"t1",
		"referenceTaskIds":["t0"],"extensions":["e1"],"metadata":{"a":"b"},
		"parts":[{"kind":"text","text":"hi","metadata":{"x":"y"}},
			{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"h.txt"}},
			{"kind":"file","file":{"uri":"https://example.com/x","mimeType":"image/png"}},
			{"kind":"data","data":{"k":[1,2]}}]},
		"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":3,"blocking":false,
			"pushNotificationConfig":{"url":"http://127.0.0.1:9/h","id":"p1","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cr"}}},
		"metadata":{"req":"md"}}`
	for _, op := range []wire.Op{wire.OpSend, wire.OpStream} {
		req, e := codecs.For(wire.V03).DecodeParams(op, []byte(params))
		require.Nil(t, e)
		three := 3
		assert.Equal(t, &wire.Request{Op: op, Dialect: wire.V03,
			Message: &wire.Message{MessageID: "m1", ContextID: "c1", TaskID: "t1", Role: wire.RoleUser,
				ReferenceTaskIDs: []string{"t0"}, Extensions: []string{"e1"}, Metadata: map[string]any{"a": "b"},
				Parts: []wire.Part{
					{Kind: wire.PartText, Text: "hi", Metadata: map[string]any{"x": "y"}},
					{Kind: wire.PartFile, Raw: []byte("hi"), MediaType: "text/plain", Filename: "h.txt"},
					{Kind: wire.PartFile, URL: "https://example.com/x", MediaType: "image/png"},
					{Kind: wire.PartData, Data: map[string]any{"k": []any{1.0, 2.0}}},
				}},
			Config: wire.SendConfig{AcceptedOutputModes: []string{"text/plain"}, HistoryLength: &three, ReturnImmediately: true,
				PushConfig: &wire.PushConfig{ID: "p1", URL: "http://127.0.0.1:9/h", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "cr"}},
			Metadata: map[string]any{"req": "md"},
		}, req)
	}
}

func TestV03DecodeBlocking(t *testing.T) {
	t.Parallel()
	msg := `{"messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}`
	for cfg, immediate := range map[string]bool{
		``:                                    false,
		`,"configuration":{}`:                 false,
		`,"configuration":null`:               false,
		`,"configuration":{"blocking":true}`:  false,
		`,"configuration":{"blocking":false}`: true,
	} {
		req, e := codecs.For(wire.V02).DecodeParams(wire.OpSend, []byte(`{"message":`+msg+cfg+`}`))
		require.Nil(t, e, cfg)
		assert.Equal(t, immediate, req.Config.ReturnImmediately, cfg)
		assert.Equal(t, wire.V02, req.Dialect)
		assert.Nil(t, req.Config.HistoryLength)
		assert.Empty(t, req.TaskID, "v0.3 send leaves Request.TaskID to the server")
	}
}

func TestV03DecodeOtherOps(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V03)
	five := 5
	cases := []struct {
		op     wire.Op
		params string
		want   wire.Request
	}{
		{wire.OpGetTask, `{"id":"t1","historyLength":5,"metadata":{"m":1}}`,
			wire.Request{TaskID: "t1", HistoryLength: &five, Metadata: map[string]any{"m": 1.0}}},
		{wire.OpGetTask, `{"id":"t1"}`, wire.Request{TaskID: "t1"}},
		{wire.OpCancelTask, `{"id":"t1"}`, wire.Request{TaskID: "t1"}},
		{wire.OpSubscribe, `{"id":"t1","metadata":{}}`, wire.Request{TaskID: "t1", Metadata: map[string]any{}}},
		{wire.OpListPushConfigs, `{"id":"t1"}`, wire.Request{TaskID: "t1"}},
		{wire.OpGetPushConfig, `{"id":"t1"}`, wire.Request{TaskID: "t1"}},
		{wire.OpGetPushConfig, `{"id":"t1","pushNotificationConfigId":"p1"}`, wire.Request{TaskID: "t1", PushConfigID: "p1"}},
		{wire.OpDeletePush, `{"id":"t1","pushNotificationConfigId":"p1"}`, wire.Request{TaskID: "t1", PushConfigID: "p1"}},
		{wire.OpSetPushConfig, `{"taskId":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h","id":"p1"}}`,
			wire.Request{TaskID: "t1", PushConfigID: "p1", PushConfig: &wire.PushConfig{ID: "p1", TaskID: "t1", URL: "http://127.0.0.1:9/h"}}},
		{wire.OpSetPushConfig, `{"taskId":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h"}}`,
			wire.Request{TaskID: "t1", PushConfig: &wire.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/h"}}},
		{wire.OpExtendedCard, ``, wire.Request{}},
		{wire.OpExtendedCard, `{}`, wire.Request{}},
	}
	for _, tc := range cases {
		req, e := c.DecodeParams(tc.op, []byte(tc.params))
		require.Nil(t, e, "%s %s", tc.op, tc.params)
		want := tc.want
		want.Op, want.Dialect = tc.op, wire.V03
		assert.Equal(t, &want, req, "%s %s", tc.op, tc.params)
	}
}

// badParam is a params document that must be rejected with -32602 and a
// message naming field.
type badParam struct {
	name   string
	op     wire.Op
	params string
	field  string
}

func requireBadParams(t *testing.T, c wire.Codec, cases []badParam) {
	t.Helper()
	for _, tc := range cases {
		req, e := c.DecodeParams(tc.op, []byte(tc.params))
		require.NotNil(t, e, tc.name)
		assert.Nil(t, req, tc.name)
		assert.Equal(t, wire.CodeInvalidParams, e.Code, tc.name)
		assert.Contains(t, e.Message, tc.field, tc.name)
		assert.Equal(t, tc.field, e.Data["field"], tc.name)
	}
}

func TestV03DecodeBadParams(t *testing.T) {
	t.Parallel()
	const part = `{"kind":"text","text":"x"}`
	msg := func(fields string) string {
		return `{"message":{"messageId":"m","role":"user"` + fields + `}}`
	}
	cases := []badParam{
		{"no params", wire.OpSend, ``, "params"},
		{"null params", wire.OpSend, `null`, "params"},
		{"params array", wire.OpSend, `[]`, "params"},
		{"missing message", wire.OpSend, `{}`, "message"},
		{"message not object", wire.OpSend, `{"message":"hi"}`, "message"},
		{"missing parts", wire.OpSend, msg(``), "message.parts"},
		{"empty parts", wire.OpSend, msg(`,"parts":[]`), "message.parts"},
		{"parts not array", wire.OpSend, msg(`,"parts":{}`), "message.parts"},
		{"part not object", wire.OpSend, msg(`,"parts":[` + part + `,3]`), "message.parts[1]"},
		{"bad part kind", wire.OpSend, msg(`,"parts":[{"kind":"video","text":"x"}]`), "message.parts[0].kind"},
		{"missing part kind", wire.OpSend, msg(`,"parts":[{"text":"x"}]`), "message.parts[0].kind"},
		{"v0.1 part type", wire.OpSend, msg(`,"parts":[{"type":"text","text":"x"}]`), "message.parts[0].kind"},
		{"text missing", wire.OpSend, msg(`,"parts":[{"kind":"text"}]`), "message.parts[0].text"},
		{"text wrong type", wire.OpSend, msg(`,"parts":[{"kind":"text","text":5}]`), "message.parts[0].text"},
		{"file missing", wire.OpSend, msg(`,"parts":[{"kind":"file"}]`), "message.parts[0].file"},
		{"file empty", wire.OpSend, msg(`,"parts":[{"kind":"file","file":{}}]`), "message.parts[0].file"},
		{"file bad base64", wire.OpSend, msg(`,"parts":[{"kind":"file","file":{"bytes":"%%%"}}]`), "message.parts[0].file.bytes"},
		{"data not object", wire.OpSend, msg(`,"parts":[{"kind":"data","data":[1]}]`), "message.parts[0].data"},
		{"data missing", wire.OpSend, msg(`,"parts":[{"kind":"data"}]`), "message.parts[0].data"},
		{"missing messageId", wire.OpSend, `{"message":{"role":"user","parts":[` + part + `]}}`, "message.messageId"},
		{"messageId number", wire.OpSend, `{"message":{"messageId":1,"role":"user","parts":[` + part + `]}}`, "message.messageId"},
		{"missing role", wire.OpSend, `{"message":{"messageId":"m","parts":[` + part + `]}}`, "message.role"},
		{"bad role", wire.OpStream, `{"message":{"messageId":"m","role":"system","parts":[` + part + `]}}`, "message.role"},
		{"wrong message kind", wire.OpSend, msg(`,"kind":"task","parts":[` + part + `]`), "message.kind"},
		{"config not object", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":true}`, "configuration"},
		{"blocking string", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":{"blocking":"no"}}`, "configuration.blocking"},
		{"historyLength float", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":{"historyLength":1.5}}`, "configuration.historyLength"},
		{"historyLength negative", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":{"historyLength":-1}}`, "configuration.historyLength"},
		{"push url missing", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":{"pushNotificationConfig":{}}}`, "configuration.pushNotificationConfig.url"},
		{"push schemes missing", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"configuration":{"pushNotificationConfig":{"url":"http://x","authentication":{}}}}`, "configuration.pushNotificationConfig.authentication.schemes"},
		{"metadata not object", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[` + part + `]},"metadata":[]}`, "metadata"},
		{"get no id", wire.OpGetTask, `{}`, "id"},
		{"get empty id", wire.OpGetTask, `{"id":""}`, "id"},
		{"get id number", wire.OpGetTask, `{"id":7}`, "id"},
		{"get bad historyLength", wire.OpGetTask, `{"id":"t","historyLength":"3"}`, "historyLength"},
		{"cancel no id", wire.OpCancelTask, `{"taskId":"t"}`, "id"},
		{"resubscribe no params", wire.OpSubscribe, ``, "params"},
		{"push set no taskId", wire.OpSetPushConfig, `{"pushNotificationConfig":{"url":"http://x"}}`, "taskId"},
		{"push set no config", wire.OpSetPushConfig, `{"taskId":"t"}`, "pushNotificationConfig"},
		{"push set no url", wire.OpSetPushConfig, `{"taskId":"t","pushNotificationConfig":{"id":"p"}}`, "pushNotificationConfig.url"},
		{"push get no id", wire.OpGetPushConfig, `{"pushNotificationConfigId":"p"}`, "id"},
		{"push list no id", wire.OpListPushConfigs, `{}`, "id"},
		{"push delete no config id", wire.OpDeletePush, `{"id":"t"}`, "pushNotificationConfigId"},
		{"extended card params not object", wire.OpExtendedCard, `[1]`, "params"},
	}
	requireBadParams(t, codecs.For(wire.V03), cases)
	requireBadParams(t, codecs.For(wire.V02), cases)
}

func TestV03DecodeUnknownOp(t *testing.T) {
	t.Parallel()
	_, e := codecs.For(wire.V03).DecodeParams(wire.OpListTasks, []byte(`{}`))
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeMethodNotFound, e.Code)
}

func TestV03DecodeLenient(t *testing.T) {
	t.Parallel()
	// kind left out of the message, unpadded base64, unknown members.
	req, e := codecs.For(wire.V03).DecodeParams(wire.OpSend, []byte(
		`{"message":{"messageId":"m","role":"agent","extra":1,"parts":[{"kind":"file","file":{"bytes":"aGk"}}]}}`))
	require.Nil(t, e)
	assert.Equal(t, []byte("hi"), req.Message.Parts[0].Raw)
	assert.Equal(t, wire.RoleAgent, req.Message.Role)
}

func TestV03RoundTripEvents(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		c := codecs.For(d)
		dec, ok := c.(eventDecoder)
		require.True(t, ok)
		for name, ev := range v03Events() {
			b, err := c.EncodeEvent(ev)
			require.NoError(t, err, name)
			got, err := dec.DecodeEvent(b)
			require.NoError(t, err, name)
			assert.Equal(t, ev, got, name)
		}
	}
}

func TestV03RoundTripSendParams(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V03)
	for i, m := range v03Task().History {
		encoded, err := c.EncodeEvent(wire.Event{Message: &m})
		require.NoError(t, err)
		params := `{"message":` + string(encoded) + `,"configuration":{"blocking":true}}`
		schemacheck.Require(t, wire.V03, "MessageSendParams", []byte(params))
		req, e := c.DecodeParams(wire.OpSend, []byte(params))
		require.Nil(t, e, i)
		assert.Equal(t, &m, req.Message, i)
	}
}

func TestV03DecodeEventErrors(t *testing.T) {
	t.Parallel()
	dec := codecs.For(wire.V03).(eventDecoder)
	for _, doc := range []string{
		`[]`,
		`{"kind":"nope"}`,
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"sleeping"}}`,
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"working","timestamp":"yesterday"}}`,
		`{"kind":"task","id":"t","contextId":"c"}`,
		`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]}}`,
	} {
		_, err := dec.DecodeEvent([]byte(doc))
		assert.Error(t, err, doc)
	}
}

// A v0.2/v0.3 send notes the members the dialect does not define, by path
// and in the order sent (v1.0 habits: returnImmediately,
// taskPushNotificationConfig, a part's url); one of defined members notes
// none, and a member encoding/json matches in another case is read, not
// ignored.
func TestDecodeV03NotesIgnoredMembers(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		req, e := codecs.For(d).DecodeParams(wire.OpSend, []byte(`{"message":{"kind":"message","messageId":"m","role":"user",`+
			`"parts":[{"kind":"text","text":"a"},{"kind":"file","file":{"uri":"https://example.example/f"},"url":"https://example.example/f"}],"tenant":"x"},`+
			`"configuration":{"returnImmediately":true,"Blocking":false,"taskPushNotificationConfig":{"url":"http://127.0.0.1:1/h"}},"id":"1"}`))
		require.Nil(t, e, "%s", d)
		assert.Equal(t, []string{"message.parts[1].url", "message.tenant", "configuration.returnImmediately",
			"configuration.taskPushNotificationConfig", "id"}, req.Ignored, "%s", d)
		assert.True(t, req.Config.ReturnImmediately, "%s: Blocking is encoding/json's blocking", d)

		req, e = codecs.For(d).DecodeParams(wire.OpStream, []byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"a"}]},"configuration":{"blocking":true},"metadata":{}}`))
		require.Nil(t, e, "%s", d)
		assert.Empty(t, req.Ignored, "%s", d)
	}
}

// The other v0.2/v0.3 operations note the members their params do not
// define too (v1.0 habits: tenant, GetTask's historyLength on
// tasks/cancel, a push config's v1.0 scheme).
func TestDecodeV03NotesIgnoredParams(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V03, wire.V02} {
		for _, tc := range []struct {
			op           wire.Op
			clean, dirty string
			want         []string
		}{
			{wire.OpGetTask, `{"id":"t","historyLength":2,"metadata":{}}`, `{"id":"t","tenant":"a"}`, []string{"tenant"}},
			{wire.OpCancelTask, `{"id":"t","metadata":{}}`, `{"id":"t","historyLength":2}`, []string{"historyLength"}},
			{wire.OpSubscribe, `{"id":"t"}`, `{"taskId":"x","id":"t"}`, []string{"taskId"}},
			{wire.OpListPushConfigs, `{"id":"t"}`, `{"id":"t","pageSize":1}`, []string{"pageSize"}},
			{wire.OpGetPushConfig, `{"id":"t","pushNotificationConfigId":"p"}`, `{"id":"t","configId":"p"}`, []string{"configId"}},
			{wire.OpDeletePush, `{"id":"t","pushNotificationConfigId":"p","metadata":{}}`, `{"id":"t","pushNotificationConfigId":"p","taskId":"t"}`, []string{"taskId"}},
			{wire.OpSetPushConfig, `{"taskId":"t","pushNotificationConfig":{"url":"http://127.0.0.1:1/h","authentication":{"schemes":["Bearer"]}}}`,
				`{"taskId":"t","pushNotificationConfig":{"url":"http://127.0.0.1:1/h","taskId":"t","authentication":{"schemes":["Bearer"],"scheme":"Bearer"}},"tenant":""}`,
				[]string{"pushNotificationConfig.taskId", "pushNotificationConfig.authentication.scheme", "tenant"}},
		} {
			req, e := codecs.For(d).DecodeParams(tc.op, []byte(tc.clean))
			require.Nil(t, e, "%s %s %s", d, tc.op, tc.clean)
			assert.Empty(t, req.Ignored, "%s %s %s", d, tc.op, tc.clean)
			req, e = codecs.For(d).DecodeParams(tc.op, []byte(tc.dirty))
			require.Nil(t, e, "%s %s %s", d, tc.op, tc.dirty)
			assert.Equal(t, tc.want, req.Ignored, "%s %s %s", d, tc.op, tc.dirty)
		}
	}
}
