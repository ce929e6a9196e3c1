package schemacheck

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/a2amock/a2amock/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateEveryDialectCompiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		d   wire.Dialect
		def string
		ok  string
		bad string
	}{
		{wire.V10, "TaskStatus", `{"state":"TASK_STATE_WORKING","timestamp":"2026-01-02T03:04:05.000Z"}`,
			`{"state":"working"}`},
		{wire.V03, "TaskStatus", `{"state":"working"}`, `{"state":"TASK_STATE_WORKING"}`},
		{wire.V02, "TaskStatus", `{"state":"working"}`, `{"state":"busy"}`},
		{wire.V01, "TaskStatus", `{"state":"working"}`, `{"state":"rejected"}`},
	}
	for _, tc := range cases {
		t.Run(string(tc.d), func(t *testing.T) {
			t.Parallel()
			require.NoError(t, Validate(tc.d, tc.def, []byte(tc.ok)))
			require.Error(t, Validate(tc.d, tc.def, []byte(tc.bad)))
		})
	}
}

func TestValidateErrors(t *testing.T) {
	t.Parallel()
	err := Validate(wire.V10, "NoSuchThing", []byte(`{}`))
	require.ErrorContains(t, err, `no definition "NoSuchThing"`)
	err = Validate("9.9", "Task", []byte(`{}`))
	require.ErrorContains(t, err, "no schema for dialect")
	err = Validate(wire.V10, "Task", []byte(`{`))
	require.ErrorContains(t, err, "not JSON")
}

func TestValidateV10SchemaCatches(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"kind is an unknown property":   `{"id":"t","status":{"state":"TASK_STATE_WORKING"},"kind":"task"}`,
		"timestamp must be a date-time": `{"id":"t","status":{"state":"TASK_STATE_WORKING","timestamp":"yesterday"}}`,
		"state must be an enum name":    `{"id":"t","status":{"state":"TASK_STATE_DONE"}}`,
	}
	for name, doc := range bad {
		require.Error(t, Validate(wire.V10, "Task", []byte(doc)), name)
	}
	require.NoError(t, Validate(wire.V10, "Task", []byte(`{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`)))
}

func TestValidateConcurrent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			d := wire.Dialects[i%len(wire.Dialects)]
			errs <- Validate(d, "TaskStatus", []byte(`{"state":"completed"}`))
		}(i)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if err == nil {
			n++
		}
	}
	// Every v0.x dialect accepts "completed"; v1.0 rejects it.
	assert.Equal(t, 24, n)
}

// TestRulesNameRealFields guards the rules table against typos: every key it
// names must be a property of the definition in the generated v1.0 schema.
func TestRulesNameRealFields(t *testing.T) {
	t.Parallel()
	raw, err := schemaFS.ReadFile("schema/a2a-v1.0.json")
	require.NoError(t, err)
	var top struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(raw, &top))
	for def, r := range v10Rules {
		d, ok := top.Defs[def]
		require.True(t, ok, "rule for unknown definition %s", def)
		var keys []string
		keys = append(keys, r.required...)
		keys = append(keys, r.nonEmpty...)
		keys = append(keys, r.oneOf...)
		for k := range r.notUnspecified {
			keys = append(keys, k)
		}
		for _, m := range []map[string]string{r.objects, r.arrays, r.maps} {
			for k, child := range m {
				keys = append(keys, k)
				_, ok := v10Rules[child]
				assert.True(t, ok || child == "MutualTlsSecurityScheme", "%s.%s refers to %s without a rule", def, k, child)
			}
		}
		for _, k := range keys {
			assert.Contains(t, d.Properties, k, "%s.%s", def, k)
		}
	}
}

const (
	okStatus  = `{"state":"TASK_STATE_WORKING","timestamp":"2026-01-02T03:04:05.000Z"}`
	okMessage = `{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}`
)

func TestCheckV10Rules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		def     string
		valid   string
		invalid string
		wantErr string
	}{
		{"Task.id", "Task",
			`{"id":"t1","status":` + okStatus + `}`,
			`{"status":` + okStatus + `}`, "Task.id is REQUIRED"},
		{"Task.status", "Task",
			`{"id":"t1","status":` + okStatus + `}`,
			`{"id":"t1"}`, "Task.status is REQUIRED"},
		{"TaskStatus.state", "TaskStatus", okStatus,
			`{"timestamp":"2026-01-02T03:04:05.000Z"}`, "TaskStatus.state is REQUIRED"},
		{"TaskStatus.state unspecified", "TaskStatus", okStatus,
			`{"state":"TASK_STATE_UNSPECIFIED"}`, "must not be TASK_STATE_UNSPECIFIED"},
		{"Message.messageId", "Message", okMessage,
			`{"role":"ROLE_USER","parts":[{"text":"hi"}]}`, "Message.messageId is REQUIRED"},
		{"Message.messageId empty", "Message", okMessage,
			`{"messageId":"","role":"ROLE_USER","parts":[{"text":"hi"}]}`, "must not be empty"},
		{"Message.role", "Message", okMessage,
			`{"messageId":"m1","parts":[{"text":"hi"}]}`, "Message.role is REQUIRED"},
		{"Message.parts", "Message", okMessage,
			`{"messageId":"m1","role":"ROLE_AGENT"}`, "Message.parts is REQUIRED"},
		{"Message.parts empty", "Message", okMessage,
			`{"messageId":"m1","role":"ROLE_AGENT","parts":[]}`, "Message.parts must not be empty"},
		{"Part none", "Part", `{"raw":"aGk=","mediaType":"text/plain"}`,
			`{"mediaType":"text/plain"}`, "exactly one of text, raw, url, data must be set in Part (found 0"},
		{"Part two", "Part", `{"url":"https://x.test/f","filename":"f"}`,
			`{"url":"https://x.test/f","text":"x"}`, "(found 2: text, url)"},
		{"Part in history", "Task",
			`{"id":"t","status":` + okStatus + `,"history":[` + okMessage + `]}`,
			`{"id":"t","status":` + okStatus + `,"history":[{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"a":1},"text":"x"}]}]}`,
			"$.history[0].parts[0]"},
		{"Artifact.artifactId", "Artifact", `{"artifactId":"a","parts":[{"text":"x"}]}`,
			`{"parts":[{"text":"x"}]}`, "Artifact.artifactId is REQUIRED"},
		{"Artifact.parts", "Artifact", `{"artifactId":"a","parts":[{"text":"x"}]}`,
			`{"artifactId":"a"}`, "Artifact.parts is REQUIRED"},
		{"TaskStatusUpdateEvent.contextId", "TaskStatusUpdateEvent",
			`{"taskId":"t","contextId":"c","status":` + okStatus + `}`,
			`{"taskId":"t","status":` + okStatus + `}`, "TaskStatusUpdateEvent.contextId is REQUIRED"},
		{"TaskStatusUpdateEvent.final", "TaskStatusUpdateEvent",
			`{"taskId":"t","contextId":"c","status":` + okStatus + `}`,
			`{"taskId":"t","contextId":"c","status":` + okStatus + `,"final":true}`, `legacy key "final"`},
		{"TaskArtifactUpdateEvent.artifact", "TaskArtifactUpdateEvent",
			`{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"lastChunk":true}`,
			`{"taskId":"t","contextId":"c"}`, "TaskArtifactUpdateEvent.artifact is REQUIRED"},
		{"StreamResponse none", "StreamResponse", `{"message":` + okMessage + `}`,
			`{}`, "exactly one of task, message, statusUpdate, artifactUpdate"},
		{"StreamResponse two", "StreamResponse", `{"message":` + okMessage + `}`,
			`{"message":` + okMessage + `,"task":{"id":"t","status":` + okStatus + `}}`, "found 2"},
		{"StreamResponse kind", "StreamResponse", `{"task":{"id":"t","status":` + okStatus + `}}`,
			`{"task":{"id":"t","kind":"task","status":` + okStatus + `}}`, `$.task: legacy key "kind"`},
		{"SendMessageResponse", "SendMessageResponse", `{"task":{"id":"t","status":` + okStatus + `}}`,
			`{"task":{"id":"t","status":` + okStatus + `},"message":` + okMessage + `}`, "exactly one of task, message"},
		{"ListTasksResponse", "ListTasksResponse",
			`{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}`,
			`{"tasks":[],"pageSize":50,"totalSize":0}`, "ListTasksResponse.nextPageToken is REQUIRED"},
		{"TaskPushNotificationConfig.url", "TaskPushNotificationConfig",
			`{"id":"p","taskId":"t","url":"https://x.test/hook"}`,
			`{"id":"p","taskId":"t"}`, "TaskPushNotificationConfig.url is REQUIRED"},
		{"AuthenticationInfo.scheme", "TaskPushNotificationConfig",
			`{"url":"https://x.test/hook","authentication":{"scheme":"Bearer"}}`,
			`{"url":"https://x.test/hook","authentication":{"credentials":"x"}}`, "AuthenticationInfo.scheme is REQUIRED"},
		{"AgentCard", "AgentCard", validCard(`"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]`),
			validCard(`"skills":[{"id":"s","name":"S","tags":["t"]}]`), "$.skills[0]: AgentSkill.description is REQUIRED"},
		{"AgentInterface", "AgentCard", validCard(`"skills":[]`),
			`{"name":"a","description":"d","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],"supportedInterfaces":[{"url":"http://127.0.0.1:1/"}]}`,
			"AgentInterface.protocolBinding is REQUIRED"},
		{"SecurityScheme", "AgentCard",
			validCard(`"skills":[],"securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}}`),
			validCard(`"skills":[],"securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"},"httpAuthSecurityScheme":{"scheme":"bearer"}}}`),
			`$.securitySchemes["k"]: exactly one of`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, Validate(wire.V10, tc.def, []byte(tc.valid)), "schema rejects the valid case")
			require.NoError(t, CheckV10Rules(tc.def, []byte(tc.valid)))
			err := CheckV10Rules(tc.def, []byte(tc.invalid))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func validCard(extra string) string {
	return fmt.Sprintf(`{"name":"a","description":"d","version":"1","capabilities":{"streaming":true},`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`+
		`"supportedInterfaces":[{"url":"http://127.0.0.1:1/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],%s}`, extra)
}

func TestCheckV10RulesIgnoresFreeForm(t *testing.T) {
	t.Parallel()
	doc := `{"id":"t","status":` + okStatus + `,"metadata":{"kind":"x","final":true},` +
		`"history":[{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"kind":"task"}}]}]}`
	require.NoError(t, CheckV10Rules("Task", []byte(doc)))
	require.ErrorContains(t, CheckV10Rules("Task", []byte(`[]`)), "must be a JSON object")
	require.ErrorContains(t, CheckV10Rules("Task", []byte(`nope`)), "not JSON")
	// A definition without rules still gets the legacy-key check.
	require.ErrorContains(t, CheckV10Rules("GetTaskRequest", []byte(`{"id":"t","kind":"x"}`)), "legacy key")
}

// fakeTB records failures instead of failing, so Require itself can be tested.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
}

func TestRequire(t *testing.T) {
	t.Parallel()
	f := &fakeTB{TB: t}
	Require(f, wire.V10, "Task", []byte(`{"id":"t","status":`+okStatus+`}`))
	require.Empty(t, f.msg)
	// Passes the schema, fails the rules: Require must apply both for v1.0.
	Require(f, wire.V10, "Task", []byte(`{"status":`+okStatus+`}`))
	require.Contains(t, f.msg, "Task.id is REQUIRED")
	require.Contains(t, f.msg, `"status"`, "the document is shown")
	f.msg = ""
	Require(f, wire.V03, "Task", []byte(`{"id":"t"}`))
	require.Contains(t, f.msg, "v0.3 Task")
}
