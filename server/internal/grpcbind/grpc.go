// Package grpcbind is the gRPC binding (lf.a2a.v1.A2AService): a thin
// transport over the request path the HTTP bindings share (package
// binding's Host.Serve): a gRPC request is an HTTP/2 POST
// to /lf.a2a.v1.A2AService/{Method} with content-type application/grpc,
// served on the same port (h2c, Config.GRPC). Its message is transcoded
// through ProtoJSON into the v1.0 codec's params (v1.0's JSON-RPC params
// are the proto request messages in ProtoJSON), handed to the core,
// and results, events and errors are transcoded back the same way. Errors
// are google.rpc.Status (grpc-status, grpc-message,
// grpc-status-details-bin) carrying the ErrorInfo the HTTP+JSON binding
// sends, with the spec's codes (§5.4). The messages come from
// internal/a2apb, generated from the v1.0 proto, never an SDK's package.
package grpcbind

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/pbconv"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// grpcDialect is the dialect of the gRPC binding (v1.0).
var grpcDialect = wire.ForBinding(wire.BindingGRPC)

// grpcMethods maps a method to a new request message.
var grpcMethods = map[string]func() proto.Message{
	"SendMessage":                      func() proto.Message { return new(a2apb.SendMessageRequest) },
	"SendStreamingMessage":             func() proto.Message { return new(a2apb.SendMessageRequest) },
	"GetTask":                          func() proto.Message { return new(a2apb.GetTaskRequest) },
	"ListTasks":                        func() proto.Message { return new(a2apb.ListTasksRequest) },
	"CancelTask":                       func() proto.Message { return new(a2apb.CancelTaskRequest) },
	"SubscribeToTask":                  func() proto.Message { return new(a2apb.SubscribeToTaskRequest) },
	"CreateTaskPushNotificationConfig": func() proto.Message { return new(a2apb.TaskPushNotificationConfig) },
	"GetTaskPushNotificationConfig":    func() proto.Message { return new(a2apb.GetTaskPushNotificationConfigRequest) },
	"ListTaskPushNotificationConfigs":  func() proto.Message { return new(a2apb.ListTaskPushNotificationConfigsRequest) },
	"GetExtendedAgentCard":             func() proto.Message { return new(a2apb.GetExtendedAgentCardRequest) },
	"DeleteTaskPushNotificationConfig": func() proto.Message { return new(a2apb.DeleteTaskPushNotificationConfigRequest) },
}

// grpcResult returns a new response message of a unary operation.
func grpcResult(op wire.Op) proto.Message {
	switch op {
	case wire.OpSend:
		return new(a2apb.SendMessageResponse)
	case wire.OpGetTask, wire.OpCancelTask:
		return new(a2apb.Task)
	case wire.OpListTasks:
		return new(a2apb.ListTasksResponse)
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		return new(a2apb.TaskPushNotificationConfig)
	case wire.OpListPushConfigs:
		return new(a2apb.ListTaskPushNotificationConfigsResponse)
	case wire.OpExtendedCard:
		return new(a2apb.AgentCard)
	}
	return new(emptypb.Empty)
}

var fromJSON = protojson.UnmarshalOptions{DiscardUnknown: true}

// IsCall reports whether r is a gRPC call.
func IsCall(r *http.Request) bool {
	return r.ProtoMajor == 2 && r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

// Binding serves the gRPC calls of one server.
type Binding struct {
	host binding.Host
}

// New is the gRPC binding over host.
func New(host binding.Host) *Binding { return &Binding{host: host} }

// Serve answers a gRPC call to agent a at path (below the agent's base).
func (b *Binding) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base, path string) error {
	var rp grpcReply
	method, ok := strings.CutPrefix(path, a2apb.ServicePath)
	newMsg := grpcMethods[method]
	if !ok || newMsg == nil {
		b.refused(w, r, a, "", "", wire.Errorf(wire.CodeMethodNotFound, "unknown method %s", path))
		return rp.status(w, codes.Unimplemented, "unknown method "+path, nil)
	}
	_, op, _ := wire.LookupMethod(method)
	if ct := r.Header.Get("Content-Type"); ct != "application/grpc" && ct != "application/grpc+proto" {
		b.refused(w, r, a, method, op, wire.Errorf(wire.CodeContentTypeNotSupported, "content-type %s is not served: only application/grpc (proto)", ct))
		return rp.status(w, codes.Unimplemented, "content-type "+ct+" is not served: only application/grpc (proto)", nil)
	}
	body, e := binding.ReadBody(r, b.host.MaxBodyBytes()+5)
	if e != nil {
		b.refused(w, r, a, method, op, e)
		return rp.Fail(w, e)
	}
	if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
		if len(body) >= 5 && body[0] != 0 {
			b.refused(w, r, a, method, op, wire.Errorf(wire.CodeInvalidRequest, "compressed messages are not supported"))
			return rp.status(w, codes.Unimplemented, "compressed messages are not supported", nil)
		}
		b.refused(w, r, a, method, op, wire.Errorf(wire.CodeParseError, "the request is not one length-prefixed gRPC message"))
		return rp.status(w, codes.Internal, "the request is not one length-prefixed gRPC message", nil)
	}
	in := newMsg()
	if err := proto.Unmarshal(body[5:], in); err != nil {
		b.refused(w, r, a, method, op, wire.Errorf(wire.CodeParseError, "decode %s request: %v", method, err))
		return rp.status(w, codes.Internal, "decode "+method+" request: "+err.Error(), nil)
	}
	// Every agent shares the endpoint: a tenant naming an agent (its card
	// declares it) routes the call there; none, or another, is the root's.
	if t, ok := in.(interface{ GetTenant() string }); ok && t.GetTenant() != "" {
		if ta, tbase, found := b.host.TenantAgent(t.GetTenant()); found {
			a, base = ta, tbase
		}
	}
	codec := codecs.For(grpcDialect)
	// The sends pbconv covers are read directly; every other message (and
	// a send it leaves alone, a bad one included) is transcoded through
	// ProtoJSON into the v1.0 codec, which words the error.
	var req *wire.Request
	fast := false
	if send, ok := in.(*a2apb.SendMessageRequest); ok {
		req, fast = pbconv.SendRequest(op, send)
	}
	var params []byte
	if !fast {
		var err error
		if params, err = protojson.Marshal(in); err != nil {
			b.refused(w, r, a, method, op, wire.Errorf(wire.CodeInternal, "transcode request: %v", err))
			return rp.status(w, codes.Internal, "transcode request: "+err.Error(), nil)
		}
	}
	if e := b.host.CheckVersion(r, grpcDialect); e != nil {
		b.refused(w, r, a, method, op, e)
		return rp.Fail(w, e)
	}
	if !fast {
		var e *wire.Error
		if req, e = codec.DecodeParams(op, params); e != nil {
			if !binding.ParamError(e) || a.Gate(op) == nil {
				b.refused(w, r, a, method, op, e)
				return rp.Fail(w, e)
			}
			req = &wire.Request{Op: op}
		}
	}
	req.Method, req.Binding, req.Dialect = method, wire.BindingGRPC, grpcDialect
	rp.st = &grpcStream{codec: codec}
	err := b.host.Serve(w, r, a, base, req, rp)
	rp.st.finish(w)
	return err
}

// refused journals a call refused before it was served: its method and
// operation when known, and the error it is answered with (or that its
// gRPC status stands for).
func (b *Binding) refused(w http.ResponseWriter, r *http.Request, a binding.Agent, method string, op wire.Op, e *wire.Error) {
	req := &wire.Request{Op: op, Method: method, Binding: wire.BindingGRPC}
	if op != "" {
		req.Dialect = grpcDialect
	}
	b.host.Refused(w, r, a, req, e)
}

// grpcReply answers a gRPC call; st is the call's state once decoded.
type grpcReply struct{ st *grpcStream }

// status answers with a gRPC status and no message (trailers-only).
func (rp grpcReply) status(w http.ResponseWriter, code codes.Code, msg string, details []*anypb.Any) error {
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	setGRPCStatus(h, "", code, msg, details)
	w.WriteHeader(http.StatusOK)
	if rp.st != nil {
		rp.st.done = true
	}
	return nil
}

func (rp grpcReply) Fail(w http.ResponseWriter, e *wire.Error) error {
	code, msg, details := grpcError(e)
	if rp.st != nil && rp.st.started {
		rp.st.err = e
		return nil
	}
	return rp.status(w, code, msg, details)
}

func (rp grpcReply) AuthError(e *wire.Error) *wire.Error { return e }

func (rp grpcReply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	var msg proto.Message
	switch {
	case op == wire.OpDeletePush:
		msg = new(emptypb.Empty)
	case op == wire.OpExtendedCard:
		msg = new(a2apb.AgentCard)
		if err := fromJSON.Unmarshal(res.Card, msg); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "transcode card: %v", err))
		}
	case op == wire.OpSend && fastSend(res, &msg):
	case (op == wire.OpGetTask || op == wire.OpCancelTask) && fastTask(res, &msg):
	default:
		b, err := rp.st.codec.EncodeResult(op, res)
		if err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
		}
		msg = grpcResult(op)
		if err := fromJSON.Unmarshal(b, msg); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "transcode result: %v", err))
		}
	}
	out, err := proto.Marshal(msg)
	if err != nil {
		// A string pbconv copied may not be UTF-8, which proto refuses; the
		// codec's JSON replaces the bad bytes, so take that path.
		msg = grpcResult(op)
		if b, err := rp.st.codec.EncodeResult(op, res); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
		} else if err := fromJSON.Unmarshal(b, msg); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "transcode result: %v", err))
		}
		if out, err = proto.Marshal(msg); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
		}
	}
	// A unary answer is not flushed: net/http sends the headers, the
	// message and the trailers together when the handler returns.
	w.Header().Set("Content-Type", "application/grpc")
	w.WriteHeader(http.StatusOK)
	rp.st.started = true
	_, err = w.Write(grpcFrame(out))
	return err
}

func (rp grpcReply) Framer() binding.Framer { return grpcFramer(rp) }

func (rp grpcReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return newGRPCTransport(h, w, r, rp.st)
}

// fastSend sets *msg to the SendMessageResponse of res when pbconv covers it.
func fastSend(res *wire.Result, msg *proto.Message) bool {
	m, ok := pbconv.SendResponse(res)
	if ok {
		*msg = m
	}
	return ok
}

// fastTask sets *msg to the Task of res when pbconv covers it.
func fastTask(res *wire.Result, msg *proto.Message) bool {
	if res == nil || res.Task == nil {
		return false
	}
	m, ok := pbconv.Task(res.Task)
	if ok {
		*msg = m
	}
	return ok
}

// grpcStream is the state of one gRPC call: whether its headers went out,
// the error its trailers carry, whether they were written.
type grpcStream struct {
	codec   wire.Codec
	started bool
	done    bool
	err     *wire.Error
	// deadline is when the call's grpc-timeout runs out (zero: none), on
	// the server's clock, read only when a transport behavior acts on the
	// call (newGRPCTransport); deadlineHit says a delay ran past it.
	deadline    time.Time
	deadlineHit bool
}

// finish writes the trailers of a call whose headers went out.
func (st *grpcStream) finish(w http.ResponseWriter) {
	if !st.started || st.done {
		return
	}
	st.done = true
	code, msg, details := codes.OK, "", []*anypb.Any(nil)
	if st.err != nil {
		code, msg, details = grpcError(st.err)
	}
	if st.deadlineHit {
		code, msg, details = codes.DeadlineExceeded, deadlineError().Message, nil
	}
	setGRPCStatus(w.Header(), http.TrailerPrefix, code, msg, details)
}

// grpcFramer frames a server-streaming call's StreamResponse messages.
type grpcFramer grpcReply

func (f grpcFramer) Event(ev wire.Event) ([]byte, error) {
	if msg, ok := pbconv.StreamResponse(ev); ok {
		if b, err := proto.Marshal(msg); err == nil {
			return b, nil
		}
	}
	b, err := f.st.codec.EncodeEvent(ev)
	if err != nil {
		return nil, err
	}
	var msg a2apb.StreamResponse
	if err := fromJSON.Unmarshal(b, &msg); err != nil {
		return nil, err
	}
	return proto.Marshal(&msg)
}

// errorFrame ends the stream with e in its trailers: gRPC has no error
// message inside a stream.
func (f grpcFramer) ErrorFrame(e *wire.Error) []byte {
	f.st.err = e
	return nil
}

func (f grpcFramer) Refuse(w http.ResponseWriter, e *wire.Error) error {
	return grpcReply(f).Fail(w, e)
}

func (f grpcFramer) RPCID() json.RawMessage { return nil }

func (f grpcFramer) Open(w http.ResponseWriter) binding.StreamWriter {
	return grpcWriter{w: w, st: f.st}
}

// grpcWriter writes length-prefixed messages; keep-alives are no-ops (a
// gRPC connection's liveness is HTTP/2 PING, which net/http answers).
type grpcWriter struct {
	w  http.ResponseWriter
	st *grpcStream
}

func (g grpcWriter) WriteHeader() error {
	g.w.Header().Set("Content-Type", "application/grpc")
	g.w.WriteHeader(http.StatusOK)
	g.st.started = true
	return http.NewResponseController(g.w).Flush()
}

func (g grpcWriter) Event(ev sse.Event) error {
	if ev.Data == nil {
		return nil
	}
	return g.WriteRaw(grpcFrame(ev.Data))
}

func (g grpcWriter) KeepAlive() error { return nil }

// Cut ends the call as a crashed agent would: the handler returns and no
// trailers follow (grpcStream.finish writes none), so the client sees the
// HTTP/2 stream end without a grpc-status.
func (g grpcWriter) Cut() { g.st.done = true }

func (g grpcWriter) WriteRaw(b []byte) error {
	if _, err := g.w.Write(b); err != nil {
		return err
	}
	return http.NewResponseController(g.w).Flush()
}

func (g grpcWriter) Frame(ev sse.Event) ([]byte, error) { return grpcFrame(ev.Data), nil }

// grpcFrame prefixes an uncompressed message with its length.
func grpcFrame(msg []byte) []byte {
	out := make([]byte, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:5], uint32(len(msg)))
	copy(out[5:], msg)
	return out
}

// grpcError is e as a gRPC status: the code the v1.0 mapping (§5.4) gives
// its HTTP+JSON google.rpc.Status, with the same ErrorInfo.
func grpcError(e *wire.Error) (codes.Code, string, []*anypb.Any) {
	_, body := codecs.EncodeRESTError(e)
	var st struct {
		Error struct {
			Status  string `json:"status"`
			Message string `json:"message"`
			Details []struct {
				Reason   string            `json:"reason"`
				Domain   string            `json:"domain"`
				Metadata map[string]string `json:"metadata"`
			} `json:"details"`
		} `json:"error"`
	}
	code := codes.Internal
	if json.Unmarshal(body, &st) != nil {
		return code, e.Message, nil
	}
	if err := code.UnmarshalJSON([]byte(strconv.Quote(st.Error.Status))); err != nil {
		code = codes.Unknown
	}
	var details []*anypb.Any
	for _, d := range st.Error.Details {
		if d.Reason == "" {
			continue
		}
		if a, err := anypb.New(&errdetails.ErrorInfo{Reason: d.Reason, Domain: d.Domain, Metadata: d.Metadata}); err == nil {
			details = append(details, a)
		}
	}
	return code, st.Error.Message, details
}

// setGRPCStatus sets grpc-status, grpc-message and grpc-status-details-bin
// (prefix is http.TrailerPrefix for trailers after a body).
func setGRPCStatus(h http.Header, prefix string, code codes.Code, msg string, details []*anypb.Any) {
	h.Set(prefix+"Grpc-Status", strconv.Itoa(int(code)))
	if msg != "" {
		h.Set(prefix+"Grpc-Message", grpcPercent(msg))
	}
	if len(details) > 0 || code != codes.OK {
		if b, err := proto.Marshal(&spb.Status{Code: int32(code), Message: msg, Details: details}); err == nil {
			h.Set(prefix+"Grpc-Status-Details-Bin", base64.RawStdEncoding.EncodeToString(b))
		}
	}
}

// grpcPercent percent-encodes a grpc-message as the gRPC HTTP/2 protocol
// requires (bytes outside printable ASCII, and '%').
func grpcPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
