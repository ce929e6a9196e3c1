package h2serve

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// stream is one request and its answer.
type stream struct {
	c      *conn
	id     uint32
	ctx    context.Context
	cancel context.CancelFunc
	// gone is set when the stream can carry nothing more: reset by either
	// side, or its connection ended.
	gone atomic.Bool

	// Guarded by c.mu.
	sendWindow int64
	recvWindow int64
	// unacked is body read by the handler whose window was not returned.
	unacked int64
	// body is what arrived and was not read, from off.
	body       []byte
	off        int
	bodyClosed bool
	remoteDone bool
	ended      bool
	// declared is the request's Content-Length (-1: none); received counts
	// the body bytes.
	declared, received int64
	readTimer          *time.Timer
	// req is the request, until a worker takes it.
	req *http.Request
}

var errStreamGone = errors.New("h2serve: stream reset or connection closed")

// headers opens a stream for a request, or takes a request's trailers.
func (c *conn) headers(f *http2.MetaHeadersFrame) bool {
	id := f.StreamID
	c.mu.Lock()
	if id%2 == 0 || id <= c.maxID {
		st := c.streams[id]
		if st != nil && !st.remoteDone && f.StreamEnded() {
			// The request's trailers: its body is complete. Their values
			// are not passed on (no handler here reads request trailers).
			if st.declared >= 0 && st.received != st.declared {
				c.mu.Unlock()
				c.resetID(id, http2.ErrCodeProtocol) // shorter than its content-length
				return true
			}
			c.remoteEndLocked(st)
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		c.goAway(http2.ErrCodeProtocol)
		return false
	}
	c.maxID = id
	// Handlers count as well as open streams: a client that resets each
	// stream as it opens it (the "rapid reset" attack) would otherwise
	// have handlers pile up that its resets do not stop at once.
	refuse := c.goingAway || len(c.streams) >= maxConcurrentStreams || c.running >= maxConcurrentStreams
	c.mu.Unlock()
	if refuse {
		c.resetID(id, http2.ErrCodeRefusedStream)
		return true
	}
	if f.Truncated {
		c.answerBare(id, http.StatusRequestHeaderFieldsTooLarge)
		if !f.StreamEnded() {
			c.resetID(id, http2.ErrCodeNo) // the rest of the request is not wanted
		}
		return true
	}
	st := &stream{c: c, id: id, declared: -1}
	st.ctx, st.cancel = context.WithCancel(c.ctx)
	req, err := c.newRequest(st, f)
	if err != nil {
		st.cancel()
		c.resetID(id, http2.ErrCodeProtocol)
		return true
	}
	c.mu.Lock()
	st.sendWindow, st.recvWindow = c.peerInitial, streamRecvWindow
	if f.StreamEnded() {
		st.remoteDone = true
	} else if c.readAfter > 0 {
		st.readTimer = time.AfterFunc(c.readAfter, func() { c.resetID(id, http2.ErrCodeCancel) })
	}
	if len(c.streams) == 0 && c.idle != nil {
		c.idle.Stop()
	}
	c.streams[id] = st
	c.handlers.Add(1)
	c.running++
	c.mu.Unlock()
	st.req = req
	c.dispatch(st)
	return true
}

// maxIdleWorkers is how many workers a connection keeps waiting for a
// stream; the rest end when their stream does.
const maxIdleWorkers = 32

// dispatch hands a stream to a kept worker, or to a new one. Handlers run
// on goroutines the connection keeps from one stream to the next: a new
// goroutine starts with a small stack that a request's path grows several
// times (each growth copies the stack and walks its frames, about a tenth
// of a loaded gRPC server's CPU); a kept one has grown it already.
func (c *conn) dispatch(st *stream) {
	for {
		a := c.avail.Load()
		if a <= 0 {
			c.workers.Add(1)
			c.started.Add(1)
			go c.worker(st)
			return
		}
		if c.avail.CompareAndSwap(a, a-1) {
			c.work <- st // never blocks: avail is at most the buffer
			return
		}
	}
}

// worker runs streams until the connection ends, or until maxIdleWorkers
// others are kept when its stream is done.
func (c *conn) worker(st *stream) {
	defer c.workers.Done()
	for {
		req := st.req
		st.req = nil
		w, ok := c.handle(st, req)
		// The handler returned: it no longer counts against the stream
		// limit, even before its answer's end is sent.
		c.mu.Lock()
		c.running--
		c.mu.Unlock()
		if ok {
			w.finish()
		}
		// Counted available only now: the end of an answer may wait for
		// the client's window, and a stream handed to a worker still
		// finishing one would wait behind it. A client quick enough to
		// send its next request before the worker is back starts another.
		keep := c.offer()
		c.handlers.Done()
		if !keep {
			return
		}
		select {
		case st = <-c.work:
		case <-c.done:
			return
		}
	}
}

// offer counts a worker available, unless maxIdleWorkers are.
func (c *conn) offer() bool {
	for {
		a := c.avail.Load()
		if a >= maxIdleWorkers {
			return false
		}
		if c.avail.CompareAndSwap(a, a+1) {
			return true
		}
	}
}

// answerBare answers stream id with a status and no body.
func (c *conn) answerBare(id uint32, status int) {
	c.lockWrite()
	c.hbuf.b = c.hbuf.b[:0]
	c.encodeField(":status", strconv.Itoa(status))
	c.writeHeaderBlock(id, true)
	c.unlockWrite()
}

// connHeaders are the connection-specific header fields HTTP/2 forbids.
var connHeaders = map[string]bool{"connection": true, "proxy-connection": true, "keep-alive": true, "transfer-encoding": true, "upgrade": true}

// newRequest is the http.Request of a stream's headers.
func (c *conn) newRequest(st *stream, f *http2.MetaHeadersFrame) (*http.Request, error) {
	var method, path, scheme, authority string
	header := make(http.Header, len(f.Fields))
	for _, hf := range f.Fields {
		switch hf.Name {
		case ":method":
			method = hf.Value
			continue
		case ":path":
			path = hf.Value
			continue
		case ":scheme":
			scheme = hf.Value
			continue
		case ":authority":
			authority = hf.Value
			continue
		case "te":
			if hf.Value != "trailers" {
				return nil, errors.New("te other than trailers")
			}
		}
		if strings.HasPrefix(hf.Name, ":") || connHeaders[hf.Name] {
			return nil, errors.New("bad header " + hf.Name)
		}
		key := canonicalKey(hf.Name)
		header[key] = append(header[key], hf.Value)
	}
	if method == "" || path == "" || scheme == "" || method == http.MethodConnect {
		return nil, errors.New("missing or unserved pseudo-header")
	}
	if cookies := header["Cookie"]; len(cookies) > 1 {
		// HTTP/2 may split cookies into fields; HTTP/1 joins them.
		header["Cookie"] = []string{strings.Join(cookies, "; ")}
	}
	if authority == "" {
		authority = header.Get("Host")
	}
	var u *url.URL
	var err error
	if method == http.MethodOptions && path == "*" {
		u = &url.URL{Path: "*"}
	} else if u, err = url.ParseRequestURI(path); err != nil {
		return nil, err
	}
	body := io.ReadCloser(http.NoBody)
	length := int64(0)
	declared := int64(-1)
	if v := header.Get("Content-Length"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, errors.New("bad content-length")
		}
		declared = n
	}
	if f.StreamEnded() {
		if declared > 0 {
			return nil, errors.New("content-length without a body")
		}
	} else {
		body = &requestBody{st: st}
		length = declared
		st.declared = declared
	}
	req := &http.Request{
		Method: method, URL: u, Proto: "HTTP/2.0", ProtoMajor: 2,
		Header: header, Body: body, ContentLength: length, Host: authority,
		RemoteAddr: c.remoteAddr, RequestURI: path,
	}
	return req.WithContext(st.ctx), nil
}

// commonKeys spares the canonicalization of the request fields most
// requests carry.
var commonKeys = map[string]string{}

func init() {
	for _, k := range []string{"Accept", "Accept-Encoding", "Authorization", "Content-Length", "Content-Type",
		"Cookie", "Grpc-Accept-Encoding", "Grpc-Timeout", "Host", "Te", "User-Agent", "A2a-Version", "A2a-Extensions",
		"X-Request-Id", "Last-Event-Id", "Origin", "Referer"} {
		commonKeys[strings.ToLower(k)] = k
	}
}

func canonicalKey(name string) string {
	if k, ok := commonKeys[name]; ok {
		return k
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

// data takes a DATA frame: the body goes to the stream's reader, the
// connection's window is checked and, for data nobody will read,
// returned at once.
func (c *conn) data(f *http2.DataFrame) bool {
	id, n := f.StreamID, int64(f.Length)
	c.mu.Lock()
	c.recvWindow -= n
	if c.recvWindow < 0 {
		c.mu.Unlock()
		c.goAway(http2.ErrCodeFlowControl)
		return false
	}
	st := c.streams[id]
	if st == nil || st.remoteDone {
		if id > c.maxID {
			c.mu.Unlock()
			c.goAway(http2.ErrCodeProtocol) // data on a stream never opened
			return false
		}
		// A stream that ended or was reset: the data is dropped.
		c.creditDue += c.creditLocked(n)
		c.unlockCredit()
		if st != nil {
			c.resetID(id, http2.ErrCodeStreamClosed)
		}
		return true
	}
	st.recvWindow -= n
	data := f.Data()
	st.received += int64(len(data))
	if st.recvWindow < 0 || st.declared >= 0 && (st.received > st.declared || f.StreamEnded() && st.received != st.declared) {
		c.endStreamLocked(st)
		c.creditDue += c.creditLocked(n)
		c.unlockCredit()
		c.resetID(id, http2.ErrCodeProtocol)
		return true
	}
	// Padding, and data for a body its handler closed, are returned to
	// the connection's window now; padding returns to the stream's with
	// the next data its handler reads.
	drop := n - int64(len(data))
	if st.bodyClosed {
		drop = n
	} else {
		st.body = append(st.body, data...)
		st.unacked += drop
	}
	if drop > 0 {
		c.creditDue += c.creditLocked(drop)
	}
	if f.StreamEnded() {
		c.remoteEndLocked(st)
	}
	c.cond.Broadcast()
	c.unlockCredit()
	return true
}

// remoteEndLocked records the end of the request's body. c.mu is held.
func (c *conn) remoteEndLocked(st *stream) {
	st.remoteDone = true
	if st.readTimer != nil {
		st.readTimer.Stop()
	}
	c.cond.Broadcast()
}

// endStreamLocked forgets a stream: its context ends, its unread body
// returns to the connection's window, waiters wake. c.mu is held, and
// released with unlockCredit.
func (c *conn) endStreamLocked(st *stream) {
	if st.ended {
		return
	}
	st.ended = true
	st.gone.Store(true)
	st.cancel()
	if st.readTimer != nil {
		st.readTimer.Stop()
	}
	c.dropBodyLocked(st)
	delete(c.streams, st.id)
	c.cond.Broadcast()
	if len(c.streams) == 0 {
		if c.goingAway {
			// Closed by the flusher once the stream's last frames are out.
			c.closeFlushed.Store(true)
			c.wakeFlusher()
		} else if c.idle != nil && !c.closed {
			c.idle.Reset(c.idleAfter)
		}
	}
}

// requestBody reads a stream's request body as it arrives.
type requestBody struct{ st *stream }

func (b *requestBody) Read(p []byte) (int, error) {
	st := b.st
	c := st.c
	c.mu.Lock()
	for st.off == len(st.body) && !st.remoteDone && !st.ended && !c.closed && !st.bodyClosed {
		c.cond.Wait()
	}
	if st.bodyClosed {
		c.mu.Unlock()
		return 0, http.ErrBodyReadAfterClose
	}
	if n := copy(p, st.body[st.off:]); n > 0 {
		st.off += n
		if st.off == len(st.body) {
			st.body, st.off = st.body[:0], 0
		}
		connInc := c.creditLocked(int64(n))
		var streamInc uint32
		if !st.remoteDone {
			st.unacked += int64(n)
			if st.unacked >= streamRecvWindow/4 {
				streamInc = uint32(st.unacked)
				st.recvWindow += st.unacked
				st.unacked = 0
			}
		}
		c.mu.Unlock()
		c.sendWindowUpdates(connInc, st.id, streamInc)
		return n, nil
	}
	done := st.remoteDone
	c.mu.Unlock()
	if done {
		return 0, io.EOF
	}
	return 0, errStreamGone
}

func (b *requestBody) Close() error {
	st := b.st
	c := st.c
	c.mu.Lock()
	if !st.bodyClosed {
		st.bodyClosed = true
		c.dropBodyLocked(st)
		c.cond.Broadcast()
	}
	c.unlockCredit()
	return nil
}

// dropBodyLocked forgets the body a stream received and nobody read, its
// bytes credited to the connection's window (creditDue: the caller
// releases c.mu with unlockCredit).
func (c *conn) dropBodyLocked(st *stream) {
	if unread := int64(len(st.body) - st.off); unread > 0 {
		c.creditDue += c.creditLocked(unread)
	}
	st.body, st.off = nil, 0
}

// handle runs the handler of a stream; ok is false when it panicked (the
// stream is then reset and its answer must not be finished).
func (c *conn) handle(st *stream, req *http.Request) (w *responseWriter, ok bool) {
	w = &responseWriter{st: st, header: make(http.Header, 4), head: req.Method == http.MethodHead}
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				c.s.logf("h2serve: panic serving %v: %v\n%s", c.remoteAddr, v, buf)
			}
			c.resetID(st.id, http2.ErrCodeInternal)
			ok = false
		}
	}()
	c.h.ServeHTTP(w, req)
	return w, true
}
