package entries

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/wire"
)

// TestRequestEntryKeepsNoCredentialAndBoundsIDs: the entry of a request
// keeps the metadata keys sorted and none of their values, fingerprints
// the message text, and cuts an over-long id to a marked prefix.
func TestRequestEntryKeepsNoCredentialAndBoundsIDs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	req := &wire.Request{Op: wire.OpSend, Method: "SendMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC, TaskID: long,
		Message: &wire.Message{MessageID: "m1", TaskID: "t1", Parts: []wire.Part{{Text: "hello"}},
			Metadata: map[string]any{"token": "s3cret", "a": 1}}}
	e := Request("agent", req, 4, "/agents/agent/", "1.0")
	assert.Equal(t, journal.EntryRequest, e.Kind)
	assert.Equal(t, int64(4), e.Request)
	assert.Equal(t, []string{"a", "token"}, e.MetadataKeys)
	assert.NotContains(t, strings.Join(e.MetadataKeys, ""), "s3cret")
	assert.Len(t, e.MessageDigest, 16)
	assert.Equal(t, "t1", e.RefTaskID)
	assert.Equal(t, strings.Repeat("x", 64)+"…(truncated, 300 bytes)", e.TaskID)
	assert.Equal(t, "1.0", e.Version)

	same := Request("agent", req, 5, "/", "")
	assert.Equal(t, e.MessageDigest, same.MessageDigest, "the same text, the same fingerprint")
}

func TestResponseEntry(t *testing.T) {
	t.Parallel()
	req := &wire.Request{Op: wire.OpGetTask, TaskID: "t1"}
	e := Response("a", req, 2, &wire.Result{Task: &wire.Task{ID: "t1", ContextID: "c", Status: wire.TaskStatus{State: wire.StateWorking}}}, nil)
	assert.Equal(t, journal.EntryResponse, e.Kind)
	assert.Equal(t, wire.StateWorking, e.State)
	assert.Equal(t, "c", e.ContextID)
	e = Response("a", req, 2, nil, wire.Errorf(wire.CodeTaskNotFound, "no task t1"))
	assert.Equal(t, wire.CodeTaskNotFound, e.ErrorCode)
	assert.Equal(t, "no task t1", e.Detail)
}

func TestPathAndIDKeepShortOnesAndUTF8(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/agents/a/", Path("/agents/a/"))
	id := strings.Repeat("é", 200) // 400 bytes
	got := ID(id)
	assert.True(t, strings.HasSuffix(got, "…(truncated, 400 bytes)"))
	assert.Equal(t, strings.Repeat("é", 32), strings.TrimSuffix(got, "…(truncated, 400 bytes)"), "a UTF-8 sequence is not split")
}

// TestRefusedRequestBounds: a refused request's method and its error's
// message quote what the client sent, so the journal keeps a bounded
// prefix of each.
func TestRefusedRequestBounds(t *testing.T) {
	t.Parallel()
	method := strings.Repeat("m", 1<<20)
	req := &wire.Request{Method: method, Binding: wire.BindingJSONRPC}
	e := Request("a", req, 1, "/", "")
	assert.Less(t, len(e.Method), 128)
	assert.True(t, strings.HasPrefix(e.Method, "mmmm"))
	assert.Contains(t, e.Method, "1048576 bytes")
	resp := Response("a", req, 1, nil, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", method))
	assert.Less(t, len(resp.Method), 128)
	assert.Less(t, len(resp.Detail), 1100)
	assert.True(t, strings.HasPrefix(resp.Detail, "method not found: mmm"))
	assert.Equal(t, wire.CodeMethodNotFound, resp.ErrorCode)
}
