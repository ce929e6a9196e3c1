package grpcwire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/wire"
)

// A message of every kind of part goes to the proto and back unchanged,
// numbers coming back as float64 as they do from JSON.
func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	in := &wire.Message{MessageID: "m", ContextID: "c", TaskID: "t", Role: wire.RoleAgent,
		Metadata: map[string]any{"n": 1.5, "tags": []any{"a"}}, Extensions: []string{"urn:x"}, ReferenceTaskIDs: []string{"r"},
		Parts: []wire.Part{
			wire.TextPart("hi"),
			{Kind: wire.PartFile, Raw: []byte{1, 2}, MediaType: "application/octet-stream", Filename: "f.bin"},
			{Kind: wire.PartFile, URL: "https://example.com/f"},
			{Kind: wire.PartData, Data: map[string]any{"k": []any{1.0, "v"}}, Metadata: map[string]any{"m": true}},
		}}
	pm, err := Message(in)
	require.NoError(t, err)
	assert.Equal(t, a2apb.Role_ROLE_AGENT, pm.GetRole())
	assert.Equal(t, in, MessageOf(pm))

	// No role is a user's; a Go int in data is a JSON number.
	pm, err = Message(&wire.Message{MessageID: "u", Parts: []wire.Part{{Kind: wire.PartData, Data: map[string]int{"x": 2}}}})
	require.NoError(t, err)
	assert.Equal(t, a2apb.Role_ROLE_USER, pm.GetRole())
	assert.Equal(t, map[string]any{"x": 2.0}, MessageOf(pm).Parts[0].Data)

	_, err = Message(&wire.Message{Metadata: map[string]any{"f": func() {}}})
	assert.Error(t, err)
}

// Task states and event payloads read as the JSON bindings read them.
func TestEventOf(t *testing.T) {
	t.Parallel()
	md, _ := structpb.NewStruct(map[string]any{"k": "v"})
	ev, err := EventOf(&a2apb.StreamResponse{Payload: &a2apb.StreamResponse_StatusUpdate{StatusUpdate: &a2apb.TaskStatusUpdateEvent{
		TaskId: "t", ContextId: "c", Metadata: md, Status: &a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_INPUT_REQUIRED}}}})
	require.NoError(t, err)
	require.NotNil(t, ev.Status)
	assert.Equal(t, wire.StateInputRequired, ev.Status.Status.State)
	assert.Equal(t, map[string]any{"k": "v"}, ev.Status.Metadata)

	ev, err = EventOf(&a2apb.StreamResponse{Payload: &a2apb.StreamResponse_Task{Task: &a2apb.Task{Id: "t", Status: &a2apb.TaskStatus{}}}})
	require.NoError(t, err)
	assert.Equal(t, wire.StateUnspecified, ev.Task.Status.State)

	ev, err = EventOf(&a2apb.StreamResponse{Payload: &a2apb.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2apb.TaskArtifactUpdateEvent{
		TaskId: "t", Append: true, LastChunk: true, Artifact: &a2apb.Artifact{ArtifactId: "a", Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "x"}}}}}}})
	require.NoError(t, err)
	assert.Equal(t, &wire.ArtifactUpdate{TaskID: "t", Append: true, LastChunk: true,
		Artifact: wire.Artifact{ArtifactID: "a", Parts: []wire.Part{wire.TextPart("x")}}}, ev.Artifact)

	_, err = EventOf(&a2apb.StreamResponse{})
	assert.Error(t, err)
}
