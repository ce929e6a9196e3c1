package codecv10

// The v1.0 codec's decoding half (wire → canonical); codec.go holds
// its wire types and encoding.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// ---------------------------------------------------------------------------
// Wire → canonical. Each request is read in one encoding/json pass into
// structs whose pointer fields record presence; the checks afterwards know
// the path of every field they look at. Only a JSON type error needs the
// slower path search in v10TypeErrorPath.

// v10Int is a ProtoJSON int32: a JSON number or a decimal string.
type v10Int struct {
	set bool
	n   int
}

var v10IntType = reflect.TypeFor[int]()

// UnmarshalJSON accepts 5 and "5". Its errors are UnmarshalTypeErrors so
// that encoding/json adds the field path to them.
func (v *v10Int) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*v = v10Int{}
		return nil
	}
	s := string(b)
	kind := "number " + s
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return &json.UnmarshalTypeError{Value: "string", Type: v10IntType}
		}
		s, kind = str, "string "+strconv.Quote(str)
	} else if len(b) > 0 && (b[0] == '{' || b[0] == '[' || b[0] == 't' || b[0] == 'f') {
		kind = map[byte]string{'{': "object", '[': "array", 't': "bool", 'f': "bool"}[b[0]]
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return &json.UnmarshalTypeError{Value: kind, Type: v10IntType}
	}
	*v = v10Int{set: true, n: int(n)}
	return nil
}

func (v v10Int) ptr() *int {
	if !v.set {
		return nil
	}
	n := v.n
	return &n
}

type v10PartIn struct {
	Text      *string         `json:"text"`
	Raw       *string         `json:"raw"`
	URL       *string         `json:"url"`
	Data      json.RawMessage `json:"data"`
	Metadata  map[string]any  `json:"metadata"`
	Filename  string          `json:"filename"`
	MediaType string          `json:"mediaType"`
}

type v10MessageIn struct {
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId"`
	TaskID           string          `json:"taskId"`
	Role             json.RawMessage `json:"role"`
	Parts            []v10PartIn     `json:"parts"`
	Metadata         map[string]any  `json:"metadata"`
	Extensions       []string        `json:"extensions"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds"`
}

type v10AuthIn struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials"`
}

type v10PushIn struct {
	Tenant         string     `json:"tenant"`
	ID             string     `json:"id"`
	TaskID         string     `json:"taskId"`
	URL            string     `json:"url"`
	Token          string     `json:"token"`
	Authentication *v10AuthIn `json:"authentication"`
}

type v10SendIn struct {
	Tenant        string           `json:"tenant"`
	Message       *v10MessageIn    `json:"message"`
	Configuration *v10SendConfigIn `json:"configuration"`
	Metadata      map[string]any   `json:"metadata"`

	ignored ignoredMembers
}

type v10SendConfigIn struct {
	AcceptedOutputModes        []string   `json:"acceptedOutputModes"`
	HistoryLength              v10Int     `json:"historyLength"`
	ReturnImmediately          bool       `json:"returnImmediately"`
	TaskPushNotificationConfig *v10PushIn `json:"taskPushNotificationConfig"`
}

// v10TaskIn covers GetTaskRequest, CancelTaskRequest and
// SubscribeToTaskRequest.
type v10TaskIn struct {
	Tenant        string         `json:"tenant"`
	ID            string         `json:"id"`
	HistoryLength v10Int         `json:"historyLength"`
	Metadata      map[string]any `json:"metadata"`
}

type v10ListIn struct {
	Tenant               string          `json:"tenant"`
	ContextID            string          `json:"contextId"`
	Status               json.RawMessage `json:"status"`
	PageSize             v10Int          `json:"pageSize"`
	PageToken            string          `json:"pageToken"`
	HistoryLength        v10Int          `json:"historyLength"`
	StatusTimestampAfter string          `json:"statusTimestampAfter"`
	IncludeArtifacts     bool            `json:"includeArtifacts"`
}

// v10PushRefIn covers the Get, Delete and List push-config requests.
type v10PushRefIn struct {
	Tenant    string `json:"tenant"`
	TaskID    string `json:"taskId"`
	ID        string `json:"id"`
	PageSize  v10Int `json:"pageSize"`
	PageToken string `json:"pageToken"`
}

type v10CardIn struct {
	Tenant string `json:"tenant"`
}

// DecodeParams implements Codec. Unknown keys are ignored; absent or null
// params read as {}, so the error names the first missing required field.
func (v10Codec) DecodeParams(op wire.Op, params []byte) (*wire.Request, *wire.Error) {
	raw := bytes.TrimSpace(params)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		if !json.Valid(raw) {
			return nil, wire.Errorf(wire.CodeParseError, "parse error: params are not valid JSON")
		}
		return nil, wire.ErrInvalidParams("params", "must be an object")
	}
	req := &wire.Request{Op: op, Dialect: wire.V10}
	var e *wire.Error
	switch op {
	case wire.OpSend, wire.OpStream:
		e = decodeSend10(raw, req)
	case wire.OpGetTask, wire.OpCancelTask, wire.OpSubscribe:
		var in v10TaskIn
		if e = v10Unmarshal(raw, &in); e != nil {
			break
		}
		req.Tenant, req.TaskID = in.Tenant, in.ID
		if in.ID == "" {
			e = wire.ErrInvalidParams("id", "is required")
			break
		}
		switch op {
		case wire.OpGetTask:
			req.HistoryLength, e = v10HistoryLength(in.HistoryLength, "historyLength")
		case wire.OpCancelTask:
			req.Metadata = in.Metadata
		}
	case wire.OpListTasks:
		e = decodeList10(raw, req)
	case wire.OpSetPushConfig:
		var in v10PushIn
		if e = v10Unmarshal(raw, &in); e != nil {
			break
		}
		if in.TaskID == "" {
			e = wire.ErrInvalidParams("taskId", "is required")
			break
		}
		req.Tenant, req.TaskID, req.PushConfigID = in.Tenant, in.TaskID, in.ID
		req.PushConfig, e = decodePush10(&in, "")
	case wire.OpGetPushConfig, wire.OpDeletePush, wire.OpListPushConfigs:
		var in v10PushRefIn
		if e = v10Unmarshal(raw, &in); e != nil {
			break
		}
		req.Tenant, req.TaskID = in.Tenant, in.TaskID
		if in.TaskID == "" {
			e = wire.ErrInvalidParams("taskId", "is required")
			break
		}
		if op == wire.OpListPushConfigs {
			if in.PageSize.n < 0 {
				e = wire.ErrInvalidParams("pageSize", "must not be negative")
				break
			}
			req.List.PageSize, req.List.PageToken = in.PageSize.n, in.PageToken
			break
		}
		if in.ID == "" {
			e = wire.ErrInvalidParams("id", "is required")
			break
		}
		req.PushConfigID = in.ID
	case wire.OpExtendedCard:
		var in v10CardIn
		if e = v10Unmarshal(raw, &in); e == nil {
			req.Tenant = in.Tenant
		}
	default:
		e = wire.Errorf(wire.CodeMethodNotFound, "method not found: %q is not a v1.0 operation", op)
	}
	if e != nil {
		return nil, e
	}
	if op != wire.OpSend && op != wire.OpStream {
		req.Ignored = ignoredParams(op, raw)
	}
	return req, nil
}

func decodeSend10(raw []byte, req *wire.Request) *wire.Error {
	var in v10SendIn
	if in.scan(raw) {
		return decodeSendFrom(&in, req)
	}
	// encoding/json reads into a value of its own: &in handed to it would
	// put every request's v10SendIn on the heap, the scanned ones too.
	slow := new(v10SendIn)
	if e := v10Unmarshal(raw, slow); e != nil {
		return e
	}
	return decodeSendFrom(slow, req)
}

// decodeSendFrom checks what was read of a SendMessage request and fills
// req from it.
func decodeSendFrom(in *v10SendIn, req *wire.Request) *wire.Error {
	req.Tenant, req.Metadata, req.Ignored = in.Tenant, in.Metadata, in.ignored.paths
	if in.Message == nil {
		return wire.ErrInvalidParams("message", "is required")
	}
	m, e := decodeMessage10(in.Message, "message")
	if e != nil {
		return e
	}
	req.Message = m
	if c := in.Configuration; c != nil {
		req.Config.AcceptedOutputModes = c.AcceptedOutputModes
		req.Config.ReturnImmediately = c.ReturnImmediately
		if req.Config.HistoryLength, e = v10HistoryLength(c.HistoryLength, "configuration.historyLength"); e != nil {
			return e
		}
		if c.TaskPushNotificationConfig != nil {
			pc, e := decodePush10(c.TaskPushNotificationConfig, "configuration.taskPushNotificationConfig")
			if e != nil {
				return e
			}
			req.Config.PushConfig = pc
		}
	}
	return nil
}

func decodeMessage10(in *v10MessageIn, path string) (*wire.Message, *wire.Error) {
	if in.MessageID == "" {
		return nil, wire.ErrInvalidParams(path+".messageId", "is required")
	}
	role, e := decodeRole10(in.Role, path)
	if e != nil {
		return nil, e
	}
	if in.Parts == nil {
		return nil, wire.ErrInvalidParams(path+".parts", "is required")
	}
	if len(in.Parts) == 0 {
		return nil, wire.ErrInvalidParams(path+".parts", "must not be empty")
	}
	m := &wire.Message{
		MessageID:        in.MessageID,
		ContextID:        in.ContextID,
		TaskID:           in.TaskID,
		Role:             role,
		Parts:            make([]wire.Part, len(in.Parts)),
		Metadata:         in.Metadata,
		Extensions:       in.Extensions,
		ReferenceTaskIDs: in.ReferenceTaskIDs,
	}
	for i := range in.Parts {
		if e := decodePart10(&in.Parts[i], path, i, &m.Parts[i]); e != nil {
			return nil, e
		}
	}
	return m, nil
}

// decodeRole10 reads the role of the message at msgPath; the role's own
// path is spelt only for an error.
func decodeRole10(raw json.RawMessage, msgPath string) (wire.Role, *wire.Error) {
	path := func() string { return msgPath + ".role" }
	switch string(raw) {
	case `"ROLE_USER"`, `1`:
		return wire.RoleUser, nil
	case `"ROLE_AGENT"`, `2`:
		return wire.RoleAgent, nil
	case ``, `null`, `"ROLE_UNSPECIFIED"`, `0`, `""`:
		return "", wire.ErrInvalidParams(path(), "is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "ROLE_USER":
			return wire.RoleUser, nil
		case "ROLE_AGENT":
			return wire.RoleAgent, nil
		}
		return "", wire.ErrInvalidParams(path(), fmt.Sprintf(`must be "ROLE_USER" or "ROLE_AGENT", not %q`, s))
	}
	return "", wire.ErrInvalidParams(path(), fmt.Sprintf(`must be "ROLE_USER" or "ROLE_AGENT", not %s`, v10Snippet(raw)))
}

// decodePart10 reads part i of the message at path; the part's own path is
// spelt only for an error.
func decodePart10(in *v10PartIn, msgPath string, i int, out *wire.Part) *wire.Error {
	path := func() string { return msgPath + ".parts[" + strconv.Itoa(i) + "]" }
	hasData := len(in.Data) > 0 && !bytes.Equal(in.Data, []byte("null"))
	var set []string
	if in.Text != nil {
		set = append(set, "text")
	}
	if in.Raw != nil {
		set = append(set, "raw")
	}
	if in.URL != nil {
		set = append(set, "url")
	}
	if hasData {
		set = append(set, "data")
	}
	switch len(set) {
	case 0:
		return wire.ErrInvalidParams(path(), "must have one of text, raw, url, data")
	case 1:
	default:
		return wire.ErrInvalidParams(path(), "must have only one of text, raw, url, data, not "+strings.Join(set, " and "))
	}
	*out = wire.Part{MediaType: in.MediaType, Filename: in.Filename, Metadata: in.Metadata}
	switch set[0] {
	case "text":
		out.Kind, out.Text = wire.PartText, *in.Text
	case "raw":
		b, err := v10Base64(*in.Raw)
		if err != nil {
			return wire.ErrInvalidParams(path()+".raw", "must be base64")
		}
		out.Kind, out.Raw = wire.PartFile, b
	case "url":
		if *in.URL == "" {
			return wire.ErrInvalidParams(path()+".url", "must not be empty")
		}
		out.Kind, out.URL = wire.PartFile, *in.URL
	case "data":
		out.Kind = wire.PartData
		if err := json.Unmarshal(in.Data, &out.Data); err != nil {
			return wire.ErrInvalidParams(path()+".data", "must be a JSON value")
		}
	}
	return nil
}

// v10Base64 accepts padded and unpadded, standard and URL-safe base64, as
// ProtoJSON parsers do. It is not decodeBase64: it strips trailing '=' before
// the unpadded tries (forgiving wrong padding), and on padding mixed with
// line breaks the two disagree both ways, so each dialect keeps its own.
func v10Base64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(s)
}

func decodePush10(in *v10PushIn, path string) (*wire.PushConfig, *wire.Error) {
	if in.URL == "" {
		return nil, wire.ErrInvalidParams(wirejson.JoinPath(path, "url"), "is required")
	}
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, wire.ErrInvalidParams(wirejson.JoinPath(path, "url"), fmt.Sprintf("must be an absolute http(s) URL, not %q", in.URL))
	}
	pc := &wire.PushConfig{ID: in.ID, TaskID: in.TaskID, URL: in.URL, Token: in.Token, Tenant: in.Tenant}
	if a := in.Authentication; a != nil {
		if a.Scheme == "" {
			return nil, wire.ErrInvalidParams(wirejson.JoinPath(path, "authentication.scheme"), "is required")
		}
		pc.AuthSchemes, pc.AuthCredentials = []string{a.Scheme}, a.Credentials
	}
	return pc, nil
}

func decodeList10(raw []byte, req *wire.Request) *wire.Error {
	var in v10ListIn
	if e := v10Unmarshal(raw, &in); e != nil {
		return e
	}
	req.Tenant = in.Tenant
	q := &req.List
	q.ContextID, q.PageToken, q.IncludeArtifacts = in.ContextID, in.PageToken, in.IncludeArtifacts
	if len(in.Status) > 0 && !bytes.Equal(in.Status, []byte("null")) {
		name := string(in.Status)
		if in.Status[0] == '"' {
			if json.Unmarshal(in.Status, &name) != nil {
				return wire.ErrInvalidParams("status", "must be a task state name")
			}
		}
		s, ok := wire.StateFromV10(name)
		if !ok {
			return wire.ErrInvalidParams("status", fmt.Sprintf("must be a task state such as \"TASK_STATE_WORKING\", not %s", v10Snippet(in.Status)))
		}
		q.State = s
	}
	// pageSize is an optional field: unset is the default, an explicit 0
	// is out of its range (1 to 100), as over HTTP+JSON.
	switch n := in.PageSize.n; {
	case !in.PageSize.set:
		q.PageSize = v10DefaultPageSize
	case n < 1 || n > v10MaxPageSize:
		return wire.ErrInvalidParams("pageSize", fmt.Sprintf("must be between 1 and %d, not %d", v10MaxPageSize, n))
	default:
		q.PageSize = n
	}
	var e *wire.Error
	if q.HistoryLength, e = v10HistoryLength(in.HistoryLength, "historyLength"); e != nil {
		return e
	}
	if in.StatusTimestampAfter != "" {
		t, err := wirejson.ParseTime(in.StatusTimestampAfter)
		if err != nil {
			return wire.ErrInvalidParams("statusTimestampAfter", fmt.Sprintf("must be an RFC 3339 timestamp, not %q", in.StatusTimestampAfter))
		}
		q.StatusTimestampAfter = t
	}
	return nil
}

func v10HistoryLength(v v10Int, path string) (*int, *wire.Error) {
	n := v.ptr()
	if e := wirejson.CheckHistoryLength(n, path); e != nil {
		return nil, e
	}
	return n, nil
}

// v10Snippet quotes a wire value for an error message, cut short so a huge
// value cannot bloat the error.
func v10Snippet(raw []byte) string {
	const limit = 40
	if len(raw) > limit {
		return string(raw[:limit]) + "…"
	}
	return string(raw)
}

// v10Unmarshal decodes the params object raw into v, turning a JSON type
// mismatch into an InvalidParams error that names the field with its array
// indexes.
func v10Unmarshal(raw []byte, v any) *wire.Error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return wire.ErrInvalidParams(v10TypeErrorPath(raw, te), fmt.Sprintf("must be %s, not %s", wirejson.JSONKind(te.Type), te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return wire.Errorf(wire.CodeParseError, "parse error: params are not valid JSON: %v", err)
	}
	return wire.ErrInvalidParams("params", err.Error())
}

// v10TypeErrorPath finds where in raw the mismatch te reports happened.
// encoding/json names the field ("message.parts.text") but not the array
// index, so the document is walked along that field path, trying every
// element of the arrays on the way, to the first value of the reported JSON
// type.
func v10TypeErrorPath(raw []byte, te *json.UnmarshalTypeError) string {
	if te.Field == "" {
		return "params"
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return te.Field
	}
	want, _, _ := strings.Cut(te.Value, " ")
	if p, ok := v10Find(tree, strings.Split(te.Field, "."), "", want); ok {
		return p
	}
	return te.Field
}

func v10Find(node any, segs []string, path, want string) (string, bool) {
	if len(segs) == 0 {
		if v10KindOf(node) == want {
			return path, true
		}
		// A mismatch inside a []string or similar is reported at the
		// slice's field; the culprit is one of its elements.
		if arr, ok := node.([]any); ok {
			for i, el := range arr {
				if v10KindOf(el) == want {
					return wirejson.IndexPath(path, i), true
				}
			}
		}
		return "", false
	}
	switch n := node.(type) {
	case []any:
		for i, el := range n {
			if p, ok := v10Find(el, segs, wirejson.IndexPath(path, i), want); ok {
				return p, true
			}
		}
	case map[string]any:
		key := segs[0]
		child, ok := n[key]
		if !ok {
			// encoding/json matches keys case-insensitively.
			for k, v := range n {
				if strings.EqualFold(k, key) {
					key, child, ok = k, v, true
					break
				}
			}
		}
		if ok {
			return v10Find(child, segs[1:], wirejson.JoinPath(path, key), want)
		}
	}
	return "", false
}

func v10KindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
