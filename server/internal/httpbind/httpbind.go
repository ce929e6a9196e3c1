// Package httpbind is the HTTP bindings of every dialect: JSON-RPC (one
// endpoint, dispatched on the method name; v1.0, v0.3, v0.2 and v0.1) and
// the v1.0 HTTP+JSON binding (REST paths). Each decodes a request into the
// canonical model and hands it to the core (binding.Host.Serve) with the
// Reply that answers in its terms: JSON-RPC envelopes, or the
// google.rpc.Status bodies of HTTP+JSON, unary or as SSE; their transport
// faults wrap the response writer (Transport).
//
// The bindings read and write the wire only: routing to agents, the
// journal, the behaviors and the timeline are the core's.
package httpbind

import (
	"context"
	"mime"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/faultwriter"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// Media types and the version header the HTTP bindings read and write.
const (
	ContentTypeJSON = "application/json"
	ContentTypeA2A  = "application/a2a+json"
	VersionHeader   = "A2A-Version"
)

// Agent is an agent as the HTTP bindings see it.
type Agent interface {
	binding.Agent
	// CardDialect is the dialect of the agent's card: on a JSON-RPC method
	// name several dialects share, it says which one the agent speaks.
	CardDialect() wire.Dialect
	// TaskDialect is the dialect task id was created in, "" when the
	// agent holds no such task.
	TaskDialect(id string) wire.Dialect
}

// CheckContentType accepts JSON media types (and a missing header, which
// several clients send for JSON-RPC).
func CheckContentType(r *http.Request) *wire.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == ContentTypeJSON || ct == ContentTypeA2A {
		// What clients send, taken without parsing.
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == ContentTypeJSON || mt == ContentTypeA2A || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return wire.Errorf(wire.CodeInvalidRequest, "unsupported Content-Type %q: send application/json or application/a2a+json", ct).WithHTTPStatus(http.StatusUnsupportedMediaType)
}

// versionKey is VersionHeader as net/http keys it ("A2a-Version"): Get
// would canonicalize the name, making a string, on every request.
var versionKey = http.CanonicalHeaderKey(VersionHeader)

// RequestedVersion reads A2A-Version from the header or the query; empty
// means 0.3 (v1.0 §1.6).
func RequestedVersion(r *http.Request) string {
	var v string
	if vs := r.Header[versionKey]; len(vs) > 0 {
		v = vs[0]
	}
	if v == "" {
		v = r.URL.Query().Get(VersionHeader)
	}
	return strings.TrimSpace(v)
}

// RPCAuthError is e for the JSON-RPC binding: the JSON-RPC error in the body,
// and 401 or 403 as the HTTP status, as a2a-go's server does.
func RPCAuthError(e *wire.Error) *wire.Error {
	status, _ := e.Status()
	c := *e
	return c.WithHTTPStatus(status)
}

// WriteJSON answers with body as ct, with its Content-Length.
func WriteJSON(w http.ResponseWriter, status int, ct string, body []byte) error {
	// Header.Set with the names already canonical, the two values in one
	// array of their own (one allocation, not two; not shared with another
	// answer, as a behavior's hook may change a value in place).
	v := &[2]string{ct, strconv.Itoa(len(body))}
	h := w.Header()
	h["Content-Type"], h["Content-Length"] = v[0:1:1], v[1:2:2]
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// WriteStatusError answers outside the bindings (routing, cards) with the
// google.rpc.Status body the v1.0 HTTP+JSON binding uses.
func WriteStatusError(w http.ResponseWriter, e *wire.Error) error {
	status, body := codecs.EncodeRESTError(e)
	return WriteJSON(w, status, ContentTypeJSON, body)
}

// httpTransport is the HTTP bindings' Transport (JSON-RPC, HTTP+JSON and
// card fetches): each fault wraps the response writer.
type httpTransport struct {
	w    http.ResponseWriter
	ctx  context.Context
	h    binding.Host
	gone bool
}

// NewTransport is the HTTP bindings' Transport over the answer on w.
func NewTransport(h binding.Host, w http.ResponseWriter, r *http.Request) *httpTransport {
	return &httpTransport{w: w, ctx: r.Context(), h: h}
}

func (t *httpTransport) Writer() http.ResponseWriter { return t.w }

func (t *httpTransport) Stopped() (bool, *wire.Error) { return t.gone, nil }

// Fail implements behaviors.Transport.
func (t *httpTransport) Fail(f behaviors.Failure) {
	t.w = faultwriter.Replace(t.w, f.Status, http.Header(f.Header), f.Body)
}

// Cut implements behaviors.Transport.
func (t *httpTransport) Cut(n int, reset bool) {
	t.w = faultwriter.Cut(t.w, n, reset, nil)
}

// Delay implements behaviors.Transport.
func (t *httpTransport) Delay(p behaviors.Phase, d time.Duration) {
	if d <= 0 {
		return
	}
	if p == behaviors.PhaseStart {
		if !t.h.Wait(t.ctx, d) {
			t.gone = true
		}
		return
	}
	t.w = faultwriter.BodyDelay(t.w, d, t.ctx, t.h.Clock())
}

// Rewrite implements behaviors.Transport.
func (t *httpTransport) Rewrite(unary func(int, textproto.MIMEHeader, []byte) (int, []byte), stream func(textproto.MIMEHeader)) bool {
	var u func(int, http.Header, []byte) (int, []byte)
	var st func(http.Header)
	if unary != nil {
		u = func(status int, h http.Header, body []byte) (int, []byte) {
			return unary(status, textproto.MIMEHeader(h), body)
		}
	}
	if stream != nil {
		st = func(h http.Header) { stream(textproto.MIMEHeader(h)) }
	}
	t.w = faultwriter.Rewrite(t.w, u, st)
	return true
}

// Corrupt implements behaviors.Transport.
func (t *httpTransport) Corrupt(nth int, f func([]byte) []byte) {
	t.w = faultwriter.Corrupt(t.w, nth, f)
}

// HoldKeepAlives implements behaviors.Transport.
func (t *httpTransport) HoldKeepAlives(hold func() bool) bool {
	t.w = faultwriter.DropComments(t.w, hold)
	return true
}

// Origin is the scheme and host the client addressed.
func Origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Incoming is r as the behaviors see a request (behaviors.Incoming).
func Incoming(r *http.Request) behaviors.Incoming { return incoming{r} }

// incoming is an HTTP request as behaviors.Incoming.
type incoming struct{ r *http.Request }

func (i incoming) Context() context.Context  { return i.r.Context() }
func (i incoming) Method() string            { return i.r.Method }
func (i incoming) Path() string              { return i.r.URL.Path }
func (i incoming) Header(name string) string { return i.r.Header.Get(name) }
func (i incoming) Query(name string) string  { return i.r.URL.Query().Get(name) }
func (i incoming) Cookie(name string) string {
	if c, err := i.r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}
