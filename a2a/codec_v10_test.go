package a2a_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/a2amock/a2amock/a2a"
	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func v10() a2a.Codec { return a2a.CodecFor(a2a.V10) }

var v10When = time.Date(2026, 3, 12, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))

func v10AllParts() []a2a.Part {
	return []a2a.Part{
		{Kind: a2a.PartText, Text: "hello", Metadata: map[string]any{"lang": "en"}},
		{Kind: a2a.PartFile, Raw: []byte("\x00\x01binary"), MediaType: "application/octet-stream", Filename: "b.bin"},
		{Kind: a2a.PartFile, URL: "https://files.example/x.pdf", MediaType: "application/pdf", Filename: "x.pdf"},
		{Kind: a2a.PartData, Data: map[string]any{"answer": 42.0, "kind": "not a discriminator"}},
		{Kind: a2a.PartData, Data: []any{"a", 1.0}},
		{Kind: a2a.PartFile, Raw: []byte{}},
	}
}

func v10Task() *a2a.Task {
	return &a2a.Task{
		ID:        "task-1",
		ContextID: "ctx-1",
		Status: a2a.TaskStatus{
			State:     a2a.StateInputRequired,
			Timestamp: v10When,
			Message: &a2a.Message{MessageID: "m-2", Role: a2a.RoleAgent, TaskID: "task-1", ContextID: "ctx-1",
				Parts: []a2a.Part{a2a.TextPart("Which city?")}},
		},
		History: []a2a.Message{
			{MessageID: "m-1", Role: a2a.RoleUser, ContextID: "ctx-1", Parts: v10AllParts(),
				Extensions: []string{"https://ext.example/v1"}, ReferenceTaskIDs: []string{"task-0"},
				Metadata: map[string]any{"k": "v"}},
		},
		Artifacts: []a2a.Artifact{
			{ArtifactID: "a-1", Name: "report", Description: "the report", Parts: v10AllParts(),
				Metadata: map[string]any{"pages": 3.0}, Extensions: []string{"https://ext.example/v1"}},
		},
		Metadata: map[string]any{"final": true},
	}
}

func TestV10Registered(t *testing.T) {
	t.Parallel()
	c := v10()
	require.NotNil(t, c)
	assert.Equal(t, a2a.V10, c.Dialect())
	want := map[string]a2a.Op{
		"SendMessage": a2a.OpSend, "SendStreamingMessage": a2a.OpStream, "GetTask": a2a.OpGetTask,
		"ListTasks": a2a.OpListTasks, "CancelTask": a2a.OpCancelTask, "SubscribeToTask": a2a.OpSubscribe,
		"CreateTaskPushNotificationConfig": a2a.OpSetPushConfig, "GetTaskPushNotificationConfig": a2a.OpGetPushConfig,
		"ListTaskPushNotificationConfigs": a2a.OpListPushConfigs, "DeleteTaskPushNotificationConfig": a2a.OpDeletePush,
		"GetExtendedAgentCard": a2a.OpExtendedCard,
	}
	assert.Equal(t, want, c.Methods())
	for name, op := range want {
		d, got, ok := a2a.LookupMethod(name)
		require.True(t, ok, name)
		assert.Equal(t, a2a.V10, d)
		assert.Equal(t, op, got)
	}
}

func TestV10States(t *testing.T) {
	t.Parallel()
	want := map[a2a.TaskState]string{
		a2a.StateSubmitted: "TASK_STATE_SUBMITTED", a2a.StateWorking: "TASK_STATE_WORKING",
		a2a.StateInputRequired: "TASK_STATE_INPUT_REQUIRED", a2a.StateAuthRequired: "TASK_STATE_AUTH_REQUIRED",
		a2a.StateCompleted: "TASK_STATE_COMPLETED", a2a.StateFailed: "TASK_STATE_FAILED",
		a2a.StateCanceled: "TASK_STATE_CANCELED", a2a.StateRejected: "TASK_STATE_REJECTED",
	}
	for s, name := range want {
		assert.Equal(t, name, a2a.StateToV10(s))
		got, ok := a2a.StateFromV10(name)
		assert.True(t, ok)
		assert.Equal(t, s, got)
	}
	assert.Equal(t, "TASK_STATE_UNSPECIFIED", a2a.StateToV10(a2a.StateUnknown))
	assert.Equal(t, "TASK_STATE_UNSPECIFIED", a2a.StateToV10(a2a.StateUnspecified))
	for in, s := range map[string]a2a.TaskState{"2": a2a.StateWorking, "5": a2a.StateCanceled, "8": a2a.StateAuthRequired,
		"0": a2a.StateUnspecified, "TASK_STATE_UNSPECIFIED": a2a.StateUnspecified} {
		got, ok := a2a.StateFromV10(in)
		assert.True(t, ok, in)
		assert.Equal(t, s, got, in)
	}
	for _, bad := range []string{"working", "TASK_STATE_CANCELLED", "9", "-1", ""} {
		_, ok := a2a.StateFromV10(bad)
		assert.False(t, ok, bad)
	}
}

func TestV10EncodeTaskGolden(t *testing.T) {
	t.Parallel()
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: v10When}}
	b, err := v10().EncodeResult(a2a.OpGetTask, &a2a.Result{Task: task})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-03-12T08:30:15.123Z"}}`, string(b))
	schemacheck.Require(t, a2a.V10, "Task", b)

	b, err = v10().EncodeResult(a2a.OpSend, &a2a.Result{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleAgent,
		Parts: []a2a.Part{a2a.TextPart("hi"), {Kind: a2a.PartFile, Raw: []byte("hi")}, {Kind: a2a.PartData}}}})
	require.NoError(t, err)
	assert.Equal(t, `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"},{"raw":"aGk="},{"data":{}}]}}`, string(b))
	schemacheck.Require(t, a2a.V10, "SendMessageResponse", b)
}

func TestV10EncodeValidates(t *testing.T) {
	t.Parallel()
	c := v10()
	task := v10Task()
	msg := &task.History[0]
	cases := []struct {
		name string
		def  string
		enc  func() ([]byte, error)
	}{
		{"get task", "Task", func() ([]byte, error) { return c.EncodeResult(a2a.OpGetTask, &a2a.Result{Task: task}) }},
		{"cancel task", "Task", func() ([]byte, error) { return c.EncodeResult(a2a.OpCancelTask, &a2a.Result{Task: task}) }},
		{"send task", "SendMessageResponse", func() ([]byte, error) { return c.EncodeResult(a2a.OpSend, &a2a.Result{Task: task}) }},
		{"send message", "SendMessageResponse", func() ([]byte, error) { return c.EncodeResult(a2a.OpSend, &a2a.Result{Message: msg}) }},
		{"event task", "StreamResponse", func() ([]byte, error) { return c.EncodeEvent(a2a.Event{Task: task}) }},
		{"event message", "StreamResponse", func() ([]byte, error) { return c.EncodeEvent(a2a.Event{Message: msg}) }},
		{"event status", "StreamResponse", func() ([]byte, error) {
			return c.EncodeEvent(a2a.Event{Status: &a2a.StatusUpdate{TaskID: "task-1", ContextID: "ctx-1", Final: true,
				Status: a2a.TaskStatus{State: a2a.StateCompleted, Timestamp: v10When}, Metadata: map[string]any{"x": 1.0}}})
		}},
		{"event artifact", "StreamResponse", func() ([]byte, error) {
			return c.EncodeEvent(a2a.Event{Artifact: &a2a.ArtifactUpdate{TaskID: "task-1", ContextID: "ctx-1",
				Artifact: task.Artifacts[0], Append: true, LastChunk: true}})
		}},
		{"push status", "StreamResponse", func() ([]byte, error) {
			return c.EncodePush(a2a.Event{Status: &a2a.StatusUpdate{TaskID: "task-1", ContextID: "ctx-1",
				Status: a2a.TaskStatus{State: a2a.StateFailed}}})
		}},
		{"push task", "StreamResponse", func() ([]byte, error) { return c.EncodePush(a2a.Event{Task: task}) }},
		{"list tasks", "ListTasksResponse", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpListTasks, &a2a.Result{Page: &a2a.TaskPage{Tasks: []*a2a.Task{task, task},
				NextPageToken: "next", PageSize: 2, TotalSize: 7}})
		}},
		{"list tasks empty", "ListTasksResponse", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpListTasks, &a2a.Result{Page: &a2a.TaskPage{PageSize: 50}})
		}},
		{"set push", "TaskPushNotificationConfig", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpSetPushConfig, &a2a.Result{PushConfig: &a2a.PushConfig{ID: "p1", TaskID: "task-1",
				URL: "https://hook.example/a2a", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "secret", Tenant: "acme"}})
		}},
		{"get push", "TaskPushNotificationConfig", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpGetPushConfig, &a2a.Result{PushConfig: &a2a.PushConfig{ID: "p1", TaskID: "task-1", URL: "https://hook.example/a2a"}})
		}},
		{"list push", "ListTaskPushNotificationConfigsResponse", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpListPushConfigs, &a2a.Result{PushConfigs: []a2a.PushConfig{
				{ID: "p1", TaskID: "task-1", URL: "https://hook.example/1"}, {ID: "p2", TaskID: "task-1", URL: "https://hook.example/2", AuthSchemes: []string{"Basic"}}}})
		}},
		{"list push empty", "ListTaskPushNotificationConfigsResponse", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpListPushConfigs, &a2a.Result{})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := tc.enc()
			require.NoError(t, err)
			schemacheck.Require(t, a2a.V10, tc.def, b)
			assert.NotContains(t, string(b), `"final":false`)
		})
	}
}

func TestV10EncodeShapes(t *testing.T) {
	t.Parallel()
	c := v10()
	b, err := c.EncodeEvent(a2a.Event{Status: &a2a.StatusUpdate{TaskID: "t", ContextID: "c", Final: true,
		Status: a2a.TaskStatus{State: a2a.StateCompleted}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`, string(b))

	b, err = c.EncodeResult(a2a.OpListTasks, &a2a.Result{Page: &a2a.TaskPage{PageSize: 50}})
	require.NoError(t, err)
	assert.Equal(t, `{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}`, string(b))

	b, err = c.EncodeResult(a2a.OpListPushConfigs, &a2a.Result{})
	require.NoError(t, err)
	assert.Equal(t, `{"configs":[],"nextPageToken":""}`, string(b))

	b, err = c.EncodeResult(a2a.OpSetPushConfig, &a2a.Result{PushConfig: &a2a.PushConfig{ID: "p", TaskID: "t",
		URL: "https://h.example/", AuthSchemes: []string{"Bearer", "Basic"}, AuthCredentials: "s"}})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"p","taskId":"t","url":"https://h.example/","authentication":{"scheme":"Bearer","credentials":"s"}}`, string(b))

	b, err = c.EncodeResult(a2a.OpDeletePush, &a2a.Result{Empty: true})
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))

	card := []byte(`{"name":"x"}`)
	b, err = c.EncodeResult(a2a.OpExtendedCard, &a2a.Result{Card: card})
	require.NoError(t, err)
	assert.Equal(t, card, b)

	// Task metadata and data parts may contain "kind"/"final" keys: they are
	// the client's data, not discriminators.
	b, err = c.EncodeResult(a2a.OpGetTask, &a2a.Result{Task: v10Task()})
	require.NoError(t, err)
	var generic map[string]any
	require.NoError(t, json.Unmarshal(b, &generic))
	assert.NotContains(t, generic, "kind")
	assert.Equal(t, map[string]any{"final": true}, generic["metadata"])
}

func TestV10EncodeErrors(t *testing.T) {
	t.Parallel()
	c := v10()
	bad := []struct {
		name string
		enc  func() ([]byte, error)
	}{
		{"nil result", func() ([]byte, error) { return c.EncodeResult(a2a.OpGetTask, nil) }},
		{"get without task", func() ([]byte, error) { return c.EncodeResult(a2a.OpGetTask, &a2a.Result{}) }},
		{"send without payload", func() ([]byte, error) { return c.EncodeResult(a2a.OpSend, &a2a.Result{}) }},
		{"send with both", func() ([]byte, error) {
			return c.EncodeResult(a2a.OpSend, &a2a.Result{Task: v10Task(), Message: &v10Task().History[0]})
		}},
		{"list without page", func() ([]byte, error) { return c.EncodeResult(a2a.OpListTasks, &a2a.Result{}) }},
		{"push without config", func() ([]byte, error) { return c.EncodeResult(a2a.OpGetPushConfig, &a2a.Result{}) }},
		{"card without bytes", func() ([]byte, error) { return c.EncodeResult(a2a.OpExtendedCard, &a2a.Result{}) }},
		{"stream op", func() ([]byte, error) { return c.EncodeResult(a2a.OpStream, &a2a.Result{Task: v10Task()}) }},
		{"empty event", func() ([]byte, error) { return c.EncodeEvent(a2a.Event{}) }},
		{"two-member event", func() ([]byte, error) {
			return c.EncodeEvent(a2a.Event{Task: v10Task(), Message: &v10Task().History[0]})
		}},
		{"bad part kind", func() ([]byte, error) {
			return c.EncodeEvent(a2a.Event{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: "video"}}}})
		}},
	}
	for _, tc := range bad {
		_, err := tc.enc()
		assert.Error(t, err, tc.name)
	}
}

func TestV10ErrorData(t *testing.T) {
	t.Parallel()
	c := v10()
	assert.Nil(t, c.EncodeErrorData(nil))
	assert.Nil(t, c.EncodeErrorData(a2a.ErrInvalidParams("id", "is required")))
	assert.Nil(t, c.EncodeErrorData(a2a.Errorf(a2a.CodeInternal, "boom")))

	b := c.EncodeErrorData(a2a.ErrTaskNotFound("t-9").With("attempt", 2))
	assert.JSONEq(t, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND",
		"domain":"a2a-protocol.org","metadata":{"taskId":"t-9","attempt":"2"}}]`, string(b))

	b = c.EncodeErrorData(a2a.Errorf(a2a.CodeVersionNotSupported, "no"))
	assert.Equal(t, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]`, string(b))

	rpc := a2a.EncodeRPCError(json.RawMessage(`1`), a2a.ErrTaskNotFound("t"), c.EncodeErrorData(a2a.ErrTaskNotFound("t")))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found: t","data":[
		{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t"}}]}}`, string(rpc))
}

func TestV10RESTError(t *testing.T) {
	t.Parallel()
	status, body := a2a.EncodeRESTError(a2a.ErrTaskNotFound("t-1"))
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found: t-1","details":[`+
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t-1"}}]}}`, string(body))

	status, body = a2a.EncodeRESTError(a2a.ErrInvalidParams("id", "is required"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"invalid params: id: is required"}}`, string(body))

	status, body = a2a.EncodeRESTError(a2a.Errorf(a2a.CodeTaskNotCancelable, "done"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), `"status":"FAILED_PRECONDITION"`)
	assert.Contains(t, string(body), `"reason":"TASK_NOT_CANCELABLE"`)

	e := a2a.Errorf(a2a.CodeInternal, "slow down")
	e.HTTPStatus = http.StatusTooManyRequests
	status, body = a2a.EncodeRESTError(e)
	assert.Equal(t, http.StatusTooManyRequests, status)
	assert.Contains(t, string(body), `"status":"RESOURCE_EXHAUSTED"`)

	status, body = a2a.EncodeRESTError(nil)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Contains(t, string(body), `"status":"INTERNAL"`)
}

// TestV10RoundTrip encodes canonical values and decodes them back as request
// params, as a client echoing them would send them.
func TestV10RoundTrip(t *testing.T) {
	t.Parallel()
	c := v10()
	msg := v10Task().History[0]
	b, err := c.EncodeEvent(a2a.Event{Message: &msg})
	require.NoError(t, err)
	params := `{"tenant":"acme","metadata":{"trace":"x"},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":3,` +
		`"returnImmediately":true,"taskPushNotificationConfig":{"url":"https://hook.example/h","token":"tok","authentication":{"scheme":"Bearer","credentials":"c"}}},` +
		`"message":` + string(b[len(`{"message":`):len(b)-1]) + `}`
	schemacheck.Require(t, a2a.V10, "SendMessageRequest", []byte(params))
	req, e := c.DecodeParams(a2a.OpSend, []byte(params))
	require.Nil(t, e)
	assert.Equal(t, a2a.OpSend, req.Op)
	assert.Equal(t, a2a.V10, req.Dialect)
	assert.Equal(t, "acme", req.Tenant)
	assert.Equal(t, map[string]any{"trace": "x"}, req.Metadata)
	assert.Equal(t, &msg, req.Message)
	three := 3
	assert.Equal(t, a2a.SendConfig{AcceptedOutputModes: []string{"text/plain"}, HistoryLength: &three, ReturnImmediately: true,
		PushConfig: &a2a.PushConfig{URL: "https://hook.example/h", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "c"}}, req.Config)

	pc := a2a.PushConfig{ID: "p1", TaskID: "task-1", URL: "https://hook.example/a2a", Token: "tok",
		AuthSchemes: []string{"Basic"}, AuthCredentials: "dXNlcjpwdw==", Tenant: "acme"}
	b, err = c.EncodeResult(a2a.OpSetPushConfig, &a2a.Result{PushConfig: &pc})
	require.NoError(t, err)
	req, e = c.DecodeParams(a2a.OpSetPushConfig, b)
	require.Nil(t, e)
	assert.Equal(t, &pc, req.PushConfig)
	assert.Equal(t, "task-1", req.TaskID)
	assert.Equal(t, "p1", req.PushConfigID)
	assert.Equal(t, "acme", req.Tenant)
}

func TestV10DecodeOK(t *testing.T) {
	t.Parallel()
	c := v10()
	two, zero := 2, 0
	after := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		op     a2a.Op
		params string
		want   a2a.Request
	}{
		{"stream numeric role", a2a.OpStream, `{"message":{"messageId":"m","role":1,"parts":[{"url":"https://x.example/f","mediaType":"text/html"}]}}`,
			a2a.Request{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser,
				Parts: []a2a.Part{{Kind: a2a.PartFile, URL: "https://x.example/f", MediaType: "text/html"}}}}},
		{"send unknown keys ignored", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_AGENT","kind":"message","parts":[{"data":null,"text":"t"}]},"extra":1}`,
			a2a.Request{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("t")}}}},
		{"send unpadded url-safe raw", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"-_8"}]}}`,
			a2a.Request{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartFile, Raw: []byte{0xfb, 0xff}}}}}},
		{"send historyLength 0 as string", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":"s"}]},"configuration":{"historyLength":"0"}}`,
			a2a.Request{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartData, Data: "s"}}},
				Config: a2a.SendConfig{HistoryLength: &zero}}},
		{"get", a2a.OpGetTask, `{"tenant":"t","id":"task-1","historyLength":2}`,
			a2a.Request{Tenant: "t", TaskID: "task-1", HistoryLength: &two}},
		{"cancel", a2a.OpCancelTask, `{"id":"task-1","metadata":{"why":"bored"}}`,
			a2a.Request{TaskID: "task-1", Metadata: map[string]any{"why": "bored"}}},
		{"subscribe", a2a.OpSubscribe, `{"id":"task-1"}`, a2a.Request{TaskID: "task-1"}},
		{"list defaults", a2a.OpListTasks, `{}`, a2a.Request{List: a2a.ListTasksQuery{PageSize: 50}}},
		{"list null params", a2a.OpListTasks, `null`, a2a.Request{List: a2a.ListTasksQuery{PageSize: 50}}},
		{"list absent params", a2a.OpListTasks, ``, a2a.Request{List: a2a.ListTasksQuery{PageSize: 50}}},
		{"list all", a2a.OpListTasks, `{"tenant":"x","contextId":"c","status":"TASK_STATE_WORKING","pageSize":100,"pageToken":"p",
			"historyLength":0,"statusTimestampAfter":"2026-01-02T04:04:05+01:00","includeArtifacts":true}`,
			a2a.Request{Tenant: "x", List: a2a.ListTasksQuery{ContextID: "c", State: a2a.StateWorking, PageSize: 100, PageToken: "p",
				HistoryLength: &zero, StatusTimestampAfter: after, IncludeArtifacts: true}}},
		{"list numeric state", a2a.OpListTasks, `{"status":6}`,
			a2a.Request{List: a2a.ListTasksQuery{State: a2a.StateInputRequired, PageSize: 50}}},
		{"get push", a2a.OpGetPushConfig, `{"taskId":"t","id":"p"}`, a2a.Request{TaskID: "t", PushConfigID: "p"}},
		{"delete push", a2a.OpDeletePush, `{"tenant":"a","taskId":"t","id":"p"}`, a2a.Request{Tenant: "a", TaskID: "t", PushConfigID: "p"}},
		{"list push", a2a.OpListPushConfigs, `{"taskId":"t","pageSize":5,"pageToken":"n"}`,
			a2a.Request{TaskID: "t", List: a2a.ListTasksQuery{PageSize: 5, PageToken: "n"}}},
		{"set push minimal", a2a.OpSetPushConfig, `{"taskId":"t","url":"http://127.0.0.1:9/h"}`,
			a2a.Request{TaskID: "t", PushConfig: &a2a.PushConfig{TaskID: "t", URL: "http://127.0.0.1:9/h"}}},
		{"extended card", a2a.OpExtendedCard, `{"tenant":"a"}`, a2a.Request{Tenant: "a"}},
		{"extended card no params", a2a.OpExtendedCard, `null`, a2a.Request{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, e := c.DecodeParams(tc.op, []byte(tc.params))
			require.Nil(t, e)
			tc.want.Op, tc.want.Dialect = tc.op, a2a.V10
			if !tc.want.List.StatusTimestampAfter.IsZero() {
				assert.True(t, tc.want.List.StatusTimestampAfter.Equal(req.List.StatusTimestampAfter))
				req.List.StatusTimestampAfter = tc.want.List.StatusTimestampAfter
			}
			assert.Equal(t, &tc.want, req)
		})
	}
}

func TestV10DecodeErrors(t *testing.T) {
	t.Parallel()
	c := v10()
	const okMsg = `"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}]}`
	cases := []struct {
		name   string
		op     a2a.Op
		params string
		code   int
		msg    string
	}{
		{"send no params", a2a.OpSend, ``, a2a.CodeInvalidParams, "invalid params: message: is required"},
		{"send null params", a2a.OpSend, `null`, a2a.CodeInvalidParams, "invalid params: message: is required"},
		{"send array params", a2a.OpSend, `[1]`, a2a.CodeInvalidParams, "invalid params: params: must be an object"},
		{"send broken json", a2a.OpSend, `{"message":`, a2a.CodeParseError, "parse error: params are not valid JSON: unexpected end of JSON input"},
		{"send message null", a2a.OpSend, `{"message":null}`, a2a.CodeInvalidParams, "invalid params: message: is required"},
		{"send message string", a2a.OpSend, `{"message":"hi"}`, a2a.CodeInvalidParams, "invalid params: message: must be an object, not string"},
		{"no messageId", a2a.OpSend, `{"message":{"role":"ROLE_USER","parts":[{"text":"a"}]}}`, a2a.CodeInvalidParams,
			"invalid params: message.messageId: is required"},
		{"no role", a2a.OpSend, `{"message":{"messageId":"m","parts":[{"text":"a"}]}}`, a2a.CodeInvalidParams,
			"invalid params: message.role: is required"},
		{"lowercase role", a2a.OpSend, `{"message":{"messageId":"m","role":"user","parts":[{"text":"a"}]}}`, a2a.CodeInvalidParams,
			`invalid params: message.role: must be "ROLE_USER" or "ROLE_AGENT", not "user"`},
		{"numeric role 3", a2a.OpSend, `{"message":{"messageId":"m","role":3,"parts":[{"text":"a"}]}}`, a2a.CodeInvalidParams,
			`invalid params: message.role: must be "ROLE_USER" or "ROLE_AGENT", not 3`},
		{"unspecified role", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_UNSPECIFIED","parts":[{"text":"a"}]}}`, a2a.CodeInvalidParams,
			"invalid params: message.role: is required"},
		{"no parts", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER"}}`, a2a.CodeInvalidParams,
			"invalid params: message.parts: is required"},
		{"empty parts", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}`, a2a.CodeInvalidParams,
			"invalid params: message.parts: must not be empty"},
		{"part without content", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},{"mediaType":"text/plain"}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[1]: must have one of text, raw, url, data"},
		{"v0.3 part", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"kind":"text","text2":"a"}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[0]: must have one of text, raw, url, data"},
		{"part with two", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","url":"https://x"}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[0]: must have only one of text, raw, url, data, not text and url"},
		{"bad base64", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"!!"}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[0].raw: must be base64"},
		{"empty url", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":""}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[0].url: must not be empty"},
		{"text not string", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},{"text":"b"},{"text":7}]}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts[2].text: must be a string, not number"},
		{"parts not array", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":{"text":"a"}}}`,
			a2a.CodeInvalidParams, "invalid params: message.parts: must be an array, not object"},
		{"extension not string", a2a.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}],"extensions":["x",true]}}`,
			a2a.CodeInvalidParams, "invalid params: message.extensions[1]: must be a string, not bool"},
		{"historyLength negative", a2a.OpSend, `{` + okMsg + `,"configuration":{"historyLength":-1}}`,
			a2a.CodeInvalidParams, "invalid params: configuration.historyLength: must not be negative"},
		{"historyLength fraction", a2a.OpSend, `{` + okMsg + `,"configuration":{"historyLength":1.5}}`,
			a2a.CodeInvalidParams, "invalid params: configuration.historyLength: must be an integer, not number 1.5"},
		{"historyLength word", a2a.OpSend, `{` + okMsg + `,"configuration":{"historyLength":"all"}}`,
			a2a.CodeInvalidParams, `invalid params: configuration.historyLength: must be an integer, not string "all"`},
		{"returnImmediately string", a2a.OpSend, `{` + okMsg + `,"configuration":{"returnImmediately":"yes"}}`,
			a2a.CodeInvalidParams, "invalid params: configuration.returnImmediately: must be a boolean, not string"},
		{"inline push without url", a2a.OpSend, `{` + okMsg + `,"configuration":{"taskPushNotificationConfig":{"token":"t"}}}`,
			a2a.CodeInvalidParams, "invalid params: configuration.taskPushNotificationConfig.url: is required"},
		{"get no id", a2a.OpGetTask, `{"historyLength":1}`, a2a.CodeInvalidParams, "invalid params: id: is required"},
		{"get null", a2a.OpGetTask, `null`, a2a.CodeInvalidParams, "invalid params: id: is required"},
		{"get id number", a2a.OpGetTask, `{"id":5}`, a2a.CodeInvalidParams, "invalid params: id: must be a string, not number"},
		{"get negative history", a2a.OpGetTask, `{"id":"t","historyLength":-2}`, a2a.CodeInvalidParams,
			"invalid params: historyLength: must not be negative"},
		{"cancel no id", a2a.OpCancelTask, `{}`, a2a.CodeInvalidParams, "invalid params: id: is required"},
		{"subscribe empty id", a2a.OpSubscribe, `{"id":""}`, a2a.CodeInvalidParams, "invalid params: id: is required"},
		{"list page size big", a2a.OpListTasks, `{"pageSize":101}`, a2a.CodeInvalidParams,
			"invalid params: pageSize: must be between 1 and 100, not 101"},
		{"list page size negative", a2a.OpListTasks, `{"pageSize":-1}`, a2a.CodeInvalidParams,
			"invalid params: pageSize: must be between 1 and 100, not -1"},
		{"list bad state", a2a.OpListTasks, `{"status":"working"}`, a2a.CodeInvalidParams,
			`invalid params: status: must be a task state such as "TASK_STATE_WORKING", not "working"`},
		{"list bad time", a2a.OpListTasks, `{"statusTimestampAfter":"yesterday"}`, a2a.CodeInvalidParams,
			`invalid params: statusTimestampAfter: must be an RFC 3339 timestamp, not "yesterday"`},
		{"list includeArtifacts", a2a.OpListTasks, `{"includeArtifacts":1}`, a2a.CodeInvalidParams,
			"invalid params: includeArtifacts: must be a boolean, not number"},
		{"set push no task", a2a.OpSetPushConfig, `{"url":"https://h.example/"}`, a2a.CodeInvalidParams, "invalid params: taskId: is required"},
		{"set push no url", a2a.OpSetPushConfig, `{"taskId":"t"}`, a2a.CodeInvalidParams, "invalid params: url: is required"},
		{"set push relative url", a2a.OpSetPushConfig, `{"taskId":"t","url":"/hook"}`, a2a.CodeInvalidParams,
			`invalid params: url: must be an absolute http(s) URL, not "/hook"`},
		{"set push no scheme", a2a.OpSetPushConfig, `{"taskId":"t","url":"https://h.example/","authentication":{"credentials":"c"}}`,
			a2a.CodeInvalidParams, "invalid params: authentication.scheme: is required"},
		{"get push no id", a2a.OpGetPushConfig, `{"taskId":"t"}`, a2a.CodeInvalidParams, "invalid params: id: is required"},
		{"delete push no task", a2a.OpDeletePush, `{"id":"p"}`, a2a.CodeInvalidParams, "invalid params: taskId: is required"},
		{"list push no task", a2a.OpListPushConfigs, `null`, a2a.CodeInvalidParams, "invalid params: taskId: is required"},
		{"list push negative", a2a.OpListPushConfigs, `{"taskId":"t","pageSize":-3}`, a2a.CodeInvalidParams,
			"invalid params: pageSize: must not be negative"},
		{"card tenant number", a2a.OpExtendedCard, `{"tenant":1}`, a2a.CodeInvalidParams, "invalid params: tenant: must be a string, not number"},
		{"unknown op", a2a.Op("teleport"), `{}`, a2a.CodeMethodNotFound, `method not found: "teleport" is not a v1.0 operation`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, e := c.DecodeParams(tc.op, []byte(tc.params))
			require.NotNil(t, e, "decoded %+v", req)
			assert.Nil(t, req)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.msg, e.Message)
		})
	}
}

func BenchmarkV10DecodeSend(b *testing.B) {
	c := v10()
	params := []byte(`{"message":{"messageId":"9f1c","role":"ROLE_USER","contextId":"ctx","parts":[{"text":"hello there"},{"data":{"a":1,"b":[true,null]}}]},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":10}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := c.DecodeParams(a2a.OpSend, params); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkV10EncodeTask(b *testing.B) {
	c := v10()
	res := &a2a.Result{Task: v10Task()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(a2a.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}
