package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/a2amock/a2amock/wire/internal/jsonscan"
)

// RPCRequest is a decoded JSON-RPC 2.0 request envelope.
type RPCRequest struct {
	// ID is the raw JSON of the request id (a string or a number), or nil
	// for a notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// DecodeRPC parses a JSON-RPC 2.0 request. It returns a parse error (-32700)
// for bytes that are not JSON and an invalid-request error (-32600) for JSON
// that is not a single JSON-RPC 2.0 request object (batches are not part of
// A2A). When the id could be read it is returned with the error so the reply
// can carry it.
func DecodeRPC(body []byte) (RPCRequest, *Error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return RPCRequest{}, Errorf(CodeParseError, "parse error: empty body")
	}
	notJSON := func() *Error { return Errorf(CodeParseError, "parse error: body is not valid JSON") }
	if trimmed[0] != '{' {
		switch {
		case !json.Valid(trimmed):
			return RPCRequest{}, notJSON()
		case trimmed[0] == '[':
			return RPCRequest{}, Errorf(CodeInvalidRequest, "invalid request: batch requests are not supported by A2A")
		}
		return RPCRequest{}, Errorf(CodeInvalidRequest, "invalid request: expected a JSON-RPC 2.0 request object")
	}
	var env rpcEnvelope
	var err error
	if !env.scan(trimmed) {
		// Unmarshal checks the whole body is JSON before it decodes
		// anything (a *json.SyntaxError otherwise), so an object is
		// scanned once here, not first by json.Valid. It reads into an
		// envelope of its own: &env handed to encoding/json would put
		// every request's envelope on the heap, the scanned ones too.
		env, err = unmarshalEnvelope(trimmed)
	}
	if _, ok := err.(*json.SyntaxError); ok {
		return RPCRequest{}, notJSON()
	}
	id, idOK := rpcID(env.ID)
	if err != nil {
		// A member of the wrong type (say "method": 5) does not stop
		// encoding/json from reading the id, so the reply can still carry it.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return RPCRequest{ID: id}, Errorf(CodeInvalidRequest, "invalid request: %q must be a string, not %s", te.Field, te.Value)
		}
		return RPCRequest{ID: id}, Errorf(CodeInvalidRequest, "invalid request: %v", err)
	}
	if !idOK {
		return RPCRequest{}, Errorf(CodeInvalidRequest, "invalid request: id must be a string or a number")
	}
	req := RPCRequest{ID: id, Params: env.Params}
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return req, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if env.Method == nil || *env.Method == "" {
		return req, Errorf(CodeInvalidRequest, `invalid request: "method" is missing`)
	}
	req.Method = *env.Method
	if len(env.Params) > 0 {
		if p := bytes.TrimSpace(env.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && !bytes.Equal(p, []byte("null")) {
			return req, Errorf(CodeInvalidRequest, `invalid request: "params" must be an object`)
		}
	}
	return req, nil
}

// rpcEnvelope is what DecodeRPC reads of a request object.
type rpcEnvelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// scan is the fast path of DecodeRPC: the envelope as encoding/json would
// read it, for a body with its keys spelt as the spec spells them, each
// once, and no null (false otherwise, and encoding/json reads it). The id
// is copied, as encoding/json copies a RawMessage; params stay a slice of
// body, which the codec reads at once.
func (env *rpcEnvelope) scan(body []byte) bool {
	s := jsonscan.New(body)
	ok := s.Object(func(key []byte) bool {
		switch string(key) {
		case "jsonrpc":
			if raw, ok := s.PlainBytes(); ok && string(raw) == rpcVersion {
				env.JSONRPC = &rpcVersionValue
				return true
			}
			return false
		case "method":
			if raw, ok := s.PlainBytes(); ok {
				if name := methodNames[string(raw)]; name != nil {
					env.Method = name
					return true
				}
			}
			return false
		case "id":
			raw, ok := s.Skip()
			env.ID = bytes.Clone(raw)
			return ok
		case "params":
			raw, ok := s.Skip()
			env.Params = raw
			return ok
		}
		return s.SkipUnknown(key, "jsonrpc", "method", "id", "params")
	})
	return ok && s.End()
}

// unmarshalEnvelope reads body into an envelope with encoding/json, for
// what the fast path (rpcEnvelope.scan) leaves to it.
func unmarshalEnvelope(body []byte) (rpcEnvelope, error) {
	env := new(rpcEnvelope)
	err := json.Unmarshal(body, env)
	return *env, err
}

// rpcVersion is the jsonrpc member's one value; rpcVersionValue is it as
// the envelope's field points to it (no one writes through the pointer).
const rpcVersion = "2.0"

var rpcVersionValue = rpcVersion

// methodNames holds every dialect's method names, each as the envelope's
// field points to it: the fast path reads a known method without making a
// string, and leaves an unknown one to encoding/json.
var methodNames = func() map[string]*string {
	out := map[string]*string{}
	for _, d := range descriptors {
		for name := range d.Methods {
			out[name] = &name
		}
	}
	return out
}()

// rpcID checks a raw request id: absent and null give nil, strings and
// numbers are kept as sent, anything else is not ok.
func rpcID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, true
	}
	// raw is a valid JSON value, so its first byte tells its type.
	if c := raw[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return raw, true
	}
	return nil, false
}

// EncodeRPCResult renders a JSON-RPC success response.
func EncodeRPCResult(id json.RawMessage, result []byte) []byte {
	b, _ := AppendRPCResult(make([]byte, 0, len(result)+48), id, func(b []byte) ([]byte, error) {
		return append(b, result...), nil
	})
	return b
}

// AppendRPCResult appends a JSON-RPC success response to dst in one
// buffer: the envelope, the result write appends (an empty one is written
// as null), its end.
func AppendRPCResult(dst []byte, id json.RawMessage, write func([]byte) ([]byte, error)) ([]byte, error) {
	dst = appendID(append(dst, `{"jsonrpc":"2.0","id":`...), id)
	dst = append(dst, `,"result":`...)
	head := len(dst)
	dst, err := write(dst)
	if err != nil {
		return nil, err
	}
	if len(dst) == head {
		dst = append(dst, "null"...)
	}
	return append(dst, '}'), nil
}

// ResultAppender is a Codec that writes results and events into a buffer
// it is given, so a binding writes its envelope and the result into one
// buffer (AppendRPCResult) instead of copying the result into the envelope.
type ResultAppender interface {
	// AppendResult appends what EncodeResult returns.
	AppendResult(dst []byte, op Op, res *Result) ([]byte, error)
	// AppendEvent appends what EncodeEvent returns.
	AppendEvent(dst []byte, ev Event) ([]byte, error)
}

// AppendResult appends c's rendering of the result of op: the codec's own
// AppendResult when it is a ResultAppender, else EncodeResult's bytes.
func AppendResult(c Codec, dst []byte, op Op, res *Result) ([]byte, error) {
	if ra, ok := c.(ResultAppender); ok {
		return ra.AppendResult(dst, op, res)
	}
	b, err := c.EncodeResult(op, res)
	return append(dst, b...), err
}

// AppendEvent appends c's rendering of ev as AppendResult does a result.
func AppendEvent(c Codec, dst []byte, ev Event) ([]byte, error) {
	if ra, ok := c.(ResultAppender); ok {
		return ra.AppendEvent(dst, ev)
	}
	b, err := c.EncodeEvent(ev)
	return append(dst, b...), err
}

// EncodeRPCError renders a JSON-RPC error response; data may be nil.
func EncodeRPCError(id json.RawMessage, e *Error, data []byte) []byte {
	if e == nil {
		e = Errorf(CodeInternal, "internal error")
	}
	msg, _ := json.Marshal(e.Message)
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(appendID(b.AvailableBuffer(), id))
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.Itoa(e.Code))
	b.WriteString(`,"message":`)
	b.Write(msg)
	if len(data) > 0 {
		b.WriteString(`,"data":`)
		b.Write(data)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// appendID appends a response's id: the request's as sent, null when it
// could not be read.
func appendID(dst []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}
