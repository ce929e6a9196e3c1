package h2serve

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// bufferedBody is how much of an answer's body is held before it is sent
// without a flush.
const bufferedBody = 16 << 10

// responseWriter is the http.ResponseWriter of a stream. Only the
// stream's handler goroutine uses it.
type responseWriter struct {
	st     *stream
	header http.Header
	head   bool
	status int
	// sent says the HEADERS frame went out, ended that END_STREAM did;
	// flushed that the handler flushed (so the length of the body is not
	// known in advance).
	sent, ended, flushed bool
	// declared are the trailer names the Trailer header listed when the
	// headers went out.
	declared []string
	buf      []byte
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.status != 0 || code < 200 {
		return // a second call, or a 1xx answer, which this server does not send
	}
	w.status = code
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.st.gone.Load() {
		return 0, errStreamGone
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.head {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= bufferedBody {
		if err := w.send(false); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush sends the headers and what was written.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError is Flush reporting why the answer can no longer be sent
// (http.ResponseController uses it).
func (w *responseWriter) FlushError() error {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.flushed = true
	return w.send(false)
}

// finish ends the answer once the handler returned: the headers when
// none went out, the rest of the body, the trailers.
func (w *responseWriter) finish() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent && !w.flushed && !w.head && bodyAllowed(w.status) && w.header.Get("Content-Length") == "" && !w.hasTrailers() {
		w.header.Set("Content-Length", strconv.Itoa(len(w.buf)))
	}
	if _ = w.send(true); !w.ended {
		// The stream was reset or the connection failed first.
		st, c := w.st, w.st.c
		c.mu.Lock()
		c.endStreamLocked(st)
		c.unlockCredit()
	}
}

// sendHeaders writes the headers alone (not the end of the stream).
func (w *responseWriter) sendHeaders(body []byte) error {
	c := w.st.c
	c.lockWrite()
	defer c.unlockWrite()
	if c.werr != nil || w.st.gone.Load() {
		return errStreamGone
	}
	w.writeHeaders(body, false)
	return nil
}

// writeHeaders encodes and writes the headers; body is the start of the
// body, for a sniffed Content-Type. c.wmu is held.
func (w *responseWriter) writeHeaders(body []byte, end bool) {
	w.sent = true
	c := w.st.c
	c.hbuf.b = c.hbuf.b[:0]
	w.encodeHeaders(body)
	c.writeHeaderBlock(w.st.id, end)
}

// endWritten forgets a stream whose last frame was just written, before
// the flusher can send it: a client that sees a stream end may open
// another at once, and must find the stream's place among the
// SETTINGS_MAX_CONCURRENT_STREAMS free. A request still arriving is reset
// (an answer complete before its request: RFC 9113 §8.1). c.wmu is held.
func (c *conn) endWritten(st *stream) {
	c.mu.Lock()
	open := !st.remoteDone && !st.ended
	c.endStreamLocked(st)
	due := c.creditDue
	c.creditDue = 0
	c.mu.Unlock()
	if open {
		c.writeErr(c.fr.WriteRSTStream(st.id, http2.ErrCodeNo))
	}
	if due > 0 {
		c.writeErr(c.fr.WriteWindowUpdate(0, due))
	}
}

func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified
}

// hasTrailers reports whether the handler set any trailer.
func (w *responseWriter) hasTrailers() bool {
	for k := range w.header {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			return true
		}
	}
	return len(w.header["Trailer"]) > 0
}

// send writes the headers if they did not go out, and the buffered body;
// with end, the end of the stream too (in the trailers when there are
// some). Body data waits for the flow-control windows.
func (w *responseWriter) send(end bool) error {
	st, c := w.st, w.st.c
	if w.ended {
		return nil
	}
	data := w.buf
	w.buf = w.buf[:0]
	sniff := data
	var trailers []hpack.HeaderField
	if end {
		trailers = w.trailers()
	}
	for {
		// Take as much of the windows as the data needs, waiting while
		// they are closed.
		n := 0
		if len(data) > 0 {
			c.mu.Lock()
			if !w.sent && (c.sendWindow <= 0 || st.sendWindow <= 0) {
				// Headers are not flow-controlled: a client that grants
				// window only once it has them must get them first.
				c.mu.Unlock()
				if err := w.sendHeaders(sniff); err != nil {
					return err
				}
				c.mu.Lock()
			}
			for !st.gone.Load() && (c.sendWindow <= 0 || st.sendWindow <= 0) {
				c.cond.Wait()
			}
			if st.gone.Load() {
				c.mu.Unlock()
				return errStreamGone
			}
			n = int(min(int64(len(data)), c.sendWindow, st.sendWindow))
			c.sendWindow -= int64(n)
			st.sendWindow -= int64(n)
			c.mu.Unlock()
		}
		chunk := data[:n]
		data = data[n:]
		last := end && len(data) == 0
		c.lockWrite()
		if c.werr != nil || st.gone.Load() {
			c.unlockWrite()
			return errStreamGone
		}
		if !w.sent {
			w.ended = last && n == 0 && len(trailers) == 0
			w.writeHeaders(sniff, w.ended)
		}
		for maxFrame := c.peerFrame(); len(chunk) > 0; {
			f := min(len(chunk), maxFrame)
			w.ended = last && f == len(chunk) && len(trailers) == 0
			c.writeErr(c.fr.WriteData(st.id, w.ended, chunk[:f]))
			chunk = chunk[f:]
		}
		if last && !w.ended {
			w.ended = true
			if len(trailers) > 0 {
				c.hbuf.b = c.hbuf.b[:0]
				for _, f := range trailers {
					c.encodeField(f.Name, f.Value)
				}
				c.writeHeaderBlock(st.id, true)
			} else {
				c.writeErr(c.fr.WriteData(st.id, true, nil))
			}
		}
		if last {
			c.endWritten(st)
		}
		c.unlockWrite()
		if len(data) == 0 {
			return nil
		}
	}
}

// peerFrame is the largest frame the client takes.
func (c *conn) peerFrame() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerMaxFrame
}

// encodeHeaders encodes :status and the answer's headers into c.hbuf and
// records the declared trailers; body is the start of the body, sniffed
// for a Content-Type when the handler set none. c.wmu is held.
func (w *responseWriter) encodeHeaders(body []byte) {
	c := w.st.c
	c.encodeField(":status", statusText(w.status))
	if _, set := w.header["Content-Type"]; !set && len(body) > 0 {
		c.encodeField("content-type", http.DetectContentType(body))
	}
	for k, vv := range w.header {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			continue
		}
		if k == "Trailer" {
			w.declared = declaredTrailers(w.declared, vv)
		}
		eachField(k, vv, c.encodeField)
	}
}

// declaredTrailers appends the names a Trailer header's values list.
func declaredTrailers(names []string, values []string) []string {
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, http.CanonicalHeaderKey(name))
			}
		}
	}
	return names
}

// eachField calls f with each field of header k as HTTP/2 writes it:
// the name lowered, the values that are valid; a connection-specific or
// invalid name gives none.
func eachField(k string, vv []string, f func(name, value string)) {
	lk, ok := lowerKey(k)
	if !ok {
		return
	}
	for _, v := range vv {
		if httpguts.ValidHeaderFieldValue(v) {
			f(lk, v)
		}
	}
}

// trailers are the answer's trailers: the fields set with
// http.TrailerPrefix and those the Trailer header declared.
func (w *responseWriter) trailers() []hpack.HeaderField {
	var out []hpack.HeaderField
	add := func(name, value string) { out = append(out, hpack.HeaderField{Name: name, Value: value}) }
	for k, vv := range w.header {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			eachField(name, vv, add)
		}
	}
	declared := w.declared
	if !w.sent {
		// The headers go out with the trailers; what they declare counts.
		declared = declaredTrailers(declared, w.header["Trailer"])
	}
	for _, k := range declared {
		eachField(k, w.header[k], add)
	}
	return out
}

// encodeField appends one field to c.hbuf. c.wmu is held.
func (c *conn) encodeField(name, value string) {
	_ = c.henc.WriteField(hpack.HeaderField{Name: name, Value: value})
}

// writeHeaderBlock writes c.hbuf as HEADERS and, past the client's frame
// size, CONTINUATION frames. c.wmu is held.
func (c *conn) writeHeaderBlock(id uint32, end bool) {
	block := c.hbuf.b
	maxFrame := c.peerFrame()
	first := true
	for first || len(block) > 0 {
		n := min(len(block), maxFrame)
		frag := block[:n]
		block = block[n:]
		if first {
			first = false
			c.writeErr(c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: frag, EndStream: end, EndHeaders: len(block) == 0}))
		} else {
			c.writeErr(c.fr.WriteContinuation(id, len(block) == 0, frag))
		}
	}
}

// lowerKeys spares the lowering of the answer fields most answers carry.
var lowerKeys = map[string]string{}

func init() {
	for _, k := range []string{"Content-Type", "Content-Length", "Cache-Control", "Grpc-Status", "Grpc-Message",
		"Grpc-Status-Details-Bin", "A2a-Version", "Vary", "Location", "Retry-After", "Www-Authenticate",
		"X-Content-Type-Options", "X-Accel-Buffering", "Trailer", "Date", "Last-Modified", "Etag"} {
		lowerKeys[k] = strings.ToLower(k)
	}
}

// lowerKey is a header name as HTTP/2 writes it; ok is false for the
// connection-specific fields HTTP/2 does not carry and invalid names.
func lowerKey(k string) (string, bool) {
	if lk, ok := lowerKeys[k]; ok {
		return lk, true
	}
	lk := strings.ToLower(k)
	if connHeaders[lk] || !httpguts.ValidHeaderFieldName(k) {
		return "", false
	}
	return lk, true
}

// statusText is a status code as :status carries it.
func statusText(code int) string {
	if code == http.StatusOK {
		return "200"
	}
	return strconv.Itoa(code)
}
