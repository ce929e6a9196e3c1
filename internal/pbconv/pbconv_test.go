package pbconv_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/pbconv"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

func text(s string) *a2apb.Part { return &a2apb.Part{Content: &a2apb.Part_Text{Text: s}} }

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	require.NoError(t, err)
	return s
}

// viaCodec is the general path: the request's ProtoJSON read by the v1.0
// codec.
func viaCodec(t *testing.T, op wire.Op, in *a2apb.SendMessageRequest) (*wire.Request, *wire.Error) {
	t.Helper()
	b, err := protojson.Marshal(in)
	require.NoError(t, err)
	return codecs.For(wire.V10).DecodeParams(op, b)
}

// TestSendRequestMatchesCodec holds the direct read of a send equal to the
// codec's, and checks which shapes it takes on: the common ones must not
// silently fall back to the slow path, the others must (the codec words
// their errors).
func TestSendRequestMatchesCodec(t *testing.T) {
	meta := map[string]any{"skillId": "s1", "n": 3, "f": 1.5, "ok": true, "none": nil,
		"list": []any{"a", 2, map[string]any{"deep": "x"}}, "obj": map[string]any{}}
	cases := []struct {
		name string
		in   *a2apb.SendMessageRequest
		fast bool
	}{
		{"text", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("hello")}}}, true},
		{"empty text", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("")}}}, true},
		{"every message field", &a2apb.SendMessageRequest{Tenant: "acme", Metadata: mustStruct(t, meta),
			Message: &a2apb.Message{MessageId: "m2", ContextId: "c", TaskId: "t", Role: a2apb.Role_ROLE_AGENT,
				Metadata: mustStruct(t, meta), Extensions: []string{"urn:x"}, ReferenceTaskIds: []string{"t0", "t1"},
				Parts: []*a2apb.Part{
					{Content: &a2apb.Part_Text{Text: "a"}, Filename: "a.txt", MediaType: "text/plain", Metadata: mustStruct(t, map[string]any{"k": "v"})},
					{Content: &a2apb.Part_Raw{Raw: []byte{0, 1, 2, 0xff}}, MediaType: "application/octet-stream"},
					{Content: &a2apb.Part_Raw{Raw: []byte{}}},
					{Content: &a2apb.Part_Url{Url: "https://example.com/f"}},
				}},
			Configuration: &a2apb.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain"}, ReturnImmediately: true}}, true},
		{"empty metadata", &a2apb.SendMessageRequest{Metadata: &structpb.Struct{}, Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
			Metadata: &structpb.Struct{}, Parts: []*a2apb.Part{text("x")}}, Configuration: &a2apb.SendMessageConfiguration{}}, true},
		// Left to the codec:
		{"no message", &a2apb.SendMessageRequest{}, false},
		{"no message id", &a2apb.SendMessageRequest{Message: &a2apb.Message{Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("x")}}}, false},
		{"no role", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Parts: []*a2apb.Part{text("x")}}}, false},
		{"unknown role", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: 7, Parts: []*a2apb.Part{text("x")}}}, false},
		{"no parts", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER}}, false},
		{"empty part", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{}}}}, false},
		{"empty url", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Url{}}}}}, false},
		{"data part", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewStringValue("x")}}}}}, false},
		{"history length", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("x")}},
			Configuration: &a2apb.SendMessageConfiguration{HistoryLength: proto.Int32(-1)}}, false},
		{"push config", &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("x")}},
			Configuration: &a2apb.SendMessageConfiguration{TaskPushNotificationConfig: &a2apb.TaskPushNotificationConfig{Url: "ftp://x"}}}, false},
	}
	for _, c := range cases {
		for _, op := range []wire.Op{wire.OpSend, wire.OpStream} {
			t.Run(c.name+"/"+string(op), func(t *testing.T) {
				got, ok := pbconv.SendRequest(op, c.in)
				require.Equal(t, c.fast, ok, "which path takes the request")
				if !ok {
					return
				}
				want, e := viaCodec(t, op, c.in)
				require.Nil(t, e, "the codec accepts what the shortcut accepts")
				assert.Equal(t, want, got)
			})
		}
	}
	t.Run("non-finite metadata", func(t *testing.T) {
		in := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{text("x")},
			Metadata: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(math.NaN())}})}}}}
		_, ok := pbconv.SendRequest(wire.OpSend, in)
		assert.False(t, ok, "NaN has no JSON form: the general path refuses it")
	})
}

var fromJSON = protojson.UnmarshalOptions{DiscardUnknown: true}

// sampleTask has every field the shortcut writes.
func sampleTask() *wire.Task {
	meta := map[string]any{"a": "b", "n": 2.5, "list": []any{true, nil, "x"}, "o": map[string]any{"k": 1.0}}
	ts := time.Date(2026, 12, 3, 9, 1, 2, 123456789, time.FixedZone("x", 3600))
	msg := wire.Message{MessageID: "m1", ContextID: "c1", TaskID: "t1", Role: wire.RoleUser,
		Parts: []wire.Part{wire.TextPart("hello"), {Kind: wire.PartFile, Raw: []byte{1, 2}, Filename: "f.bin", MediaType: "application/x"},
			{Kind: wire.PartFile, URL: "https://example.com/a", Metadata: map[string]any{"p": "q"}}, {Kind: wire.PartFile}},
		Metadata: meta, Extensions: []string{"urn:e"}, ReferenceTaskIDs: []string{"t0"}}
	return &wire.Task{ID: "t1", ContextID: "c1", Metadata: meta,
		Status: wire.TaskStatus{State: wire.StateInputRequired, Timestamp: ts,
			Message: &wire.Message{MessageID: "q1", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("which?")}}},
		History: []wire.Message{msg, {MessageID: "m2", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("ok")}, Metadata: map[string]any{}}},
		Artifacts: []wire.Artifact{{ArtifactID: "a1", Name: "n", Description: "d", Parts: []wire.Part{wire.TextPart("out")},
			Metadata: meta, Extensions: []string{"urn:a"}}, {ArtifactID: "a2"}},
	}
}

// TestResultsMatchCodec holds the direct writing of results and events
// equal to the codec's JSON read back as proto.
func TestResultsMatchCodec(t *testing.T) {
	codec := codecs.For(wire.V10)
	var tasks []*wire.Task
	for _, st := range append(append([]wire.TaskState{}, wire.AllStates...), wire.StateUnknown, wire.StateUnspecified, "bogus") {
		task := sampleTask()
		task.Status.State = st
		tasks = append(tasks, task)
	}
	tasks = append(tasks, &wire.Task{ID: "bare", Status: wire.TaskStatus{State: wire.StateCompleted}})
	for i, task := range tasks {
		got, ok := pbconv.SendResponse(&wire.Result{Task: task})
		require.True(t, ok, "task %d", i)
		b, err := codec.EncodeResult(wire.OpSend, &wire.Result{Task: task})
		require.NoError(t, err)
		want := new(a2apb.SendMessageResponse)
		require.NoError(t, fromJSON.Unmarshal(b, want))
		assert.True(t, proto.Equal(want, got), "task %d (%s):\nwant %v\n got %v", i, task.Status.State, want, got)

		gotTask, ok := pbconv.Task(task)
		require.True(t, ok)
		assert.True(t, proto.Equal(want.GetTask(), gotTask))
	}
	msg := &sampleTask().History[0]
	got, ok := pbconv.SendResponse(&wire.Result{Message: msg})
	require.True(t, ok)
	b, err := codec.EncodeResult(wire.OpSend, &wire.Result{Message: msg})
	require.NoError(t, err)
	want := new(a2apb.SendMessageResponse)
	require.NoError(t, fromJSON.Unmarshal(b, want))
	assert.True(t, proto.Equal(want, got), "want %v\n got %v", want, got)

	task := sampleTask()
	events := []wire.Event{
		{Task: task},
		{Message: msg},
		{Status: &wire.StatusUpdate{TaskID: "t1", ContextID: "c1", Status: task.Status, Final: true, Metadata: map[string]any{"x": "y"}}},
		{Status: &wire.StatusUpdate{TaskID: "t1", ContextID: "c1", Status: wire.TaskStatus{State: wire.StateWorking}}},
		{Artifact: &wire.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Artifact: task.Artifacts[0], Append: true, LastChunk: true, Metadata: map[string]any{"z": 1.0}}},
		{Artifact: &wire.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Artifact: task.Artifacts[1]}},
	}
	for i, ev := range events {
		got, ok := pbconv.StreamResponse(ev)
		require.True(t, ok, "event %d", i)
		b, err := codec.EncodeEvent(ev)
		require.NoError(t, err)
		want := new(a2apb.StreamResponse)
		require.NoError(t, fromJSON.Unmarshal(b, want))
		assert.True(t, proto.Equal(want, got), "event %d:\nwant %v\n got %v", i, want, got)
	}
}

// TestResultsLeftToCodec lists what the shortcut declines: data parts,
// metadata holding values encoding/json would render its own way, no or
// two members, and timestamps outside RFC 3339's years.
func TestResultsLeftToCodec(t *testing.T) {
	data := sampleTask()
	data.Artifacts[0].Parts = []wire.Part{{Kind: wire.PartData, Data: map[string]any{"x": 1.0}}}
	typed := sampleTask()
	typed.Metadata = map[string]any{"when": time.Now()}
	nan := sampleTask()
	nan.History[0].Metadata = map[string]any{"x": math.Inf(1)}
	year := sampleTask()
	year.Status.Timestamp = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, task := range map[string]*wire.Task{"data part": data, "typed metadata": typed, "infinite": nan, "year 10000": year} {
		_, ok := pbconv.SendResponse(&wire.Result{Task: task})
		assert.False(t, ok, name)
	}
	_, ok := pbconv.SendResponse(&wire.Result{Task: sampleTask(), Message: &wire.Message{}})
	assert.False(t, ok, "a task and a message")
	_, ok = pbconv.SendResponse(&wire.Result{})
	assert.False(t, ok, "neither")
	_, ok = pbconv.StreamResponse(wire.Event{})
	assert.False(t, ok, "an event with no member")
	_, ok = pbconv.StreamResponse(wire.Event{Task: sampleTask(), Message: &wire.Message{}})
	assert.False(t, ok, "an event with two members")

	// A string that is not UTF-8 is copied as it is; proto.Marshal refuses
	// it, which is the caller's cue to take the codec's path (encoding/json
	// replaces the bad bytes).
	bad := sampleTask()
	bad.Artifacts[0].Parts[0].Text = "\xff"
	res, ok := pbconv.SendResponse(&wire.Result{Task: bad})
	require.True(t, ok)
	_, err := proto.Marshal(res)
	assert.Error(t, err)
}
