package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// Client is a small A2A JSON-RPC client (v1.0 by default, v0.3 on request)
// that implements reconcile.Agent, so the reconciling Driver and any
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
	ledger  *reconcile.Ledger
	header  http.Header
	seq     atomic.Int64
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

// WithClientHeader adds a header to every request, e.g. for credentials or
// a gateway's correlation id.
func WithClientHeader(key, value string) ClientOption {
	return func(cl *Client) { cl.header.Add(key, value) }
}

// NewClient returns a client of the JSON-RPC endpoint at agentURL. It
// discovers nothing: see DiscoverClient to start from a card.
func NewClient(agentURL string, opts ...ClientOption) *Client {
	c := &Client{url: agentURL, dialect: wire.V10, header: http.Header{}}
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
	return c
}

// ErrNoJSONRPCInterface is returned by DiscoverClient for a card that
// declares no JSON-RPC interface this client speaks.
var ErrNoJSONRPCInterface = errors.New("testkit: the card declares no JSON-RPC interface of version 1.0, 0.3 or 0.2")

// DiscoverClient fetches the Agent Card at cardURL, parses it with
// cards.Parse and returns a client of the JSON-RPC interface it declares,
// speaking the interface's protocol version, with the parsed card (for
// reconcile.Declare and AssertUsedDeclaredInterface). An interface of the
// card's own dialect is preferred when there are several.
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
		return nil, nil, fmt.Errorf("testkit: fetch card %s: HTTP %d: %s", cardURL, resp.StatusCode, snippet(body))
	}
	card, err := cards.Parse(body)
	if err != nil {
		return nil, nil, fmt.Errorf("testkit: card %s: %w", cardURL, err)
	}
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
		return nil, card, fmt.Errorf("%w (declared: %v)", ErrNoJSONRPCInterface, card.Interfaces)
	}
	c.url, c.dialect = pick.URL, pick.Version
	if c.dialect == wire.V02 {
		c.dialect = wire.V03
	}
	return c, card, nil
}

func speaks(d wire.Dialect) bool { return d == wire.V10 || d == wire.V03 || d == wire.V02 }

// CloseIdleConnections closes the client's idle connections. Call it
// before closing a mock (register it with t.Cleanup after Start): a
// connection the transport opened but never used keeps http.Server's
// graceful shutdown waiting for seconds.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// URL returns the JSON-RPC endpoint the client sends to.
func (c *Client) URL() string { return c.url }

// Dialect returns the protocol version the client speaks.
func (c *Client) Dialect() wire.Dialect { return c.dialect }

// Ledger returns the ledger the client records into, or nil.
func (c *Client) Ledger() *reconcile.Ledger { return c.ledger }

// RPCError is a JSON-RPC error answered by the agent; find it with
// errors.As. It matches reconcile.ErrNotSupported (errors.Is) for
// UnsupportedOperationError and method-not-found, so the driver can tell a
// refused capability from a failure.
type RPCError struct {
	Code    int
	Message string
	// Data is the error's raw data member, if any.
	Data json.RawMessage
	// HTTPStatus is the status of the HTTP reply that carried the error.
	HTTPStatus int
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("a2a: JSON-RPC error %d: %s", e.Code, e.Message)
}

// Is lets errors.Is(err, reconcile.ErrNotSupported) see refused operations.
func (e *RPCError) Is(target error) bool {
	return target == reconcile.ErrNotSupported &&
		(e.Code == wire.CodeUnsupportedOperation || e.Code == wire.CodeMethodNotFound)
}

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
	return nil, nil, fmt.Errorf("testkit: %s answered neither a task nor a message: %s", c.method(0), snippet(raw))
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
	raw, err := c.call(ctx, method, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	var w wTask
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("testkit: %s result is not a task: %v: %s", method, err, snippet(raw))
	}
	if w.ID == "" {
		return nil, fmt.Errorf("testkit: %s result is not a task (no id): %s", method, snippet(raw))
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
	st, err := sse.Do(ctx, c.http, req)
	if err != nil {
		var nas *sse.NotAStreamError
		if errors.As(err, &nas) {
			var rpcErr *RPCError
			if _, derr := decodeEnvelope(nas.Body, nas.Status); errors.As(derr, &rpcErr) {
				return nil, rpcErr
			}
		}
		return nil, fmt.Errorf("testkit: %s: %w", c.method(1), err)
	}
	// The first event is read now: an agent that refuses a stream usually
	// does so in an error event, and the caller must see that refusal as
	// the error of the call (reconcile.ErrNotSupported), not as an event.
	next, stop := iter.Pull2(st.Events())
	first, ferr, ok := next()
	var firstEv wire.Event
	if ok && ferr == nil {
		raw, rerr := decodeEnvelope(first.Data, http.StatusOK)
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
		ferr = fmt.Errorf("testkit: %s stream: %w", c.method(1), ferr)
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
				yield(wire.Event{}, fmt.Errorf("testkit: %s stream: %w", c.method(1), err))
				return
			}
			raw, rerr := decodeEnvelope(sev.Data, http.StatusOK)
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
		return nil, fmt.Errorf("reply is not a JSON-RPC response (HTTP %d): %s", status, snippet(b))
	}
	if env.Error != nil {
		return nil, &RPCError{Code: env.Error.Code, Message: env.Error.Message, Data: env.Error.Data, HTTPStatus: status}
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return nil, fmt.Errorf("JSON-RPC response has neither result nor error (HTTP %d): %s", status, snippet(b))
	}
	return env.Result, nil
}

func snippet(b []byte) string {
	const n = 300
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
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
			return wire.Event{}, fmt.Errorf("testkit: result is not an object: %s", snippet(raw))
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
		return wire.Event{}, fmt.Errorf("testkit: result of unknown kind %q: %s", k.Kind, snippet(raw))
	}
	var w wStreamResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return wire.Event{}, fmt.Errorf("testkit: bad result: %v: %s", err, snippet(raw))
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
	return wire.Event{}, fmt.Errorf("testkit: result has none of task, message, statusUpdate, artifactUpdate: %s", snippet(raw))
}

// The client's own wire structs. One set serves both dialects: v1.0 leaves
// kind and final empty, v0.3 sets them; readers accept either spelling of
// states and roles.

type wRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type wRPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type wResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *wRPCError      `json:"error"`
}

type wFile struct {
	Bytes    []byte `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Name     string `json:"name,omitempty"`
}

type wPart struct {
	Kind      string          `json:"kind,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	URL       string          `json:"url,omitempty"`
	File      *wFile          `json:"file,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

type wMessage struct {
	Kind             string         `json:"kind,omitempty"`
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []wPart        `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
}

type wStatus struct {
	State   string    `json:"state"`
	Message *wMessage `json:"message,omitempty"`
}

type wArtifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []wPart        `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type wTask struct {
	Kind      string         `json:"kind,omitempty"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    wStatus        `json:"status"`
	Artifacts []wArtifact    `json:"artifacts,omitempty"`
	History   []wMessage     `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wStatusUpdate struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    wStatus        `json:"status"`
	Final     bool           `json:"final,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wArtifactUpdate struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  wArtifact      `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wStreamResponse struct {
	Task           *wTask           `json:"task"`
	Message        *wMessage        `json:"message"`
	StatusUpdate   *wStatusUpdate   `json:"statusUpdate"`
	ArtifactUpdate *wArtifactUpdate `json:"artifactUpdate"`
}

// wireState reads "TASK_STATE_INPUT_REQUIRED" or "input-required".
func wireState(s string) wire.TaskState {
	if rest, ok := strings.CutPrefix(s, "TASK_STATE_"); ok {
		s = strings.ReplaceAll(strings.ToLower(rest), "_", "-")
	}
	if s == "unspecified" {
		return wire.StateUnspecified
	}
	return wire.TaskState(s)
}

func wireRole(s string) wire.Role {
	switch s {
	case "ROLE_USER", "user":
		return wire.RoleUser
	case "ROLE_AGENT", "agent":
		return wire.RoleAgent
	}
	return wire.Role(strings.ToLower(strings.TrimPrefix(s, "ROLE_")))
}

func wireMessage(m *wire.Message, d wire.Dialect) wMessage {
	w := wMessage{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Metadata: m.Metadata, ReferenceTaskIDs: m.ReferenceTaskIDs, Extensions: m.Extensions}
	role := m.Role
	if role == "" {
		role = wire.RoleUser
	}
	if d == wire.V03 {
		w.Kind, w.Role = "message", string(role)
	} else {
		w.Role = "ROLE_" + strings.ToUpper(string(role))
	}
	w.Parts = make([]wPart, 0, len(m.Parts))
	for _, p := range m.Parts {
		w.Parts = append(w.Parts, wirePart(p, d))
	}
	return w
}

func wirePart(p wire.Part, d wire.Dialect) wPart {
	w := wPart{Metadata: p.Metadata}
	var data json.RawMessage
	if p.Kind == wire.PartData {
		data, _ = json.Marshal(p.Data)
	}
	if d == wire.V03 {
		w.Kind = string(p.Kind)
		switch p.Kind {
		case wire.PartFile:
			w.File = &wFile{Bytes: p.Raw, URI: p.URL, MimeType: p.MediaType, Name: p.Filename}
		case wire.PartData:
			w.Data = data
		default:
			w.Kind = "text"
			text := p.Text
			w.Text = &text
		}
		return w
	}
	w.MediaType, w.Filename = p.MediaType, p.Filename
	switch p.Kind {
	case wire.PartFile:
		if p.URL != "" {
			w.URL = p.URL
		} else {
			w.Raw = p.Raw
		}
	case wire.PartData:
		w.Data = data
	default:
		text := p.Text
		w.Text = &text
	}
	return w
}

func (w wPart) canonical() wire.Part {
	p := wire.Part{Metadata: w.Metadata, MediaType: w.MediaType, Filename: w.Filename}
	switch {
	case w.Text != nil:
		p.Kind, p.Text = wire.PartText, *w.Text
	case w.File != nil:
		p.Kind, p.Raw, p.URL, p.MediaType, p.Filename = wire.PartFile, w.File.Bytes, w.File.URI, w.File.MimeType, w.File.Name
	case len(w.Raw) > 0 || w.URL != "":
		p.Kind, p.Raw, p.URL = wire.PartFile, w.Raw, w.URL
	case len(w.Data) > 0:
		p.Kind = wire.PartData
		_ = json.Unmarshal(w.Data, &p.Data)
	default:
		p.Kind = wire.PartText
	}
	return p
}

func (w *wMessage) canonical() *wire.Message {
	if w == nil {
		return nil
	}
	m := &wire.Message{MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Role: wireRole(w.Role),
		Metadata: w.Metadata, ReferenceTaskIDs: w.ReferenceTaskIDs, Extensions: w.Extensions}
	for _, p := range w.Parts {
		m.Parts = append(m.Parts, p.canonical())
	}
	return m
}

func (w wStatus) canonical() wire.TaskStatus {
	return wire.TaskStatus{State: wireState(w.State), Message: w.Message.canonical()}
}

func (w wArtifact) canonical() wire.Artifact {
	a := wire.Artifact{ArtifactID: w.ArtifactID, Name: w.Name, Description: w.Description, Metadata: w.Metadata}
	for _, p := range w.Parts {
		a.Parts = append(a.Parts, p.canonical())
	}
	return a
}

func (w *wTask) canonical() *wire.Task {
	t := &wire.Task{ID: w.ID, ContextID: w.ContextID, Status: w.Status.canonical(), Metadata: w.Metadata}
	for _, a := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, a.canonical())
	}
	for _, m := range w.History {
		t.History = append(t.History, *m.canonical())
	}
	return t
}

func (w *wStatusUpdate) canonical() *wire.StatusUpdate {
	return &wire.StatusUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Status: w.Status.canonical(), Final: w.Final, Metadata: w.Metadata}
}

func (w *wArtifactUpdate) canonical() *wire.ArtifactUpdate {
	return &wire.ArtifactUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Artifact: w.Artifact.canonical(),
		Append: w.Append, LastChunk: w.LastChunk, Metadata: w.Metadata}
}
