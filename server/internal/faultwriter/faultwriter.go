// Package faultwriter holds the response writers through which the
// transport behaviors' faults reach the wire: each wraps an
// http.ResponseWriter and changes what goes out (a fixed answer instead of
// the server's, a connection cut or reset after n bytes, a delayed body,
// corrupted JSON, rewritten headers and body, held keep-alives). The HTTP
// bindings and the gRPC binding build their behaviors.Transport from them.
//
// The writers only write; which fault applies when is the behaviors'
// business, and journaling it the server's.
package faultwriter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/timeline"
)

// BodyDelay sends the status line and headers at once and holds the first
// body byte back for d on clock (or until ctx ends).
func BodyDelay(w http.ResponseWriter, d time.Duration, ctx context.Context, clock timeline.Clock) http.ResponseWriter {
	return &bodyDelayWriter{ResponseWriter: w, d: d, ctx: ctx, clock: clock}
}

// DropComments drops SSE comment writes (keep-alives) while hold says so.
func DropComments(w http.ResponseWriter, hold func() bool) http.ResponseWriter {
	return &commentFilter{ResponseWriter: w, drop: hold}
}

// Replace sends a fixed answer (status, headers, body) the moment the
// server starts its own, and discards the server's.
func Replace(w http.ResponseWriter, status int, header http.Header, body []byte) http.ResponseWriter {
	return newReplaceWriter(w, status, header, body)
}

// Cut passes the answer through until limit body bytes, then takes the
// connection over and closes it (with an RST when reset; on HTTP/2 the
// stream is reset). A negative limit means half of the first body write;
// with reset and limit 0 the connection is reset before the status line.
// onCut, when not nil, runs when the answer is cut.
func Cut(w http.ResponseWriter, limit int, reset bool, onCut func()) http.ResponseWriter {
	return &cutWriter{w: w, limit: limit, reset: reset, onCut: onCut}
}

// Corrupt breaks the JSON of the answer with f: the unary body, or the
// data of the nth event of a stream, fixing Content-Length up.
func Corrupt(w http.ResponseWriter, nth int, f func([]byte) []byte) http.ResponseWriter {
	return &corruptWriter{w: w, corrupt: f, nth: nth}
}

// Rewrite lets unary rewrite a unary answer whole (status, headers, body)
// and stream the headers of a streamed one; either may be nil.
func Rewrite(w http.ResponseWriter, unary func(status int, h http.Header, body []byte) (int, []byte), stream func(h http.Header)) http.ResponseWriter {
	return &rewriteWriter{w: w, unary: unary, stream: stream}
}

// bodyDelayWriter sends the status line and headers at once and holds the
// first body byte back.
type bodyDelayWriter struct {
	http.ResponseWriter
	d      time.Duration
	ctx    context.Context
	clock  timeline.Clock
	waited bool
}

func (w *bodyDelayWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *bodyDelayWriter) Write(b []byte) (int, error) {
	if !w.waited {
		w.waited = true
		if !timeline.Sleep(w.ctx, w.clock, w.d) {
			return 0, w.ctx.Err()
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher below.
func (w *bodyDelayWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// commentFilter drops SSE comment writes (keep-alives) while drop says so,
// as a buffer between agent and client would hold them.
type commentFilter struct {
	http.ResponseWriter
	drop func() bool
}

func (c *commentFilter) Write(b []byte) (int, error) {
	if len(b) > 0 && b[0] == ':' && c.drop() && !bytes.Contains(b, []byte("data:")) {
		return len(b), nil
	}
	return c.ResponseWriter.Write(b)
}

func (c *commentFilter) FlushError() error {
	return http.NewResponseController(c.ResponseWriter).Flush()
}

// ErrCut is what the server sees writing to a connection a transport fault
// took over; it wraps http.ErrHijacked so the server knows no answer can
// be written any more.
var ErrCut = fmt.Errorf("server: connection taken over by a transport fault: %w", http.ErrHijacked)

// ErrReplaced is what the server sees writing after a fault sent its own
// answer instead.
var ErrReplaced = errors.New("server: the answer was replaced by a transport fault")

// replaceWriter sends a fixed answer (status, headers, body) the moment the
// server starts its own, and discards the server's.
type replaceWriter struct {
	w       http.ResponseWriter
	status  int
	header  http.Header
	body    []byte
	scratch http.Header
	sent    bool
}

func newReplaceWriter(w http.ResponseWriter, status int, header http.Header, body []byte) *replaceWriter {
	return &replaceWriter{w: w, status: status, header: header, body: body, scratch: http.Header{}}
}

// Header returns a scratch map: the server's headers must not leak into
// the replacement answer.
func (r *replaceWriter) Header() http.Header { return r.scratch }

func (r *replaceWriter) WriteHeader(int) { r.send() }

func (r *replaceWriter) Write([]byte) (int, error) {
	if !r.sent {
		r.send()
	}
	return 0, ErrReplaced
}

func (r *replaceWriter) FlushError() error {
	return http.NewResponseController(r.w).Flush()
}

func (r *replaceWriter) send() {
	if r.sent {
		return
	}
	r.sent = true
	h := r.w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(r.body)))
	r.w.WriteHeader(r.status)
	_, _ = r.w.Write(r.body)
}

// cutWriter passes the answer through until limit body bytes, then takes the
// connection over and closes it: with an RST (SO_LINGER 0) when reset is
// set, with a plain close otherwise. A negative limit means half of the
// first body write. With reset and limit 0 the connection is reset before
// the status line.
type cutWriter struct {
	w       http.ResponseWriter
	limit   int
	reset   bool
	written int
	cut     bool
	// onCut, when set, runs when the answer is cut (the gRPC binding
	// then sends no trailers).
	onCut func()
}

func (c *cutWriter) Header() http.Header { return c.w.Header() }

func (c *cutWriter) WriteHeader(code int) {
	if c.cut {
		return
	}
	if c.reset && c.limit == 0 {
		c.takeOver(false)
		return
	}
	c.w.WriteHeader(code)
}

func (c *cutWriter) Write(b []byte) (int, error) {
	if c.cut {
		return 0, ErrCut
	}
	if c.limit < 0 {
		c.limit = len(b) / 2
	}
	room := c.limit - c.written
	if len(b) <= room {
		n, err := c.w.Write(b)
		c.written += n
		return n, err
	}
	n, _ := c.w.Write(b[:room])
	c.written += n
	c.takeOver(true)
	return n, ErrCut
}

func (c *cutWriter) FlushError() error {
	if c.cut {
		return ErrCut
	}
	return http.NewResponseController(c.w).Flush()
}

// takeOver hijacks the connection and closes it; with flush, what was
// written goes out first. Without it nothing does: flushing an unwritten
// response would send its status line and headers before the reset.
func (c *cutWriter) takeOver(flush bool) {
	c.cut = true
	if c.onCut != nil {
		c.onCut()
	}
	rc := http.NewResponseController(c.w)
	if flush {
		_ = rc.Flush()
	}
	conn, buf, err := rc.Hijack()
	if errors.Is(err, http.ErrNotSupported) && c.reset {
		// HTTP/2 (the gRPC binding) has no connection to take over: the
		// reset is the stream's, an RST_STREAM, which net/http sends
		// when a handler aborts.
		panic(http.ErrAbortHandler)
	}
	if err != nil {
		return
	}
	if buf != nil {
		_ = buf.Flush()
	}
	// A *net.TCPConn, or a connection that wraps one (a recorder's, in
	// conform) and passes the linger on.
	if tc, ok := conn.(interface{ SetLinger(sec int) error }); ok && c.reset {
		// Linger 0 makes Close send RST instead of FIN: the client sees
		// "connection reset by peer", not a clean end of input.
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// corruptWriter breaks the JSON of the answer: the unary body, or the data
// of the nth event of a stream. Content-Length is fixed up, so the client
// receives every byte and fails on the JSON alone.
type corruptWriter struct {
	w       http.ResponseWriter
	corrupt func([]byte) []byte
	nth     int
	frames  int
	code    int
	pending bool
}

func (c *corruptWriter) Header() http.Header { return c.w.Header() }

func (c *corruptWriter) WriteHeader(code int) {
	if c.w.Header().Get("Content-Length") != "" {
		// The length changes with the body: wait for it.
		c.code, c.pending = code, true
		return
	}
	c.w.WriteHeader(code)
}

func (c *corruptWriter) Write(b []byte) (int, error) {
	if c.pending {
		c.pending = false
		body := c.corrupt(bytes.Clone(b))
		c.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		c.w.WriteHeader(c.code)
		if _, err := c.w.Write(body); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	if bytes.Contains(b, []byte("data:")) {
		c.frames++
		if c.nth == 0 || c.frames == c.nth {
			if _, err := c.w.Write(c.corrupt(bytes.Clone(b))); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return c.w.Write(b)
}

func (c *corruptWriter) FlushError() error {
	return http.NewResponseController(c.w).Flush()
}

// rewriteWriter lets a fault rewrite a unary answer whole (status, headers,
// body) and the headers of a streamed one. The server sends unary answers
// with a Content-Length and one Write, so such an answer is held at
// WriteHeader until its body arrives; an answer without Content-Length (an
// event stream) has only its headers rewritten and then passes through.
type rewriteWriter struct {
	w http.ResponseWriter
	// unary rewrites a whole answer; it may change h in place.
	unary func(status int, h http.Header, body []byte) (int, []byte)
	// stream rewrites the headers of a streamed answer; nil leaves them.
	stream  func(h http.Header)
	code    int
	pending bool
}

func (r *rewriteWriter) Header() http.Header { return r.w.Header() }

func (r *rewriteWriter) WriteHeader(code int) {
	if r.pending {
		return
	}
	if r.w.Header().Get("Content-Length") != "" && r.unary != nil {
		r.code, r.pending = code, true
		return
	}
	if r.stream != nil {
		r.stream(r.w.Header())
	}
	r.w.WriteHeader(code)
}

func (r *rewriteWriter) Write(b []byte) (int, error) {
	if !r.pending {
		return r.w.Write(b)
	}
	r.pending = false
	status, body := r.unary(r.code, r.w.Header(), bytes.Clone(b))
	r.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	r.w.WriteHeader(status)
	if _, err := r.w.Write(body); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (r *rewriteWriter) FlushError() error {
	return http.NewResponseController(r.w).Flush()
}
