package codecv03rest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func sampleTask() *wire.Task {
	ts := time.Date(2025, 7, 30, 12, 0, 0, 0, time.UTC)
	return &wire.Task{
		ID: "t1", ContextID: "c1",
		Status: wire.TaskStatus{State: wire.StateInputRequired, Timestamp: ts, Message: &wire.Message{
			MessageID: "s1", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("which?")}}},
		History: []wire.Message{{MessageID: "m1", TaskID: "t1", ContextID: "c1", Role: wire.RoleUser, ReferenceTaskIDs: []string{"t0"},
			Parts: []wire.Part{wire.TextPart("hi"), {Kind: wire.PartData, Data: map[string]any{"k": 1}},
				{Kind: wire.PartFile, URL: "https://f.example/a.txt", MediaType: "text/plain", Filename: "a.txt"}}}},
		Artifacts: []wire.Artifact{{ArtifactID: "a1", Name: "out", Parts: []wire.Part{{Kind: wire.PartFile, Raw: []byte("hey"), MediaType: "text/plain"}}}},
		Metadata:  map[string]any{"x": "y"},
	}
}

// Results and events are the v0.3 proto's JSON: camelCase, enum names,
// content for parts, oneof wrappers, no kind.
func TestEncodeProtoJSON(t *testing.T) {
	b, err := Codec.EncodeResult(wire.OpGetTask, &wire.Result{Task: sampleTask()})
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"t1","contextId":"c1","metadata":{"x":"y"},
		"status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2025-07-30T12:00:00.000Z",
			"message":{"messageId":"s1","role":"ROLE_AGENT","content":[{"text":"which?"}]}},
		"history":[{"messageId":"m1","taskId":"t1","contextId":"c1","role":"ROLE_USER","content":[
			{"text":"hi"},{"data":{"data":{"k":1}}},{"file":{"fileWithUri":"https://f.example/a.txt","mimeType":"text/plain","name":"a.txt"}}]}],
		"artifacts":[{"artifactId":"a1","name":"out","parts":[{"file":{"fileWithBytes":"aGV5","mimeType":"text/plain"}}]}]}`, string(b))

	b, err = Codec.EncodeResult(wire.OpSend, &wire.Result{Message: &wire.Message{MessageID: "r", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("ok")}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"message":{"messageId":"r","role":"ROLE_AGENT","content":[{"text":"ok"}]}}`, string(b))

	tk := &wire.Task{ID: "t", ContextID: "c", Status: wire.TaskStatus{State: wire.StateCanceled}}
	b, err = Codec.EncodeResult(wire.OpSend, &wire.Result{Task: tk})
	require.NoError(t, err)
	assert.JSONEq(t, `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_CANCELLED"}}}`, string(b))

	b, err = Codec.EncodeEvent(wire.Event{Status: &wire.StatusUpdate{TaskID: "t", ContextID: "c", Final: true, Status: wire.TaskStatus{State: wire.StateCompleted}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"statusUpdate":{"taskId":"t","contextId":"c","final":true,"status":{"state":"TASK_STATE_COMPLETED"}}}`, string(b))
	b, err = Codec.EncodeEvent(wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "t", ContextID: "c", LastChunk: true,
		Artifact: wire.Artifact{ArtifactID: "a", Parts: []wire.Part{wire.TextPart("x")}}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"artifactUpdate":{"taskId":"t","contextId":"c","lastChunk":true,"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`, string(b))
	b, err = Codec.EncodeEvent(wire.Event{Task: tk})
	require.NoError(t, err)
	assert.JSONEq(t, `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_CANCELLED"}}}`, string(b))

	pc := wire.PushConfig{ID: "p1", TaskID: "t", URL: "https://h.example/", Token: "tok", AuthSchemes: []string{"Bearer"}}
	b, err = Codec.EncodeResult(wire.OpGetPushConfig, &wire.Result{PushConfig: &pc})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"tasks/t/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"https://h.example/","token":"tok","authentication":{"schemes":["Bearer"]}}}`, string(b))
	b, err = Codec.EncodeResult(wire.OpListPushConfigs, &wire.Result{PushConfigs: []wire.PushConfig{pc}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"configs":[{"name":"tasks/t/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"https://h.example/","token":"tok","authentication":{"schemes":["Bearer"]}}}]}`, string(b))
	b, err = Codec.EncodeResult(wire.OpDeletePush, &wire.Result{Empty: true})
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(b))
}

// Requests are read in the proto's JSON names (a2a-go) and field names
// (a2a-python), with enums by name or number.
func TestDecodeProtoJSON(t *testing.T) {
	for name, body := range map[string]string{
		"json names": `{"message":{"messageId":"m1","taskId":"t1","contextId":"c1","role":"ROLE_USER","content":[{"text":"hi"},{"data":{"data":{"k":1}}},{"file":{"fileWithUri":"https://f.example/a","mimeType":"text/plain"}}],"metadata":{"skillId":"ask"}},
			"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":2,"blocking":false,"pushNotification":{"url":"https://h.example/","token":"t"}}}`,
		"field names": `{"request":{"message_id":"m1","task_id":"t1","context_id":"c1","role":1,"content":[{"text":"hi"},{"data":{"data":{"k":1}}},{"file":{"file_with_uri":"https://f.example/a","mime_type":"text/plain"}}],"metadata":{"skillId":"ask"}},
			"configuration":{"accepted_output_modes":["text/plain"],"history_length":2,"blocking":false,"push_notification":{"url":"https://h.example/","token":"t"}}}`,
	} {
		req, e := Codec.DecodeParams(wire.OpSend, []byte(body))
		require.Nil(t, e, name)
		assert.Equal(t, wire.V03, req.Dialect, name)
		m := req.Message
		require.NotNil(t, m, name)
		assert.Equal(t, "m1", m.MessageID, name)
		assert.Equal(t, "t1", m.TaskID, name)
		assert.Equal(t, "c1", m.ContextID, name)
		assert.Equal(t, wire.RoleUser, m.Role, name)
		require.Len(t, m.Parts, 3, name)
		assert.Equal(t, "hi", m.Parts[0].Text, name)
		assert.Equal(t, wire.PartData, m.Parts[1].Kind, name)
		assert.Equal(t, "https://f.example/a", m.Parts[2].URL, name)
		assert.Equal(t, "ask", m.Metadata["skillId"], name)
		assert.True(t, req.Config.ReturnImmediately, name)
		require.NotNil(t, req.Config.HistoryLength, name)
		assert.Equal(t, 2, *req.Config.HistoryLength, name)
		require.NotNil(t, req.Config.PushConfig, name)
		assert.Equal(t, "https://h.example/", req.Config.PushConfig.URL, name)
		assert.Empty(t, req.Ignored, name)
	}

	req, e := Codec.DecodeParams(wire.OpGetTask, []byte(`{"name":"tasks/t 1","historyLength":3}`))
	require.Nil(t, e)
	assert.Equal(t, "t 1", req.TaskID)
	require.NotNil(t, req.HistoryLength)
	assert.Equal(t, 3, *req.HistoryLength)
	req, e = Codec.DecodeParams(wire.OpDeletePush, []byte(`{"name":"tasks/t/pushNotificationConfigs/p"}`))
	require.Nil(t, e)
	assert.Equal(t, "t", req.TaskID)
	assert.Equal(t, "p", req.PushConfigID)
	for _, body := range []string{
		`{"parent":"tasks/t","configId":"p","config":{"name":"tasks/t/pushNotificationConfigs/p","pushNotificationConfig":{"url":"https://h.example/"}}}`,
		`{"parent":"tasks/t","config_id":"p","config":{"push_notification_config":{"url":"https://h.example/"}}}`,
		`{"parent":"tasks/t","pushNotificationConfig":{"id":"p","url":"https://h.example/"}}`,
	} {
		req, e = Codec.DecodeParams(wire.OpSetPushConfig, []byte(body))
		require.Nil(t, e, body)
		assert.Equal(t, "t", req.TaskID, body)
		require.NotNil(t, req.PushConfig, body)
		assert.Equal(t, "p", req.PushConfig.ID, body)
		assert.Equal(t, "https://h.example/", req.PushConfig.URL, body)
	}

	// What the v0.3 codec refuses stays refused; a field no dialect has is
	// reported as ignored.
	_, e = Codec.DecodeParams(wire.OpSend, []byte(`{"message":{"messageId":"m","role":"ROLE_USER"}}`))
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeInvalidParams, e.Code)
	_, e = Codec.DecodeParams(wire.OpSend, []byte(`[1]`))
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeParseError, e.Code)
	_, e = Codec.DecodeParams(wire.OpGetTask, []byte(`{"name":"task/x"}`))
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeInvalidParams, e.Code)
	req, e = Codec.DecodeParams(wire.OpSend, []byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}]},"futureField":1}`))
	require.Nil(t, e)
	assert.Contains(t, req.Ignored, "futureField")
}

func TestEncodeError(t *testing.T) {
	status, b := EncodeError(wire.Errorf(wire.CodeTaskNotFound, "task x not found"))
	assert.Equal(t, http.StatusNotFound, status)
	var m struct {
		Error struct {
			Code    int
			Status  string
			Message string
			Details []map[string]any
		}
		Type, Message string
	}
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, 404, m.Error.Code)
	assert.Equal(t, "NOT_FOUND", m.Error.Status)
	assert.Equal(t, "task x not found", m.Error.Message)
	require.NotEmpty(t, m.Error.Details)
	assert.Equal(t, "TASK_NOT_FOUND", m.Error.Details[0]["reason"])
	assert.Equal(t, "TaskNotFoundError", m.Type)
	assert.Equal(t, "task x not found", m.Message)

	_, b = EncodeError(&wire.Error{Code: wire.CodeUnauthenticated, Message: "no"})
	assert.NotContains(t, string(b), `"type"`)
}

// A send the v0.3 JSON-RPC codec refuses is refused in the proto JSON's
// terms the client wrote it in: content, not parts; a part told by its
// member, not a kind; ROLE_* roles; fileWithBytes or fileWithUri.
func TestDecodeErrorsNameProtoFields(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"message":{"messageId":"m","role":"ROLE_USER"}}`:                                                "invalid params: message.content: is required",
		`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"a"},{}]}}`:                    "invalid params: message.content[1]: must have text, file or data",
		`{"message":{"messageId":"m","role":"ROLE_BOGUS","content":[{"text":"x"}]}}`:                      `invalid params: message.role: must be ROLE_USER or ROLE_AGENT, not "ROLE_BOGUS"`,
		`{"request":{"messageId":"m","role":"ROLE_USER","content":[{"file":{"mimeType":"text/plain"}}]}}`: "invalid params: message.content[0].file: must have fileWithBytes or fileWithUri",
		`{"message":{"role":"ROLE_USER","content":[{"text":"x"}]}}`:                                       "invalid params: message.messageId: is required",
	} {
		_, e := Codec.DecodeParams(wire.OpSend, []byte(body))
		require.NotNil(t, e, body)
		assert.Equal(t, wire.CodeInvalidParams, e.Code, body)
		assert.Equal(t, want, e.Message, body)
		field, _ := e.Data["field"].(string)
		assert.Contains(t, want, field+":", "the field named in the data is the one in the message")
	}
}
