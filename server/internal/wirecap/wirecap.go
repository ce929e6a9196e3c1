// Package wirecap keeps the raw bytes of the last exchanges with the
// agents (request and response, headers and the start of each body), for
// the timeline's raw view (GET /_a2amock/journal/wire). It is bounded by
// count and by bytes per body, and credentials in headers are redacted.
//
// The journal stays the record of what happened: the capture only holds
// bytes, and only recent ones.
package wirecap

import (
	"bytes"
	"encoding/base64"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a2amock/a2amock/internal/redact"
)

// The wire capture keeps the raw bytes of the last exchanges with the
// agents (request and response, headers and the start of each body), for
// the timeline's raw view: GET /_a2amock/journal/wire?request=N (an A2A
// request's number, as its journal entries carry it) or ?seq=S (a card or
// JWKS fetch's journal entry). It is bounded by count and by bytes per
// body; credentials in headers are redacted. The journal stays the record
// of what happened: the capture only holds bytes, and only recent ones.
const (
	wireKeep    = 512
	wireBodyMax = 16 << 10
	wireHeadMax = 8 << 10
	// reuseMax is the largest body buffer kept for reuse (a unary
	// exchange's fit); reuseKeep bounds how many are kept. A larger
	// one is left to the collector, so that a small body never pins a
	// big buffer for as long as the capture keeps it.
	reuseMax  = 2 << 10
	reuseKeep = 16
)

// Exchange is the raw view of one HTTP exchange with an agent.
type Exchange struct {
	// Request is the A2A request number (the journal entries' request);
	// Seq the journal entry of a card or JWKS fetch.
	Request  int64       `json:"request,omitempty"`
	Seq      int64       `json:"seq,omitempty"`
	Time     time.Time   `json:"time"`
	Method   string      `json:"method"`
	URL      string      `json:"url"`
	Proto    string      `json:"proto"`
	Header   http.Header `json:"header"`
	Body     Body        `json:"body"`
	Status   int         `json:"status"`
	RespHead http.Header `json:"responseHeader"`
	Response Body        `json:"response"`
	// Trailer holds the trailers sent after the response body (a gRPC
	// call's grpc-status among them).
	Trailer http.Header `json:"trailer,omitempty"`
	// Done is false while the exchange is still being answered (a stream).
	Done bool `json:"done"`
}

// Body is the start of a body: Text when it is UTF-8 without NUL bytes,
// else Base64;
// Size counts every byte, Truncated says the rest was not kept.
type Body struct {
	Text      string `json:"text,omitempty"`
	Base64    string `json:"base64,omitempty"`
	Size      int64  `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

type wireBuf struct {
	b    []byte
	size int64
}

func (w *wireBuf) add(p []byte) {
	w.size += int64(len(p))
	if room := wireBodyMax - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
}

// clone is a copy of w with bytes of its own.
func (w wireBuf) clone() wireBuf { return wireBuf{b: bytes.Clone(w.b), size: w.size} }

// body is the kept start of the body as the raw view shows it, its
// credentials redacted (contentType says how to find them; path is a gRPC
// call's method, request whether the body is the request's).
func (w *wireBuf) body(contentType, path string, request bool) Body {
	out := Body{Size: w.size, Truncated: w.size > int64(len(w.b))}
	b := redactBody(w.b, contentType, path, request)
	if out.Truncated {
		// Do not split a UTF-8 sequence at the cut.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	// A NUL byte says binary (a gRPC message's length prefix) even when the
	// bytes happen to be UTF-8.
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		out.Text = string(b)
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

// redactBody replaces the credentials a body of this content type can
// carry outside the headers: push tokens and authentication credentials,
// signed URLs (see package redact).
func redactBody(b []byte, contentType, path string, request bool) []byte {
	mt, _, _ := strings.Cut(contentType, ";")
	switch mt = strings.TrimSpace(strings.ToLower(mt)); {
	case len(b) == 0:
		return b
	case mt == "application/grpc" || strings.HasPrefix(mt, "application/grpc+"):
		return redact.GRPC(path, b, request)
	case mt == "text/event-stream":
		return redact.EventStream(b, redact.RawView)
	default:
		// JSON whatever it is labelled: a client may send a JSON body
		// with any content type, and redact.JSON leaves other bytes as
		// they are.
		return redact.JSON(b, redact.RawView)
	}
}

// Rec is one exchange being captured; its fields are guarded by the
// capture's lock.
type Rec struct {
	c        *Capture
	req, seq int64
	time     time.Time
	method   string
	url      string
	proto    string
	header   keptHeader
	body     wireBuf
	status   int
	respHead sentHeader
	resp     wireBuf
	// live is the response's header map, read at Finish for trailers and
	// then let go.
	live      http.Header
	trailer   keptHeader
	done      bool
	published bool
}

// Capture keeps the raw bytes of the last exchanges. It is safe for
// concurrent use: one mutex guards every exchange being captured.
type Capture struct {
	mu sync.Mutex
	// order holds the exchanges kept, oldest first. Get finds one by a
	// scan of it, newest first: no index by request number or seq, which
	// cost every request a map insertion and deletion for a view seldom
	// asked for.
	order []*Rec
	// spare holds the request (0) and response (1) body buffers of
	// exchanges that left order, for the next exchanges' bodies: once
	// the capture is full every new exchange pushes an old one out, and
	// a copy of each body into a new buffer was, after the request's own,
	// the largest allocation of an answer (more work for the collector
	// on every request). Nothing reads a buffer outside mu (Get copies
	// the bodies it shows), so a buffer taken from an exchange is no
	// longer seen through it.
	spare [2][][]byte
}

// New returns an empty capture.
func New() *Capture { return &Capture{} }

// Reset forgets every exchange.
func (c *Capture) Reset() {
	c.mu.Lock()
	c.order = nil
	c.mu.Unlock()
}

// Wrap starts capturing an agent request: its body and its answer are
// copied (the start of each) as they pass through r's body, which Wrap
// replaces, and the returned writer. The exchange is kept once Tag names
// it; Finish marks it answered.
func (c *Capture) Wrap(w http.ResponseWriter, r *http.Request, now time.Time) (http.ResponseWriter, *Rec) {
	rec := &Rec{c: c, time: now.UTC(), method: r.Method, url: r.URL.RequestURI(), proto: r.Proto, header: keep(r.Header)}
	// One allocation for both wrappers, which live as long as the request;
	// not with the record, which the capture keeps after it, so that the
	// capture does not keep the request's writer and body alive.
	x := &wrappers{w: wireWriter{ResponseWriter: w, rec: rec}}
	if r.Body != nil && r.Body != http.NoBody {
		x.r = wireReader{ReadCloser: r.Body, rec: rec}
		r.Body = &x.r
	}
	return &x.w, rec
}

// wrappers are the body reader and the writer Wrap puts around a request.
type wrappers struct {
	r wireReader
	w wireWriter
}

// Finish marks the exchange answered (a stream's capture is Done only
// then).
func (rec *Rec) Finish() {
	rec.c.mu.Lock()
	rec.done = true
	if t := trailers(rec.live, rec.respHead.values("Trailer")); len(t) > 0 {
		rec.trailer = keep(t)
	}
	rec.live = nil // read once: the writer's map is not kept with the capture
	rec.c.mu.Unlock()
}

// trailers returns the trailers a handler set in its header map live after
// the headers sent went out: those named with http.TrailerPrefix and those
// the sent headers declared in Trailer (declared, their values).
func trailers(live http.Header, declared []string) http.Header {
	var out http.Header
	add := func(k string, vs []string) {
		if out == nil {
			out = http.Header{}
		}
		out[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
	}
	for k, vs := range live {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			add(name, vs)
		}
	}
	for _, decl := range declared {
		for name := range strings.SplitSeq(decl, ",") {
			if k := http.CanonicalHeaderKey(strings.TrimSpace(name)); live[k] != nil {
				add(k, live[k])
			}
		}
	}
	return out
}

// Tag names the exchange answered through w (a writer Wrap returned, or
// one wrapping it) after the journal: its A2A request number, or the seq of
// the card or JWKS entry it produced. An exchange not captured is left
// alone. The capture is found by unwrapping w, not in the request's
// context: a context value would cost every request a copy of it.
func Tag(w http.ResponseWriter, reqNo, seq int64) {
	// One walk down the writers w wraps finds the capture's and tells
	// every ExchangeTagger, in front of the server's own writers or not.
	var rec *Rec
	for w != nil {
		if ww, ok := w.(*wireWriter); ok && rec == nil {
			rec = ww.rec
		}
		if t, ok := w.(ExchangeTagger); ok {
			t.TagExchange(reqNo, seq)
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	if rec == nil {
		return
	}
	c := rec.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec.published {
		return
	}
	rec.published = true
	rec.req, rec.seq = reqNo, seq
	c.order = append(c.order, rec)
	if len(c.order) > wireKeep {
		c.reuse(0, &c.order[0].body)
		c.reuse(1, &c.order[0].resp)
		c.order[0] = nil
		c.order = c.order[1:]
	}
}

// reuse takes the buffer of an exchange leaving the capture into spare
// list k, when it is small enough and the list has room; c.mu is held. The
// exchange may still be answering (a stream): what it writes next starts
// a buffer of its own, which no one reads any more.
func (c *Capture) reuse(k int, w *wireBuf) {
	if b := w.b; cap(b) > 0 && cap(b) <= reuseMax && len(c.spare[k]) < reuseKeep {
		c.spare[k] = append(c.spare[k], b[:0])
		w.b = nil
	}
}

// add appends p to w, the request (k 0) or response (1) body of an
// exchange, starting it on a spare buffer; c.mu is held.
func (c *Capture) add(k int, w *wireBuf, p []byte) {
	if n := len(c.spare[k]); w.b == nil && n > 0 && len(p) > 0 {
		w.b, c.spare[k][n-1] = c.spare[k][n-1], nil
		c.spare[k] = c.spare[k][:n-1]
	}
	w.add(p)
}

// Get returns the exchange with request number req (or, when req is 0,
// the card or JWKS fetch journaled as seq): the newest kept, should a
// number have been given twice (request numbers start over on a reset).
func (c *Capture) Get(req, seq int64) (Exchange, bool) {
	c.mu.Lock()
	var rec *Rec
	for i := len(c.order) - 1; i >= 0 && rec == nil; i-- {
		if r := c.order[i]; req > 0 && r.req == req || req == 0 && r.req <= 0 && r.seq == seq {
			rec = r
		}
	}
	if rec == nil {
		c.mu.Unlock()
		return Exchange{}, false
	}
	x := Exchange{Request: rec.req, Seq: rec.seq, Time: rec.time, Method: rec.method, URL: rec.url, Proto: rec.proto,
		Header: rec.header.view(), Status: rec.status, RespHead: rec.respHead.view(), Trailer: rec.trailer.viewOrNil(), Done: rec.done}
	// The bodies are redacted after the lock is let go, so that decoding
	// them does not hold up the requests being captured; they are copied
	// first, as once the exchange leaves the capture its buffers go to
	// the next exchanges (spare).
	reqBody, respBody := rec.body.clone(), rec.resp.clone()
	reqType, respType := rec.header.h.Get("Content-Type"), rec.respHead.get("Content-Type")
	c.mu.Unlock()
	path, _, _ := strings.Cut(x.URL, "?")
	x.URL = redact.RequestURI(x.URL, redact.URLMark)
	x.Body = reqBody.body(reqType, path, true)
	x.Response = respBody.body(respType, path, false)
	return x, true
}

type wireReader struct {
	io.ReadCloser
	rec *Rec
}

func (r *wireReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.rec.c.mu.Lock()
		r.rec.c.add(0, &r.rec.body, p[:n])
		r.rec.c.mu.Unlock()
	}
	return n, err
}

// wireWriter copies what the handler writes. Unwrap lets
// http.ResponseController reach the connection (flush, deadlines, and the
// transport faults' hijack, whose bytes are not captured).
type wireWriter struct {
	http.ResponseWriter
	rec *Rec
}

func (w *wireWriter) header() {
	if !w.rec.respHead.taken() {
		w.rec.live = w.ResponseWriter.Header()
		w.rec.respHead = snapshot(w.rec.live)
	}
}

func (w *wireWriter) WriteHeader(code int) {
	w.rec.c.mu.Lock()
	if w.rec.status == 0 {
		w.rec.status = code
		w.header()
	}
	w.rec.c.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *wireWriter) Write(p []byte) (int, error) {
	w.rec.c.mu.Lock()
	if w.rec.status == 0 {
		w.rec.status = http.StatusOK
		w.header()
	}
	w.rec.c.add(1, &w.rec.resp, p)
	w.rec.c.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

func (w *wireWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *wireWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ExchangeTagger is a response writer that wants to know which journal
// entries its exchange produced: a recorder in front of the server
// (conform's) that numbers exchanges its own way and would join them to
// the journal's.
type ExchangeTagger interface {
	// TagExchange is called once the journal has the exchange's A2A
	// request number (reqNo), or the seq of the card or JWKS entry it
	// produced (reqNo 0).
	TagExchange(reqNo, seq int64)
}

// keep is what the capture holds of a header until the bytes are asked
// for: h itself when it is within wireHeadMax bytes (the common case: no
// copy, no sorting, on the request path; Get redacts it), else its
// redacted, bounded copy, so that a client sending a megabyte of headers
// costs the capture only wireHeadMax. A request's header map is only read
// once the request is decoded, and the response's is copied (snapshot).
func keep(h http.Header) keptHeader {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			if n += len(k) + len(v); n > wireHeadMax {
				return keptHeader{h: redactHeader(h), redacted: true}
			}
		}
	}
	return keptHeader{h: h}
}

// keptHeader is a header as the capture holds it: as sent, or already
// redacted and bounded.
type keptHeader struct {
	h        http.Header
	redacted bool
}

// sentHeader is a response's header as the capture holds it: copied when
// the answer starts (the handler may change its map afterwards, for
// trailers), as a flat list of name and value pairs rather than an
// http.Header, whose clone cost every answer a map of a few hundred bytes
// for a view seldom asked for; view builds the map then. A name with
// several values has a pair per value, in order.
type sentHeader struct {
	fields []string
	// redacted: fields are already redacted and bounded (the header was
	// over wireHeadMax bytes).
	redacted bool
}

// snapshot copies a response's header map, bounded as keep bounds one.
func snapshot(h http.Header) sentHeader {
	k := keep(h)
	return sentHeader{fields: flatten(k.h), redacted: k.redacted}
}

// flatten lists h's names and values in pairs (sentHeader.fields); never
// nil, even for an empty header: taken tells a snapshot of no headers
// from none taken.
func flatten(h http.Header) []string {
	fields := make([]string, 0, 2*len(h))
	for k, vs := range h {
		for _, v := range vs {
			fields = append(fields, k, v)
		}
	}
	return fields
}

// taken reports whether the header was copied.
func (s sentHeader) taken() bool { return s.fields != nil }

// values is http.Header.Values of the header.
func (s sentHeader) values(name string) []string {
	name = http.CanonicalHeaderKey(name)
	var out []string
	for i := 0; i < len(s.fields); i += 2 {
		if s.fields[i] == name {
			out = append(out, s.fields[i+1])
		}
	}
	return out
}

// get is http.Header.Get of the header.
func (s sentHeader) get(name string) string {
	if vs := s.values(name); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// view is the header as Get shows it: redacted, bounded, a map of its own
// (an empty one for a header never taken).
func (s sentHeader) view() http.Header {
	h := make(http.Header, len(s.fields)/2)
	for i := 0; i < len(s.fields); i += 2 {
		h[s.fields[i]] = append(h[s.fields[i]], s.fields[i+1])
	}
	if s.redacted {
		return h
	}
	return redactHeader(h)
}

// view is the header as Get shows it: redacted, bounded, a copy.
func (k keptHeader) view() http.Header {
	if k.redacted {
		return k.h.Clone()
	}
	return redactHeader(k.h)
}

// viewOrNil is view, or nil for a header never kept.
func (k keptHeader) viewOrNil() http.Header {
	if k.h == nil {
		return nil
	}
	return k.view()
}

// redactHeader copies h with credential values replaced by their length, and
// at most wireHeadMax bytes of it (a client may send a megabyte of
// headers): the rest is counted under the name "…".
func redactHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	kept, dropped := 0, 0
	for _, k := range slices.Sorted(maps.Keys(h)) {
		l := strings.ToLower(k)
		secret := l == "authorization" || l == "proxy-authorization" || l == "cookie" || l == "set-cookie" ||
			strings.Contains(l, "token") || strings.Contains(l, "key") || strings.Contains(l, "secret") || strings.Contains(l, "password")
		for _, v := range h[k] {
			if secret {
				v = "[redacted: " + strconv.Itoa(len(v)) + " bytes]"
			}
			if kept+len(k)+len(v) > wireHeadMax {
				dropped += len(k) + len(v)
				continue
			}
			kept += len(k) + len(v)
			out[k] = append(out[k], v)
		}
	}
	if dropped > 0 {
		out["…"] = []string{strconv.Itoa(dropped) + " more header bytes not kept"}
	}
	return out
}
