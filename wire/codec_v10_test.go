package wire_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func v10() wire.Codec { return codecs.For(wire.V10) }

var v10When = time.Date(2026, 3, 12, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))

func v10AllParts() []wire.Part {
	return []wire.Part{
		{Kind: wire.PartText, Text: "hello", Metadata: map[string]any{"lang": "en"}},
		{Kind: wire.PartFile, Raw: []byte("\x00\x01binary"), MediaType: "application/octet-stream", Filename: "b.bin"},
		{Kind: wire.PartFile, URL: "https://files.example/x.pdf", MediaType: "application/pdf", Filename: "x.pdf"},
		{Kind: wire.PartData, Data: map[string]any{"answer": 42.0, "kind": "not a discriminator"}},
		{Kind: wire.PartData, Data: []any{"a", 1.0}},
		{Kind: wire.PartFile, Raw: []byte{}},
	}
}

func v10Task() *wire.Task {
	return &wire.Task{
		ID:        "task-1",
		ContextID: "ctx-1",
		Status: wire.TaskStatus{
			State:     wire.StateInputRequired,
			Timestamp: v10When,
			Message: &wire.Message{MessageID: "m-2", Role: wire.RoleAgent, TaskID: "task-1", ContextID: "ctx-1",
				Parts: []wire.Part{wire.TextPart("Which city?")}},
		},
		History: []wire.Message{
			{MessageID: "m-1", Role: wire.RoleUser, ContextID: "ctx-1", Parts: v10AllParts(),
				Extensions: []string{"https://ext.example/v1"}, ReferenceTaskIDs: []string{"task-0"},
				Metadata: map[string]any{"k": "v"}},
		},
		Artifacts: []wire.Artifact{
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
	assert.Equal(t, wire.V10, c.Dialect())
	want := map[string]wire.Op{
		"SendMessage": wire.OpSend, "SendStreamingMessage": wire.OpStream, "GetTask": wire.OpGetTask,
		"ListTasks": wire.OpListTasks, "CancelTask": wire.OpCancelTask, "SubscribeToTask": wire.OpSubscribe,
		"CreateTaskPushNotificationConfig": wire.OpSetPushConfig, "GetTaskPushNotificationConfig": wire.OpGetPushConfig,
		"ListTaskPushNotificationConfigs": wire.OpListPushConfigs, "DeleteTaskPushNotificationConfig": wire.OpDeletePush,
		"GetExtendedAgentCard": wire.OpExtendedCard,
	}
	assert.Equal(t, want, c.Methods())
	for name, op := range want {
		d, got, ok := wire.LookupMethod(name)
		require.True(t, ok, name)
		assert.Equal(t, wire.V10, d)
		assert.Equal(t, op, got)
	}
}

func TestV10States(t *testing.T) {
	t.Parallel()
	want := map[wire.TaskState]string{
		wire.StateSubmitted: "TASK_STATE_SUBMITTED", wire.StateWorking: "TASK_STATE_WORKING",
		wire.StateInputRequired: "TASK_STATE_INPUT_REQUIRED", wire.StateAuthRequired: "TASK_STATE_AUTH_REQUIRED",
		wire.StateCompleted: "TASK_STATE_COMPLETED", wire.StateFailed: "TASK_STATE_FAILED",
		wire.StateCanceled: "TASK_STATE_CANCELED", wire.StateRejected: "TASK_STATE_REJECTED",
	}
	for s, name := range want {
		assert.Equal(t, name, wire.StateToV10(s))
		got, ok := wire.StateFromV10(name)
		assert.True(t, ok)
		assert.Equal(t, s, got)
	}
	assert.Equal(t, "TASK_STATE_UNSPECIFIED", wire.StateToV10(wire.StateUnknown))
	assert.Equal(t, "TASK_STATE_UNSPECIFIED", wire.StateToV10(wire.StateUnspecified))
	for in, s := range map[string]wire.TaskState{"2": wire.StateWorking, "5": wire.StateCanceled, "8": wire.StateAuthRequired,
		"0": wire.StateUnspecified, "TASK_STATE_UNSPECIFIED": wire.StateUnspecified} {
		got, ok := wire.StateFromV10(in)
		assert.True(t, ok, in)
		assert.Equal(t, s, got, in)
	}
	for _, bad := range []string{"working", "TASK_STATE_CANCELLED", "9", "-1", ""} {
		_, ok := wire.StateFromV10(bad)
		assert.False(t, ok, bad)
	}
}

func TestV10EncodeTaskGolden(t *testing.T) {
	t.Parallel()
	task := &wire.Task{ID: "t1", ContextID: "c1", Status: wire.TaskStatus{State: wire.StateWorking, Timestamp: v10When}}
	b, err := v10().EncodeResult(wire.OpGetTask, &wire.Result{Task: task})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-03-12T08:30:15.123Z"}}`, string(b))
	schemacheck.Require(t, wire.V10, "Task", b)

	b, err = v10().EncodeResult(wire.OpSend, &wire.Result{Message: &wire.Message{MessageID: "m", Role: wire.RoleAgent,
		Parts: []wire.Part{wire.TextPart("hi"), {Kind: wire.PartFile, Raw: []byte("hi")}, {Kind: wire.PartData}}}})
	require.NoError(t, err)
	assert.Equal(t, `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"},{"raw":"aGk="},{"data":{}}]}}`, string(b))
	schemacheck.Require(t, wire.V10, "SendMessageResponse", b)
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
		{"get task", "Task", func() ([]byte, error) { return c.EncodeResult(wire.OpGetTask, &wire.Result{Task: task}) }},
		{"cancel task", "Task", func() ([]byte, error) { return c.EncodeResult(wire.OpCancelTask, &wire.Result{Task: task}) }},
		{"send task", "SendMessageResponse", func() ([]byte, error) { return c.EncodeResult(wire.OpSend, &wire.Result{Task: task}) }},
		{"send message", "SendMessageResponse", func() ([]byte, error) { return c.EncodeResult(wire.OpSend, &wire.Result{Message: msg}) }},
		{"event task", "StreamResponse", func() ([]byte, error) { return c.EncodeEvent(wire.Event{Task: task}) }},
		{"event message", "StreamResponse", func() ([]byte, error) { return c.EncodeEvent(wire.Event{Message: msg}) }},
		{"event status", "StreamResponse", func() ([]byte, error) {
			return c.EncodeEvent(wire.Event{Status: &wire.StatusUpdate{TaskID: "task-1", ContextID: "ctx-1", Final: true,
				Status: wire.TaskStatus{State: wire.StateCompleted, Timestamp: v10When}, Metadata: map[string]any{"x": 1.0}}})
		}},
		{"event artifact", "StreamResponse", func() ([]byte, error) {
			return c.EncodeEvent(wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "task-1", ContextID: "ctx-1",
				Artifact: task.Artifacts[0], Append: true, LastChunk: true}})
		}},
		{"push status", "StreamResponse", func() ([]byte, error) {
			return c.EncodePush(wire.Event{Status: &wire.StatusUpdate{TaskID: "task-1", ContextID: "ctx-1",
				Status: wire.TaskStatus{State: wire.StateFailed}}})
		}},
		{"push task", "StreamResponse", func() ([]byte, error) { return c.EncodePush(wire.Event{Task: task}) }},
		{"list tasks", "ListTasksResponse", func() ([]byte, error) {
			return c.EncodeResult(wire.OpListTasks, &wire.Result{Page: &wire.TaskPage{Tasks: []*wire.Task{task, task},
				NextPageToken: "next", PageSize: 2, TotalSize: 7}})
		}},
		{"list tasks empty", "ListTasksResponse", func() ([]byte, error) {
			return c.EncodeResult(wire.OpListTasks, &wire.Result{Page: &wire.TaskPage{PageSize: 50}})
		}},
		{"set push", "TaskPushNotificationConfig", func() ([]byte, error) {
			return c.EncodeResult(wire.OpSetPushConfig, &wire.Result{PushConfig: &wire.PushConfig{ID: "p1", TaskID: "task-1",
				URL: "https://hook.example/a2a", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "secret", Tenant: "acme"}})
		}},
		{"get push", "TaskPushNotificationConfig", func() ([]byte, error) {
			return c.EncodeResult(wire.OpGetPushConfig, &wire.Result{PushConfig: &wire.PushConfig{ID: "p1", TaskID: "task-1", URL: "https://hook.example/a2a"}})
		}},
		{"list push", "ListTaskPushNotificationConfigsResponse", func() ([]byte, error) {
			return c.EncodeResult(wire.OpListPushConfigs, &wire.Result{PushConfigs: []wire.PushConfig{
				{ID: "p1", TaskID: "task-1", URL: "https://hook.example/1"}, {ID: "p2", TaskID: "task-1", URL: "https://hook.example/2", AuthSchemes: []string{"Basic"}}}})
		}},
		{"list push empty", "ListTaskPushNotificationConfigsResponse", func() ([]byte, error) {
			return c.EncodeResult(wire.OpListPushConfigs, &wire.Result{})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := tc.enc()
			require.NoError(t, err)
			schemacheck.Require(t, wire.V10, tc.def, b)
			assert.NotContains(t, string(b), `"final":false`)
		})
	}
}

func TestV10EncodeShapes(t *testing.T) {
	t.Parallel()
	c := v10()
	b, err := c.EncodeEvent(wire.Event{Status: &wire.StatusUpdate{TaskID: "t", ContextID: "c", Final: true,
		Status: wire.TaskStatus{State: wire.StateCompleted}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`, string(b))

	b, err = c.EncodeResult(wire.OpListTasks, &wire.Result{Page: &wire.TaskPage{PageSize: 50}})
	require.NoError(t, err)
	assert.Equal(t, `{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}`, string(b))

	b, err = c.EncodeResult(wire.OpListPushConfigs, &wire.Result{})
	require.NoError(t, err)
	assert.Equal(t, `{"configs":[],"nextPageToken":""}`, string(b))

	b, err = c.EncodeResult(wire.OpSetPushConfig, &wire.Result{PushConfig: &wire.PushConfig{ID: "p", TaskID: "t",
		URL: "https://h.example/", AuthSchemes: []string{"Bearer", "Basic"}, AuthCredentials: "s"}})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"p","taskId":"t","url":"https://h.example/","authentication":{"scheme":"Bearer","credentials":"s"}}`, string(b))

	b, err = c.EncodeResult(wire.OpDeletePush, &wire.Result{Empty: true})
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))

	card := []byte(`{"name":"x"}`)
	b, err = c.EncodeResult(wire.OpExtendedCard, &wire.Result{Card: card})
	require.NoError(t, err)
	assert.Equal(t, card, b)

	// Task metadata and data parts may contain "kind"/"final" keys: they are
	// the client's data, not discriminators.
	b, err = c.EncodeResult(wire.OpGetTask, &wire.Result{Task: v10Task()})
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
		{"nil result", func() ([]byte, error) { return c.EncodeResult(wire.OpGetTask, nil) }},
		{"get without task", func() ([]byte, error) { return c.EncodeResult(wire.OpGetTask, &wire.Result{}) }},
		{"send without payload", func() ([]byte, error) { return c.EncodeResult(wire.OpSend, &wire.Result{}) }},
		{"send with both", func() ([]byte, error) {
			return c.EncodeResult(wire.OpSend, &wire.Result{Task: v10Task(), Message: &v10Task().History[0]})
		}},
		{"list without page", func() ([]byte, error) { return c.EncodeResult(wire.OpListTasks, &wire.Result{}) }},
		{"push without config", func() ([]byte, error) { return c.EncodeResult(wire.OpGetPushConfig, &wire.Result{}) }},
		{"card without bytes", func() ([]byte, error) { return c.EncodeResult(wire.OpExtendedCard, &wire.Result{}) }},
		{"stream op", func() ([]byte, error) { return c.EncodeResult(wire.OpStream, &wire.Result{Task: v10Task()}) }},
		{"empty event", func() ([]byte, error) { return c.EncodeEvent(wire.Event{}) }},
		{"two-member event", func() ([]byte, error) {
			return c.EncodeEvent(wire.Event{Task: v10Task(), Message: &v10Task().History[0]})
		}},
		{"bad part kind", func() ([]byte, error) {
			return c.EncodeEvent(wire.Event{Message: &wire.Message{MessageID: "m", Role: wire.RoleUser, Parts: []wire.Part{{Kind: "video"}}}})
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
	assert.Nil(t, c.EncodeErrorData(wire.ErrInvalidParams("id", "is required")))
	assert.Nil(t, c.EncodeErrorData(wire.Errorf(wire.CodeInternal, "boom")))

	b := c.EncodeErrorData(wire.ErrTaskNotFound("t-9").With("attempt", 2))
	assert.JSONEq(t, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND",
		"domain":"a2a-protocol.org","metadata":{"taskId":"t-9","attempt":"2"}}]`, string(b))

	b = c.EncodeErrorData(wire.Errorf(wire.CodeVersionNotSupported, "no"))
	assert.Equal(t, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]`, string(b))

	rpc := wire.EncodeRPCError(json.RawMessage(`1`), wire.ErrTaskNotFound("t"), c.EncodeErrorData(wire.ErrTaskNotFound("t")))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found: t","data":[
		{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t"}}]}}`, string(rpc))
}

func TestV10RESTError(t *testing.T) {
	t.Parallel()
	status, body := codecs.EncodeRESTError(wire.ErrTaskNotFound("t-1"))
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found: t-1","details":[`+
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t-1"}}]}}`, string(body))

	status, body = codecs.EncodeRESTError(wire.ErrInvalidParams("id", "is required"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"invalid params: id: is required"}}`, string(body))

	status, body = codecs.EncodeRESTError(wire.Errorf(wire.CodeTaskNotCancelable, "done"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), `"status":"FAILED_PRECONDITION"`)
	assert.Contains(t, string(body), `"reason":"TASK_NOT_CANCELABLE"`)

	e := wire.Errorf(wire.CodeInternal, "slow down")
	e.HTTPStatus = http.StatusTooManyRequests
	status, body = codecs.EncodeRESTError(e)
	assert.Equal(t, http.StatusTooManyRequests, status)
	assert.Contains(t, string(body), `"status":"RESOURCE_EXHAUSTED"`)

	status, body = codecs.EncodeRESTError(nil)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Contains(t, string(body), `"status":"INTERNAL"`)
}

// TestV10RoundTrip encodes canonical values and decodes them back as request
// params, as a client echoing them would send them.
func TestV10RoundTrip(t *testing.T) {
	t.Parallel()
	c := v10()
	msg := v10Task().History[0]
	b, err := c.EncodeEvent(wire.Event{Message: &msg})
	require.NoError(t, err)
	params := `{"tenant":"acme","metadata":{"trace":"x"},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":3,` +
		`"returnImmediately":true,"taskPushNotificationConfig":{"url":"https://hook.example/h","token":"tok","authentication":{"scheme":"Bearer","credentials":"c"}}},` +
		`"message":` + string(b[len(`{"message":`):len(b)-1]) + `}`
	schemacheck.Require(t, wire.V10, "SendMessageRequest", []byte(params))
	req, e := c.DecodeParams(wire.OpSend, []byte(params))
	require.Nil(t, e)
	assert.Equal(t, wire.OpSend, req.Op)
	assert.Equal(t, wire.V10, req.Dialect)
	assert.Equal(t, "acme", req.Tenant)
	assert.Equal(t, map[string]any{"trace": "x"}, req.Metadata)
	assert.Equal(t, &msg, req.Message)
	three := 3
	assert.Equal(t, wire.SendConfig{AcceptedOutputModes: []string{"text/plain"}, HistoryLength: &three, ReturnImmediately: true,
		PushConfig: &wire.PushConfig{URL: "https://hook.example/h", Token: "tok", AuthSchemes: []string{"Bearer"}, AuthCredentials: "c"}}, req.Config)

	pc := wire.PushConfig{ID: "p1", TaskID: "task-1", URL: "https://hook.example/a2a", Token: "tok",
		AuthSchemes: []string{"Basic"}, AuthCredentials: "dXNlcjpwdw==", Tenant: "acme"}
	b, err = c.EncodeResult(wire.OpSetPushConfig, &wire.Result{PushConfig: &pc})
	require.NoError(t, err)
	req, e = c.DecodeParams(wire.OpSetPushConfig, b)
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
		op     wire.Op
		params string
		want   wire.Request
	}{
		{"stream numeric role", wire.OpStream, `{"message":{"messageId":"m","role":1,"parts":[{"url":"https://x.example/f","mediaType":"text/html"}]}}`,
			wire.Request{Message: &wire.Message{MessageID: "m", Role: wire.RoleUser,
				Parts: []wire.Part{{Kind: wire.PartFile, URL: "https://x.example/f", MediaType: "text/html"}}}}},
		{"send unknown keys ignored", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_AGENT","kind":"message","parts":[{"data":null,"text":"t"}]},"extra":1}`,
			wire.Request{Message: &wire.Message{MessageID: "m", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("t")}}}},
		{"send unpadded url-safe raw", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"-_8"}]}}`,
			wire.Request{Message: &wire.Message{MessageID: "m", Role: wire.RoleUser, Parts: []wire.Part{{Kind: wire.PartFile, Raw: []byte{0xfb, 0xff}}}}}},
		{"send historyLength 0 as string", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":"s"}]},"configuration":{"historyLength":"0"}}`,
			wire.Request{Message: &wire.Message{MessageID: "m", Role: wire.RoleUser, Parts: []wire.Part{{Kind: wire.PartData, Data: "s"}}},
				Config: wire.SendConfig{HistoryLength: &zero}}},
		{"get", wire.OpGetTask, `{"tenant":"t","id":"task-1","historyLength":2}`,
			wire.Request{Tenant: "t", TaskID: "task-1", HistoryLength: &two}},
		{"cancel", wire.OpCancelTask, `{"id":"task-1","metadata":{"why":"bored"}}`,
			wire.Request{TaskID: "task-1", Metadata: map[string]any{"why": "bored"}}},
		{"subscribe", wire.OpSubscribe, `{"id":"task-1"}`, wire.Request{TaskID: "task-1"}},
		{"list defaults", wire.OpListTasks, `{}`, wire.Request{List: wire.ListTasksQuery{PageSize: 50}}},
		{"list null params", wire.OpListTasks, `null`, wire.Request{List: wire.ListTasksQuery{PageSize: 50}}},
		{"list absent params", wire.OpListTasks, ``, wire.Request{List: wire.ListTasksQuery{PageSize: 50}}},
		{"list all", wire.OpListTasks, `{"tenant":"x","contextId":"c","status":"TASK_STATE_WORKING","pageSize":100,"pageToken":"p",
			"historyLength":0,"statusTimestampAfter":"2026-01-02T04:04:05+01:00","includeArtifacts":true}`,
			wire.Request{Tenant: "x", List: wire.ListTasksQuery{ContextID: "c", State: wire.StateWorking, PageSize: 100, PageToken: "p",
				HistoryLength: &zero, StatusTimestampAfter: after, IncludeArtifacts: true}}},
		{"list numeric state", wire.OpListTasks, `{"status":6}`,
			wire.Request{List: wire.ListTasksQuery{State: wire.StateInputRequired, PageSize: 50}}},
		{"get push", wire.OpGetPushConfig, `{"taskId":"t","id":"p"}`, wire.Request{TaskID: "t", PushConfigID: "p"}},
		{"delete push", wire.OpDeletePush, `{"tenant":"a","taskId":"t","id":"p"}`, wire.Request{Tenant: "a", TaskID: "t", PushConfigID: "p"}},
		{"list push", wire.OpListPushConfigs, `{"taskId":"t","pageSize":5,"pageToken":"n"}`,
			wire.Request{TaskID: "t", List: wire.ListTasksQuery{PageSize: 5, PageToken: "n"}}},
		{"set push minimal", wire.OpSetPushConfig, `{"taskId":"t","url":"http://127.0.0.1:9/h"}`,
			wire.Request{TaskID: "t", PushConfig: &wire.PushConfig{TaskID: "t", URL: "http://127.0.0.1:9/h"}}},
		{"extended card", wire.OpExtendedCard, `{"tenant":"a"}`, wire.Request{Tenant: "a"}},
		{"extended card no params", wire.OpExtendedCard, `null`, wire.Request{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, e := c.DecodeParams(tc.op, []byte(tc.params))
			require.Nil(t, e)
			tc.want.Op, tc.want.Dialect = tc.op, wire.V10
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
		op     wire.Op
		params string
		code   int
		msg    string
	}{
		{"send no params", wire.OpSend, ``, wire.CodeInvalidParams, "invalid params: message: is required"},
		{"send null params", wire.OpSend, `null`, wire.CodeInvalidParams, "invalid params: message: is required"},
		{"send array params", wire.OpSend, `[1]`, wire.CodeInvalidParams, "invalid params: params: must be an object"},
		{"send broken json", wire.OpSend, `{"message":`, wire.CodeParseError, "parse error: params are not valid JSON: unexpected end of JSON input"},
		{"send message null", wire.OpSend, `{"message":null}`, wire.CodeInvalidParams, "invalid params: message: is required"},
		{"send message string", wire.OpSend, `{"message":"hi"}`, wire.CodeInvalidParams, "invalid params: message: must be an object, not string"},
		{"no messageId", wire.OpSend, `{"message":{"role":"ROLE_USER","parts":[{"text":"a"}]}}`, wire.CodeInvalidParams,
			"invalid params: message.messageId: is required"},
		{"no role", wire.OpSend, `{"message":{"messageId":"m","parts":[{"text":"a"}]}}`, wire.CodeInvalidParams,
			"invalid params: message.role: is required"},
		{"lowercase role", wire.OpSend, `{"message":{"messageId":"m","role":"user","parts":[{"text":"a"}]}}`, wire.CodeInvalidParams,
			`invalid params: message.role: must be "ROLE_USER" or "ROLE_AGENT", not "user"`},
		{"numeric role 3", wire.OpSend, `{"message":{"messageId":"m","role":3,"parts":[{"text":"a"}]}}`, wire.CodeInvalidParams,
			`invalid params: message.role: must be "ROLE_USER" or "ROLE_AGENT", not 3`},
		{"unspecified role", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_UNSPECIFIED","parts":[{"text":"a"}]}}`, wire.CodeInvalidParams,
			"invalid params: message.role: is required"},
		{"no parts", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER"}}`, wire.CodeInvalidParams,
			"invalid params: message.parts: is required"},
		{"empty parts", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}`, wire.CodeInvalidParams,
			"invalid params: message.parts: must not be empty"},
		{"part without content", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},{"mediaType":"text/plain"}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[1]: must have one of text, raw, url, data"},
		{"v0.3 part", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"kind":"text","text2":"a"}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[0]: must have one of text, raw, url, data"},
		{"part with two", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","url":"https://x"}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[0]: must have only one of text, raw, url, data, not text and url"},
		{"bad base64", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"!!"}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[0].raw: must be base64"},
		{"empty url", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":""}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[0].url: must not be empty"},
		{"text not string", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},{"text":"b"},{"text":7}]}}`,
			wire.CodeInvalidParams, "invalid params: message.parts[2].text: must be a string, not number"},
		{"parts not array", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":{"text":"a"}}}`,
			wire.CodeInvalidParams, "invalid params: message.parts: must be an array, not object"},
		{"extension not string", wire.OpSend, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}],"extensions":["x",true]}}`,
			wire.CodeInvalidParams, "invalid params: message.extensions[1]: must be a string, not bool"},
		{"historyLength negative", wire.OpSend, `{` + okMsg + `,"configuration":{"historyLength":-1}}`,
			wire.CodeInvalidParams, "invalid params: configuration.historyLength: must not be negative"},
		{"historyLength fraction", wire.OpSend, `{` + okMsg + `,"configuration":{"historyLength":1.5}}`,
			wire.CodeInvalidParams, "invalid params: configuration.historyLength: must be an integer, not number 1.5"},
		{"historyLength word", wire.OpSend, `{` + okMsg + `,"configuration":{"historyLength":"all"}}`,
			wire.CodeInvalidParams, `invalid params: configuration.historyLength: must be an integer, not string "all"`},
		{"returnImmediately string", wire.OpSend, `{` + okMsg + `,"configuration":{"returnImmediately":"yes"}}`,
			wire.CodeInvalidParams, "invalid params: configuration.returnImmediately: must be a boolean, not string"},
		{"inline push without url", wire.OpSend, `{` + okMsg + `,"configuration":{"taskPushNotificationConfig":{"token":"t"}}}`,
			wire.CodeInvalidParams, "invalid params: configuration.taskPushNotificationConfig.url: is required"},
		{"get no id", wire.OpGetTask, `{"historyLength":1}`, wire.CodeInvalidParams, "invalid params: id: is required"},
		{"get null", wire.OpGetTask, `null`, wire.CodeInvalidParams, "invalid params: id: is required"},
		{"get id number", wire.OpGetTask, `{"id":5}`, wire.CodeInvalidParams, "invalid params: id: must be a string, not number"},
		{"get negative history", wire.OpGetTask, `{"id":"t","historyLength":-2}`, wire.CodeInvalidParams,
			"invalid params: historyLength: must not be negative"},
		{"cancel no id", wire.OpCancelTask, `{}`, wire.CodeInvalidParams, "invalid params: id: is required"},
		{"subscribe empty id", wire.OpSubscribe, `{"id":""}`, wire.CodeInvalidParams, "invalid params: id: is required"},
		{"list page size big", wire.OpListTasks, `{"pageSize":101}`, wire.CodeInvalidParams,
			"invalid params: pageSize: must be between 1 and 100, not 101"},
		{"list page size negative", wire.OpListTasks, `{"pageSize":-1}`, wire.CodeInvalidParams,
			"invalid params: pageSize: must be between 1 and 100, not -1"},
		{"list bad state", wire.OpListTasks, `{"status":"working"}`, wire.CodeInvalidParams,
			`invalid params: status: must be a task state such as "TASK_STATE_WORKING", not "working"`},
		{"list bad time", wire.OpListTasks, `{"statusTimestampAfter":"yesterday"}`, wire.CodeInvalidParams,
			`invalid params: statusTimestampAfter: must be an RFC 3339 timestamp, not "yesterday"`},
		{"list includeArtifacts", wire.OpListTasks, `{"includeArtifacts":1}`, wire.CodeInvalidParams,
			"invalid params: includeArtifacts: must be a boolean, not number"},
		{"set push no task", wire.OpSetPushConfig, `{"url":"https://h.example/"}`, wire.CodeInvalidParams, "invalid params: taskId: is required"},
		{"set push no url", wire.OpSetPushConfig, `{"taskId":"t"}`, wire.CodeInvalidParams, "invalid params: url: is required"},
		{"set push relative url", wire.OpSetPushConfig, `{"taskId":"t","url":"/hook"}`, wire.CodeInvalidParams,
			`invalid params: url: must be an absolute http(s) URL, not "/hook"`},
		{"set push no scheme", wire.OpSetPushConfig, `{"taskId":"t","url":"https://h.example/","authentication":{"credentials":"c"}}`,
			wire.CodeInvalidParams, "invalid params: authentication.scheme: is required"},
		{"get push no id", wire.OpGetPushConfig, `{"taskId":"t"}`, wire.CodeInvalidParams, "invalid params: id: is required"},
		{"delete push no task", wire.OpDeletePush, `{"id":"p"}`, wire.CodeInvalidParams, "invalid params: taskId: is required"},
		{"list push no task", wire.OpListPushConfigs, `null`, wire.CodeInvalidParams, "invalid params: taskId: is required"},
		{"list push negative", wire.OpListPushConfigs, `{"taskId":"t","pageSize":-3}`, wire.CodeInvalidParams,
			"invalid params: pageSize: must not be negative"},
		{"card tenant number", wire.OpExtendedCard, `{"tenant":1}`, wire.CodeInvalidParams, "invalid params: tenant: must be a string, not number"},
		{"unknown op", wire.Op("teleport"), `{}`, wire.CodeMethodNotFound, `method not found: "teleport" is not a v1.0 operation`},
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
		if _, e := c.DecodeParams(wire.OpSend, params); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkV10EncodeTask(b *testing.B) {
	c := v10()
	res := &wire.Result{Task: v10Task()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(wire.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}
