// Package canon turns recorded answers into the canonical model, so a
// replay (package record/replay) can play them through the engine. A
// recorded value is read in the form of the binding that will serve it
// (Reader: a JSON-RPC result, an HTTP+JSON body or a gRPC message's
// JSON, v1.0's or v0.3's proto JSON) and taken into the model only when
// that binding renders the decoded value back to the same JSON: what the
// model cannot carry (an unknown member, another spelling, a v0.1 shape)
// leaves the exchange to be replayed as recorded bytes. It also reads the
// ids a recorded request names (RequestMessage, RequestTaskID).
package canon

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"time"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/wire/codecs"

	"github.com/a2amock/a2amock/wire"
)

// Answer is one recorded A2A value: a unary result (a task or a message),
// one stream event or an error. Results of the other operations (pages,
// push configs, cards) are not decoded: the engine answers them from its
// own state.
type Answer struct {
	Event wire.Event
	Err   *wire.Error
}

// DialectOf is the codec a recorded exchange is decoded with: the JSON-RPC
// method's dialect; for HTTP+JSON, the dialect whose routes are below the
// path's prefix (v0.3's /v0.3/v1/...), v1.0 otherwise.
func DialectOf(x *record.Exchange) (wire.Dialect, wire.Op, wire.Binding) {
	switch x.Kind {
	case record.KindJSONRPC:
		d, op, ok := wire.LookupMethod(x.Method)
		if !ok {
			return "", "", wire.BindingJSONRPC
		}
		return d, op, wire.BindingJSONRPC
	case record.KindGRPC:
		// The path names the service, and so the dialect.
		d, op, _ := wire.LookupGRPCMethod(x.Path)
		return d, op, wire.BindingGRPC
	case record.KindREST:
		httpMethod, route, _ := strings.Cut(x.Method, " ")
		if d, at := wire.RESTRoutesAt(route); at >= 0 {
			return d, restOp(httpMethod, route), wire.BindingREST
		}
		return wire.ForBinding(wire.BindingREST), restOp(httpMethod, route), wire.BindingREST
	}
	return "", "", ""
}

// restOp names the operation of an HTTP+JSON route (with ids as {id}).
func restOp(method, route string) wire.Op {
	switch {
	case method == "POST" && strings.HasSuffix(route, "/message:send"):
		return wire.OpSend
	case method == "POST" && strings.HasSuffix(route, "/message:stream"):
		return wire.OpStream
	case method == "GET" && strings.HasSuffix(route, "/tasks/{id}"):
		return wire.OpGetTask
	case method == "GET" && strings.HasSuffix(route, "/tasks"):
		return wire.OpListTasks
	case strings.HasSuffix(route, "/tasks/{id}:cancel"):
		return wire.OpCancelTask
	case strings.HasSuffix(route, "/tasks/{id}:subscribe"):
		return wire.OpSubscribe
	case strings.HasSuffix(route, "/extendedAgentCard"):
		return wire.OpExtendedCard
	}
	return ""
}

// resultOf returns the JSON-RPC result or error of an envelope, or for
// HTTP+JSON the body itself.
func resultOf(b json.RawMessage, rpc bool) (result json.RawMessage, rpcErr json.RawMessage, ok bool) {
	if !rpc {
		return b, nil, len(b) > 0
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &env) != nil || env.JSONRPC != "2.0" {
		return nil, nil, false
	}
	if len(env.Error) > 0 {
		return nil, env.Error, true
	}
	return env.Result, nil, len(env.Result) > 0
}

// Decode takes one recorded value into the model: a JSON-RPC envelope's
// result or error, an HTTP+JSON body, or a gRPC message's JSON. stream
// says it is a stream event rather than a unary result.
func (r *Reader) Decode(body json.RawMessage, stream bool) (Answer, error) {
	f, op := r.f, r.Op
	if f == nil {
		return Answer{}, fmt.Errorf("no codec renders A2A v%s %s answers", r.Dialect, r.Binding)
	}
	codec := f.codec
	result, rpcErr, ok := resultOf(body, r.Binding == wire.BindingJSONRPC)
	if !ok {
		return Answer{}, errors.New("not an A2A answer")
	}
	if rpcErr != nil {
		var e struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		}
		if err := json.Unmarshal(rpcErr, &e); err != nil {
			return Answer{}, fmt.Errorf("error object: %w", err)
		}
		we := &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data}
		var got struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(wire.EncodeRPCError(nil, we, codec.EncodeErrorData(we)), &got)
		if !jsonEqual(got.Error, rpcErr) {
			return Answer{}, errors.New("the error object carries what the model does not")
		}
		return Answer{Err: we}, nil
	}
	var ev wire.Event
	var err error
	// A dialect whose results are wrapped answers GetTask and CancelTask
	// with a bare task, which has no member naming its kind.
	if !stream && f.wrapped && (op == wire.OpGetTask || op == wire.OpCancelTask) {
		ev.Task, err = decodeTask(f, result)
	} else {
		ev, err = decodeEvent(f, result)
	}
	if err != nil {
		return Answer{}, err
	}
	var enc []byte
	if stream {
		enc, err = codec.EncodeEvent(ev)
	} else {
		if ev.Status != nil || ev.Artifact != nil {
			return Answer{}, errors.New("a unary Answer that is an update event")
		}
		enc, err = codec.EncodeResult(op, &wire.Result{Task: ev.Task, Message: ev.Message})
	}
	if err == nil {
		enc, err = r.render(enc)
	}
	if err != nil {
		return Answer{}, err
	}
	if !jsonEqual(enc, result) {
		return Answer{}, errors.New("the Answer carries what the model does not (it would not be rendered the same)")
	}
	return Answer{Event: ev}, nil
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// decodeEvent reads a task, message, status update or artifact update in
// the form's shape: one member naming the kind (v1.0's, a
// SendMessageResponse or a StreamResponse), or a kind member (v0.x's
// JSON-RPC).
func decodeEvent(f *form, b json.RawMessage) (wire.Event, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return wire.Event{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if f.wrapped {
		if len(top) != 1 {
			return wire.Event{}, errors.New("a response message has exactly one member")
		}
		for k, v := range top {
			switch k {
			case "task":
				t, err := decodeTask(f, v)
				return wire.Event{Task: t}, err
			case "message", "msg":
				m, err := decodeMessage(f, v)
				return wire.Event{Message: m}, err
			case "statusUpdate":
				s, err := decodeStatusUpdate(f, v)
				return wire.Event{Status: s}, err
			case "artifactUpdate":
				a, err := decodeArtifactUpdate(f, v)
				return wire.Event{Artifact: a}, err
			}
			return wire.Event{}, fmt.Errorf("unknown response member %q", k)
		}
	}
	var kind string
	_ = json.Unmarshal(top["kind"], &kind)
	switch kind {
	case "task":
		t, err := decodeTask(f, b)
		return wire.Event{Task: t}, err
	case "message":
		m, err := decodeMessage(f, b)
		return wire.Event{Message: m}, err
	case "status-update":
		s, err := decodeStatusUpdate(f, b)
		return wire.Event{Status: s}, err
	case "artifact-update":
		a, err := decodeArtifactUpdate(f, b)
		return wire.Event{Artifact: a}, err
	}
	return wire.Event{}, fmt.Errorf("kind %q is not one the model replays", kind)
}

// decodeMessage reads a message with the codec's own request decoder (a
// SendMessage request is {"message": M}).
func decodeMessage(f *form, b json.RawMessage) (*wire.Message, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	params := append(append([]byte(`{"message":`), b...), '}')
	req, e := f.codec.DecodeParams(wire.OpSend, params)
	if e != nil {
		return nil, fmt.Errorf("message: %s", e.Message)
	}
	return req.Message, nil
}

// decodeParts reads parts as the message decoder does: in a message the
// codec wrote, in place of its parts.
func decodeParts(f *form, parts json.RawMessage) ([]wire.Part, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	if f.parts == "" {
		return nil, errors.New("the codec writes no message parts")
	}
	msg := maps.Clone(f.message)
	msg[f.parts] = parts
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("parts: %w", err)
	}
	m, err := decodeMessage(f, b)
	if err != nil || m == nil {
		return nil, err
	}
	return m.Parts, nil
}

func decodeState(f *form, s string) (wire.TaskState, error) {
	st, ok := f.states[s]
	if !ok {
		return "", fmt.Errorf("state %q", s)
	}
	return st, nil
}

type recStatus struct {
	State     string          `json:"state"`
	Message   json.RawMessage `json:"message"`
	Timestamp string          `json:"timestamp"`
}

func decodeStatus(f *form, s recStatus) (wire.TaskStatus, error) {
	st, err := decodeState(f, s.State)
	if err != nil {
		return wire.TaskStatus{}, err
	}
	out := wire.TaskStatus{State: st}
	if out.Message, err = decodeMessage(f, s.Message); err != nil {
		return out, err
	}
	if s.Timestamp != "" {
		if out.Timestamp, err = time.Parse(time.RFC3339Nano, s.Timestamp); err != nil {
			return out, fmt.Errorf("timestamp: %w", err)
		}
	}
	return out, nil
}

type recArtifact struct {
	ArtifactID  string          `json:"artifactId"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parts       json.RawMessage `json:"parts"`
	Metadata    map[string]any  `json:"metadata"`
	Extensions  []string        `json:"extensions"`
}

func decodeArtifact(f *form, a recArtifact) (wire.Artifact, error) {
	parts, err := decodeParts(f, a.Parts)
	return wire.Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: parts,
		Metadata: a.Metadata, Extensions: a.Extensions}, err
}

func decodeTask(f *form, b json.RawMessage) (*wire.Task, error) {
	var t struct {
		ID        string            `json:"id"`
		ContextID string            `json:"contextId"`
		Status    recStatus         `json:"status"`
		History   []json.RawMessage `json:"history"`
		Artifacts []recArtifact     `json:"artifacts"`
		Metadata  map[string]any    `json:"metadata"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	if t.ID == "" {
		return nil, errors.New("task without an id")
	}
	status, err := decodeStatus(f, t.Status)
	if err != nil {
		return nil, err
	}
	out := &wire.Task{ID: t.ID, ContextID: t.ContextID, Status: status, Metadata: t.Metadata}
	for _, h := range t.History {
		m, err := decodeMessage(f, h)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		if m != nil {
			out.History = append(out.History, *m)
		}
	}
	for _, a := range t.Artifacts {
		art, err := decodeArtifact(f, a)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, art)
	}
	return out, nil
}

func decodeStatusUpdate(f *form, b json.RawMessage) (*wire.StatusUpdate, error) {
	var s struct {
		TaskID    string         `json:"taskId"`
		ContextID string         `json:"contextId"`
		Status    recStatus      `json:"status"`
		Final     bool           `json:"final"`
		Metadata  map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("status update: %w", err)
	}
	status, err := decodeStatus(f, s.Status)
	if err != nil {
		return nil, err
	}
	return &wire.StatusUpdate{TaskID: s.TaskID, ContextID: s.ContextID, Status: status, Final: s.Final, Metadata: s.Metadata}, nil
}

func decodeArtifactUpdate(f *form, b json.RawMessage) (*wire.ArtifactUpdate, error) {
	var a struct {
		TaskID    string         `json:"taskId"`
		ContextID string         `json:"contextId"`
		Artifact  recArtifact    `json:"artifact"`
		Append    bool           `json:"append"`
		LastChunk bool           `json:"lastChunk"`
		Metadata  map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("artifact update: %w", err)
	}
	art, err := decodeArtifact(f, a.Artifact)
	if err != nil {
		return nil, err
	}
	return &wire.ArtifactUpdate{TaskID: a.TaskID, ContextID: a.ContextID, Artifact: art, Append: a.Append, LastChunk: a.LastChunk, Metadata: a.Metadata}, nil
}

// RequestMessage reads the ids of the message a recorded send carried.
func RequestMessage(body json.RawMessage, rpc bool) (taskID, contextID, messageID string) {
	var m struct {
		TaskID    string `json:"taskId"`
		ContextID string `json:"contextId"`
		MessageID string `json:"messageId"`
	}
	var env struct {
		Params struct {
			Message json.RawMessage `json:"message"`
		} `json:"params"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", "", ""
	}
	raw := env.Message
	if rpc {
		raw = env.Params.Message
	}
	_ = json.Unmarshal(raw, &m)
	return m.TaskID, m.ContextID, m.MessageID
}

// RequestTaskID reads the task id a recorded request named (params.id,
// the id in an HTTP+JSON path, or a gRPC request message's id, or the
// task of its resource name, tasks/{id}, as v0.3's messages name it).
func RequestTaskID(kind record.Kind, path string, body json.RawMessage) string {
	if kind == record.KindGRPC {
		var m struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		_ = json.Unmarshal(body, &m)
		if m.ID != "" || !strings.HasPrefix(m.Name, "tasks/") {
			return m.ID
		}
		path = m.Name
	}
	if kind == record.KindREST || kind == record.KindGRPC {
		segs := strings.Split(path, "/")
		for i := 1; i < len(segs); i++ {
			if segs[i-1] == "tasks" {
				id, _, _ := strings.Cut(segs[i], ":")
				return id
			}
		}
		return ""
	}
	var env struct {
		Params struct {
			ID string `json:"id"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &env)
	return env.Params.ID
}

// Described is what a recorded answer body says, for the journal: the
// task and the (last) state it reported, or a JSON-RPC error.
type Described struct {
	TaskID       string
	State        wire.TaskState
	ErrorCode    int
	ErrorMessage string
}

// Describe reads a recorded answer body (a JSON-RPC envelope, a bare A2A
// object or a v1.0 response member) in any dialect's spelling.
func Describe(b []byte) Described {
	var d Described
	var env struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil && env.Error != nil && env.Error.Code != 0 {
		d.ErrorCode, d.ErrorMessage = env.Error.Code, env.Error.Message
	}
	if st := record.StatesIn(b); len(st) > 0 {
		d.State = stateNamed(st[len(st)-1])
	}
	d.TaskID = taskIDIn(b)
	return d
}

// stateNamed reads a recorded state name in whichever spelling a codec
// writes it (v1.0's TASK_STATE_CANCELED, the v0.3 proto's
// TASK_STATE_CANCELLED, v0.3 JSON-RPC's canceled); a name none writes is
// kept as it is.
func stateNamed(name string) wire.TaskState {
	if s, ok := wire.StateFromV10(name); ok {
		return s
	}
	for _, desc := range wire.Descriptors() {
		if c, _ := codecs.ForREST(desc.Dialect); c != nil {
			if s, ok := formOf(c).states[name]; ok {
				return s
			}
		}
	}
	return wire.TaskState(name)
}

// taskIDIn finds the task id in an answer (a task's id or an event's
// taskId), through a JSON-RPC envelope or a v1.0 response member.
func taskIDIn(b json.RawMessage) string {
	var env map[string]json.RawMessage
	if json.Unmarshal(b, &env) != nil {
		return ""
	}
	if r, ok := env["result"]; ok {
		return taskIDIn(r)
	}
	for _, k := range []string{"task", "statusUpdate", "artifactUpdate"} {
		if inner, ok := env[k]; ok {
			return taskIDIn(inner)
		}
	}
	var ids struct {
		ID     string `json:"id"`
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(b, &ids)
	if ids.TaskID != "" {
		return ids.TaskID
	}
	if _, isTask := env["status"]; isTask {
		return ids.ID
	}
	return ""
}
