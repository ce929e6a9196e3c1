package httpbind

import (
	"encoding/json"
	"net/http"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// rpcReply answers a JSON-RPC request: id is nil until the envelope is
// decoded, codec until the method is known.
type rpcReply struct {
	id    json.RawMessage
	codec wire.Codec
}

func (rr rpcReply) Fail(w http.ResponseWriter, e *wire.Error) error {
	var data []byte
	if rr.codec != nil {
		data = rr.codec.EncodeErrorData(e)
	} else if len(e.Data) > 0 {
		data, _ = json.Marshal(e.Data)
	}
	status := http.StatusOK
	if e.HTTPStatus != 0 {
		status = e.HTTPStatus
	}
	return WriteJSON(w, status, ContentTypeJSON, wire.EncodeRPCError(rr.id, e, data))
}

func (rr rpcReply) AuthError(e *wire.Error) *wire.Error { return RPCAuthError(e) }

func (rr rpcReply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	buf := resultBuffer()
	body, err := wire.AppendRPCResult(buf.b, rr.id, func(b []byte) ([]byte, error) {
		return wire.AppendResult(rr.codec, b, op, res)
	})
	if err != nil {
		buf.release(nil)
		return rr.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	err = WriteJSON(w, http.StatusOK, ContentTypeJSON, body)
	buf.release(body)
	return err
}

// rpcBufferSize is where a response's buffer starts: an honest send's
// answer fits.
const rpcBufferSize = 1024

func (rr rpcReply) Framer() binding.Framer { return rpcFramer(rr) }

func (rr rpcReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return NewTransport(h, w, r)
}

// ServeJSONRPC is the JSON-RPC binding of every dialect: one endpoint,
// dispatched on the method name.
func ServeJSONRPC(h binding.Host, w http.ResponseWriter, r *http.Request, a Agent, base string) error {
	var rr rpcReply
	if e := CheckContentType(r); e != nil {
		return refuseRPC(h, w, r, a, rr, "", "", "", e)
	}
	body, e := binding.ReadBody(r, h.MaxBodyBytes())
	if e != nil {
		return refuseRPC(h, w, r, a, rr, "", "", "", e)
	}
	rpc, e := wire.DecodeRPC(body)
	rr.id = rpc.ID
	if e != nil {
		return refuseRPC(h, w, r, a, rr, rpc.Method, "", "", e)
	}
	if rpc.ID == nil {
		return refuseRPC(h, w, r, a, rr, rpc.Method, "", "", wire.Errorf(wire.CodeInvalidRequest, `invalid request: "id" is required (A2A has no notifications)`))
	}
	d, op, ok := wire.LookupMethod(rpc.Method)
	if !ok {
		return refuseRPC(h, w, r, a, rr, rpc.Method, "", "", wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", rpc.Method).With("method", rpc.Method))
	}
	d = methodDialect(a, d, rpc.Method)
	rr.codec = codecs.For(d)
	if e := h.CheckVersion(r, d); e != nil {
		return refuseRPC(h, w, r, a, rr, rpc.Method, op, d, e)
	}
	req, e := rr.codec.DecodeParams(op, rpc.Params)
	if e != nil {
		if !binding.ParamError(e) || a.Gate(op) == nil {
			return refuseRPC(h, w, r, a, rr, rpc.Method, op, d, e)
		}
		// Capability before parameters: an operation the card does not
		// declare is refused as such whatever its parameters.
		req = &wire.Request{Op: op}
	}
	if other := sharedMethodTaskDialect(a, d, rpc.Method, req.TaskID); other != "" {
		// A task is answered in the shape of the generation that created
		// it on the methods v0.1 shares with v0.3 (tasks/get, tasks/cancel,
		// tasks/resubscribe).
		if r2, e2 := codecs.For(other).DecodeParams(op, rpc.Params); e2 == nil {
			d, req, rr.codec = other, r2, codecs.For(other)
		}
	}
	req.Method, req.Binding, req.Dialect = rpc.Method, wire.BindingJSONRPC, d
	return h.Serve(w, r, a, base, req, rr)
}

// refuseRPC journals a JSON-RPC request refused before it was served, with
// what is known of it (its method, the operation and dialect that method
// names), and answers e.
func refuseRPC(h binding.Host, w http.ResponseWriter, r *http.Request, a Agent, rr rpcReply, method string, op wire.Op, d wire.Dialect, e *wire.Error) error {
	h.Refused(w, r, a, &wire.Request{Op: op, Method: method, Binding: wire.BindingJSONRPC, Dialect: d}, e)
	return rr.Fail(w, e)
}

// methodDialect picks the dialect that serves a JSON-RPC method found in
// dialect d: on a method name several dialects share the card says which
// one the agent speaks (wire.AnswerDialect).
func methodDialect(a Agent, d wire.Dialect, method string) wire.Dialect {
	return wire.AnswerDialect(d, a.CardDialect(), method)
}

// sharedMethodTaskDialect returns the dialect a request of dialect d about
// task id is answered in when it differs from d (the dialect that created
// the task: wire.TaskAnswerDialect); "" otherwise.
func sharedMethodTaskDialect(a Agent, d wire.Dialect, method, id string) wire.Dialect {
	if id == "" {
		return ""
	}
	return wire.TaskAnswerDialect(d, method, func() wire.Dialect { return a.TaskDialect(id) })
}

type rpcFramer struct {
	id    json.RawMessage
	codec wire.Codec
}

func (f rpcFramer) Event(ev wire.Event) ([]byte, error) {
	return wire.AppendRPCResult(make([]byte, 0, rpcBufferSize), f.id, func(b []byte) ([]byte, error) {
		return wire.AppendEvent(f.codec, b, ev)
	})
}

func (f rpcFramer) ErrorFrame(e *wire.Error) []byte {
	return wire.EncodeRPCError(f.id, e, f.codec.EncodeErrorData(e))
}

// refuse sends the error as the single event of a stream, as the SDK
// servers do; a2a clients read a JSON-RPC error from the stream.
func (f rpcFramer) Refuse(w http.ResponseWriter, e *wire.Error) error {
	sw := sse.NewWriter(w)
	return sw.Event(sse.Event{Data: f.ErrorFrame(e)})
}

func (f rpcFramer) RPCID() json.RawMessage { return f.id }

func (f rpcFramer) Open(w http.ResponseWriter) binding.StreamWriter { return sse.NewWriter(w) }
