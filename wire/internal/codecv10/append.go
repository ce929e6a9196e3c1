package codecv10

// The answers every request carries (a send's task, a stream's events) are
// written by appending straight from the canonical model into one buffer:
// encoding/json went through the wire structs of codec.go (a copy of every
// part, message and artifact) and reflection, and was the largest share of
// a send's answer. The output is byte for byte what json.Marshal writes for
// those structs (append_test.go checks it on random tasks and events and
// fuzzes it); the members whose value is any JSON (metadata, data parts)
// are still marshalled by encoding/json.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// appendString appends s as a JSON string, as encoding/json writes it
// (with its HTML escaping): printable ASCII that needs no escape is
// copied, anything else is left to encoding/json.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendMember appends `,"key":` (or `"key":` as the first member).
func appendMember(dst []byte, first bool, key string) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendAny appends v as encoding/json marshals it.
func appendAny(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendMetadata appends `,"metadata":{…}` when m has members (the wire
// structs' omitempty).
func appendMetadata(dst []byte, first bool, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	return appendAny(appendMember(dst, first, "metadata"), m)
}

func appendPart10(dst []byte, i int, p *wire.Part) ([]byte, error) {
	dst = append(dst, '{')
	switch p.Kind {
	case wire.PartText:
		dst = appendString(appendMember(dst, true, "text"), p.Text)
	case wire.PartFile:
		if p.URL != "" && p.Raw == nil {
			dst = appendString(appendMember(dst, true, "url"), p.URL)
		} else {
			// As encodeParts10: the bytes win over the URL.
			dst = appendMember(dst, true, "raw")
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, p.Raw)
			dst = append(dst, '"')
		}
	case wire.PartData:
		var err error
		dst = appendMember(dst, true, "data")
		if p.Data == nil {
			dst = append(dst, '{', '}') // v10EmptyData
		} else if dst, err = appendAny(dst, p.Data); err != nil {
			return dst, err
		}
	default:
		return dst, fmt.Errorf("a2a: v1.0: part %d has unknown kind %q", i, p.Kind)
	}
	// One member is written: what follows starts with a comma.
	var err error
	if dst, err = appendMetadata(dst, false, p.Metadata); err != nil {
		return dst, err
	}
	if p.Filename != "" {
		dst = appendString(appendMember(dst, false, "filename"), p.Filename)
	}
	if p.MediaType != "" {
		dst = appendString(appendMember(dst, false, "mediaType"), p.MediaType)
	}
	return append(dst, '}'), nil
}

func appendParts10(dst []byte, parts []wire.Part) ([]byte, error) {
	dst = append(dst, '[')
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendPart10(dst, i, &parts[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendMessage10(dst []byte, m *wire.Message) ([]byte, error) {
	dst = appendString(appendMember(append(dst, '{'), true, "messageId"), m.MessageID)
	if m.ContextID != "" {
		dst = appendString(appendMember(dst, false, "contextId"), m.ContextID)
	}
	if m.TaskID != "" {
		dst = appendString(appendMember(dst, false, "taskId"), m.TaskID)
	}
	dst = appendString(appendMember(dst, false, "role"), wire.RoleToV10(m.Role))
	var err error
	if dst, err = appendParts10(appendMember(dst, false, "parts"), m.Parts); err != nil {
		return dst, err
	}
	if dst, err = appendMetadata(dst, false, m.Metadata); err != nil {
		return dst, err
	}
	if len(m.Extensions) > 0 {
		dst = appendStrings(appendMember(dst, false, "extensions"), m.Extensions)
	}
	if len(m.ReferenceTaskIDs) > 0 {
		dst = appendStrings(appendMember(dst, false, "referenceTaskIds"), m.ReferenceTaskIDs)
	}
	return append(dst, '}'), nil
}

func appendStatus10(dst []byte, s *wire.TaskStatus) ([]byte, error) {
	dst = appendString(appendMember(append(dst, '{'), true, "state"), wire.StateToV10(s.State))
	if s.Message != nil {
		var err error
		if dst, err = appendMessage10(appendMember(dst, false, "message"), s.Message); err != nil {
			return dst, err
		}
	}
	if !s.Timestamp.IsZero() {
		// The layout writes digits, '-', ':', '.', 'T' and 'Z': nothing
		// to escape.
		dst = append(appendMember(dst, false, "timestamp"), '"')
		dst = append(wirejson.AppendTime(dst, s.Timestamp), '"')
	}
	return append(dst, '}'), nil
}

func appendArtifact10(dst []byte, a *wire.Artifact) ([]byte, error) {
	dst = appendString(appendMember(append(dst, '{'), true, "artifactId"), a.ArtifactID)
	if a.Name != "" {
		dst = appendString(appendMember(dst, false, "name"), a.Name)
	}
	if a.Description != "" {
		dst = appendString(appendMember(dst, false, "description"), a.Description)
	}
	var err error
	if dst, err = appendParts10(appendMember(dst, false, "parts"), a.Parts); err != nil {
		return dst, err
	}
	if dst, err = appendMetadata(dst, false, a.Metadata); err != nil {
		return dst, err
	}
	if len(a.Extensions) > 0 {
		dst = appendStrings(appendMember(dst, false, "extensions"), a.Extensions)
	}
	return append(dst, '}'), nil
}

func appendTask10(dst []byte, t *wire.Task) ([]byte, error) {
	dst = appendString(appendMember(append(dst, '{'), true, "id"), t.ID)
	if t.ContextID != "" {
		dst = appendString(appendMember(dst, false, "contextId"), t.ContextID)
	}
	var err error
	if dst, err = appendStatus10(appendMember(dst, false, "status"), &t.Status); err != nil {
		return dst, err
	}
	if len(t.Artifacts) > 0 {
		dst = append(appendMember(dst, false, "artifacts"), '[')
		for i := range t.Artifacts {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendArtifact10(dst, &t.Artifacts[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	if len(t.History) > 0 {
		dst = append(appendMember(dst, false, "history"), '[')
		for i := range t.History {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendMessage10(dst, &t.History[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	if dst, err = appendMetadata(dst, false, t.Metadata); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendEvent10 appends ev as a v1.0 StreamResponse; ev has exactly one
// member (EncodeEvent checks).
func appendEvent10(dst []byte, ev wire.Event) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	switch {
	case ev.Task != nil:
		dst, err = appendTask10(appendMember(dst, true, "task"), ev.Task)
	case ev.Message != nil:
		dst, err = appendMessage10(appendMember(dst, true, "message"), ev.Message)
	case ev.Status != nil:
		u := ev.Status
		dst = appendString(appendMember(append(appendMember(dst, true, "statusUpdate"), '{'), true, "taskId"), u.TaskID)
		dst = appendString(appendMember(dst, false, "contextId"), u.ContextID)
		// Final is deliberately dropped: v1.0 ends a stream by closing it.
		if dst, err = appendStatus10(appendMember(dst, false, "status"), &u.Status); err != nil {
			return dst, err
		}
		dst, err = appendMetadata(dst, false, u.Metadata)
		dst = append(dst, '}')
	case ev.Artifact != nil:
		u := ev.Artifact
		dst = appendString(appendMember(append(appendMember(dst, true, "artifactUpdate"), '{'), true, "taskId"), u.TaskID)
		dst = appendString(appendMember(dst, false, "contextId"), u.ContextID)
		if dst, err = appendArtifact10(appendMember(dst, false, "artifact"), &u.Artifact); err != nil {
			return dst, err
		}
		if u.Append {
			dst = append(appendMember(dst, false, "append"), "true"...)
		}
		if u.LastChunk {
			dst = append(appendMember(dst, false, "lastChunk"), "true"...)
		}
		dst, err = appendMetadata(dst, false, u.Metadata)
		dst = append(dst, '}')
	}
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendTaskPage10 appends a ListTasksResponse.
func appendTaskPage10(dst []byte, page *wire.TaskPage) ([]byte, error) {
	dst = append(appendMember(append(dst, '{'), true, "tasks"), '[')
	n := 0
	for _, t := range page.Tasks {
		if t == nil {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		var err error
		if dst, err = appendTask10(dst, t); err != nil {
			return nil, err
		}
	}
	dst = appendString(appendMember(append(dst, ']'), false, "nextPageToken"), page.NextPageToken)
	dst = strconv.AppendInt(appendMember(dst, false, "pageSize"), int64(page.PageSize), 10)
	dst = strconv.AppendInt(appendMember(dst, false, "totalSize"), int64(page.TotalSize), 10)
	return append(dst, '}'), nil
}
