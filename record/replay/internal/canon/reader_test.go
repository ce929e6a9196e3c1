package canon

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/wire"
)

// v03 returns the reader of a recorded exchange of v0.3's HTTP+JSON route
// (method and route) or, when route is empty, of its gRPC method.
func v03(t *testing.T, method, route string) *Reader {
	t.Helper()
	x := &record.Exchange{Kind: record.KindGRPC, Path: a2apb03.ServicePath + method}
	if route != "" {
		x = &record.Exchange{Kind: record.KindREST, Method: method + " /v0.3/v1" + route, Path: "/v0.3/v1" + route}
	}
	r, err := ReaderOf(x)
	require.NoError(t, err)
	assert.Equal(t, wire.V03, r.Dialect)
	return r
}

// A v0.3 answer in the proto's JSON (both v0.3 bindings write it) is
// taken into the model when the binding's rendering of what was read is
// the recorded JSON: a task with history, artifacts of every part kind and
// a status message; each kind of stream event.
func TestV03ProtoJSONIsRead(t *testing.T) {
	t.Parallel()
	task := `{"task":{"id":"t1","contextId":"c1",
		"status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2025-06-01T10:00:00.250Z",
			"message":{"messageId":"s1","role":"ROLE_AGENT","content":[{"text":"which one?"}]}},
		"history":[{"messageId":"m1","contextId":"c1","taskId":"t1","role":"ROLE_USER","content":[{"text":"hi"}]}],
		"artifacts":[{"artifactId":"a1","name":"out","parts":[{"text":"x"},{"data":{"data":{"k":1}}},
			{"file":{"fileWithUri":"https://example.com/f","mimeType":"text/plain"}}]}],
		"metadata":{"trace":"abc"}}}`
	for _, r := range []*Reader{v03(t, "POST", "/message:send"), v03(t, "SendMessage", "")} {
		a, err := r.Decode(json.RawMessage(task), false)
		require.NoError(t, err, r.Binding)
		got := a.Event.Task
		require.NotNil(t, got, r.Binding)
		assert.Equal(t, "t1 c1 input-required", got.ID+" "+got.ContextID+" "+string(got.Status.State), r.Binding)
		assert.Equal(t, time.Date(2025, 6, 1, 10, 0, 0, 250e6, time.UTC), got.Status.Timestamp.UTC(), r.Binding)
		assert.Equal(t, "which one?", got.Status.Message.Text(), r.Binding)
		require.Len(t, got.History, 1, r.Binding)
		assert.Equal(t, wire.RoleUser, got.History[0].Role, r.Binding)
		require.Len(t, got.Artifacts, 1, r.Binding)
		parts := got.Artifacts[0].Parts
		require.Len(t, parts, 3, r.Binding)
		assert.Equal(t, "x", parts[0].Text, r.Binding)
		assert.Equal(t, "https://example.com/f", parts[2].URL, r.Binding)
		assert.Equal(t, "abc", got.Metadata["trace"], r.Binding)
	}

	canceled, err := v03(t, "GET", "/tasks/{id}").Decode(json.RawMessage(`{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_CANCELLED"}}`), false)
	require.NoError(t, err, "GetTask answers the bare task")
	assert.Equal(t, wire.StateCanceled, canceled.Event.Task.Status.State, "v0.3's proto spells it CANCELLED")

	for _, ev := range []string{
		`{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}`,
		`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}`,
		`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"x"}]},"append":true,"lastChunk":true}}`,
		`{"message":{"messageId":"m9","role":"ROLE_AGENT","content":[{"text":"done"}]}}`,
	} {
		for _, r := range []*Reader{v03(t, "POST", "/message:stream"), v03(t, "SendStreamingMessage", "")} {
			a, err := r.Decode(json.RawMessage(ev), true)
			require.NoError(t, err, "%s %s", r.Binding, ev)
			assert.NotEmpty(t, a.Event.TaskID()+a.Event.Message.Text(), "%s %s", r.Binding, ev)
		}
	}
}

// What the binding would not render the same stays out of the model, with
// the reason: a member the model does not carry, v1.0's spelling of a
// state, a JSON-RPC kind. A gRPC message's JSON is compared with the
// binding's message, not with the codec's JSON: a status update that is
// not final has no final member there (proto3 leaves false out), while the
// HTTP+JSON codec writes final:false.
func TestV03ProtoJSONRoundTrip(t *testing.T) {
	t.Parallel()
	send := v03(t, "POST", "/message:send")
	for body, why := range map[string]string{
		`{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"vendor":"x"}}`: "would not be rendered the same",
		`{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_CANCELED"}}}`:               `state "TASK_STATE_CANCELED"`,
		`{"id":"t1","contextId":"c1","kind":"task","status":{"state":"completed"}}`:                    "exactly one member",
	} {
		_, err := send.Decode(json.RawMessage(body), false)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), why, body)
	}

	notFinal := `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
	_, err := v03(t, "SendStreamingMessage", "").Decode(json.RawMessage(notFinal), true)
	assert.NoError(t, err, "the gRPC message's JSON, as recorded")
	_, err = v03(t, "POST", "/message:stream").Decode(json.RawMessage(notFinal), true)
	assert.ErrorContains(t, err, "would not be rendered the same", "the HTTP+JSON codec writes final:false")

	vendor := `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"vendor":1}}`
	_, err = v03(t, "SendStreamingMessage", "").Decode(json.RawMessage(vendor), true)
	assert.ErrorContains(t, err, "would not be rendered the same")
}

// A v0.3 HTTP+JSON or gRPC exchange is served by the engine only for a
// v0.3 card, so a recording without a card gets a generated v0.3 one;
// v1.0's and JSON-RPC's are served for any card.
func TestV03NeedsAV03Card(t *testing.T) {
	t.Parallel()
	rest := v03(t, "POST", "/message:send")
	assert.ErrorContains(t, rest.ServedFor(nil), "only for an agent whose card is v0.3")
	assert.NoError(t, rest.ServedFor(&cards.Card{Dialect: wire.V03}))
	v10, err := ReaderOf(&record.Exchange{Kind: record.KindGRPC, Path: a2apb.ServicePath + "SendMessage"})
	require.NoError(t, err)
	assert.NoError(t, v10.ServedFor(&cards.Card{Dialect: wire.V03}))

	rec := &record.Recording{Exchanges: []record.Exchange{{Kind: record.KindREST, Method: "POST /v0.3/v1/message:send", Path: "/v0.3/v1/message:send"}}}
	c := Card(rec, "agent", 1)
	require.NotNil(t, c)
	assert.Equal(t, wire.V03, c.Dialect)
	rec.Exchanges[0] = record.Exchange{Kind: record.KindREST, Method: "POST /message:send", Path: "/message:send"}
	assert.Nil(t, Card(rec, "agent", 1), "the server generates its own")
}

// Describe reads a raw answer's state in any codec's spelling, v0.3's
// proto TASK_STATE_CANCELLED among them, as the journal names states.
func TestDescribeReadsEverySpelling(t *testing.T) {
	for name, want := range map[string]wire.TaskState{
		`{"task":{"id":"t","status":{"state":"TASK_STATE_CANCELLED"}}}`:                                  wire.StateCanceled,
		`{"task":{"id":"t","status":{"state":"TASK_STATE_CANCELED"}}}`:                                   wire.StateCanceled,
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":"input-required"}}}`: wire.StateInputRequired,
		`{"task":{"id":"t","status":{"state":"SOMETHING_ELSE"}}}`:                                        "SOMETHING_ELSE",
	} {
		d := Describe([]byte(name))
		assert.Equal(t, want, d.State, name)
		assert.Equal(t, "t", d.TaskID, name)
	}
}
