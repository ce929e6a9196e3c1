// Package a2aclient is testkit's small A2A client: JSON-RPC (v1.0 by
// default, v0.3 or v0.2 on request), v1.0 HTTP+JSON or v1.0 gRPC, unary
// and streaming, that records what it sees in a reconcile.Ledger. It
// encodes and decodes the wire with its own structs (over gRPC, its own
// conversion of the proto's messages), never the mock's codecs, so that it
// catches the mock's bugs instead of agreeing with them.
//
// Package testkit exports it under the same names (testkit.NewClient,
// testkit.Client, ...); tests usually reach it from there.
package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/testkit/internal/excerpt"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// Client is a small A2A client — JSON-RPC (v1.0 by default, v0.3 on
// request), v1.0 HTTP+JSON (WithBinding, or DiscoverClient on a card that
// declares only that) or v1.0 gRPC (WithBinding(wire.BindingGRPC)) — that
// implements reconcile.Agent, so the reconciling Driver and any
// hand-written test client can talk to a mock, or to a real agent, with it.
//
// It encodes and decodes the wire with its own structs rather than the
// wire package's codecs on purpose: a client that shares the mock's codec
// would agree with the mock's bugs instead of catching them.
//
// When given a ledger (WithLedger) it records every state it sees, with the
// channel it came from. A Client is safe for concurrent use.
type Client struct {
	url     string
	http    *http.Client
	dialect wire.Dialect
	binding wire.Binding
	ledger  *reconcile.Ledger
	header  http.Header
	seq     atomic.Int64

	// The gRPC binding's: the tenant its requests carry, the dial options
	// and the connection, dialed on the first call (grpc.go).
	tenant   string
	grpcDial []grpc.DialOption
	grpcMu   sync.Mutex
	grpcConn *grpc.ClientConn
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient sets the *http.Client the Client sends with. By default
// each Client has its own transport (a clone of http.DefaultTransport), so
// that CloseIdleConnections closes only its own connections.
func WithHTTPClient(c *http.Client) ClientOption { return func(cl *Client) { cl.http = c } }

// WithLedger makes the Client record every state it observes into l: send
// responses, stream events, polls and cancel answers, each with its Source.
func WithLedger(l *reconcile.Ledger) ClientOption { return func(cl *Client) { cl.ledger = l } }

// WithClientDialect selects the JSON-RPC method set and wire shapes: wire.V10
// (the default) or wire.V03 (also used for v0.2, whose shapes v0.3 kept).
func WithClientDialect(d wire.Dialect) ClientOption { return func(cl *Client) { cl.dialect = d } }

// WithBinding selects the binding: wire.BindingJSONRPC (the default),
// wire.BindingREST, v1.0 HTTP+JSON, whose URL is the interface's base
// (…/message:send is appended), or wire.BindingGRPC, v1.0 gRPC, whose URL
// is the host:port a card's GRPC interface declares (Mock.GRPCTarget).
// HTTP+JSON and gRPC are spoken in v1.0 only: HTTP+JSON ignores
// WithClientDialect, gRPC fails every call of a client asked for another
// version. Given to DiscoverClient or ClientForCard, wire.BindingGRPC
// picks the card's GRPC interface when it declares one.
func WithBinding(b wire.Binding) ClientOption { return func(cl *Client) { cl.binding = b } }

// WithClientHeader adds a header to every request, e.g. for credentials or
// a gateway's correlation id.
func WithClientHeader(key, value string) ClientOption {
	return func(cl *Client) { cl.header.Add(key, value) }
}

// NewClient returns a client of the JSON-RPC endpoint (or, WithBinding,
// the HTTP+JSON interface or gRPC target) at agentURL. It discovers
// nothing: see DiscoverClient to start from a card.
func NewClient(agentURL string, opts ...ClientOption) *Client {
	c := &Client{url: agentURL, dialect: wire.V10, binding: wire.BindingJSONRPC, header: http.Header{}}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = http.DefaultClient
		if tr, ok := http.DefaultTransport.(*http.Transport); ok {
			c.http = &http.Client{Transport: tr.Clone()}
		}
	}
	if c.dialect == wire.V02 {
		c.dialect = wire.V03
	}
	if c.binding == wire.BindingREST {
		c.dialect = wire.V10
	}
	return c
}

// ErrNoJSONRPCInterface is returned by DiscoverClient and ClientForCard
// for a card that declares no interface this client speaks: JSON-RPC of
// version 1.0, 0.3 or 0.2, or HTTP+JSON of version 1.0. (The name is
// older than the HTTP+JSON transport.)
var ErrNoJSONRPCInterface = errors.New("testkit: the card declares no JSON-RPC interface of version 1.0, 0.3 or 0.2 and no HTTP+JSON interface of version 1.0")

// DiscoverClient fetches the Agent Card at cardURL, parses it with
// cards.Parse and returns a client of an interface it declares (see
// ClientForCard), with the parsed card (for reconcile.Declare and
// AssertUsedDeclaredInterface).
func DiscoverClient(ctx context.Context, cardURL string, opts ...ClientOption) (*Client, *cards.Card, error) {
	c := NewClient(cardURL, opts...)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("testkit: card request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("testkit: fetch card %s: %w", cardURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("testkit: read card %s: %w", cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("testkit: fetch card %s: HTTP %d: %s", cardURL, resp.StatusCode, excerpt.Of(body))
	}
	card, err := cards.Parse(body)
	if err != nil {
		return nil, nil, fmt.Errorf("testkit: card %s: %w", cardURL, err)
	}
	c, err = ClientForCard(card, opts...)
	return c, card, err
}

// ClientForCard returns a client of an interface the card declares,
// speaking the interface's protocol version: a v1.0 GRPC interface when
// opts ask for wire.BindingGRPC and the card declares one (with its
// tenant, WithTenant), else a JSON-RPC interface when there is one (of the
// card's own dialect first), else a v1.0 HTTP+JSON one. A card without the
// GRPC interface a caller asked for thus gets a client of another binding:
// check Binding when the test is about gRPC. The card's interfaces are
// taken as given (their URLs are not checked against where the card came
// from).
func ClientForCard(card *cards.Card, opts ...ClientOption) (*Client, error) {
	pick := grpcInterface(card, opts)
	if pick == nil {
		pick = httpInterface(card)
	}
	if pick == nil {
		return nil, fmt.Errorf("%w (declared: %v)", ErrNoJSONRPCInterface, card.Interfaces)
	}
	opts = append(slices.Clone(opts), WithBinding(pick.Binding), WithClientDialect(pick.Version))
	if pick.Tenant != "" {
		opts = append(opts, WithTenant(pick.Tenant))
	}
	return NewClient(pick.URL, opts...), nil
}

// httpInterface is the interface of the card ClientForCard picks over
// HTTP: JSON-RPC (of the card's own dialect first), else v1.0 HTTP+JSON.
func httpInterface(card *cards.Card) *cards.Interface {
	var pick *cards.Interface
	for i := range card.Interfaces {
		in := &card.Interfaces[i]
		if in.Binding != wire.BindingJSONRPC || !speaks(in.Version) {
			continue
		}
		if pick == nil || (in.Version == card.Dialect && pick.Version != card.Dialect) {
			pick = in
		}
	}
	if pick == nil {
		for i := range card.Interfaces {
			if in := &card.Interfaces[i]; in.Binding == wire.BindingREST && in.Version == wire.V10 {
				pick = in
				break
			}
		}
	}
	return pick
}

func speaks(d wire.Dialect) bool { return d == wire.V10 || d == wire.V03 || d == wire.V02 }

// CloseIdleConnections closes the client's idle connections. Call it
// before closing a mock (register it with t.Cleanup after Start): a
// connection the transport opened but never used keeps http.Server's
// graceful shutdown waiting for seconds. It also closes the gRPC
// connection, idle or not (a call still in flight on it fails), since
// gRPC has no notion of an idle one; the client stays usable, its next
// gRPC call dialing anew. There is no separate Close.
func (c *Client) CloseIdleConnections() {
	c.http.CloseIdleConnections()
	c.closeGRPC()
}

// URL returns the JSON-RPC endpoint, the HTTP+JSON base URL or the gRPC
// target the client sends to.
func (c *Client) URL() string { return c.url }

// Binding returns the binding the client speaks.
func (c *Client) Binding() wire.Binding { return c.binding }

// Dialect returns the protocol version the client speaks.
func (c *Client) Dialect() wire.Dialect { return c.dialect }

// Ledger returns the ledger the client records into, or nil.
func (c *Client) Ledger() *reconcile.Ledger { return c.ledger }

// methods of each dialect, in the order send, stream, get, cancel.
var clientMethods = map[wire.Dialect][4]string{
	wire.V10: {"SendMessage", "SendStreamingMessage", "GetTask", "CancelTask"},
	wire.V03: {"message/send", "message/stream", "tasks/get", "tasks/cancel"},
}

func (c *Client) method(i int) string {
	m, ok := clientMethods[c.dialect]
	if !ok {
		m = clientMethods[wire.V10]
	}
	return m[i]
}

// Send sends msg with SendMessage (message/send) and returns the task
// answered. A reply that is a message rather than a task is
// reconcile.ErrNoTask; use SendMessage to accept both.
func (c *Client) Send(ctx context.Context, msg *wire.Message, opts reconcile.SendOptions) (*wire.Task, error) {
	t, m, err := c.SendMessage(ctx, msg, opts)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%w (the agent replied with message %q)", reconcile.ErrNoTask, m.MessageID)
	}
	return t, nil
}

// SendMessage sends msg and returns the task or the message the agent
// answered with (exactly one is set when err is nil).
func (c *Client) SendMessage(ctx context.Context, msg *wire.Message, opts reconcile.SendOptions) (*wire.Task, *wire.Message, error) {
	if msg == nil {
		return nil, nil, errors.New("testkit: SendMessage needs a message")
	}
	switch c.binding {
	case wire.BindingREST:
		return c.restSend(ctx, msg, opts)
	case wire.BindingGRPC:
		return c.grpcSend(ctx, msg, opts)
	}
	raw, err := c.call(ctx, c.method(0), c.sendParams(msg, opts))
	if err != nil {
		return nil, nil, err
	}
	ev, err := c.decodeResult(raw)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case ev.Task != nil:
		c.record(reconcile.SourceSendResponse, ev)
		return ev.Task, nil, nil
	case ev.Message != nil:
		return nil, ev.Message, nil
	}
	return nil, nil, fmt.Errorf("testkit: %s answered neither a task nor a message: %s", c.method(0), excerpt.Of(raw))
}

// GetTask returns the task's current state (tasks/get).
func (c *Client) GetTask(ctx context.Context, id string) (*wire.Task, error) {
	return c.taskCall(ctx, c.method(2), id, reconcile.SourcePoll)
}

// CancelTask cancels the task and returns it as answered (tasks/cancel).
func (c *Client) CancelTask(ctx context.Context, id string) (*wire.Task, error) {
	return c.taskCall(ctx, c.method(3), id, reconcile.SourceCancel)
}

func (c *Client) taskCall(ctx context.Context, method, id string, src reconcile.Source) (*wire.Task, error) {
	switch c.binding {
	case wire.BindingREST:
		return c.restTaskCall(ctx, method, id, src)
	case wire.BindingGRPC:
		return c.grpcTaskCall(ctx, method, id, src)
	}
	raw, err := c.call(ctx, method, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	var w wTask
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("testkit: %s result is not a task: %v: %s", method, err, excerpt.Of(raw))
	}
	if w.ID == "" {
		return nil, fmt.Errorf("testkit: %s result is not a task (no id): %s", method, excerpt.Of(raw))
	}
	t := w.canonical()
	c.record(src, wire.Event{Task: t})
	return t, nil
}

// Stream sends msg with SendStreamingMessage (message/stream) and returns
// its events. It waits for the first event, so that a refusal (a JSON-RPC
// error as a plain reply or as the first event) is the error of the call;
// the rest is read as the sequence is iterated, and the stream is closed
// when the iteration ends (a caller that does not iterate must cancel
// ctx). A JSON-RPC error inside the stream is yielded as an *RPCError.
func (c *Client) Stream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error) {
	if msg == nil {
		return nil, errors.New("testkit: Stream needs a message")
	}
	switch c.binding {
	case wire.BindingREST:
		return c.restStream(ctx, msg)
	case wire.BindingGRPC:
		return c.grpcStream(ctx, msg)
	}
	id := c.seq.Add(1)
	body, err := json.Marshal(wRequest{JSONRPC: "2.0", ID: id, Method: c.method(1), Params: c.sendParams(msg, reconcile.SendOptions{})})
	if err != nil {
		return nil, fmt.Errorf("testkit: encode request: %w", err)
	}
	req, err := c.newRequest(ctx, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	return c.openStream(ctx, req, c.method(1), func(data []byte, status int) (json.RawMessage, error) {
		return decodeEnvelope(data, status)
	})
}

// openStream sends a streaming request and returns its events; unwrap
// turns an event's data (or a body that is not a stream) into the result
// it carries, or the error (an *RPCError) the agent answered.
func (c *Client) openStream(ctx context.Context, req *http.Request, label string, unwrap func(data []byte, status int) (json.RawMessage, error)) (iter.Seq2[wire.Event, error], error) {
	st, err := sse.Do(ctx, c.http, req)
	if err != nil {
		var nas *sse.NotAStreamError
		if errors.As(err, &nas) {
			var rpcErr *RPCError
			if _, derr := unwrap(nas.Body, nas.Status); errors.As(derr, &rpcErr) {
				return nil, rpcErr
			}
		}
		return nil, fmt.Errorf("testkit: %s: %w", label, err)
	}
	// The first event is read now: an agent that refuses a stream usually
	// does so in an error event, and the caller must see that refusal as
	// the error of the call (reconcile.ErrNotSupported), not as an event.
	next, stop := iter.Pull2(st.Events())
	first, ferr, ok := next()
	var firstEv wire.Event
	if ok && ferr == nil {
		raw, rerr := unwrap(first.Data, http.StatusOK)
		var rpcErr *RPCError
		if errors.As(rerr, &rpcErr) {
			stop()
			_ = st.Close()
			return nil, rpcErr
		}
		if rerr == nil {
			firstEv, ferr = c.decodeResult(raw)
		} else {
			ferr = rerr
		}
	} else if ferr != nil {
		ferr = fmt.Errorf("testkit: %s stream: %w", label, ferr)
	}
	return func(yield func(wire.Event, error) bool) {
		defer st.Close()
		defer stop()
		if !ok {
			return
		}
		if ferr != nil {
			yield(wire.Event{}, ferr)
			return
		}
		c.record(reconcile.SourceStream, firstEv)
		if !yield(firstEv, nil) {
			return
		}
		for {
			sev, err, more := next()
			if !more {
				return
			}
			if err != nil {
				yield(wire.Event{}, fmt.Errorf("testkit: %s stream: %w", label, err))
				return
			}
			raw, rerr := unwrap(sev.Data, http.StatusOK)
			if rerr != nil {
				yield(wire.Event{}, rerr)
				return
			}
			ev, derr := c.decodeResult(raw)
			if derr != nil {
				yield(wire.Event{}, derr)
				return
			}
			c.record(reconcile.SourceStream, ev)
			if !yield(ev, nil) {
				return
			}
		}
	}, nil
}

func (c *Client) record(src reconcile.Source, ev wire.Event) {
	if c.ledger == nil {
		return
	}
	if o, ok := reconcile.ObservationFromEvent(src, ev); ok {
		// A divergence is kept by the ledger itself (the task's outcome
		// becomes diverged); the call that saw it still succeeds, as the
		// wire exchange did.
		_ = c.ledger.Observe(o)
	}
}

func (c *Client) newRequest(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("testkit: request: %w", err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", string(c.dialect))
	return req, nil
}

// call makes one unary JSON-RPC call and returns its raw result.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.seq.Add(1)
	body, err := json.Marshal(wRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("testkit: encode %s: %w", method, err)
	}
	req, err := c.newRequest(ctx, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("testkit: %s: %w", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("testkit: %s: read reply: %w", method, err)
	}
	raw, err := decodeEnvelope(b, resp.StatusCode)
	if err != nil {
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) {
			err = fmt.Errorf("testkit: %s: %w", method, err)
		}
		return nil, err
	}
	return raw, nil
}

// decodeEnvelope returns the result of a JSON-RPC response, or its error
// as an *RPCError.
func decodeEnvelope(b []byte, status int) (json.RawMessage, error) {
	var env wResponse
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("reply is not a JSON-RPC response (HTTP %d): %s", status, excerpt.Of(b))
	}
	if env.Error != nil {
		return nil, &RPCError{Code: env.Error.Code, Message: env.Error.Message, Data: env.Error.Data, HTTPStatus: status}
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return nil, fmt.Errorf("JSON-RPC response has neither result nor error (HTTP %d): %s", status, excerpt.Of(b))
	}
	return env.Result, nil
}

func (c *Client) sendParams(msg *wire.Message, opts reconcile.SendOptions) any {
	wm := wireMessage(msg, c.dialect)
	if c.dialect == wire.V03 {
		cfg := map[string]any{"blocking": !opts.ReturnImmediately}
		if len(opts.AcceptedOutputModes) > 0 {
			cfg["acceptedOutputModes"] = opts.AcceptedOutputModes
		}
		return map[string]any{"message": wm, "configuration": cfg}
	}
	p := map[string]any{"message": wm}
	cfg := map[string]any{}
	if opts.ReturnImmediately {
		cfg["returnImmediately"] = true
	}
	if len(opts.AcceptedOutputModes) > 0 {
		cfg["acceptedOutputModes"] = opts.AcceptedOutputModes
	}
	if len(cfg) > 0 {
		p["configuration"] = cfg
	}
	return p
}

// decodeResult reads a send result or a stream event: a v1.0 wrapper
// ({task}, {message}, {statusUpdate}, {artifactUpdate}) or a v0.3 object
// told apart by its kind.
func (c *Client) decodeResult(raw json.RawMessage) (wire.Event, error) {
	if c.dialect == wire.V03 {
		var k struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &k); err != nil {
			return wire.Event{}, fmt.Errorf("testkit: result is not an object: %s", excerpt.Of(raw))
		}
		switch k.Kind {
		case "task":
			var w wTask
			if err := json.Unmarshal(raw, &w); err != nil {
				return wire.Event{}, fmt.Errorf("testkit: bad task: %v", err)
			}
			return wire.Event{Task: w.canonical()}, nil
		case "message":
			var w wMessage
			if err := json.Unmarshal(raw, &w); err != nil {
				return wire.Event{}, fmt.Errorf("testkit: bad message: %v", err)
			}
			return wire.Event{Message: w.canonical()}, nil
		case "status-update":
			var w wStatusUpdate
			if err := json.Unmarshal(raw, &w); err != nil {
				return wire.Event{}, fmt.Errorf("testkit: bad status-update: %v", err)
			}
			return wire.Event{Status: w.canonical()}, nil
		case "artifact-update":
			var w wArtifactUpdate
			if err := json.Unmarshal(raw, &w); err != nil {
				return wire.Event{}, fmt.Errorf("testkit: bad artifact-update: %v", err)
			}
			return wire.Event{Artifact: w.canonical()}, nil
		}
		return wire.Event{}, fmt.Errorf("testkit: result of unknown kind %q: %s", k.Kind, excerpt.Of(raw))
	}
	var w wStreamResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return wire.Event{}, fmt.Errorf("testkit: bad result: %v: %s", err, excerpt.Of(raw))
	}
	switch {
	case w.Task != nil:
		return wire.Event{Task: w.Task.canonical()}, nil
	case w.Message != nil:
		return wire.Event{Message: w.Message.canonical()}, nil
	case w.StatusUpdate != nil:
		return wire.Event{Status: w.StatusUpdate.canonical()}, nil
	case w.ArtifactUpdate != nil:
		return wire.Event{Artifact: w.ArtifactUpdate.canonical()}, nil
	}
	return wire.Event{}, fmt.Errorf("testkit: result has none of task, message, statusUpdate, artifactUpdate: %s", excerpt.Of(raw))
}
