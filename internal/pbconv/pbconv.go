// Package pbconv converts between the gRPC binding's messages
// (internal/a2apb, generated from the v1.0 proto) and the canonical model
// (package wire) directly, for the common shapes of the hot path: a send
// whose parts are text, files or URLs; tasks, messages and stream events
// whose parts are text or files and whose metadata holds JSON values.
//
// It is a shortcut, not a second codec: every function answers ok=false
// for anything it does not cover, and the caller then takes the general
// path (ProtoJSON into the v1.0 codec and back), which also produces the
// error a bad request deserves. The tests hold each conversion equal to
// that path on a corpus of inputs.
package pbconv

import (
	"math"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/wire"
)

// protoDialect is the dialect of the proto's messages: the one served over
// gRPC (v1.0).
var protoDialect = wire.ForBinding(wire.BindingGRPC)

// SendRequest is the canonical form of a valid SendMessage or
// SendStreamingMessage request (op wire.OpSend or wire.OpStream), as the
// v1.0 codec's DecodeParams reads the request's ProtoJSON. ok is false when
// the request has a shape this path leaves to the codec: no message, a
// missing or unknown field value, a data part, a push config or a history
// length in the configuration, metadata with a non-finite number.
func SendRequest(op wire.Op, in *a2apb.SendMessageRequest) (*wire.Request, bool) {
	m := in.GetMessage()
	if m == nil || m.GetMessageId() == "" || len(m.GetParts()) == 0 {
		return nil, false
	}
	req := &wire.Request{Op: op, Dialect: protoDialect, Tenant: in.GetTenant()}
	var ok bool
	if req.Metadata, ok = fromStruct(in.GetMetadata()); !ok {
		return nil, false
	}
	if req.Message, ok = messageFrom(m); !ok {
		return nil, false
	}
	if c := in.GetConfiguration(); c != nil {
		if c.TaskPushNotificationConfig != nil || c.HistoryLength != nil {
			return nil, false
		}
		req.Config.AcceptedOutputModes = nilIfEmpty(c.GetAcceptedOutputModes())
		req.Config.ReturnImmediately = c.GetReturnImmediately()
	}
	return req, true
}

func messageFrom(m *a2apb.Message) (*wire.Message, bool) {
	out := &wire.Message{
		MessageID:        m.GetMessageId(),
		ContextID:        m.GetContextId(),
		TaskID:           m.GetTaskId(),
		Extensions:       nilIfEmpty(m.GetExtensions()),
		ReferenceTaskIDs: nilIfEmpty(m.GetReferenceTaskIds()),
		Parts:            make([]wire.Part, len(m.GetParts())),
	}
	switch m.GetRole() {
	case a2apb.Role_ROLE_USER:
		out.Role = wire.RoleUser
	case a2apb.Role_ROLE_AGENT:
		out.Role = wire.RoleAgent
	default:
		return nil, false
	}
	var ok bool
	if out.Metadata, ok = fromStruct(m.GetMetadata()); !ok {
		return nil, false
	}
	for i, p := range m.GetParts() {
		if p == nil {
			return nil, false
		}
		q := &out.Parts[i]
		q.MediaType, q.Filename = p.GetMediaType(), p.GetFilename()
		if q.Metadata, ok = fromStruct(p.GetMetadata()); !ok {
			return nil, false
		}
		switch c := p.GetContent().(type) {
		case *a2apb.Part_Text:
			q.Kind, q.Text = wire.PartText, c.Text
		case *a2apb.Part_Raw:
			q.Kind, q.Raw = wire.PartFile, append([]byte{}, c.Raw...)
		case *a2apb.Part_Url:
			if c.Url == "" {
				return nil, false
			}
			q.Kind, q.URL = wire.PartFile, c.Url
		default: // data parts, and parts with no content (an error)
			return nil, false
		}
	}
	return out, true
}

// fromStruct is a Struct as encoding/json decodes its ProtoJSON: nil when
// absent, else a map of JSON values. Non-finite numbers have no JSON form
// (ProtoJSON refuses them; AsMap would turn them into strings).
func fromStruct(s *structpb.Struct) (map[string]any, bool) {
	if s == nil {
		return nil, true
	}
	for _, v := range s.GetFields() {
		if !finite(v) {
			return nil, false
		}
	}
	return s.AsMap(), true
}

func finite(v *structpb.Value) bool {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		return !math.IsNaN(k.NumberValue) && !math.IsInf(k.NumberValue, 0)
	case *structpb.Value_StructValue:
		for _, e := range k.StructValue.GetFields() {
			if !finite(e) {
				return false
			}
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			if !finite(e) {
				return false
			}
		}
	}
	return true
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// SendResponse is the SendMessageResponse of a send's result.
func SendResponse(res *wire.Result) (*a2apb.SendMessageResponse, bool) {
	switch {
	case res == nil || (res.Task != nil) == (res.Message != nil):
		return nil, false
	case res.Task != nil:
		t, ok := Task(res.Task)
		if !ok {
			return nil, false
		}
		return &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Task{Task: t}}, true
	}
	m, ok := Message(res.Message)
	if !ok {
		return nil, false
	}
	return &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Message{Message: m}}, true
}

// StreamResponse is the StreamResponse of a stream event.
func StreamResponse(ev wire.Event) (*a2apb.StreamResponse, bool) {
	n := 0
	for _, set := range []bool{ev.Task != nil, ev.Message != nil, ev.Status != nil, ev.Artifact != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, false
	}
	switch {
	case ev.Task != nil:
		t, ok := Task(ev.Task)
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_Task{Task: t}}, ok
	case ev.Message != nil:
		m, ok := Message(ev.Message)
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_Message{Message: m}}, ok
	case ev.Status != nil:
		st, ok := status(&ev.Status.Status)
		md, ok2 := toStruct(ev.Status.Metadata)
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_StatusUpdate{StatusUpdate: &a2apb.TaskStatusUpdateEvent{
			TaskId: ev.Status.TaskID, ContextId: ev.Status.ContextID, Status: st, Metadata: md,
		}}}, ok && ok2
	}
	a, ok := artifact(&ev.Artifact.Artifact)
	md, ok2 := toStruct(ev.Artifact.Metadata)
	return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2apb.TaskArtifactUpdateEvent{
		TaskId: ev.Artifact.TaskID, ContextId: ev.Artifact.ContextID, Artifact: a,
		Append: ev.Artifact.Append, LastChunk: ev.Artifact.LastChunk, Metadata: md,
	}}}, ok && ok2
}

// Task is t as the v1.0 codec writes it, read back as a proto Task.
func Task(t *wire.Task) (*a2apb.Task, bool) {
	st, ok := status(&t.Status)
	if !ok {
		return nil, false
	}
	out := &a2apb.Task{Id: t.ID, ContextId: t.ContextID, Status: st}
	if out.Metadata, ok = toStruct(t.Metadata); !ok {
		return nil, false
	}
	if len(t.Artifacts) > 0 {
		out.Artifacts = make([]*a2apb.Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			if out.Artifacts[i], ok = artifact(&t.Artifacts[i]); !ok {
				return nil, false
			}
		}
	}
	if len(t.History) > 0 {
		out.History = make([]*a2apb.Message, len(t.History))
		for i := range t.History {
			if out.History[i], ok = Message(&t.History[i]); !ok {
				return nil, false
			}
		}
	}
	return out, true
}

// Message is m as the v1.0 codec writes it, read back as a proto Message.
func Message(m *wire.Message) (*a2apb.Message, bool) {
	out := &a2apb.Message{
		MessageId: m.MessageID, ContextId: m.ContextID, TaskId: m.TaskID,
		Extensions: nilIfEmpty(m.Extensions), ReferenceTaskIds: nilIfEmpty(m.ReferenceTaskIDs),
	}
	switch m.Role {
	case wire.RoleUser:
		out.Role = a2apb.Role_ROLE_USER
	case wire.RoleAgent:
		out.Role = a2apb.Role_ROLE_AGENT
	}
	var ok bool
	if out.Parts, ok = parts(m.Parts); !ok {
		return nil, false
	}
	if out.Metadata, ok = toStruct(m.Metadata); !ok {
		return nil, false
	}
	return out, true
}

func status(s *wire.TaskStatus) (*a2apb.TaskStatus, bool) {
	out := &a2apb.TaskStatus{State: a2apb.TaskState(a2apb.TaskState_value[wire.StateToV10(s.State)])}
	if !s.Timestamp.IsZero() {
		u := s.Timestamp.UTC()
		if u.Year() < 1 || u.Year() > 9999 {
			return nil, false
		}
		out.Timestamp = timestamppb.New(u.Truncate(time.Millisecond))
	}
	if s.Message != nil {
		m, ok := Message(s.Message)
		if !ok {
			return nil, false
		}
		out.Message = m
	}
	return out, true
}

func artifact(a *wire.Artifact) (*a2apb.Artifact, bool) {
	out := &a2apb.Artifact{ArtifactId: a.ArtifactID, Name: a.Name, Description: a.Description, Extensions: nilIfEmpty(a.Extensions)}
	var ok bool
	if out.Parts, ok = parts(a.Parts); !ok {
		return nil, false
	}
	if out.Metadata, ok = toStruct(a.Metadata); !ok {
		return nil, false
	}
	return out, true
}

func parts(ps []wire.Part) ([]*a2apb.Part, bool) {
	if len(ps) == 0 {
		return nil, true
	}
	out := make([]*a2apb.Part, len(ps))
	for i := range ps {
		p := &ps[i]
		q := &a2apb.Part{Filename: p.Filename, MediaType: p.MediaType}
		switch p.Kind {
		case wire.PartText:
			q.Content = &a2apb.Part_Text{Text: p.Text}
		case wire.PartFile:
			if p.URL != "" && p.Raw == nil {
				q.Content = &a2apb.Part_Url{Url: p.URL}
			} else {
				q.Content = &a2apb.Part_Raw{Raw: p.Raw}
			}
		default: // data parts, and unknown kinds (an error)
			return nil, false
		}
		var ok bool
		if q.Metadata, ok = toStruct(p.Metadata); !ok {
			return nil, false
		}
		out[i] = q
	}
	return out, true
}

// toStruct is the Struct ProtoJSON reads from encoding/json's rendering of
// m: nil for a nil map (omitempty), and only for maps of JSON values whose
// strings are valid UTF-8 (structpb refuses the others; encoding/json would
// have replaced their bytes).
func toStruct(m map[string]any) (*structpb.Struct, bool) {
	if len(m) == 0 {
		// encoding/json's omitempty leaves out an empty map too.
		return nil, true
	}
	if !plain(m) {
		return nil, false
	}
	s, err := structpb.NewStruct(m)
	return s, err == nil
}

// plain reports whether v holds only what encoding/json decodes into an
// any: maps, slices, strings, finite float64s, bools and nil.
func plain(v any) bool {
	switch x := v.(type) {
	case nil, string, bool:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	}
	return false
}
