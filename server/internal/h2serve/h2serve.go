// Package h2serve serves the HTTP/2 connections of a2amock's server: h2c
// with prior knowledge (how gRPC clients connect on plain TCP) and h2
// negotiated over TLS. net/http hands such a connection over through
// TLSNextProto (Enable); from then on this package reads its frames on the
// connection's goroutine, runs each request's handler on a goroutine of its
// own with an ordinary http.ResponseWriter, and writes every frame under
// one lock into a buffer that a flusher goroutine writes out, so that
// answers finished at about the same time leave in one write.
//
// It exists because net/http's HTTP/2 server passes each write of a handler
// to the connection's goroutine and waits for it to be written (two
// goroutine switches per frame, three frames per gRPC answer), which held a
// gRPC binding served through it to about half the throughput of grpc-go's
// own transport before the binding did any work. A mock's transport faults
// want a server whose frames it owns, too.
//
// What it serves is what the handlers of this repository use: request
// bodies with flow control, headers, data, flushes, trailers (declared or
// with http.TrailerPrefix), a reset stream when a handler panics with
// http.ErrAbortHandler, a context that ends when the client resets the
// stream or the connection closes; idle and read timeouts from the
// http.Server; GOAWAY on Shutdown. It does not serve server push, CONNECT,
// or 1xx answers (a 1xx WriteHeader is ignored).
package h2serve

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The settings this server announces. The windows are those net/http's
// HTTP/2 server uses: a request body may have 1 MiB in flight, a
// connection 1 MiB in all, so a connection holds at most that much unread.
const (
	maxConcurrentStreams = 250
	streamRecvWindow     = 1 << 20
	connRecvWindow       = 1 << 20
	// initialWindow is HTTP/2's window before any setting.
	initialWindow = 65535
	// maxReadFrame is the largest frame read (the protocol's default).
	maxReadFrame = 1 << 14
	// writeBuffer is the size of the connection's write buffer.
	writeBuffer = 16 << 10
	// maxWindow is the largest flow-control window HTTP/2 allows.
	maxWindow = 1<<31 - 1
)

// clientPreface is what an HTTP/2 client sends first.
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// install hands srv's HTTP/2 connections to this package: h2c with prior
// knowledge (when srv.Protocols allows unencrypted HTTP/2) and h2 over TLS.
func install(srv *http.Server) *server {
	s := &server{hs: srv, conns: map[*conn]struct{}{}}
	if srv.TLSNextProto == nil {
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	srv.TLSNextProto["unencrypted_http2"] = func(_ *http.Server, tc *tls.Conn, h http.Handler) {
		// net/http wraps the plain connection, its preface already read.
		if u, ok := tc.NetConn().(interface{ UnencryptedNetConn() net.Conn }); ok {
			s.serveConn(u.UnencryptedNetConn(), h, true)
		}
	}
	srv.TLSNextProto[http2.NextProtoTLS] = func(_ *http.Server, tc *tls.Conn, h http.Handler) {
		s.serveConn(tc, h, false)
	}
	srv.RegisterOnShutdown(s.shutdown)
	return s
}

// server is what the connections of one http.Server share.
type server struct {
	hs *http.Server

	mu       sync.Mutex
	conns    map[*conn]struct{}
	shutting bool
}

// shutdown sends GOAWAY on every connection: no new streams are taken, and
// each connection closes once its streams are done.
func (s *server) shutdown() {
	s.mu.Lock()
	s.shutting = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.goAway(http2.ErrCodeNo)
	}
}

func (s *server) logf(format string, args ...any) {
	if s.hs.ErrorLog != nil {
		s.hs.ErrorLog.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// conn is one HTTP/2 connection.
type conn struct {
	s          *server
	nc         net.Conn
	h          http.Handler
	ctx        context.Context
	cancel     context.CancelFunc
	remoteAddr string
	fr         *http2.Framer
	idleAfter  time.Duration
	readAfter  time.Duration

	// wmu guards the writing side of fr, bw, henc, hbuf and werr. A
	// writer does not flush: it wakes the connection's flusher, which
	// flushes what every writer added meanwhile in one write (under load,
	// the answers of several streams), as grpc-go's writer does.
	wmu  sync.Mutex
	bw   *bufio.Writer
	henc *hpack.Encoder
	hbuf hpackBuffer
	werr error
	// flush wakes the flusher; closeFlushed has it close the connection
	// once it flushed (the last stream of a connection going away ended).
	flush        chan struct{}
	closeFlushed atomic.Bool

	// mu guards the state below, which the reading goroutine and the
	// handlers share; cond is broadcast when a window grows, body data
	// arrives, a stream ends or the connection ends.
	mu           sync.Mutex
	cond         sync.Cond
	streams      map[uint32]*stream
	maxID        uint32
	sendWindow   int64
	peerInitial  int64
	peerMaxFrame int
	recvWindow   int64
	recvUnacked  int64
	// creditDue is the increment unlockCredit sends.
	creditDue uint32
	goingAway bool
	closed    bool
	idle      *time.Timer
	handlers  sync.WaitGroup
	// running counts the handlers started and not returned.
	running int

	// work hands streams to the connection's kept workers, avail of
	// which will take one each; done ends them once the connection has.
	work    chan *stream
	done    chan struct{}
	workers sync.WaitGroup
	avail   atomic.Int32
	// started counts the workers ever started.
	started atomic.Int64
}

// hpackBuffer collects an encoded header block.
type hpackBuffer struct{ b []byte }

func (h *hpackBuffer) Write(p []byte) (int, error) {
	h.b = append(h.b, p...)
	return len(p), nil
}

// serveConn serves nc until it ends and every handler it started has
// returned. sawPreface says net/http read the client's preface already.
func (s *server) serveConn(nc net.Conn, h http.Handler, sawPreface bool) {
	base := context.Background()
	if bc, ok := h.(interface{ BaseContext() context.Context }); ok {
		base = bc.BaseContext()
	}
	c := &conn{
		s: s, nc: nc, h: h, remoteAddr: nc.RemoteAddr().String(),
		idleAfter: s.hs.IdleTimeout, readAfter: s.hs.ReadTimeout,
		streams:    map[uint32]*stream{},
		sendWindow: initialWindow, peerInitial: initialWindow, peerMaxFrame: maxReadFrame,
		recvWindow: connRecvWindow,
		work:       make(chan *stream, maxIdleWorkers), done: make(chan struct{}),
		flush: make(chan struct{}, 1),
	}
	if c.idleAfter == 0 {
		c.idleAfter = s.hs.ReadTimeout
	}
	c.ctx, c.cancel = context.WithCancel(base)
	c.cond.L = &c.mu
	c.bw = bufio.NewWriterSize(nc, writeBuffer)
	br := bufio.NewReaderSize(nc, writeBuffer)
	c.fr = http2.NewFramer(c.bw, br)
	c.fr.SetReuseFrames()
	c.fr.SetMaxReadFrameSize(maxReadFrame)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.fr.MaxHeaderListSize = uint32(maxHeaderBytes(s.hs))
	c.henc = hpack.NewEncoder(&c.hbuf)

	s.mu.Lock()
	if s.shutting {
		s.mu.Unlock()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()

	c.serve(br, sawPreface)
}

// maxHeaderBytes is the header list size the server accepts.
func maxHeaderBytes(hs *http.Server) int {
	if hs.MaxHeaderBytes > 0 {
		return hs.MaxHeaderBytes
	}
	return http.DefaultMaxHeaderBytes
}

// serve reads frames until the connection fails or ends, then ends every
// stream and waits for the handlers.
func (c *conn) serve(br *bufio.Reader, sawPreface bool) {
	defer c.close()
	if !sawPreface {
		var p [len(clientPreface)]byte
		if _, err := io.ReadFull(br, p[:]); err != nil || string(p[:]) != clientPreface {
			return
		}
	}
	c.workers.Add(1)
	go c.flusher()
	c.lockWrite()
	c.writeErr(c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: maxConcurrentStreams},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: streamRecvWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: c.fr.MaxHeaderListSize},
	))
	c.writeErr(c.fr.WriteWindowUpdate(0, connRecvWindow-initialWindow))
	c.unlockWrite()
	if c.idleAfter > 0 {
		c.idle = time.AfterFunc(c.idleAfter, c.idleTimeout)
	}
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			if !c.readError(err) {
				return
			}
			continue
		}
		if !c.frame(f) {
			return
		}
	}
}

// readError handles an error of ReadFrame and reports whether reading goes
// on: a stream's error resets that stream, any other ends the connection
// (with GOAWAY when it is the client's fault).
func (c *conn) readError(err error) bool {
	switch e := err.(type) {
	case http2.StreamError:
		// A request whose headers were refused still used its id: data
		// the client sends on it next is for a closed stream, not an
		// unopened one.
		c.mu.Lock()
		if e.StreamID%2 == 1 && e.StreamID > c.maxID {
			c.maxID = e.StreamID
		}
		c.mu.Unlock()
		c.resetID(e.StreamID, e.Code)
		return true
	case http2.ConnectionError:
		c.goAway(http2.ErrCode(e))
	default:
		if err == http2.ErrFrameTooLarge {
			c.goAway(http2.ErrCodeFrameSize)
		}
	}
	return false
}

// frame handles one frame and reports whether reading goes on.
func (c *conn) frame(f http2.Frame) bool {
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		return c.headers(f)
	case *http2.DataFrame:
		return c.data(f)
	case *http2.SettingsFrame:
		return c.settings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			c.lockWrite()
			c.writeErr(c.fr.WritePing(true, f.Data))
			c.unlockWrite()
		}
	case *http2.WindowUpdateFrame:
		return c.windowUpdate(f)
	case *http2.RSTStreamFrame:
		c.mu.Lock()
		st := c.streams[f.StreamID]
		if st == nil && f.StreamID > c.maxID {
			c.mu.Unlock()
			c.goAway(http2.ErrCodeProtocol) // a reset of a stream never opened
			return false
		}
		if st != nil {
			c.endStreamLocked(st)
		}
		c.unlockCredit()
	case *http2.GoAwayFrame:
		c.mu.Lock()
		c.goingAway = true
		done := len(c.streams) == 0
		c.mu.Unlock()
		if done {
			// The last stream may have ended before its frames left (the
			// flusher has not run since): the connection closes when this
			// returns, so they leave now.
			c.flushNow()
		}
		return !done
	case *http2.PushPromiseFrame:
		c.goAway(http2.ErrCodeProtocol) // clients do not push
		return false
	}
	// PRIORITY and frames of unknown types are ignored, as HTTP/2 says.
	return true
}

func (c *conn) settings(f *http2.SettingsFrame) bool {
	if f.IsAck() {
		return true
	}
	var bad http2.ErrCode
	var table uint32
	tableSet := false
	c.mu.Lock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			bad = http2.ErrCodeProtocol
			if ce, ok := err.(http2.ConnectionError); ok {
				bad = http2.ErrCode(ce)
			}
			return err
		}
		switch s.ID {
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - c.peerInitial
			c.peerInitial = int64(s.Val)
			for _, st := range c.streams {
				st.sendWindow += delta
				if st.sendWindow > maxWindow {
					bad = http2.ErrCodeFlowControl
					return http2.ConnectionError(bad)
				}
			}
		case http2.SettingMaxFrameSize:
			c.peerMaxFrame = int(s.Val)
		case http2.SettingHeaderTableSize:
			table, tableSet = s.Val, true
		}
		return nil
	})
	c.cond.Broadcast()
	c.mu.Unlock()
	if err != nil {
		c.goAway(bad)
		return false
	}
	c.lockWrite()
	if tableSet {
		c.henc.SetMaxDynamicTableSizeLimit(table)
	}
	c.writeErr(c.fr.WriteSettingsAck())
	c.unlockWrite()
	return true
}

func (c *conn) windowUpdate(f *http2.WindowUpdateFrame) bool {
	c.mu.Lock()
	if f.StreamID == 0 {
		c.sendWindow += int64(f.Increment)
		if c.sendWindow > maxWindow {
			c.mu.Unlock()
			c.goAway(http2.ErrCodeFlowControl)
			return false
		}
	} else if st := c.streams[f.StreamID]; st != nil {
		st.sendWindow += int64(f.Increment)
		if st.sendWindow > maxWindow {
			c.mu.Unlock()
			c.resetID(f.StreamID, http2.ErrCodeFlowControl)
			return true
		}
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	return true
}

// goAway tells the client no new stream will be served and closes the
// connection once its streams are done (at once when there are none).
func (c *conn) goAway(code http2.ErrCode) {
	c.mu.Lock()
	if c.goingAway && code == http2.ErrCodeNo || c.closed {
		c.mu.Unlock()
		return
	}
	c.goingAway = true
	last, done := c.maxID, len(c.streams) == 0 || code != http2.ErrCodeNo
	c.mu.Unlock()
	c.lockWrite()
	c.writeErr(c.fr.WriteGoAway(last, code, nil))
	c.unlockWrite()
	if done {
		c.flushNow()
		_ = c.nc.Close()
	}
}

// idleTimeout closes a connection that has carried no stream for the
// server's IdleTimeout.
func (c *conn) idleTimeout() {
	c.mu.Lock()
	idle := len(c.streams) == 0 && !c.closed
	c.mu.Unlock()
	if idle {
		c.goAway(http2.ErrCodeNo)
	}
}

// close ends the connection: every stream's context ends, writers and
// readers waiting on the connection wake up, and close returns once every
// handler has.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	for _, st := range c.streams {
		st.gone.Store(true)
		if st.readTimer != nil {
			st.readTimer.Stop()
		}
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	c.cancel()
	_ = c.nc.Close()
	if c.idle != nil {
		c.idle.Stop()
	}
	c.handlers.Wait()
	close(c.done)
	c.workers.Wait()
}

// lockWrite takes the write lock; unlockWrite gives it back and wakes the
// flusher.
func (c *conn) lockWrite() { c.wmu.Lock() }

func (c *conn) unlockWrite() {
	c.wmu.Unlock()
	c.wakeFlusher()
}

// wakeFlusher has the flusher run, unless it is awake already (it will
// then see what was written).
func (c *conn) wakeFlusher() {
	select {
	case c.flush <- struct{}{}:
	default:
	}
}

// flushNow writes what is buffered at once; a connection about to close
// calls it so that its last frames (GOAWAY) leave first.
func (c *conn) flushNow() {
	c.wmu.Lock()
	if c.werr == nil {
		c.writeErr(c.bw.Flush())
	}
	c.wmu.Unlock()
}

// flusher flushes the write buffer each time a writer wakes it, until the
// connection ends.
func (c *conn) flusher() {
	defer c.workers.Done()
	for {
		select {
		case <-c.flush:
		case <-c.done:
			return
		}
		// Let the handlers that are running write their frames first:
		// under load one write then carries several answers (about four
		// at 16 calls in flight per connection, against one without the
		// yield); idle, the yield returns at once.
		runtime.Gosched()
		// closeFlushed is read before the flush: once it is set, the last
		// stream's frames are in the buffer (endWritten sets it with the
		// write lock held), so this flush sends them. Read after, it could
		// be set by a stream that wrote its frames after the flush, and
		// the connection would close with them unsent.
		// closeFlushed is read before the flush: once it is set, the last
		// stream's frames are in the buffer (endWritten sets it with the
		// write lock held), so this flush sends them. Read after, it could
		// be set by a stream that wrote its frames after the flush, and
		// the connection would close with them unsent.
		closing := c.closeFlushed.Load()
		c.flushNow()
		if closing {
			_ = c.nc.Close()
		}
	}
}

// writeErr records the first write error; the connection is then closed,
// which ends its reading goroutine and so every stream. c.wmu is held.
func (c *conn) writeErr(err error) {
	if err != nil && c.werr == nil {
		c.werr = err
		_ = c.nc.Close()
	}
}

// resetID sends RST_STREAM for stream id and forgets the stream.
func (c *conn) resetID(id uint32, code http2.ErrCode) {
	c.mu.Lock()
	if st := c.streams[id]; st != nil {
		c.endStreamLocked(st)
	}
	c.unlockCredit()
	c.lockWrite()
	if c.werr == nil {
		c.writeErr(c.fr.WriteRSTStream(id, code))
	}
	c.unlockWrite()
}

// creditLocked returns n bytes of the connection's receive window (read by
// a handler or discarded) and reports the WINDOW_UPDATE increment to send,
// batched to a quarter of the window. c.mu is held.
func (c *conn) creditLocked(n int64) uint32 {
	c.recvUnacked += n
	if c.recvUnacked < connRecvWindow/4 {
		return 0
	}
	inc := c.recvUnacked
	c.recvUnacked = 0
	c.recvWindow += inc
	return uint32(inc)
}

// unlockCredit releases c.mu and sends the connection's WINDOW_UPDATE for
// what was credited while it was held (creditDue).
func (c *conn) unlockCredit() {
	inc := c.creditDue
	c.creditDue = 0
	c.mu.Unlock()
	c.sendWindowUpdates(inc, 0, 0)
}

// sendWindowUpdates sends the increments creditLocked and a stream's
// credit returned.
func (c *conn) sendWindowUpdates(connInc uint32, id, streamInc uint32) {
	if connInc == 0 && streamInc == 0 {
		return
	}
	c.lockWrite()
	if connInc > 0 {
		c.writeErr(c.fr.WriteWindowUpdate(0, connInc))
	}
	if streamInc > 0 && c.werr == nil {
		c.writeErr(c.fr.WriteWindowUpdate(id, streamInc))
	}
	c.unlockWrite()
}
