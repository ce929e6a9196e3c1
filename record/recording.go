package record

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/goccy/go-yaml"
)

// FormatVersion is the version of the recording file format.
const FormatVersion = 1

// Kind says which kind of request an exchange answered.
type Kind string

// The exchange kinds.
const (
	// KindCard is an agent card fetch (GET /.well-known/...).
	KindCard Kind = "card"
	// KindJSONRPC is a JSON-RPC call; Method is the JSON-RPC method.
	KindJSONRPC Kind = "jsonrpc"
	// KindREST is any other request (HTTP+JSON binding); Method is the
	// HTTP method and the route with ids replaced by {id}.
	KindREST Kind = "rest"
	// KindGRPC is a call of an A2A gRPC service (v1.0's or v0.3's); Path
	// is the call's path (/lf.a2a.v1.A2AService/SendMessage), which replay
	// matches on, and Method the method's name. Request, Response and the
	// events' Data hold the messages in the proto's JSON form, which is
	// the dialect's HTTP+JSON binding's, and GRPCStatus the call's status.
	KindGRPC Kind = "grpc"
)

// StreamEnd says how a recorded SSE stream ended.
type StreamEnd string

// The ways a stream ends.
const (
	// EndEOF: the agent closed the stream after a complete frame.
	EndEOF StreamEnd = "eof"
	// EndTruncated: the agent closed the stream mid-frame; Tail holds the
	// bytes of the cut frame (at most 512).
	EndTruncated StreamEnd = "truncated"
	// EndClientGone: the client left while the stream was still open.
	EndClientGone StreamEnd = "client-gone"
	// EndError: reading from the agent failed (connection reset, ...).
	EndError StreamEnd = "error"
	// EndOpen: the recording was taken while the stream was still open,
	// the agent having neither ended it nor sent a final event (an agent
	// that never terminates, the incident a recording is often made for):
	// Events are what it carried until then, EndAfter is when the
	// recording was taken. A replay holds the stream open after them. A
	// unary gRPC call ends so when its message had passed, not its status.
	EndOpen StreamEnd = "open"
)

// Duration is a time.Duration written as a Go duration string ("12.5ms").
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: use Go syntax such as 250ms or 1.5s", b)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", b)
	}
	*d = Duration(v)
	return nil
}

// Recording is what a Proxy saw: the exchanges in the order their requests
// arrived.
type Recording struct {
	// Version is FormatVersion.
	Version int `json:"version"`
	// Upstream is the URL of the recorded agent; its path is the base the
	// card URLs were relative to.
	Upstream string `json:"upstream"`
	// Exchanges are the recorded request/response pairs.
	Exchanges []Exchange `json:"exchanges"`
}

// Exchange is one request and what the agent answered.
type Exchange struct {
	Kind Kind `json:"kind"`
	// Method is the JSON-RPC method, or for cards and REST the HTTP method
	// and route ("GET /tasks/{id}"); replay matches on Kind and Method.
	Method string `json:"method"`
	// HTTPMethod and Path are the request line as the client sent it
	// (Path relative to the upstream base, with the query).
	HTTPMethod string `json:"httpMethod"`
	Path       string `json:"path"`
	// At is when the request arrived, from the start of the recording.
	At Duration `json:"at"`
	// Request is the request body when it is JSON.
	Request json.RawMessage `json:"request,omitempty"`

	// Status is the HTTP status of the answer; 0 when the agent had not
	// answered when the recording was taken (an agent that hangs): the
	// exchange then holds the request alone, and a replay answers such a
	// request with nothing, holding it until its client leaves.
	Status int `json:"status"`
	// ContentType is the answer's Content-Type.
	ContentType string `json:"contentType,omitempty"`
	// HeadersAfter is the time from the request to the answer's headers.
	HeadersAfter Duration `json:"headersAfter"`
	// Response is the answer body when it is JSON (the upstream's, before
	// any card URL rewriting).
	Response json.RawMessage `json:"response,omitempty"`
	// Body is an answer body that is not JSON.
	Body string `json:"body,omitempty"`

	// Events are the SSE events of a streamed answer (for gRPC, the
	// messages of a server-streaming call).
	Events []Event `json:"events,omitempty"`
	// End says how the stream ended, EndAfter when; for a unary gRPC
	// call, how it ended when it ended without its status (Response is
	// then the message it had passed, if any).
	End      StreamEnd `json:"end,omitempty"`
	EndAfter Duration  `json:"endAfter,omitempty"`
	// Tail is the start of a frame cut mid-way (End == EndTruncated).
	Tail string `json:"tail,omitempty"`

	// GRPCStatus, GRPCMessage and GRPCDetails are a gRPC call's status
	// (Kind grpc): its code (0, OK, is not written), message and the
	// google.rpc.Status of grpc-status-details-bin, base64 as sent.
	GRPCStatus  int    `json:"grpcStatus,omitempty"`
	GRPCMessage string `json:"grpcMessage,omitempty"`
	GRPCDetails string `json:"grpcDetails,omitempty"`
}

// Event is one SSE event of a recorded stream.
type Event struct {
	// After is the time from the request to the event.
	After Duration `json:"after"`
	// ID is the event's id: field, when it set a new one.
	ID string `json:"id,omitempty"`
	// Name is the event's event: field.
	Name string `json:"event,omitempty"`
	// Data is the event data when it is JSON, Text when it is not.
	Data json.RawMessage `json:"data,omitempty"`
	Text string          `json:"text,omitempty"`
}

// Unanswered reports whether the agent had not answered the request when
// the recording was taken (Status 0).
func (x *Exchange) Unanswered() bool { return x.Status == 0 }

// Streamed reports whether the exchange was answered with an SSE stream.
func (x *Exchange) Streamed() bool { return x.End != "" }

// States lists the task states the exchange's answer reported, in order
// (the task, status updates or JSON-RPC results of every event), e.g. to
// compare a replay with its recording.
func (x *Exchange) States() []string {
	var out []string
	if x.Streamed() {
		for _, ev := range x.Events {
			out = append(out, StatesIn(ev.Data)...)
		}
		return out
	}
	return StatesIn(x.Response)
}

// StatesIn finds status.state in a JSON-RPC envelope or bare A2A object
// (v0.x task or status update, v1.0 StreamResponse or SendMessageResponse).
func StatesIn(b json.RawMessage) []string {
	if len(b) == 0 {
		return nil
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(b, &env) != nil {
		return nil
	}
	if r, ok := env["result"]; ok {
		return StatesIn(r)
	}
	for _, k := range []string{"task", "statusUpdate"} {
		if inner, ok := env[k]; ok {
			return StatesIn(inner)
		}
	}
	var st struct {
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if json.Unmarshal(b, &st) != nil || st.Status.State == "" {
		return nil
	}
	return []string{st.Status.State}
}

// Save writes r as indented JSON.
func (r *Recording) Save(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record: encode: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SaveYAML writes r as YAML (JSON bodies become YAML mappings; Load turns
// them back into JSON).
func (r *Recording) SaveYAML(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("record: encode: %w", err)
	}
	y, err := yaml.JSONToYAML(b)
	if err != nil {
		return fmt.Errorf("record: encode YAML: %w", err)
	}
	_, err = w.Write(y)
	return err
}
