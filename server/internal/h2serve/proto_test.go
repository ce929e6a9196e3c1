package h2serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// raw is a client that writes frames by hand, for what a well-behaved
// client never sends.
type raw struct {
	t    *testing.T
	nc   net.Conn
	fr   *http2.Framer
	hbuf bytes.Buffer
	enc  *hpack.Encoder
}

func dialRaw(t *testing.T, addr string, settings ...http2.Setting) *raw {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(nc, clientPreface)
	require.NoError(t, err)
	r := &raw{t: t, nc: nc, fr: http2.NewFramer(nc, nc)}
	r.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	r.fr.AllowIllegalWrites = true
	r.enc = hpack.NewEncoder(&r.hbuf)
	require.NoError(t, r.fr.WriteSettings(settings...))
	return r
}

// request is the pseudo-header fields of a request to path.
func request(method, path string) []string {
	return []string{":method", method, ":scheme", "http", ":path", path, ":authority", "test"}
}

func (r *raw) headers(id uint32, end bool, kv ...string) {
	r.t.Helper()
	r.hbuf.Reset()
	for i := 0; i < len(kv); i += 2 {
		require.NoError(r.t, r.enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]}))
	}
	require.NoError(r.t, r.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: r.hbuf.Bytes(), EndStream: end, EndHeaders: true}))
}

// until reads frames until one satisfies match and returns it; it fails
// the test if the connection ends first.
func (r *raw) until(what string, match func(http2.Frame) bool) http2.Frame {
	r.t.Helper()
	for {
		f, err := r.fr.ReadFrame()
		require.NoError(r.t, err, "waiting for %s", what)
		if match(f) {
			return f
		}
	}
}

func (r *raw) goAway() *http2.GoAwayFrame {
	r.t.Helper()
	return r.until("GOAWAY", func(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok }).(*http2.GoAwayFrame)
}

func (r *raw) reset(id uint32) *http2.RSTStreamFrame {
	r.t.Helper()
	return r.until("RST_STREAM", func(f http2.Frame) bool {
		rst, ok := f.(*http2.RSTStreamFrame)
		return ok && rst.StreamID == id
	}).(*http2.RSTStreamFrame)
}

// data returns the next DATA frame of stream id.
func (r *raw) data(id uint32) *http2.DataFrame {
	r.t.Helper()
	return r.until("DATA", func(f http2.Frame) bool {
		d, ok := f.(*http2.DataFrame)
		return ok && d.StreamID == id
	}).(*http2.DataFrame)
}

func (r *raw) status(id uint32) string {
	r.t.Helper()
	return r.until("HEADERS", func(f http2.Frame) bool {
		h, ok := f.(*http2.MetaHeadersFrame)
		return ok && h.StreamID == id
	}).(*http2.MetaHeadersFrame).PseudoValue("status")
}

// closed reports whether the server closed the connection.
func (r *raw) closed() bool {
	for {
		if _, err := r.fr.ReadFrame(); err != nil {
			return errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset")
		}
	}
}

// okHandler answers 200 "ok" to every request, reading nothing.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })

// TestConnectionControl checks PING and SETTINGS are acknowledged.
func TestConnectionControl(t *testing.T) {
	addr, _, _ := start(t, okHandler)
	r := dialRaw(t, addr)
	r.until("SETTINGS ACK", func(f http2.Frame) bool { s, ok := f.(*http2.SettingsFrame); return ok && s.IsAck() })
	data := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	require.NoError(t, r.fr.WritePing(false, data))
	ping := r.until("PING ACK", func(f http2.Frame) bool { p, ok := f.(*http2.PingFrame); return ok && p.IsAck() }).(*http2.PingFrame)
	assert.Equal(t, data, ping.Data)
}

// TestConnectionErrors checks that what breaks the connection's rules is
// answered with GOAWAY and the code HTTP/2 gives it, and the connection
// closed.
func TestConnectionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		send func(r *raw)
		code http2.ErrCode
	}{
		{"a stream with an even id", func(r *raw) { r.headers(2, true, request("GET", "/")...) }, http2.ErrCodeProtocol},
		{"a stream id going down", func(r *raw) {
			r.headers(5, true, request("GET", "/")...)
			r.headers(3, true, request("GET", "/")...)
		}, http2.ErrCodeProtocol},
		{"data on a stream never opened", func(r *raw) { require.NoError(t, r.fr.WriteData(7, true, []byte("x"))) }, http2.ErrCodeProtocol},
		{"a reset of a stream never opened", func(r *raw) { require.NoError(t, r.fr.WriteRSTStream(9, http2.ErrCodeCancel)) }, http2.ErrCodeProtocol},
		{"a connection window past 2^31-1", func(r *raw) { require.NoError(t, r.fr.WriteWindowUpdate(0, 1<<31-1)) }, http2.ErrCodeFlowControl},
		{"an initial window past 2^31-1", func(r *raw) {
			require.NoError(t, r.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 31}))
		}, http2.ErrCodeFlowControl},
		{"ENABLE_PUSH 2", func(r *raw) {
			require.NoError(t, r.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 2}))
		}, http2.ErrCodeProtocol},
		{"a push from the client", func(r *raw) {
			r.headers(1, false, request("POST", "/")...)
			require.NoError(t, r.fr.WritePushPromise(http2.PushPromiseParam{StreamID: 1, PromiseID: 2, BlockFragment: []byte{0x82}, EndHeaders: true}))
		}, http2.ErrCodeProtocol},
		{"more data than the connection's window", func(r *raw) {
			r.headers(1, false, request("POST", "/")...)
			chunk := make([]byte, 16<<10)
			for range connRecvWindow/len(chunk) + 1 {
				if r.fr.WriteData(1, false, chunk) != nil {
					return
				}
			}
		}, http2.ErrCodeFlowControl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				<-r.Context().Done() // reads nothing, so the windows only shrink
			}))
			r := dialRaw(t, addr)
			tc.send(r)
			assert.Equal(t, tc.code, r.goAway().ErrCode)
			assert.True(t, r.closed(), "the connection is closed")
		})
	}
}

// TestStreamErrors checks that a bad request resets its stream with
// PROTOCOL_ERROR (or is answered 431) and the connection serves the next.
func TestStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		send   func(r *raw)
		status string
	}{
		{"no :path", func(r *raw) { r.headers(1, true, ":method", "GET", ":scheme", "http", ":authority", "x") }, ""},
		{"a connection header", func(r *raw) { r.headers(1, true, append(request("GET", "/"), "connection", "keep-alive")...) }, ""},
		{"te other than trailers", func(r *raw) { r.headers(1, true, append(request("GET", "/"), "te", "gzip")...) }, ""},
		{"an upper-case field name", func(r *raw) { r.headers(1, true, append(request("GET", "/"), "X-Upper", "1")...) }, ""},
		{"an upper-case field name, a body following", func(r *raw) {
			r.headers(1, false, append(request("POST", "/"), "X-Upper", "1")...)
			require.NoError(t, r.fr.WriteData(1, true, []byte("body")))
		}, ""},
		{"CONNECT", func(r *raw) { r.headers(1, true, ":method", "CONNECT", ":authority", "example:443") }, ""},
		{"a body shorter than its content-length", func(r *raw) {
			r.headers(1, false, append(request("POST", "/"), "content-length", "5")...)
			require.NoError(t, r.fr.WriteData(1, true, []byte("abc")))
		}, ""},
		{"a content-length and no body", func(r *raw) {
			r.headers(1, true, append(request("POST", "/"), "content-length", "5")...)
		}, ""},
		{"a body that trailers end short of its content-length", func(r *raw) {
			r.headers(1, false, append(request("POST", "/"), "content-length", "5")...)
			require.NoError(t, r.fr.WriteData(1, false, []byte("abc")))
			r.headers(1, true, "x-trailer", "t")
		}, ""},
		{"a body longer than its content-length", func(r *raw) {
			r.headers(1, false, append(request("POST", "/"), "content-length", "2")...)
			require.NoError(t, r.fr.WriteData(1, true, []byte("abc")))
		}, ""},
		{"a header list past the limit", func(r *raw) {
			// Three fields, each within the limit, together past it.
			big := strings.Repeat("a", 2<<10)
			r.headers(1, true, append(request("GET", "/"), "x-a", big, "x-b", big, "x-c", big)...)
		}, "431"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				_, _ = io.WriteString(w, "ok")
			}), func(s *http.Server) { s.MaxHeaderBytes = 4 << 10 })
			r := dialRaw(t, addr)
			tc.send(r)
			if tc.status != "" {
				assert.Equal(t, tc.status, r.status(1))
			} else {
				assert.Equal(t, http2.ErrCodeProtocol, r.reset(1).ErrCode)
			}
			r.headers(3, true, request("GET", "/")...)
			assert.Equal(t, "200", r.status(3), "the connection goes on")
		})
	}
}

// TestDataAfterEnd checks that data after a request's END_STREAM resets
// the stream with STREAM_CLOSED.
func TestDataAfterEnd(t *testing.T) {
	release := make(chan struct{})
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	r := dialRaw(t, addr)
	r.headers(1, true, request("GET", "/")...)
	require.NoError(t, r.fr.WriteData(1, false, []byte("late")))
	assert.Equal(t, http2.ErrCodeStreamClosed, r.reset(1).ErrCode)
}

// TestRefusesStreamsPastTheLimit checks the stream past
// SETTINGS_MAX_CONCURRENT_STREAMS is refused.
func TestRefusesStreamsPastTheLimit(t *testing.T) {
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the bodies never end
	}))
	r := dialRaw(t, addr)
	id := uint32(1)
	for range maxConcurrentStreams {
		r.headers(id, false, request("POST", "/")...)
		id += 2
	}
	r.headers(id, false, request("POST", "/")...)
	assert.Equal(t, http2.ErrCodeRefusedStream, r.reset(id).ErrCode)
}

// TestSendFlowControl checks the server sends no more than the client's
// window allows and resumes when it grows.
func TestSendFlowControl(t *testing.T) {
	body := strings.Repeat("z", 100)
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, body) }))
	r := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 10})
	r.headers(1, true, request("GET", "/")...)
	got := 0
	for got < 10 {
		d := r.data(1)
		got += len(d.Data())
		require.False(t, d.StreamEnded() && got < len(body), "the answer ended early")
	}
	assert.Equal(t, 10, got, "no more than the window before it grows")
	require.NoError(t, r.fr.WriteWindowUpdate(1, 90))
	for {
		d := r.data(1)
		got += len(d.Data())
		if d.StreamEnded() {
			break
		}
	}
	assert.Equal(t, len(body), got)
}

// TestDroppedDataReturnsWindow checks that body data nobody reads (the
// handler answered without reading it) is returned to the connection's
// window: without that the next upload on the connection would stall.
func TestDroppedDataReturnsWindow(t *testing.T) {
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/drop" {
			_, _ = io.WriteString(w, "dropped")
			return
		}
		n, _ := io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, strings.Repeat("k", int(n/1024)))
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 3 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/drop", bytes.NewReader(make([]byte, 900<<10)))
		res, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/count", bytes.NewReader(make([]byte, 900<<10)))
	res, err := client.Do(req)
	require.NoError(t, err, "the upload after the dropped ones went through")
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Len(t, b, 900)
}

// TestRequestTrailersEndTheBody checks a body ended by trailers.
func TestRequestTrailersEndTheBody(t *testing.T) {
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(500)
			return
		}
		_, _ = w.Write(b)
	}))
	r := dialRaw(t, addr)
	r.headers(1, false, request("POST", "/")...)
	require.NoError(t, r.fr.WriteData(1, false, []byte("body")))
	r.headers(1, true, "x-trailer", "t")
	assert.Equal(t, "200", r.status(1))
}

// TestReadTimeout checks that a request whose body stops arriving is
// reset once the server's ReadTimeout passes, and its handler's read fails.
func TestReadTimeout(t *testing.T) {
	readErr := make(chan error, 1)
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), func(s *http.Server) { s.ReadTimeout = 50 * time.Millisecond })
	r := dialRaw(t, addr)
	r.headers(1, false, request("POST", "/")...)
	require.NoError(t, r.fr.WriteData(1, false, []byte("part")))
	assert.Equal(t, http2.ErrCodeCancel, r.reset(1).ErrCode)
	assert.ErrorIs(t, <-readErr, errStreamGone)
}

// TestIdleTimeout checks that a connection without streams for the
// server's IdleTimeout is sent GOAWAY and closed.
func TestIdleTimeout(t *testing.T) {
	addr, _, _ := start(t, okHandler, func(s *http.Server) { s.IdleTimeout = 50 * time.Millisecond })
	r := dialRaw(t, addr)
	r.headers(1, true, request("GET", "/")...)
	assert.Equal(t, "200", r.status(1))
	assert.Equal(t, http2.ErrCodeNo, r.goAway().ErrCode)
	assert.True(t, r.closed())
}

// TestClientGoAway checks that after the client's GOAWAY the server
// finishes the streams it has and closes the connection.
func TestClientGoAway(t *testing.T) {
	release := make(chan struct{})
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = io.WriteString(w, "late")
	}))
	r := dialRaw(t, addr)
	r.headers(1, true, request("GET", "/")...)
	require.NoError(t, r.fr.WriteGoAway(0, http2.ErrCodeNo, nil))
	close(release)
	assert.Equal(t, "200", r.status(1), "the stream in flight is answered")
	assert.True(t, r.closed())
}

// TestRapidReset checks that streams reset as they open cannot pile up
// handlers: once as many handlers run as streams may be open, new streams
// are refused until handlers return.
func TestRapidReset(t *testing.T) {
	release := make(chan struct{})
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // a handler that does not watch its context
	}))
	r := dialRaw(t, addr)
	id := uint32(1)
	for range maxConcurrentStreams {
		r.headers(id, true, request("GET", "/")...)
		require.NoError(t, r.fr.WriteRSTStream(id, http2.ErrCodeCancel))
		id += 2
	}
	r.headers(id, true, request("GET", "/")...)
	assert.Equal(t, http2.ErrCodeRefusedStream, r.reset(id).ErrCode, "refused while the reset streams' handlers run")
	close(release)
	for {
		id += 2
		r.headers(id, true, request("GET", "/")...)
		f := r.until("an answer or a refusal", func(f http2.Frame) bool {
			switch f := f.(type) {
			case *http2.RSTStreamFrame:
				return f.StreamID == id
			case *http2.MetaHeadersFrame:
				return f.StreamID == id
			}
			return false
		})
		if h, ok := f.(*http2.MetaHeadersFrame); ok {
			assert.Equal(t, "200", h.PseudoValue("status"), "served once the handlers returned")
			return
		}
		time.Sleep(time.Millisecond) // the handlers are still returning
	}
}

// TestStreamEndsBeforeItsEndIsSeen checks that once a client has read the
// end of an answer, the server no longer counts the stream or its handler
// against the stream limit: a client at the limit that opens a stream as
// soon as another ends must not be refused.
func TestStreamEndsBeforeItsEndIsSeen(t *testing.T) {
	addr, _, _, s := startServer(t, okHandler)
	r := dialRaw(t, addr)
	id := uint32(1)
	for range 200 {
		r.headers(id, true, request("GET", "/")...)
		r.until("the end of the answer", func(f http2.Frame) bool {
			d, ok := f.(*http2.DataFrame)
			return ok && d.StreamID == id && d.StreamEnded()
		})
		s.mu.Lock()
		require.Len(t, s.conns, 1)
		for c := range s.conns {
			c.mu.Lock()
			open, running := len(c.streams), c.running
			c.mu.Unlock()
			require.Zero(t, open, "stream %d still counted once its end was read", id)
			require.Zero(t, running, "the handler of stream %d still counted once its end was read", id)
		}
		s.mu.Unlock()
		id += 2
	}
}

// TestPaddingReturnsWindow sends a body whose frames are mostly padding,
// four times the stream's window of it, keeping within the windows the
// server grants: it only arrives if the padding comes back to the
// stream's window as well as the connection's.
func TestPaddingReturnsWindow(t *testing.T) {
	got := make(chan int, 1)
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- len(b)
	}))
	r := dialRaw(t, addr)
	require.NoError(t, r.nc.SetDeadline(time.Now().Add(5*time.Second)))
	// The windows the server grants, kept by a reader of its frames.
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	connWin, streamWin := int64(initialWindow), int64(initialWindow)
	stalled := false
	go func() {
		for {
			f, err := r.fr.ReadFrame()
			if err != nil {
				// The connection's deadline (dialRaw) passed: no window came.
				mu.Lock()
				stalled = true
				cond.Broadcast()
				mu.Unlock()
				return
			}
			mu.Lock()
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if v, ok := f.Value(http2.SettingInitialWindowSize); ok && !f.IsAck() {
					streamWin += int64(v) - initialWindow
				}
			case *http2.WindowUpdateFrame:
				if f.StreamID == 0 {
					connWin += int64(f.Increment)
				} else {
					streamWin += int64(f.Increment)
				}
			}
			cond.Broadcast()
			mu.Unlock()
		}
	}()
	r.headers(1, false, request("POST", "/")...)
	pad := make([]byte, 255)
	frames := 4 * streamRecvWindow / (len(pad) + 2)
	for i := range frames {
		size := int64(len(pad) + 2) // a byte of data, the pad length byte, the padding
		mu.Lock()
		for (connWin < size || streamWin < size) && !stalled {
			cond.Wait()
		}
		if stalled {
			mu.Unlock()
			t.Fatalf("the server granted no more window after %d of %d frames", i, frames)
		}
		connWin -= size
		streamWin -= size
		mu.Unlock()
		require.NoError(t, r.fr.WriteDataPadded(1, i == frames-1, []byte("x"), pad))
	}
	select {
	case n := <-got:
		assert.Equal(t, frames, n)
	case <-time.After(20 * time.Second):
		t.Fatal("the padded body did not arrive")
	}
}

// TestHeadersBeforeWindow checks that an answer's headers go out while the
// client grants no window for its body: headers are not flow-controlled,
// and a client may grant window only once it has them.
func TestHeadersBeforeWindow(t *testing.T) {
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "body")
	}))
	r := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	require.NoError(t, r.nc.SetDeadline(time.Now().Add(5*time.Second)))
	r.headers(1, true, request("GET", "/")...)
	assert.Equal(t, "200", r.status(1), "the headers come before any window is granted")
	require.NoError(t, r.fr.WriteWindowUpdate(1, 100))
	d := r.data(1)
	assert.Equal(t, "body", string(d.Data()))
	assert.True(t, d.StreamEnded())
}

// TestAnswerWaitingForWindowHoldsNoOtherStream checks that an answer
// waiting for the client to grant window does not hold back the next
// request on the connection.
func TestAnswerWaitingForWindowHoldsNoOtherStream(t *testing.T) {
	addr, _, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			_, _ = io.WriteString(w, strings.Repeat("b", 100))
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	r := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 10})
	require.NoError(t, r.nc.SetDeadline(time.Now().Add(5*time.Second)))
	r.headers(1, true, request("GET", "/big")...)
	r.data(1) // the first 10 bytes of the big answer
	r.headers(3, true, request("GET", "/small")...)
	d := r.data(3)
	assert.Equal(t, "ok", string(d.Data()))
}
