package canon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// A Reader reads the recorded answers of one exchange into the model, in
// the form of the binding that will serve them: a JSON-RPC result in its
// dialect's JSON-RPC form; an HTTP+JSON body, and a gRPC message in its
// proto's JSON, in the form of the dialect's HTTP+JSON codec (v1.0's is
// its JSON-RPC codec, v0.3's the v0.3 proto's JSON), which is also the
// form the gRPC binding transcodes its messages through.
type Reader struct {
	// Dialect, Op and Binding are the exchange's, as DialectOf reads them.
	Dialect wire.Dialect
	Op      wire.Op
	Binding wire.Binding
	f       *form
	// out is, for gRPC, the method's response message: the binding
	// renders a value as the codec's JSON read as that message, and the
	// recording holds the message's JSON.
	out protoreflect.MessageDescriptor
}

// ReaderOf returns the reader of x's answers, and an error saying why
// when no codec renders them (they are then replayed as recorded bytes).
// The Reader always names the exchange's dialect, operation and binding.
func ReaderOf(x *record.Exchange) (*Reader, error) {
	d, op, b := DialectOf(x)
	r := &Reader{Dialect: d, Op: op, Binding: b}
	var codec wire.Codec
	switch b {
	case wire.BindingJSONRPC:
		codec = codecs.For(d)
	case wire.BindingREST:
		codec, _ = codecs.ForREST(d)
	case wire.BindingGRPC:
		// The gRPC binding reads and writes its messages' JSON with the
		// dialect's HTTP+JSON codec.
		if md := a2apb.MethodAt(x.Path); md != nil {
			codec, _ = codecs.ForREST(d)
			r.out = md.Output()
		}
	}
	if codec == nil {
		return r, fmt.Errorf("no codec renders A2A v%s %s answers", d, b)
	}
	r.f = formOf(codec)
	return r, nil
}

// ServedFor returns why the engine would not serve the exchange's requests
// for an agent with card c (nil: it would). JSON-RPC serves every
// dialect's methods, and a binding's root dialect (v1.0's HTTP+JSON and
// gRPC) every agent; another dialect's HTTP+JSON routes and gRPC service
// (v0.3's) are served only for an agent whose card is of that dialect.
func (r *Reader) ServedFor(c *cards.Card) error {
	if r.Binding == wire.BindingJSONRPC || r.Dialect == wire.ForBinding(r.Binding) {
		return nil
	}
	if cd := cardDialect(c); cd != r.Dialect {
		return fmt.Errorf("the engine serves A2A v%s %s only for an agent whose card is v%s, and the replayed agent's card is v%s", r.Dialect, r.Binding, r.Dialect, cd)
	}
	return nil
}

// cardDialect is the dialect the server serves card c in (a nil card is
// generated in the newest).
func cardDialect(c *cards.Card) wire.Dialect {
	if c == nil || c.Dialect == "" {
		return wire.Newest()
	}
	return c.Dialect
}

// Card is the card the replayed agent is served with: the first card the
// recorded agent answered with, parsed. Without one it is nil (the server
// generates a card), unless an exchange is of a dialect the engine serves
// only for a card of that dialect (ServedFor): then it is the card the
// server would generate, of that dialect, so that the engine plays it.
// The recording's exchanges of the root dialects (v1.0's HTTP+JSON routes
// and gRPC service) lose nothing by it: the engine serves them for every
// agent (ServedFor), so they are played too
// (record's TestReplayMixedDialectsWithoutCard).
func Card(rec *record.Recording, name string, seed uint64) *cards.Card {
	for _, x := range rec.Exchanges {
		if x.Kind == record.KindCard && x.Status == http.StatusOK {
			if c, err := cards.Parse(x.Response); err == nil {
				return c
			}
		}
	}
	for i := range rec.Exchanges {
		if r, err := ReaderOf(&rec.Exchanges[i]); err == nil && r.ServedFor(nil) != nil {
			c := cards.Generate(name, seed)
			c.Dialect = r.Dialect
			return c
		}
	}
	return nil
}

// render is a value as the binding serves it: the codec's JSON, for gRPC
// read as the response message (what that message does not hold is
// dropped, as the binding drops it) and written as its JSON again.
func (r *Reader) render(b []byte) ([]byte, error) {
	if r.out == nil {
		return b, nil
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(r.out.FullName())
	if err != nil {
		return nil, err
	}
	m := mt.New().Interface()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w", r.out.FullName(), err)
	}
	return protojson.Marshal(m)
}

// form is how a codec writes values, learned from values it wrote: the
// decoders read recorded values with it, whatever the codec's dialect and
// binding, and the round trip through the codec decides what is taken.
type form struct {
	codec wire.Codec
	// wrapped: a result or event is an object with one member naming its
	// kind (v1.0's, and the proto's SendMessageResponse and
	// StreamResponse); otherwise it carries a `kind` member.
	wrapped bool
	// message is a message the codec wrote, and parts the member that
	// holds its parts: decodeParts puts recorded parts there, to read them
	// with the codec's message decoder.
	message map[string]json.RawMessage
	parts   string
	// states are the codec's names of the task states.
	states map[string]wire.TaskState
}

// forms caches the form of each codec (wire.Codec → *form).
var forms sync.Map

// formOf learns how codec c writes messages, results and states.
func formOf(c wire.Codec) *form {
	if f, ok := forms.Load(c); ok {
		return f.(*form)
	}
	f := &form{codec: c, states: map[string]wire.TaskState{}}
	msg := &wire.Message{MessageID: "p", Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart("p")}}
	if b, err := c.EncodeResult(wire.OpSend, &wire.Result{Message: msg}); err == nil {
		var top map[string]json.RawMessage
		_ = json.Unmarshal(b, &top)
		if _, kind := top["kind"]; !kind && len(top) == 1 {
			f.wrapped = true
			for _, inner := range top {
				b = inner
			}
		}
		_ = json.Unmarshal(b, &f.message)
		for k, v := range f.message {
			var list []json.RawMessage
			if json.Unmarshal(v, &list) == nil && len(list) == 1 {
				f.parts = k
			}
		}
	}
	// Unknown before unspecified: where one name stands for both (v1.0's
	// TASK_STATE_UNSPECIFIED), it reads as unspecified.
	for _, s := range append([]wire.TaskState{wire.StateUnknown, wire.StateUnspecified}, wire.AllStates...) {
		b, err := c.EncodeResult(wire.OpGetTask, &wire.Result{Task: &wire.Task{ID: "t", Status: wire.TaskStatus{State: s}}})
		var t struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if err == nil && json.Unmarshal(b, &t) == nil && t.Status.State != "" {
			f.states[t.Status.State] = s
		}
	}
	if reflect.TypeOf(c).Comparable() {
		forms.Store(c, f)
	}
	return f
}
