package codecv10

// The fast path of decoding a SendMessage request: the shape clients send
// (a message of text, file and data parts, a configuration without a push
// config) read member by member with jsonscan into the same structs
// encoding/json fills, so everything after (the checks, the canonical
// request) is one code. Anything else — null, a key in another case, a
// repeated key, a value of another type, a push config — is left to
// encoding/json, which also words every error. scan_test.go checks the
// two read the same on random and fuzzed requests.

import (
	"bytes"
	"encoding/json"

	"github.com/a2amock/a2amock/wire/internal/jsonscan"
)

// scanMap reads an object into a map[string]any as encoding/json does
// (it is encoding/json that reads it: values of any shape). It unmarshals
// into a map of its own, not through m: m handed to encoding/json would
// move the struct m is a field of to the heap, on every request.
func scanMap(s *jsonscan.Scanner, m *map[string]any) bool {
	if s.Peek() != '{' {
		return false
	}
	raw, ok := s.Skip()
	if !ok {
		return false
	}
	v, ok := unmarshalMap(raw)
	*m = v
	return ok
}

// unmarshalMap is encoding/json's reading of an object into a map.
func unmarshalMap(raw []byte) (map[string]any, bool) {
	m := new(map[string]any)
	ok := json.Unmarshal(raw, m) == nil
	return *m, ok
}

// scanString reads a string member.
func scanString(s *jsonscan.Scanner, v *string) bool {
	var ok bool
	*v, ok = s.String()
	return ok
}

// scanStringPtr reads a string member into a pointer of its own.
func scanStringPtr(s *jsonscan.Scanner, v **string) bool {
	str, ok := s.String()
	*v = &str
	return ok
}

func scanStrings(s *jsonscan.Scanner, v *[]string) bool {
	var ok bool
	*v, ok = s.Strings()
	return ok
}

// scanRaw reads any value as a json.RawMessage, copied as encoding/json
// copies it.
func scanRaw(s *jsonscan.Scanner, v *json.RawMessage) bool {
	raw, ok := s.Skip()
	*v = bytes.Clone(raw)
	return ok
}

func (in *v10SendIn) scan(raw []byte) bool {
	s := jsonscan.New(raw)
	ig := &in.ignored
	ok := s.Object(func(key []byte) bool {
		switch string(key) {
		case "tenant":
			return scanString(s, &in.Tenant)
		case "message":
			in.Message = &v10MessageIn{}
			return in.Message.scan(s, ig)
		case "configuration":
			in.Configuration = &v10SendConfigIn{}
			return in.Configuration.scan(s, ig)
		case "metadata":
			return scanMap(s, &in.Metadata)
		}
		return ig.skip(s, "", -1, key, "tenant", "message", "configuration", "metadata")
	})
	return ok && s.End()
}

func (c *v10SendConfigIn) scan(s *jsonscan.Scanner, ig *ignoredMembers) bool {
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "acceptedOutputModes":
			return scanStrings(s, &c.AcceptedOutputModes)
		case "historyLength":
			raw, ok := s.Skip()
			// v10Int reads a number or a decimal string; its errors
			// are for encoding/json to place.
			return ok && c.HistoryLength.UnmarshalJSON(raw) == nil
		case "returnImmediately":
			var ok bool
			c.ReturnImmediately, ok = s.Bool()
			return ok
		}
		// A push config is left to encoding/json.
		return ig.skip(s, "configuration", -1, key, "acceptedOutputModes", "historyLength", "returnImmediately", "taskPushNotificationConfig")
	})
}

func (m *v10MessageIn) scan(s *jsonscan.Scanner, ig *ignoredMembers) bool {
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "messageId":
			return scanString(s, &m.MessageID)
		case "contextId":
			return scanString(s, &m.ContextID)
		case "taskId":
			return scanString(s, &m.TaskID)
		case "role":
			// Not copied: decodeRole10 reads it at once and keeps none of it.
			raw, ok := s.Skip()
			m.Role = raw
			return ok
		case "parts":
			m.Parts = []v10PartIn{}
			return s.Array(func() bool {
				m.Parts = append(m.Parts, v10PartIn{})
				return m.Parts[len(m.Parts)-1].scan(s, ig, len(m.Parts)-1)
			})
		case "metadata":
			return scanMap(s, &m.Metadata)
		case "extensions":
			return scanStrings(s, &m.Extensions)
		case "referenceTaskIds":
			return scanStrings(s, &m.ReferenceTaskIDs)
		}
		return ig.skip(s, "message", -1, key, "messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds")
	})
}

func (p *v10PartIn) scan(s *jsonscan.Scanner, ig *ignoredMembers, index int) bool {
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "text":
			return scanStringPtr(s, &p.Text)
		case "raw":
			return scanStringPtr(s, &p.Raw)
		case "url":
			return scanStringPtr(s, &p.URL)
		case "data":
			return scanRaw(s, &p.Data)
		case "metadata":
			return scanMap(s, &p.Metadata)
		case "filename":
			return scanString(s, &p.Filename)
		case "mediaType":
			return scanString(s, &p.MediaType)
		}
		return ig.skip(s, "message.parts", index, key, "text", "raw", "url", "data", "metadata", "filename", "mediaType")
	})
}
