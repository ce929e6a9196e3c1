package a2a_test

import (
	"encoding/json"
	"testing"

	"github.com/a2amock/a2amock/a2a"
	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// v01Task is a task as v0.1 can express it without loss: no message ids, no
// ids on messages, and artifact ids that are their indexes.
func v01Task() *a2a.Task {
	user := a2a.Message{Role: a2a.RoleUser, Parts: allParts(), Metadata: map[string]any{"k": "v"}}
	agent := a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("done")}}
	return &a2a.Task{
		ID: "t1", ContextID: "s1",
		Status:  a2a.TaskStatus{State: a2a.StateCompleted, Message: &agent, Timestamp: ts},
		History: []a2a.Message{user, agent},
		Artifacts: []a2a.Artifact{
			{ArtifactID: "0", Name: "out", Description: "all kinds", Parts: allParts(), Metadata: map[string]any{"m": "x"}},
			{ArtifactID: "1", Parts: []a2a.Part{a2a.TextPart("second")}},
		},
		Metadata: map[string]any{"origin": "test"},
	}
}

func TestV01Registration(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	require.NotNil(t, c)
	assert.Equal(t, a2a.V01, c.Dialect())
	assert.Equal(t, map[string]a2a.Op{
		"tasks/send":                 a2a.OpSend,
		"tasks/sendSubscribe":        a2a.OpStream,
		"tasks/get":                  a2a.OpGetTask,
		"tasks/cancel":               a2a.OpCancelTask,
		"tasks/resubscribe":          a2a.OpSubscribe,
		"tasks/pushNotification/set": a2a.OpSetPushConfig,
		"tasks/pushNotification/get": a2a.OpGetPushConfig,
	}, c.Methods())
	for _, m := range []string{"tasks/send", "tasks/sendSubscribe", "tasks/pushNotification/set", "tasks/pushNotification/get"} {
		d, _, ok := a2a.LookupMethod(m)
		require.True(t, ok, m)
		assert.Equal(t, a2a.V01, d, m)
	}
}

func TestV01EncodeResultsValidate(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	push := a2a.PushConfig{ID: "ignored", TaskID: "t1", URL: "http://127.0.0.1:9/hook", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "cr"}
	reply := a2a.Message{MessageID: "dropped", TaskID: "t1", ContextID: "s1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("hi")}}
	cases := []struct {
		name string
		op   a2a.Op
		res  *a2a.Result
		def  string
		want string
	}{
		{"send", a2a.OpSend, &a2a.Result{Task: v01Task()}, "SendTaskResponse", `"sessionId":"s1"`},
		{"send message reply", a2a.OpSend, &a2a.Result{Message: &reply}, "SendTaskResponse",
			`{"id":"t1","sessionId":"s1","status":{"state":"completed","message":{"role":"agent","parts":[{"type":"text","text":"hi"}]}}}`},
		{"get", a2a.OpGetTask, &a2a.Result{Task: v01Task()}, "GetTaskResponse", `"index":1`},
		{"cancel", a2a.OpCancelTask, &a2a.Result{Task: v01Task()}, "CancelTaskResponse", `"id":"t1"`},
		{"push set", a2a.OpSetPushConfig, &a2a.Result{PushConfig: &push}, "SetTaskPushNotificationResponse",
			`{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/hook","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cr"}}}`},
		{"push get", a2a.OpGetPushConfig, &a2a.Result{PushConfig: &a2a.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/h"}}, "GetTaskPushNotificationResponse",
			`{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h"}}`},
	}
	for _, tc := range cases {
		b, err := c.EncodeResult(tc.op, tc.res)
		require.NoError(t, err, tc.name)
		schemacheck.Require(t, a2a.V01, tc.def, envelope(b))
		assert.Contains(t, string(b), tc.want, tc.name)
		assert.NotContains(t, string(b), `"kind"`, tc.name)
		assert.NotContains(t, string(b), `messageId`, tc.name)
		switch tc.op {
		case a2a.OpSetPushConfig, a2a.OpGetPushConfig:
			schemacheck.Require(t, a2a.V01, "TaskPushNotificationConfig", b)
		default:
			schemacheck.Require(t, a2a.V01, "Task", b)
		}
	}
	for _, op := range []a2a.Op{a2a.OpListPushConfigs, a2a.OpDeletePush, a2a.OpExtendedCard, a2a.OpListTasks, a2a.OpStream} {
		_, err := c.EncodeResult(op, &a2a.Result{Task: v01Task(), Empty: true, Card: []byte(`{}`)})
		assert.Error(t, err, op)
	}
	_, err := c.EncodeResult(a2a.OpGetTask, &a2a.Result{Message: &reply})
	assert.Error(t, err, "only a send may answer with a message")
	_, err = c.EncodeResult(a2a.OpGetTask, nil)
	assert.Error(t, err)
}

func TestV01GoldenTask(t *testing.T) {
	t.Parallel()
	task := &a2a.Task{ID: "t1",
		Status: a2a.TaskStatus{State: a2a.StateRejected, Timestamp: ts},
		History: []a2a.Message{{MessageID: "m", TaskID: "t1", ContextID: "s", Role: a2a.RoleUser,
			Parts: []a2a.Part{{Kind: a2a.PartData, Data: map[string]any{"b": 2.0, "a": 1.0}}}}},
		Artifacts: []a2a.Artifact{{ArtifactID: "report", Parts: []a2a.Part{{Kind: a2a.PartFile, URL: "https://example.com/r"}}}}}
	b, err := a2a.CodecFor(a2a.V01).EncodeResult(a2a.OpGetTask, &a2a.Result{Task: task})
	require.NoError(t, err)
	want := `{"id":"t1","status":{"state":"failed","timestamp":"2026-03-12T09:30:15.123Z"},` +
		`"artifacts":[{"parts":[{"type":"file","file":{"uri":"https://example.com/r"}}],"index":0}],` +
		`"history":[{"role":"user","parts":[{"type":"data","data":{"a":1,"b":2}}]}]}`
	assert.Equal(t, want, string(b))
	schemacheck.Require(t, a2a.V01, "Task", b)
}

func TestV01StatesValidate(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	want := map[a2a.TaskState]string{
		a2a.StateRejected:     "failed",
		a2a.StateAuthRequired: "input-required",
		a2a.StateUnspecified:  "unknown",
		a2a.StateWorking:      "working",
		a2a.StateCanceled:     "canceled",
	}
	for _, s := range append(append([]a2a.TaskState{}, a2a.AllStates...), a2a.StateUnknown, a2a.StateUnspecified) {
		b, err := c.EncodeResult(a2a.OpGetTask, &a2a.Result{Task: &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: s}}})
		require.NoError(t, err, s)
		schemacheck.Require(t, a2a.V01, "Task", b)
		if w, ok := want[s]; ok {
			assert.Contains(t, string(b), `"state":"`+w+`"`, s)
		}
	}
}

func TestV01EncodeEventsValidate(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	task := v01Task()
	msg := a2a.Message{TaskID: "t1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("bare")}}
	working := &a2a.Task{ID: "t1", ContextID: "s1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
	cases := []struct {
		name     string
		ev       a2a.Event
		def      string
		final    *bool
		pushDef  string
		fragment string
	}{
		{"status final", a2a.Event{Status: &a2a.StatusUpdate{TaskID: "t1", Final: true, Status: task.Status, Metadata: map[string]any{"x": "y"}}},
			"TaskStatusUpdateEvent", ptr(true), "TaskStatusUpdateEvent", `"final":true`},
		{"status not final", a2a.Event{Status: &a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: ts}}},
			"TaskStatusUpdateEvent", ptr(false), "TaskStatusUpdateEvent", `"final":false`},
		{"status terminal, final as given", a2a.Event{Status: &a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateFailed}}},
			"TaskStatusUpdateEvent", ptr(false), "TaskStatusUpdateEvent", `"state":"failed"`},
		{"artifact chunk", a2a.Event{Artifact: &a2a.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[0], Append: true}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"append":true`},
		{"artifact last", a2a.Event{Artifact: &a2a.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[1], LastChunk: true, Metadata: map[string]any{"c": 1.0}}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"index":1,"lastChunk":true`},
		{"artifact with a non-numeric id", a2a.Event{Artifact: &a2a.ArtifactUpdate{TaskID: "t1", Artifact: a2a.Artifact{ArtifactID: "x", Parts: allParts()}}},
			"TaskArtifactUpdateEvent", nil, "TaskArtifactUpdateEvent", `"index":0`},
		{"terminal task snapshot", a2a.Event{Task: task}, "TaskStatusUpdateEvent", ptr(true), "Task", `"state":"completed"`},
		{"first task event", a2a.Event{Task: working}, "TaskStatusUpdateEvent", ptr(false), "Task", `"state":"submitted"`},
		{"message", a2a.Event{Message: &msg}, "TaskStatusUpdateEvent", ptr(true), "Task", `"text":"bare"`},
	}
	for _, tc := range cases {
		b, err := c.EncodeEvent(tc.ev)
		require.NoError(t, err, tc.name)
		schemacheck.Require(t, a2a.V01, tc.def, b)
		schemacheck.Require(t, a2a.V01, "SendTaskStreamingResponse", envelope(b))
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
		schemacheck.Require(t, a2a.V01, tc.pushDef, p)
	}
	_, err := c.EncodeEvent(a2a.Event{})
	assert.Error(t, err)
}

func ptr[T any](v T) *T { return &v }

func TestV01EncodeErrorData(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	assert.Nil(t, c.EncodeErrorData(a2a.Errorf(a2a.CodeInternal, "x")))
	e := a2a.ErrInvalidParams("message.parts", "is required")
	data := c.EncodeErrorData(e)
	assert.JSONEq(t, `{"field":"message.parts"}`, string(data))
	schemacheck.Require(t, a2a.V01, "SendTaskResponse", a2a.EncodeRPCError(json.RawMessage(`1`), e, data))
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
	schemacheck.Require(t, a2a.V01, "TaskSendParams", []byte(params))
	for _, op := range []a2a.Op{a2a.OpSend, a2a.OpStream} {
		req, e := a2a.CodecFor(a2a.V01).DecodeParams(op, []byte(params))
		require.Nil(t, e)
		two := 2
		assert.Equal(t, &a2a.Request{Op: op, Dialect: a2a.V01, TaskID: "client-task",
			Message: &a2a.Message{TaskID: "client-task", ContextID: "sess", Role: a2a.RoleUser, Metadata: map[string]any{"k": "v"},
				Parts: []a2a.Part{
					a2a.TextPart("hi"),
					{Kind: a2a.PartFile, Raw: []byte("hi"), MediaType: "text/plain", Filename: "h.txt"},
					{Kind: a2a.PartFile, URL: "https://example.com/x"},
					{Kind: a2a.PartData, Data: map[string]any{"n": 1.0}},
				}},
			Config: a2a.SendConfig{HistoryLength: &two,
				PushConfig: &a2a.PushConfig{TaskID: "client-task", URL: "http://127.0.0.1:9/h", Token: "tok", AuthSchemes: []string{"Basic"}}},
			Metadata: map[string]any{"r": "m"},
		}, req)
		assert.Empty(t, req.Message.MessageID, "v0.1 has no message ids and none is made up")
		assert.False(t, req.Config.ReturnImmediately)
	}
}

func TestV01DecodeOtherOps(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	four := 4
	cases := []struct {
		op     a2a.Op
		params string
		want   a2a.Request
	}{
		{a2a.OpGetTask, `{"id":"t1","historyLength":4}`, a2a.Request{TaskID: "t1", HistoryLength: &four}},
		{a2a.OpSubscribe, `{"id":"t1","historyLength":4}`, a2a.Request{TaskID: "t1", HistoryLength: &four}},
		{a2a.OpCancelTask, `{"id":"t1","metadata":{"a":"b"}}`, a2a.Request{TaskID: "t1", Metadata: map[string]any{"a": "b"}}},
		{a2a.OpGetPushConfig, `{"id":"t1"}`, a2a.Request{TaskID: "t1"}},
		{a2a.OpSetPushConfig, `{"id":"t1","pushNotificationConfig":{"url":"http://127.0.0.1:9/h","token":"x"}}`,
			a2a.Request{TaskID: "t1", PushConfig: &a2a.PushConfig{TaskID: "t1", URL: "http://127.0.0.1:9/h", Token: "x"}}},
	}
	for _, tc := range cases {
		req, e := c.DecodeParams(tc.op, []byte(tc.params))
		require.Nil(t, e, "%s %s", tc.op, tc.params)
		want := tc.want
		want.Op, want.Dialect = tc.op, a2a.V01
		assert.Equal(t, &want, req, "%s %s", tc.op, tc.params)
	}
	for _, op := range []a2a.Op{a2a.OpListPushConfigs, a2a.OpDeletePush, a2a.OpExtendedCard, a2a.OpListTasks} {
		_, e := c.DecodeParams(op, []byte(`{"id":"t"}`))
		require.NotNil(t, e, op)
		assert.Equal(t, a2a.CodeMethodNotFound, e.Code, op)
	}
}

func TestV01DecodeBadParams(t *testing.T) {
	t.Parallel()
	const part = `{"type":"text","text":"x"}`
	send := func(msg string) string { return `{"id":"t","message":` + msg + `}` }
	requireBadParams(t, a2a.CodecFor(a2a.V01), []badParam{
		{"no params", a2a.OpSend, ``, "params"},
		{"missing id", a2a.OpSend, `{"message":{"role":"user","parts":[` + part + `]}}`, "id"},
		{"id number", a2a.OpSend, `{"id":1,"message":{"role":"user","parts":[` + part + `]}}`, "id"},
		{"missing message", a2a.OpSend, `{"id":"t"}`, "message"},
		{"message array", a2a.OpStream, send(`[]`), "message"},
		{"missing parts", a2a.OpSend, send(`{"role":"user"}`), "message.parts"},
		{"empty parts", a2a.OpSend, send(`{"role":"user","parts":[]}`), "message.parts"},
		{"bad part type", a2a.OpSend, send(`{"role":"user","parts":[{"type":"image"}]}`), "message.parts[0].type"},
		{"v0.3 part kind", a2a.OpSend, send(`{"role":"user","parts":[{"kind":"text","text":"x"}]}`), "message.parts[0].type"},
		{"file without content", a2a.OpSend, send(`{"role":"user","parts":[` + part + `,{"type":"file","file":{"name":"n"}}]}`), "message.parts[1].file"},
		{"data string", a2a.OpSend, send(`{"role":"user","parts":[{"type":"data","data":"x"}]}`), "message.parts[0].data"},
		{"bad role", a2a.OpSend, send(`{"role":"robot","parts":[` + part + `]}`), "message.role"},
		{"sessionId number", a2a.OpSend, `{"id":"t","sessionId":3,"message":{"role":"user","parts":[` + part + `]}}`, "sessionId"},
		{"push without url", a2a.OpSend, `{"id":"t","pushNotification":{"token":"x"},"message":{"role":"user","parts":[` + part + `]}}`, "pushNotification.url"},
		{"historyLength negative", a2a.OpSend, `{"id":"t","historyLength":-2,"message":{"role":"user","parts":[` + part + `]}}`, "historyLength"},
		{"get without id", a2a.OpGetTask, `{}`, "id"},
		{"resubscribe historyLength string", a2a.OpSubscribe, `{"id":"t","historyLength":"1"}`, "historyLength"},
		{"cancel id null", a2a.OpCancelTask, `{"id":null}`, "id"},
		{"push set without config", a2a.OpSetPushConfig, `{"id":"t"}`, "pushNotificationConfig"},
		{"push set v0.3 shape", a2a.OpSetPushConfig, `{"taskId":"t","pushNotificationConfig":{"url":"http://x"}}`, "id"},
		{"push set auth without schemes", a2a.OpSetPushConfig, `{"id":"t","pushNotificationConfig":{"url":"http://x","authentication":{"credentials":"c"}}}`, "pushNotificationConfig.authentication.schemes"},
		{"push get without id", a2a.OpGetPushConfig, `{"pushNotificationConfigId":"p"}`, "id"},
	})
}

func TestV01RoundTrip(t *testing.T) {
	t.Parallel()
	c := a2a.CodecFor(a2a.V01)
	dec, ok := c.(eventDecoder)
	require.True(t, ok)
	task := v01Task()

	b, err := c.EncodeResult(a2a.OpGetTask, &a2a.Result{Task: task})
	require.NoError(t, err)
	got, err := dec.DecodeEvent(b)
	require.NoError(t, err)
	assert.Equal(t, a2a.Event{Task: task}, got)

	for _, ev := range []a2a.Event{
		{Status: &a2a.StatusUpdate{TaskID: "t1", Final: true, Status: task.Status, Metadata: map[string]any{"x": "y"}}},
		{Status: &a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateWorking}}},
		{Artifact: &a2a.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[0], Append: true, LastChunk: true, Metadata: map[string]any{"m": "d"}}},
		{Artifact: &a2a.ArtifactUpdate{TaskID: "t1", Artifact: task.Artifacts[1]}},
	} {
		b, err := c.EncodeEvent(ev)
		require.NoError(t, err)
		got, err := dec.DecodeEvent(b)
		require.NoError(t, err)
		assert.Equal(t, ev, got, string(b))
	}

	// A message sent as tasks/send params comes back with the task and
	// session ids the params carried.
	msg := a2a.Message{TaskID: "t1", ContextID: "s1", Role: a2a.RoleUser, Parts: allParts(), Metadata: map[string]any{"k": "v"}}
	wire, err := c.EncodePush(a2a.Event{Task: &a2a.Task{ID: "t1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: &msg}}})
	require.NoError(t, err)
	var w struct {
		Status struct {
			Message json.RawMessage `json:"message"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal(wire, &w))
	params := `{"id":"t1","sessionId":"s1","message":` + string(w.Status.Message) + `}`
	schemacheck.Require(t, a2a.V01, "TaskSendParams", []byte(params))
	req, e := c.DecodeParams(a2a.OpSend, []byte(params))
	require.Nil(t, e)
	assert.Equal(t, &msg, req.Message)
}

func TestV01DecodeEventErrors(t *testing.T) {
	t.Parallel()
	dec := a2a.CodecFor(a2a.V01).(eventDecoder)
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
