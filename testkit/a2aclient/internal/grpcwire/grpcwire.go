// Package grpcwire is testkit's A2A client's own conversion between the
// v1.0 proto messages (internal/a2apb) and the wire model, the gRPC
// counterpart of the client's JSON structs: enum names are read as the
// ProtoJSON spellings are, and metadata and data go through JSON, so that
// they come out as the JSON bindings' do (numbers as float64). It is not
// the mock's conversion (internal/pbconv) on purpose: a client that
// shares the mock's codec would agree with its bugs.
package grpcwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/wire"
)

// Message is m as the proto's message; metadata or data that JSON cannot
// encode is an error.
func Message(m *wire.Message) (*a2apb.Message, error) {
	role := m.Role
	if role == "" {
		role = wire.RoleUser
	}
	md, err := pbStruct(m.Metadata)
	if err != nil {
		return nil, fmt.Errorf("testkit: message metadata: %w", err)
	}
	pm := &a2apb.Message{MessageId: m.MessageID, ContextId: m.ContextID, TaskId: m.TaskID,
		Role:     a2apb.Role(a2apb.Role_value["ROLE_"+strings.ToUpper(string(role))]),
		Metadata: md, Extensions: m.Extensions, ReferenceTaskIds: m.ReferenceTaskIDs}
	for i, p := range m.Parts {
		pp := &a2apb.Part{MediaType: p.MediaType, Filename: p.Filename}
		if pp.Metadata, err = pbStruct(p.Metadata); err != nil {
			return nil, fmt.Errorf("testkit: part %d metadata: %w", i, err)
		}
		switch p.Kind {
		case wire.PartFile:
			if p.URL != "" {
				pp.Content = &a2apb.Part_Url{Url: p.URL}
			} else {
				pp.Content = &a2apb.Part_Raw{Raw: p.Raw}
			}
		case wire.PartData:
			v := &structpb.Value{}
			if err := viaJSON(p.Data, v); err != nil {
				return nil, fmt.Errorf("testkit: part %d data: %w", i, err)
			}
			pp.Content = &a2apb.Part_Data{Data: v}
		default:
			pp.Content = &a2apb.Part_Text{Text: p.Text}
		}
		pm.Parts = append(pm.Parts, pp)
	}
	return pm, nil
}

func pbStruct(m map[string]any) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	s := &structpb.Struct{}
	return s, viaJSON(m, s)
}

// viaJSON reads v's JSON into the well-known type into.
func viaJSON(v any, into proto.Message) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return protojson.Unmarshal(b, into)
}

func wireMap(s *structpb.Struct) map[string]any {
	if s == nil {
		return nil
	}
	return s.AsMap()
}

func wirePartOf(p *a2apb.Part) wire.Part {
	w := wire.Part{Kind: wire.PartText, MediaType: p.GetMediaType(), Filename: p.GetFilename(), Metadata: wireMap(p.GetMetadata())}
	switch c := p.GetContent().(type) {
	case *a2apb.Part_Text:
		w.Text = c.Text
	case *a2apb.Part_Raw:
		w.Kind, w.Raw = wire.PartFile, c.Raw
	case *a2apb.Part_Url:
		w.Kind, w.URL = wire.PartFile, c.Url
	case *a2apb.Part_Data:
		w.Kind, w.Data = wire.PartData, c.Data.AsInterface()
	}
	return w
}

// MessageOf is the proto's message m in the wire model; nil for nil.
func MessageOf(m *a2apb.Message) *wire.Message {
	if m == nil {
		return nil
	}
	w := &wire.Message{MessageID: m.GetMessageId(), ContextID: m.GetContextId(), TaskID: m.GetTaskId(),
		Metadata: wireMap(m.GetMetadata()), ReferenceTaskIDs: m.GetReferenceTaskIds(), Extensions: m.GetExtensions()}
	if m.GetRole() != a2apb.Role_ROLE_UNSPECIFIED {
		w.Role = wire.Role(strings.ToLower(strings.TrimPrefix(m.GetRole().String(), "ROLE_")))
	}
	for _, p := range m.GetParts() {
		w.Parts = append(w.Parts, wirePartOf(p))
	}
	return w
}

func wireStatusOf(s *a2apb.TaskStatus) wire.TaskStatus {
	st := wire.TaskStatus{Message: MessageOf(s.GetMessage())}
	if s.GetState() != a2apb.TaskState_TASK_STATE_UNSPECIFIED {
		st.State = wire.TaskState(strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.GetState().String(), "TASK_STATE_")), "_", "-"))
	}
	if ts := s.GetTimestamp(); ts != nil {
		st.Timestamp = ts.AsTime()
	}
	return st
}

func wireArtifactOf(a *a2apb.Artifact) wire.Artifact {
	w := wire.Artifact{ArtifactID: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(),
		Metadata: wireMap(a.GetMetadata()), Extensions: a.GetExtensions()}
	for _, p := range a.GetParts() {
		w.Parts = append(w.Parts, wirePartOf(p))
	}
	return w
}

// TaskOf is the proto's task t in the wire model.
func TaskOf(t *a2apb.Task) *wire.Task {
	w := &wire.Task{ID: t.GetId(), ContextID: t.GetContextId(), Status: wireStatusOf(t.GetStatus()), Metadata: wireMap(t.GetMetadata())}
	for _, a := range t.GetArtifacts() {
		w.Artifacts = append(w.Artifacts, wireArtifactOf(a))
	}
	for _, m := range t.GetHistory() {
		w.History = append(w.History, *MessageOf(m))
	}
	return w
}

// EventOf reads a stream event, exactly one member of which is set.
func EventOf(r *a2apb.StreamResponse) (wire.Event, error) {
	switch p := r.GetPayload().(type) {
	case *a2apb.StreamResponse_Task:
		return wire.Event{Task: TaskOf(p.Task)}, nil
	case *a2apb.StreamResponse_Message:
		return wire.Event{Message: MessageOf(p.Message)}, nil
	case *a2apb.StreamResponse_StatusUpdate:
		u := p.StatusUpdate
		return wire.Event{Status: &wire.StatusUpdate{TaskID: u.GetTaskId(), ContextID: u.GetContextId(),
			Status: wireStatusOf(u.GetStatus()), Metadata: wireMap(u.GetMetadata())}}, nil
	case *a2apb.StreamResponse_ArtifactUpdate:
		u := p.ArtifactUpdate
		return wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: u.GetTaskId(), ContextID: u.GetContextId(),
			Artifact: wireArtifactOf(u.GetArtifact()), Append: u.GetAppend(), LastChunk: u.GetLastChunk(), Metadata: wireMap(u.GetMetadata())}}, nil
	}
	return wire.Event{}, errors.New("testkit: stream event has none of task, message, statusUpdate, artifactUpdate")
}
