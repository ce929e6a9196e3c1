package behaviors

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

// errCut is what the server sees writing to a connection a transport fault
// took over; it wraps http.ErrHijacked so the server knows no answer can
// be written any more.
var errCut = fmt.Errorf("behaviors: connection taken over by a transport fault: %w", http.ErrHijacked)

// errReplaced is what the server sees writing after a fault sent its own
// answer instead.
var errReplaced = errors.New("behaviors: the answer was replaced by a transport fault")

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
	return 0, errReplaced
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
		return 0, errCut
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
	return n, errCut
}

func (c *cutWriter) FlushError() error {
	if c.cut {
		return errCut
	}
	return http.NewResponseController(c.w).Flush()
}

// takeOver hijacks the connection and closes it; with flush, what was
// written goes out first. Without it nothing does: flushing an unwritten
// response would send its status line and headers before the reset.
func (c *cutWriter) takeOver(flush bool) {
	c.cut = true
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
	if tc, ok := conn.(*net.TCPConn); ok && c.reset {
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
		if c.frames == c.nth {
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
