// Package binding is the contract between the server's core and its
// bindings (JSON-RPC, HTTP+JSON, gRPC): a binding decodes a request into
// the canonical model and hands it to the core (Host.Serve) with the Reply
// that answers it in the binding's terms: errors, unary results, framed
// stream events, and the transport faults of the behaviors (Transport).
//
// The core journals, checks credentials, applies the behaviors and plays
// the timeline once for every binding; a binding only reads and writes
// its wire. The package holds the interfaces and the few helpers every
// binding shares; it serves nothing.
package binding

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/engine/size"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Host is what a binding needs of the server's core.
type Host interface {
	// Serve is what every binding does with a decoded request of agent a
	// (served below base): journal it, check the credentials, apply the
	// behaviors' hooks and answer it through rp, unary or streamed.
	Serve(w http.ResponseWriter, r *http.Request, a Agent, base string, req *wire.Request, rp Reply) error
	// Refused journals a request the binding refuses before it can serve
	// it (a body it cannot read or decode, an unknown method or route, a
	// content type or version it does not serve, bad parameters), with
	// what is known of it in req, and its answer e; it tags w's capture
	// with the request's number. The binding then answers e itself (over
	// gRPC, some refusals as the status e stands for).
	Refused(w http.ResponseWriter, r *http.Request, a Agent, req *wire.Request, e *wire.Error)
	// CheckVersion applies the A2A-Version rules to a request for dialect d.
	CheckVersion(r *http.Request, d wire.Dialect) *wire.Error
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes() int64
	// Clock is the server's clock: every delay goes through it.
	Clock() timeline.Clock
	// Wait waits d on the clock unless ctx or the server ends first, and
	// reports whether d passed.
	Wait(ctx context.Context, d time.Duration) bool
	// TenantAgent returns the agent a request's tenant names and the base
	// path it is served below; ok is false when the tenant names none.
	// The gRPC binding routes on it: every agent shares its endpoint.
	TenantAgent(tenant string) (a Agent, base string, ok bool)
	// AgentNames lists the hosted agents' names, the root's first: a gRPC
	// service whose requests carry no tenant (v0.3's) routes on their
	// cards.
	AgentNames() []string
}

// Agent is a hosted agent as a binding sees it: opaque but for the
// operations its card declares.
type Agent interface {
	// Gate refuses an operation the agent's card does not declare, so that
	// a binding answers capability before parameters.
	Gate(op wire.Op) *wire.Error
}

// Reply is how a binding answers a decoded request.
type Reply interface {
	// Fail answers with an error on w (which behaviors may have wrapped).
	Fail(w http.ResponseWriter, e *wire.Error) error
	// AuthError is a refused credential check as the binding answers it.
	AuthError(e *wire.Error) *wire.Error
	// Result answers a unary operation with its encoded result.
	Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error
	// Framer frames a streamed answer.
	Framer() Framer
	// Transport is the binding's behaviors.Transport over the answer on w.
	Transport(h Host, w http.ResponseWriter, r *http.Request) Transport
}

// Framer frames the events of a streamed answer in a binding's terms.
type Framer interface {
	// Event encodes one event as the data of a frame.
	Event(ev wire.Event) ([]byte, error)
	// ErrorFrame is an error sent inside an already started stream.
	ErrorFrame(e *wire.Error) []byte
	// Refuse answers a streaming request that fails before the stream starts.
	Refuse(w http.ResponseWriter, e *wire.Error) error
	// RPCID is the JSON-RPC id, nil for the other bindings.
	RPCID() json.RawMessage
	// Open starts the binding's stream writer on w: SSE for JSON-RPC and
	// HTTP+JSON, length-prefixed messages for gRPC.
	Open(w http.ResponseWriter) StreamWriter
}

// StreamWriter writes a started stream's frames; *sse.Writer is the HTTP
// bindings' one.
type StreamWriter interface {
	WriteHeader() error
	Event(ev sse.Event) error
	KeepAlive() error
	WriteRaw(b []byte) error
	Frame(ev sse.Event) ([]byte, error)
	// Last writes ev as Event does, and Put b as WriteRaw does, without
	// the flush; Flush sends what they left. The stream journals what an
	// event or raw bytes carry between the write, which tells whether the
	// answer still takes bytes, and the flush that lets the client read
	// them; after the stream's last event the answer's end sends it.
	Last(ev sse.Event) error
	Put(b []byte) error
	Flush() error
}

// Transport is a binding's behaviors.Transport over one answer: the
// transport hooks carry out their faults through it, and the answer is
// then written to Writer().
type Transport interface {
	behaviors.Transport
	// Writer is the response writer the answer is written to, wrapped by
	// the faults so far.
	Writer() http.ResponseWriter
	// Stopped reports whether the answer must not be written any more: the
	// client left or the server closed during a delay, or the transport
	// answered itself (e then says how, for the journal).
	Stopped() (stop bool, e *wire.Error)
}

// ApplyTransport runs the start delay and the transport hooks on t, in
// the order the package doc of behaviors gives.
func ApplyTransport(t Transport, hooks *behaviors.Hooks) Transport {
	t.Delay(behaviors.PhaseStart, hooks.Delay)
	for _, f := range hooks.Transport {
		f(t)
	}
	return t
}

// ReadBody reads at most limit bytes; a larger body is an error.
func ReadBody(r *http.Request, limit int64) ([]byte, *wire.Error) {
	if r.ContentLength > limit {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, limit).WithHTTPStatus(http.StatusRequestEntityTooLarge)
	}
	if n := r.ContentLength; n >= 0 {
		// A declared length (net/http holds the body to it) is read in
		// one buffer of that size, not grown from 512 bytes.
		b := make([]byte, n)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			return nil, wire.Errorf(wire.CodeInvalidRequest, "read request body: %v", err)
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "read request body: %v", err)
	}
	if int64(len(b)) > limit {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "request body exceeds the limit of %d bytes", limit).WithHTTPStatus(http.StatusRequestEntityTooLarge)
	}
	return b, nil
}

// ParamError reports whether e refuses a request's parameters (not its
// size or media type), which a capability the card does not declare
// overrides: capability before parameters.
func ParamError(e *wire.Error) bool {
	return e.HTTPStatus != http.StatusRequestEntityTooLarge && e.HTTPStatus != http.StatusUnsupportedMediaType
}

// MaxIDBytes bounds every id a request carries (task, context, message,
// push-config, referenced task ids, tenant) on every binding; the server
// exports it as server.MaxIDBytes.
const MaxIDBytes = 256

// CheckSizes applies MaxIDBytes, and maxPart and maxMessage bytes to the
// parts and content of a message, to a decoded request of any binding; it names the first offending field
// without echoing its value.
func CheckSizes(req *wire.Request, maxPart, maxMessage int) *wire.Error {
	tooLong := func(field string, n int) *wire.Error {
		return wire.ErrInvalidParams(field, "is "+strconv.Itoa(n)+" bytes long; ids are at most "+strconv.Itoa(MaxIDBytes)+" bytes")
	}
	type idField struct{ field, v string }
	// The fields are listed in an array on the stack: every request is
	// checked, and a slice literal cost each one an allocation.
	var fields [9]idField
	ids := append(fields[:0], idField{"id", req.TaskID}, idField{"tenant", req.Tenant}, idField{"pushNotificationConfigId", req.PushConfigID}, idField{"contextId", req.List.ContextID})
	if pc := req.PushConfig; pc != nil {
		ids = append(ids, idField{"pushNotificationConfig.id", pc.ID}, idField{"pushNotificationConfig.taskId", pc.TaskID})
	}
	if m := req.Message; m != nil {
		ids = append(ids, idField{"message.messageId", m.MessageID}, idField{"message.taskId", m.TaskID}, idField{"message.contextId", m.ContextID})
		for _, r := range m.ReferenceTaskIDs {
			ids = append(ids, idField{"message.referenceTaskIds", r})
		}
	}
	for _, id := range ids {
		if len(id.v) > MaxIDBytes {
			return tooLong(id.field, len(id.v))
		}
	}
	if m := req.Message; m != nil {
		total := size.Value(m.Metadata)
		for i := range m.Parts {
			n := size.Parts(m.Parts[i : i+1])
			if n > int64(maxPart) {
				return wire.ErrInvalidParams("message.parts["+strconv.Itoa(i)+"]", "holds "+strconv.FormatInt(n, 10)+" bytes; a part is at most "+strconv.Itoa(maxPart)+" bytes (MaxPartBytes)")
			}
			total += n
		}
		if total > int64(maxMessage) {
			return wire.ErrInvalidParams("message", "holds "+strconv.FormatInt(total, 10)+" bytes; a message is at most "+strconv.Itoa(maxMessage)+" bytes (MaxMessageBytes)")
		}
	}
	return nil
}

// CheckBindings validates the bindings an agent of a card of dialect d is
// configured to declare and serve (the server's AgentConfig.Bindings).
func CheckBindings(bs []wire.Binding, d wire.Dialect) error {
	served := wire.Describe(d).Bindings
	for _, b := range bs {
		if b != wire.BindingJSONRPC && b != wire.BindingREST {
			return fmt.Errorf("bindings: %q is not a binding (JSONRPC, HTTP+JSON)", b)
		}
		if !slices.Contains(served, b) {
			return fmt.Errorf("bindings: %s is not served for %s cards (the card's dialect); HTTP+JSON is served for v1.0 and v0.3 cards only", b, d)
		}
	}
	return nil
}
