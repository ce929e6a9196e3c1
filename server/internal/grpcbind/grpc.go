// Package grpcbind is the gRPC binding: a thin transport over the request
// path the HTTP bindings share (package binding's Host.Serve). A gRPC
// request is an HTTP/2 POST to /{service}/{Method} with content-type
// application/grpc, served on the same port (h2c, Config.GRPC). Each
// dialect with a gRPC binding has its own service (service.go): v1.0's
// lf.a2a.v1.A2AService and v0.3's a2a.v1.A2AService (service03.go). A
// call's message is transcoded through ProtoJSON into the codec of its
// service's dialect (v1.0's JSON-RPC params, v0.3's HTTP+JSON bodies: each
// is its proto's ProtoJSON), handed to the core, and results, events and
// errors are transcoded back the same way. Errors are google.rpc.Status
// (grpc-status, grpc-message, grpc-status-details-bin) carrying the
// ErrorInfo the HTTP+JSON binding sends, with the codes of v1.0's mapping
// (§5.4). The messages come from internal/a2apb and internal/a2apb03,
// generated from the protos, never an SDK's package.
package grpcbind

import (
	"encoding/base64"
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
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

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

// Serve answers a gRPC call to agent a at path (below the agent's base):
// the service whose method path it is decodes it.
func (b *Binding) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base, path string) error {
	c, no := b.route(r, a, base, path, func() ([]byte, *wire.Error) { return binding.ReadBody(r, b.bodyLimit()) })
	rp := grpcReply{svc: c.svc}
	if no != nil {
		b.refused(w, r, c.at.a, c.svc, c.method, c.op, no.e)
		if no.code == codes.OK {
			return rp.Fail(w, no.e)
		}
		return rp.status(w, no.code, no.e.Message, nil)
	}
	svc, method, op, in := c.svc, c.method, c.op, c.in
	a, base = c.at.a, c.at.base
	// The messages a fast path covers are read directly; every other one
	// (and one it leaves alone, a bad one included) is transcoded through
	// ProtoJSON into the service's codec, which words the error.
	var req *wire.Request
	fast := false
	if svc.fastRequest != nil {
		req, fast = svc.fastRequest(op, in)
	}
	var params []byte
	if !fast {
		var err error
		if params, err = protojson.Marshal(in); err != nil {
			b.refused(w, r, a, svc, method, op, wire.Errorf(wire.CodeInternal, "transcode request: %v", err))
			return rp.status(w, codes.Internal, "transcode request: "+err.Error(), nil)
		}
		if svc.params != nil {
			params = svc.params(in, params)
		}
	}
	if e := b.host.CheckVersion(r, svc.dialect); e != nil {
		b.refused(w, r, a, svc, method, op, e)
		return rp.Fail(w, e)
	}
	if !fast {
		var e *wire.Error
		if req, e = svc.codec.DecodeParams(op, params); e != nil {
			if !binding.ParamError(e) || a.Gate(op) == nil {
				b.refused(w, r, a, svc, method, op, e)
				return rp.Fail(w, e)
			}
			req = &wire.Request{Op: op}
		}
	}
	req.Method, req.Binding, req.Dialect = method, wire.BindingGRPC, svc.dialect
	rp.st = &grpcStream{svc: svc}
	err := b.host.Serve(w, r, a, base, req, rp)
	rp.st.finish(w)
	return err
}

// refused journals a call refused before it was served: its method and
// operation when known, and the error it is answered with (or that its
// gRPC status stands for).
func (b *Binding) refused(w http.ResponseWriter, r *http.Request, a binding.Agent, svc *service, method string, op wire.Op, e *wire.Error) {
	req := &wire.Request{Op: op, Method: method, Binding: wire.BindingGRPC}
	if op != "" {
		req.Dialect = svc.dialect
	}
	b.host.Refused(w, r, a, req, e)
}

// grpcReply answers a gRPC call of service svc; st is the call's state
// once decoded.
type grpcReply struct {
	svc *service
	st  *grpcStream
}

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
	code, msg, details := grpcError(rp.svc, e)
	if rp.st != nil && rp.st.started {
		rp.st.err = e
		return nil
	}
	return rp.status(w, code, msg, details)
}

func (rp grpcReply) AuthError(e *wire.Error) *wire.Error { return e }

func (rp grpcReply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	svc := rp.svc
	var msg proto.Message
	fast := false
	switch {
	case op == wire.OpDeletePush:
		msg = new(emptypb.Empty)
	case op == wire.OpExtendedCard:
		var err error
		if msg, err = svc.card(res.Card); err != nil {
			return rp.Fail(w, wire.Errorf(wire.CodeInternal, "transcode card: %v", err))
		}
	default:
		if svc.fastResult != nil {
			msg, fast = svc.fastResult(op, res)
		}
		if !fast {
			var e *wire.Error
			if msg, e = svc.transcodeResult(op, res); e != nil {
				return rp.Fail(w, e)
			}
		}
	}
	out, err := proto.Marshal(msg)
	if err != nil && fast {
		// A string pbconv copied may not be UTF-8, which proto refuses; the
		// codec's JSON replaces the bad bytes, so take that path.
		var e *wire.Error
		if msg, e = svc.transcodeResult(op, res); e != nil {
			return rp.Fail(w, e)
		}
		out, err = proto.Marshal(msg)
	}
	if err != nil {
		return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	// A unary answer is not flushed: net/http sends the headers, the
	// message and the trailers together when the handler returns.
	w.Header().Set("Content-Type", "application/grpc")
	w.WriteHeader(http.StatusOK)
	rp.st.started = true
	_, err = w.Write(a2apb.AppendMessage(nil, out))
	return err
}

func (rp grpcReply) Framer() binding.Framer { return grpcFramer(rp) }

func (rp grpcReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return newGRPCTransport(h, w, r, rp.st)
}

// transcodeResult is the response message of op: res as the codec encodes
// it, read as the message's ProtoJSON.
func (s *service) transcodeResult(op wire.Op, res *wire.Result) (proto.Message, *wire.Error) {
	b, err := s.codec.EncodeResult(op, res)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "encode result: %v", err)
	}
	msg := s.result(op)
	if err := fromJSON.Unmarshal(b, msg); err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "transcode result: %v", err)
	}
	return msg, nil
}

// grpcStream is the state of one gRPC call of service svc: whether its
// headers went out, the error its trailers carry, whether they were
// written.
type grpcStream struct {
	svc     *service
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
		code, msg, details = grpcError(st.svc, st.err)
	}
	if st.deadlineHit {
		code, msg, details = codes.DeadlineExceeded, deadlineError().Message, nil
	}
	setGRPCStatus(w.Header(), http.TrailerPrefix, code, msg, details)
}

// grpcFramer frames a server-streaming call's StreamResponse messages.
type grpcFramer grpcReply

func (f grpcFramer) Event(ev wire.Event) ([]byte, error) {
	svc := f.svc
	if svc.fastEvent != nil {
		if msg, ok := svc.fastEvent(ev); ok {
			if b, err := proto.Marshal(msg); err == nil {
				return b, nil
			}
		}
	}
	b, err := svc.codec.EncodeEvent(ev)
	if err != nil {
		return nil, err
	}
	msg := svc.event()
	if err := fromJSON.Unmarshal(b, msg); err != nil {
		return nil, err
	}
	return proto.Marshal(msg)
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
	return g.Flush()
}

func (g grpcWriter) Event(ev sse.Event) error {
	if err := g.Last(ev); err != nil {
		return err
	}
	return g.Flush()
}

// Last writes ev's message without flushing it, so that the stream
// journals it before the client can read it; nil data (ErrorFrame's)
// writes nothing.
func (g grpcWriter) Last(ev sse.Event) error {
	if ev.Data == nil {
		return nil
	}
	return g.Put(a2apb.AppendMessage(nil, ev.Data))
}

func (g grpcWriter) KeepAlive() error { return nil }

// Cut ends the call as a crashed agent would: the handler returns and no
// trailers follow (grpcStream.finish writes none), so the client sees the
// HTTP/2 stream end without a grpc-status.
func (g grpcWriter) Cut() { g.st.done = true }

func (g grpcWriter) WriteRaw(b []byte) error {
	if err := g.Put(b); err != nil {
		return err
	}
	return g.Flush()
}

// Put writes b without flushing it: it stays in the answer's buffer
// (h2serve's holds 16 KiB) until Flush or the handler's return.
func (g grpcWriter) Put(b []byte) error {
	_, err := g.w.Write(b)
	return err
}

func (g grpcWriter) Flush() error { return http.NewResponseController(g.w).Flush() }

func (g grpcWriter) Frame(ev sse.Event) ([]byte, error) {
	return a2apb.AppendMessage(nil, ev.Data), nil
}

// grpcError is e as a gRPC status of service svc: the google.rpc.Status
// of the service's HTTP+JSON error body, its code (the v1.0.1 mapping,
// §5.4 of v1.0), message and ErrorInfo. When the body names the error
// (v0.3's `type`, TaskNotFoundError), the message starts with that name
// and ": ", as a2a-python's v0.3 gRPC servers word it and its v0.3 gRPC
// client reads it back into the error's type.
func grpcError(svc *service, e *wire.Error) (codes.Code, string, []*anypb.Any) {
	encode := codecs.EncodeRESTError
	if svc != nil && svc.encodeError != nil {
		encode = svc.encodeError
	}
	_, body := encode(e)
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
		Type string `json:"type"`
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
	msg := st.Error.Message
	if st.Type != "" {
		msg = st.Type + ": " + msg
	}
	return code, msg, details
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
