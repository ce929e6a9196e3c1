package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// v01Task is a task as v0.1 can express it without loss: no message ids, no
// ids on messages, and artifact ids that are their indexes.
func v01Task() *wire.Task {
	user := wire.Message{Role: wire.RoleUser, Parts: allParts(), Metadata: map[string]any{"k": "v"}}
	agent := wire.Message{Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("done")}}
	return &wire.Task{
		ID: "t1", ContextID: "s1",
		Status:  wire.TaskStatus{State: wire.StateCompleted, Message: &agent, Timestamp: ts},
		History: []wire.Message{user, agent},
		Artifacts: []wire.Artifact{
			{ArtifactID: "0", Name: "out", Description: "all kinds", Parts: allParts(), Metadata: map[string]any{"m": "x"}},
			{ArtifactID: "1", Parts: []wire.Part{wire.TextPart("second")}},
		},
		Metadata: map[string]any{"origin": "test"},
	}
}

func TestV01Registration(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	require.NotNil(t, c)
	assert.Equal(t, wire.V01, c.Dialect())
	assert.Equal(t, map[string]wire.Op{
		"tasks/send":                 wire.OpSend,
		"tasks/sendSubscribe":        wire.OpStream,
		"tasks/get":                  wire.OpGetTask,
		"tasks/cancel":               wire.OpCancelTask,
		"tasks/resubscribe":          wire.OpSubscribe,
		"tasks/pushNotification/set": wire.OpSetPushConfig,
		"tasks/pushNotification/get": wire.OpGetPushConfig,
	}, c.Methods())
	for _, m := range []string{"tasks/send", "tasks/sendSubscribe", "tasks/pushNotification/set", "tasks/pushNotification/get"} {
		d, _, ok := wire.LookupMethod(m)
		require.True(t, ok, m)
		assert.Equal(t, wire.V01, d, m)
	}
}

func TestV01EncodeResultsValidate(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	push := wire.PushConfig{ID: "ignored", TaskID: "t1", URL: "http://127.0.0.1:9/hook", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "cr"}
	reply := wire.Message{MessageID: "dropped", TaskID: "t1", ContextID: "s1", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("hi")}}
	cases := []struct {
		name string
		op   wire.Op
		res  *wire.Result
		def  string
		want string
	}{
		{"send", wire.OpSend, &wire.Result{Task: v01Task()}, "SendTaskResponse", `"sessionId":"s1"`},
		{"send message reply", wire.OpSend, &wire.Result{Message: &reply}, "SendTaskResponse",
			`{"id":"t1","sessionId":"s1","status":{"state":"completed","message":{"role":"agent","parts":[{"type":"text","text":"hi"}]}}}`},
		{"get", wire.OpGetTask, &wire.Result{Task: v01Task()}, "GetTaskResponse", `"index":1`},
		{"cancel", wire.OpCancelTask, &wire.Result{Task: v01Task()}, "CancelTaskResponse", `"id":"t1"`},
		{"push set", wire.OpSetPushConfig, &wire.Result{PushConfig: &push}, "SetTaskPushNotificationResponse",
			`{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/hook","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cr"}}}`},
		{"push get", wire.OpGetPushConfig, &wire.Result{PushConfig: &wire.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/h"}}, "GetTaskPushNotificationResponse",
			`{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h"}}`},
	}
	for _, tc := range cases {
		b, err := c.EncodeResult(tc.op, tc.res)
		require.NoError(t, err, tc.name)
		schemacheck.Require(t, wire.V01, tc.def, envelope(b))
		assert.Contains(t, string(b), tc.want, tc.name)
		assert.NotContains(t, string(b), `"kind"`, tc.name)
		assert.NotContains(t, string(b), `messageId`, tc.name)
		switch tc.op {
		case wire.OpSetPushConfig, wire.OpGetPushConfig:
			schemacheck.Require(t, wire.V01, "TaskPushNotificationConfig", b)
		default:
			schemacheck.Require(t, wire.V01, "Task", b)
		}
	}
	for _, op := range []wire.Op{wire.OpListPushConfigs, wire.OpDeletePush, wire.OpExtendedCard, wire.OpListTasks, wire.OpStream} {
		_, err := c.EncodeResult(op, &wire.Result{Task: v01Task(), Empty: true, Card: []byte(`{}`)})
		assert.Error(t, err, op)
	}
	_, err := c.EncodeResult(wire.OpGetTask, &wire.Result{Message: &reply})
	assert.Error(t, err, "only a send may answer with a message")
	_, err = c.EncodeResult(wire.OpGetTask, nil)
	assert.Error(t, err)
}

func TestV01GoldenTask(t *testing.T) {
	t.Parallel()
	task := &wire.Task{ID: "t1",
		Status: wire.TaskStatus{State: wire.StateRejected, Timestamp: ts},
		History: []wire.Message{{MessageID: "m", TaskID: "t1", ContextID: "s", Role: wire.RoleUser,
			Parts: []wire.Part{{Kind: wire.PartData, Data: map[string]any{"b": 2.0, "a": 1.0}}}}},
		Artifacts: []wire.Artifact{{ArtifactID: "report", Parts: []wire.Part{{Kind: wire.PartFile, URL: "https://example.com/r"}}}}}
	b, err := codecs.For(wire.V01).EncodeResult(wire.OpGetTask, &wire.Result{Task: task})
	require.NoError(t, err)
	want := `{"id":"t1","status":{"state":"failed","timestamp":"2026-03-12T09:30:15.123Z"},` +
		`"artifacts":[{"parts":[{"type":"file","file":{"uri":"https://example.com/r"}}],"index":0}],` +
		`"history":[{"role":"user","parts":[{"type":"data","data":{"a":1,"b":2}}]}]}`
	assert.Equal(t, want, string(b))
	schemacheck.Require(t, wire.V01, "Task", b)
}

func TestV01StatesValidate(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	want := map[wire.TaskState]string{
		wire.StateRejected:     "failed",
		wire.StateAuthRequired: "input-required",
		wire.StateUnspecified:  "unknown",
		wire.StateWorking:      "working",
		wire.StateCanceled:     "canceled",
	}
	for _, s := range append(append([]wire.TaskState{}, wire.AllStates...), wire.StateUnknown, wire.StateUnspecified) {
		b, err := c.EncodeResult(wire.OpGetTask, &wire.Result{Task: &wire.Task{ID: "t", Status: wire.TaskStatus{State: s}}})
		require.NoError(t, err, s)
		schemacheck.Require(t, wire.V01, "Task", b)
		if w, ok := want[s]; ok {
			assert.Contains(t, string(b), `"state":"`+w+`"`, s)
		}
	}
}

func TestV01EncodeEventsValidate(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	task := v01Task()
	msg := wire.Message{TaskID: "t1", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("bare")}}
	working := &wire.Task{ID: "t1", ContextID: "s1", Status: wire.TaskStatus{State: wire.StateSubmitted}}
	cases := []struct {
		name     string
		ev       wire.Event
		def      string
		final    *bool
		pushDef  string
		fragment string
	}{
		{"status final", wire.Event{Status: &wire.StatusUpdate{TaskID: "t1", Final: true, Status: task.Status, Metadata: map[string]any{"x": "y"}}},
			"TaskStatusUpdateEvent", ptr(true), "TaskStatusUpdateEvent", `"final":true`},
		{"status not final", wire.Event{Status: &wire.StatusUpdate{TaskID: "t1", Status: wire.TaskStatus{State: wire.StateWorking, Timestamp: ts}}},
			"TaskStatusUpdateEvent", ptr(false), "TaskStatusUpdateEvent", `"final":false`},
		{"status terminal, final as given", wire.Event{Status: &wire.StatusUpdate{TaskID: "t1", Status: wire.TaskStatus{State: wire.StateFailed}}},
			"TaskStatusUpdateEvent", ptr(false), "TaskStatusUpdateEvent", `"state":"failed"`},
		{"artifact chunk", wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[0], Append: true}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"append":true`},
		{"artifact last", wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[1], LastChunk: true, Metadata: map[string]any{"c": 1.0}}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"index":1,"lastChunk":true`},
		{"artifact with a non-numeric id", wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "t1", Artifact: wire.Artifact{ArtifactID: "x", Parts: allParts()}}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"index":0`},
		{"terminal task snapshot", wire.Event{Task: task}, "TaskStatusUpdateEvent", ptr(true), "Task", `"state":"completed"`},
		{"first task event", wire.Event{Task: working}, "TaskStatusUpdateEvent", ptr(false), "Task", `"state":"submitted"`},
		{"message", wire.Event{Message: &msg}, "TaskStatusUpdateEvent", ptr(true), "Task", `"text":"bare"`},
	}
	for _, tc := range cases {
		b, err := c.EncodeEvent(tc.ev)
		require.NoError(t, err, tc.name)
		schemacheck.Require(t, wire.V01, tc.def, b)
		schemacheck.Require(t, wire.V01, "SendTaskStreamingResponse", envelope(b))
		assert.Contains(t, string(b), tc.fragment, tc.name)
		assert.Contains(t, string(b), `"id":"t1"`, tc.name)
		assert.NotContains(t, string(b), `"kind"`, tc.name)
		if tc.final != nil {
			var got struct {
				Final *bool `json:"final"`
			}
			require.NoError(t, json.Unmarshal(b, &got))
			require.NotNil(t, got.Final, tc.name)
			assert.Equal(t, *tc.final, *got.Final, tc.name)
		}

		p, err := c.EncodePush(tc.ev)
		require.NoError(t, err, tc.name)
		schemacheck.Require(t, wire.V01, tc.pushDef, p)
	}
	_, err := c.EncodeEvent(wire.Event{})
	assert.Error(t, err)
}

func ptr[T any](v T) *T { return &v }

func TestV01EncodeErrorData(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	assert.Nil(t, c.EncodeErrorData(wire.Errorf(wire.CodeInternal, "x")))
	e := wire.ErrInvalidParams("message.parts", "is required")
	data := c.EncodeErrorData(e)
	assert.JSONEq(t, `{"field":"message.parts"}`, string(data))
	schemacheck.Require(t, wire.V01, "SendTaskResponse", wire.EncodeRPCError(json.RawMessage(`1`), e, data))
}

func TestV01DecodeSend(t *testing.T) {
	t.Parallel()
	params := `{"id":"client-task","sessionId":"sess","historyLength":2,"metadata":{"r":"m"},
		"message":{"role":"user","metadata":{"k":"v"},"parts":[
			{"type":"text","text":"hi"},
			{"type":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"h.txt"}},
			{"type":"file","file":{"uri":"https://example.com/x"}},
			{"type":"data","data":{"n":1}}]},
		"pushNotification":{"url":"http://127.0.0.1:9/h","token":"tok","authentication":{"schemes":["Basic"]}}}`
	schemacheck.Require(t, wire.V01, "TaskSendParams", []byte(params))
	for _, op := range []wire.Op{wire.OpSend, wire.OpStream} {
		req, e := codecs.For(wire.V01).DecodeParams(op, []byte(params))
		require.Nil(t, e)
		two := 2
		assert.Equal(t, &wire.Request{Op: op, Dialect: wire.V01, TaskID: "client-task",
			Message: &wire.Message{TaskID: "client-task", ContextID: "sess", Role: wire.RoleUser, Metadata: map[string]any{"k": "v"},
				Parts: []wire.Part{
					wire.TextPart("hi"),
					{Kind: wire.PartFile, Raw: []byte("hi"), MediaType: "text/plain", Filename: "h.txt"},
					{Kind: wire.PartFile, URL: "https://example.com/x"},
					{Kind: wire.PartData, Data: map[string]any{"n": 1.0}},
				}},
			Config: wire.SendConfig{HistoryLength: &two,
				PushConfig: &wire.PushConfig{TaskID: "client-task", URL: "http://127.0.0.1:9/h", Token: "tok", AuthSchemes: []string{"Basic"}}},
			Metadata: map[string]any{"r": "m"},
		}, req)
		assert.Empty(t, req.Message.MessageID, "v0.1 has no message ids and none is made up")
		assert.False(t, req.Config.ReturnImmediately)
	}
}

func TestV01DecodeOtherOps(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	four := 4
	cases := []struct {
		op     wire.Op
		params string
		want   wire.Request
	}{
		{wire.OpGetTask, `{"id":"t1","historyLength":4}`, wire.Request{TaskID: "t1", HistoryLength: &four}},
		{wire.OpSubscribe, `{"id":"t1","historyLength":4}`, wire.Request{TaskID: "t1", HistoryLength: &four}},
		{wire.OpCancelTask, `{"id":"t1","metadata":{"a":"b"}}`, wire.Request{TaskID: "t1", Metadata: map[string]any{"a": "b"}}},
		{wire.OpGetPushConfig, `{"id":"t1"}`, wire.Request{TaskID: "t1"}},
		{wire.OpSetPushConfig, `{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h","token":"x"}}`,
			wire.Request{TaskID: "t1", PushConfig: &wire.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/h", Token: "x"}}},
	}
	for _, tc := range cases {
		req, e := c.DecodeParams(tc.op, []byte(tc.params))
		require.Nil(t, e, "%s %s", tc.op, tc.params)
		want := tc.want
		want.Op, want.Dialect = tc.op, wire.V01
		assert.Equal(t, &want, req, "%s %s", tc.op, tc.params)
	}
	for _, op := range []wire.Op{wire.OpListPushConfigs, wire.OpDeletePush, wire.OpExtendedCard, wire.OpListTasks} {
		_, e := c.DecodeParams(op, []byte(`{"id":"t"}`))
		require.NotNil(t, e, op)
		assert.Equal(t, wire.CodeMethodNotFound, e.Code, op)
	}
}

func TestV01DecodeBadParams(t *testing.T) {
	t.Parallel()
	const part = `{"type":"text","text":"x"}`
	send := func(msg string) string { return `{"id":"t","message":` + msg + `}` }
	requireBadParams(t, codecs.For(wire.V01), []badParam{
		{"no params", wire.OpSend, ``, "params"},
		{"missing id", wire.OpSend, `{"message":{"role":"user","parts":[` + part + `]}}`, "id"},
		{"id number", wire.OpSend, `{"id":1,"message":{"role":"user","parts":[` + part + `]}}`, "id"},
		{"missing message", wire.OpSend, `{"id":"t"}`, "message"},
		{"message array", wire.OpStream, send(`[]`), "message"},
		{"missing parts", wire.OpSend, send(`{"role":"user"}`), "message.parts"},
		{"empty parts", wire.OpSend, send(`{"role":"user","parts":[]}`), "message.parts"},
		{"bad part type", wire.OpSend, send(`{"role":"user","parts":[{"type":"image"}]}`), "message.parts[0].type"},
		{"v0.3 part kind", wire.OpSend, send(`{"role":"user","parts":[{"kind":"text","text":"x"}]}`), "message.parts[0].type"},
		{"file without content", wire.OpSend, send(`{"role":"user","parts":[` + part + `,{"type":"file","file":{"name":"n"}}]}`), "message.parts[1].file"},
		{"data string", wire.OpSend, send(`{"role":"user","parts":[{"type":"data","data":"x"}]}`), "message.parts[0].data"},
		{"bad role", wire.OpSend, send(`{"role":"robot","parts":[` + part + `]}`), "message.role"},
		{"sessionId number", wire.OpSend, `{"id":"t","sessionId":3,"message":{"role":"user","parts":[` + part + `]}}`, "sessionId"},
		{"push without url", wire.OpSend, `{"id":"t","pushNotification":{"token":"x"},"message":{"role":"user","parts":[` + part + `]}}`, "pushNotification.url"},
		{"historyLength negative", wire.OpSend, `{"id":"t","historyLength":-2,"message":{"role":"user","parts":[` + part + `]}}`, "historyLength"},
		{"get without id", wire.OpGetTask, `{}`, "id"},
		{"resubscribe historyLength string", wire.OpSubscribe, `{"id":"t","historyLength":"1"}`, "historyLength"},
		{"cancel id null", wire.OpCancelTask, `{"id":null}`, "id"},
		{"push set without config", wire.OpSetPushConfig, `{"id":"t"}`, "pushNotificationConfig"},
		{"push set v0.3 shape", wire.OpSetPushConfig, `{"taskId":"t","pushNotificationConfig":{"url":"http://x"}}`, "id"},
		{"push set auth without schemes", wire.OpSetPushConfig, `{"id":"t","pushNotificationConfig":{"url":"http://x","authentication":{"credentials":"c"}}}`, "pushNotificationConfig.authentication.schemes"},
		{"push get without id", wire.OpGetPushConfig, `{"pushNotificationConfigId":"p"}`, "id"},
	})
}

func TestV01RoundTrip(t *testing.T) {
	t.Parallel()
	c := codecs.For(wire.V01)
	dec, ok := c.(eventDecoder)
	require.True(t, ok)
	task := v01Task()

	b, err := c.EncodeResult(wire.OpGetTask, &wire.Result{Task: task})
	require.NoError(t, err)
	got, err := dec.DecodeEvent(b)
	require.NoError(t, err)
	assert.Equal(t, wire.Event{Task: task}, got)

	for _, ev := range []wire.Event{
		{Status: &wire.StatusUpdate{TaskID: "t1", Final: true, Status: task.Status, Metadata: map[string]any{"x": "y"}}},
		{Status: &wire.StatusUpdate{TaskID: "t1", Status: wire.TaskStatus{State: wire.StateWorking}}},
		{Artifact: &wire.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[0], Append: true, LastChunk: true, Metadata: map[string]any{"m": "d"}}},
		{Artifact: &wire.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[1]}},
	} {
		b, err := c.EncodeEvent(ev)
		require.NoError(t, err)
		got, err := dec.DecodeEvent(b)
		require.NoError(t, err)
		assert.Equal(t, ev, got, string(b))
	}

	// A message sent as tasks/send params comes back with the task and
	// session ids the params carried.
	msg := wire.Message{TaskID: "t1", ContextID: "s1", Role: wire.RoleUser, Parts: allParts(), Metadata: map[string]any{"k": "v"}}
	pushed, err := c.EncodePush(wire.Event{Task: &wire.Task{ID: "t1", Status: wire.TaskStatus{State: wire.StateWorking, Message: &msg}}})
	require.NoError(t, err)
	var w struct {
		Status struct {
			Message json.RawMessage `json:"message"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal(pushed, &w))
	params := `{"id":"t1","sessionId":"s1","message":` + string(w.Status.Message) + `}`
	schemacheck.Require(t, wire.V01, "TaskSendParams", []byte(params))
	req, e := c.DecodeParams(wire.OpSend, []byte(params))
	require.Nil(t, e)
	assert.Equal(t, &msg, req.Message)
}

func TestV01DecodeEventErrors(t *testing.T) {
	t.Parallel()
	dec := codecs.For(wire.V01).(eventDecoder)
	for _, doc := range []string{
		`"x"`,
		`{"id":"t"}`,
		`{"id":"t","status":{"state":"rejected"},"final":true}`,
		`{"id":"t","artifact":{"parts":[{"kind":"text","text":"x"}]}}`,
		`{"id":"t","status":{"state":"working"},"history":[{"role":"user","parts":[]}]}`,
	} {
		_, err := dec.DecodeEvent([]byte(doc))
		assert.Error(t, err, doc)
	}
}
